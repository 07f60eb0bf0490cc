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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

static bool isONNXFile(llvm::StringRef path) {
  return path.ends_with(".onnx") || path.ends_with(".onnxtxt") ||
         path.ends_with(".onnxtext");
}

/// Imports the model at `path` and returns it as MLIR text, locations
/// included, for MlirOptMain to parse. Null after reporting an error.
static std::unique_ptr<llvm::MemoryBuffer>
importToBuffer(llvm::StringRef path, DialectRegistry &registry) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    llvm::errs() << "error: " << error << "\n";
    return nullptr;
  }
  FailureOr<fuse::ImportOptions> options = fuse::getImportOptionsFromCL();
  if (failed(options))
    return nullptr;
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(file->getBuffer(), path,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  fuse::ModelDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      fuse::importONNXModel(file->getBuffer(), path, &context, *options);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  return llvm::MemoryBuffer::getMemBufferCopy(text, path);
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
  // MLIR or ONNX, a device such as /dev/zero would be read until memory
  // runs out.
  if (std::string why = fuse::checkModelFile(inputFilename); !why.empty()) {
    llvm::errs() << "error: " << why << "\n";
    return EXIT_FAILURE;
  }
  if (!isONNXFile(inputFilename))
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::unique_ptr<llvm::MemoryBuffer> buffer =
      importToBuffer(inputFilename, registry);
  if (!buffer)
    return EXIT_FAILURE;
  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return EXIT_FAILURE;
  }
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (failed(MlirOptMain(output->os(), std::move(buffer), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
