//===- ShapeOps.cpp - Shape, ConstantOfShape and Range -------------------===//
//
// Ops that compute shapes or build tensors from shapes. Exporters emit
// chains of them (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) even
// for static models; their folders turn such chains into constants.
//
//===----------------------------------------------------------------------===//

#include "InferenceUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The [start, end) dims Shape-15 selects, clamped as ONNX says.
static std::pair<int64_t, int64_t> shapeRange(int64_t rank, int64_t start,
                                              std::optional<int64_t> end) {
  auto clampIndex = [rank](int64_t i) {
    if (i < 0)
      i += rank;
    return std::min(std::max<int64_t>(i, 0), rank);
  };
  int64_t s = clampIndex(start);
  int64_t e = end ? clampIndex(*end) : rank;
  return {s, std::max(s, e)};
}

LogicalResult ONNXShapeOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  TensorType data = getTensorType(adaptor.getData());
  if (!data)
    return inferError(loc, getOperationName(), "expects a tensor operand");
  Type i64 = IntegerType::get(ctx, 64);
  if (!data.hasRank()) {
    types.push_back(RankedTensorType::get({ShapedType::kDynamic}, i64));
    return success();
  }
  std::optional<int64_t> end;
  if (adaptor.getEndAttr())
    end = static_cast<int64_t>(adaptor.getEndAttr().getInt());
  auto [s, e] =
      shapeRange(data.getRank(), static_cast<int64_t>(adaptor.getStart()), end);
  types.push_back(RankedTensorType::get({e - s}, i64));
  return success();
}

OpFoldResult ONNXShapeOp::fold(FoldAdaptor) {
  auto data = dyn_cast<RankedTensorType>(getData().getType());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!data || !type || !type.hasStaticShape())
    return {};
  std::optional<int64_t> end;
  if (getEndAttr())
    end = getEndAttr().getInt();
  auto [s, e] = shapeRange(data.getRank(), getStart(), end);
  ArrayRef<int64_t> dims = data.getShape().slice(s, e - s);
  if (llvm::any_of(dims, ShapedType::isDynamic) || type.getDimSize(0) != e - s)
    return {};
  return DenseIntElementsAttr::get(type, dims);
}

LogicalResult ONNXSizeOp::inferReturnTypes(MLIRContext *ctx,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (!getTensorType(adaptor.getData()))
    return inferError(loc, getOperationName(), "expects a tensor operand");
  types.push_back(RankedTensorType::get({}, IntegerType::get(ctx, 64)));
  return success();
}

OpFoldResult ONNXSizeOp::fold(FoldAdaptor) {
  auto data = dyn_cast<RankedTensorType>(getData().getType());
  if (!data || !data.hasStaticShape())
    return {};
  return DenseIntElementsAttr::get(cast<RankedTensorType>(getType()),
                                   data.getNumElements());
}

/// The fill value of ConstantOfShape: its `value` attribute or float 0.
static Attribute getFillValue(MLIRContext *ctx, ElementsAttr value) {
  if (!value)
    return FloatAttr::get(Float32Type::get(ctx), 0.0);
  if (value.getNumElements() != 1)
    return nullptr;
  return *value.getValues<Attribute>().begin();
}

LogicalResult ONNXConstantOfShapeOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType shapeType = getTensorType(adaptor.getInput());
  if (!shapeType)
    return inferError(loc, name, "expects a tensor operand");
  ElementsAttr value = adaptor.getValueAttr();
  if (value && value.getNumElements() != 1)
    return inferError(loc, name, "'value' must have exactly one element, has ",
                      value.getNumElements());
  Type elementType =
      value ? value.getShapedType().getElementType() : Float32Type::get(ctx);
  if (std::optional<SmallVector<int64_t>> dims =
          getConstantIntValues(adaptor.getInput())) {
    for (int64_t d : *dims)
      if (d < 0)
        return inferError(loc, name, "shape has a negative dim ", d);
    types.push_back(RankedTensorType::get(*dims, elementType));
    return success();
  }
  return inferFromShapeOperandLength(loc, name, shapeType, elementType, types);
}

OpFoldResult ONNXConstantOfShapeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape())
    return {};
  Attribute fill = getFillValue(getContext(), getValueAttr());
  if (!fill)
    return {};
  return DenseElementsAttr::get(type, fill);
}

/// Range's element count, `max(ceil((limit - start) / delta), 0)`.
static FailureOr<int64_t> rangeCount(double start, double limit, double delta) {
  if (delta == 0)
    return failure();
  double n = std::ceil((limit - start) / delta);
  if (!(n < 1e12))
    return failure();
  return std::max<int64_t>(0, static_cast<int64_t>(n));
}

/// The value of a one-element constant operand, as a double.
static std::optional<double> getScalarValue(Value v) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() != 1)
    return std::nullopt;
  if (auto f = dyn_cast<FloatType>(dense.getElementType()))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  APInt i = *dense.getValues<APInt>().begin();
  return dense.getElementType().isUnsignedInteger()
             ? static_cast<double>(i.getZExtValue())
             : static_cast<double>(i.getSExtValue());
}

LogicalResult ONNXRangeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType start = getTensorType(adaptor.getStart());
  if (!start || !getTensorType(adaptor.getLimit()) ||
      !getTensorType(adaptor.getDelta()))
    return inferError(loc, name, "expects tensor operands");
  for (Value v : {adaptor.getLimit(), adaptor.getDelta()})
    if (cast<TensorType>(v.getType()).getElementType() !=
        start.getElementType())
      return inferError(loc, name, "inputs have different element types");
  std::optional<double> s = getScalarValue(adaptor.getStart());
  std::optional<double> l = getScalarValue(adaptor.getLimit());
  std::optional<double> d = getScalarValue(adaptor.getDelta());
  int64_t count = ShapedType::kDynamic;
  if (s && l && d) {
    FailureOr<int64_t> n = rangeCount(*s, *l, *d);
    if (failed(n))
      return inferError(loc, name, "cannot count the elements of range(", *s,
                        ", ", *l, ", ", *d, ")");
    count = *n;
  }
  types.push_back(RankedTensorType::get({count}, start.getElementType()));
  return success();
}

OpFoldResult ONNXRangeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  std::optional<double> s = getScalarValue(getStart());
  std::optional<double> d = getScalarValue(getDelta());
  if (!type || !type.hasStaticShape() || !s || !d ||
      type.getNumElements() > 65536)
    return {};
  Type elementType = type.getElementType();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    double v = *s + static_cast<double>(i) * *d;
    if (isa<FloatType>(elementType))
      values.push_back(FloatAttr::get(elementType, v));
    else
      values.push_back(IntegerAttr::get(elementType, static_cast<int64_t>(v)));
  }
  return DenseElementsAttr::get(type, values);
}
