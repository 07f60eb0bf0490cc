//===- AddKernelEntryPoints.cpp - `<kernel>_packed(void **)` entries -----===//
//
// The CPU runtime calls every kernel through one C signature,
// `void <kernel>_packed(void **args)`, where args[i] is the i-th buffer
// pointer; the kernels themselves take one pointer per buffer. Those
// pointers are marked noalias and 64-byte aligned, as on the GPU: each
// buffer is its own aligned region of the arena, and the plan never passes
// overlapping buffers where one is written. Without it LLVM must keep a
// residual's loads after the stores of the outputs before them, which
// kept a ResNet-50 convolution with a residual Add scalar (5x slower).
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/runtime/Artifact.h"

namespace fuse {
#define GEN_PASS_DEF_ADDKERNELENTRYPOINTS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {
struct AddKernelEntryPointsPass
    : public fuse::impl::AddKernelEntryPointsBase<AddKernelEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(&getContext());
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    auto voidType = LLVM::LLVMVoidType::get(&getContext());
    SmallVector<LLVM::LLVMFuncOp> kernels;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (isKernel(func))
        kernels.push_back(func);
    for (LLVM::LLVMFuncOp kernel : kernels) {
      LLVM::LLVMFunctionType type = kernel.getFunctionType();
      if (!llvm::all_of(type.getParams(), [&](Type t) { return t == ptr; }) ||
          type.getReturnType() != voidType) {
        kernel.emitOpError("must take only pointers and return nothing to "
                           "get a packed entry point (lower it with the "
                           "bare-pointer calling convention)");
        return signalPassFailure();
      }
      for (unsigned i = 0; i < type.getNumParams(); ++i) {
        kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                          b.getUnitAttr());
        kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(artifact::kAlignment));
      }
      Location loc = kernel.getLoc();
      b.setInsertionPointAfter(kernel);
      auto packed = LLVM::LLVMFuncOp::create(
          b, loc, (kernel.getName() + "_packed").str(),
          LLVM::LLVMFunctionType::get(voidType, {ptr}));
      Block *entry = packed.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      SmallVector<Value> args;
      for (unsigned i = 0; i < type.getNumParams(); ++i) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptr, ptr, entry->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
      }
      LLVM::CallOp::create(b, loc, kernel, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    }
  }
};
} // namespace
