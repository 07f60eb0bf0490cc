//===- fuse-translate.cpp - Translations into and out of MLIR -------------===//
//
// `fuse-translate --import-onnx model.onnx` prints the model as a func.func
// of `onnx` ops. Accepts binary `.onnx` files and ONNX text syntax.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Import/ModelDiagnostics.h"
#include "fuse/Import/ONNXImporter.h"
#include "fuse/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static void registerImportONNX() {
  static TranslateToMLIRRegistration importONNX(
      "import-onnx",
      "Import an ONNX model (binary .onnx or ONNX text syntax) into the onnx "
      "dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        FailureOr<fuse::ImportOptions> options = fuse::getImportOptionsFromCL();
        if (failed(options))
          return nullptr;
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        // Nodes of binary models by name, not `model.onnx:0:0`.
        ScopedDiagnosticHandler lineless(context, [](Diagnostic &diag) {
          return fuse::printLinelessDiagnostic(diag, llvm::errs());
        });
        return fuse::importONNXModel(buffer->getBuffer(),
                                     buffer->getBufferIdentifier(), context,
                                     *options);
      },
      [](DialectRegistry &registry) {
        registry.insert<fuse::ONNXDialect, func::FuncDialect>();
      });
}

/// The input file among the arguments (mlirTranslateMain reads it before a
/// translation sees it): the first one that is no option nor the value of
/// `-o`.
static llvm::StringRef findInputArgument(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-o") {
      ++i;
      continue;
    }
    if (arg == "-" || !arg.starts_with("-"))
      return arg;
  }
  return "-";
}

int main(int argc, char **argv) {
  registerImportONNX();
  fuse::registerImportCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << fuse::getVersionLine("fuse-translate") << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
  // A device such as /dev/zero would be read until memory runs out.
  if (std::string why = fuse::checkModelFile(findInputArgument(argc, argv));
      !why.empty()) {
    llvm::errs() << "fuse-translate: " << why << "\n";
    return 1;
  }
  return failed(mlirTranslateMain(argc, argv, "fuse translation tool"));
}
