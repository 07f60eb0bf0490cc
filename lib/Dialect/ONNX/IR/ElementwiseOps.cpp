//===- ElementwiseOps.cpp - Result types of elementwise onnx ops ---------===//
//
// Unary ops keep their operand type; binary ops broadcast (numpy rules);
// Clip checks that its bounds are scalars.
//
//===----------------------------------------------------------------------===//

#include "InferenceUtils.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The result of a unary elementwise op has the type of its operand, or its
/// shape with `elementType` (predicates).
static LogicalResult inferSameAsOperand(std::optional<Location> loc,
                                        StringRef opName, Value operand,
                                        SmallVectorImpl<Type> &types,
                                        Type elementType = {}) {
  TensorType type = getTensorType(operand);
  if (!type)
    return inferError(loc, opName, "expects a tensor operand");
  types.push_back(elementType ? type.cloneWith(std::nullopt, elementType)
                              : type);
  return success();
}

#define FUSE_UNARY_INFERENCE(OP, OPERAND)                                      \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return inferSameAsOperand(loc, getOperationName(), adaptor.OPERAND(),      \
                              types);                                          \
  }

FUSE_UNARY_INFERENCE(ONNXReluOp, getX)
FUSE_UNARY_INFERENCE(ONNXSigmoidOp, getX)
FUSE_UNARY_INFERENCE(ONNXTanhOp, getInput)
FUSE_UNARY_INFERENCE(ONNXExpOp, getInput)
FUSE_UNARY_INFERENCE(ONNXNegOp, getX)
FUSE_UNARY_INFERENCE(ONNXAbsOp, getX)
FUSE_UNARY_INFERENCE(ONNXSqrtOp, getX)
FUSE_UNARY_INFERENCE(ONNXLeakyReluOp, getX)
FUSE_UNARY_INFERENCE(ONNXIdentityOp, getInput)
FUSE_UNARY_INFERENCE(ONNXReciprocalOp, getX)
FUSE_UNARY_INFERENCE(ONNXLogOp, getInput)
FUSE_UNARY_INFERENCE(ONNXErfOp, getInput)
FUSE_UNARY_INFERENCE(ONNXHardSwishOp, getX)
FUSE_UNARY_INFERENCE(ONNXHardSigmoidOp, getX)
FUSE_UNARY_INFERENCE(ONNXGeluOp, getX)
FUSE_UNARY_INFERENCE(ONNXNotOp, getX)
FUSE_UNARY_INFERENCE(ONNXFloorOp, getX)
FUSE_UNARY_INFERENCE(ONNXCeilOp, getX)
FUSE_UNARY_INFERENCE(ONNXRoundOp, getX)
FUSE_UNARY_INFERENCE(ONNXSignOp, getInput)
FUSE_UNARY_INFERENCE(ONNXSinOp, getInput)
FUSE_UNARY_INFERENCE(ONNXCosOp, getInput)
FUSE_UNARY_INFERENCE(ONNXTanOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAsinOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAcosOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAtanOp, getInput)
FUSE_UNARY_INFERENCE(ONNXSinhOp, getInput)
FUSE_UNARY_INFERENCE(ONNXCoshOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAsinhOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAcoshOp, getInput)
FUSE_UNARY_INFERENCE(ONNXAtanhOp, getInput)
FUSE_UNARY_INFERENCE(ONNXSoftsignOp, getInput)
FUSE_UNARY_INFERENCE(ONNXSoftplusOp, getX)
FUSE_UNARY_INFERENCE(ONNXMishOp, getX)
FUSE_UNARY_INFERENCE(ONNXEluOp, getX)
FUSE_UNARY_INFERENCE(ONNXSeluOp, getX)
FUSE_UNARY_INFERENCE(ONNXCeluOp, getX)
FUSE_UNARY_INFERENCE(ONNXThresholdedReluOp, getX)
FUSE_UNARY_INFERENCE(ONNXShrinkOp, getInput)

// IsNaN, IsInf: the operand's shape, i1 elements.
#define FUSE_PREDICATE_INFERENCE(OP)                                           \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,          \
      SmallVectorImpl<Type> &types) {                                          \
    return inferSameAsOperand(loc, getOperationName(), adaptor.getX(), types,  \
                              IntegerType::get(ctx, 1));                       \
  }

FUSE_PREDICATE_INFERENCE(ONNXIsNaNOp)
FUSE_PREDICATE_INFERENCE(ONNXIsInfOp)

#undef FUSE_PREDICATE_INFERENCE

#undef FUSE_UNARY_INFERENCE

LogicalResult ONNXClipOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType input = getTensorType(adaptor.getInput());
  if (!input)
    return inferError(loc, name, "expects a tensor operand");
  for (auto [bound, what] : {std::pair{adaptor.getMin(), "min"},
                             std::pair{adaptor.getMax(), "max"}}) {
    if (!bound)
      continue;
    auto type = dyn_cast<RankedTensorType>(bound.getType());
    if (type && type.hasStaticShape() &&
        !llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; }))
      return inferError(loc, name, "'", what,
                        "' must be a scalar, got tensor of shape ",
                        formatShape(type.getShape()));
    if (type && type.getElementType() != input.getElementType())
      return inferError(loc, name, "'", what, "' has element type ",
                        type.getElementType(), ", expected ",
                        input.getElementType());
  }
  types.push_back(input);
  return success();
}

/// Multidirectional broadcast of A and B; both must share an element type.
static LogicalResult inferBroadcast(std::optional<Location> loc,
                                    StringRef opName, Value a, Value b,
                                    SmallVectorImpl<Type> &types) {
  auto operands = getTensorPair(loc, opName, a, b, "operands");
  if (failed(operands))
    return failure();
  auto [ta, tb] = *operands;
  if (!ta.hasRank() || !tb.hasRank()) {
    types.push_back(unranked(ta.getElementType()));
    return success();
  }
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(ta.getShape(), tb.getShape());
  if (failed(shape))
    return inferError(loc, opName, "cannot broadcast shapes ",
                      formatShape(ta.getShape()), " and ",
                      formatShape(tb.getShape()));
  types.push_back(RankedTensorType::get(*shape, ta.getElementType()));
  return success();
}

#define FUSE_BINARY_INFERENCE(OP)                                              \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return inferBroadcast(loc, getOperationName(), adaptor.getA(),             \
                          adaptor.getB(), types);                              \
  }

FUSE_BINARY_INFERENCE(ONNXAddOp)
FUSE_BINARY_INFERENCE(ONNXSubOp)
FUSE_BINARY_INFERENCE(ONNXMulOp)
FUSE_BINARY_INFERENCE(ONNXDivOp)
FUSE_BINARY_INFERENCE(ONNXAndOp)
FUSE_BINARY_INFERENCE(ONNXOrOp)
FUSE_BINARY_INFERENCE(ONNXXorOp)

#undef FUSE_BINARY_INFERENCE

LogicalResult ONNXModOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  int64_t fmod = adaptor.getFmod();
  if (fmod != 0 && fmod != 1)
    return inferError(loc, getOperationName(), "'fmod' = ", fmod,
                      " is not 0 or 1");
  return inferBroadcast(loc, getOperationName(), adaptor.getA(), adaptor.getB(),
                        types);
}

LogicalResult ONNXBitShiftOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef direction = adaptor.getDirection();
  if (direction != "LEFT" && direction != "RIGHT")
    return inferError(loc, getOperationName(), "'direction' = '", direction,
                      "' is not 'LEFT' or 'RIGHT'");
  return inferBroadcast(loc, getOperationName(), adaptor.getX(), adaptor.getY(),
                        types);
}

/// PRelu: `slope` broadcasts to `X` one way; the result is `X`'s type.
LogicalResult ONNXPReluOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto operands = getTensorPair(loc, name, adaptor.getX(), adaptor.getSlope(),
                                "X and slope");
  if (failed(operands))
    return failure();
  auto [x, slope] = *operands;
  if (x.hasRank() && slope.hasRank() &&
      !isUnidirectionallyBroadcastable(slope.getShape(), x.getShape()))
    return inferError(
        loc, name, "'slope' of shape ", formatShape(slope.getShape()),
        " does not broadcast to X's shape ", formatShape(x.getShape()));
  types.push_back(x);
  return success();
}

/// The broadcast shape of `values` (all tensors), with `elementType`; an
/// unranked operand makes the result unranked.
static LogicalResult inferBroadcastAll(std::optional<Location> loc,
                                       StringRef opName, ValueRange values,
                                       Type elementType,
                                       SmallVectorImpl<Type> &types) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : values) {
    TensorType t = getTensorType(v);
    if (!t)
      return inferError(loc, opName, "expects tensor operands");
    if (!t.hasRank()) {
      types.push_back(unranked(elementType));
      return success();
    }
    shapes.push_back(t.getShape());
  }
  FailureOr<SmallVector<int64_t>> shape = broadcastAllShapes(shapes);
  if (failed(shape)) {
    std::string all;
    for (ArrayRef<int64_t> s : shapes)
      all += (all.empty() ? "" : ", ") + formatShape(s);
    return inferError(loc, opName, "cannot broadcast shapes ", all);
  }
  types.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

LogicalResult ONNXPowOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  TensorType x = getTensorType(adaptor.getX());
  if (!x)
    return inferError(loc, getOperationName(), "expects tensor operands");
  return inferBroadcastAll(loc, getOperationName(),
                           {adaptor.getX(), adaptor.getY()},
                           x.getElementType(), types);
}

#define FUSE_COMPARE_INFERENCE(OP)                                             \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    auto operands = getTensorPair(loc, getOperationName(), adaptor.getA(),     \
                                  adaptor.getB(), "operands");                 \
    if (failed(operands))                                                      \
      return failure();                                                        \
    return inferBroadcastAll(loc, getOperationName(),                          \
                             {adaptor.getA(), adaptor.getB()},                 \
                             IntegerType::get(ctx, 1), types);                 \
  }

FUSE_COMPARE_INFERENCE(ONNXEqualOp)
FUSE_COMPARE_INFERENCE(ONNXLessOp)
FUSE_COMPARE_INFERENCE(ONNXLessOrEqualOp)
FUSE_COMPARE_INFERENCE(ONNXGreaterOp)
FUSE_COMPARE_INFERENCE(ONNXGreaterOrEqualOp)

#undef FUSE_COMPARE_INFERENCE

/// Sum, Max, Min, Mean: all operands broadcast, one element type.
static LogicalResult inferVariadic(std::optional<Location> loc,
                                   StringRef opName, ValueRange data,
                                   SmallVectorImpl<Type> &types) {
  if (data.empty())
    return inferError(loc, opName, "needs at least one input");
  TensorType first = getTensorType(data.front());
  if (!first)
    return inferError(loc, opName, "expects tensor operands");
  for (Value v : data.drop_front()) {
    TensorType t = getTensorType(v);
    if (t && t.getElementType() != first.getElementType())
      return inferError(loc, opName, "inputs have different element types (",
                        first.getElementType(), " and ", t.getElementType(),
                        ")");
  }
  return inferBroadcastAll(loc, opName, data, first.getElementType(), types);
}

#define FUSE_VARIADIC_INFERENCE(OP)                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferVariadic(loc, getOperationName(), adaptor.getData_0(), types); \
  }

FUSE_VARIADIC_INFERENCE(ONNXSumOp)
FUSE_VARIADIC_INFERENCE(ONNXMaxOp)
FUSE_VARIADIC_INFERENCE(ONNXMinOp)
FUSE_VARIADIC_INFERENCE(ONNXMeanOp)

#undef FUSE_VARIADIC_INFERENCE

LogicalResult ONNXWhereOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto values = getTensorPair(loc, getOperationName(), adaptor.getX(),
                              adaptor.getY(), "X and Y");
  if (failed(values))
    return failure();
  return inferBroadcastAll(
      loc, getOperationName(),
      {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
      values->first.getElementType(), types);
}

LogicalResult ONNXCastOp::inferReturnTypes(MLIRContext *ctx,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  TensorType input = getTensorType(adaptor.getInput());
  if (!input)
    return inferError(loc, getOperationName(), "expects a tensor operand");
  if (!adaptor.getToAttr())
    return inferError(loc, getOperationName(), "requires attribute 'to'");
  Type to = getElementTypeForONNX(static_cast<int64_t>(adaptor.getTo()), ctx);
  if (!to)
    return inferError(loc, getOperationName(), "'to' = ", adaptor.getTo(),
                      " names a data type that is not supported");
  types.push_back(input.cloneWith(std::nullopt, to));
  return success();
}
