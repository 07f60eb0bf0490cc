//===- Passes.td - fuse's whole pipeline as one pass -------*- tablegen -*-===//

#ifndef FUSE_PIPELINES_PASSES_TD
#define FUSE_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusePipeline : Pass<"fuse-pipeline", "mlir::ModuleOp"> {
  let summary = "fuse-compile's passes, from an imported model to a stage";
  let description = [{
    Runs what fuse-compile runs on an imported model (IR of stage `onnx`)
    up to `stage`, so that `fuse-opt --fuse-pipeline='...'` prints the IR
    that `fuse-compile --emit=<stage>` prints with the same options. Its
    options are fuse-compile's, by the same names, and fuse-compile and the
    Python package fill the same options struct (`FusePipelineOptions`)
    from their flags and arguments.

    The stages are sub-pipelines built by the functions of
    `fuse/Pipelines/Pipelines.h`, which fuse-compile runs one by one
    (timing each, taking the reference plan's copy between them):

    1. `fuse-simplify-graph`;
    2. the input stage: `fuse-set-target` (cuda: `gpu-arch`, `gpu-sms`),
       `fuse-set-io-types` (with `io-precision`) and
       `fuse-insert-index-checks` (with `index-checks`);
    3. the graph stage: `fuse-widen-floats` (a model that holds half
       precision tensors), `fuse-raise-attention`, `fuse-convs-to-matmuls`,
       `fuse-chains`, `fuse-apply-precision`, `cse` and
       `fuse-select-strategies`, each with the options these imply;
    4. for `stage=kernels`, `fuse-outline-kernels`.

    The graph stage depends on the precision of the model as imported
    (what `precision=model` means, and whether a half model is widened), so
    this pass reads it from the module after step 1 and builds the rest
    then; fuse-compile does the same.

    A pass option given a bad value (a `gpu-k-tile` of 1000) is an error
    naming the option.
  }];
  let options = [
    Option<"stage", "stage", "::fuse::PipelineStage",
           "::fuse::PipelineStage::fused", "Where to stop",
           [{::llvm::cl::values(
             clEnumValN(::fuse::PipelineStage::fused, "fused",
                        "after fusion and strategy selection "
                        "(fuse-compile --emit=fused)"),
             clEnumValN(::fuse::PipelineStage::kernels, "kernels",
                        "host plan and kernel functions "
                        "(fuse-compile --emit=kernels)"))}]>,
    Option<"target", "target", "::fuse::KernelTarget",
           "::fuse::KernelTarget::cuda", "What the kernels run on",
           [{::llvm::cl::values(
             clEnumValN(::fuse::KernelTarget::cuda, "cuda", "CUDA GPUs"),
             clEnumValN(::fuse::KernelTarget::cpu, "cpu", "the host"))}]>,
    Option<"gpuArch", "gpu-arch", "std::string", "\"sm_90\"",
           "The GPU architecture (sm_80: tensor cores, sm_90: clusters)">,
    Option<"gpuSms", "gpu-sms", "int64_t", "0",
           "The GPU's streaming multiprocessors, which kernels' grids are "
           "sized by (0: the architecture's usual count; fuse-set-target)">,
    Option<"cpu", "cpu", "std::string", "\"x86-64\"",
           "The x86-64 level whose vector registers cpu kernels are tiled "
           "for (x86-64, x86-64-v2, x86-64-v3, x86-64-v4)">,
    Option<"fuse", "fuse", "bool", "true", "Fuse chains into groups">,
    Option<"attentionKernel", "attention-kernel", "bool", "true",
           "Raise attention chains to one kernel each">,
    Option<"fusedProjections", "fused-projections", "bool", "true",
           "Q, K and V projected from one input by one MatMul">,
    Option<"indexChecks", "index-checks", "bool", "true",
           "Check gathered indices at run time">,
    Option<"precision", "precision", "::fuse::PrecisionChoice",
           "::fuse::PrecisionChoice::model",
           "The precision groups compute in (docs/precision.md)",
           [{::llvm::cl::values(
             clEnumValN(::fuse::PrecisionChoice::model, "auto",
                        "the model's own: fp16 or bf16 for a model that "
                        "holds tensors of that type, else fp32"),
             clEnumValN(::fuse::PrecisionChoice::fp32, "fp32",
                        "f32 values and products"),
             clEnumValN(::fuse::PrecisionChoice::tf32, "tf32",
                        "contractions on TF32 tensor cores"),
             clEnumValN(::fuse::PrecisionChoice::fp16, "fp16",
                        "fp16 values between kernels and contractions"),
             clEnumValN(::fuse::PrecisionChoice::bf16, "bf16",
                        "bf16 values between kernels and contractions"))}]>,
    Option<"ioPrecision", "io-precision", "::fuse::PrecisionChoice",
           "::fuse::PrecisionChoice::model",
           "The element type of the model's float inputs and outputs",
           [{::llvm::cl::values(
             clEnumValN(::fuse::PrecisionChoice::model, "model",
                        "the types the model declares"),
             clEnumValN(::fuse::PrecisionChoice::fp32, "fp32", "float32"),
             clEnumValN(::fuse::PrecisionChoice::fp16, "fp16", "float16"),
             clEnumValN(::fuse::PrecisionChoice::bf16, "bf16",
                        "bfloat16"))}]>,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "Node-name patterns whose groups stay fp32">,
    Option<"strategy", "strategy", "::fuse::StrategyPreference",
           "::fuse::StrategyPreference::automatic",
           "Where contractions run when a library could take them",
           [{::llvm::cl::values(
             clEnumValN(::fuse::StrategyPreference::automatic, "auto",
                        "libraries where they apply and are faster"),
             clEnumValN(::fuse::StrategyPreference::generated, "generated",
                        "fuse's kernels only"),
             clEnumValN(::fuse::StrategyPreference::library, "library",
                        "libraries wherever they can"))}]>,
    Option<"depthwise", "depthwise", "::fuse::DepthwiseImpl",
           "::fuse::DepthwiseImpl::kernel",
           "Depthwise convolutions (one input channel per group)",
           [{::llvm::cl::values(
             clEnumValN(::fuse::DepthwiseImpl::kernel, "kernel",
                        "fuse's, with the whole epilogue fused"),
             clEnumValN(::fuse::DepthwiseImpl::library, "library",
                        "cuDNN"))}]>,
    Option<"conv", "conv", "::fuse::ConvMode", "::fuse::ConvMode::automatic",
           "Which convolutions become im2col and a matmul, in which layout",
           [{::llvm::cl::values(
             clEnumValN(::fuse::ConvMode::automatic, "auto",
                        "fuse's choice for the target and precision"),
             clEnumValN(::fuse::ConvMode::direct, "direct", "none"),
             clEnumValN(::fuse::ConvMode::gemm, "gemm", "all"),
             clEnumValN(::fuse::ConvMode::nhwc, "nhwc",
                        "all, over NHWC activations"),
             clEnumValN(::fuse::ConvMode::nhwc_direct, "nhwc-direct",
                        "NHWC activations, 1x1 convolutions as matmuls"))}]>,
    ListOption<"gpuContractionTile", "gpu-contraction-tile", "int64_t",
               "The thread tile (rows, columns) of generated contractions">,
    Option<"gpuTileContractions", "gpu-tile-contractions", "bool", "true",
           "Generated contractions as tiled kernels">,
    Option<"gpuKTile", "gpu-k-tile", "int64_t", "16",
           "Reduction steps a tiled contraction stages at a time (0 to 256)">,
    Option<"gpuStages", "gpu-stages", "int64_t", "2",
           "Shared buffers of a tiled contraction (1 or 2; 2 or 3 with "
           "gpu-async-copy)">,
    Option<"gpuAsyncCopy", "gpu-async-copy", "bool", "false",
           "Tiled contractions stage operands with cp.async">,
    Option<"gpuStagePlanes", "gpu-stage-planes", "bool", "true",
           "Windowed ops over planes in shared memory">,
    Option<"gpuTransposeTiles", "gpu-transpose-tiles", "bool", "true",
           "Transposes through shared-memory tiles">,
    Option<"gpuMmaContractions", "gpu-mma-contractions", "bool", "true",
           "Half-precision contractions on tensor cores (sm_80 and later)">,
    Option<"mmaOverLibrary", "mma-over-library", "bool", "false",
           "Select the mma kernel over the library call">,
    Option<"gpuMmaSplitK", "gpu-mma-split-k", "int64_t", "0",
           "mma kernels' reduction split in a cluster (0: fuse's choice, 1: "
           "never, 2, 4 or 8)">,
    Option<"splitK", "split-k", "int64_t", "0",
           "Split-K slices of long f32 reductions (0: the heuristic, 1: "
           "never, 2, 4, 8 or 16)">,
    Option<"candidates", "candidates", "::fuse::Toggle",
           "::fuse::Toggle::automatic",
           "Contraction groups carry every strategy as candidates for "
           "fuse-tune",
           [{::llvm::cl::values(
             clEnumValN(::fuse::Toggle::automatic, "auto",
                        "on cuda yes, on cpu no"),
             clEnumValN(::fuse::Toggle::on, "true", "yes"),
             clEnumValN(::fuse::Toggle::off, "false", "no"))}]>,
  ];
}

#endif // FUSE_PIPELINES_PASSES_TD
