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
  if (!target) // Only the rank is known, from the length of `shape`.
    return inferFromShapeOperandLength(loc, name, shapeType, elementType,
                                       types);
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

//===----------------------------------------------------------------------===//
// Layout ops: Transpose, Squeeze, Unsqueeze, Concat, Slice, Gather, Expand
//===----------------------------------------------------------------------===//

LogicalResult ONNXTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType data = getTensorType(adaptor.getData());
  if (!data)
    return inferError(loc, name, "expects a tensor operand");
  if (!data.hasRank()) {
    types.push_back(data);
    return success();
  }
  int64_t rank = data.getRank();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> p = adaptor.getPerm())
    perm.assign(p->begin(), p->end());
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank)
    return inferError(loc, name, "'perm' has ", perm.size(),
                      " entries for an input of rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return inferError(loc, name, "'perm' is not a permutation of [0, ", rank,
                        ")");
    seen[p] = true;
    shape.push_back(data.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult ONNXSqueezeOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> data =
      getRankedOrInferUnranked(loc, name, adaptor.getData(), types);
  if (failed(data) || !*data)
    return failure(failed(data));
  Type elementType = data->getElementType();
  int64_t rank = data->getRank();
  ArrayRef<int64_t> shape = data->getShape();
  SmallVector<bool> drop(rank, false);
  if (!adaptor.getAxes()) {
    // Without axes every size-1 dim goes; a dynamic dim might be 1.
    if (llvm::any_of(shape, ShapedType::isDynamic)) {
      types.push_back(unranked(elementType));
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = shape[i] == 1;
  } else {
    std::optional<SmallVector<int64_t>> axes =
        getConstantIntValues(adaptor.getAxes());
    if (!axes) {
      auto axesType = dyn_cast<RankedTensorType>(adaptor.getAxes().getType());
      if (axesType && axesType.hasStaticShape() && axesType.getRank() == 1 &&
          axesType.getDimSize(0) <= rank)
        types.push_back(RankedTensorType::get(
            SmallVector<int64_t>(rank - axesType.getDimSize(0),
                                 ShapedType::kDynamic),
            elementType));
      else
        types.push_back(unranked(elementType));
      return success();
    }
    for (int64_t axis : *axes) {
      FailureOr<int64_t> dim = normalizeAxis(axis, rank);
      if (failed(dim))
        return inferError(loc, name, "axis ", axis,
                          " is out of range for rank ", rank);
      if (drop[*dim])
        return inferError(loc, name, "axis ", axis, " is repeated");
      if (!ShapedType::isDynamic(shape[*dim]) && shape[*dim] != 1)
        return inferError(loc, name, "cannot squeeze dim ", *dim, " of size ",
                          shape[*dim], " (shape ", formatShape(shape), ")");
      drop[*dim] = true;
    }
  }
  SmallVector<int64_t> result;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      result.push_back(shape[i]);
  types.push_back(RankedTensorType::get(result, elementType));
  return success();
}

LogicalResult ONNXUnsqueezeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType data = getTensorType(adaptor.getData());
  if (!data || !getTensorType(adaptor.getAxes()))
    return inferError(loc, name, "expects tensor operands");
  Type elementType = data.getElementType();
  std::optional<SmallVector<int64_t>> axes =
      getConstantIntValues(adaptor.getAxes());
  if (!data.hasRank() || !axes) {
    types.push_back(unranked(elementType));
    return success();
  }
  int64_t outRank = data.getRank() + static_cast<int64_t>(axes->size());
  SmallVector<bool> inserted(outRank, false);
  for (int64_t axis : *axes) {
    FailureOr<int64_t> dim = normalizeAxis(axis, outRank);
    if (failed(dim))
      return inferError(loc, name, "axis ", axis,
                        " is out of range for output rank ", outRank);
    if (inserted[*dim])
      return inferError(loc, name, "axis ", axis, " is repeated");
    inserted[*dim] = true;
  }
  SmallVector<int64_t> result;
  auto it = data.getShape().begin();
  for (int64_t i = 0; i < outRank; ++i)
    result.push_back(inserted[i] ? 1 : *it++);
  types.push_back(RankedTensorType::get(result, elementType));
  return success();
}

LogicalResult ONNXConcatOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  // Checked here: inference runs before the verifier would see it missing.
  if (!adaptor.getAxisAttr())
    return inferError(loc, name, "requires attribute 'axis'");
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return inferError(loc, name, "needs at least one input");
  TensorType first = getTensorType(inputs.front());
  if (!first)
    return inferError(loc, name, "expects tensor operands");
  Type elementType = first.getElementType();
  RankedTensorType ranked;
  for (Value v : inputs) {
    TensorType t = getTensorType(v);
    if (!t)
      return inferError(loc, name, "expects tensor operands");
    if (t.getElementType() != elementType)
      return inferError(loc, name, "inputs have different element types (",
                        elementType, " and ", t.getElementType(), ")");
    if (!ranked)
      ranked = dyn_cast<RankedTensorType>(t);
  }
  if (!ranked) {
    types.push_back(unranked(elementType));
    return success();
  }
  int64_t rank = ranked.getRank();
  FailureOr<int64_t> axis =
      normalizeAxisAttr(loc, name, adaptor.getAxis(), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  int64_t total = 0;
  for (Value v : inputs) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t) {
      total = ShapedType::kDynamic;
      continue;
    }
    if (t.getRank() != rank)
      return inferError(loc, name, "inputs have different ranks (", rank,
                        " and ", t.getRank(), ")");
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = t.getDimSize(i);
      if (i == *axis)
        continue;
      if (ShapedType::isDynamic(d))
        continue;
      if (!ShapedType::isDynamic(shape[i]) && shape[i] != d)
        return inferError(loc, name, "inputs differ in dim ", i, " (", shape[i],
                          " and ", d, ") off the concat axis");
      shape[i] = d;
    }
    int64_t d = t.getDimSize(*axis);
    if (ShapedType::isDynamic(d) || ShapedType::isDynamic(total))
      total = ShapedType::kDynamic;
    else
      total += d;
  }
  shape[*axis] = total;
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ONNXSliceOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> data =
      getRankedOrInferUnranked(loc, name, adaptor.getData(), types);
  if (failed(data) || !*data)
    return failure(failed(data));
  Type elementType = data->getElementType();
  int64_t rank = data->getRank();
  auto starts = getConstantIntValues(adaptor.getStarts());
  auto ends = getConstantIntValues(adaptor.getEnds());
  std::optional<SmallVector<int64_t>> axes, steps;
  if (adaptor.getAxes())
    axes = getConstantIntValues(adaptor.getAxes());
  if (adaptor.getSteps())
    steps = getConstantIntValues(adaptor.getSteps());
  if (!starts || !ends || (adaptor.getAxes() && !axes) ||
      (adaptor.getSteps() && !steps)) {
    // The sliced dims are unknown; the rank is kept.
    types.push_back(RankedTensorType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic), elementType));
    return success();
  }
  std::string error;
  FailureOr<SliceParams> params = resolveSlice(
      data->getShape(), *starts, *ends, axes.value_or(SmallVector<int64_t>()),
      steps.value_or(SmallVector<int64_t>()), error);
  if (failed(params))
    return inferError(loc, name, error);
  types.push_back(RankedTensorType::get(params->sizes, elementType));
  return success();
}

std::optional<SliceParams> ONNXSliceOp::getStaticParams() {
  auto dataType = dyn_cast<RankedTensorType>(getData().getType());
  if (!dataType || !dataType.hasStaticShape())
    return std::nullopt;
  auto starts = getConstantIntValues(getStarts());
  auto ends = getConstantIntValues(getEnds());
  std::optional<SmallVector<int64_t>> axes, steps;
  if (getAxes())
    axes = getConstantIntValues(getAxes());
  if (getSteps())
    steps = getConstantIntValues(getSteps());
  if (!starts || !ends || (getAxes() && !axes) || (getSteps() && !steps))
    return std::nullopt;
  std::string error;
  FailureOr<SliceParams> params =
      resolveSlice(dataType.getShape(), *starts, *ends,
                   axes.value_or(SmallVector<int64_t>()),
                   steps.value_or(SmallVector<int64_t>()), error);
  if (failed(params))
    return std::nullopt;
  return *params;
}

std::optional<int64_t> ONNXSliceOp::getContiguousOffset() {
  std::optional<SliceParams> params = getStaticParams();
  if (!params)
    return std::nullopt;
  auto dataType = cast<RankedTensorType>(getData().getType());
  ArrayRef<int64_t> shape = dataType.getShape();
  if (llvm::is_contained(params->sizes, 0))
    return 0; // No element: any offset.
  // Consecutive when, past the first dim that takes more than one element,
  // every dim is taken whole, and that dim steps by 1.
  int64_t offset = 0, stride = 1;
  bool whole = true; // The dims after the current one are taken whole.
  for (int64_t i = dataType.getRank() - 1; i >= 0; --i) {
    int64_t size = params->sizes[i];
    if (size > 1 && (!whole || params->steps[i] != 1))
      return std::nullopt;
    offset += params->starts[i] * stride;
    whole = whole && size == shape[i];
    stride *= shape[i];
  }
  return offset;
}

LogicalResult ONNXGatherOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto operands = getRankedDataAndIndices(loc, name, adaptor.getData(),
                                          adaptor.getIndices(), types);
  if (failed(operands))
    return failure();
  auto [data, indices] = *operands;
  if (!data)
    return success();
  Type elementType = data.getElementType();
  int64_t rank = data.getRank();
  if (rank == 0)
    return inferError(loc, name, "'data' must have rank 1 or more");
  FailureOr<int64_t> axis =
      normalizeAxisAttr(loc, name, adaptor.getAxis(), rank);
  if (failed(axis))
    return failure();
  // Constant indices must be in range: a wrong one is an error here rather
  // than an out-of-bounds read at run time.
  if (std::optional<SmallVector<int64_t>> values =
          getConstantIntValues(adaptor.getIndices())) {
    int64_t size = data.getDimSize(*axis);
    if (!ShapedType::isDynamic(size))
      for (int64_t i : *values)
        if (i < -size || i >= size)
          return inferError(loc, name, "index ", i, " is out of range for dim ",
                            *axis, " of size ", size);
  }
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ONNXGatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType data = getTensorType(adaptor.getData());
  TensorType indices = getTensorType(adaptor.getIndices());
  if (!data || !indices)
    return inferError(loc, name, "expects tensor operands");
  Type elementType = data.getElementType();
  if (!data.hasRank() || !indices.hasRank()) {
    types.push_back(indices.hasRank() ? Type(RankedTensorType::get(
                                            indices.getShape(), elementType))
                                      : unranked(elementType));
    return success();
  }
  int64_t rank = data.getRank();
  if (indices.getRank() != rank)
    return inferError(loc, name, "'indices' has rank ", indices.getRank(),
                      ", 'data' rank ", rank, "; they must be equal");
  if (failed(normalizeAxisAttr(loc, name, adaptor.getAxis(), rank)))
    return failure();
  types.push_back(RankedTensorType::get(indices.getShape(), elementType));
  return success();
}

LogicalResult ONNXGatherNDOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto operands = getRankedDataAndIndices(loc, name, adaptor.getData(),
                                          adaptor.getIndices(), types);
  if (failed(operands))
    return failure();
  auto [data, indices] = *operands;
  if (!data)
    return success();
  Type elementType = data.getElementType();
  int64_t rank = data.getRank(), indexRank = indices.getRank();
  int64_t batchDims = adaptor.getBatchDims();
  if (rank < 1 || indexRank < 1)
    return inferError(loc, name, "'data' and 'indices' must have rank 1 or ",
                      "more");
  if (batchDims < 0 || batchDims >= std::min(rank, indexRank))
    return inferError(loc, name, "batch_dims ", batchDims,
                      " must be at least 0 and less than the ranks of 'data' ",
                      "(", rank, ") and 'indices' (", indexRank, ")");
  int64_t tuple = indices.getDimSize(indexRank - 1);
  if (ShapedType::isDynamic(tuple)) {
    types.push_back(unranked(elementType));
    return success();
  }
  if (tuple < 1 || tuple > rank - batchDims)
    return inferError(loc, name, "the last dim of 'indices' is ", tuple,
                      "; it must be from 1 to the rank of 'data' less "
                      "batch_dims (",
                      rank - batchDims, ")");
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  for (int64_t i = 0; i < batchDims; ++i) {
    int64_t d = data.getDimSize(i);
    if (ShapedType::isDynamic(shape[i]))
      shape[i] = d;
    else if (!ShapedType::isDynamic(d) && d != shape[i])
      return inferError(loc, name, "batch dim ", i, " is ", d,
                        " in 'data' but ", shape[i], " in 'indices'");
  }
  llvm::append_range(shape, data.getShape().drop_front(batchDims + tuple));
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ONNXExpandOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType input = getTensorType(adaptor.getInput());
  TensorType shapeType = getTensorType(adaptor.getShape());
  if (!input || !shapeType)
    return inferError(loc, name, "expects tensor operands");
  Type elementType = input.getElementType();
  std::optional<SmallVector<int64_t>> target =
      getConstantIntValues(adaptor.getShape());
  if (!input.hasRank() || !target) {
    types.push_back(unranked(elementType));
    return success();
  }
  for (int64_t d : *target)
    if (d < 0)
      return inferError(loc, name, "'shape' has a negative dim ", d);
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(input.getShape(), *target);
  if (failed(shape))
    return inferError(loc, name, "cannot broadcast shape ",
                      formatShape(input.getShape()), " to ",
                      formatShape(*target));
  types.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Pad, Tile, Trilu, DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

/// Pad's begin and end counts of every dim of an input of `rank`. Fails
/// with `error` set when `pads` or `axes` is invalid, and with `error`
/// empty when either is not a constant.
static LogicalResult resolvePads(Value padsValue, Value axesValue, int64_t rank,
                                 SmallVectorImpl<int64_t> &begins,
                                 SmallVectorImpl<int64_t> &ends,
                                 std::string &error) {
  std::optional<SmallVector<int64_t>> pads = getConstantIntValues(padsValue);
  if (!pads)
    return failure();
  SmallVector<int64_t> axes;
  if (axesValue) {
    std::optional<SmallVector<int64_t>> values =
        getConstantIntValues(axesValue);
    if (!values)
      return failure();
    axes = std::move(*values);
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  if (pads->size() != 2 * axes.size()) {
    error = "'pads' has " + std::to_string(pads->size()) +
            " entries; it needs 2 per padded axis (" +
            std::to_string(2 * axes.size()) + ")";
    return failure();
  }
  begins.assign(rank, 0);
  ends.assign(rank, 0);
  SmallVector<bool> seen(rank, false);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> dim = normalizeAxis(axis, rank);
    if (failed(dim)) {
      error = "axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank);
      return failure();
    }
    if (seen[*dim]) {
      error = "axis " + std::to_string(axis) + " is repeated";
      return failure();
    }
    seen[*dim] = true;
    begins[*dim] = (*pads)[i];
    ends[*dim] = (*pads)[i + axes.size()];
  }
  return success();
}

LogicalResult ONNXPadOp::getDimPads(int64_t rank,
                                    SmallVectorImpl<int64_t> &begins,
                                    SmallVectorImpl<int64_t> &ends) {
  std::string error;
  return resolvePads(getPads(), getAxes(), rank, begins, ends, error);
}

LogicalResult ONNXPadOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return inferError(loc, name, "'mode' = \"", mode,
                      "\" is not constant, reflect, edge or wrap");
  TensorType dataType = getTensorType(adaptor.getData());
  TensorType padsType = getTensorType(adaptor.getPads());
  if (!dataType || !padsType)
    return inferError(loc, name, "expects tensor operands");
  if (padsType.hasRank() && padsType.getRank() != 1)
    return inferError(loc, name, "'pads' must be a 1-D tensor, got shape ",
                      formatShape(padsType.getShape()));
  Type elementType = dataType.getElementType();
  if (Value value = adaptor.getConstantValue()) {
    auto t = dyn_cast<RankedTensorType>(value.getType());
    if (t && t.hasStaticShape() && t.getNumElements() != 1)
      return inferError(loc, name,
                        "'constant_value' must be a scalar, got shape ",
                        formatShape(t.getShape()));
    if (t && t.getElementType() != elementType)
      return inferError(loc, name, "'constant_value' has element type ",
                        t.getElementType(), ", expected ", elementType);
  }
  FailureOr<RankedTensorType> data =
      getRankedOrInferUnranked(loc, name, adaptor.getData(), types);
  if (failed(data) || !*data)
    return failure(failed(data));
  int64_t rank = data->getRank();
  SmallVector<int64_t> begins, ends;
  std::string error;
  if (failed(resolvePads(adaptor.getPads(), adaptor.getAxes(), rank, begins,
                         ends, error))) {
    if (!error.empty())
      return inferError(loc, name, error);
    types.push_back(RankedTensorType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic), elementType));
    return success();
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = data->getDimSize(d);
    if (std::abs(begins[d]) > kMaxWindowValue ||
        std::abs(ends[d]) > kMaxWindowValue)
      return inferError(loc, name, "pads of dim ", d, " (", begins[d], ", ",
                        ends[d], ") are too large");
    if (ShapedType::isDynamic(size)) {
      shape.push_back(size);
      continue;
    }
    // Negative pads crop first; the modes then read the cropped dim.
    int64_t kept = size - std::max<int64_t>(0, -begins[d]) -
                   std::max<int64_t>(0, -ends[d]);
    int64_t before = std::max<int64_t>(0, begins[d]);
    int64_t after = std::max<int64_t>(0, ends[d]);
    if (kept < 0)
      return inferError(loc, name, "pads of dim ", d, " (", begins[d], ", ",
                        ends[d], ") remove more than its ", size, " elements");
    if (mode != "constant" && (before > 0 || after > 0) && kept == 0)
      return inferError(loc, name, "cannot pad dim ", d,
                        " with no elements in '", mode, "' mode");
    if (mode == "reflect" && (before >= kept || after >= kept))
      return inferError(loc, name, "reflect pads of dim ", d, " (", before,
                        ", ", after, ") must be less than its size ", kept);
    int64_t padded;
    if (llvm::AddOverflow(kept, before + after, padded))
      return inferError(loc, name, "padding dim ", d, " of size ", size,
                        " by (", before, ", ", after,
                        ") overflows a 64-bit size");
    shape.push_back(padded);
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult ONNXTileOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType repeatsType = getTensorType(adaptor.getRepeats());
  if (!repeatsType)
    return inferError(loc, name, "expects tensor operands");
  if (repeatsType.hasRank() && repeatsType.getRank() != 1)
    return inferError(loc, name, "'repeats' must be a 1-D tensor, got shape ",
                      formatShape(repeatsType.getShape()));
  FailureOr<RankedTensorType> input =
      getRankedOrInferUnranked(loc, name, adaptor.getInput(), types);
  if (failed(input) || !*input)
    return failure(failed(input));
  int64_t rank = input->getRank();
  std::optional<SmallVector<int64_t>> repeats =
      getConstantIntValues(adaptor.getRepeats());
  if (!repeats) {
    types.push_back(
        RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                              input->getElementType()));
    return success();
  }
  if (static_cast<int64_t>(repeats->size()) != rank)
    return inferError(loc, name, "'repeats' has ", repeats->size(),
                      " entries for an input of rank ", rank);
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::enumerate(*repeats)) {
    if (r < 0)
      return inferError(loc, name, "'repeats'[", d, "] = ", r, " is negative");
    int64_t size = input->getDimSize(d), product;
    if (ShapedType::isDynamic(size)) {
      shape.push_back(size);
      continue;
    }
    if (llvm::MulOverflow(size, r, product))
      return inferError(loc, name, "dim ", d, " repeated ", r,
                        " times has more elements than int64 can count");
    shape.push_back(product);
  }
  types.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult ONNXTriluOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType input = getTensorType(adaptor.getInput());
  if (!input)
    return inferError(loc, name, "expects a tensor operand");
  if (input.hasRank() && input.getRank() < 2)
    return inferError(loc, name, "expects an input of rank >= 2, got shape ",
                      formatShape(input.getShape()));
  if (auto k =
          dyn_cast_or_null<RankedTensorType>(getTensorType(adaptor.getK()));
      k && k.hasStaticShape() && k.getNumElements() != 1)
    return inferError(loc, name, "'k' must be a scalar, got shape ",
                      formatShape(k.getShape()));
  types.push_back(input);
  return success();
}

/// DepthToSpace (`toSpace`) and SpaceToDepth: a 4-D input and a positive
/// block size b; the channels are divided by b^2 and the spatial dims
/// multiplied by b, or the other way round.
static LogicalResult inferBlockOp(std::optional<Location> loc, StringRef name,
                                  Value input, IntegerAttr blocksize,
                                  StringRef mode, bool toSpace,
                                  SmallVectorImpl<Type> &types) {
  if (!blocksize)
    return inferError(loc, name, "requires attribute 'blocksize'");
  int64_t b = blocksize.getInt();
  if (b < 1 || b > kMaxWindowValue)
    return inferError(loc, name, "'blocksize' = ", b,
                      " must be positive and at most ", kMaxWindowValue);
  if (mode != "DCR" && mode != "CRD")
    return inferError(loc, name, "'mode' = \"", mode, "\" is not DCR or CRD");
  FailureOr<RankedTensorType> type =
      getRankedOrInferUnranked(loc, name, input, types);
  if (failed(type) || !*type)
    return failure(failed(type));
  if (type->getRank() != 4)
    return inferError(loc, name, "expects a 4-D input (N x C x H x W), got ",
                      formatShape(type->getShape()));
  SmallVector<int64_t> shape(type->getShape());
  for (int64_t d = 1; d < 4; ++d) {
    int64_t factor = d == 1 ? b * b : b;
    if (ShapedType::isDynamic(shape[d]))
      continue;
    if ((d == 1) == toSpace) {
      if (shape[d] % factor != 0)
        return inferError(loc, name, "dim ", d, " of size ", shape[d],
                          " is not divisible by ", factor);
      shape[d] /= factor;
    } else {
      shape[d] *= factor;
    }
  }
  types.push_back(RankedTensorType::get(shape, type->getElementType()));
  return success();
}

LogicalResult
ONNXDepthToSpaceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  return inferBlockOp(loc, getOperationName(), adaptor.getInput(),
                      adaptor.getBlocksizeAttr(), adaptor.getMode(),
                      /*toSpace=*/true, types);
}

LogicalResult
ONNXSpaceToDepthOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  return inferBlockOp(loc, getOperationName(), adaptor.getInput(),
                      adaptor.getBlocksizeAttr(), adaptor.getMode(),
                      /*toSpace=*/false, types);
}
