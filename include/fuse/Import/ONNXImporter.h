//===- ONNXImporter.h - ONNX model to the onnx dialect -----------*- C++
//-*-===//
//
// Imports an ONNX model (binary protobuf or ONNX text syntax) into one
// `func.func` of `onnx` ops: graph inputs become arguments, initializers
// `onnx.Constant`s, graph outputs results, each node one op located at
// `loc("<node name>")`. Result types are inferred by the ops themselves.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_IMPORT_ONNXIMPORTER_H
#define FUSE_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace fuse {

struct ImportOptions {
  enum class Format { Auto, Binary, Text };
  /// How to read the bytes. Auto: ONNX text syntax when the file name ends
  /// in `.onnxtxt` or the content starts with `<`, binary otherwise.
  Format format = Format::Auto;
  /// Shapes given for graph inputs (`--input-shape name=1x3x224x224`);
  /// `ShapedType::kDynamic` for `?`.
  llvm::SmallVector<std::pair<std::string, llvm::SmallVector<int64_t>>>
      inputShapes;
  /// Graph inputs given a value (`--input-value name=tensor.pb`, an ONNX
  /// TensorProto file): the input becomes a constant of the model, so that
  /// shapes, axes or pads it feeds fold at compile time.
  llvm::SmallVector<std::pair<std::string, std::string>> inputValues;
  /// Whether tensors stored as ONNX external data are read, from files
  /// named relative to the model's folder (the folder of `sourceName`).
  /// Off (the fuzzer), such a tensor is an error.
  bool readExternalData = true;
  /// When set, receives the path of every file the import reads besides the
  /// model (external data, `--input-value` files), so that a tool can
  /// refuse to write its output over one of them.
  std::vector<std::string> *filesRead = nullptr;
};

/// Parses one `--input-value` value, `name=FILE`. Returns an error message
/// on failure.
std::string parseInputValueSpec(llvm::StringRef spec, ImportOptions &options);

/// Parses one `--input-shape` value, `name=d0xd1x...` (a dim may be `?`;
/// `name=` alone is a scalar). Returns an error message on failure.
std::string parseInputShapeSpec(llvm::StringRef spec, ImportOptions &options);

/// Imports the model in `bytes`. `sourceName` names the file in
/// diagnostics, and its folder is where external data is looked for ("-"
/// or "<stdin>": standard input, and "<bytes>": a model in memory, which
/// have none). Every problem with the model
/// is reported through the context's diagnostic engine; the result is null
/// after any error.
mlir::OwningOpRef<mlir::ModuleOp> importONNXModel(llvm::StringRef bytes,
                                                  llvm::StringRef sourceName,
                                                  mlir::MLIRContext *context,
                                                  const ImportOptions &options);

/// The most bytes of a model file (and of a `--input-value` tensor):
/// protobuf's limit for one message; larger weights go in external data.
constexpr uint64_t kMaxModelFileBytes = uint64_t(2) << 30;

/// Why `path` cannot be read as a model (or tensor) file before anything is
/// read from it: not there, not a regular file (a device such as /dev/zero
/// or a pipe would be read until memory runs out), or larger than
/// `maxBytes`. Empty when it can; "-" (standard input) always can.
std::string checkModelFile(llvm::StringRef path,
                           uint64_t maxBytes = kMaxModelFileBytes);

/// Registers `--input-shape` and `--onnx-format` with LLVM's command line,
/// for tools that import models. Call before parsing the command line.
void registerImportCLOptions();

/// The category of those options (for tools that list only their own).
llvm::cl::OptionCategory &getImportCLCategory();

/// The options given on the command line. Reports a malformed
/// `--input-shape` to stderr and returns failure.
mlir::FailureOr<ImportOptions> getImportOptionsFromCL();

/// The ai.onnx opsets this importer understands.
constexpr int64_t kMinSupportedOpset = 7;
constexpr int64_t kMaxSupportedOpset = 28;

} // namespace fuse

#endif // FUSE_IMPORT_ONNXIMPORTER_H
