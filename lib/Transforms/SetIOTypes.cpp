//===- SetIOTypes.cpp - One float type for a model's inputs and outputs ---===//
//
// fuse-compile's --io-precision: the graph function's float arguments and
// results take one element type; casts at the edges keep what the graph
// computes, and fusion folds them into the first and last kernels.
//
//===----------------------------------------------------------------------===//

#include "EdgeCasts.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_SETIOTYPES
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// `type` with element type `element` if it is a ranked tensor of floats
/// of another type; else null.
Type retype(Type type, Type element) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<FloatType>(tensor.getElementType()) ||
      tensor.getElementType() == element)
    return {};
  return tensor.clone(element);
}

class SetIOTypesPass : public fuse::impl::SetIOTypesBase<SetIOTypesPass> {
public:
  using SetIOTypesBase::SetIOTypesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.isPublic() ||
        !func.getBody().hasOneBlock())
      return;
    Type element = getStorageType(func.getContext(), type);
    Block &body = func.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    for (BlockArgument arg : body.getArguments()) {
      Type original = arg.getType();
      Type io = retype(original, element);
      if (!io)
        continue;
      arg.setType(io);
      Value computed = createEdgeCast(builder, arg, original);
      arg.replaceAllUsesExcept(computed, computed.getDefiningOp());
    }
    SmallVector<Type> results;
    for (auto ret : llvm::make_early_inc_range(body.getOps<func::ReturnOp>())) {
      builder.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        // An index check is no output of the model.
        if (func.getResultAttr(operand.getOperandNumber(), kIndexCheckAttrName))
          continue;
        if (Type io = retype(operand.get().getType(), element))
          operand.set(createEdgeCast(builder, operand.get(), io));
      }
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    }
    func.setFunctionType(FunctionType::get(
        func.getContext(), body.getArgumentTypes(), results));
  }
};

} // namespace
