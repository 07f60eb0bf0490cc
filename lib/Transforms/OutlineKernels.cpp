//===- OutlineKernels.cpp - One function per kernel ----------------------===//
//
// After this pass the host function is the execution plan: weights
// (onnx.Constant), kernel calls in order, and the returned values. Each
// kernel function is compiled on its own by the lowering.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace fuse {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Constants that a kernel is better off holding than reading: splats
/// (they become scalars in the kernel body) and shape constants (the
/// lowering reads them at compile time).
static bool isInlinableConstant(Value value) {
  auto constant = value.getDefiningOp<ONNXConstantOp>();
  if (!constant)
    return false;
  if (isShapeLikeConstant(value))
    return true;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

/// Operands a kernel reads only at compile time (they decide result types,
/// not values): the shape of a Reshape.
static bool isCompileTimeOperand(OpOperand &operand) {
  return isa<ONNXReshapeOp>(operand.getOwner()) &&
         operand.getOperandNumber() == 1 &&
         operand.get().getDefiningOp<ONNXConstantOp>();
}

static std::string kernelKind(Operation *op) {
  if (auto group = dyn_cast<GroupOp>(op))
    return stringifyGroupKind(group.getKind()).str();
  return op->getName().stripDialect().lower();
}

/// Creates the kernel function for `ops` (in order; the results of `root`
/// are returned) and replaces `root` with a call to it.
static void outline(OpBuilder &builder, ModuleOp module, func::FuncOp host,
                    Operation *root, StringRef name) {
  // Parameters: values from outside, in order of first use, except
  // constants the kernel holds itself.
  // A library call reads every operand from a buffer, splats too.
  bool library = false;
  if (auto group = dyn_cast<GroupOp>(root))
    library = group.getStrategy() &&
              !isa<KernelStrategyAttr>(*group.getStrategy());
  llvm::SetVector<Value> params;
  llvm::SetVector<Operation *> inlined;
  auto visitOperand = [&](OpOperand &operand) {
    Value value = operand.get();
    Operation *def = value.getDefiningOp();
    if (def && root->isAncestor(def))
      return;
    if ((!library && isInlinableConstant(value)) ||
        isCompileTimeOperand(operand))
      inlined.insert(def);
    else
      params.insert(value);
  };
  if (auto group = dyn_cast<GroupOp>(root)) {
    for (OpOperand &operand : group->getOpOperands())
      visitOperand(operand);
  } else {
    for (OpOperand &operand : root->getOpOperands())
      visitOperand(operand);
  }

  SmallVector<Type> paramTypes;
  for (Value param : params)
    paramTypes.push_back(param.getType());
  builder.setInsertionPointToEnd(module.getBody());
  auto kernel = func::FuncOp::create(
      builder, root->getLoc(), name,
      builder.getFunctionType(paramTypes, root->getResultTypes()));
  kernel.setPrivate();
  kernel->setAttr("fuse.kernel", builder.getUnitAttr());
  // The strategy goes with the kernel.
  Attribute strategy = root->getAttr(kStrategyAttrName);
  if (auto group = dyn_cast<GroupOp>(root))
    strategy = group.getStrategyAttr();
  if (strategy)
    kernel->setAttr(kStrategyAttrName, strategy);
  Block *entry = kernel.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  IRMapping mapping;
  for (auto [param, arg] : llvm::zip(params, entry->getArguments()))
    mapping.map(param, arg);
  for (Operation *constant : inlined)
    builder.clone(*constant, mapping);
  SmallVector<Value> results;
  if (auto group = dyn_cast<GroupOp>(root)) {
    // The group's block arguments are its inputs: map them to whatever the
    // inputs became (parameters or inlined constants).
    for (auto [input, arg] :
         llvm::zip(group.getInputs(), group.getBodyBlock().getArguments()))
      mapping.map(arg, mapping.lookup(input));
    for (Operation &op : group.getBodyBlock().without_terminator())
      builder.clone(op, mapping);
    for (Value v : group.getYield().getValues())
      results.push_back(mapping.lookup(v));
  } else {
    Operation *clone = builder.clone(*root, mapping);
    clone->removeAttr(kStrategyAttrName);
    results.append(clone->result_begin(), clone->result_end());
  }
  func::ReturnOp::create(builder, root->getLoc(), results);

  builder.setInsertionPoint(root);
  auto call = func::CallOp::create(builder, root->getLoc(), kernel,
                                   params.getArrayRef());
  root->replaceAllUsesWith(call.getResults());
  root->erase();
}

namespace {
struct OutlineKernelsPass
    : public fuse::impl::OutlineKernelsBase<OutlineKernelsPass> {
  using OutlineKernelsBase::OutlineKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(&getContext());
    SmallVector<func::FuncOp> hosts;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func->hasAttr("fuse.kernel") && !func.isExternal())
        hosts.push_back(func);
    unsigned index = 0;
    for (func::FuncOp host : hosts) {
      // Kernels in order, those of a fuse.alternatives' candidates in
      // place (they stay in their candidate, as calls).
      SmallVector<Operation *> roots, constants;
      for (Operation *op : getOpsThroughAlternatives(host.getBody().front())) {
        if (isa<GroupOp>(op) || isComputeOp(op))
          roots.push_back(op);
        else if (isa<ONNXConstantOp>(op))
          constants.push_back(op);
      }
      for (Operation *root : roots) {
        std::string name =
            prefix + "k" + std::to_string(index++) + "_" + kernelKind(root);
        outline(builder, module, host, root, name);
      }
      // Constants only kernels needed are gone with their last user.
      for (Operation *constant : constants)
        if (constant->use_empty())
          constant->erase();
    }
  }
};
} // namespace
