//===- Compiler.cpp - ONNX-imported module to artifact --------------------===//

#include "fuse/Target/Compiler.h"

#include "CodegenInternal.h"
#include "fuse/Target/Plan.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::target;

static LogicalResult
runPasses(ModuleOp module, llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  return pm.run(module);
}

/// The one host function of an imported model.
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

static bool hasNoElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::is_contained(tensor.getShape(), 0);
}

/// What the lowering cannot take of empty tensors (a dim of 0), refused
/// before it: a reduction of an empty tensor (its loop tiling needs a
/// non-empty iteration space) and an output with no elements that a kernel
/// computes (the kernel would have no loop to run).
static LogicalResult checkEmptyTensors(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    // (A reduction of a dynamic result, its axes not constant, is left to
    // the lowering, which asks for static shapes; once they are, graph
    // simplification folds a Reduce* of nothing to its identity.)
    if ((isReductionOp(op) ||
         isa<ONNXSoftmaxOp, ONNXLayerNormalizationOp, ONNXLRNOp,
             ONNXGroupNormalizationOp, ONNXCumSumOp, ONNXCumProdOp,
             ONNXArgMaxOp, ONNXArgMinOp>(op)) &&
        hasNoElements(op->getOperand(0).getType()) &&
        cast<ShapedType>(op->getResult(0).getType()).hasStaticShape()) {
      op->emitError() << "reduces a tensor with no elements ("
                      << op->getOperand(0).getType()
                      << "); empty reductions are not supported";
      return WalkResult::interrupt();
    }
    // A contraction over an empty tensor (a MatMul with K = 0) crashed
    // the kernel-loop tiling. Other ops may take and make empty tensors
    // (a Slice to nothing that a Concat then skips).
    if (isContractionOp(op))
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes()))
        if (hasNoElements(type)) {
          op->emitError() << "'" << op->getName()
                          << "' contracts a tensor with no elements (" << type
                          << "); empty contractions are not supported";
          return WalkResult::interrupt();
        }
    // A constant output (folded) needs no kernel.
    if (isa<func::ReturnOp>(op))
      for (Value operand : op->getOperands())
        if (hasNoElements(operand.getType()) &&
            !operand.getDefiningOp<ONNXConstantOp>()) {
          op->emitError() << "an output with no elements ("
                          << operand.getType() << ") is not supported";
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Tensors the artifact would describe with more dims than the runtime
/// takes (artifact::kMaxRank, the C API's FUSE_MAX_RANK): refused here
/// rather than written into a file the runtime refuses.
static LogicalResult checkRanks(ModuleOp module) {
  auto tooHigh = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getRank() > artifact::kMaxRank;
  };
  for (auto func : module.getOps<func::FuncOp>()) {
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      if (tooHigh(arg.getType())) {
        auto name = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
        return emitError(func.getLoc())
               << "graph input '" << (name ? name.getValue() : StringRef("?"))
               << "' has rank "
               << cast<RankedTensorType>(arg.getType()).getRank()
               << "; fuse's runtime takes tensors of rank at most "
               << artifact::kMaxRank;
      }
    for (Operation &op : func.getBody().getOps())
      for (Type type : op.getResultTypes())
        if (tooHigh(type))
          return op.emitError()
                 << "'" << op.getName() << "' makes a tensor of rank "
                 << cast<RankedTensorType>(type).getRank()
                 << "; fuse's runtime takes tensors of rank at most "
                 << artifact::kMaxRank;
  }
  return success();
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
  artifact.target = options.target;
  artifact.arch = options.target == artifact::Target::Cuda ? options.cuda.chip
                                                           : options.cpu;
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

/// Lowers the kernel functions of `kernels` (a module of them alone)
/// through the stage `options.stopAfter` names, and at the last one
/// compiles them into their image; without `keepPtx`, a cuda image has no
/// PTX (only whether they compile matters).
static FailureOr<KernelImage> lowerKernels(ModuleOp kernels,
                                           const CompileOptions &options,
                                           bool keepPtx = true) {
  CompileStage last = options.stopAfter;
  KernelImage image;
  if (failed(failAsAsked(kernels, options)) ||
      failed(runPasses(kernels, buildKernelsToLoopsPipeline)))
    return failure();
  if (last == CompileStage::Loops)
    return image;
  if (options.target == artifact::Target::Cpu) {
    if (failed(runPasses(kernels, buildLoopsToCPUPipeline)))
      return failure();
    if (last == CompileStage::LLVM)
      return image;
    FailureOr<std::vector<char>> object =
        codegen::compileCpuKernels(kernels, options.cpu);
    if (failed(object))
      return failure();
    image.image = std::move(*object);
    return image;
  }
  if (failed(runPasses(kernels, [&](OpPassManager &pm) {
        buildLoopsToNVVMPipeline(pm, options.cuda);
      })))
    return failure();
  if (last == CompileStage::LLVM)
    return image;
  FailureOr<codegen::CudaImage> cuda = codegen::compileCudaKernels(
      kernels, options.cudaPath, last != CompileStage::Assembly, keepPtx);
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
                    std::vector<Diagnostic> &diagnostics, bool keepPtx = true) {
  ScopedDiagnosticHandler handler(kernels.getContext(), [&](Diagnostic &diag) {
    diagnostics.push_back(std::move(diag));
    return success();
  });
  return lowerKernels(kernels, options, keepPtx);
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
  if (failed(lowerKernelsQuietly(*none, options, ignored, false)))
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
    if (failed(lowerKernelsQuietly(*alone, options, diagnostics, false)))
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

FailureOr<uint64_t> fuse::compileModel(ModuleOp module,
                                       const CompileOptions &options,
                                       llvm::raw_ostream &os) {
  if (options.target == artifact::Target::Cpu &&
      resolveCpuLevel(options.cpu) != options.cpu)
    return emitError(module.getLoc(), "unknown x86-64 level '")
           << options.cpu
           << "': expected x86-64, x86-64-v2, x86-64-v3 or x86-64-v4";
  auto stop = [&](CompileStage stage, Operation *op) {
    if (options.stopAfter != stage)
      return false;
    op->print(os);
    os << "\n";
    return true;
  };
  if (stop(CompileStage::Imported, module))
    return uint64_t(0);

  // Shape subgraphs fold away and BatchNorm folds into Conv before
  // anything else, in the reference plan too.
  if (failed(runPasses(module, [&](OpPassManager &pm) {
        pm.nest<func::FuncOp>().addPass(createSimplifyGraph());
      })) ||
      failed(checkEmptyTensors(module)) || failed(checkRanks(module)))
    return failure();

  // The reference is the model before fusion, outlined one op per kernel.
  OwningOpRef<ModuleOp> reference;
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

  std::string target =
      options.target == artifact::Target::Cuda ? "cuda" : "cpu";
  // AVX-512 (x86-64-v4) has 32 vector registers, the lower levels 16.
  int64_t cpuVectorRegisters = options.cpu == "x86-64-v4" ? 32 : 16;
  bool libraries = options.target == artifact::Target::Cuda &&
                   options.strategy != "generated";
  if (failed(runPasses(module, [&](OpPassManager &pm) {
        // On the cpu every convolution goes through im2col: the tiled
        // matmul has no padding logic in its inner loop (light ResNet-50
        // 253 -> 187 ms, SqueezeNet 20.3 -> 16.5 ms with --cpu=native).
        bool cpu = options.target == artifact::Target::Cpu;
        if (options.conv == "gemm" ||
            (options.conv == "auto" && (libraries || cpu))) {
          ConvsToMatmulsOptions convs;
          if (options.conv == "gemm" || cpu)
            convs.maxColumns = 0;
          pm.nest<func::FuncOp>().addPass(createConvsToMatmuls(convs));
        }
        if (options.fuse)
          pm.nest<func::FuncOp>().addPass(createFuseChains());
        SelectStrategiesOptions select;
        select.target = target;
        select.cpuVectorRegisters = cpuVectorRegisters;
        select.strategy = options.strategy;
        select.depthwise = options.depthwise;
        select.gpuContractionTile.assign(options.gpuContractionTile.begin(),
                                         options.gpuContractionTile.end());
        select.gpuStagePlanes = options.gpuStagePlanes;
        select.gpuTileContractions = options.gpuTileContractions;
        select.gpuKTile = options.gpuKTile;
        select.gpuStages = options.gpuStages;
        select.candidates = options.candidates.value_or(
            options.target == artifact::Target::Cuda);
        pm.nest<func::FuncOp>().addPass(createSelectStrategies(select));
        if (options.fusionReport)
          pm.addPass(createFusionReport());
      })))
    return failure();
  if (stop(CompileStage::Fused, module))
    return uint64_t(0);

  if (failed(runPasses(module, [](OpPassManager &pm) {
        pm.addPass(createOutlineKernels());
      })))
    return failure();
  // The reference runs fuse's own kernels only: it checks the library
  // calls too.
  if (reference && failed(runPasses(*reference, [&](OpPassManager &pm) {
        SelectStrategiesOptions select;
        select.target = target;
        select.cpuVectorRegisters = cpuVectorRegisters;
        select.strategy = "generated";
        pm.nest<func::FuncOp>().addPass(createSelectStrategies(select));
        OutlineKernelsOptions outline;
        outline.prefix = "ref_";
        pm.addPass(createOutlineKernels(outline));
      })))
    return failure();
  if (stop(CompileStage::Kernels, module))
    return uint64_t(0);

  if (options.target == artifact::Target::Cpu &&
      options.stopAfter == CompileStage::Assembly)
    return emitError(module.getLoc(),
                     "there is no PTX stage for the cpu target");

  // Plans, from the host functions, and the kernels they launch, on their
  // own; until these compile, with the candidates that do not dropped.
  SmallVector<ModuleOp, 2> sources = {module};
  if (reference)
    sources.push_back(*reference);
  std::optional<Plans> plans;
  OwningOpRef<ModuleOp> kernelModule;
  FailureOr<KernelImage> image = failure();
  for (;;) {
    plans.emplace();
    if (failed(buildPlans(sources, options, *plans)))
      return failure();
    kernelModule = ModuleOp::create(module.getLoc());
    forEachCompiledKernel(sources, plans->kernels,
                          [&](func::FuncOp kernel, uint32_t) {
                            copyKernel(kernel, *kernelModule);
                          });
    std::vector<Diagnostic> diagnostics;
    image = lowerKernelsQuietly(*kernelModule, options, diagnostics);
    if (succeeded(image)) {
      emitHeld(module.getContext(), diagnostics);
      break;
    }
    if (failed(dropFailingCandidates(sources, plans->kernels, options,
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
  artifact.ptx.assign(image->ptx.begin(), image->ptx.end());
  artifact.plan.kernels = plans->kernels.kernels();
  artifact.weights = plans->weights.pieces();
  // Streamed: the weights go from their blobs (often a mapped external data
  // file) to `os` without another copy in memory.
  return artifact::writeFile(artifact, [&](const uint8_t *data, uint64_t size) {
    os.write(reinterpret_cast<const char *>(data), size);
  });
}
