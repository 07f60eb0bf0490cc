//===- ReductionOps.cpp - Softmax, normalizations, Reduce*, scans ---------===//

#include "InferenceUtils.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

LogicalResult ONNXSoftmaxOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  TensorType input = getTensorType(adaptor.getInput());
  if (!input)
    return inferError(loc, getOperationName(), "expects a tensor operand");
  if (input.hasRank() &&
      failed(normalizeAxisAttr(loc, getOperationName(), adaptor.getAxis(),
                               input.getRank())))
    return failure();
  types.push_back(input);
  return success();
}

/// LayerNormalization and RMSNormalization: `params` (named; an absent
/// one is skipped) broadcast to the normalized dims X[axis:].
static LogicalResult
inferTrailingNorm(std::optional<Location> loc, StringRef name, Value input,
                  int64_t axisAttr,
                  ArrayRef<std::pair<Value, const char *>> params,
                  SmallVectorImpl<Type> &types) {
  TensorType x = getTensorType(input);
  if (!x || !getTensorType(params.front().first))
    return inferError(loc, name, "expects tensor operands");
  if (x.hasRank()) {
    FailureOr<int64_t> axis =
        normalizeAxisAttr(loc, name, axisAttr, x.getRank());
    if (failed(axis))
      return failure();
    ArrayRef<int64_t> normalized = x.getShape().drop_front(*axis);
    for (auto [v, what] : params) {
      TensorType t = getTensorType(v);
      if (!t || !t.hasRank())
        continue;
      if (t.getElementType() != x.getElementType())
        return inferError(loc, name, "'", what, "' has element type ",
                          t.getElementType(), ", expected ",
                          x.getElementType());
      if (!isUnidirectionallyBroadcastable(t.getShape(), normalized))
        return inferError(loc, name, "'", what, "' of shape ",
                          formatShape(t.getShape()),
                          " does not broadcast to the normalized dims ",
                          formatShape(normalized));
    }
  }
  types.push_back(x);
  return success();
}

LogicalResult ONNXLayerNormalizationOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  return inferTrailingNorm(
      loc, getOperationName(), adaptor.getX(), adaptor.getAxis(),
      {{adaptor.getScale(), "Scale"}, {adaptor.getB(), "B"}}, types);
}

LogicalResult ONNXRMSNormalizationOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  return inferTrailingNorm(loc, getOperationName(), adaptor.getX(),
                           adaptor.getAxis(), {{adaptor.getScale(), "scale"}},
                           types);
}

/// Reduced dims of a reduction over `axes` (absent: all dims, or none with
/// noop_with_empty_axes), for an input of `rank`.
static FailureOr<SmallVector<int64_t>>
getReducedDimsImpl(Value axesValue, bool noopWithEmptyAxes, int64_t rank,
                   std::string &error) {
  SmallVector<int64_t> axes;
  if (axesValue) {
    std::optional<SmallVector<int64_t>> values =
        getConstantIntValues(axesValue);
    if (!values) {
      error = "'axes' is not a constant";
      return failure();
    }
    axes = std::move(*values);
  }
  SmallVector<bool> reduced(rank, false);
  if (axes.empty()) {
    if (!noopWithEmptyAxes)
      reduced.assign(rank, true);
  }
  for (int64_t axis : axes) {
    FailureOr<int64_t> dim = normalizeAxis(axis, rank);
    if (failed(dim)) {
      error = "axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank);
      return failure();
    }
    if (reduced[*dim]) {
      error = "axis " + std::to_string(axis) + " is repeated";
      return failure();
    }
    reduced[*dim] = true;
  }
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i])
      dims.push_back(i);
  return dims;
}

template <typename ReduceOp>
static LogicalResult inferReduce(std::optional<Location> loc,
                                 typename ReduceOp::Adaptor adaptor,
                                 SmallVectorImpl<Type> &types) {
  StringRef name = ReduceOp::getOperationName();
  FailureOr<RankedTensorType> data =
      getRankedOrInferUnranked(loc, name, adaptor.getData(), types);
  if (failed(data) || !*data)
    return failure(failed(data));
  Type elementType = data->getElementType();
  int64_t rank = data->getRank();
  bool keepDims = adaptor.getKeepdims() != 0;
  std::string error;
  FailureOr<SmallVector<int64_t>> dims = getReducedDimsImpl(
      adaptor.getAxes(), adaptor.getNoopWithEmptyAxes() != 0, rank, error);
  if (failed(dims)) {
    if (adaptor.getAxes() && !getConstantIntValues(adaptor.getAxes())) {
      // Unknown axes: the rank is known only when dims are kept.
      if (keepDims)
        types.push_back(RankedTensorType::get(
            SmallVector<int64_t>(rank, ShapedType::kDynamic), elementType));
      else
        types.push_back(unranked(elementType));
      return success();
    }
    return inferError(loc, name, error);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    bool isReduced = llvm::is_contained(*dims, i);
    if (!isReduced)
      shape.push_back(data->getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

#define FUSE_REDUCE_OP(OP)                                                     \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferReduce<OP>(loc, adaptor, types);                               \
  }                                                                            \
  FailureOr<SmallVector<int64_t>> OP::getReducedDims(int64_t rank) {           \
    std::string error;                                                         \
    return getReducedDimsImpl(getAxes(), getNoopWithEmptyAxes() != 0, rank,   \
                              error);                                          \
  }

FUSE_REDUCE_OP(ONNXReduceMeanOp)
FUSE_REDUCE_OP(ONNXReduceSumOp)
FUSE_REDUCE_OP(ONNXReduceMaxOp)
FUSE_REDUCE_OP(ONNXReduceMinOp)
FUSE_REDUCE_OP(ONNXReduceL1Op)
FUSE_REDUCE_OP(ONNXReduceL2Op)
FUSE_REDUCE_OP(ONNXReduceLogSumOp)
FUSE_REDUCE_OP(ONNXReduceLogSumExpOp)
FUSE_REDUCE_OP(ONNXReduceSumSquareOp)
FUSE_REDUCE_OP(ONNXReduceProdOp)

#undef FUSE_REDUCE_OP

/// CumSum and CumProd: the input's type; `axis` a scalar in range.
template <typename CumulativeOp>
static LogicalResult
inferCumulative(std::optional<Location> loc,
                typename CumulativeOp::Adaptor adaptor,
                SmallVectorImpl<Type> &types) {
  StringRef name = CumulativeOp::getOperationName();
  TensorType x = getTensorType(adaptor.getX());
  auto axisType =
      dyn_cast_or_null<RankedTensorType>(getTensorType(adaptor.getAxis()));
  if (!x)
    return inferError(loc, name, "expects a tensor operand");
  if (axisType && axisType.hasStaticShape() && axisType.getNumElements() != 1)
    return inferError(loc, name, "'axis' must be a scalar, got shape ",
                      formatShape(axisType.getShape()));
  if (x.hasRank()) {
    if (x.getRank() == 0)
      return inferError(loc, name, "expects an input of rank >= 1");
    if (std::optional<SmallVector<int64_t>> axis =
            getConstantIntValues(adaptor.getAxis());
        axis && axis->size() == 1 &&
        failed(normalizeAxisAttr(loc, name, (*axis)[0], x.getRank())))
      return failure();
  }
  types.push_back(x);
  return success();
}

#define FUSE_CUMULATIVE_OP(OP)                                                 \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferCumulative<OP>(loc, adaptor, types);                           \
  }

FUSE_CUMULATIVE_OP(ONNXCumSumOp)
FUSE_CUMULATIVE_OP(ONNXCumProdOp)

#undef FUSE_CUMULATIVE_OP

template <typename ArgOp>
static LogicalResult
inferArgReduce(MLIRContext *ctx, std::optional<Location> loc,
               typename ArgOp::Adaptor adaptor, SmallVectorImpl<Type> &types) {
  StringRef name = ArgOp::getOperationName();
  Type i64 = IntegerType::get(ctx, 64);
  TensorType data = getTensorType(adaptor.getData());
  if (!data)
    return inferError(loc, name, "expects a tensor operand");
  if (!data.hasRank()) {
    types.push_back(unranked(i64));
    return success();
  }
  FailureOr<int64_t> axis =
      normalizeAxisAttr(loc, name, adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(data.getShape());
  if (adaptor.getKeepdims())
    shape[*axis] = 1;
  else
    shape.erase(shape.begin() + *axis);
  types.push_back(RankedTensorType::get(shape, i64));
  return success();
}

LogicalResult ONNXArgMaxOp::inferReturnTypes(MLIRContext *ctx,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferArgReduce<ONNXArgMaxOp>(ctx, loc, adaptor, types);
}

LogicalResult ONNXArgMinOp::inferReturnTypes(MLIRContext *ctx,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferArgReduce<ONNXArgMinOp>(ctx, loc, adaptor, types);
}
