//===- Pipelines.cpp - fuse's lowering pipelines --------------------------===//

#include "fuse/Pipelines/Pipelines.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace fuse {
#define GEN_PASS_REGISTRATION
#include "fuse/Pipelines/Passes.h.inc"
} // namespace fuse

using namespace mlir;

void fuse::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<ONNXDialect, FuseDialect, affine::AffineDialect,
                  arith::ArithDialect, bufferization::BufferizationDialect,
                  cf::ControlFlowDialect, DLTIDialect, func::FuncDialect,
                  gpu::GPUDialect,
                  index::IndexDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect,
                  scf::SCFDialect, tensor::TensorDialect, ub::UBDialect,
                  vector::VectorDialect>();
  // Tiling and fusion.
  linalg::registerTilingInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  // Bufferization (memref.alloc's model lets allocations be hoisted into
  // out-params and promoted to the stack).
  memref::registerAllocationOpInterfaceExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerAttentionBufferization(registry);
  // Conversion to LLVM inside gpu.module (convert-gpu-to-nvvm).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // The mma fragments of `attention_mma` kernels.
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // Translation to LLVM IR (CPU kernels, NVVM device code).
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void fuse::buildKernelsToLoopsPipeline(OpPassManager &pm, bool blockSums) {
  OpPassManager &kernels = pm.nest<func::FuncOp>();
  kernels.addPass(createConvertONNXToLinalg());
  kernels.addPass(createFormKernelLoops());
  kernels.addPass(createCanonicalizerPass());
  // Tile-and-fuse clones a producer into each of its users (a Softmax's row
  // maximum, a LayerNorm's row sum): one copy is enough.
  kernels.addPass(createCSEPass());

  pm.addPass(createBufferizeKernels());

  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(createLowerAttention());
  // Bufferizing the loop's parallel_insert_slice leaves a copy of each
  // element onto itself through two equal subviews: CSE makes them one
  // value and canonicalization erases the copy, before it becomes loops.
  loops.addPass(createCanonicalizerPass());
  loops.addPass(createCSEPass());
  loops.addPass(createCanonicalizerPass());
  // Per-element temporaries (accumulators, padded windows) live on the
  // stack: registers, after LLVM's SROA.
  bufferization::PromoteBuffersToStackPassOptions stack;
  stack.maxAllocSizeInBytes = 1 << 18;
  loops.addPass(bufferization::createPromoteBuffersToStackPass(stack));
  // Rows of `rows` kernels are split over their threads while the work is
  // still linalg ops, whose iterators say what is parallel.
  pm.addPass(createDistributeRows());
  OpPassManager &lowered = pm.nest<func::FuncOp>();
  lowered.addPass(createConvertLinalgToLoopsPass());
  lowered.addPass(createForallToParallelLoopPass());
  lowered.addPass(createHoistStaticAllocas());
  lowered.addPass(createCanonicalizerPass());
  lowered.addPass(createCSEPass());
  lowered.addPass(createPromoteAccumulators());
  lowered.addPass(createCanonicalizerPass());
  // After the accumulators are values: jamming copies them per output.
  // Each copy's stack buffers then go back to the entry block.
  lowered.addPass(createJamThreadTiles());
  // Long sums in blocks (after jamming, which wants the loops as they
  // were): a chain of 2^25 additions loses everything past 2^24.
  if (blockSums)
    lowered.addPass(createBlockAccumulations());
  lowered.addPass(createHoistStaticAllocas());
  lowered.addPass(createCanonicalizerPass());
  lowered.addPass(createCSEPass());
}

/// Passes shared by both targets before their LLVM lowering.
static void addLoopsToStandard(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
}

void fuse::buildLoopsToCPUPipeline(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<func::FuncOp>();
  // Contractions pass over B in blocks an L2 keeps (light ResNet-50 at
  // x86-64-v3: see docs/models.md, "CPU speed").
  kernels.addPass(createCacheTileContractions());
  addLoopsToStandard(kernels);
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Math on f16 and bf16 in f32: LLVM would call __truncsfbf2 for bf16.
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (tanh) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  // bf16 arithmetic in f32 (LLVM would promote it through __truncsfbf2
  // calls), then bf16 conversions as integer arithmetic: the C runtime of
  // the host compiler may lack __truncsfbf2.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createAddKernelEntryPoints());
}

void fuse::buildLoopsToNVVMPipeline(OpPassManager &pm,
                                    const CudaOptions &options) {
  MapKernelsToGPUOptions map;
  map.blockSize = options.blockSize;
  pm.addPass(createMapKernelsToGPU(map));
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  addLoopsToStandard(device);
  // The nvgpu ops (cp.async, ldmatrix, mma.sync) first: their memrefs then
  // still have the types the pass converts.
  device.addPass(createLowerNVGPU());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
}

namespace {
struct NVVMPipelineOptions : public PassPipelineOptions<NVVMPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture, e.g. sm_90"),
                           llvm::cl::init("sm_90")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Device code optimization level"),
                            llvm::cl::init(3)};
};
} // namespace

void fuse::registerCompilerPasses() {
  registerFuseTransformsPasses();
  registerFuseConversionPasses();
  registerFusePipelines();
  // MLIR's passes that the pipelines run, by the names the IR printing
  // options (--mlir-print-ir-after=cse) and fuse-opt take.
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
  bufferization::registerPromoteBuffersToStackPass();
  registerConvertLinalgToLoopsPass();
  registerSCFForallToParallelLoop();
  registerSCFToControlFlowPass();
  memref::registerExpandStridedMetadataPass();
  registerLowerAffinePass();
  registerFinalizeMemRefToLLVMConversionPass();
  math::registerMathExtendToSupportedTypes();
  registerConvertMathToLLVMPass();
  registerConvertMathToLibmPass();
  arith::registerArithEmulateUnsupportedFloats();
  arith::registerArithExpandOpsPass();
  registerArithToLLVMConversionPass();
  registerConvertIndexToLLVMPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  registerConvertGpuOpsToNVVMOps();
  registerGpuNVVMAttachTarget();
  // --view-op-graph: Graphviz of the IR, fusion groups as clusters.
  registerViewOpGraph();
}

void fuse::registerFusePipelines() {
  registerFusePipelinesPasses();
  PassPipelineRegistration<>(
      "fuse-lower-kernels-to-loops",
      "Lower kernel functions to bufferized functions with one parallel "
      "loop nest each",
      [](OpPassManager &pm) { buildKernelsToLoopsPipeline(pm); });
  PassPipelineRegistration<>(
      "fuse-lower-loops-to-cpu",
      "Lower bufferized kernels to LLVM with packed entry points",
      buildLoopsToCPUPipeline);
  PassPipelineRegistration<NVVMPipelineOptions>(
      "fuse-lower-loops-to-nvvm",
      "Lower bufferized kernels to a gpu.module in NVVM",
      [](OpPassManager &pm, const NVVMPipelineOptions &opts) {
        CudaOptions options;
        options.chip = opts.chip;
        options.optLevel = opts.optLevel;
        buildLoopsToNVVMPipeline(pm, options);
      });
}
