//===- Compiler.cpp - ONNX-imported module to artifact --------------------===//

#include "fuse/Target/Compiler.h"

#include "CodegenInternal.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Target/Plan.h"
#include "fuse/Transforms/Passes.h"
#include "fuse/Version.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"

#include <cctype>
#include <mutex>

using namespace mlir;
using namespace fuse;
using namespace fuse::target;

namespace {
/// Reports each kernel (func.func) through a function pipeline of a stage
/// to CompileOptions::progress: `done` counts the kernels through the
/// pipeline running now, from 0 again in each next one (the last one of
/// each stage is where its time goes).
class KernelProgress : public PassInstrumentation {
public:
  KernelProgress(const CompileOptions &options, StringRef stage,
                 int64_t kernels)
      : options(options), stage(stage.str()), kernels(kernels) {}

  void runAfterPipeline(std::optional<OperationName> name,
                        const PipelineParentInfo &parent) override {
    if (!name || name->getStringRef() != func::FuncOp::getOperationName())
      return;
    // The kernels finish on several threads; their reports go out one at
    // a time, in order.
    std::lock_guard<std::mutex> lock(mutex);
    if (parent.parentPass != pipeline) {
      pipeline = parent.parentPass;
      count = 0;
    }
    options.progress(stage, ++count, kernels);
  }

private:
  const CompileOptions &options;
  std::string stage;
  int64_t kernels;
  std::mutex mutex;
  /// The pass running the current function pipeline, and its kernels done.
  Pass *pipeline = nullptr;
  int64_t count = 0;
};

/// The stages of one compile, in order: each timed under
/// CompileOptions::timing and announced to CompileOptions::progress, and
/// each pass manager set up by CompileOptions::configurePassManager before
/// it runs.
class Stages {
public:
  explicit Stages(const CompileOptions &options) : options(options) {}

  /// Ends the current stage and starts the one named `name`.
  void begin(StringRef name) {
    current.stop();
    stage = name.str();
    if (options.timing)
      current = options.timing->nest(name);
    if (options.progress)
      options.progress(stage, 0, 0);
  }

  /// Runs the passes `build` adds on `module`, as part of the current
  /// stage; with `perKernel`, its function pipelines run on the kernels,
  /// and each kernel through them is reported as progress.
  LogicalResult runPasses(ModuleOp module,
                          function_ref<void(OpPassManager &)> build,
                          bool perKernel = false) {
    PassManager pm(module.getContext());
    build(pm);
    if (options.configurePassManager &&
        failed(options.configurePassManager(pm)))
      return failure();
    if (perKernel && options.progress) {
      auto kernels = module.getOps<func::FuncOp>();
      pm.addInstrumentation(std::make_unique<KernelProgress>(
          options, stage, std::distance(kernels.begin(), kernels.end())));
    }
    // Last, as timing wants: after the other instrumentations.
    if (current)
      pm.enableTiming(current);
    return pm.run(module);
  }

private:
  const CompileOptions &options;
  std::string stage;
  TimingScope current;
};
} // namespace

/// The one host function of an imported model.
/// Whether the compile is for the cpu target.
static bool isCpu(const CompileOptions &options) {
  return options.pipeline.target == KernelTarget::cpu;
}

/// The artifact's target.
static artifact::Target getArtifactTarget(const CompileOptions &options) {
  return isCpu(options) ? artifact::Target::Cpu : artifact::Target::Cuda;
}

static FailureOr<func::FuncOp> getHost(ModuleOp module) {
  func::FuncOp host;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func->hasAttr("fuse.kernel"))
      continue;
    if (host)
      return emitError(module.getLoc(), "expected one host function, found @")
             << host.getName() << " and @" << func.getName();
    host = func;
  }
  if (!host)
    return emitError(module.getLoc(), "the module has no function to compile");
  return host;
}

StringRef fuse::getStageName(CompileStage stage) {
  switch (stage) {
  case CompileStage::Imported:
    return "onnx";
  case CompileStage::Fused:
    return "fused";
  case CompileStage::Kernels:
    return "kernels";
  case CompileStage::Loops:
    return "loops";
  case CompileStage::LLVM:
    return "llvm";
  case CompileStage::Assembly:
    return "ptx";
  case CompileStage::Artifact:
    return "artifact";
  }
  llvm_unreachable("unknown stage");
}

namespace {
/// The kernels' code: a shared object (cpu), or a cubin and its PTX (cuda);
/// empty when the compile stops before it.
struct KernelImage {
  std::vector<char> image;
  std::vector<char> ptx;
};

/// The plans of one attempt at compiling, and the kernels they launch.
struct Plans {
  artifact::File artifact;
  WeightTable weights;
  KernelTable kernels;
};
} // namespace

/// Builds plan "main" from the host function of `sources[0]` and, when there
/// is a second module (the reference), plan "reference" from its host.
static LogicalResult buildPlans(ArrayRef<ModuleOp> sources,
                                const CompileOptions &options, Plans &plans) {
  artifact::File &artifact = plans.artifact;
  artifact.target = getArtifactTarget(options);
  artifact.arch = isCpu(options) ? options.cpu : options.pipeline.gpuArch;
  for (auto [i, source] : llvm::enumerate(sources)) {
    FailureOr<func::FuncOp> host = getHost(source);
    if (failed(host) ||
        (i == 0 && failed(getSignature(*host, artifact.plan.inputs,
                                       artifact.plan.outputs))))
      return failure();
    FailureOr<artifact::PlanDesc> plan =
        buildPlan(*host, i == 0 ? "main" : "reference", plans.weights,
                  plans.kernels, artifact.metadata);
    if (failed(plan))
      return failure();
    artifact.plan.plans.push_back(std::move(*plan));
  }
  return success();
}

/// Calls `fn` with each kernel function of `sources` that is an entry of
/// `kernels` (the first of its body; library calls and views have no code
/// to compile), in order, and its entry.
static void
forEachCompiledKernel(ArrayRef<ModuleOp> sources, const KernelTable &kernels,
                      function_ref<void(func::FuncOp, uint32_t)> fn) {
  for (ModuleOp source : sources)
    for (auto func : source.getOps<func::FuncOp>())
      if (func->hasAttr("fuse.kernel") && kernels.contains(func.getName()))
        fn(func, *kernels.lookup(func.getName()));
}

/// Appends a public copy of `kernel` to `module` (its callers stay behind).
static void copyKernel(func::FuncOp kernel, ModuleOp module) {
  func::FuncOp copy = kernel.clone();
  copy.setPublic();
  module.push_back(copy);
}

/// For tests (CompileOptions::failingStrategies): fails, as a kernel that
/// does not compile, when a kernel of `kernels` has a strategy named there.
static LogicalResult failAsAsked(ModuleOp kernels,
                                 const CompileOptions &options) {
  if (options.failingStrategies.empty())
    return success();
  for (auto kernel : kernels.getOps<func::FuncOp>()) {
    std::string strategy = describeStrategy(kernel->getAttr(kStrategyAttrName));
    if (llvm::is_contained(options.failingStrategies, strategy))
      return emitError(kernel.getLoc(), "kernel @")
             << kernel.getName()
             << " fails to compile, as --test-fail-strategy asks";
  }
  return success();
}

/// How lowerKernels goes about it.
struct LowerKernels {
  /// The stage the kernels are at: Kernels (as outlined), or Loops or LLVM
  /// (IR of that stage given to fuse-compile).
  CompileStage from = CompileStage::Kernels;
  /// Whether each lowering is a stage of its own, begun in `stages` and
  /// its kernels reported as progress; otherwise (a retry) its passes run
  /// in the current stage, unreported.
  bool announce = true;
  /// Without it, a cuda image has no PTX (only whether they compile
  /// matters).
  bool keepPtx = true;
};

/// Lowers the kernel functions of `kernels` (a module of them alone)
/// through the stage `options.stopAfter` names, and at the last one
/// compiles them into their image; every pass manager it runs is one of
/// `stages` (configured, timed).
static FailureOr<KernelImage> lowerKernels(ModuleOp kernels,
                                           const CompileOptions &options,
                                           Stages &stages,
                                           const LowerKernels &how = {}) {
  CompileStage last = options.stopAfter;
  auto begin = [&](StringRef stage) {
    if (how.announce)
      stages.begin(stage);
  };
  // Lowers the kernels to `stage`, as stage `name`, unless they are there.
  auto lowerTo = [&](CompileStage stage, StringRef name,
                     function_ref<void(OpPassManager &)> build,
                     bool perKernel) -> LogicalResult {
    if (how.from >= stage)
      return success();
    begin(name);
    return stages.runPasses(kernels, build, perKernel && how.announce);
  };
  KernelImage image;
  if (failed(failAsAsked(kernels, options)) ||
      failed(lowerTo(
          CompileStage::Loops, "lower kernels to loops",
          [&](OpPassManager &pm) {
            buildKernelsToLoopsPipeline(pm, !options.serialSums);
          },
          /*perKernel=*/true)))
    return failure();
  if (last == CompileStage::Loops)
    return image;
  if (isCpu(options)) {
    if (failed(lowerTo(CompileStage::LLVM, "lower loops to LLVM",
                       buildLoopsToCPUPipeline, /*perKernel=*/true)))
      return failure();
    if (last == CompileStage::LLVM)
      return image;
    begin("compile kernels to machine code");
    FailureOr<std::vector<char>> object =
        codegen::compileCpuKernels(kernels, options.cpu);
    if (failed(object))
      return failure();
    image.image = std::move(*object);
    return image;
  }
  if (failed(lowerTo(
          CompileStage::LLVM, "lower loops to NVVM",
          [&](OpPassManager &pm) {
            CudaOptions cuda;
            cuda.chip = options.pipeline.gpuArch;
            buildLoopsToNVVMPipeline(pm, cuda);
          },
          /*perKernel=*/false)))
    return failure();
  if (last == CompileStage::LLVM)
    return image;
  begin(last == CompileStage::Assembly ? "compile kernels to PTX"
                                       : "compile kernels to PTX and a cubin");
  FailureOr<codegen::CudaImage> cuda = codegen::compileCudaKernels(
      kernels, options.cudaPath, last != CompileStage::Assembly, how.keepPtx);
  if (failed(cuda))
    return failure();
  image.image = std::move(cuda->cubin);
  image.ptx = std::move(cuda->ptx);
  return image;
}

/// lowerKernels, with the diagnostics it emits appended to `diagnostics`
/// instead of printed.
static FailureOr<KernelImage>
lowerKernelsQuietly(ModuleOp kernels, const CompileOptions &options,
                    Stages &stages, std::vector<Diagnostic> &diagnostics,
                    const LowerKernels &how = {}) {
  ScopedDiagnosticHandler handler(kernels.getContext(), [&](Diagnostic &diag) {
    diagnostics.push_back(std::move(diag));
    return success();
  });
  return lowerKernels(kernels, options, stages, how);
}

/// Prints the diagnostics held back in `diagnostics`, in order.
static void emitHeld(MLIRContext *context,
                     std::vector<Diagnostic> &diagnostics) {
  for (Diagnostic &diag : diagnostics)
    context->getDiagEngine().emit(std::move(diag));
  diagnostics.clear();
}

/// The first error among `diagnostics`, as one message.
static std::string firstError(ArrayRef<Diagnostic> diagnostics) {
  for (const Diagnostic &diag : diagnostics)
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      return StringRef(diag.str()).rtrim().str();
  return "unknown error";
}

/// Keeps the candidates of `alternatives` that `keep` marks (one at least):
/// two or more in a fuse.alternatives of their own (the selected one still
/// selected; the first kept one where it is not kept), one in place of the
/// op (the verifier asks for two candidates).
static void keepCandidates(AlternativesOp alternatives, ArrayRef<bool> keep) {
  SmallVector<unsigned> kept;
  for (auto [i, k] : llvm::enumerate(keep))
    if (k)
      kept.push_back(i);
  if (kept.size() == 1) {
    YieldOp yield = alternatives.getCandidateYield(kept.front());
    alternatives->replaceAllUsesWith(yield.getValues());
    Block *block = yield->getBlock();
    yield.erase();
    alternatives->getBlock()->getOperations().splice(
        alternatives->getIterator(), block->getOperations());
    alternatives.erase();
    return;
  }
  const auto *selected = llvm::find(kept, alternatives.getSelected());
  OpBuilder builder(alternatives);
  auto replacement = AlternativesOp::create(
      builder, alternatives.getLoc(), alternatives.getResultTypes(),
      selected == kept.end() ? 0 : selected - kept.begin(),
      alternatives.getKey(), kept.size());
  for (auto [region, index] : llvm::zip(replacement.getCandidates(), kept))
    region.takeBody(alternatives.getCandidates()[index]);
  alternatives->replaceAllUsesWith(replacement.getResults());
  alternatives.erase();
}

namespace {
/// A candidate that does not compile, in every group of its key (equal
/// groups have equal candidates and share their kernels).
struct FailedCandidate {
  AlternativesOp first; // The first group of the key.
  unsigned index;
  std::string label, error;
  unsigned groups = 0;
};
} // namespace

/// After the kernels of `kernels` failed to compile together (`errors`,
/// held back), compiles each kernel that only candidates launch alone and
/// drops from their fuse.alternatives the candidates that launch one that
/// fails, with a warning each, for the caller to plan and compile again.
/// Fails, with errors, where that cannot help: nothing compiles (no
/// toolkit), no such kernel fails (a kernel outside any candidate does, or
/// they fail only together), or every candidate of a group fails.
static LogicalResult dropFailingCandidates(ArrayRef<ModuleOp> sources,
                                           const KernelTable &kernels,
                                           const CompileOptions &options,
                                           Stages &stages,
                                           std::vector<Diagnostic> &errors) {
  ModuleOp module = sources.front();
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  SmallVector<func::FuncOp> hosts;
  for (ModuleOp source : sources) {
    FailureOr<func::FuncOp> host = getHost(source);
    if (failed(host))
      return failure();
    hosts.push_back(*host);
  }
  auto giveUp = [&] {
    emitHeld(context, errors);
    return failure();
  };
  // Not even no kernel compiles (no CUDA toolkit, an architecture ptxas
  // does not know): no kernel's fault.
  OwningOpRef<ModuleOp> none = ModuleOp::create(loc);
  std::vector<Diagnostic> ignored;
  // Each kernel alone, quietly: in the stage the caller began, unreported.
  LowerKernels retry;
  retry.announce = false;
  retry.keepPtx = false;
  if (failed(lowerKernelsQuietly(*none, options, stages, ignored, retry)))
    return giveUp();
  // The entries launched outside any candidate (the reference's are):
  // nothing can stand in for them, so they are not tried alone.
  llvm::DenseSet<uint32_t> fixed;
  for (func::FuncOp host : hosts)
    for (auto call : host.getBody().getOps<func::CallOp>())
      if (std::optional<uint32_t> entry = kernels.lookup(call.getCallee()))
        fixed.insert(*entry);
  llvm::DenseMap<uint32_t, std::vector<Diagnostic>> failures;
  forEachCompiledKernel(sources, kernels, [&](func::FuncOp kernel, uint32_t e) {
    if (fixed.contains(e))
      return;
    OwningOpRef<ModuleOp> alone = ModuleOp::create(loc);
    copyKernel(kernel, *alone);
    std::vector<Diagnostic> diagnostics;
    if (failed(lowerKernelsQuietly(*alone, options, stages, diagnostics,
                                   retry)))
      failures[e] = std::move(diagnostics);
  });
  if (failures.empty())
    return giveUp();

  // The candidates that launch a failing kernel, by key.
  llvm::MapVector<std::pair<StringRef, unsigned>, FailedCandidate> failing;
  SmallVector<std::pair<AlternativesOp, SmallVector<bool>>> groups;
  for (func::FuncOp host : hosts)
    for (auto alternatives : host.getBody().getOps<AlternativesOp>()) {
      SmallVector<bool> &keep =
          groups.emplace_back(alternatives, SmallVector<bool>()).second;
      for (auto [i, region] : llvm::enumerate(alternatives.getCandidates())) {
        const std::vector<Diagnostic> *diagnostics = nullptr;
        for (auto call : region.getOps<func::CallOp>()) {
          std::optional<uint32_t> e = kernels.lookup(call.getCallee());
          auto it = e ? failures.find(*e) : failures.end();
          if (it != failures.end()) {
            diagnostics = &it->second;
            break;
          }
        }
        keep.push_back(!diagnostics);
        if (!diagnostics)
          continue;
        FailedCandidate &candidate = failing[{alternatives.getKey(), i}];
        if (candidate.groups++ == 0)
          candidate = {alternatives, static_cast<unsigned>(i),
                       describeCandidate(alternatives, i),
                       firstError(*diagnostics), 1};
      }
    }

  // A group with no candidate left is an error, with each one's.
  bool nothingLeft = false;
  llvm::StringSet<> reported;
  for (auto &[alternatives, keep] : groups) {
    if (llvm::is_contained(keep, true) ||
        !reported.insert(alternatives.getKey()).second)
      continue;
    InFlightDiagnostic error = emitError(alternatives.getLoc())
                               << "no candidate of group '"
                               << alternatives.getKey() << "' compiles";
    for (unsigned i = 0; i < keep.size(); ++i) {
      FailedCandidate &candidate = failing[{alternatives.getKey(), i}];
      error.attachNote(alternatives.getLoc())
          << "candidate " << i << " (" << candidate.label
          << "): " << candidate.error;
    }
    nothingLeft = true;
  }
  if (nothingLeft)
    return failure();

  for (auto &[key, candidate] : failing) {
    InFlightDiagnostic warning = emitWarning(candidate.first.getLoc());
    warning << "candidate " << candidate.index << " (" << candidate.label
            << ") of group '" << key.first
            << "' does not compile and is dropped";
    if (unsigned others = candidate.groups - 1)
      warning << ", here and in the " << others << " other group"
              << (others == 1 ? "" : "s") << " of that key";
    warning << ": " << candidate.error;
  }
  for (auto &[alternatives, keep] : groups)
    if (llvm::is_contained(keep, false))
      keepCandidates(alternatives, keep);
  return success();
}


/// Whether `op` is one the plan runs before outlining: an onnx op other
/// than a constant, or fuse.im2col (outside a group, a kernel of its own).
static bool isPlanComputeOp(Operation *op) {
  return isFuseComputeOp(op) || (isa<ONNXDialect>(op->getDialect()) &&
                                 !op->hasTrait<OpTrait::ConstantLike>());
}

FailureOr<CompileStage> fuse::getModuleStage(ModuleOp module) {
  if (!module.getOps<gpu::GPUModuleOp>().empty() ||
      !module.getOps<LLVM::LLVMFuncOp>().empty())
    return CompileStage::LLVM;
  SmallVector<func::FuncOp> hosts, kernels;
  for (auto func : module.getOps<func::FuncOp>())
    (func->hasAttr("fuse.kernel") ? kernels : hosts).push_back(func);
  if (hosts.empty() && kernels.empty())
    return emitError(module.getLoc(), "the module has no function to compile");
  if (hosts.empty()) {
    // Kernels on tensors would need their host function to be a plan.
    for (func::FuncOp kernel : kernels)
      if (!llvm::all_of(kernel.getArgumentTypes(), llvm::IsaPred<MemRefType>))
        return kernel.emitError()
               << "kernel function on tensors without a host function: the "
                  "IR of stage 'kernels' has both (--emit=kernels)";
    return CompileStage::Loops;
  }
  if (!kernels.empty())
    return CompileStage::Kernels;

  // Fused or as imported: fusion groups and strategies tell them apart.
  bool placed = false, grouped = false;
  Operation *unplaced = nullptr;
  WalkResult walk = module.walk([&](Operation *op) {
    if (isa<ModuleOp, func::FuncOp, func::ReturnOp, fuse::YieldOp,
            AlternativesOp>(op) ||
        op->getParentOfType<GroupOp>())
      return WalkResult::advance();
    Attribute strategy = op->getAttr(kStrategyAttrName);
    if (auto group = dyn_cast<GroupOp>(op)) {
      grouped = true;
      strategy = group.getStrategy() ? *group.getStrategy() : Attribute();
    } else if (!isa<ONNXDialect>(op->getDialect()) && !isFuseComputeOp(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is not an op of any stage fuse-compile goes on "
                         "from: the onnx and fused stages have onnx and fuse "
                         "ops only";
      return WalkResult::interrupt();
    }
    if (strategy)
      placed = true;
    else if (!unplaced && (isa<GroupOp>(op) || isPlanComputeOp(op)))
      unplaced = op;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!placed && !grouped)
    return CompileStage::Imported;
  if (unplaced)
    return unplaced->emitError()
           << "'" << unplaced->getName()
           << "' has no strategy: the IR is fused but not placed (after "
              "fuse-chains, before fuse-select-strategies); give fuse-compile "
              "the IR of --emit=fused, or of --emit=onnx";
  return CompileStage::Fused;
}

/// Whether `strategy` runs on `target`: library calls and the GPU mappings
/// on cuda, the `loop` mapping on the cpu.
static bool runsOn(Attribute strategy, artifact::Target target) {
  auto kernel = dyn_cast<KernelStrategyAttr>(strategy);
  bool cpu = kernel && kernel.getMapping() == Mapping::loop;
  return cpu == (target == artifact::Target::Cpu);
}

/// Checks that the strategies in `module` (IR given at a stage after
/// fusion) are for `target`: they were chosen for one target only.
static LogicalResult checkStrategiesTarget(ModuleOp module,
                                           artifact::Target target) {
  WalkResult walk = module.walk([&](Operation *op) {
    Attribute strategy = op->getAttr(kStrategyAttrName);
    if (auto group = dyn_cast<GroupOp>(op))
      strategy = group.getStrategy() ? *group.getStrategy() : Attribute();
    if (!strategy || runsOn(strategy, target))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName() << "' has strategy " << strategy
                    << ", which runs on "
                    << (target == artifact::Target::Cpu ? "cuda" : "cpu")
                    << ", not on --target="
                    << (target == artifact::Target::Cpu ? "cpu" : "cuda")
                    << ": the IR was compiled for the other target";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// Checks that `options` can go on from `options.startAt`.
static LogicalResult checkStartAt(ModuleOp module,
                                  const CompileOptions &options) {
  CompileStage from = options.startAt, to = options.stopAfter;
  if (to < from)
    return emitError(module.getLoc())
           << "the input is IR of stage '" << getStageName(from)
           << "', past --emit=" << getStageName(to);
  if (from >= CompileStage::Loops && to == CompileStage::Artifact)
    return emitError(module.getLoc())
           << "the input is IR of stage '" << getStageName(from)
           << "', which has the kernels but not the plan: an artifact needs "
              "IR of stage 'kernels' or before";
  if (from == CompileStage::LLVM) {
    bool gpu = !module.getOps<gpu::GPUModuleOp>().empty();
    if (gpu == isCpu(options))
      return emitError(module.getLoc())
             << "the input is LLVM IR for "
             << (gpu ? "cuda (a gpu.module)" : "the cpu")
             << ", not for --target=" << (isCpu(options) ? "cpu" : "cuda");
    return success();
  }
  if (from == CompileStage::Imported)
    return success();
  if (failed(checkStrategiesTarget(module, getArtifactTarget(options))))
    return failure();
  // Strategies chosen for one GPU are not re-chosen for another.
  TargetAttr target = getTarget(module);
  const FusePipelineOptions &pipeline = options.pipeline;
  if (target && !isCpu(options) &&
      (target.getArch() != pipeline.gpuArch ||
       (pipeline.gpuSms != 0 && target.getSms() != pipeline.gpuSms)))
    return emitError(module.getLoc())
           << "the input is IR of stage '" << getStageName(from) << "' for "
           << target.getArch() << " with " << target.getSms()
           << " SMs (its fuse.target), not --gpu-arch=" << pipeline.gpuArch
           << (pipeline.gpuSms != 0
                   ? " --gpu-sms=" + std::to_string(pipeline.gpuSms)
                   : std::string())
           << ": compile the model for that GPU";
  return success();
}

/// The fusion-report pass that `options` ask for.
static std::unique_ptr<Pass> createReportPass(const CompileOptions &options) {
  FusionReportOptions report;
  report.format = *options.fusionReport;
  report.fused = options.pipeline.fuse;
  return fuse::createFusionReport(
      options.fusionReportStream ? *options.fusionReportStream : llvm::errs(),
      report);
}

/// The stages up to --emit=fused: graph simplification, then (after a
/// copy of the model is taken for the reference plan, if it has one)
/// fusion and strategy selection.
static LogicalResult simplifyAndFuse(ModuleOp module,
                                     const CompileOptions &options,
                                     Stages &stages,
                                     OwningOpRef<ModuleOp> &reference) {
  // Shape subgraphs fold away and BatchNorm folds into Conv before
  // anything else, in the reference plan too.
  stages.begin("simplify graph");
  if (failed(stages.runPasses(module,
                              [&](OpPassManager &pm) {
                                pm.nest<func::FuncOp>().addPass(
                                    createSimplifyGraph());
                              })) ||
      failed(checkSimplifiedModel(module)))
    return failure();
  // The model's own precision, before --io-precision changes its edges.
  Precision modelPrecision = getModelPrecision(module);
  if (failed(stages.runPasses(module, [&](OpPassManager &pm) {
        buildFuseInputPipeline(pm, options.pipeline);
      })))
    return failure();

  if (options.reference) {
    int64_t ops = 0;
    module.walk([&](Operation *op) {
      if (isa<ONNXDialect>(op->getDialect()) && !isa<ONNXConstantOp>(op))
        ++ops;
    });
    if (options.maxReferenceKernels > 0 && ops > options.maxReferenceKernels)
      emitWarning(module.getLoc())
          << "no reference plan: the model has " << ops
          << " ops, each of which would be a kernel of its own (more than "
          << options.maxReferenceKernels
          << "); fuse-run --check needs one (--reference-limit=0 compiles "
             "it anyway)";
    else
      reference = module.clone();
  }

  stages.begin("fuse and select strategies");
  return stages.runPasses(module, [&](OpPassManager &pm) {
    buildFuseGraphPipeline(pm, options.pipeline, modelPrecision);
    if (options.fusionReport)
      pm.addPass(createReportPass(options));
  });
}

FailureOr<uint64_t> fuse::compileModel(ModuleOp module,
                                       const CompileOptions &requested,
                                       llvm::raw_ostream &os) {
  if (isCpu(requested) && resolveCpuLevel(requested.cpu) != requested.cpu)
    return emitError(module.getLoc(), "unknown x86-64 levels '")
           << requested.cpu
           << "': expected a comma-separated list of x86-64, x86-64-v2, "
              "x86-64-v3 and x86-64-v4, lowest first";
  // The compile is for the lowest level; the kernels are lowered again
  // for each higher one at the end.
  CompileOptions options = requested;
  SmallVector<std::string> higherLevels;
  if (isCpu(options)) {
    higherLevels = getCpuLevels(requested.cpu);
    options.cpu = higherLevels.front();
    options.pipeline.cpu = options.cpu;
    higherLevels.erase(higherLevels.begin());
  }
  if (std::string wrong = verifyPipelineOptions(options.pipeline);
      !wrong.empty())
    return emitError(module.getLoc()) << wrong;
  if (failed(checkStartAt(module, options)))
    return failure();
  Stages stages(options);
  auto stop = [&](CompileStage stage, Operation *op) {
    if (options.stopAfter != stage)
      return false;
    op->print(os);
    os << "\n";
    return true;
  };
  // Whether the compile has got to the stage after `stage` yet (the input
  // may be IR of a later one).
  auto before = [&](CompileStage stage) { return options.startAt < stage; };
  if (stop(CompileStage::Imported, module))
    return uint64_t(0);

  // The reference is the model before fusion, outlined one op per kernel:
  // only from IR of the onnx stage.
  OwningOpRef<ModuleOp> reference;
  if (before(CompileStage::Fused)) {
    if (failed(simplifyAndFuse(module, options, stages, reference)))
      return failure();
  } else if (options.reference && before(CompileStage::Loops)) {
    emitWarning(module.getLoc())
        << "no reference plan: the input is IR of stage '"
        << getStageName(options.startAt)
        << "', after fusion; fuse-run --check needs one (compile the model, "
           "or IR of stage 'onnx', for it)";
  }
  // Fused IR given: its report, as it is.
  if (options.fusionReport && options.startAt == CompileStage::Fused) {
    stages.begin("fusion report");
    if (failed(stages.runPasses(module, [&](OpPassManager &pm) {
          pm.addPass(createReportPass(options));
        })))
      return failure();
  }
  if (stop(CompileStage::Fused, module))
    return uint64_t(0);

  if (before(CompileStage::Kernels)) {
    stages.begin("outline kernels");
    if (failed(stages.runPasses(module, [](OpPassManager &pm) {
          pm.addPass(createOutlineKernels());
        })))
      return failure();
  }
  // The reference runs fuse's own kernels only: it checks the library
  // calls too.
  if (reference) {
    stages.begin("outline the reference plan");
    if (failed(stages.runPasses(*reference, [&](OpPassManager &pm) {
          SelectStrategiesOptions main =
              getSelectStrategiesOptions(options.pipeline);
          SelectStrategiesOptions select;
          select.target = main.target;
          select.cpuVectorRegisters = main.cpuVectorRegisters;
          select.cpuVectorWidth = main.cpuVectorWidth;
          select.strategy = StrategyPreference::generated;
          if (options.referenceF64)
            pm.nest<func::FuncOp>().addPass(createWidenFloats());
          pm.nest<func::FuncOp>().addPass(createSelectStrategies(select));
          OutlineKernelsOptions outline;
          outline.prefix = "ref_";
          pm.addPass(createOutlineKernels(outline));
        })))
      return failure();
  }
  if (stop(CompileStage::Kernels, module))
    return uint64_t(0);

  if (isCpu(options) && options.stopAfter == CompileStage::Assembly)
    return emitError(module.getLoc(),
                     "there is no PTX stage for the cpu target");

  // IR of stage 'loops' or 'llvm' given: the kernels alone, lowered on
  // from there to the stage printed (checkStartAt: there is no plan).
  if (!before(CompileStage::Loops)) {
    LowerKernels how;
    how.from = options.startAt;
    FailureOr<KernelImage> image = lowerKernels(module, options, stages, how);
    if (failed(image))
      return failure();
    if (stop(CompileStage::Loops, module) || stop(CompileStage::LLVM, module))
      return uint64_t(0);
    os.write(image->ptx.data(), image->ptx.size());
    return uint64_t(0);
  }

  // Plans, from the host functions, and the kernels they launch, on their
  // own; until these compile, with the candidates that do not dropped.
  SmallVector<ModuleOp, 2> sources = {module};
  if (reference)
    sources.push_back(*reference);
  std::optional<Plans> plans;
  OwningOpRef<ModuleOp> kernelModule;
  FailureOr<KernelImage> image = failure();
  for (;;) {
    stages.begin("build plans");
    plans.emplace();
    if (failed(buildPlans(sources, options, *plans)))
      return failure();
    kernelModule = ModuleOp::create(module.getLoc());
    forEachCompiledKernel(sources, plans->kernels,
                          [&](func::FuncOp kernel, uint32_t) {
                            copyKernel(kernel, *kernelModule);
                          });
    std::vector<Diagnostic> diagnostics;
    image = lowerKernelsQuietly(*kernelModule, options, stages, diagnostics);
    if (succeeded(image)) {
      emitHeld(module.getContext(), diagnostics);
      break;
    }
    stages.begin("compile candidates' kernels alone");
    if (failed(dropFailingCandidates(sources, plans->kernels, options, stages,
                                     diagnostics)))
      return failure();
  }
  if (stop(CompileStage::Loops, *kernelModule) ||
      stop(CompileStage::LLVM, *kernelModule))
    return uint64_t(0);
  if (options.stopAfter == CompileStage::Assembly) {
    os.write(image->ptx.data(), image->ptx.size());
    return uint64_t(0);
  }
  artifact::File &artifact = plans->artifact;
  artifact.image.assign(image->image.begin(), image->image.end());
  if (isCpu(options))
    artifact.imageLevel = artifact::cpuLevelNumber(options.cpu);
  // The same kernels for each higher level, tiled for its registers.
  for (const std::string &level : higherLevels) {
    CompileOptions levelOptions = options;
    levelOptions.cpu = level;
    levelOptions.pipeline.cpu = level;
    OwningOpRef<ModuleOp> levelKernels = ModuleOp::create(module.getLoc());
    forEachCompiledKernel(sources, plans->kernels,
                          [&](func::FuncOp kernel, uint32_t) {
                            copyKernel(kernel, *levelKernels);
                          });
    for (auto kernel : levelKernels->getOps<func::FuncOp>())
      retileCpuKernel(kernel, getCpuVectorRegisters(options.cpu),
                      getCpuVectorWidth(options.cpu),
                      getCpuVectorRegisters(level), getCpuVectorWidth(level));
    stages.begin("kernels for " + level);
    LowerKernels how;
    how.announce = false;
    std::vector<Diagnostic> diagnostics;
    FailureOr<KernelImage> levelImage = lowerKernelsQuietly(
        *levelKernels, levelOptions, stages, diagnostics, how);
    // The lowest level's kernels run on that level's hosts too: a level
    // that does not compile is left out, not the artifact.
    if (failed(levelImage)) {
      emitWarning(module.getLoc())
          << "no " << level << " kernels: they do not compile ("
          << firstError(diagnostics) << "); hosts of that level run the "
          << options.cpu << " ones";
      continue;
    }
    emitHeld(module.getContext(), diagnostics);
    artifact.levelImages.push_back(
        {artifact::cpuLevelNumber(level),
         std::vector<uint8_t>(levelImage->image.begin(),
                              levelImage->image.end())});
  }
  artifact.ptx.assign(image->ptx.begin(), image->ptx.end());
  artifact.plan.kernels = plans->kernels.kernels();
  artifact.build.compiler = std::string("fuse ") + fuse::getVersion() +
                            ", commit " + fuse::getCommit() +
                            ", LLVM " LLVM_VERSION_STRING;
  artifact.build.flags = options.flags;
  artifact.weights = plans->weights.pieces();
  // Streamed: the weights go from their blobs (often a mapped external data
  // file) to `os` without another copy in memory.
  stages.begin("write the artifact");
  return artifact::writeFile(artifact, [&](const uint8_t *data, uint64_t size) {
    os.write(reinterpret_cast<const char *>(data), size);
  });
}
