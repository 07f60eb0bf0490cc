//===- FusePipeline.cpp - fuse-compile's stages before lowering -----------===//
//
// The builders of the stages from an imported model to fusion groups with
// strategies, and the fuse-pipeline pass that runs them (fuse-opt).
// fuse-compile (lib/Target/Compiler.cpp) runs the same builders.
//
//===----------------------------------------------------------------------===//

#include "fuse/Pipelines/Pipelines.h"

#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"
#include "fuse/runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MathExtras.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEPIPELINE
#include "fuse/Pipelines/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

std::optional<Precision> fuse::getPrecision(PrecisionChoice choice) {
  switch (choice) {
  case PrecisionChoice::model:
    return std::nullopt;
  case PrecisionChoice::fp32:
    return Precision::fp32;
  case PrecisionChoice::tf32:
    return Precision::tf32;
  case PrecisionChoice::fp16:
    return Precision::fp16;
  case PrecisionChoice::bf16:
    return Precision::bf16;
  }
  return std::nullopt;
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
          op->emitError() << "an output with no elements (" << operand.getType()
                          << ") is not supported";
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

LogicalResult fuse::checkSimplifiedModel(ModuleOp module) {
  WalkResult stage = module.walk<WalkOrder::PreOrder>([](Operation *op) {
    if (!isa<FuseDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "': fuse's pipeline takes a model as imported (onnx "
                       "ops), not IR of a later stage";
    return WalkResult::interrupt();
  });
  if (stage.wasInterrupted())
    return failure();
  return failure(failed(checkEmptyTensors(module)) ||
                 failed(checkRanks(module)));
}

PrecisionChoice fuse::getPrecisionChoice(Precision precision) {
  switch (precision) {
  case Precision::fp32:
    return PrecisionChoice::fp32;
  case Precision::tf32:
    return PrecisionChoice::tf32;
  case Precision::fp16:
    return PrecisionChoice::fp16;
  case Precision::bf16:
    return PrecisionChoice::bf16;
  }
  return PrecisionChoice::fp32;
}

std::string fuse::verifyPipelineOptions(const FusePipelineOptions &options) {
  if (options.ioPrecision == PrecisionChoice::tf32)
    return "io-precision must be model, fp32, fp16 or bf16";
  if (options.cpu != "x86-64" && options.cpu != "x86-64-v2" &&
      options.cpu != "x86-64-v3" && options.cpu != "x86-64-v4")
    return "cpu must be one of x86-64, x86-64-v2, x86-64-v3 and x86-64-v4";
  if (options.target == KernelTarget::cuda &&
      getChipVersion(options.gpuArch) < 50)
    return "gpu-arch must be an NVIDIA architecture from sm_50 on, such as "
           "sm_80 or sm_90";
  if (options.target == KernelTarget::cuda && options.gpuAsyncCopy &&
      getChipVersion(options.gpuArch) < 80)
    return "gpu-async-copy needs sm_80 or later (cp.async)";
  if (options.gpuSms < 0 || options.gpuSms > kMaxTargetSms)
    return "gpu-sms must be from 1 to " + std::to_string(kMaxTargetSms) +
           " (0: the architecture's), not " + std::to_string(options.gpuSms);
  if (!options.gpuContractionTile.empty() &&
      !isGpuContractionTile(options.gpuContractionTile))
    return "gpu-contraction-tile must be two powers of two from 1 to 16, "
           "rows,columns, of at most 128 outputs";
  if (options.gpuMmaSplitK != 0 && !isMmaSplitK(options.gpuMmaSplitK))
    return "gpu-mma-split-k must be 0 (fuse's choice), 1 (never), 2, 4 or 8";
  if (options.gpuKTile < 0 || options.gpuKTile > 256)
    return "gpu-k-tile must be from 0 to 256";
  if (!isGpuStages(options.gpuStages, options.gpuAsyncCopy))
    return "gpu-stages must be 1 or 2 (2 or 3 with --gpu-async-copy)";
  if (!isSplitK(options.splitK))
    return "split-k must be 0 (the heuristic), 1 (never), 2, 4, 8 or 16";
  return "";
}

Precision fuse::getModelPrecision(ModuleOp module) {
  bool f16 = false, bf16 = false;
  auto look = [&](Type type) {
    Type element = getElementTypeOrSelf(type);
    f16 |= element.isF16();
    bf16 |= element.isBF16();
  };
  module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      look(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          look(arg.getType());
  });
  return f16 ? Precision::fp16 : bf16 ? Precision::bf16 : Precision::fp32;
}

int64_t fuse::getCpuVectorRegisters(StringRef level) {
  return level == "x86-64-v4" ? 32 : 16;
}

int64_t fuse::getCpuVectorWidth(StringRef level) {
  if (level == "x86-64-v4")
    return 16;
  return level == "x86-64-v3" ? 8 : 4;
}

SelectStrategiesOptions
fuse::getSelectStrategiesOptions(const FusePipelineOptions &options) {
  bool cpu = options.target == KernelTarget::cpu;
  // (Tensor cores and clusters: from the module's fuse.target, which the
  // input stage sets from gpu-arch.)
  SelectStrategiesOptions select;
  select.target = options.target;
  select.cpuVectorRegisters = getCpuVectorRegisters(options.cpu);
  select.cpuVectorWidth = getCpuVectorWidth(options.cpu);
  select.strategy = options.strategy;
  select.depthwise = options.depthwise;
  select.gpuContractionTile = options.gpuContractionTile;
  select.gpuStagePlanes = options.gpuStagePlanes;
  select.gpuTransposeTiles = options.gpuTransposeTiles;
  select.gpuMmaContractions = options.gpuMmaContractions;
  select.mmaOverLibrary = options.mmaOverLibrary;
  select.gpuTileContractions = options.gpuTileContractions;
  select.gpuKTile = options.gpuKTile;
  select.gpuStages = options.gpuStages;
  select.gpuAsyncCopy = options.gpuAsyncCopy;
  select.gpuMmaSplitK = options.gpuMmaSplitK;
  select.splitK = options.splitK;
  select.candidates = options.candidates == Toggle::automatic
                          ? !cpu
                          : options.candidates == Toggle::on;
  return select;
}

void fuse::buildFuseInputPipeline(OpPassManager &pm,
                                  const FusePipelineOptions &options) {
  // The GPU's size, read by fuse-select-strategies (in the reference plan
  // too).
  if (options.target == KernelTarget::cuda) {
    SetTargetOptions target;
    target.gpuArch = options.gpuArch;
    target.gpuSms = options.gpuSms;
    pm.addPass(createSetTarget(target));
  }
  // Both plans exchange the same types: the edges change before fuse-compile
  // takes the reference plan's copy.
  if (std::optional<Precision> io = getPrecision(options.ioPrecision)) {
    SetIOTypesOptions types;
    types.type = *io;
    pm.nest<func::FuncOp>().addPass(createSetIOTypes(types));
  }
  // After constants fold (constant indices are checked at import), before
  // the reference plan is taken: both plans check.
  if (options.indexChecks)
    pm.nest<func::FuncOp>().addPass(createInsertIndexChecks());
}

void fuse::buildFuseGraphPipeline(OpPassManager &pm,
                                  const FusePipelineOptions &options,
                                  Precision modelPrecision) {
  OpPassManager &graph = pm.nest<func::FuncOp>();
  bool cpu = options.target == KernelTarget::cpu;
  bool libraries = !cpu && options.strategy != StrategyPreference::generated;
  std::optional<Precision> asked = getPrecision(options.precision);
  Precision precision = asked.value_or(modelPrecision);
  // A model exported in half precision computes in f32 like any other;
  // the precision policy then decides what is stored in half precision.
  if (modelPrecision != Precision::fp32) {
    WidenFloatsOptions widen;
    widen.toF32 = true;
    graph.addPass(createWidenFloats(widen));
  }
  // Attention chains become one op, one kernel (after the reference plan
  // is taken: the reference computes them op by op).
  if (options.fuse && options.attentionKernel) {
    RaiseAttentionOptions attention;
    attention.fuseProjections = options.fusedProjections;
    graph.addPass(createRaiseAttention(attention));
  }
  // On the cpu every convolution goes through im2col: the tiled matmul has
  // no padding logic in its inner loop (light ResNet-50 253 -> 187 ms,
  // SqueezeNet 20.3 -> 16.5 ms with --cpu=native).
  ConvMode conv = options.conv;
  bool nhwcDirect = conv == ConvMode::nhwc_direct;
  bool autoConv = conv == ConvMode::automatic;
  if (conv == ConvMode::gemm || conv == ConvMode::nhwc || nhwcDirect ||
      (autoConv && (libraries || cpu))) {
    ConvsToMatmulsOptions convs;
    if (!autoConv || cpu)
      convs.maxColumns = 0;
    // Half-precision matrices: rows of 8 elements are 16 bytes, and aligned
    // 1x1 convolutions run faster as matmuls than on cuDNN's NCHW kernels;
    // on cuda NHWC activations let each convolution be one matmul with the
    // batch in its rows.
    bool half = precision == Precision::fp16 || precision == Precision::bf16;
    if (half) {
      convs.rowAlignment = 8;
      convs.pointwise = !cpu;
    }
    // On tensor cores (half precision, TF32) NHWC activations, with the
    // windowed convolutions cuDNN NHWC calls (onnx.NhwcConv) rather than
    // im2col and a matmul: ResNet-50 at batch 32 on the H200 fp16 1.61 ->
    // 1.09 ms, tf32 4.31 -> 3.10 ms. In fp32 NCHW stays faster (8.64 against
    // 9.25 ms; docs/models.md).
    bool autoNhwc =
        autoConv && libraries && (half || precision == Precision::tf32);
    convs.channelsLast = conv == ConvMode::nhwc || nhwcDirect || autoNhwc;
    convs.directWindows = nhwcDirect || autoNhwc;
    // cuDNN's half-precision NHWC kernels for 3 input channels (an RGB
    // image) are slower than for 4 (docs/precision.md).
    if (half && convs.directWindows)
      convs.minChannels = 4;
    // An RGB stem next to a depthwise convolution (MobileNetV2's) runs
    // faster NHWC in fp16 on cuDNN's 4-channel kernels, slower in bf16
    // (docs/models.md).
    convs.inputChannelsLast =
        precision == Precision::fp16 && convs.directWindows;
    graph.addPass(createConvsToMatmuls(convs));
  }
  if (options.fuse)
    graph.addPass(createFuseChains());
  if (precision != Precision::fp32) {
    ApplyPrecisionOptions policy;
    policy.precision = precision;
    policy.keepFp32 = options.keepFp32;
    // Without a precision asked for, a model in half precision keeps its
    // types.
    policy.modelTypes = !asked;
    graph.addPass(createApplyPrecision(policy));
  }
  // Equal groups (and ops) on equal operands become one kernel: a
  // transformer's layers each compute the same attention mask from the
  // model's input. After fusion, so that an op two groups would each take
  // in stays in both.
  if (options.fuse)
    graph.addPass(createCSEPass());
  graph.addPass(createSelectStrategies(getSelectStrategiesOptions(options)));
}

namespace {
struct FusePipelinePass
    : public fuse::impl::FusePipelineBase<FusePipelinePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    // Every pass the dynamic pipeline may run, for either kind of model.
    for (Precision model : {Precision::fp32, Precision::fp16}) {
      OpPassManager pm(ModuleOp::getOperationName());
      pm.nest<func::FuncOp>().addPass(createSimplifyGraph());
      buildStages(pm, model);
      pm.getDependentDialects(registry);
    }
  }

  /// Values out of range are errors where the pipeline is parsed.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Base::initializeOptions(options, errorHandler)))
      return failure();
    if (std::string wrong = verifyPipelineOptions(collectOptions());
        !wrong.empty())
      return errorHandler("fuse-pipeline: " + wrong);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpPassManager simplify(ModuleOp::getOperationName());
    simplify.nest<func::FuncOp>().addPass(createSimplifyGraph());
    if (failed(runPipeline(simplify, module)) ||
        failed(checkSimplifiedModel(module)))
      return signalPassFailure();
    // The model's own precision, before io-precision changes its edges.
    OpPassManager rest(ModuleOp::getOperationName());
    buildStages(rest, getModelPrecision(module));
    if (failed(runPipeline(rest, module)))
      return signalPassFailure();
  }

private:
  FusePipelineOptions collectOptions() const {
    FusePipelineOptions options;
    options.stage = stage;
    options.target = target;
    options.gpuArch = gpuArch;
    options.gpuSms = gpuSms;
    options.cpu = cpu;
    options.fuse = fuse;
    options.attentionKernel = attentionKernel;
    options.fusedProjections = fusedProjections;
    options.indexChecks = indexChecks;
    options.precision = precision;
    options.ioPrecision = ioPrecision;
    options.keepFp32.assign(keepFp32.begin(), keepFp32.end());
    options.strategy = strategy;
    options.depthwise = depthwise;
    options.conv = conv;
    options.gpuContractionTile.assign(gpuContractionTile.begin(),
                                      gpuContractionTile.end());
    options.gpuTileContractions = gpuTileContractions;
    options.gpuKTile = gpuKTile;
    options.gpuStages = gpuStages;
    options.gpuAsyncCopy = gpuAsyncCopy;
    options.gpuStagePlanes = gpuStagePlanes;
    options.gpuTransposeTiles = gpuTransposeTiles;
    options.gpuMmaContractions = gpuMmaContractions;
    options.mmaOverLibrary = mmaOverLibrary;
    options.gpuMmaSplitK = gpuMmaSplitK;
    options.splitK = splitK;
    options.candidates = candidates;
    return options;
  }

  /// The stages after fuse-simplify-graph, up to `stage`.
  void buildStages(OpPassManager &pm, Precision modelPrecision) const {
    FusePipelineOptions options = collectOptions();
    buildFuseInputPipeline(pm, options);
    buildFuseGraphPipeline(pm, options, modelPrecision);
    if (options.stage == PipelineStage::kernels)
      pm.addPass(createOutlineKernels());
  }
};
} // namespace
