//===- Pipelines.h - fuse's lowering pipelines -------------------*- C++
//-*-===//
//
// One builder per stage, each also registered by name in fuse-opt:
//
//   fuse-lower-kernels-to-loops   kernel functions (onnx ops on tensors)
//                                 -> memref functions, one scf.parallel each
//   fuse-lower-loops-to-cpu       -> LLVM dialect, packed entry points
//   fuse-lower-loops-to-nvvm      -> gpu.module lowered to NVVM, target set
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PIPELINES_PIPELINES_H
#define FUSE_PIPELINES_PIPELINES_H

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace fuse {

struct CudaOptions {
  /// Streaming multiprocessor architecture, e.g. "sm_90".
  std::string chip = "sm_90";
  /// LLVM optimization level for the device code.
  unsigned optLevel = 3;
  unsigned blockSize = 256;
};

/// Registers the dialects and the external interface models (tiling,
/// bufferization, conversion to LLVM, NVVM target) the compiler uses.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Kernel functions -> bufferized functions with one scf.parallel each and
/// their results as out-params. The module must hold only kernels.
/// `blockSums` false leaves long sums serial (tests of fuse-run --check).
void buildKernelsToLoopsPipeline(mlir::OpPassManager &pm,
                                 bool blockSums = true);

/// Bufferized kernels -> LLVM dialect with `<kernel>_packed` entry points.
void buildLoopsToCPUPipeline(mlir::OpPassManager &pm);

/// Bufferized kernels -> `gpu.module @fuse_kernels` in NVVM, with an NVVM
/// target attached for `options.chip`.
void buildLoopsToNVVMPipeline(mlir::OpPassManager &pm,
                              const CudaOptions &options);

/// Registers the three pipelines with the pass registry (fuse-opt).
void registerFusePipelines();

/// Registers every pass fuse-compile runs (fuse's, the pipelines and the
/// MLIR passes in them) and --view-op-graph, for fuse-opt and for the
/// pass-manager options that name passes (--mlir-print-ir-after=NAME).
void registerCompilerPasses();

} // namespace fuse

#endif // FUSE_PIPELINES_PIPELINES_H
