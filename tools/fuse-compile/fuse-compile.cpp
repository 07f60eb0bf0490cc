//===- fuse-compile.cpp - ONNX model to a fused binary artifact ----------===//
//
//   fuse-compile model.onnx -o model.fbin [--target=cuda|cpu] [--no-fuse]
//
// Imports the model, fuses it, lowers every group to one kernel and writes
// an artifact that fuse-run (or the runtime's C API) executes.
//
//===----------------------------------------------------------------------===//

#include "fuse/Import/ONNXImporter.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Target/Compiler.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace llvm;

static cl::OptionCategory compileCategory("fuse-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.onnx>"),
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
static cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit root, for ptxas and libdevice (default: "
                      "$CUDA_HOME, else /usr/local/cuda)"),
             cl::cat(compileCategory));
static cl::opt<bool> noFuse("no-fuse",
                            cl::desc("Compile one kernel per op (the "
                                     "baseline fusion is measured against)"),
                            cl::cat(compileCategory));
static cl::opt<bool> noReference(
    "no-reference",
    cl::desc("Leave out the unfused reference plan that fuse-run --check "
             "compares against"),
    cl::cat(compileCategory));
static cl::opt<bool>
    fusionReport("fusion-report",
                 cl::desc("Print the fusion groups and what they save"),
                 cl::cat(compileCategory));
static cl::opt<fuse::CompileStage> emit(
    "emit", cl::desc("Stop after a stage and print it"),
    cl::init(fuse::CompileStage::Artifact),
    cl::values(clEnumValN(fuse::CompileStage::Imported, "onnx",
                          "the onnx dialect, as imported"),
               clEnumValN(fuse::CompileStage::Fused, "fused",
                          "after fuse-chains"),
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

static std::string defaultCudaPath() {
  if (std::optional<std::string> home = sys::Process::GetEnv("CUDA_HOME"))
    return *home;
  return "/usr/local/cuda";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  fuse::registerImportCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
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
      "stage\n\n"
      "  Every fusion group becomes one kernel; ops outside groups get a\n"
      "  kernel each. Run the result with fuse-run. --help-hidden also\n"
      "  lists LLVM's and MLIR's options (e.g. --mlir-print-ir-after-all).\n");

  if (emit == fuse::CompileStage::Assembly &&
      target != fuse::artifact::Target::Cuda) {
    errs() << "fuse-compile: --emit=ptx needs --target=cuda\n";
    return 2;
  }
  FailureOr<fuse::ImportOptions> importOptions = fuse::getImportOptionsFromCL();
  if (failed(importOptions))
    return 1;
  std::string error;
  std::unique_ptr<MemoryBuffer> file = openInputFile(inputFilename, &error);
  if (!file) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
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
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = fuse::importONNXModel(
      file->getBuffer(), inputFilename, &context, *importOptions);
  if (!module)
    return 1;

  fuse::CompileOptions options;
  options.target = target;
  options.cuda.chip = gpuArch;
  options.cudaPath = cudaPath.empty() ? defaultCudaPath() : cudaPath.getValue();
  options.fuse = !noFuse;
  options.reference = !noReference;
  options.fusionReport = fusionReport;
  options.stopAfter = emit;

  bool toArtifact = emit == fuse::CompileStage::Artifact;
  std::string output = outputFilename;
  if (output.empty())
    output = toArtifact ? sys::path::stem(inputFilename).str() + ".fbin" : "-";
  std::unique_ptr<ToolOutputFile> out = openOutputFile(output, &error);
  if (!out) {
    errs() << "fuse-compile: " << error << "\n";
    return 1;
  }
  FailureOr<std::vector<char>> bytes =
      fuse::compileModel(*module, options, out->os());
  if (failed(bytes))
    return 1;
  if (toArtifact) {
    out->os().write(bytes->data(), bytes->size());
    errs() << "fuse-compile: wrote " << output << " (" << bytes->size()
           << " bytes, "
           << (target == fuse::artifact::Target::Cuda
                   ? "cuda " + gpuArch.getValue()
                   : std::string("cpu x86-64"))
           << ")\n";
  }
  out->keep();
  return 0;
}
