//===- ONNXShapeHelpers.cpp - Shape rules shared by onnx ops -------------===//

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

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
    } else {
      // VALID is no padding; with ceil_mode its last window may then run
      // past the input, as in onnxruntime, PyTorch and ONNX's shape
      // inference (ONNX's reference evaluator leaves it out).
      bool valid = p.autoPad == "VALID";
      int64_t padded = valid ? d : d + p.pads[i] + p.pads[i + n];
      if (padded < effectiveKernel) {
        size = 0;
      } else if (p.ceilMode) {
        size = ceilDiv(padded - effectiveKernel, s) + 1;
        // The last window must start inside the input or its begin padding.
        if ((size - 1) * s >= d + (valid ? 0 : p.pads[i]))
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

bool isShapeLikeConstant(Value v) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return false;
  auto dense = dyn_cast<DenseIntElementsAttr>(attr);
  return dense && dense.getNumElements() <= 64;
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

Type getElementTypeForONNX(int64_t dataType, MLIRContext *ctx) {
  // TensorProto.DataType numbers.
  switch (dataType) {
  case 1:
    return Float32Type::get(ctx);
  case 2:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 3:
    return IntegerType::get(ctx, 8);
  case 4:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case 5:
    return IntegerType::get(ctx, 16);
  case 6:
    return IntegerType::get(ctx, 32);
  case 7:
    return IntegerType::get(ctx, 64);
  case 9:
    return IntegerType::get(ctx, 1);
  case 10:
    return Float16Type::get(ctx);
  case 11:
    return Float64Type::get(ctx);
  case 12:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case 13:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case 16:
    return BFloat16Type::get(ctx);
  default:
    return nullptr;
  }
}

std::optional<int64_t> getONNXDataType(Type elementType) {
  // The TensorProto data type numbers fuse has element types for.
  for (int64_t dataType = 1; dataType <= 16; ++dataType)
    if (getElementTypeForONNX(dataType, elementType.getContext()) ==
        elementType)
      return dataType;
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>>
broadcastAllShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  SmallVector<int64_t> result;
  for (ArrayRef<int64_t> shape : shapes) {
    FailureOr<SmallVector<int64_t>> next = broadcastShapes(result, shape);
    if (failed(next))
      return failure();
    result = *next;
  }
  return result;
}

FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SliceParams> resolveSlice(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> starts,
                                   ArrayRef<int64_t> ends,
                                   ArrayRef<int64_t> axes,
                                   ArrayRef<int64_t> steps,
                                   std::string &error) {
  int64_t rank = shape.size();
  if (starts.size() != ends.size() ||
      (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size())) {
    error = "starts, ends, axes and steps must have the same length";
    return failure();
  }
  SliceParams p;
  p.starts.assign(rank, 0);
  p.steps.assign(rank, 1);
  p.sizes.assign(shape.begin(), shape.end());
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    FailureOr<int64_t> dim = normalizeAxis(axis, rank);
    if (failed(dim) || seen[*dim]) {
      error = "axis " + std::to_string(axis) +
              (failed(dim) ? " is out of range for rank " + std::to_string(rank)
                           : " is repeated");
      return failure();
    }
    seen[*dim] = true;
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) {
      error = "steps must not be 0";
      return failure();
    }
    int64_t size = shape[*dim];
    if (isDyn(size)) {
      p.sizes[*dim] = ShapedType::kDynamic;
      p.steps[*dim] = step;
      continue;
    }
    // An index maps into [-1, size]: below -size it is before the first
    // element, above size past the last. No arithmetic here may overflow,
    // whatever the dim and the indices (both may be near the int64 limits).
    auto normalize = [size](int64_t v) -> int64_t {
      if (v < 0)
        return v < -size ? -1 : v + size;
      return std::min(v, size);
    };
    int64_t start = normalize(starts[i]);
    int64_t end = normalize(ends[i]);
    int64_t count = 0;
    if (step > 0) {
      start = std::max<int64_t>(start, 0);
      end = std::max<int64_t>(end, 0);
      if (end > start)
        count = (end - start - 1) / step + 1;
    } else {
      start = std::min(std::max<int64_t>(start, 0), size - 1);
      end = std::min(end, size - 1);
      // -step overflows for the most negative step, which takes one element.
      if (start > end)
        count = step == std::numeric_limits<int64_t>::min()
                    ? 1
                    : (start - end - 1) / -step + 1;
    }
    p.starts[*dim] = start;
    p.steps[*dim] = step;
    p.sizes[*dim] = count;
  }
  return p;
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

Value fuse::createI64Constant(OpBuilder &builder, Location loc,
                              ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getI64Type());
  return ONNXConstantOp::create(builder, loc, type,
                                DenseIntElementsAttr::get(type, values));
}
