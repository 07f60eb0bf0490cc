//===- QuantizeImporter.cpp - QDQ ops as their function bodies -----------===//
//
// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear become the
// elementwise ops that define them, computed in f32 (as onnx's reference
// does), so that a QDQ model imports and its quantize/dequantize pairs
// join the elementwise chains around them:
//
//   DequantizeLinear: y = (f32(x) - f32(zero_point)) * scale
//   QuantizeLinear:   y = cast(clip(round(f32(x) / scale) + zero_point,
//                                   type's min, type's max))
//
// Round is onnx.Round (halves to even, as the specification's rint).
// Scale and zero point are scalars (per tensor), 1-D along `axis` (per
// axis), or, with `block_size`, of x's rank with ceil(dim / block_size)
// entries along `axis`, each repeated for block_size elements.
//
// Integer types of 8 and 16 bits are supported; the 2- and 4-bit and
// float8 types are refused when the model's tensors are read, since fuse
// has no element type for them.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

namespace {

/// The range of quantized element type `type`, when it is one fuse
/// quantizes to.
std::optional<std::pair<double, double>> quantizedRange(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || (integer.getWidth() != 8 && integer.getWidth() != 16))
    return std::nullopt;
  unsigned bits = integer.getWidth();
  if (integer.isUnsigned())
    return std::make_pair(0.0, double((1 << bits) - 1));
  return std::make_pair(-double(1 << (bits - 1)),
                        double((1 << (bits - 1)) - 1));
}

/// Reads `axis` (default 1) and `block_size` (default 0) of the node for
/// an input `x` of static shape.
struct QuantizationAxis {
  RankedTensorType xType;
  int64_t axis = 1;
  int64_t blockSize = 0;
};

FailureOr<QuantizationAxis> readAxis(NodeImporter &n) {
  QuantizationAxis q;
  q.xType = dyn_cast<RankedTensorType>(n.input(0).getType());
  if (!q.xType || !q.xType.hasStaticShape())
    return n.emitError() << "x of dynamic shape is not supported";
  if (const auto *axis = n.findAttr("axis"))
    q.axis = axis->i();
  if (const auto *blockSize = n.findAttr("block_size"))
    q.blockSize = blockSize->i();
  if (q.blockSize < 0)
    return n.emitError() << "block_size = " << q.blockSize
                         << " must not be negative";
  return q;
}

/// The axis, checked against x's rank (only where a parameter is not a
/// scalar: per-tensor quantization ignores it).
FailureOr<int64_t> checkedAxis(NodeImporter &n, const QuantizationAxis &q) {
  int64_t rank = q.xType.getRank();
  if (q.axis < -rank || q.axis >= rank)
    return n.emitError() << "axis " << q.axis << " is out of range for rank "
                         << rank;
  return q.axis < 0 ? q.axis + rank : q.axis;
}

/// `param` (a scale or zero point called `name`) in a shape that
/// broadcasts against x: a scalar as is, a 1-D tensor along the axis, a
/// blocked one with each entry repeated block_size times along the axis.
Value broadcastParameter(NodeEmitter &e, NodeImporter &n, Value param,
                         StringRef name, const QuantizationAxis &q) {
  auto type = dyn_cast<RankedTensorType>(param.getType());
  if (!type || !type.hasStaticShape()) {
    n.emitError() << "'" << name << "' of dynamic shape is not supported";
    return {};
  }
  ArrayRef<int64_t> xShape = q.xType.getShape();
  int64_t rank = q.xType.getRank();
  if (type.getRank() == 0)
    return param;
  if (q.blockSize == 0 && type.getRank() == 1 && type.getDimSize(0) == 1)
    return e.reshape(param, {});
  FailureOr<int64_t> axis = checkedAxis(n, q);
  if (failed(axis))
    return {};
  if (q.blockSize == 0) {
    int64_t along = xShape[*axis];
    if (type.getRank() != 1 || type.getDimSize(0) != along) {
      n.emitError() << "'" << name << "' must be a scalar or a 1-D tensor of "
                    << along << " elements (x's dim along axis " << *axis
                    << "), not " << type;
      return {};
    }
    SmallVector<int64_t> shape(rank, 1);
    shape[*axis] = along;
    return e.reshape(param, shape);
  }

  // Blocked: one entry per block_size elements along the axis. A block
  // longer than the axis is the whole axis (and a huge block_size must not
  // overflow the arithmetic below).
  int64_t along = xShape[*axis];
  if (ShapedType::isDynamic(along)) {
    n.emitError() << "block_size needs x's dim along axis " << *axis
                  << " to be static";
    return {};
  }
  int64_t blockSize = std::min(q.blockSize, std::max<int64_t>(along, 1));
  int64_t blocks = along / blockSize + (along % blockSize != 0);
  SmallVector<int64_t> expected(xShape);
  expected[*axis] = blocks;
  if (type.getShape() != ArrayRef(expected)) {
    auto want = RankedTensorType::get(expected, type.getElementType());
    n.emitError() << "with block_size " << q.blockSize << ", '" << name
                  << "' must be " << want << ", not " << type;
    return {};
  }
  SmallVector<int64_t> repeated(expected);
  repeated.insert(repeated.begin() + *axis + 1, blockSize);
  Value unsqueezed = e.op("onnx.Unsqueeze", {param, e.i64s({*axis + 1})});
  Value expanded = e.op("onnx.Expand", {unsqueezed, e.i64s(repeated)});
  SmallVector<int64_t> merged(expected);
  merged[*axis] = blocks * blockSize;
  Value flat = e.reshape(expanded, merged);
  if (blocks * blockSize == along)
    return flat;
  return e.op("onnx.Slice", {flat, e.i64s({0}), e.i64s({along}),
                             e.i64s({*axis}), Value()});
}

/// The element type named by attribute `output_dtype`, when set.
FailureOr<Type> readOutputType(NodeImporter &n) {
  const auto *attr = n.findAttr("output_dtype");
  if (!attr || attr->i() == 0)
    return Type();
  Type type = convertElementType(attr->i(), n.getContext());
  if (!type)
    return n.emitError() << "output_dtype " << dataTypeName(attr->i())
                         << " is not supported";
  return type;
}

/// x / scale rounded, plus the zero point, clipped to `resultType`'s range
/// and cast to it; `scale` and `zeroPoint` (may be null) broadcast.
Value quantize(NodeEmitter &e, Value x, Value scale, Value zeroPoint,
               Type resultType) {
  Type f32 = Float32Type::get(x.getContext());
  auto [lo, hi] = *quantizedRange(resultType);
  Value q = e.op("onnx.Round",
                 {e.op("onnx.Div", {e.cast(x, f32), e.cast(scale, f32)})});
  if (zeroPoint)
    q = e.op("onnx.Add", {q, e.cast(zeroPoint, f32)});
  q = e.op("onnx.Clip", {q, e.scalar(f32, lo), e.scalar(f32, hi)});
  return e.cast(q, resultType);
}

} // namespace

LogicalResult fuse::detail::importDequantizeLinear(NodeImporter &n) {
  FailureOr<QuantizationAxis> q = readAxis(n);
  FailureOr<Type> outputType = readOutputType(n);
  if (failed(q) || failed(outputType))
    return failure();
  Value x = n.input(0), scale = n.input(1), zeroPoint = n.input(2);
  Type xElement = q->xType.getElementType();
  if (!isa<IntegerType>(xElement) ||
      cast<IntegerType>(xElement).getWidth() > 32)
    return n.emitError() << "x of element type " << xElement
                         << " is not supported (8, 16 and 32-bit integers "
                            "are)";
  if (zeroPoint &&
      cast<TensorType>(zeroPoint.getType()).getElementType() != xElement)
    return n.emitError() << "'x_zero_point' must have x's element type "
                         << xElement;
  Type scaleElement = cast<TensorType>(scale.getType()).getElementType();
  if (!isa<FloatType>(scaleElement))
    return n.emitError() << "'x_scale' must be a float tensor";
  Type resultType = *outputType ? *outputType : scaleElement;
  if (!isa<FloatType>(resultType))
    return n.emitError() << "output_dtype must be a float type";

  NodeEmitter e(n);
  Type f32 = Float32Type::get(n.getContext());
  Value value = e.cast(x, f32);
  if (zeroPoint) {
    Value zp = broadcastParameter(e, n, zeroPoint, "x_zero_point", *q);
    if (!zp)
      return failure();
    value = e.op("onnx.Sub", {value, e.cast(zp, f32)});
  }
  Value s = broadcastParameter(e, n, scale, "x_scale", *q);
  if (!s)
    return failure();
  Value y = e.cast(e.op("onnx.Mul", {value, e.cast(s, f32)}), resultType);
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

LogicalResult fuse::detail::importQuantizeLinear(NodeImporter &n) {
  FailureOr<QuantizationAxis> q = readAxis(n);
  FailureOr<Type> outputType = readOutputType(n);
  if (failed(q) || failed(outputType))
    return failure();
  if (const auto *precision = n.findAttr("precision"))
    if (precision->i() != 0 && precision->i() != 1 /*FLOAT*/)
      return n.emitError() << "precision " << dataTypeName(precision->i())
                           << " is not supported (fuse divides in FLOAT)";
  Value x = n.input(0), scale = n.input(1), zeroPoint = n.input(2);
  Type xElement = q->xType.getElementType();
  if (!isa<FloatType>(xElement) && !xElement.isSignlessInteger(32) &&
      !xElement.isSignedInteger(32))
    return n.emitError() << "x of element type " << xElement
                         << " is not supported";
  Type resultType = *outputType;
  if (zeroPoint) {
    Type zpElement = cast<TensorType>(zeroPoint.getType()).getElementType();
    if (resultType && resultType != zpElement)
      return n.emitError() << "output_dtype " << resultType
                           << " differs from y_zero_point's type "
                           << zpElement;
    resultType = zpElement;
  }
  if (!resultType) // the default: uint8
    resultType = IntegerType::get(n.getContext(), 8, IntegerType::Unsigned);
  if (!quantizedRange(resultType))
    return n.emitError() << "quantizing to " << resultType
                         << " is not supported (int8, uint8, int16 and "
                            "uint16 are)";

  NodeEmitter e(n);
  Value s = broadcastParameter(e, n, scale, "y_scale", *q);
  if (!s)
    return failure();
  Value zp;
  if (zeroPoint) {
    zp = broadcastParameter(e, n, zeroPoint, "y_zero_point", *q);
    if (!zp)
      return failure();
  }
  Value y = quantize(e, x, s, zp, resultType);
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

/// DynamicQuantizeLinear-11, as its function body: the scale maps
/// [min(x, 0), max(x, 0)] onto [0, 255], the zero point is where 0 lands.
LogicalResult fuse::detail::importDynamicQuantizeLinear(NodeImporter &n) {
  Value x = n.input(0);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || !xType.hasStaticShape() || !xType.getElementType().isF32())
    return n.emitError() << "x must be a float tensor of static shape";
  NodeEmitter e(n);
  MLIRContext *ctx = n.getContext();
  Type f32 = Float32Type::get(ctx);
  Type u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  Value zero = e.scalar(f32, 0.0);
  Value low = e.op("onnx.Min", {e.op("onnx.ReduceMin", {x, Value()},
                                     {e.intAttr("keepdims", 0)}),
                                zero});
  Value high = e.op("onnx.Max", {e.op("onnx.ReduceMax", {x, Value()},
                                      {e.intAttr("keepdims", 0)}),
                                 zero});
  Value scale = e.op("onnx.Div",
                     {e.op("onnx.Sub", {high, low}), e.scalar(f32, 255.0)});
  Value zeroPointF =
      e.op("onnx.Round",
           {e.op("onnx.Clip", {e.op("onnx.Sub", {zero, e.op("onnx.Div",
                                                             {low, scale})}),
                               zero, e.scalar(f32, 255.0)})});
  Value zeroPoint = e.cast(zeroPointF, u8);
  Value y = quantize(e, x, scale, zeroPoint, u8);
  if (e.failed())
    return failure();
  n.results.push_back(y);
  n.results.push_back(scale);
  n.results.push_back(zeroPoint);
  return success();
}
