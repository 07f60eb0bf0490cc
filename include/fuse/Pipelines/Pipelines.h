//===- Pipelines.h - fuse's pipelines ----------------------------*- C++
//-*-===//
//
// One builder per stage. The stages before kernels are outlined are driven
// by one options struct, FusePipelineOptions (fuse-pipeline's options),
// which fuse-compile, the Python package and fuse-opt fill:
//
//   fuse-simplify-graph           imported model, simplified
//   buildFuseInputPipeline        its edges' types, index checks
//   buildFuseGraphPipeline        fusion groups with strategies (--emit=fused)
//   fuse-outline-kernels          host plan + kernels (--emit=kernels)
//
// and `fuse-opt --fuse-pipeline='...'` runs them in that order. The
// lowering stages, each also registered by name in fuse-opt:
//
//   fuse-lower-kernels-to-loops   kernel functions (onnx ops on tensors)
//                                 -> memref functions, one scf.parallel each
//   fuse-lower-loops-to-cpu       -> LLVM dialect, packed entry points
//   fuse-lower-loops-to-nvvm      -> gpu.module lowered to NVVM, target set
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PIPELINES_PIPELINES_H
#define FUSE_PIPELINES_PIPELINES_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace fuse {

/// Where fuse-pipeline stops.
enum class PipelineStage { fused, kernels };

/// A precision option: one of the precisions, or the model's own (for
/// `precision`: fp16 or bf16 for a model holding tensors of that type,
/// else fp32; for `io-precision`: the types the model declares).
enum class PrecisionChoice { model, fp32, tf32, fp16, bf16 };

/// An option that is on, off, or decided by fuse for the target.
enum class Toggle { automatic, on, off };

#define GEN_PASS_DECL
#include "fuse/Pipelines/Passes.h.inc"

/// The precision a choice names; none for `model`.
std::optional<Precision> getPrecision(PrecisionChoice choice);

/// The choice that names `precision`.
PrecisionChoice getPrecisionChoice(Precision precision);

/// What is wrong with `options` (a value out of range), as "NAME must
/// ..." with NAME the option's name; empty when nothing is. fuse-compile
/// prefixes "--" to the name, the fuse-pipeline pass reports it as is.
std::string verifyPipelineOptions(const FusePipelineOptions &options);

/// The vector registers of an x86-64 level: AVX-512 (x86-64-v4) has 32,
/// the lower levels 16.
int64_t getCpuVectorRegisters(llvm::StringRef level);

/// The f32 lanes of an x86-64 level's vectors: SSE's 4 up to x86-64-v2,
/// AVX2's 8 (x86-64-v3), AVX-512's 16 (x86-64-v4).
int64_t getCpuVectorWidth(llvm::StringRef level);

/// The half type a model holds tensors of (its arguments, weights and
/// values): fp16 before bf16; fp32 when it holds neither.
Precision getModelPrecision(mlir::ModuleOp module);

/// What the later stages cannot take, refused after fuse-simplify-graph
/// with an error at the op: IR of a later stage (fuse ops), reductions and
/// contractions of tensors with no elements, empty outputs that a kernel
/// would compute, tensors of more dims than the runtime takes.
mlir::LogicalResult checkSimplifiedModel(mlir::ModuleOp module);

/// The input stage: the GPU target (cuda), the model's float edges in
/// `io-precision`, then the run-time index checks.
void buildFuseInputPipeline(mlir::OpPassManager &pm,
                            const FusePipelineOptions &options);

/// The graph stage, from the input stage's IR to fusion groups with
/// strategies, for a model whose own precision (getModelPrecision after
/// fuse-simplify-graph, before the input stage) is `modelPrecision`.
void buildFuseGraphPipeline(mlir::OpPassManager &pm,
                            const FusePipelineOptions &options,
                            Precision modelPrecision);

/// fuse-select-strategies' options for `options`' target.
SelectStrategiesOptions
getSelectStrategiesOptions(const FusePipelineOptions &options);

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

/// Registers the three lowering pipelines and the fuse-pipeline pass with
/// the pass registry (fuse-opt).
void registerFusePipelines();

/// Registers every pass fuse-compile runs (fuse's, the pipelines and the
/// MLIR passes in them) and --view-op-graph, for fuse-opt and for the
/// pass-manager options that name passes (--mlir-print-ir-after=NAME).
void registerCompilerPasses();

} // namespace fuse

#endif // FUSE_PIPELINES_PIPELINES_H
