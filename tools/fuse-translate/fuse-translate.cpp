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

#include "OutputFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;

/// The files the import read besides the model (external data,
/// --input-value files).
static std::vector<std::string> filesRead;

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
        options->filesRead = &filesRead;
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

/// `-o FILE` (also `-o=FILE`, `--o FILE`, `--o=FILE`) among the arguments,
/// taken out of `args`. An error message when it is given twice or has no
/// value.
static std::string takeOutputArgument(std::vector<char *> &args,
                                      std::string &output) {
  std::vector<char *> rest;
  bool given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    std::optional<std::string> value;
    if (arg == "-o" || arg == "--o") {
      if (i + 1 == args.size())
        return "-o needs a file name";
      value = args[++i];
    } else if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      value = arg.substr(arg.find('=') + 1).str();
    }
    if (!value) {
      rest.push_back(args[i]);
      continue;
    }
    if (given)
      return "-o is given twice ('" + output + "' and '" + *value + "')";
    given = true;
    output = *value;
  }
  args = rest;
  return "";
}

/// Copies the file `from` to `fd`, the output `to` written in place (a
/// device, a pipe, standard output under another name). An error message
/// on failure.
static std::string copyToDescriptor(const std::string &from, int fd,
                                    const std::string &to) {
  int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return "cannot read '" + from + "': " + std::strerror(errno);
  std::string error;
  char buffer[1 << 16];
  while (error.empty()) {
    ssize_t n = read(in, buffer, sizeof(buffer));
    if (n == 0)
      break;
    if (n < 0) {
      if (errno != EINTR)
        error = std::strerror(errno);
      continue;
    }
    if (!fuse::tools::writeAll(fd, reinterpret_cast<uint8_t *>(buffer),
                               size_t(n)))
      error = std::strerror(errno);
  }
  close(in);
  return error.empty() ? "" : "cannot write '" + to + "': " + error;
}

int main(int argc, char **argv) {
  registerImportONNX();
  fuse::registerImportCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << fuse::getVersionLine("fuse-translate") << "\n  LLVM and MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
  std::vector<char *> args(argv, argv + argc);
  std::string output = "-";
  if (std::string why = takeOutputArgument(args, output); !why.empty()) {
    llvm::errs() << "fuse-translate: " << why << "\n";
    return 1;
  }
  llvm::StringRef input =
      findInputArgument(static_cast<int>(args.size()), args.data());
  // A device such as /dev/zero would be read until memory runs out.
  if (std::string why = fuse::checkModelFile(input); !why.empty()) {
    llvm::errs() << "fuse-translate: " << why << "\n";
    return 1;
  }
  std::vector<fuse::tools::InputFile> inputs = {{"the model", input.str()}};
  if (std::string why = fuse::tools::checkNotAnInput(output, inputs);
      !why.empty()) {
    llvm::errs() << "fuse-translate: " << why << "\n";
    return 1;
  }
  if (output == "-") {
    args.push_back(nullptr);
    return failed(mlirTranslateMain(static_cast<int>(args.size()) - 1,
                                    args.data(), "fuse translation tool"));
  }

  // The translation writes a temporary file: beside the output, renamed
  // over it once complete; for an output written in place (a device, a
  // pipe, standard output under another name), in $TMPDIR, then copied
  // (a write that fails there is an error message, not LLVM's abort).
  std::string error;
  fuse::tools::OutputFile file;
  if (!file.open(output, error)) {
    llvm::errs() << "fuse-translate: " << error << "\n";
    return 1;
  }
  std::string temporary = file.temporaryPath();
  bool inPlace = temporary.empty();
  if (inPlace) {
    const char *folder = std::getenv("TMPDIR");
    temporary = std::string(folder && *folder ? folder : "/tmp") +
                "/fuse-translate-XXXXXX";
    int fd = mkostemp(&temporary[0], O_CLOEXEC);
    if (fd < 0) {
      llvm::errs() << "fuse-translate: cannot create '" << temporary
                   << "': " << std::strerror(errno) << "\n";
      return 1;
    }
    close(fd);
  }
  std::string outputArgument = "-o=" + temporary;
  args.push_back(outputArgument.data());
  args.push_back(nullptr);
  bool ok = succeeded(mlirTranslateMain(static_cast<int>(args.size()) - 1,
                                        args.data(), "fuse translation tool"));
  if (ok) {
    for (const std::string &path : filesRead)
      inputs.push_back({"the model's external data", path});
    error = fuse::tools::checkNotAnInput(output, inputs);
  }
  if (ok && error.empty() && inPlace)
    error = copyToDescriptor(temporary, file.fd(), output);
  if (ok && error.empty())
    file.commit(error);
  if (inPlace)
    unlink(temporary.c_str());
  if (!error.empty())
    llvm::errs() << "fuse-translate: " << error << "\n";
  return ok && error.empty() ? 0 : 1;
}
