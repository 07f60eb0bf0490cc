//===- ModelDiagnostics.h - Diagnostics located at ONNX nodes ----*- C++ -*-===//
//
// A binary .onnx file has no lines: a node's location is its name inside
// `model.onnx:0:0`. The handler here prints such diagnostics as
// `model.onnx: node 'NAME': error: ...` (or `model.onnx: error: ...` when
// the message already names the node; at a fusion group, whose location
// fuses its ops', NAME is the first node), and every other diagnostic as
// SourceMgrDiagnosticHandler does (text models point at the line).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_IMPORT_MODELDIAGNOSTICS_H
#define FUSE_IMPORT_MODELDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

namespace fuse {

/// Prints `diag` (and its notes) if its location has no line (a node of a
/// binary model) and returns success; otherwise returns failure and prints
/// nothing, for the next handler.
mlir::LogicalResult printLinelessDiagnostic(mlir::Diagnostic &diag,
                                            llvm::raw_ostream &os);

/// SourceMgrDiagnosticHandler, with diagnostics at nodes of binary models
/// printed by printLinelessDiagnostic.
class ModelDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  /// Prints to `os`.
  ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx,
                         llvm::raw_ostream &os);
  ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx);
};

} // namespace fuse

#endif // FUSE_IMPORT_MODELDIAGNOSTICS_H
