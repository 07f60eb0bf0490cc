//===- Compiler.h - ONNX-imported module to artifact ------------*- C++ -*-===//
//
// The whole of fuse-compile after import:
//
//   fuse-simplify-graph -> fuse-chains (unless fusion is off) ->
//   fuse-select-strategies -> fuse-outline-kernels -> plans
//   generated kernels -> fuse-lower-kernels-to-loops ->
//   fuse-lower-loops-to-{cpu,nvvm} -> shared object (cpu) or cubin + PTX
//   (cuda) -> artifact (library calls are launches with parameters)
//
// When the kernels do not compile, each is compiled alone to find those
// that fail; the candidates that launch one are dropped and the plans and
// kernels built again.
//
// With a reference, the model is also outlined without fusion and with
// generated kernels only (kernels `ref_k<N>_...`), as plan "reference" for
// `fuse-run --check`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TARGET_COMPILER_H
#define FUSE_TARGET_COMPILER_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/runtime/Artifact.h"

#include <cstdint>

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
class TimingScope;
} // namespace mlir

namespace fuse {

/// Where fuse-compile stops (`--emit`), and where IR it is given is.
enum class CompileStage {
  Imported, // onnx dialect, as imported
  Fused,    // after fuse-chains and fuse-select-strategies
  Kernels,  // host plan + kernel functions
  Loops,    // kernels as bufferized loops
  LLVM,     // kernels in the LLVM dialect (cpu) or NVVM (cuda)
  Assembly, // PTX text (cuda only)
  Artifact, // the .fbin
};

/// The stage's name as `--emit` takes it: "onnx", "fused", "kernels",
/// "loops", "llvm", "ptx", "artifact".
llvm::StringRef getStageName(CompileStage stage);

struct CompileOptions {
  /// The passes' options up to the kernels (fuse-pipeline's): target,
  /// GPU architecture, fusion, precision, strategies. Its `cpu` level is
  /// set by compileModel from `cpu` below, its `stage` unused.
  FusePipelineOptions pipeline;
  /// CUDA toolkit root, for ptxas and libdevice.
  std::string cudaPath = "/usr/local/cuda";
  /// Also compile the model unfused, as plan "reference" (fuse-compile
  /// --reference; off by default: it doubles the compile).
  bool reference = false;
  /// The reference is left out, with a warning, when the model has more
  /// compute ops than this (each is a kernel of its own: 20,000 of them
  /// took minutes); 0: no limit.
  int64_t maxReferenceKernels = 1024;
  /// The reference computes every float tensor in f64 (fuse-widen-floats),
  /// so that it measures the main plan's rounding instead of sharing it.
  bool referenceF64 = true;
  /// The fusion report after strategy selection, in this format; unset:
  /// none.
  std::optional<ReportFormat> fusionReport;
  /// Where the fusion report goes; null: stderr.
  llvm::raw_ostream *fusionReportStream = nullptr;
  /// The options as fuse-compile's flags, recorded in the artifact's Build
  /// section with the compiler's version (fuse-run --info shows both):
  /// the command line without the model's and the output's file names.
  std::string flags;
  CompileStage stopAfter = CompileStage::Artifact;
  /// The stage the module given to compileModel is at (getModuleStage):
  /// the compile goes on from there. From Loops on the plan is gone, so
  /// only later stages can be printed, not an artifact made.
  CompileStage startAt = CompileStage::Imported;
  /// The x86-64 levels the cpu kernels are compiled for, lowest first
  /// (resolveCpuLevel): portable SSE2 kernels, and AVX2 ones that hosts
  /// with AVX2 load instead.
  std::string cpu = "x86-64,x86-64-v3";

  /// Called on every pass manager of the compile once its passes are
  /// added, before it runs (fuse-compile applies MLIR's pass-manager
  /// command-line options here: IR printing, statistics, crash
  /// reproducers); a failure stops the compile.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePassManager;
  /// Where the time of each stage (and, within the pass-manager stages, of
  /// each pass) is recorded: fuse-compile's --mlir-timing. Null: nowhere.
  mlir::TimingScope *timing = nullptr;
  /// Told of each stage as it starts (`kernels` 0, e.g. "lower kernels to
  /// loops") and, in the stages that lower the kernels one at a time, of
  /// every kernel through them: `done` of `kernels`. Called from the
  /// threads the stage runs on, one call at a time.
  std::function<void(llvm::StringRef stage, int64_t done, int64_t kernels)>
      progress;
  /// For tests: every generated kernel whose strategy is one of these
  /// (described as `--fusion-report` describes it, "kernel loop tile 4x8")
  /// fails to compile, as a kernel that ptxas rejects does.
  std::vector<std::string> failingStrategies;
  /// For tests: long sums stay one serial chain (no
  /// fuse-block-accumulations), a lowering that loses precision in both
  /// plans, which `fuse-run --check` against the f64 reference must catch.
  bool serialSums = false;
};

/// The x86-64 microarchitecture levels that `--cpu=spec` means, a
/// comma-separated list of "x86-64" (any x86-64: SSE2), "x86-64-v2"
/// (SSE4.2), "x86-64-v3" (AVX2, FMA), "x86-64-v4" (AVX-512), or "native",
/// the highest of them this machine supports: the same list, lowest first,
/// without repeats ("x86-64-v3,native" on an AVX2 machine: "x86-64-v3").
/// The artifact has kernels for each level; the runtime loads the highest
/// its host has, and refuses a host below the lowest. Levels, not machine
/// models, are what the artifact records. Unknown names: std::nullopt.
std::optional<std::string> resolveCpuLevel(llvm::StringRef spec);

/// The levels of a resolved list (resolveCpuLevel), lowest first.
llvm::SmallVector<std::string> getCpuLevels(llvm::StringRef levels);

/// The stage `module` is at, as `--emit` prints it, told from what it
/// holds: LLVM (a gpu.module or LLVM functions), Loops (kernel functions
/// on buffers, no host function), Kernels (a host function calling kernel
/// functions), Fused (fusion groups and strategies), Imported (onnx ops
/// only). IR that is none of them (groups without strategies, ops of other
/// dialects) is an error.
mlir::FailureOr<CompileStage> getModuleStage(mlir::ModuleOp module);

/// Compiles `module` (as imported, or at `options.startAt`) and writes the
/// artifact to `os`, returning its size; for stages before Artifact,
/// prints that stage to `os` and returns 0. Errors go through the
/// context's diagnostics.
///
/// A candidate of a `fuse.alternatives` whose kernels do not compile (up to
/// the stage asked for) is dropped with a warning, and the compile goes
/// on; a kernel outside any candidate that does not compile, or a group
/// none of whose candidates does, is an error.
mlir::FailureOr<uint64_t> compileModel(mlir::ModuleOp module,
                                       const CompileOptions &options,
                                       llvm::raw_ostream &os);

} // namespace fuse

#endif // FUSE_TARGET_COMPILER_H
