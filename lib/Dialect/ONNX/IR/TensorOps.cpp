//===- TensorOps.cpp - Result types of Flatten, Reshape, Constant ---------===//

#include "InferenceUtils.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

LogicalResult ONNXFlattenOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType input = getTensorType(adaptor.getInput());
  if (!input)
    return inferError(loc, name, "expects a tensor operand");
  if (!input.hasRank()) {
    types.push_back(RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, input.getElementType()));
    return success();
  }
  int64_t rank = input.getRank();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < -rank || axis > rank)
    return inferError(loc, name, "'axis' = ", axis, " is out of range [", -rank,
                      ", ", rank, "] for rank ", rank);
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = input.getShape();
  FailureOr<int64_t> outer = getNumElementsOrDynamic(shape.take_front(axis));
  FailureOr<int64_t> inner = getNumElementsOrDynamic(shape.drop_front(axis));
  if (failed(outer) || failed(inner))
    return inferError(loc, name, "input of shape ", formatShape(shape),
                      " has more elements than int64 can count");
  types.push_back(
      RankedTensorType::get({*outer, *inner}, input.getElementType()));
  return success();
}

LogicalResult ONNXReshapeOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType data = getTensorType(adaptor.getData());
  TensorType shapeType = getTensorType(adaptor.getShape());
  if (!data || !shapeType)
    return inferError(loc, name, "expects tensor operands");
  Type elementType = data.getElementType();
  if (shapeType.hasRank() && shapeType.getRank() != 1)
    return inferError(loc, name, "'shape' must be a 1-D tensor, got shape ",
                      formatShape(shapeType.getShape()));
  std::optional<SmallVector<int64_t>> target =
      getConstantIntValues(adaptor.getShape());
  if (!target) {
    // Only the rank is known, from the length of `shape`.
    if (shapeType.hasStaticShape())
      types.push_back(RankedTensorType::get(
          SmallVector<int64_t>(shapeType.getDimSize(0), ShapedType::kDynamic),
          elementType));
    else
      types.push_back(unranked(elementType));
    return success();
  }
  bool allowZero = adaptor.getAllowzero() != 0;
  SmallVector<int64_t> shape;
  int64_t inferIndex = -1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == -1) {
      if (inferIndex >= 0)
        return inferError(loc, name, "'shape' has more than one -1");
      inferIndex = i;
      shape.push_back(ShapedType::kDynamic);
    } else if (d == 0 && !allowZero) {
      if (!data.hasRank() || static_cast<int64_t>(i) >= data.getRank()) {
        if (data.hasRank())
          return inferError(loc, name, "'shape'[", i,
                            "] = 0 copies a dimension the input (rank ",
                            data.getRank(), ") does not have");
        shape.push_back(ShapedType::kDynamic);
      } else {
        shape.push_back(data.getDimSize(i));
      }
    } else if (d < 0) {
      return inferError(loc, name, "'shape'[", i, "] = ", d,
                        " is negative (only -1 is allowed)");
    } else {
      shape.push_back(d);
    }
  }
  if (inferIndex >= 0 && allowZero && llvm::is_contained(*target, 0))
    return inferError(loc, name, "'shape' has both -1 and 0 with allowzero");
  FailureOr<int64_t> total = data.hasRank()
                                 ? getNumElementsOrDynamic(data.getShape())
                                 : FailureOr<int64_t>(ShapedType::kDynamic);
  SmallVector<int64_t> knownDims(shape);
  if (inferIndex >= 0)
    knownDims.erase(knownDims.begin() + inferIndex);
  FailureOr<int64_t> knownOrDynamic = getNumElementsOrDynamic(knownDims);
  if (failed(total) || failed(knownOrDynamic))
    return inferError(loc, name, "shapes with more elements than int64 can ",
                      "count are not supported");
  bool knownIsStatic = !ShapedType::isDynamic(*knownOrDynamic);
  int64_t known = *knownOrDynamic;
  if (!ShapedType::isDynamic(*total) && knownIsStatic) {
    if (inferIndex >= 0) {
      if (known == 0 || *total % known != 0)
        return inferError(loc, name, "cannot reshape ", *total,
                          " elements into ", formatShape(shape),
                          " (the -1 cannot be inferred)");
      shape[inferIndex] = *total / known;
    } else if (known != *total) {
      return inferError(loc, name, "cannot reshape input of shape ",
                        formatShape(data.getShape()), " (", *total,
                        " elements) into ", formatShape(shape), " (", known,
                        " elements)");
    }
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ONNXConstantOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  ElementsAttr value = adaptor.getValueAttr();
  if (!value)
    return inferError(loc, getOperationName(), "requires attribute 'value'");
  types.push_back(value.getShapedType());
  return success();
}

OpFoldResult ONNXConstantOp::fold(FoldAdaptor) { return getValueAttr(); }
