//===- ImportHarness.cpp - Bytes -> importer -> verifier -> fuse-chains ---===//

#include "ImportHarness.h"

#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

const DialectRegistry &registry() {
  static const DialectRegistry *r = [] {
    auto *registry = new DialectRegistry();
    fuse::registerCompilerDialects(*registry);
    return registry;
  }();
  return *r;
}

[[noreturn]] void bug(const char *what, const std::string &diagnostics,
                      ModuleOp module) {
  llvm::errs() << "fuzz: " << what << "\n" << diagnostics << "\n";
  if (module)
    module->print(llvm::errs(), OpPrintingFlags().enableDebugInfo());
  llvm::errs().flush();
  std::abort();
}

} // namespace

int fuse::fuzz::runImportPipeline(const uint8_t *data, size_t size,
                                  ImportOptions::Format format) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are collected, not printed: rejecting a bad model is the
  // expected outcome, and printing would slow the fuzzer down.
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
    if (diagnostics.size() < 16384) {
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": " << diag << "\n";
    }
    return success();
  });

  ImportOptions options;
  options.format = format;
  // Fuzzed models must not name files to read.
  options.readExternalData = false;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = fuse::importONNXModel(
      bytes,
      format == ImportOptions::Format::Text ? "fuzz.onnxtxt" : "fuzz.onnx",
      &context, options);
  if (!module)
    return 0;
  if (failed(mlir::verify(*module)))
    bug("the importer returned a module that does not verify", diagnostics,
        *module);

  PassManager pm(&context, ModuleOp::getOperationName());
  pm.addNestedPass<func::FuncOp>(fuse::createFuseChains());
  if (failed(pm.run(*module)))
    bug("fuse-chains failed on a module the importer accepted", diagnostics,
        *module);
  return 0;
}
