//===- LowerNVGPU.cpp - nvgpu ops at the kernels' index width ------------===//
//
// Upstream's patterns for nvgpu's ops (asynchronous copies, ldmatrix,
// mma.sync), applied with a type
// converter that follows the gpu.module's data layout: a memref's
// descriptor then has the same index type here as in convert-gpu-to-nvvm,
// which lowers everything else.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace fuse {
#define GEN_PASS_DEF_LOWERNVGPU
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;

namespace {
struct LowerNVGPUPass : public fuse::impl::LowerNVGPUBase<LowerNVGPUPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool hasNVGPU = false;
    module.walk([&](Operation *op) {
      if (isa<nvgpu::NVGPUDialect>(op->getDialect()))
        hasNVGPU = true;
    });
    if (!hasNVGPU)
      return;
    MLIRContext *context = &getContext();
    LowerToLLVMOptions options(
        context, DataLayout(cast<DataLayoutOpInterface>(module.getOperation())));
    LLVMTypeConverter converter(context, options);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    RewritePatternSet patterns(context);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
