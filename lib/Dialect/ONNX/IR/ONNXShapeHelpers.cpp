//===- ONNXShapeHelpers.cpp - Shape rules shared by onnx ops -------------===//

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace fuse {

static bool isDyn(int64_t d) { return ShapedType::isDynamic(d); }

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the back; a missing dim acts as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1) {
      result[i] = db;
    } else if (db == 1) {
      result[i] = da;
    } else if (isDyn(da)) {
      result[i] = db; // Either equal to db or 1 at run time.
    } else if (isDyn(db)) {
      result[i] = da;
    } else if (da == db) {
      result[i] = da;
    } else {
      return failure();
    }
  }
  return result;
}

bool isUnidirectionallyBroadcastable(ArrayRef<int64_t> from,
                                     ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[i], t = to[offset + i];
    if (f == 1 || isDyn(f) || isDyn(t) || f == t)
      continue;
    return false;
  }
  return true;
}

static std::string joinInts(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

LogicalResult normalizeWindowParams(WindowParams &p, size_t n,
                                    std::string &error) {
  auto check = [&](SmallVector<int64_t> &v, size_t expected, int64_t dflt,
                   StringRef name, bool positive) -> bool {
    if (v.empty()) {
      v.assign(expected, dflt);
      return true;
    }
    if (v.size() != expected) {
      error = (Twine("'") + name + "' has " + Twine(v.size()) +
               " entries, expected " + Twine(expected) + " for " + Twine(n) +
               " spatial dimensions")
                  .str();
      return false;
    }
    for (int64_t x : v) {
      if (isDyn(x))
        continue;
      if (positive ? x < 1 : x < 0) {
        error = (Twine("'") + name + "' = " + joinInts(v) + " must be " +
                 (positive ? "positive" : "non-negative"))
                    .str();
        return false;
      }
      if (x > kMaxWindowValue) {
        error = (Twine("'") + name + "' = " + joinInts(v) +
                 " has a value larger than " + Twine(kMaxWindowValue))
                    .str();
        return false;
      }
    }
    return true;
  };
  if (p.kernel.size() != n) {
    error = (Twine("'kernel_shape' has ") + Twine(p.kernel.size()) +
             " entries, expected " + Twine(n) + " for " + Twine(n) +
             " spatial dimensions")
                .str();
    return failure();
  }
  if (!check(p.kernel, n, 1, "kernel_shape", true) ||
      !check(p.strides, n, 1, "strides", true) ||
      !check(p.dilations, n, 1, "dilations", true) ||
      !check(p.pads, 2 * n, 0, "pads", false))
    return failure();
  if (p.autoPad != "NOTSET" && p.autoPad != "SAME_UPPER" &&
      p.autoPad != "SAME_LOWER" && p.autoPad != "VALID") {
    error = "'auto_pad' = \"" + p.autoPad +
            "\" is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID";
    return failure();
  }
  return success();
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

FailureOr<SmallVector<int64_t>> inferWindowOutputDims(ArrayRef<int64_t> dims,
                                                      const WindowParams &p,
                                                      std::string &error) {
  size_t n = dims.size();
  SmallVector<int64_t> out(n, ShapedType::kDynamic);
  for (size_t i = 0; i < n; ++i) {
    int64_t d = dims[i], k = p.kernel[i], s = p.strides[i],
            dil = p.dilations[i];
    if (isDyn(d) || isDyn(k))
      continue;
    // Window attributes are at most kMaxWindowValue; a dim this large would
    // overflow `d + pads` and the rounding below.
    if (d > std::numeric_limits<int64_t>::max() / 4) {
      error = (Twine("spatial dimension ") + Twine(i) + " of size " + Twine(d) +
               " is too large for a window")
                  .str();
      return failure();
    }
    int64_t effectiveKernel = (k - 1) * dil + 1;
    int64_t size;
    if (p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER") {
      size = ceilDiv(d, s);
    } else if (p.autoPad == "VALID") {
      size = d >= effectiveKernel ? (d - effectiveKernel) / s + 1 : 0;
    } else {
      int64_t padded = d + p.pads[i] + p.pads[i + n];
      if (padded < effectiveKernel) {
        size = 0;
      } else if (p.ceilMode) {
        size = ceilDiv(padded - effectiveKernel, s) + 1;
        // The last window must start inside the input or its begin padding.
        if ((size - 1) * s >= d + p.pads[i])
          --size;
      } else {
        size = (padded - effectiveKernel) / s + 1;
      }
    }
    if (size < 1) {
      error = (Twine("window of size ") + Twine(effectiveKernel) +
               " does not fit spatial dimension " + Twine(i) + " of size " +
               Twine(d) + " with pads " + joinInts(p.pads))
                  .str();
      return failure();
    }
    out[i] = size;
  }
  return out;
}

SmallVector<int64_t> resolveWindowPads(ArrayRef<int64_t> dims,
                                       const WindowParams &p) {
  size_t n = dims.size();
  if (p.autoPad == "NOTSET")
    return p.pads;
  SmallVector<int64_t> pads(2 * n, 0);
  if (p.autoPad == "VALID")
    return pads;
  for (size_t i = 0; i < n; ++i) {
    if (isDyn(dims[i]))
      continue;
    int64_t effectiveKernel = (p.kernel[i] - 1) * p.dilations[i] + 1;
    int64_t out = ceilDiv(dims[i], p.strides[i]);
    int64_t total = std::max<int64_t>(0, (out - 1) * p.strides[i] +
                                             effectiveKernel - dims[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = p.autoPad == "SAME_UPPER" ? small : large;
    pads[i + n] = p.autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

std::optional<SmallVector<int64_t>> getConstantIntValues(Value v) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    SmallVector<int64_t> values;
    for (const APInt &x : dense.getValues<APInt>())
      values.push_back(x.getSExtValue());
    return values;
  }
  if (auto res = dyn_cast<DenseI64ResourceElementsAttr>(attr)) {
    if (auto data = res.tryGetAsArrayRef())
      return SmallVector<int64_t>(data->begin(), data->end());
  }
  if (auto res = dyn_cast<DenseI32ResourceElementsAttr>(attr)) {
    if (auto data = res.tryGetAsArrayRef())
      return SmallVector<int64_t>(data->begin(), data->end());
  }
  return std::nullopt;
}

FailureOr<int64_t> getNumElementsOrDynamic(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  bool dynamic = false;
  for (int64_t d : shape) {
    if (isDyn(d)) {
      dynamic = true;
      continue;
    }
    if (llvm::MulOverflow(n, d, n))
      return failure();
  }
  return dynamic ? ShapedType::kDynamic : n;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (isDyn(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

} // namespace fuse
