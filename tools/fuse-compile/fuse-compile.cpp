//===- fuse-compile.cpp - ONNX model to a fused binary artifact ----------===//
//
//   fuse-compile model.onnx -o model.fbin [--target=cuda|cpu] [--no-fuse]
//   fuse-compile model.fused.mlir -o model.fbin    # goes on from a stage
//
// Imports the model, fuses it, lowers every group to one kernel and writes
// an artifact that fuse-run (or the runtime's C API) executes. Given MLIR
// that --emit printed (or that is like it), it goes on from that stage.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Import/ModelDiagnostics.h"
#include "fuse/Import/ONNXImporter.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Target/Compiler.h"
#include "fuse/Version.h"

#include "Progress.h"
#include "StreamedOutputFile.h"
#include "Tuner.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace llvm;

static cl::OptionCategory compileCategory("fuse-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.onnx or .mlir>"),
                                          cl::Required,
                                          cl::cat(compileCategory));
static cl::opt<std::string>
    outputFilename("o",
                   cl::desc("Output file (default: the model's name with "
                            ".fbin, or stdout for --emit stages)"),
                   cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<fuse::artifact::Target>
    target("target", cl::desc("What the artifact runs on"),
           cl::init(fuse::artifact::Target::Cuda),
           cl::values(clEnumValN(fuse::artifact::Target::Cuda, "cuda",
                                 "NVIDIA GPU: cubin for --gpu-arch, plus PTX "
                                 "(default)"),
                      clEnumValN(fuse::artifact::Target::Cpu, "cpu",
                                 "x86-64 host code (a shared object)")),
           cl::cat(compileCategory));
static cl::opt<std::string> gpuArch("gpu-arch",
                                    cl::desc("GPU architecture for cuda"),
                                    cl::init("sm_90"),
                                    cl::cat(compileCategory));
static cl::opt<int64_t> gpuSms(
    "gpu-sms",
    cl::desc("Streaming multiprocessors of the GPU the kernels' grids are "
             "sized for (default: the --gpu-arch's usual part: sm_80 108, "
             "sm_86 84, sm_89 58, sm_90 132)"),
    cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> cpuLevel(
    "cpu",
    cl::desc("x86-64 levels to compile the cpu kernels for, comma-separated: "
             "x86-64 (any x86-64, SSE2), x86-64-v2 (SSE4.2), x86-64-v3 "
             "(AVX2, FMA), x86-64-v4 (AVX-512), native (the highest level of "
             "this machine). The artifact holds each level's kernels and "
             "fuse-run loads the highest the host has; it runs on machines "
             "of the lowest level or above (default: x86-64,x86-64-v3)"),
    cl::init(fuse::CompileOptions().cpu), cl::cat(compileCategory));
static cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit root, for ptxas and libdevice (default: "
                      "$CUDA_HOME, else /usr/local/cuda)"),
             cl::cat(compileCategory));
static cl::opt<bool> noFuse("no-fuse",
                            cl::desc("Compile one kernel per op (the "
                                     "baseline fusion is measured against)"),
                            cl::cat(compileCategory));
static cl::opt<bool> noAttentionKernel(
    "no-attention-kernel",
    cl::desc("Leave attention chains (MatMul, scale, mask, Softmax, MatMul) "
             "as their ops instead of one fused attention kernel each"),
    cl::cat(compileCategory));
static cl::opt<bool> noFusedProjections(
    "no-fused-projections",
    cl::desc("Keep an attention's Q, K and V projections three MatMuls "
             "instead of one over their weights side by side"),
    cl::cat(compileCategory));
static cl::opt<bool> noIndexChecks(
    "no-index-checks",
    cl::desc("Do not check at run time that Gather, GatherElements and "
             "GatherND indices are in range: an index out of range is then "
             "clamped into it, without an error (saves a small reduction "
             "kernel per such op)"),
    cl::cat(compileCategory));
static cl::opt<bool> reference(
    "reference",
    cl::desc("Also compile the model unfused, one kernel per op and in f64, "
             "as plan 'reference', which fuse-run --check compares the "
             "main plan against (about doubles the compile and the "
             "artifact's kernels)"),
    cl::cat(compileCategory));
// The default since the reference plan became opt-in; scripts still pass
// it.
static cl::opt<bool>
    noReference("no-reference",
                cl::desc("Leave out the reference plan (the default)"),
                cl::Hidden, cl::cat(compileCategory));
static cl::opt<int64_t> referenceLimit(
    "reference-limit",
    cl::desc("Leave out the reference plan, with a warning, when the model "
             "has more ops than this (each is a kernel of its own); 0: no "
             "limit"),
    cl::init(1024), cl::cat(compileCategory));
static cl::opt<bool> referenceF64(
    "reference-f64",
    cl::desc("Compute the reference plan's float tensors in f64, so that "
             "fuse-run --check measures the main plan's rounding error "
             "(default; =false: in the model's own types)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<std::string> fusionReport(
    "fusion-report", cl::ValueOptional,
    cl::desc("Print the fusion groups (how each runs, what they save, their "
             "candidates) and the ops left alone with the reason each did "
             "not join a group, to stderr or --fusion-report-file: as text "
             "(--fusion-report, =text), JSON (=json) or a Graphviz graph "
             "(=dot)"),
    cl::value_desc("text|json|dot"), cl::cat(compileCategory));
static cl::opt<std::string> fusionReportFile(
    "fusion-report-file",
    cl::desc("Write the fusion report to this file instead of stderr "
             "(implies --fusion-report, as text unless it says otherwise)"),
    cl::value_desc("file"), cl::cat(compileCategory));
/// --precision's values: a precision, or auto (the model's own).
static cl::opt<fuse::PrecisionChoice> precisionFlag(
    "precision",
    cl::desc("The precision groups compute in (docs/precision.md). Kernels "
             "always compute in f32 registers; this says how values are "
             "stored between kernels and how contractions multiply"),
    cl::init(fuse::PrecisionChoice::model),
    cl::values(
        clEnumValN(fuse::PrecisionChoice::model, "auto",
                   "the model's own: fp16 or bf16 for a model that holds "
                   "tensors of that type, else fp32 (default)"),
        clEnumValN(fuse::PrecisionChoice::fp32, "fp32",
                   "f32 values and products, no tensor cores"),
        clEnumValN(fuse::PrecisionChoice::tf32, "tf32",
                   "f32 values, contractions on TF32 tensor cores"),
        clEnumValN(fuse::PrecisionChoice::fp16, "fp16",
                   "fp16 weights and values between kernels, contractions "
                   "on fp16 tensor cores with f32 sums"),
        clEnumValN(fuse::PrecisionChoice::bf16, "bf16",
                   "bf16 weights and values, contractions on bf16 tensor "
                   "cores with f32 sums")),
    cl::cat(compileCategory));
/// --io-precision's values: a float type, or model (Auto: the model's own).
static cl::opt<fuse::PrecisionChoice> ioPrecisionFlag(
    "io-precision",
    cl::desc("The element type of the model's float inputs and outputs "
             "(integer and boolean ones keep theirs); casts at the edges "
             "run inside the first and last kernels"),
    cl::init(fuse::PrecisionChoice::model),
    cl::values(clEnumValN(fuse::PrecisionChoice::model, "model",
                          "the types the ONNX model declares (default)"),
               clEnumValN(fuse::PrecisionChoice::fp32, "fp32", "float32"),
               clEnumValN(fuse::PrecisionChoice::fp16, "fp16", "float16"),
               clEnumValN(fuse::PrecisionChoice::bf16, "bf16", "bfloat16")),
    cl::cat(compileCategory));
static cl::list<std::string> keepFp32(
    "keep-fp32",
    cl::desc("Keep the groups of nodes whose names match these patterns "
             "('*' for any characters; comma-separated, or the flag "
             "repeated) in fp32 under --precision"),
    cl::value_desc("pattern"), cl::CommaSeparated, cl::cat(compileCategory));
static cl::opt<std::string> strategy(
    "strategy",
    cl::desc("How groups run: auto (default: cuBLASLt and cuDNN for the "
             "contractions they compute, on cuda; kernels generated by fuse "
             "for the rest), generated (fuse's kernels only: the baseline, "
             "and for machines without the libraries), library (the "
             "libraries wherever they can compute a group)"),
    cl::init("auto"), cl::cat(compileCategory));
static cl::opt<std::string> depthwise(
    "depthwise",
    cl::desc("Depthwise convolutions under --strategy=auto: kernel (fuse's "
             "own, with the whole epilogue fused; default) or library "
             "(cuDNN)"),
    cl::init("kernel"), cl::cat(compileCategory));
static cl::opt<std::string> conv(
    "conv",
    cl::desc("How convolutions of one group run: auto (default: on cuda "
             "with libraries, as im2col and a cuBLASLt matmul when they have "
             "at most 4096 output positions, N*H*W, or at least 256 "
             "filters, directly otherwise, and in fp16, bf16 or tf32 as "
             "nhwc-direct; on "
             "cpu always as im2col and fuse's tiled matmul; else directly), "
             "direct (always a convolution: cuDNN or fuse's kernel), gemm "
             "(always im2col and a matmul, on either target), nhwc (always "
             "a matmul over NHWC activations kept NHWC between "
             "convolutions, except next to grouped ones), nhwc-direct "
             "(NHWC activations as nhwc, but only 1x1 convolutions of "
             "stride 1 as matmuls: the others are NHWC convolutions, cuDNN "
             "or fuse's kernel)"),
    cl::init("auto"), cl::cat(compileCategory));
static cl::list<int64_t> gpuContractionTile(
    "gpu-contraction-tile",
    cl::desc("Outputs per thread of fuse's contraction kernels on cuda, "
             "rows,columns (default 4,2; each a power of two up to 16; "
             "shrunk where the output is small): for measurements"),
    cl::CommaSeparated, cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> gpuTileContractions(
    "gpu-tile-contractions",
    cl::desc("Generated MatMul and Gemm kernels on cuda in block and thread "
             "tiles with their operands staged in shared memory (default "
             "true; false: a thread tile each, flat): for measurements"),
    cl::init(true), cl::Hidden, cl::cat(compileCategory));
static cl::opt<int64_t> gpuKTile(
    "gpu-k-tile",
    cl::desc("Reduction iterations a tiled contraction block stages at a "
             "time (default 16; 0 stages nothing): for measurements"),
    cl::init(16), cl::Hidden, cl::cat(compileCategory));
static cl::opt<int64_t> gpuStages(
    "gpu-stages",
    cl::desc("Chunks of the reduction a tiled contraction block has in "
             "flight (default 2: the next one is loaded into registers "
             "while one computes; 1 waits for each; 2 or 3 shared buffers "
             "with --gpu-async-copy): for measurements"),
    cl::init(2), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> gpuAsyncCopy(
    "gpu-async-copy",
    cl::desc("Tiled contraction blocks copy operand chunks to shared memory "
             "with asynchronous copies (cp.async; sm_80 and later) instead "
             "of through registers: for measurements"),
    cl::init(false), cl::Hidden, cl::cat(compileCategory));
static cl::opt<int64_t> splitK(
    "split-k",
    cl::desc("Split-K of fuse's matmul kernels (f32): 0 (default) the "
             "heuristic: on cuda, a matmul whose tiles would give each "
             "thread few outputs (at most 8) or leave SMs idle is cut into "
             "2 to 16 slices of its reduction, computed by one "
             "kernel and added up, with the epilogue, by a second (a "
             "candidate beside a library call; the pick without one); 1 "
             "never; 2, 4, 8 or 16: that many slices wherever they divide "
             "the reduction, on either target"),
    cl::init(0), cl::cat(compileCategory));
static cl::opt<bool> candidates(
    "candidates",
    cl::desc("Compile every applicable strategy of each contraction group "
             "in (the library call, up to three tilings of fuse's kernel), "
             "the heuristic's pick selected, for fuse-tune to measure "
             "(default: true on cuda, false on cpu)"),
    cl::cat(compileCategory));
static cl::opt<bool> tune(
    "tune",
    cl::desc("After writing the artifact, time each choice's candidates on "
             "this machine's device and keep the fastest, as fuse-tune does "
             "(needs the target's device: an NVIDIA GPU for cuda)"),
    cl::cat(compileCategory));
static cl::opt<std::string> tuneCache(
    "tune-cache",
    cl::desc("With --tune: a timing cache file (JSON), read and updated, "
             "as fuse-tune --cache"),
    cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<bool> gpuStagePlanes(
    "gpu-stage-planes",
    cl::desc("Stage the input planes of depthwise convolutions and poolings "
             "in shared memory on cuda (default true): for measurements"),
    cl::init(true), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> gpuTransposeTiles(
    "gpu-transpose-tiles",
    cl::desc("Run Transposes (with the elementwise ops around them) in "
             "tiles through shared memory on cuda (default true): for "
             "measurements"),
    cl::init(true), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> gpuMmaContractions(
    "gpu-mma-contractions",
    cl::desc("Run generated MatMul and Gemm kernels of f16 or bf16 groups on "
             "tensor cores (the `mma` mapping) on sm_80 and later (default "
             "true): for measurements"),
    cl::init(true), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> mmaOverLibrary(
    "mma-over-library",
    cl::desc("Select the tensor-core kernel over the library call where both "
             "apply (default false): for measurements"),
    cl::init(false), cl::Hidden, cl::cat(compileCategory));
static cl::opt<int64_t> gpuMmaSplitK(
    "gpu-mma-split-k",
    cl::desc("Blocks of a cluster (sm_90 and later) that split a tensor-core "
             "kernel's reduction: 1, 2, 4 or 8 (default 0: fuse's choice): "
             "for measurements"),
    cl::init(0), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> showProgress(
    "progress",
    cl::desc("Show on stderr what a compile longer than a second is doing: "
             "its stage and, while the kernels are lowered, how many are "
             "through (default: when stderr is a terminal; "
             "--progress=false: never)"),
    cl::cat(compileCategory));
static cl::opt<unsigned> progressInterval(
    "progress-interval",
    cl::desc("Milliseconds before the first progress report, and in a log "
             "the least time between two reports of one stage (default "
             "1000; 0 reports everything): for tests"),
    cl::init(1000), cl::Hidden, cl::cat(compileCategory));
static cl::list<std::string> testFailStrategy(
    "test-fail-strategy",
    cl::desc("For tests: generated kernels with this strategy, as "
             "--fusion-report names it ('kernel loop tile 4x8'), fail to "
             "compile, as a kernel ptxas rejects does (repeatable)"),
    cl::value_desc("strategy"), cl::Hidden, cl::cat(compileCategory));
static cl::opt<bool> testSerialSums(
    "test-serial-sums",
    cl::desc("For tests: long sums stay one serial chain of additions (no "
             "fuse-block-accumulations), a lowering that loses precision, "
             "which fuse-run --check must catch"),
    cl::Hidden, cl::cat(compileCategory));
static cl::opt<fuse::CompileStage> emit(
    "emit", cl::desc("Stop after a stage and print it"),
    cl::init(fuse::CompileStage::Artifact),
    cl::values(clEnumValN(fuse::CompileStage::Imported, "onnx",
                          "the onnx dialect, as imported"),
               clEnumValN(fuse::CompileStage::Fused, "fused",
                          "after fuse-chains and fuse-select-strategies "
                          "(each group with its strategy)"),
               clEnumValN(fuse::CompileStage::Kernels, "kernels",
                          "the plan and one function per kernel"),
               clEnumValN(fuse::CompileStage::Loops, "loops",
                          "kernels as loops on buffers"),
               clEnumValN(fuse::CompileStage::LLVM, "llvm",
                          "kernels in the LLVM dialect (cpu) or NVVM (cuda)"),
               clEnumValN(fuse::CompileStage::Assembly, "ptx",
                          "PTX of the kernels (cuda)"),
               clEnumValN(fuse::CompileStage::Artifact, "artifact",
                          "the .fbin file (default)")),
    cl::cat(compileCategory));

/// Whether the input is MLIR (text or bytecode) rather than an ONNX model:
/// by its extension, or by how it starts (bytecode's magic number, or text
/// that starts as --emit prints a module; ONNX text starts with `<` or a
/// graph name, and may have `# ...` comments).
static bool isMLIRInput(StringRef path, StringRef contents) {
  if (path.ends_with(".mlir") || path.ends_with(".mlirbc") ||
      contents.starts_with("ML\xefR"))
    return true;
  StringRef text = contents.ltrim();
  while (text.starts_with("//"))
    text = text.drop_until([](char c) { return c == '\n'; }).ltrim();
  if (text.consume_front("module") || text.consume_front("builtin.module"))
    return text.ltrim().starts_with("{") || text.ltrim().starts_with("@") ||
           text.ltrim().starts_with("attributes");
  if (text.starts_with("func.func"))
    return true;
  // An alias definition (`#map = affine_map<...>`), not a comment.
  if (text.consume_front("#") || text.consume_front("!")) {
    StringRef name = text.take_while(
        [](char c) { return isAlnum(c) || c == '_' || c == '.'; });
    return !name.empty() && text.drop_front(name.size()).ltrim().starts_with(
                                "=");
  }
  return false;
}

/// The flags recorded in the artifact (CompileOptions::flags): the
/// arguments as given (response files expanded), less those that do not
/// change the artifact: the model's file name, the output's (-o), and the
/// options that only print (progress, the fusion report, MLIR's
/// --mlir-timing, IR printing and the like, LLVM's statistics and debug
/// output). A value given as the next argument is joined to its option
/// (`--strategy=generated`), and an argument with a space or a shell
/// character in it is single-quoted, as a shell would need it.
static std::string getRecordedFlags(int argc, char **argv) {
  static const llvm::StringSet<> printingOnly = {"o",
                                                 "progress",
                                                 "progress-interval",
                                                 "fusion-report",
                                                 "fusion-report-file",
                                                 "tune-cache",
                                                 "time-passes",
                                                 "print-options",
                                                 "print-all-options",
                                                 "info-output-file",
                                                 "stats",
                                                 "stats-json",
                                                 "debug",
                                                 "debug-only",
                                                 "color",
                                                 "print-after-all",
                                                 "print-before-all"};
  BumpPtrAllocator allocator;
  SmallVector<const char *> args(argv, argv + argc);
  cl::ExpansionContext expansion(allocator, cl::TokenizeGNUCommandLine);
  if (Error error = expansion.expandResponseFiles(args))
    consumeError(std::move(error)); // Parsing has reported it already.
  auto &registered = cl::getRegisteredOptions();
  std::string flags;
  auto append = [&](StringRef arg) {
    if (!flags.empty())
      flags += ' ';
    if (!arg.empty() &&
        arg.find_first_of(" \t\n'\"\\$`*?;&|<>()[]{}~#!") == StringRef::npos) {
      flags += arg;
      return;
    }
    flags += '\'';
    for (char c : arg)
      flags += c == '\'' ? std::string("'\\''") : std::string(1, c);
    flags += '\'';
  };
  for (size_t i = 1; i < args.size(); ++i) {
    StringRef arg = args[i];
    // After `--` every argument is positional: the model's file name.
    if (arg == "--")
      break;
    // The model's file name, the one positional argument.
    if (!arg.starts_with("-") || arg == "-")
      continue;
    StringRef name = arg.ltrim('-').split('=').first;
    cl::Option *option = registered.lookup(name);
    bool valueFollows = !arg.contains('=') && option &&
                        option->getValueExpectedFlag() == cl::ValueRequired &&
                        i + 1 < args.size();
    bool recorded = !name.starts_with("mlir-") && !printingOnly.contains(name);
    if (recorded)
      append(valueFollows ? (arg + "=" + args[i + 1]).str() : arg.str());
    if (valueFollows)
      ++i;
  }
  return flags;
}

static std::string defaultCudaPath() {
  // An empty CUDA_HOME is unset, as shells treat it.
  if (std::optional<std::string> home = sys::Process::GetEnv("CUDA_HOME");
      home && !home->empty())
    return *home;
  return "/usr/local/cuda";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  fuse::registerImportCLOptions();
  // Passes by name, for --mlir-print-ir-after=NAME and the like.
  fuse::registerCompilerPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << fuse::getVersionLine("fuse-compile") << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
  // --help lists fuse's options; --help-hidden adds LLVM's and MLIR's
  // (cl::HideUnrelatedOptions would hide them from --help-hidden too).
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &compileCategory) &&
        !llvm::is_contained(option->Categories, &fuse::getImportCLCategory()) &&
        name != "help" && name != "help-hidden" && name != "version" &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fuse-compile: compile an ONNX model into a fused binary artifact\n\n"
      "  fuse-compile model.onnx -o model.fbin                # cuda, sm_90\n"
      "  fuse-compile model.onnx -o model.fbin --target=cpu\n"
      "  fuse-compile model.onnx --emit=kernels              # inspect a "
      "stage\n"
      "  fuse-compile model.fused.mlir -o model.fbin         # go on from "
      "one\n\n"
      "  Every fusion group becomes one kernel; ops outside groups get a\n"
      "  kernel each. Run the result with fuse-run. MLIR input (.mlir, as\n"
      "  --emit prints it) goes on from its stage. --help-hidden also\n"
      "  lists LLVM's and MLIR's options; MLIR's pass-manager options act\n"
      "  on every stage (--mlir-timing, --mlir-pass-statistics,\n"
      "  --mlir-print-ir-after-all, ...).\n");

  // An option given twice, or one the target does not use, is a mistake
  // to report, not one to resolve silently (the last one won; a cuda
  // option was ignored on the cpu).
  bool cpuTarget = target == fuse::artifact::Target::Cpu;
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    if (!llvm::is_contained(option->Categories, &compileCategory) &&
        !llvm::is_contained(option->Categories, &fuse::getImportCLCategory()))
      continue;
    std::string spelled = (name.size() == 1 ? "-" : "--") + name.str();
    if (option->getNumOccurrencesFlag() == cl::Optional &&
        option->getNumOccurrences() > 1) {
      errs() << "fuse-compile: " << spelled << " is given "
             << option->getNumOccurrences() << " times\n";
      return 2;
    }
    // The cpu target's kernels are all generated: --strategy=generated
    // (or auto) says what it does anyway; a library is cuda's.
    bool libraryValue = (name == "strategy" && strategy == "library") ||
                        (name == "depthwise" && depthwise == "library");
    if (libraryValue)
      spelled += "=library";
    bool cudaOnly = name.starts_with("gpu-") || name == "cuda-path" ||
                    name == "mma-over-library" || libraryValue;
    bool cpuOnly = name == "cpu";
    if (option->getNumOccurrences() && (cpuTarget ? cudaOnly : cpuOnly)) {
      errs() << "fuse-compile: " << spelled
             << " is for --target=" << (cpuTarget ? "cuda" : "cpu")
             << ", and this compile is for "
             << "--target=" << (cpuTarget ? "cpu" : "cuda") << "\n";
      return 2;
    }
  }
  std::optional<fuse::StrategyPreference> strategyValue =
      fuse::symbolizeStrategyPreference(strategy);
  if (!strategyValue) {
    errs() << "fuse-compile: --strategy must be auto, generated or library, "
              "not '"
           << strategy << "'\n";
    return 2;
  }
  std::optional<fuse::DepthwiseImpl> depthwiseValue =
      fuse::symbolizeDepthwiseImpl(depthwise);
  if (!depthwiseValue) {
    errs() << "fuse-compile: --depthwise must be library or kernel, not '"
           << depthwise << "'\n";
    return 2;
  }
  std::optional<fuse::ReportFormat> reportFormat;
  if (fusionReport.getNumOccurrences() || !fusionReportFile.empty()) {
    reportFormat = fusionReport.empty()
                       ? std::optional(fuse::ReportFormat::text)
                       : fuse::symbolizeReportFormat(fusionReport.getValue());
    if (!reportFormat) {
      errs() << "fuse-compile: --fusion-report must be text, json or dot, "
                "not '"
             << fusionReport << "'\n";
      return 2;
    }
  }
  std::optional<fuse::ConvMode> convValue = fuse::symbolizeConvMode(conv);
  if (!convValue) {
    errs() << "fuse-compile: --conv must be auto, direct, gemm, nhwc or "
              "nhwc-direct, not '"
           << conv << "'\n";
    return 2;
  }
  // An architecture name NVVM and ptxas take: sm_ and a number, with an
  // optional suffix letter (sm_90a). Checked here: an empty one crashed
  // NVVM's verifier, and others gave a dozen errors blaming ptxas.
  {
    unsigned version = fuse::getChipVersion(gpuArch);
    if (version < 50) {
      errs() << "fuse-compile: --gpu-arch must be an NVIDIA architecture "
                "such as sm_90 (sm_50 or later), not '"
             << gpuArch << "'\n";
      return 2;
    }
    if (gpuAsyncCopy && version < 80) {
      errs() << "fuse-compile: --gpu-async-copy needs sm_80 or later (cp.async), "
                "not --gpu-arch="
             << gpuArch << "\n";
      return 2;
    }
  }
  std::optional<std::string> level = fuse::resolveCpuLevel(cpuLevel);
  if (!level) {
    errs() << "fuse-compile: --cpu must be a comma-separated list of "
              "x86-64, x86-64-v2, x86-64-v3, x86-64-v4 and native, not '"
           << cpuLevel << "'\n";
    return 2;
  }
  if (emit == fuse::CompileStage::Assembly &&
      target != fuse::artifact::Target::Cuda) {
    errs() << "fuse-compile: --emit=ptx needs --target=cuda\n";
    return 2;
  }
  FailureOr<fuse::ImportOptions> importOptions = fuse::getImportOptionsFromCL();
  if (failed(importOptions))
    return 1;
  if (std::string why = fuse::checkModelFile(inputFilename); !why.empty()) {
    errs() << "fuse-compile: " << why << "\n";
    return 1;
  }
  bool toArtifact = emit == fuse::CompileStage::Artifact;
  std::string output = outputFilename;
  if (output.empty())
    output = toArtifact ? sys::path::stem(inputFilename).str() + ".fbin" : "-";
  // No output may be a file this run reads: checked before any work, and
  // again once the import has found the external data.
  std::vector<std::string> filesRead;
  importOptions->filesRead = &filesRead;
  auto outputsAreNotInputs = [&] {
    std::vector<fuse::tools::InputFile> inputs = {{"the model", inputFilename}};
    for (const auto &[name, path] : importOptions->inputValues)
      inputs.push_back({"the --input-value of " + name, path});
    for (const std::string &path : filesRead)
      inputs.push_back({"the model's external data", path});
    if (!tuneCache.empty())
      inputs.push_back({"the --tune-cache", tuneCache});
    for (const std::string &path : {output, fusionReportFile.getValue()})
      if (std::string why = fuse::tools::checkNotAnInput(path, inputs);
          !why.empty()) {
        errs() << "fuse-compile: " << why << "\n";
        return false;
      }
    if (!fusionReportFile.empty() && output != "-" &&
        (fusionReportFile == output ||
         !fuse::tools::checkNotAnInput(fusionReportFile, {{"-o", output}})
              .empty())) {
      errs() << "fuse-compile: --fusion-report-file and -o name the same "
                "file, '"
             << output << "'\n";
      return false;
    }
    return true;
  };
  if (!outputsAreNotInputs())
    return 1;
  std::string error;
  std::unique_ptr<MemoryBuffer> file = openInputFile(inputFilename, &error);
  if (!file) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
  }
  bool mlirInput = isMLIRInput(inputFilename, file->getBuffer());
  if (mlirInput)
    for (auto &[name, option] : cl::getRegisteredOptions())
      if (option->getNumOccurrences() &&
          llvm::is_contained(option->Categories,
                             &fuse::getImportCLCategory())) {
        errs() << "fuse-compile: --" << name
               << " is for ONNX models, and '" << inputFilename
               << "' is MLIR\n";
        return 2;
      }

  DialectRegistry registry;
  fuse::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the node; dumping the IR around them is for
  // compiler developers (fuse-opt shows it).
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(file->getBuffer(), inputFilename, false),
      SMLoc());
  fuse::ModelDiagnosticHandler diagnostics(sourceMgr, &context);
  // Tests and logs stay as they were: progress only on a terminal, or when
  // asked for.
  std::optional<fuse::Progress> progress;
  bool terminal = sys::Process::StandardErrIsDisplayed();
  if (showProgress.getNumOccurrences() ? showProgress : terminal)
    progress.emplace(terminal,
                     std::chrono::milliseconds(progressInterval.getValue()));
  // A diagnostic is printed on a line of its own, not after the progress
  // line (the handler declines it, so the one above prints it).
  ScopedDiagnosticHandler clearProgress(&context, [&](Diagnostic &) {
    if (progress)
      progress->clear();
    return failure();
  });
  // --mlir-timing: the import and every stage of the compile, in one report
  // printed (to stderr) when `timing` goes out of scope.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();

  // MLIR goes on from the stage it is at.
  StringRef readStage = mlirInput ? "read the MLIR" : "import the model";
  TimingScope importTiming = rootTiming.nest(readStage);
  if (progress)
    progress->update(readStage, 0, 0);
  OwningOpRef<ModuleOp> module;
  fuse::CompileStage startAt = fuse::CompileStage::Imported;
  if (mlirInput) {
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
    if (!module)
      return 1;
    FailureOr<fuse::CompileStage> stage = fuse::getModuleStage(*module);
    if (failed(stage))
      return 1;
    startAt = *stage;
  } else {
    module = fuse::importONNXModel(file->getBuffer(), inputFilename, &context,
                                   *importOptions);
    if (!module)
      return 1;
    if (!outputsAreNotInputs())
      return 1;
  }
  importTiming.stop();

  fuse::CompileOptions options;
  fuse::FusePipelineOptions &pipeline = options.pipeline;
  pipeline.target = target == fuse::artifact::Target::Cpu
                        ? fuse::KernelTarget::cpu
                        : fuse::KernelTarget::cuda;
  pipeline.gpuArch = gpuArch;
  pipeline.gpuSms = gpuSms;
  options.cpu = *level;
  options.cudaPath = cudaPath.empty() ? defaultCudaPath() : cudaPath.getValue();
  pipeline.fuse = !noFuse;
  pipeline.attentionKernel = !noAttentionKernel;
  pipeline.fusedProjections = !noFusedProjections;
  pipeline.indexChecks = !noIndexChecks;
  if (reference && noReference) {
    errs() << "fuse-compile: --reference and --no-reference contradict each "
              "other\n";
    return 1;
  }
  options.reference = reference;
  if (referenceLimit < 0) {
    errs() << "fuse-compile: --reference-limit must not be negative\n";
    return 1;
  }
  options.maxReferenceKernels = referenceLimit;
  options.referenceF64 = referenceF64;
  options.fusionReport = reportFormat;
  std::optional<fuse::tools::StreamedOutputFile> reportFile;
  if (!fusionReportFile.empty()) {
    reportFile.emplace();
    if (!reportFile->open(fusionReportFile, error)) {
      errs() << "fuse-compile: " << error << "\n";
      return 1;
    }
    options.fusionReportStream = &reportFile->os();
  }
  pipeline.precision = precisionFlag;
  pipeline.ioPrecision = ioPrecisionFlag;
  pipeline.keepFp32.assign(keepFp32.begin(), keepFp32.end());
  pipeline.strategy = *strategyValue;
  pipeline.depthwise = *depthwiseValue;
  pipeline.gpuContractionTile.assign(gpuContractionTile.begin(),
                                     gpuContractionTile.end());
  pipeline.gpuStagePlanes = gpuStagePlanes;
  pipeline.gpuTransposeTiles = gpuTransposeTiles;
  pipeline.gpuMmaContractions = gpuMmaContractions;
  pipeline.mmaOverLibrary = mmaOverLibrary;
  pipeline.gpuMmaSplitK = gpuMmaSplitK;
  pipeline.gpuTileContractions = gpuTileContractions;
  pipeline.gpuKTile = gpuKTile;
  pipeline.gpuStages = gpuStages;
  pipeline.gpuAsyncCopy = gpuAsyncCopy;
  pipeline.splitK = splitK;
  if (candidates.getNumOccurrences())
    pipeline.candidates = candidates ? fuse::Toggle::on : fuse::Toggle::off;
  pipeline.conv = *convValue;
  pipeline.cpu = fuse::getCpuLevels(*level).front();
  if (std::string wrong = fuse::verifyPipelineOptions(pipeline);
      !wrong.empty()) {
    errs() << "fuse-compile: --" << wrong << "\n";
    return 1;
  }
  options.stopAfter = emit;
  options.startAt = startAt;
  options.configurePassManager = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  options.timing = &rootTiming;
  if (progress)
    options.progress = [&](StringRef stage, int64_t done, int64_t kernels) {
      progress->update(stage, done, kernels);
    };
  options.flags = getRecordedFlags(argc, argv);
  options.serialSums = testSerialSums;
  options.failingStrategies.assign(testFailStrategy.begin(),
                                   testFailStrategy.end());

  if (!tuneCache.empty() && !tune) {
    errs() << "fuse-compile: --tune-cache needs --tune\n";
    return 1;
  }
  if (tune && (!toArtifact || output == "-")) {
    errs() << "fuse-compile: --tune needs an artifact written to a file "
              "(not --emit, not -o -)\n";
    return 1;
  }
  // The old file stays until the new one is complete.
  fuse::tools::StreamedOutputFile out;
  if (!out.open(output, error)) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
  }
  FailureOr<uint64_t> bytes = fuse::compileModel(*module, options, out.os());
  if (progress)
    progress->finish();
  // Kept even if the compile failed: the report is written by then.
  if (reportFile && !reportFile->commit(error)) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
  }
  if (failed(bytes))
    return 1;
  // A write that failed (a full disk, /dev/full) is an error here, not
  // "wrote ..." and then an abort when the stream closes.
  if (!out.commit(error)) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
  }
  if (toArtifact) {
    errs() << "fuse-compile: wrote " << output << " (" << *bytes << " bytes, "
           << (target == fuse::artifact::Target::Cuda
                   ? "cuda " + gpuArch.getValue()
                   : "cpu " + options.cpu)
           << ")\n";
  }
  if (tune) {
    // Committed: the tuner reads it back and replaces it.
    errs() << "fuse-compile: tuning " << output
           << " on this machine's device\n";
    fuserun::TuneOptions tuning;
    tuning.model = output;
    tuning.cache = tuneCache;
    return fuserun::tuneArtifact(tuning);
  }
  return 0;
}
