//===- CompilerModule.cpp - fuse._compiler: ONNX model to artifact -------===//
//
// What fuse-compile does, in process: import an ONNX model, compile it with
// fuse::compileModel, and return the artifact (or write it to a file). The
// package's fuse.compile (fuse/__init__.py) checks the options and turns
// paths, bytes and onnx.ModelProto into what this module takes. It is a
// module of its own so that `import fuse` for serving does not load LLVM.
//
//===----------------------------------------------------------------------===//

#include "fuse/Import/ModelDiagnostics.h"
#include "fuse/Import/ONNXImporter.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Target/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "StreamedOutputFile.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <mutex>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// What fuse.compile passes down; each field as fuse-compile's flag of
/// the same name.
struct Request {
  std::string target, arch, cpu, cudaPath, strategy, depthwise, conv;
  bool fuse = true, reference = true, fusionReport = false;
  /// `--input-shape` values: "x=1x3x224x224".
  std::vector<std::string> inputShapes;
  /// "auto", "fp32", "tf32", "fp16" or "bf16".
  std::string precision = "auto";
  std::vector<std::string> keepFp32;
  /// "model", "fp32", "fp16" or "bf16".
  std::string ioPrecision = "model";
  bool indexChecks = true;
  /// The GPU's SMs (0: the architecture's).
  int64_t sms = 0;
};

/// The request as fuse-compile's flags, for the artifact's Build section
/// (what fuse-compile records from its command line).
std::string getFlags(const Request &request) {
  std::string flags = "--target=" + request.target;
  if (request.target == "cuda")
    flags += " --gpu-arch=" + request.arch +
             (request.sms != 0 ? " --gpu-sms=" + std::to_string(request.sms)
                               : std::string());
  else
    flags += " --cpu=" + request.cpu;
  if (!request.fuse)
    flags += " --no-fuse";
  if (request.reference)
    flags += " --reference";
  flags += " --strategy=" + request.strategy +
           " --depthwise=" + request.depthwise + " --conv=" + request.conv;
  for (const std::string &spec : request.inputShapes)
    flags += " --input-shape=" + spec;
  if (request.precision != "auto")
    flags += " --precision=" + request.precision;
  for (const std::string &pattern : request.keepFp32)
    flags += " --keep-fp32=" + pattern;
  if (request.ioPrecision != "model")
    flags += " --io-precision=" + request.ioPrecision;
  if (!request.indexChecks)
    flags += " --no-index-checks";
  return flags;
}

/// A compile's result: the artifact (when not written to a file), or the
/// diagnostics that made it fail. Diagnostics of a compile that succeeded
/// (warnings) are kept too.
struct Result {
  bool ok = false;
  std::string artifact;
  std::string diagnostics;
};

// One compile at a time in a process: LLVM's target registry and command
// line options are process-wide.
std::mutex compileMutex;

/// Runs one compile; needs no Python (the GIL is released around it).
/// `model` is the model's bytes, or empty to read `source` (a path).
Result compileRequest(llvm::StringRef model, const std::string &source,
                      const std::string &output, const Request &request) {
  Result result;
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  std::unique_ptr<llvm::MemoryBuffer> file;
  if (model.empty() && source != "<bytes>") {
    std::string error;
    file = mlir::openInputFile(source, &error);
    if (!file) {
      diagnostics << error;
      return result;
    }
    model = file->getBuffer();
  }

  fuse::ImportOptions importOptions;
  for (const std::string &spec : request.inputShapes) {
    std::string error = fuse::parseInputShapeSpec(spec, importOptions);
    if (!error.empty()) {
      diagnostics << "error: " << error;
      return result;
    }
  }
  fuse::CompileOptions options;
  fuse::FusePipelineOptions &pipeline = options.pipeline;
  pipeline.target = request.target == "cuda" ? fuse::KernelTarget::cuda
                                             : fuse::KernelTarget::cpu;
  pipeline.gpuArch = request.arch;
  pipeline.gpuSms = request.sms;
  options.cpu = request.cpu;
  options.cudaPath = request.cudaPath;
  pipeline.fuse = request.fuse;
  options.reference = request.reference;
  pipeline.indexChecks = request.indexChecks;
  if (request.fusionReport)
    options.fusionReport = fuse::ReportFormat::text;
  // fuse.compile checked the spellings (python/fuse/__init__.py).
  std::optional<fuse::StrategyPreference> strategy =
      fuse::symbolizeStrategyPreference(request.strategy);
  std::optional<fuse::DepthwiseImpl> depthwise =
      fuse::symbolizeDepthwiseImpl(request.depthwise);
  std::optional<fuse::ConvMode> conv = fuse::symbolizeConvMode(request.conv);
  if (!strategy || !depthwise || !conv) {
    diagnostics << "error: strategy '" << request.strategy << "', depthwise '"
                << request.depthwise << "' or conv '" << request.conv
                << "' is not a value fuse-compile takes";
    return result;
  }
  pipeline.strategy = *strategy;
  pipeline.depthwise = *depthwise;
  pipeline.conv = *conv;
  if (request.precision != "auto")
    if (std::optional<fuse::Precision> precision =
            fuse::symbolizePrecision(request.precision))
      pipeline.precision = fuse::getPrecisionChoice(*precision);
  pipeline.keepFp32.assign(request.keepFp32.begin(), request.keepFp32.end());
  if (request.ioPrecision != "model")
    if (std::optional<fuse::Precision> io =
            fuse::symbolizePrecision(request.ioPrecision))
      pipeline.ioPrecision = fuse::getPrecisionChoice(*io);
  options.flags = getFlags(request);

  std::lock_guard<std::mutex> lock(compileMutex);
  mlir::DialectRegistry registry;
  fuse::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Diagnostics as fuse-compile prints them, with the text model's lines.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(model, source, false), llvm::SMLoc());
  fuse::ModelDiagnosticHandler handler(sourceMgr, &context, diagnostics);

  std::vector<std::string> filesRead;
  importOptions.filesRead = &filesRead;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fuse::importONNXModel(model, source, &context, importOptions);
  if (!module)
    return result;
  if (!output.empty()) {
    // The output is never a file the compile read.
    std::vector<fuse::tools::InputFile> inputs;
    if (source != "<bytes>")
      inputs.push_back({"the model", source});
    for (const std::string &path : filesRead)
      inputs.push_back({"the model's external data", path});
    if (std::string why = fuse::tools::checkNotAnInput(output, inputs);
        !why.empty()) {
      diagnostics << "error: " << why;
      return result;
    }
  }
  if (output.empty()) {
    llvm::raw_string_ostream os(result.artifact);
    result.ok = succeeded(fuse::compileModel(*module, options, os));
    return result;
  }
  // The old file stays until the new one is complete.
  std::string error;
  fuse::tools::StreamedOutputFile out;
  if (!out.open(output, error)) {
    diagnostics << "error: " << error;
    return result;
  }
  result.ok = succeeded(fuse::compileModel(*module, options, out.os()));
  if (result.ok && !out.commit(error)) {
    diagnostics << "error: " << error;
    result.ok = false;
  }
  return result;
}

/// Returns (artifact or None, diagnostics); raises CompileError when the
/// compile fails.
nb::tuple compile(nb::object model, const std::string &source,
                  const std::string &output, Request request) {
  std::optional<std::string> level = fuse::resolveCpuLevel(request.cpu);
  if (!level)
    throw nb::value_error(("cpu must be a comma-separated list of x86-64, "
                           "x86-64-v2, x86-64-v3, x86-64-v4 and native, "
                           "not '" +
                           request.cpu + "'")
                              .c_str());
  request.cpu = *level;
  llvm::StringRef bytes;
  if (!model.is_none()) {
    char *data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(model.ptr(), &data, &size) != 0)
      throw nb::python_error();
    bytes = llvm::StringRef(data, size_t(size));
  }
  Result result;
  {
    nb::gil_scoped_release release;
    result = compileRequest(bytes, source, output, request);
  }
  if (!result.ok) {
    nb::object error =
        nb::module_::import_("fuse._errors").attr("CompileError");
    std::string message = result.diagnostics.empty()
                              ? "the compile failed without a diagnostic"
                              : result.diagnostics;
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    PyErr_SetString(error.ptr(), message.c_str());
    throw nb::python_error();
  }
  nb::object artifact = output.empty()
                            ? nb::object(nb::bytes(result.artifact.data(),
                                                   result.artifact.size()))
                            : nb::none();
  return nb::make_tuple(artifact, result.diagnostics);
}

} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "fuse's compiler driver: an ONNX model to an artifact";
  m.def(
      "compile",
      [](nb::object model, const std::string &source, const std::string &output,
         const std::string &target, const std::string &arch, int64_t sms,
         const std::string &cpu, const std::string &cudaPath,
         const std::string &strategy, const std::string &depthwise,
         const std::string &conv, bool fuse, bool reference, bool fusionReport,
         std::vector<std::string> inputShapes, const std::string &precision,
         std::vector<std::string> keepFp32, const std::string &ioPrecision,
         bool indexChecks) {
        Request request{target,
                        arch,
                        cpu,
                        cudaPath,
                        strategy,
                        depthwise,
                        conv,
                        fuse,
                        reference,
                        fusionReport,
                        std::move(inputShapes),
                        precision,
                        std::move(keepFp32),
                        ioPrecision,
                        indexChecks};
        request.sms = sms;
        return compile(std::move(model), source, output, std::move(request));
      },
      "model"_a.none(), "source"_a, "output"_a, "target"_a, "arch"_a, "sms"_a,
      "cpu"_a, "cuda_path"_a, "strategy"_a, "depthwise"_a, "conv"_a, "fuse"_a,
      "reference"_a, "fusion_report"_a, "input_shapes"_a, "precision"_a,
      "keep_fp32"_a, "io_precision"_a, "index_checks"_a,
      "Compiles a model (bytes, or None to read `source`, a path); returns "
      "(artifact bytes or None when written to `output`, diagnostics).");
}
