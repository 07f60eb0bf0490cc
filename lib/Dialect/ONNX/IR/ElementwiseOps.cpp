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

/// The result of a unary elementwise op has the type of its operand.
static LogicalResult inferSameAsOperand(std::optional<Location> loc,
                                        StringRef opName, Value operand,
                                        SmallVectorImpl<Type> &types) {
  TensorType type = getTensorType(operand);
  if (!type)
    return inferError(loc, opName, "expects a tensor operand");
  types.push_back(type);
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

#undef FUSE_BINARY_INFERENCE
