//===- Compiler.cpp - ONNX-imported module to artifact --------------------===//

#include "fuse/Target/Compiler.h"

#include "CodegenInternal.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Target/Plan.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

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

/// Moves the kernel functions of `from` that some plan launches into `to`,
/// public (their callers stay behind); library calls and views have no code
/// and are dropped.
static void moveKernels(ModuleOp from, ModuleOp to,
                        const KernelTable &launched) {
  for (auto func : llvm::make_early_inc_range(from.getOps<func::FuncOp>())) {
    if (!func->hasAttr("fuse.kernel"))
      continue;
    func->remove();
    if (isLibraryKernel(func) || !launched.contains(func.getName())) {
      func->destroy();
      continue;
    }
    func.setPublic();
    to.push_back(func);
  }
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

/// Whether `op` is one the plan runs before outlining: an onnx op other
/// than a constant, or fuse.im2col (outside a group, a kernel of its own).
static bool isPlanComputeOp(Operation *op) {
  return isa<Im2ColOp>(op) || (isa<ONNXDialect>(op->getDialect()) &&
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
    } else if (!isa<ONNXDialect>(op->getDialect()) && !isa<Im2ColOp>(op)) {
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
    if (gpu != (options.target == artifact::Target::Cuda))
      return emitError(module.getLoc())
             << "the input is LLVM IR for "
             << (gpu ? "cuda (a gpu.module)" : "the cpu") << ", not for --target="
             << (options.target == artifact::Target::Cuda ? "cuda" : "cpu");
    return success();
  }
  if (from > CompileStage::Imported)
    return checkStrategiesTarget(module, options.target);
  return success();
}

/// The vector registers of the cpu's x86-64 level: AVX-512 (x86-64-v4)
/// has 32, the lower levels 16.
static int64_t getCpuVectorRegisters(const CompileOptions &options) {
  return options.cpu == "x86-64-v4" ? 32 : 16;
}

/// The target as fuse-select-strategies' option takes it.
static std::string getTargetName(const CompileOptions &options) {
  return options.target == artifact::Target::Cuda ? "cuda" : "cpu";
}

/// The fusion-report pass that `options` ask for.
static std::unique_ptr<Pass> createReportPass(const CompileOptions &options) {
  FusionReportOptions report;
  report.format = options.fusionReport;
  report.fused = options.fuse;
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
  if (failed(stages.runPasses(module, [&](OpPassManager &pm) {
        pm.nest<func::FuncOp>().addPass(createSimplifyGraph());
      })) ||
      failed(checkEmptyTensors(module)) || failed(checkRanks(module)))
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

  bool cpu = options.target == artifact::Target::Cpu;
  bool libraries = !cpu && options.strategy != "generated";
  stages.begin("fuse and select strategies");
  return stages.runPasses(module, [&](OpPassManager &pm) {
    // On the cpu every convolution goes through im2col: the tiled
    // matmul has no padding logic in its inner loop (light ResNet-50
    // 253 -> 187 ms, SqueezeNet 20.3 -> 16.5 ms with --cpu=native).
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
    select.target = getTargetName(options);
    select.cpuVectorRegisters = getCpuVectorRegisters(options);
    select.strategy = options.strategy;
    select.depthwise = options.depthwise;
    select.gpuContractionTile.assign(options.gpuContractionTile.begin(),
                                     options.gpuContractionTile.end());
    select.gpuStagePlanes = options.gpuStagePlanes;
    select.gpuTileContractions = options.gpuTileContractions;
    select.gpuKTile = options.gpuKTile;
    select.candidates = options.candidates.value_or(!cpu);
    pm.nest<func::FuncOp>().addPass(createSelectStrategies(select));
    if (!options.fusionReport.empty())
      pm.addPass(createReportPass(options));
  });
}

FailureOr<uint64_t> fuse::compileModel(ModuleOp module,
                                       const CompileOptions &options,
                                       llvm::raw_ostream &os) {
  if (options.target == artifact::Target::Cpu &&
      resolveCpuLevel(options.cpu) != options.cpu)
    return emitError(module.getLoc(), "unknown x86-64 level '")
           << options.cpu
           << "': expected x86-64, x86-64-v2, x86-64-v3 or x86-64-v4";
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
  if (!options.fusionReport.empty() &&
      options.startAt == CompileStage::Fused) {
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
          SelectStrategiesOptions select;
          select.target = getTargetName(options);
          select.cpuVectorRegisters = getCpuVectorRegisters(options);
          select.strategy = "generated";
          pm.nest<func::FuncOp>().addPass(createSelectStrategies(select));
          OutlineKernelsOptions outline;
          outline.prefix = "ref_";
          pm.addPass(createOutlineKernels(outline));
        })))
      return failure();
  }
  if (stop(CompileStage::Kernels, module))
    return uint64_t(0);

  // Plans, from the host functions.
  artifact::File artifact;
  artifact.target = options.target;
  artifact.arch =
      options.target == artifact::Target::Cuda ? options.cuda.chip : options.cpu;
  WeightTable weights;
  KernelTable kernels;
  // The kernels, on their own: moved out of the plans' modules, or the
  // input itself when it is past them.
  OwningOpRef<ModuleOp> ownedKernels;
  ModuleOp kernelModule = module;
  if (before(CompileStage::Loops)) {
    stages.begin("build plans");
    FailureOr<func::FuncOp> host = getHost(module);
    if (failed(host) || failed(getSignature(*host, artifact.plan.inputs,
                                            artifact.plan.outputs)))
      return failure();
    FailureOr<artifact::PlanDesc> mainPlan =
        buildPlan(*host, "main", weights, kernels, artifact.metadata);
    if (failed(mainPlan))
      return failure();
    artifact.plan.plans.push_back(std::move(*mainPlan));
    if (reference) {
      FailureOr<func::FuncOp> refHost = getHost(*reference);
      if (failed(refHost))
        return failure();
      FailureOr<artifact::PlanDesc> refPlan = buildPlan(
          *refHost, "reference", weights, kernels, artifact.metadata);
      if (failed(refPlan))
        return failure();
      artifact.plan.plans.push_back(std::move(*refPlan));
    }
    ownedKernels = ModuleOp::create(module.getLoc());
    kernelModule = *ownedKernels;
    moveKernels(module, kernelModule, kernels);
    if (reference)
      moveKernels(*reference, kernelModule, kernels);

    stages.begin("lower kernels to loops");
    if (failed(stages.runPasses(kernelModule, buildKernelsToLoopsPipeline,
                                /*perKernel=*/true)))
      return failure();
  }
  if (stop(CompileStage::Loops, kernelModule))
    return uint64_t(0);

  if (options.target == artifact::Target::Cpu) {
    if (before(CompileStage::LLVM)) {
      stages.begin("lower loops to LLVM");
      if (failed(stages.runPasses(kernelModule, buildLoopsToCPUPipeline,
                                  /*perKernel=*/true)))
        return failure();
    }
    if (stop(CompileStage::LLVM, kernelModule))
      return uint64_t(0);
    if (options.stopAfter == CompileStage::Assembly)
      return emitError(module.getLoc(),
                       "there is no PTX stage for the cpu target");
    stages.begin("compile kernels to machine code");
    FailureOr<std::vector<char>> image =
        codegen::compileCpuKernels(kernelModule, options.cpu);
    if (failed(image))
      return failure();
    artifact.image.assign(image->begin(), image->end());
  } else {
    if (before(CompileStage::LLVM)) {
      stages.begin("lower loops to NVVM");
      if (failed(stages.runPasses(kernelModule, [&](OpPassManager &pm) {
            buildLoopsToNVVMPipeline(pm, options.cuda);
          })))
        return failure();
    }
    if (stop(CompileStage::LLVM, kernelModule))
      return uint64_t(0);
    stages.begin(options.stopAfter == CompileStage::Assembly
                     ? "compile kernels to PTX"
                     : "compile kernels to PTX and a cubin");
    FailureOr<codegen::CudaImage> image = codegen::compileCudaKernels(
        kernelModule, options.cudaPath,
        options.stopAfter != CompileStage::Assembly);
    if (failed(image))
      return failure();
    if (options.stopAfter == CompileStage::Assembly) {
      os.write(image->ptx.data(), image->ptx.size());
      return uint64_t(0);
    }
    artifact.image.assign(image->cubin.begin(), image->cubin.end());
    artifact.ptx.assign(image->ptx.begin(), image->ptx.end());
  }
  artifact.plan.kernels = kernels.kernels();
  artifact.weights = weights.pieces();
  // Streamed: the weights go from their blobs (often a mapped external data
  // file) to `os` without another copy in memory.
  stages.begin("write the artifact");
  return artifact::writeFile(artifact, [&](const uint8_t *data, uint64_t size) {
    os.write(reinterpret_cast<const char *>(data), size);
  });
}
