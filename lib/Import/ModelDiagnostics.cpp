//===- ModelDiagnostics.cpp - Diagnostics located at ONNX nodes ----------===//

#include "fuse/Import/ModelDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The file of `loc` when it has no line, and the innermost name around it.
static bool findLineless(Location loc, StringRef &file, StringRef &name) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name = named.getName().getValue();
    return findLineless(named.getChildLoc(), file, name);
  }
  if (auto range = dyn_cast<FileLineColRange>(loc)) {
    if (range.getStartLine() != 0)
      return false;
    file = range.getFilename().getValue();
    return true;
  }
  // A fusion group's (its ops' locations): its first node.
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      StringRef innerName = name;
      if (findLineless(inner, file, innerName)) {
        name = innerName;
        return true;
      }
    }
  return false;
}

static llvm::SourceMgr::DiagKind toDiagKind(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagnosticSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagnosticSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  case DiagnosticSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  }
  llvm_unreachable("unknown severity");
}

static void printOne(Location loc, DiagnosticSeverity severity,
                     const std::string &message, llvm::raw_ostream &os) {
  StringRef file, name;
  std::string where;
  if (findLineless(loc, file, name)) {
    where = file.str();
    if (!name.empty() && !StringRef(message).contains("'" + name.str() + "'"))
      where += ": node '" + name.str() + "'";
  }
  llvm::SMDiagnostic(where, toDiagKind(severity), message).print(nullptr, os);
}

LogicalResult fuse::printLinelessDiagnostic(Diagnostic &diag,
                                            llvm::raw_ostream &os) {
  StringRef file, name;
  if (!findLineless(diag.getLocation(), file, name))
    return failure();
  printOne(diag.getLocation(), diag.getSeverity(), diag.str(), os);
  for (Diagnostic &note : diag.getNotes())
    printOne(note.getLocation(), note.getSeverity(), note.str(), os);
  return success();
}

fuse::ModelDiagnosticHandler::ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                                     MLIRContext *ctx,
                                                     llvm::raw_ostream &os)
    : SourceMgrDiagnosticHandler(sourceMgr, ctx, os) {
  // Replaces the base's handler (one per ScopedDiagnosticHandler).
  setHandler([this, &os](Diagnostic &diag) {
    if (failed(printLinelessDiagnostic(diag, os)))
      emitDiagnostic(diag);
    return success();
  });
}

fuse::ModelDiagnosticHandler::ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                                     MLIRContext *ctx)
    : ModelDiagnosticHandler(sourceMgr, ctx, llvm::errs()) {}
