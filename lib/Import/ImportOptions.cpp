//===- ImportOptions.cpp - Command-line options of the importer ----------===//

#include "fuse/Import/ONNXImporter.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace fuse;

cl::OptionCategory &fuse::getImportCLCategory() {
  static cl::OptionCategory category("ONNX import options");
  return category;
}

namespace {
struct ImportCLOptions {
  cl::list<std::string> inputShapes{
      "input-shape",
      cl::desc("Shape of a graph input, overriding or completing the model's "
               "(repeatable): NAME=D0xD1x... where a dim is a number or ? "
               "(e.g. --input-shape input=1x3x224x224). Symbolic dims the "
               "shape fixes are bound in every other input too"),
      cl::value_desc("name=shape"), cl::cat(getImportCLCategory())};
  cl::list<std::string> inputValues{
      "input-value",
      cl::desc("Fix a graph input to a value, read from an ONNX TensorProto "
               "file (repeatable): NAME=FILE.pb. The input becomes a constant "
               "of the compiled model (it is no longer an input), so shapes, "
               "axes or pads it feeds fold at compile time"),
      cl::value_desc("name=file.pb"), cl::cat(getImportCLCategory())};
  cl::opt<ImportOptions::Format> format{
      "onnx-format", cl::desc("How to read an ONNX model file"),
      cl::init(ImportOptions::Format::Auto),
      cl::values(
          clEnumValN(ImportOptions::Format::Auto, "auto",
                     "text when the name ends in .onnxtxt or the file "
                     "starts with '<', else binary (default)"),
          clEnumValN(ImportOptions::Format::Binary, "binary",
                     "binary protobuf (.onnx)"),
          clEnumValN(ImportOptions::Format::Text, "text", "ONNX text syntax")),
      cl::cat(getImportCLCategory())};
};
} // namespace

static ManagedStatic<ImportCLOptions> clOptions;

void fuse::registerImportCLOptions() { *clOptions; }

std::string fuse::parseInputShapeSpec(StringRef spec, ImportOptions &options) {
  auto [name, dims] = spec.split('=');
  if (name.empty() || !spec.contains('='))
    return "--input-shape expects NAME=D0xD1x..., got '" + spec.str() + "'";
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part == "?") {
        shape.push_back(mlir::ShapedType::kDynamic);
      } else if (!part.getAsInteger(10, d) && d >= 0 &&
                 d < (int64_t(1) << 40)) {
        shape.push_back(d);
      } else if (!part.empty() && llvm::all_of(part, llvm::isDigit)) {
        return "--input-shape " + spec.str() + ": " + part.str() +
               " is too large (a dimension is at most 2^40 - 1)";
      } else {
        return "--input-shape " + spec.str() + ": '" + part.str() +
               "' is not a dimension (a non-negative number or ?)";
      }
    }
  }
  for (const auto &entry : options.inputShapes)
    if (entry.first == name)
      return "--input-shape gives '" + name.str() + "' twice";
  options.inputShapes.emplace_back(name.str(), std::move(shape));
  return "";
}

std::string fuse::parseInputValueSpec(StringRef spec, ImportOptions &options) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return "--input-value expects NAME=FILE, got '" + spec.str() + "'";
  for (const auto &entry : options.inputValues)
    if (entry.first == name)
      return "--input-value gives '" + name.str() + "' twice";
  options.inputValues.emplace_back(name.str(), path.str());
  return "";
}

mlir::FailureOr<ImportOptions> fuse::getImportOptionsFromCL() {
  ImportOptions options;
  if (!clOptions.isConstructed())
    return options;
  options.format = clOptions->format;
  auto parseAll = [&](const cl::list<std::string> &specs,
                      std::string (*parse)(StringRef, ImportOptions &)) {
    for (const std::string &spec : specs) {
      std::string error = parse(spec, options);
      if (!error.empty()) {
        errs() << "error: " << error << "\n";
        return false;
      }
    }
    return true;
  };
  if (!parseAll(clOptions->inputShapes, parseInputShapeSpec) ||
      !parseAll(clOptions->inputValues, parseInputValueSpec))
    return mlir::failure();
  return options;
}
