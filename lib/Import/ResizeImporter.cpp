//===- ResizeImporter.cpp - Resize as per-axis gathers and products ------===//
//
// Resize (opsets 11-19) and Upsample (7, 9) with constant scales or sizes
// (and roi) are separable: each resized axis maps its `in` elements to
// `out` ones through a fixed [out, in] weight matrix, which this importer
// computes as onnx's reference does (onnx/reference/ops/op_resize.py:
// coordinate transformation, taps of the nearest, linear or cubic kernel,
// antialiasing, exclude_outside, edge clamping). The axes are then resized
// one after the other:
//
// - nearest: a Gather of the chosen indices (exact, any element type);
// - linear, cubic: a MatMul with the weights (float element types);
// - tf_crop_and_resize: outputs whose source falls outside the input take
//   extrapolation_value (a Where with a constant mask).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// Bounds on what the importer computes: a resized dim, and the [out, in]
/// weights of one axis.
static constexpr double kMaxResizedDim = double(int64_t(1) << 31);
static constexpr int64_t kMaxWeights = int64_t(1) << 24;

namespace {

/// The attributes that shape the weights.
struct ResizeMode {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
};

/// How one axis is resized: for each output element, its weight on each
/// input element, and whether it takes extrapolation_value instead.
struct AxisResize {
  int64_t in = 0, out = 0;
  std::vector<double> weights; // [out][in]
  std::vector<bool> extrapolated;
};

} // namespace

/// The taps of the interpolation kernel at `ratio` in (0, 1].
static std::vector<double> kernelTaps(const ResizeMode &m, double ratio,
                                      double scale) {
  if (m.mode == "nearest") {
    if (ratio == 1.0)
      return {0, 1};
    bool up = m.nearest == "round_prefer_floor"  ? ratio > 0.5
              : m.nearest == "round_prefer_ceil" ? ratio >= 0.5
              : m.nearest == "floor"             ? false
                                                 : true;
    return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
  }
  double a = m.cubicA;
  std::vector<double> taps;
  if (m.antialias) {
    // Downsampling widens the kernel by 1 / scale; the taps sum to 1.
    double s = std::min(scale, 1.0);
    auto cubic = [&](double x) {
      x = std::fabs(x);
      if (x <= 1)
        return (a + 2) * x * x * x - (a + 3) * x * x + 1;
      if (x < 2)
        return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
      return 0.0;
    };
    bool linear = m.mode == "linear";
    int64_t start = static_cast<int64_t>(std::floor((linear ? -1 : -2) / s)) + 1;
    int64_t end = 2 - start;
    double total = 0;
    for (int64_t i = start; i < end; ++i) {
      double x = (i - ratio) * s;
      taps.push_back(linear ? std::clamp(1 - std::fabs(x), 0.0, 1.0)
                            : cubic(x));
      total += taps.back();
    }
    for (double &t : taps)
      t /= total;
    return taps;
  }
  if (m.mode == "linear")
    return {1 - ratio, ratio};
  double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
  return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
          ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
          ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a};
}

/// The weights of one axis (onnx's _interpolate_1d_along_axis).
static AxisResize resizeAxis(const ResizeMode &m, int64_t in, int64_t out,
                             double scale, double roiStart, double roiEnd) {
  AxisResize axis;
  axis.in = in;
  axis.out = out;
  axis.weights.assign(out * in, 0.0);
  axis.extrapolated.assign(out, false);
  double outWidth = scale * in;
  for (int64_t y = 0; y < out; ++y) {
    double x;
    const std::string &c = m.coordinates;
    if (c == "align_corners") {
      x = outWidth == 1 ? 0.0 : y * (in - 1) / (outWidth - 1);
    } else if (c == "asymmetric") {
      x = y / scale;
    } else if (c == "tf_crop_and_resize") {
      x = outWidth == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                        : y * (roiEnd - roiStart) * (in - 1) / (outWidth - 1);
      x += roiStart * (in - 1);
      axis.extrapolated[y] = x < 0 || x > in - 1;
    } else if (c == "pytorch_half_pixel") {
      x = outWidth == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
    } else if (c == "half_pixel_symmetric") {
      double offset = in / 2.0 * (1 - out / outWidth);
      x = offset + (y + 0.5) / scale - 0.5;
    } else {
      x = (y + 0.5) / scale - 0.5;
    }
    double base = std::floor(x);
    double ratio = x == base ? 1.0 : x - base;
    std::vector<double> taps = kernelTaps(m, ratio, scale);
    int64_t n = taps.size(), pad = (n + 1) / 2;
    double padded = x + pad;
    double p = std::floor(padded), frac = padded - p;
    int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                : (frac <= 0.5 ? -((n - 1) / 2)
                                               : -((n - 1) / 2) + 1);
    int64_t start = static_cast<int64_t>(p) + offset - pad;
    if (m.excludeOutside) {
      double total = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (start + k < 0 || start + k >= in)
          taps[k] = 0;
        total += taps[k];
      }
      for (double &t : taps)
        t /= total == 0 ? 1 : total;
    }
    for (int64_t k = 0; k < n; ++k) {
      int64_t index = std::clamp<int64_t>(start + k, 0, in - 1);
      axis.weights[y * in + index] += taps[k];
    }
  }
  return axis;
}

/// The float values of constant `v`, if it is one.
static std::optional<SmallVector<double>> getConstantFloats(Value v) {
  DenseFPElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<double> values;
  for (const APFloat &f : attr.getValues<APFloat>())
    values.push_back(f.convertToDouble());
  return values;
}

/// Resizes `x` along `axis` as `a` says.
static Value applyAxis(NodeEmitter &e, Value x, int64_t axis,
                       const AxisResize &a, const ResizeMode &m,
                       double extrapolation) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type elementType = type.getElementType();
  if (m.mode == "nearest") {
    SmallVector<int64_t> indices;
    for (int64_t y = 0; y < a.out; ++y)
      for (int64_t i = 0; i < a.in; ++i)
        if (a.weights[y * a.in + i] != 0) {
          indices.push_back(i);
          break;
        }
    x = e.op("onnx.Gather", {x, e.i64s(indices)}, {e.intAttr("axis", axis)});
  } else {
    // W ([out, in]) multiplies the second-to-last axis from the left,
    // W^T ([in, out]) the last one from the right; other axes are moved
    // last and back.
    bool left = rank >= 2 && axis == rank - 2;
    bool moved = !left && axis != rank - 1;
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        perm.push_back(d);
    perm.push_back(axis);
    if (moved)
      x = e.transpose(x, perm);
    auto wType = RankedTensorType::get(
        left ? ArrayRef<int64_t>{a.out, a.in} : ArrayRef<int64_t>{a.in, a.out},
        elementType);
    SmallVector<APFloat> values;
    const auto &semantics = cast<FloatType>(elementType).getFloatSemantics();
    for (int64_t r = 0; r < wType.getDimSize(0); ++r)
      for (int64_t c = 0; c < wType.getDimSize(1); ++c) {
        APFloat f(left ? a.weights[r * a.in + c] : a.weights[c * a.in + r]);
        bool lost;
        f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
        values.push_back(f);
      }
    Value weights = e.constant(DenseElementsAttr::get(wType, values));
    x = left ? e.op("onnx.MatMul", {weights, x})
             : e.op("onnx.MatMul", {x, weights});
    if (moved) {
      SmallVector<int64_t> inverse(rank);
      for (int64_t d = 0; d < rank; ++d)
        inverse[perm[d]] = d;
      x = e.transpose(x, inverse);
    }
  }
  if (!llvm::is_contained(a.extrapolated, true))
    return x;
  SmallVector<int64_t> maskShape(rank, 1);
  maskShape[axis] = a.out;
  SmallVector<bool> mask(a.extrapolated.begin(), a.extrapolated.end());
  Value maskValue = e.constant(DenseElementsAttr::get(
      RankedTensorType::get(maskShape, IntegerType::get(x.getContext(), 1)),
      ArrayRef(mask)));
  return e.op("onnx.Where",
              {maskValue, e.scalar(elementType, extrapolation), x});
}

static std::string stringAttrOr(NodeImporter &n, StringRef name,
                                StringRef value) {
  const auto *attr = n.findAttr(name);
  return attr ? attr->s() : value.str();
}

LogicalResult fuse::detail::importResize(NodeImporter &n) {
  Value x = n.input(0);
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.hasStaticShape())
    return n.emitError() << "an input of dynamic shape is not supported";
  int64_t rank = type.getRank();
  bool upsample = n.node.op_type() == "Upsample";
  if (!upsample && n.version < 11)
    return n.emitError() << "Resize-10 is not supported (Resize-11 on is)";

  ResizeMode m;
  m.mode = stringAttrOr(n, "mode", "nearest");
  if (upsample) {
    // Upsample: asymmetric coordinates; nearest takes the floor.
    m.coordinates = "asymmetric";
    m.nearest = "floor";
    if (m.mode == "bilinear")
      m.mode = "linear";
  } else {
    m.coordinates =
        stringAttrOr(n, "coordinate_transformation_mode", "half_pixel");
    m.nearest = stringAttrOr(n, "nearest_mode", "round_prefer_floor");
    if (const auto *a = n.findAttr("cubic_coeff_a"))
      m.cubicA = a->f();
    if (const auto *a = n.findAttr("exclude_outside"))
      m.excludeOutside = a->i() != 0;
    if (const auto *a = n.findAttr("antialias"))
      m.antialias = a->i() != 0;
  }
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return n.emitError() << "mode = '" << m.mode << "' is not supported";
  static const char *const coordinateModes[] = {
      "half_pixel",  "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners", "asymmetric",         "tf_crop_and_resize"};
  if (!llvm::is_contained(coordinateModes, m.coordinates))
    return n.emitError() << "coordinate_transformation_mode = '"
                         << m.coordinates << "' is not supported";
  static const char *const nearestModes[] = {"round_prefer_floor",
                                             "round_prefer_ceil", "floor",
                                             "ceil"};
  if (!llvm::is_contained(nearestModes, m.nearest))
    return n.emitError() << "nearest_mode = '" << m.nearest
                         << "' is not supported";
  if (m.mode == "nearest" && m.antialias)
    return n.emitError() << "antialias is not supported for mode 'nearest'";
  if (m.mode != "nearest" && !isa<FloatType>(type.getElementType()))
    return n.emitError() << "mode '" << m.mode << "' of "
                         << type.getElementType() << " is not supported";

  // The resized axes, and their scales, sizes and roi.
  SmallVector<int64_t> axes;
  if (const auto *a = n.findAttr("axes")) {
    for (int64_t axis : a->ints()) {
      FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
      if (failed(normalized) || llvm::is_contained(axes, *normalized))
        return n.emitError() << "axes has an invalid entry " << axis;
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t count = axes.size();
  Value roiInput = upsample ? Value() : n.input(1);
  Value scalesInput = upsample ? n.input(1) : n.input(2);
  Value sizesInput = upsample ? Value() : n.input(3);
  std::optional<SmallVector<double>> scales, roi;
  std::optional<SmallVector<int64_t>> sizes;
  SmallVector<std::string> missing;
  if (const auto *attr = n.findAttr("scales"); upsample && attr)
    scales = SmallVector<double>(attr->floats().begin(), attr->floats().end());
  else if (scalesInput && !(scales = getConstantFloats(scalesInput)))
    missing.push_back("scales");
  if (sizesInput && !(sizes = getConstantIntValues(sizesInput)))
    missing.push_back("sizes");
  if (m.coordinates == "tf_crop_and_resize" && roiInput &&
      !(roi = getConstantFloats(roiInput)))
    missing.push_back("roi");
  if (!missing.empty()) {
    auto diag = n.emitError() << "needs a constant";
    for (const std::string &name : missing)
      diag << " '" << name << "'";
    return diag;
  }
  // An empty scales (Resize-11/13 with sizes) counts as absent.
  if (scales && scales->empty())
    scales.reset();
  if (bool(scales) == bool(sizes))
    return n.emitError() << "requires exactly one of 'scales' and 'sizes'";
  if ((scales && int64_t(scales->size()) != count) ||
      (sizes && int64_t(sizes->size()) != count))
    return n.emitError() << "'scales' or 'sizes' must have " << count
                         << " entries";
  if (m.coordinates == "tf_crop_and_resize" &&
      (!roi || int64_t(roi->size()) != 2 * count))
    return n.emitError() << "tf_crop_and_resize requires a 'roi' of "
                         << 2 * count << " entries";

  // Scale and size of each dim (onnx's _interpolate_nd).
  SmallVector<double> scale(rank, 1.0);
  SmallVector<int64_t> size(type.getShape());
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = axes[i], in = type.getDimSize(d);
    if (scales) {
      scale[d] = static_cast<float>((*scales)[i]);
      if (!(scale[d] > 0))
        return n.emitError() << "scales must be positive";
      if (!(scale[d] * in < kMaxResizedDim))
        return n.emitError() << "scale " << scale[d] << " of dim " << d
                             << " makes it too large";
      size[d] = static_cast<int64_t>(scale[d] * in);
    } else {
      if ((*sizes)[i] < 0 || (*sizes)[i] >= kMaxResizedDim)
        return n.emitError() << "sizes must be in [0, " << kMaxResizedDim
                             << ")";
      size[d] = (*sizes)[i];
      scale[d] = static_cast<double>(size[d]) / in;
    }
  }
  std::string policy = stringAttrOr(n, "keep_aspect_ratio_policy", "stretch");
  if (sizes && policy != "stretch") {
    if (policy != "not_larger" && policy != "not_smaller")
      return n.emitError() << "keep_aspect_ratio_policy = '" << policy
                           << "' is not supported";
    double kept = scale[axes[0]];
    for (int64_t d : axes)
      kept = policy == "not_larger" ? std::min(kept, scale[d])
                                    : std::max(kept, scale[d]);
    for (int64_t d : axes) {
      scale[d] = kept;
      if (!(kept * type.getDimSize(d) < kMaxResizedDim))
        return n.emitError() << "keep_aspect_ratio_policy makes dim " << d
                             << " too large";
      size[d] = static_cast<int64_t>(kept * type.getDimSize(d) + 0.5);
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (size[d] < 1 || type.getDimSize(d) < 1)
      return n.emitError() << "an output or input with no elements is not "
                              "supported";

  double extrapolation = 0;
  if (const auto *a = n.findAttr("extrapolation_value"))
    extrapolation = a->f();
  NodeEmitter e(n);
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = axes[i], in = type.getDimSize(d);
    double roiStart = roi ? (*roi)[i] : 0.0, roiEnd = roi ? (*roi)[count + i]
                                                          : 1.0;
    bool identity = std::fabs(scale[d] - 1.0) <= 1e-9 && size[d] == in &&
                    std::fabs(roiStart) <= 1e-9 &&
                    std::fabs(roiEnd - 1.0) <= 1e-9;
    if (identity)
      continue;
    // The weights are a constant of out x in elements.
    if (size[d] * in > kMaxWeights)
      return n.emitError() << "resizing dim " << d << " from " << in << " to "
                           << size[d] << " is not supported (its weights "
                           << "would have more than " << kMaxWeights
                           << " elements)";
    AxisResize a = resizeAxis(m, in, size[d], scale[d], roiStart, roiEnd);
    x = applyAxis(e, x, d, a, m, extrapolation);
    if (e.failed())
      return failure();
  }
  if (e.failed())
    return failure();
  n.results.push_back(x == n.input(0) ? e.op("onnx.Identity", {x}) : x);
  return e.failed() ? failure() : success();
}
