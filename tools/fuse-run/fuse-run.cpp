//===- fuse-run.cpp - Run, check and time a compiled model ----------------===//
//
// Loads an artifact (.fbin) through the runtime's C API, binds inputs from
// files (or seeded random ones), then runs a plan and prints or writes its
// outputs, checks plan "main" against plan "reference" (--check), or times
// plans (--bench). Exit status: 0 success, 1 error or failed check, 2 bad
// usage.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "Json.h"
#include "OutputFile.h"
#include "TensorFiles.h"

#include "fuse/runtime.h"
#include "fuse/runtime/Artifact.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace fuserun;
using fuse::artifact::DType;

namespace {

const char *const kUsage = R"(usage: fuse-run MODEL.fbin [options]

Runs a model compiled by fuse (a .fbin artifact, CPU or CUDA target).

Inputs (default: seeded random values):
  --inputs FILE        bind inputs from FILE; repeat for several files:
                         .npz   arrays bound to the inputs by name
                         .npy   one array, bound to the next unbound input
                         .pb    an ONNX TensorProto, bound by its name if it
                                names an input, else to the next unbound one
                         DIR    input_0.pb, input_1.pb, ... in order (the
                                ONNX backend test layout)
                       every input must be given; dtypes and shapes must
                       match the model's exactly (bfloat16 inputs take
                       uint16 arrays of their bits)
  --seed N             seed of the random inputs (default 0): floats
                       uniform in [-1, 1), integers in [0, 10), bools 0/1,
                       drawn with splitmix64 in input order, so the same
                       on every machine

Actions (default: run the plan once and print each output's name, dtype,
shape, min, max and mean):
  --outputs FILE       write the outputs instead of printing them:
                         .npz   one array per output, named after it
                         .npy   the output (a model with one output only)
                         DIR    output_0.pb, ... (ONNX TensorProto; an
                                existing directory, or a name without an
                                extension, created if missing)
  --check              run plan "main" and plan "reference" (the model
                       unfused, computed in f64 unless compiled with
                       --reference-f64=false) on the same inputs and
                       compare every output element:
                       |main - reference| <= atol + rtol * |reference|
                       (a NaN matches only a NaN); prints each output's max
                       abs and rel error, then "check: PASS" (exit 0) or
                       "check: FAIL" (exit 1)
  --check-onnx MODEL.onnx
                       compare the outputs with onnxruntime's (CPU, fp32)
                       for the ONNX model the artifact was compiled from,
                       on the same inputs (--seed, or one --inputs .npz):
                       runs `python3 -m fuse check-onnx` (the Python
                       package and onnxruntime; $FUSE_PYTHON names another
                       interpreter), which prints each output's max abs
                       and relative L2 error, then "check-onnx: PASS"
                       (exit 0, every error within 1e-4) or "FAIL" (exit 1)
  --candidate N        run candidate N (from 0) of every choice of the plan
                       instead of the selected one, or a choice's last when
                       it has fewer: to check or time each candidate
  --rtol X             relative tolerance of --check (default 1e-4)
  --atol Y             absolute tolerance of --check (default 1e-5)
  --bench              time the plan: --warmup untimed runs, then
                       --iterations timed ones (CUDA events on the GPU, a
                       steady clock on the CPU), and print one line per plan:
                       bench: plan=NAME launches=N median_ms=M min_ms=A
                       max_ms=B bytes=BYTES GB/s=G
                       (BYTES is what the plan's kernels move at least; GB/s
                       is BYTES / median); after --check if both are given
  --warmup N           untimed runs before timing (default 10)
  --iterations N       timed runs (default 100)
  --plan NAME          the plan to run or bench (default "main"); repeat to
                       bench several; --check compares the first against
                       "reference"
  --profile[=FILE]     time every launch of the plan on its own (CUDA
                       events between the launches of one graph replay on
                       the GPU, a steady clock on the CPU; --warmup,
                       --iterations) and print one row per launch, slowest
                       first: group, strategy, microseconds (median), share
                       of the total, GFLOP/s, GB/s, the percentage of the
                       device limit that applies (the larger of FLOPs over
                       the matmul rate of the launch's math and the group's
                       minimum bytes over the copy bandwidth, as a share of
                       its time: the fp32 SGEMM rate for kernels, a library
                       call on tensor cores the rate of a 4096^3 cuBLASLt
                       matmul in its precision, measured at start) and
                       its ONNX nodes; then the sum against the median of
                       whole-plan (graph) runs, and for each choice the
                       candidate that ran (tuned: its time against the
                       fastest other one's). With FILE, also writes the
                       launches as a Chrome trace (chrome://tracing,
                       ui.perfetto.dev); "-" writes it to standard output,
                       after the table
  --copy-gbps X        the copy bandwidth --profile judges against (GB/s,
                       read + write; default: measured at start)
  --peak-gflops X      the fp32 matmul rate --profile judges against
                       (GFLOP/s; default: a 4096^3 cuBLASLt SGEMM measured
                       at start on the GPU, none on the CPU)
  --info               describe the artifact without loading it: target,
                       the compiler and flags that made it, signature, each plan's buffers and launches (what
                       runs: a kernel with its grid and block, or a
                       cuBLASLt or cuDNN call), its choices (candidates'
                       labels, launches and measured times; which is
                       selected, by a tuner or the heuristic), and the
                       groups (ONNX nodes, strategy, FLOPs, bytes); works
                       for any target on any machine

  --help               this text
  --version            fuse's version and the commit it was built from

Exit status: 0 success, 1 error (message on stderr) or failed check, 2 bad
usage.
)";

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::string outputs;
  bool check = false;
  /// --check-onnx: the ONNX model to compare with through onnxruntime.
  std::string checkOnnx;
  bool bench = false;
  bool info = false;
  bool profile = false;
  std::string profileFile;
  double copyGBps = 0;
  double peakGFlops = 0;
  std::vector<std::string> plans;
  uint64_t seed = 0;
  long warmup = 10;
  long iterations = 100;
  double rtol = 1e-4;
  double atol = 1e-5;
  /// --candidate: the candidate every choice runs (-1: as the artifact
  /// selects).
  long candidate = -1;
};

[[noreturn]] void usageError(const std::string &message) {
  fuserun::usageError("fuse-run", message);
}

bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  errno = 0;
  char *end = nullptr;
  value = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool isDirectory(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  Arguments args("fuse-run", kUsage, argc, argv);
  auto isOption = [](const std::string &arg) {
    return arg.size() > 2 && arg.compare(0, 2, "--") == 0;
  };
  while (args.next(options.model, isOption)) {
    const std::string &name = args.name();
    // A number >= 0 (or > 0 when `positive`), finite.
    auto takeNumber = [&](double &out, bool positive) {
      char *end = nullptr;
      std::string text = args.value();
      out = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(positive ? out > 0 : out >= 0) ||
          std::isinf(out))
        usageError(name + (positive ? " needs a positive number, not '"
                                    : " needs a non-negative number, not '") +
                   text + "'");
    };
    if (name == "--check" || name == "--bench" || name == "--info")
      args.noValue();
    if (name == "--check")
      options.check = true;
    else if (name == "--bench")
      options.bench = true;
    else if (name == "--info")
      options.info = true;
    else if (name == "--profile") {
      // --profile=FILE only: a following argument is the model or an option.
      options.profile = true;
      if (args.hasValue()) {
        if (args.value().empty())
          usageError("--profile= needs a file name");
        options.profileFile = args.value();
      }
    } else if (name == "--copy-gbps")
      takeNumber(options.copyGBps, /*positive=*/true);
    else if (name == "--peak-gflops")
      takeNumber(options.peakGFlops, /*positive=*/true);
    else if (name == "--check-onnx")
      options.checkOnnx = args.value();
    else if (name == "--inputs")
      options.inputs.push_back(args.value());
    else if (name == "--outputs") {
      if (!options.outputs.empty())
        usageError("--outputs is given twice");
      options.outputs = args.value();
    }
    else if (name == "--plan")
      options.plans.push_back(args.value());
    else if (name == "--seed") {
      if (!parseUnsigned(args.value(), options.seed))
        usageError("--seed needs a non-negative integer, not '" +
                   args.value() + "'");
    } else if (name == "--warmup")
      options.warmup = args.count();
    else if (name == "--iterations")
      options.iterations = args.count();
    else if (name == "--candidate")
      options.candidate = args.count();
    else if (name == "--rtol")
      takeNumber(options.rtol, /*positive=*/false);
    else if (name == "--atol")
      takeNumber(options.atol, /*positive=*/false);
    else
      usageError("unknown option '" + name + "'");
  }
  if (options.model.empty())
    usageError("no model given");
  if (options.iterations < 1)
    usageError("--iterations must be at least 1");
  if (options.plans.empty())
    options.plans.push_back("main");
  if (options.plans.size() > 1 && !options.bench)
    usageError("several --plan options need --bench (only plans are benched "
               "together)");
  if (options.profile && (options.check || options.bench))
    usageError("--profile runs on its own (not with --check or --bench)");
  if (!options.checkOnnx.empty()) {
    if (options.check || options.bench || options.profile || options.info ||
        !options.outputs.empty() || options.candidate >= 0 ||
        options.plans.size() > 1)
      usageError("--check-onnx runs on its own (with --seed, --inputs and "
                 "one --plan only)");
    if (options.inputs.size() > 1 ||
        (options.inputs.size() == 1 && !endsWith(options.inputs[0], ".npz")))
      usageError("--check-onnx takes its inputs from one .npz file");
  }
  // A name that is neither .npz nor .npy nor a directory is a mistake (a
  // .txt made a directory of it): refused before any work.
  if (!options.outputs.empty() && !endsWith(options.outputs, ".npz") &&
      !endsWith(options.outputs, ".npy") && !isDirectory(options.outputs)) {
    size_t slash = options.outputs.find_last_of('/');
    size_t dot = options.outputs.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
      usageError("--outputs '" + options.outputs +
                 "': a file must end in .npz or .npy, and a directory to "
                 "create has no extension");
  }
  return options;
}

bool exists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

std::string nameList(const std::vector<Tensor> &tensors) {
  std::string names;
  for (const Tensor &t : tensors)
    names += (names.empty() ? "" : ", ") + t.name;
  return names.empty() ? "none" : names;
}

/// Binds input files to the model's inputs, by name or in order.
class InputBinder {
public:
  explicit InputBinder(std::vector<Tensor> &inputs)
      : inputs(inputs), bound(inputs.size(), false) {}

  void bindFile(const std::string &path) {
    std::vector<uint8_t> bytes;
    std::string message;
    if (isDirectory(path)) {
      size_t count = 0;
      for (;; ++count) {
        std::string file = path + "/input_" + std::to_string(count) + ".pb";
        if (!exists(file))
          break;
        bindFile(file);
      }
      if (count == 0)
        error("'" + path +
              "' has no input_0.pb (a directory of inputs "
              "holds input_0.pb, input_1.pb, ...)");
      return;
    }
    // No input file holds more than every input's data, three times over
    // (a .pb's varints: up to 10 bytes an int32), 1 MiB of headers and 1
    // KiB of them per input (a .npz member's zip headers and .npy header).
    uint64_t limit = 1 << 20;
    for (const Tensor &input : inputs)
      limit += 3 * uint64_t(input.data.size()) + 1024;
    if (!readFile(path, bytes, message, limit))
      error(message);
    if (endsWith(path, ".npz")) {
      // No member may be larger than the largest input and a .npy header
      // (at most 64 KiB), checked before anything is inflated.
      uint64_t largest = 0;
      for (const Tensor &input : inputs)
        largest = std::max<uint64_t>(largest, input.data.size());
      std::vector<Tensor> arrays;
      if (!parseNpz(bytes, path, arrays, message, largest + (64u << 10)))
        error(message);
      for (Tensor &array : arrays) {
        long index = find(array.name);
        if (index < 0)
          error("'" + path + "' has an array '" + array.name +
                "' but the model has no input of that name (its inputs: " +
                nameList(inputs) + ")");
        bind(size_t(index), array, path);
      }
    } else if (endsWith(path, ".npy")) {
      Tensor array;
      if (!parseNpy(bytes.data(), bytes.size(), path, array, message))
        error(message);
      bind(next(path), array, path);
    } else if (endsWith(path, ".pb")) {
      Tensor tensor;
      if (!parseTensorProto(bytes, path, tensor, message))
        error(message);
      long index = find(tensor.name);
      bind(index >= 0 ? size_t(index) : next(path), tensor, path);
    } else {
      error("cannot tell the format of '" + path +
            "' (inputs are .npz, .npy, .pb files or a directory of .pb)");
    }
  }

  /// After all files: every input must have been given.
  void finish() {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!bound[i])
        error("input '" + inputs[i].name +
              "' is not given (the model's inputs: " + nameList(inputs) + ")");
  }

private:
  long find(const std::string &name) const {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == name)
        return long(i);
    return -1;
  }

  size_t next(const std::string &path) const {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!bound[i])
        return i;
    error("'" + path + "' is one input too many: the model has " +
          std::to_string(inputs.size()) + " (" + nameList(inputs) + ")");
  }

  void bind(size_t index, Tensor &file, const std::string &path) {
    Tensor &input = inputs[index];
    if (bound[index])
      error("input '" + input.name + "' is given twice (again by '" + path +
            "')");
    // bfloat16 has no numpy dtype: its bits come as uint16.
    bool bits = input.dtype == uint32_t(DType::BFloat16) &&
                file.dtype == uint32_t(DType::UInt16);
    if ((file.dtype != input.dtype && !bits) || file.dims != input.dims)
      error("input '" + input.name + "': file has " +
            typeString(file.dtype, file.dims) + ", model expects " +
            typeString(input.dtype, input.dims) + " (in '" + path + "')");
    input.data = std::move(file.data);
    bound[index] = true;
  }

  std::vector<Tensor> &inputs;
  std::vector<bool> bound;
};

long findPlan(const fuse_model *model, const std::string &name) {
  size_t n = fuse_model_num_plans(model);
  for (size_t i = 0; i < n; ++i)
    if (name == fuse_model_plan_name(model, i))
      return long(i);
  return -1;
}

size_t requirePlan(const fuse_model *model, const std::string &name) {
  long index = findPlan(model, name);
  if (index < 0) {
    std::string names;
    for (size_t i = 0; i < fuse_model_num_plans(model); ++i)
      names += std::string(i ? ", " : "") + fuse_model_plan_name(model, i);
    error("the artifact has no plan '" + name + "' (its plans: " + names + ")");
  }
  return size_t(index);
}

/// Runs a plan and returns its outputs.
std::vector<Tensor> runPlan(fuse_model *model, size_t plan) {
  check(fuse_model_run(model, plan));
  std::vector<Tensor> outputs = signature(model, true);
  for (size_t i = 0; i < outputs.size(); ++i)
    check(fuse_model_get_output(model, i, outputs[i].data.data(),
                                outputs[i].data.size()));
  return outputs;
}

/// The files this run reads: the artifact, the input files (a directory's
/// input_N.pb) and --check-onnx's model.
std::vector<fuse::tools::InputFile> filesRead(const Options &options) {
  std::vector<fuse::tools::InputFile> files = {{"the artifact", options.model}};
  for (const std::string &path : options.inputs) {
    if (!isDirectory(path)) {
      files.push_back({"an --inputs file", path});
      continue;
    }
    for (size_t i = 0;; ++i) {
      std::string file = path + "/input_" + std::to_string(i) + ".pb";
      if (!exists(file))
        break;
      files.push_back({"an --inputs file", file});
    }
  }
  if (!options.checkOnnx.empty())
    files.push_back({"the --check-onnx model", options.checkOnnx});
  return files;
}

/// Refuses to write `path` over a file the run reads.
void checkOutput(const std::string &path, const Options &options) {
  if (std::string why = fuse::tools::checkNotAnInput(path, filesRead(options));
      !why.empty())
    error(why);
}

/// The file `--outputs DIR` writes output `index` to.
std::string outputFileInDirectory(const std::string &directory, size_t index) {
  return directory + "/output_" + std::to_string(index) + ".pb";
}

void writeOutputs(const std::vector<Tensor> &outputs, const std::string &path,
                  const Options &options) {
  std::string message;
  if (endsWith(path, ".npz")) {
    std::vector<uint8_t> bytes;
    if (!serializeNpz(outputs, bytes, message) ||
        !writeFile(path, bytes, message))
      error(message);
  } else if (endsWith(path, ".npy")) {
    if (outputs.size() != 1)
      error("--outputs '" + path + "': the model has " +
            std::to_string(outputs.size()) +
            " outputs and a .npy file holds one (use .npz or a directory)");
    if (!writeFile(path, serializeNpy(outputs[0]), message))
      error(message);
  } else {
    if (!isDirectory(path) && mkdir(path.c_str(), 0777) != 0)
      error("cannot create the directory '" + path +
            "': " + std::strerror(errno));
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string file = outputFileInDirectory(path, i);
      checkOutput(file, options);
      if (!writeFile(file, serializeTensorProto(outputs[i]), message))
        error(message);
    }
  }
}

void printOutputs(const std::vector<Tensor> &outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor &t = outputs[i];
    std::printf("output %zu '%s': %s", i, t.name.c_str(),
                typeString(t.dtype, t.dims).c_str());
    uint64_t n = t.numElements();
    if (n > 0) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      for (uint64_t e = 0; e < n; ++e) {
        double v = getElement(t, e);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      std::printf(" min=%g max=%g mean=%g", lo, hi, sum / double(n));
    }
    std::printf("\n");
  }
}

/// "[0,1,2]": the multi-index of flat element `flat`.
std::string indexString(const std::vector<int64_t> &dims, uint64_t flat) {
  std::vector<uint64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % uint64_t(dims[d]);
    flat /= uint64_t(dims[d]);
  }
  std::string result = "[";
  for (size_t d = 0; d < index.size(); ++d)
    result += (d ? "," : "") + std::to_string(index[d]);
  return result + "]";
}

/// Compares two runs' outputs; prints one line per output. True if all
/// elements are within tolerance.
bool compare(const std::vector<Tensor> &got, const std::vector<Tensor> &want,
             const Options &options) {
  bool pass = true;
  for (size_t i = 0; i < got.size(); ++i) {
    const Tensor &a = got[i], &b = want[i];
    uint64_t n = a.numElements(), mismatches = 0, first = 0;
    double maxAbs = 0, maxRel = 0;
    for (uint64_t e = 0; e < n; ++e) {
      double x = getElement(a, e), y = getElement(b, e);
      bool ok;
      if (std::isnan(x) || std::isnan(y)) {
        ok = std::isnan(x) && std::isnan(y);
      } else if (x == y) { // Equal infinities too.
        ok = true;
      } else {
        double abs = std::fabs(x - y);
        maxAbs = std::max(maxAbs, abs);
        if (y != 0)
          maxRel = std::max(maxRel, abs / std::fabs(y));
        ok = abs <= options.atol + options.rtol * std::fabs(y);
      }
      if (!ok && mismatches++ == 0)
        first = e;
    }
    std::printf("check: output '%s' %s: max_abs_err=%g max_rel_err=%g "
                "mismatches=%llu/%llu",
                a.name.c_str(), typeString(a.dtype, a.dims).c_str(), maxAbs,
                maxRel, (unsigned long long)mismatches, (unsigned long long)n);
    if (mismatches)
      std::printf(" (first at %s: %s=%.9g reference=%.9g)",
                  indexString(a.dims, first).c_str(), options.plans[0].c_str(),
                  getElement(a, first), getElement(b, first));
    std::printf("\n");
    pass = pass && mismatches == 0;
  }
  return pass;
}

void bench(fuse_model *model, size_t plan, const Options &options) {
  std::vector<double> times(size_t(options.iterations));
  check(fuse_model_benchmark(model, plan, int(options.warmup),
                             int(options.iterations), times.data()));
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  uint64_t bytes = fuse_model_plan_bytes(model, plan);
  double gbPerSecond =
      median > 0 ? double(bytes) / (median * 1e-3) / 1e9 : INFINITY;
  std::printf("bench: plan=%s launches=%zu median_ms=%.6f min_ms=%.6f "
              "max_ms=%.6f bytes=%llu GB/s=%.3f\n",
              fuse_model_plan_name(model, plan),
              fuse_model_plan_num_launches(model, plan), median, times[0],
              times[n - 1], (unsigned long long)bytes, gbPerSecond);
}

/// "conv1 (Conv), relu1 (Relu)", at most `limit` nodes then "+N more".
std::string groupNodes(const fuse_model *model, size_t group, size_t limit) {
  fuse_group_info info;
  if (fuse_model_group_info(model, group, &info) != FUSE_OK)
    return "";
  std::string text;
  for (size_t n = 0; n < info.num_nodes && n < limit; ++n) {
    const char *name = nullptr, *opType = nullptr;
    check(fuse_model_group_node(model, group, n, &name, &opType));
    text += std::string(n ? ", " : "") + name + " (" + opType + ")";
  }
  if (info.num_nodes > limit)
    text += " +" + std::to_string(info.num_nodes - limit) + " more";
  return text;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Per launch of `plan`: whether it runs (launches of candidates not
/// selected do not).
std::vector<bool> launchesThatRun(const fuse_model *model, size_t plan) {
  std::vector<bool> runs(fuse_model_plan_num_launches(model, plan), true);
  for (size_t c = 0; c < fuse_model_plan_num_choices(model, plan); ++c) {
    fuse_choice_info choice;
    check(fuse_model_plan_choice(model, plan, c, &choice));
    for (uint32_t i = 0; i < choice.num_candidates; ++i) {
      fuse_candidate_info candidate;
      check(fuse_model_plan_candidate(model, plan, c, i, &candidate));
      for (uint32_t l = 0; l < candidate.num_launches; ++l)
        runs[candidate.first_launch + l] =
            choice.selected == FUSE_ALL_CANDIDATES || choice.selected == i;
    }
  }
  return runs;
}

/// After --profile: which candidate of each choice ran and, when a tuner
/// picked it, its measured time against the fastest other candidate.
void printSelections(const fuse_model *model, size_t plan) {
  for (size_t c = 0; c < fuse_model_plan_num_choices(model, plan); ++c) {
    fuse_choice_info choice;
    check(fuse_model_plan_choice(model, plan, c, &choice));
    fuse_candidate_info selected, runnerUp{};
    check(fuse_model_plan_candidate(model, plan, c, choice.selected,
                                    &selected));
    std::printf("choice %zu '%s': %s (candidate %u of %u, %s)", c, choice.key,
                selected.label, choice.selected, choice.num_candidates,
                choice.tuned ? "tuned" : "heuristic");
    for (uint32_t i = 0; choice.tuned && i < choice.num_candidates; ++i) {
      fuse_candidate_info other;
      check(fuse_model_plan_candidate(model, plan, c, i, &other));
      if (i != choice.selected &&
          (!runnerUp.label || other.time_ms < runnerUp.time_ms))
        runnerUp = other;
    }
    // Milliseconds to 3 decimals, or 3 significant digits below 0.01.
    auto ms = [](double v) {
      return format(v >= 0.01 || v == 0 ? "%.3f ms" : "%.3g ms", v);
    };
    if (choice.tuned && selected.time_ms > 0)
      std::printf(": %s, %.2fx faster than %s (%s)",
                  ms(selected.time_ms).c_str(),
                  runnerUp.time_ms / selected.time_ms, runnerUp.label,
                  ms(runnerUp.time_ms).c_str());
    else if (choice.tuned)
      std::printf(": %s, %s %s", ms(selected.time_ms).c_str(), runnerUp.label,
                  ms(runnerUp.time_ms).c_str());
    std::printf("\n");
  }
}

/// --profile: one row per launch, slowest first, then the sum against the
/// whole plan's (graph) time; optionally a Chrome trace.
void profile(fuse_model *model, size_t plan, const Options &options) {
  size_t n = fuse_model_plan_num_launches(model, plan);
  const char *planName = fuse_model_plan_name(model, plan);
  double copyGBps = options.copyGBps, peakGFlops = options.peakGFlops;
  bool measuredCopy = copyGBps == 0, measuredPeak = peakGFlops == 0;
  if (measuredCopy || measuredPeak) {
    double copy = 0, peak = 0;
    check(fuse_model_measure_limits(model, &copy, &peak));
    if (measuredCopy)
      copyGBps = copy;
    if (measuredPeak)
      peakGFlops = peak;
  }
  // The rate of each math the running launches multiply in (fp32: the
  // SGEMM rate above).
  double mathGFlops[4] = {peakGFlops, 0, 0, 0};
  std::vector<bool> running = launchesThatRun(model, plan);
  for (size_t l = 0; l < n; ++l) {
    fuse_launch_info info;
    check(fuse_model_plan_launch(model, plan, l, &info));
    if (running[l] && info.math != FUSE_MATH_FP32 &&
        mathGFlops[info.math] == 0)
      check(fuse_model_measure_matmul_rate(model, info.math,
                                           &mathGFlops[info.math]));
  }
  std::vector<double> times(size_t(options.iterations) * n);
  double overheadMs = 0;
  check(fuse_model_profile(model, plan, int(options.warmup),
                           int(options.iterations), times.data(),
                           &overheadMs));
  std::vector<double> whole(size_t(options.iterations));
  check(fuse_model_benchmark(model, plan, int(options.warmup),
                             int(options.iterations), whole.data()));

  struct Row {
    size_t launch;
    double us;
    fuse_launch_info info;
    fuse_group_info group;
    bool hasGroup;
  };
  // Launches of candidates not selected do not run: no rows.
  std::vector<Row> rows;
  double total = 0;
  for (size_t l = 0; l < n; ++l) {
    if (!running[l])
      continue;
    std::vector<double> samples;
    for (long i = 0; i < options.iterations; ++i)
      samples.push_back(times[size_t(i) * n + l]);
    Row row{l, median(samples) * 1e3, {}, {}, false};
    check(fuse_model_plan_launch(model, plan, l, &row.info));
    row.hasGroup = row.info.group != FUSE_NO_GROUP &&
                   fuse_model_group_info(model, row.info.group, &row.group) ==
                       FUSE_OK;
    total += row.us;
    rows.push_back(row);
  }
  // A launch's start in the trace: the launches before it, in plan order.
  std::vector<double> startUs(rows.size(), 0);
  for (size_t r = 1; r < rows.size(); ++r)
    startUs[r] = startUs[r - 1] + rows[r - 1].us;
  std::vector<Row> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Row &a, const Row &b) { return a.us > b.us; });

  std::string notRun =
      rows.size() < n ? format(" (and %zu of candidates not selected)",
                               n - rows.size())
                      : std::string();
  std::printf("profile: plan '%s' on %s: %zu launch%s%s, median of %ld "
              "runs\n",
              planName, fuse_model_device_name(model), rows.size(),
              rows.size() == 1 ? "" : "es", notRun.c_str(),
              options.iterations);
  if (*fuse_model_libraries(model))
    std::printf("libraries: %s\n", fuse_model_libraries(model));
  if (fuse_model_target(model) == FUSE_TARGET_CPU)
    std::printf("kernels: %s (of %s)\n", fuse_model_loaded_arch(model),
                fuse_model_kernel_archs(model));
  if (overheadMs > 0)
    std::printf("each launch's time less %.2f us, what timing a launch "
                "adds (measured with an empty kernel in the same runs)\n",
                overheadMs * 1e3);
  std::printf("limits: copy %.0f GB/s (%s), fp32 matmul ", copyGBps,
              measuredCopy ? "measured" : "given");
  if (peakGFlops > 0)
    std::printf("%.0f GFLOP/s (%s)", peakGFlops,
                measuredPeak ? "measured" : "given");
  else
    std::printf("unknown (give --peak-gflops)");
  for (int math = FUSE_MATH_TF32; math <= FUSE_MATH_BF16; ++math)
    if (mathGFlops[math] > 0)
      std::printf(", %s matmul %.0f GFLOP/s (measured)",
                  fuse_math_name(fuse_math(math)), mathGFlops[math]);
  std::printf("\n");
  std::printf("%6s %5s %-40s %10s %6s %9s %8s %6s  %s\n", "launch", "group",
              "strategy", "us", "share", "GFLOP/s", "GB/s", "limit",
              "nodes");
  struct Derived {
    double gflops, gbps, limit;
  };
  auto derive = [&](const Row &row) {
    Derived d{0, 0, 0};
    if (!row.hasGroup || row.us <= 0)
      return d;
    double seconds = row.us * 1e-6;
    d.gflops = double(row.group.flops) / seconds / 1e9;
    d.gbps = double(row.group.bytes) / seconds / 1e9;
    double floor = copyGBps > 0 ? double(row.group.bytes) / (copyGBps * 1e9)
                                : 0;
    double rate = mathGFlops[row.info.math];
    if (rate > 0)
      floor = std::max(floor, double(row.group.flops) / (rate * 1e9));
    d.limit = 100.0 * floor / seconds;
    return d;
  };
  for (const Row &row : sorted) {
    Derived d = derive(row);
    std::string strategy = row.hasGroup ? row.group.strategy : row.info.kernel;
    if (strategy.size() > 40)
      strategy = strategy.substr(0, 37) + "...";
    std::string group =
        row.hasGroup ? std::to_string(row.info.group) : std::string("-");
    std::printf("%6zu %5s %-40s %10.2f %5.1f%% %9.1f %8.1f %5.1f%%  %s\n",
                row.launch, group.c_str(), strategy.c_str(), row.us,
                total > 0 ? 100.0 * row.us / total : 0.0, d.gflops, d.gbps,
                d.limit,
                row.hasGroup ? groupNodes(model, row.info.group, 3).c_str()
                             : row.info.kernel);
  }
  double replayMs = median(whole);
  bool gpu = fuse_model_target(model) == FUSE_TARGET_CUDA;
  std::printf("profile: sum of launches %.3f ms, whole plan%s %.3f ms, "
              "sum/replay %.3f\n",
              total / 1e3, gpu ? " (graph replay)" : "", replayMs,
              replayMs > 0 ? total / 1e3 / replayMs : 0.0);
  printSelections(model, plan);

  if (options.profileFile.empty())
    return;
  std::string json = "{\"displayTimeUnit\": \"ns\", \"otherData\": {";
  json += "\"plan\": " + jsonString(planName) +
          ", \"device\": " + jsonString(fuse_model_device_name(model)) +
          ", \"copy_gbps\": " + std::to_string(copyGBps) +
          ", \"peak_gflops\": " + std::to_string(peakGFlops) +
          ", \"matmul_gflops\": {";
  for (int math = FUSE_MATH_FP32; math <= FUSE_MATH_BF16; ++math)
    json += std::string(math ? ", " : "") + "\"" +
            fuse_math_name(fuse_math(math)) +
            "\": " + std::to_string(mathGFlops[math]);
  json += std::string("}") +
          ", \"sum_ms\": " + std::to_string(total / 1e3) +
          ", \"event_overhead_ms\": " + std::to_string(overheadMs) +
          ", \"libraries\": " + jsonString(fuse_model_libraries(model)) +
          ", \"replay_ms\": " + std::to_string(replayMs) +
          "}, \"traceEvents\": [";
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row &row = rows[r];
    Derived d = derive(row);
    std::string name = row.hasGroup ? row.group.strategy : row.info.kernel;
    const char *category = row.info.kind == FUSE_LAUNCH_CUBLASLT ? "cublaslt"
                           : row.info.kind == FUSE_LAUNCH_CUDNN  ? "cudnn"
                                                                 : "kernel";
    char numbers[256];
    std::snprintf(numbers, sizeof(numbers),
                  "\"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": 1",
                  startUs[r], row.us);
    json += std::string(r ? "," : "") + "\n  {\"name\": " + jsonString(name) +
            ", \"cat\": \"" + category + "\", \"ph\": \"X\", " + numbers +
            ", \"args\": {\"launch\": " + std::to_string(row.launch) +
            ", \"kernel\": " + jsonString(row.info.kernel) + ", \"math\": \"" +
            fuse_math_name(row.info.math) + "\"";
    if (row.hasGroup) {
      std::snprintf(numbers, sizeof(numbers),
                    ", \"group\": %u, \"flops\": %llu, \"bytes\": %llu, "
                    "\"gflops\": %.3f, \"gbps\": %.3f, \"limit_percent\": "
                    "%.2f",
                    row.info.group, (unsigned long long)row.group.flops,
                    (unsigned long long)row.group.bytes, d.gflops, d.gbps,
                    d.limit);
      json += numbers;
      json += ", \"nodes\": " +
              jsonString(groupNodes(model, row.info.group, ~size_t(0)));
    }
    json += "}}";
  }
  json += "\n]}\n";
  std::string message;
  // The table first, also when the JSON goes to standard output ("-").
  std::fflush(stdout);
  if (!writeFile(options.profileFile,
                 std::vector<uint8_t>(json.begin(), json.end()), message))
    error(message);
  if (options.profileFile != "-")
    std::printf("profile: wrote %s\n", options.profileFile.c_str());
}

} // namespace

/// --info: a plan's choices, their candidates ('*' on the selected one),
/// launches and measured times.
static void describeChoices(const fuse_model *model, size_t plan) {
  for (size_t c = 0; c < fuse_model_plan_num_choices(model, plan); ++c) {
    fuse_choice_info choice;
    check(fuse_model_plan_choice(model, plan, c, &choice));
    std::printf("  choice %zu '%s': %u candidates, candidate %u selected "
                "(%s)\n",
                c, choice.key, choice.num_candidates, choice.selected,
                choice.tuned ? "tuned" : "heuristic");
    for (uint32_t i = 0; i < choice.num_candidates; ++i) {
      fuse_candidate_info candidate;
      check(fuse_model_plan_candidate(model, plan, c, i, &candidate));
      std::printf("   %c candidate %u: %s, launches [%u, %u)",
                  i == choice.selected ? '*' : ' ', i, candidate.label,
                  candidate.first_launch,
                  candidate.first_launch + candidate.num_launches);
      if (candidate.time_ms > 0)
        std::printf(", %.6f ms", candidate.time_ms);
      std::printf("\n");
    }
  }
}

/// --info: what the artifact holds, read without loading it (any target,
/// any machine).
int describe(const Options &options) {
  fuse_model *model = nullptr;
  check(fuse_model_inspect(options.model.c_str(), &model));
  size_t numPlans = fuse_model_num_plans(model);
  std::printf("artifact: %s %s, %zu input(s), %zu output(s), %zu plan(s)\n",
              fuse_model_target(model) == FUSE_TARGET_CUDA ? "cuda" : "cpu",
              fuse_model_arch(model), fuse_model_num_inputs(model),
              fuse_model_num_outputs(model), numPlans);
  if (fuse_model_target(model) == FUSE_TARGET_CPU)
    std::printf("kernels for: %s (a host loads the highest level it has)\n",
                fuse_model_kernel_archs(model));
  if (*fuse_model_compiler(model))
    std::printf("compiled by: %s\ncompile flags: %s\n",
                fuse_model_compiler(model), fuse_model_compile_flags(model));
  else
    std::printf("compiled by: not recorded (the artifact has no Build "
                "section: format version 5 added it)\n");
  // The signature as described, nothing allocated for it (a huge input
  // made --info die of bad_alloc).
  for (bool output : {false, true}) {
    size_t n = output ? fuse_model_num_outputs(model)
                      : fuse_model_num_inputs(model);
    for (size_t i = 0; i < n; ++i) {
      fuse_tensor_info info;
      check(output ? fuse_model_output_info(model, i, &info)
                   : fuse_model_input_info(model, i, &info));
      std::vector<int64_t> dims(info.dims, info.dims + info.rank);
      std::printf("%s %zu '%s': %s (%llu bytes)\n", output ? "output" : "input",
                  i, info.name, typeString(info.dtype, dims).c_str(),
                  (unsigned long long)info.bytes);
    }
  }
  for (size_t p = 0; p < numPlans; ++p) {
    size_t launches = fuse_model_plan_num_launches(model, p);
    std::printf("plan '%s': %zu launch(es), arena %llu bytes, launches move "
                "%llu bytes\n",
                fuse_model_plan_name(model, p), launches,
                (unsigned long long)fuse_model_plan_arena_bytes(model, p),
                (unsigned long long)fuse_model_plan_bytes(model, p));
    static const char *const kinds[] = {"input", "output", "weight",
                                        "intermediate", "check"};
    for (size_t b = 0; b < fuse_model_plan_num_buffers(model, p); ++b) {
      fuse_buffer_info info;
      check(fuse_model_plan_buffer(model, p, b, &info));
      std::vector<int64_t> dims(info.dims, info.dims + info.rank);
      std::printf("  buffer %zu: %s %s %s offset %llu, %llu bytes\n", b,
                  kinds[info.kind], typeString(info.dtype, dims).c_str(),
                  info.kind == FUSE_BUFFER_WEIGHT ? "weights" : "arena",
                  (unsigned long long)info.offset,
                  (unsigned long long)info.bytes);
    }
    for (size_t l = 0; l < launches; ++l) {
      fuse_launch_info info;
      check(fuse_model_plan_launch(model, p, l, &info));
      std::printf("  launch %zu: ", l);
      if (info.kind == FUSE_LAUNCH_KERNEL)
        std::printf("kernel %s grid [%u,%u,%u] block [%u,%u,%u]%s", info.kernel,
                    info.grid[0], info.grid[1], info.grid[2], info.block[0],
                    info.block[1], info.block[2],
                    info.shared_bytes
                        ? (" shared " + std::to_string(info.shared_bytes))
                              .c_str()
                        : "");
      else
        std::printf("%s", info.kernel);
      std::printf(" buffers (");
      for (uint32_t a = 0; a < info.num_args; ++a)
        std::printf("%s%u", a ? ", " : "", info.args[a]);
      std::printf(")");
      if (info.workspace_bytes)
        std::printf(" workspace %llu bytes at %llu",
                    (unsigned long long)info.workspace_bytes,
                    (unsigned long long)info.workspace_offset);
      if (info.group != FUSE_NO_GROUP)
        std::printf(" group %u", info.group);
      std::printf("\n");
    }
    describeChoices(model, p);
    for (size_t c = 0; c < fuse_model_plan_num_checks(model, p); ++c) {
      fuse_check_info info;
      check(fuse_model_plan_check(model, p, c, &info));
      std::printf("  index check %zu: %s '%s', %s (buffer %u)\n", c,
                  info.op_type, info.node, info.range, info.buffer);
    }
  }
  size_t groups = fuse_model_num_groups(model);
  for (size_t g = 0; g < groups; ++g) {
    fuse_group_info info;
    check(fuse_model_group_info(model, g, &info));
    std::printf("group %zu: %s, %llu flops, %llu bytes, nodes: %s\n", g,
                info.strategy, (unsigned long long)info.flops,
                (unsigned long long)info.bytes,
                groupNodes(model, g, ~size_t(0)).c_str());
  }
  fuse_model_free(model);
  return 0;
}

/// --candidate N: every choice of the plans runs its candidate N, or its
/// last when it has fewer (so that N = 0, 1, ... up to the most candidates
/// any choice has runs every candidate at least once).
void selectCandidate(fuse_model *model, const std::vector<size_t> &plans,
                     size_t candidate) {
  size_t choices = 0;
  for (size_t plan : plans)
    choices += fuse_model_plan_num_choices(model, plan);
  if (choices == 0)
    error("--candidate " + std::to_string(candidate) +
          ": the plan has no choices to select among (compile with "
          "fuse-compile --candidates)");
  for (size_t plan : plans)
    for (size_t c = 0; c < fuse_model_plan_num_choices(model, plan); ++c) {
      fuse_choice_info info;
      check(fuse_model_plan_choice(model, plan, c, &info));
      check(fuse_model_plan_select(
          model, plan, c,
          uint32_t(std::min<size_t>(candidate, info.num_candidates - 1))));
    }
}

/// --check-onnx: onnxruntime lives in Python, not in the runtime, so the
/// comparison is the Python package's `python3 -m fuse check-onnx`. This
/// process becomes it; the build tree's package (beside bin/) comes first
/// on PYTHONPATH when there is one.
int checkOnnx(const Options &options) {
  const char *python = std::getenv("FUSE_PYTHON");
  if (!python || !*python)
    python = "python3";
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length > 0) {
    std::string exe(self, size_t(length));
    std::string packages =
        exe.substr(0, exe.find_last_of('/')) + "/../python_packages";
    if (isDirectory(packages + "/fuse")) {
      const char *path = std::getenv("PYTHONPATH");
      std::string value =
          packages + (path && *path ? ":" + std::string(path) : "");
      setenv("PYTHONPATH", value.c_str(), 1);
    }
  }
  std::string seed = std::to_string(options.seed);
  std::vector<const char *> argv = {python,
                                    "-m",
                                    "fuse",
                                    "check-onnx",
                                    options.model.c_str(),
                                    options.checkOnnx.c_str(),
                                    "--seed",
                                    seed.c_str(),
                                    "--plan",
                                    options.plans.front().c_str()};
  if (!options.inputs.empty()) {
    argv.push_back("--inputs");
    argv.push_back(options.inputs.front().c_str());
  }
  argv.push_back(nullptr);
  std::fflush(stdout);
  execvp(python, const_cast<char *const *>(argv.data()));
  std::fprintf(stderr,
               "fuse-run: --check-onnx runs '%s -m fuse check-onnx' (the "
               "Python package, with onnxruntime), which did not start: %s\n",
               python, std::strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  if (options.info)
    return describe(options);
  if (!options.checkOnnx.empty())
    return checkOnnx(options);
  // Before any work: no output may be a file the run reads.
  for (const std::string *path : {&options.outputs, &options.profileFile})
    if (!path->empty() && !isDirectory(*path))
      checkOutput(*path, options);
  fuse_model *model = nullptr;
  check(fuse_model_load(options.model.c_str(), &model));
  // A directory's files are named by output: known once the model is.
  if (!options.outputs.empty() && !endsWith(options.outputs, ".npz") &&
      !endsWith(options.outputs, ".npy"))
    for (size_t i = 0; i < fuse_model_num_outputs(model); ++i)
      checkOutput(outputFileInDirectory(options.outputs, i), options);

  std::vector<Tensor> inputs = signature(model, false);
  if (options.inputs.empty()) {
    randomize(inputs, options.seed);
  } else {
    InputBinder binder(inputs);
    for (const std::string &path : options.inputs)
      binder.bindFile(path);
    binder.finish();
  }
  setInputs(model, inputs);

  std::vector<size_t> plans;
  for (const std::string &name : options.plans)
    plans.push_back(requirePlan(model, name));
  if (options.candidate >= 0)
    selectCandidate(model, plans, size_t(options.candidate));

  int status = 0;
  if (options.profile) {
    profile(model, plans[0], options);
  } else if (options.check) {
    long reference = findPlan(model, "reference");
    if (reference < 0)
      error("the artifact has no 'reference' plan to check against: "
            "compile with fuse-compile --reference (a model of more ops "
            "than --reference-limit gets none), or check against "
            "onnxruntime instead: --check-onnx MODEL.onnx");
    std::vector<Tensor> got = runPlan(model, plans[0]);
    std::vector<Tensor> want = runPlan(model, size_t(reference));
    std::printf("check: plan '%s' against 'reference', rtol=%g atol=%g\n",
                options.plans[0].c_str(), options.rtol, options.atol);
    bool pass = compare(got, want, options);
    std::printf("check: %s\n", pass ? "PASS" : "FAIL");
    status = pass ? 0 : 1;
    if (!options.outputs.empty())
      writeOutputs(got, options.outputs, options);
  } else if (!options.bench || !options.outputs.empty()) {
    std::vector<Tensor> outputs = runPlan(model, plans[0]);
    if (!options.outputs.empty())
      writeOutputs(outputs, options.outputs, options);
    else
      printOutputs(outputs);
  }
  if (options.bench && !options.profile)
    for (size_t plan : plans)
      bench(model, plan, options);
  std::fflush(stdout);
  fuse_model_free(model);
  return status;
}
