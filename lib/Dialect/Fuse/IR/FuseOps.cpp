//===- FuseOps.cpp - fuse dialect ops and verifiers -----------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fuse;

#include "fuse/Dialect/Fuse/IR/FuseDialect.cpp.inc"
#include "fuse/Dialect/Fuse/IR/FuseEnums.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

void GroupOp::build(OpBuilder &builder, OperationState &state, GroupKind kind,
                    TypeRange results, ValueRange inputs) {
  state.addAttribute(getKindAttrName(state.name),
                     GroupKindAttr::get(builder.getContext(), kind));
  state.addOperands(inputs);
  state.addTypes(results);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp GroupOp::getYield() {
  return dyn_cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult GroupOp::verify() {
  if (getResults().empty())
    return emitOpError("must have at least one result");
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but its body has "
           << block.getNumArguments() << " arguments";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(getInputs().getTypes(), block.getArgumentTypes()))) {
    auto [inputType, argType] = pair;
    if (inputType != argType)
      return emitOpError("input #")
             << i << " has type " << inputType << " but body argument #" << i
             << " has type " << argType;
  }
  auto yield =
      dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return emitOpError("body must end with 'fuse.yield'");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("returns ")
           << yield.getValues().getTypes() << " but the group results are "
           << getResultTypes();

  // The body must fit the kernel template named by `kind`.
  unsigned pools = 0, contractions = 0, reductions = 0, computeOps = 0;
  for (Operation &op : block.without_terminator()) {
    if (op.getDialect() == nullptr || op.getDialect()->getNamespace() != "onnx")
      return op.emitOpError("is not allowed in a 'fuse.group' body (only "
                            "onnx ops are)");
    if (op.hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    ++computeOps;
    if (isPoolingOp(&op)) {
      ++pools;
      if (getKind() != GroupKind::pool_epilogue)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (isContractionOp(&op)) {
      ++contractions;
      if (getKind() != GroupKind::contraction_epilogue)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (isReductionOp(&op)) {
      ++reductions;
      if (getKind() != GroupKind::reduction)
        return op.emitOpError("is not allowed in a group of kind '")
               << stringifyGroupKind(getKind()) << "'";
    } else if (!isElementwiseOp(&op)) {
      return op.emitOpError("is not allowed in a group of kind '")
             << stringifyGroupKind(getKind())
             << "' (it is neither elementwise nor the group's anchor)";
    }
  }
  if (computeOps == 0)
    return emitOpError("body has no ops to fuse");
  if (getKind() == GroupKind::pool_epilogue && pools != 1)
    return emitOpError("of kind 'pool_epilogue' must contain exactly one "
                       "pooling op, found ")
           << pools;
  if (getKind() == GroupKind::contraction_epilogue && contractions != 1)
    return emitOpError("of kind 'contraction_epilogue' must contain exactly "
                       "one Conv, Gemm or MatMul, found ")
           << contractions;
  if (getKind() == GroupKind::reduction && reductions != 1)
    return emitOpError("of kind 'reduction' must contain exactly one "
                       "Softmax, LayerNormalization or Reduce* op, found ")
           << reductions;
  return success();
}

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
