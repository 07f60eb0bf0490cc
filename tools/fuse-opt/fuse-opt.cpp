//===- fuse-opt.cpp - fuse's mlir-opt -------------------------------------===//
//
// mlir-opt with fuse's dialects and passes. The input may also be an ONNX
// model (`.onnx`, or `.onnxtxt` in ONNX text syntax): it is imported first,
// with the importer's options (`--input-shape`), and the passes run on the
// result.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Import/ModelDiagnostics.h"
#include "fuse/Import/ONNXImporter.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Version.h"

#include "StreamedOutputFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static bool isONNXFile(llvm::StringRef path) {
  return path.ends_with(".onnx") || path.ends_with(".onnxtxt") ||
         path.ends_with(".onnxtext");
}

/// Imports the model at `path` and returns it as MLIR text, locations
/// included, for MlirOptMain to parse; `filesRead` receives the files the
/// import read besides the model. Null after reporting an error.
static std::unique_ptr<llvm::MemoryBuffer>
importToBuffer(llvm::StringRef path, const llvm::MemoryBuffer &file,
               DialectRegistry &registry, std::vector<std::string> &filesRead) {
  FailureOr<fuse::ImportOptions> options = fuse::getImportOptionsFromCL();
  if (failed(options))
    return nullptr;
  options->filesRead = &filesRead;
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(file.getBuffer(), path,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  fuse::ModelDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      fuse::importONNXModel(file.getBuffer(), path, &context, *options);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  return llvm::MemoryBuffer::getMemBufferCopy(text, path);
}

/// Why `output` must not be written (it is one of the files read), or
/// empty.
static std::string checkOutput(llvm::StringRef output, llvm::StringRef input,
                               llvm::ArrayRef<std::string> filesRead) {
  std::vector<fuse::tools::InputFile> inputs = {{"the input", input.str()}};
  for (const std::string &path : filesRead)
    inputs.push_back({"the model's external data", path});
  return fuse::tools::checkNotAnInput(output.str(), inputs);
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  fuse::registerCompilerDialects(registry);
  fuse::registerCompilerPasses();
  fuse::registerImportCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << fuse::getVersionLine("fuse-opt") << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING << "\n";
  });

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv,
      "fuse optimizer driver\n\n"
      "  Runs fuse's passes on MLIR, or on an ONNX model (.onnx binary or "
      ".onnxtxt text) which is imported first.\n"
      "  Example: fuse-opt model.onnx --fuse-chains --fusion-report\n",
      registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listings write no output file.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  // MLIR or ONNX, a device such as /dev/zero would be read until memory
  // runs out.
  if (std::string why = fuse::checkModelFile(inputFilename); !why.empty()) {
    llvm::errs() << "error: " << why << "\n";
    return EXIT_FAILURE;
  }
  if (std::string why = checkOutput(outputFilename, inputFilename, {});
      !why.empty()) {
    llvm::errs() << "error: " << why << "\n";
    return EXIT_FAILURE;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      openInputFile(inputFilename, &error);
  if (!buffer) {
    llvm::errs() << "error: " << error << "\n";
    return EXIT_FAILURE;
  }
  if (isONNXFile(inputFilename)) {
    std::vector<std::string> filesRead;
    buffer = importToBuffer(inputFilename, *buffer, registry, filesRead);
    if (!buffer)
      return EXIT_FAILURE;
    if (std::string why = checkOutput(outputFilename, inputFilename, filesRead);
        !why.empty()) {
      llvm::errs() << "error: " << why << "\n";
      return EXIT_FAILURE;
    }
  }
  // The old file stays until the new one is complete.
  fuse::tools::StreamedOutputFile output;
  if (!output.open(outputFilename, error)) {
    llvm::errs() << "error: " << error << "\n";
    return EXIT_FAILURE;
  }
  if (failed(MlirOptMain(output.os(), std::move(buffer), registry, config)))
    return EXIT_FAILURE;
  if (!output.commit(error)) {
    llvm::errs() << "error: " << error << "\n";
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
