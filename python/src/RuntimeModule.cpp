//===- RuntimeModule.cpp - fuse._runtime: the C API for Python -----------===//
//
// An artifact loaded through the runtime's C API (fuse/runtime.h), as a
// session that takes and returns numpy arrays. The package's InferenceSession
// (fuse/__init__.py) subclasses Session. This module links the runtime only,
// not the compiler, so that serving a model does not load LLVM.
//
// Every error becomes one of the exceptions of fuse/_errors.py, with the
// C API's message (fuse_last_error) or a message of this module's own for
// what the C API cannot see (names, dtypes, shapes).
//
//===----------------------------------------------------------------------===//

#include "fuse/runtime.h"
#include "fuse/runtime/Artifact.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// The exception classes of fuse/_errors.py, looked up once at import. They
/// are never released: the module cannot be unloaded.
struct ErrorTypes {
  PyObject *artifact, *target, *device, *argument, *base;
};
ErrorTypes errorTypes;

void loadErrorTypes() {
  nb::module_ errors = nb::module_::import_("fuse._errors");
  auto get = [&](const char *name) {
    return errors.attr(name).inc_ref().ptr();
  };
  errorTypes = {get("ArtifactError"), get("TargetError"), get("DeviceError"),
                get("InvalidArgument"), get("FuseError")};
}

PyObject *errorType(fuse_status status) {
  switch (status) {
  case FUSE_ERROR_IO:
  case FUSE_ERROR_FORMAT:
    return errorTypes.artifact;
  case FUSE_ERROR_TARGET:
    return errorTypes.target;
  case FUSE_ERROR_DEVICE:
    return errorTypes.device;
  case FUSE_ERROR_ARGUMENT:
    return errorTypes.argument;
  case FUSE_OK:
    break;
  }
  return errorTypes.base;
}

[[noreturn]] void raise(PyObject *type, const std::string &message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

[[noreturn]] void raiseArgument(const std::string &message) {
  raise(errorTypes.argument, message);
}

/// Raises the C API's last error for a failed call.
void check(fuse_status status) {
  if (status != FUSE_OK)
    raise(errorType(status), fuse_last_error());
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// ONNX's type names (onnxruntime's NodeArg.type: "tensor(float)").
const char *onnxTypeName(uint32_t dtype) {
  using fuse::artifact::DType;
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  case DType::Float16:
    return "float16";
  case DType::BFloat16:
    return "bfloat16";
  default:
    return fuse::artifact::dtypeName(dtype);
  }
}

/// The DLPack type numpy arrays of an ONNX dtype have. bfloat16, which
/// numpy lacks, travels as its bits in uint16.
nb::dlpack::dtype dlpackType(uint32_t dtype) {
  using fuse::artifact::DType;
  using Code = nb::dlpack::dtype_code;
  uint8_t bits = uint8_t(8 * fuse::artifact::dtypeSize(dtype));
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
  case DType::Float64:
  case DType::Float16:
    return {uint8_t(Code::Float), bits, 1};
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
    return {uint8_t(Code::Int), bits, 1};
  case DType::Bool:
    return {uint8_t(Code::Bool), bits, 1};
  default: // unsigned, bfloat16
    return {uint8_t(Code::UInt), bits, 1};
  }
}

/// A graph input or output, as onnxruntime's NodeArg describes it.
struct NodeArg {
  std::string name;
  std::vector<int64_t> shape;
  uint32_t dtype = 0;
  uint64_t bytes = 0;

  std::string type() const {
    return std::string("tensor(") + onnxTypeName(dtype) + ")";
  }
  /// numpy's name of the arrays it takes and gives ("float32").
  std::string numpyType() const {
    return dtype == uint32_t(fuse::artifact::DType::BFloat16)
               ? "uint16"
               : fuse::artifact::dtypeName(dtype);
  }
  /// "float32[1,3,224,224]", as the C API's messages write it.
  std::string signature() const {
    std::string text = std::string(fuse::artifact::dtypeName(dtype)) + "[";
    for (size_t i = 0; i < shape.size(); ++i)
      text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
  }
  std::string repr() const {
    std::string dims;
    for (size_t i = 0; i < shape.size(); ++i)
      dims += (i ? ", " : "") + std::to_string(shape[i]);
    return "NodeArg(name='" + name + "', type='" + type() + "', shape=[" +
           dims + "])";
  }
};

NodeArg toNodeArg(const fuse_tensor_info &info) {
  NodeArg arg;
  arg.name = info.name;
  arg.shape.assign(info.dims, info.dims + info.rank);
  arg.dtype = info.dtype;
  arg.bytes = info.bytes;
  return arg;
}

std::string joinNames(const std::vector<NodeArg> &args) {
  std::string text;
  for (const NodeArg &arg : args)
    text += (text.empty() ? "'" : ", '") + arg.name + "'";
  return text;
}

/// The name of `value`'s type, for messages.
std::string typeName(nb::handle value) {
  return nb::type_name(value.type()).c_str();
}

/// The index of `key`, a name of one of `args` ("input" or "output"
/// `what`); a TypeError for a key that is not a str, InvalidArgument for
/// an unknown name.
size_t lookUp(nb::handle key, const std::vector<NodeArg> &args,
              const std::unordered_map<std::string, size_t> &index,
              const char *what) {
  if (!nb::isinstance<nb::str>(key))
    raise(PyExc_TypeError,
          std::string(what) + " names must be str, not " + typeName(key));
  std::string name = nb::cast<std::string>(key);
  auto found = index.find(name);
  if (found == index.end())
    raiseArgument("unknown " + std::string(what) + " '" + name +
                  "'; the model's " + what + "s are " + joinNames(args));
  return found->second;
}

using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

std::string shapeText(const HostArray &array) {
  std::string text = "[";
  for (size_t i = 0; i < array.ndim(); ++i)
    text += (i ? "," : "") + std::to_string(array.shape(i));
  return text + "]";
}

/// Whether `array`'s shape is `shape`.
template <typename Array>
bool hasShape(const Array &array, const std::vector<int64_t> &shape) {
  if (array.ndim() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (int64_t(array.shape(d)) != shape[d])
      return false;
  return true;
}

/// numpy's name of a DLPack type: "float64", "bool".
std::string dtypeText(nb::dlpack::dtype type) {
  // DLPack's type codes, in order.
  static const char *const kinds[] = {"int",    "uint",    "float", "opaque",
                                      "bfloat", "complex", "bool"};
  if (type.code == uint8_t(nb::dlpack::dtype_code::Bool))
    return "bool";
  std::string kind = type.code < std::size(kinds)
                         ? kinds[type.code]
                         : "type code " + std::to_string(type.code) + " ";
  return kind + std::to_string(type.bits);
}

/// `value` as a C-contiguous host array, converted by numpy when it is not
/// one (a list, a strided view); a TypeError for what numpy cannot take.
HostArray toHostArray(const NodeArg &input, nb::handle value) {
  HostArray array;
  if (nb::try_cast(value, array, /*convert=*/true))
    return array;
  nb::object converted;
  try {
    converted = nb::module_::import_("numpy").attr("ascontiguousarray")(value);
    // DLPack has no byte order: a big-endian array is converted to the
    // native order ('>' on this little-endian host).
    nb::object dtype = converted.attr("dtype");
    if (nb::cast<std::string>(dtype.attr("byteorder")) == ">")
      converted = converted.attr("astype")(dtype.attr("newbyteorder")("="));
  } catch (nb::python_error &) {
    converted = nb::none();
  }
  if (converted.is_none() || !nb::try_cast(converted, array, true))
    raise(PyExc_TypeError, "input '" + input.name +
                               "' must be a numpy array (" + input.numpyType() +
                               "), not " + typeName(value));
  return array;
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

class Session {
public:
  Session(nb::handle source, int device) {
    fuse_status status;
    fuse_load_options options;
    fuse_load_options_init(&options);
    options.device = device;
    if (nb::isinstance<Session>(source)) {
      // Another session of the same loaded artifact: shares its weights.
      Session &other = nb::cast<Session &>(source);
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(other.mutex);
      status = fuse_model_new_session(other.model, &model);
    } else if (PyBytes_Check(source.ptr()) || PyByteArray_Check(source.ptr()) ||
               PyMemoryView_Check(source.ptr())) {
      // Any buffer: bytes from fuse.compile, a bytearray, a memoryview.
      Py_buffer view;
      if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0)
        throw nb::python_error();
      {
        nb::gil_scoped_release release;
        status = fuse_model_load_bytes_with(view.buf, size_t(view.len),
                                            &options, &model);
      }
      PyBuffer_Release(&view);
    } else {
      // A path: str or os.PathLike.
      std::string path = nb::cast<std::string>(
          nb::module_::import_("os").attr("fspath")(source));
      nb::gil_scoped_release release;
      status = fuse_model_load_with(path.c_str(), &options, &model);
    }
    check(status);
    fuse_tensor_info info;
    for (size_t i = 0, e = fuse_model_num_inputs(model); i < e; ++i) {
      check(fuse_model_input_info(model, i, &info));
      inputIndex[info.name] = i;
      inputs.push_back(toNodeArg(info));
    }
    for (size_t i = 0, e = fuse_model_num_outputs(model); i < e; ++i) {
      check(fuse_model_output_info(model, i, &info));
      outputIndex[info.name] = i;
      outputs.push_back(toNodeArg(info));
    }
  }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() { fuse_model_free(model); }

  const std::vector<NodeArg> &getInputs() const { return inputs; }
  const std::vector<NodeArg> &getOutputs() const { return outputs; }
  std::string target() const {
    return fuse_model_target(model) == FUSE_TARGET_CUDA ? "cuda" : "cpu";
  }
  std::string arch() const { return fuse_model_arch(model); }
  std::string compiler() const { return fuse_model_compiler(model); }
  std::string compileFlags() const { return fuse_model_compile_flags(model); }
  std::string device() const { return fuse_model_device_name(model); }
  int deviceIndex() const { return fuse_model_device(model); }
  std::string libraries() const { return fuse_model_libraries(model); }
  std::vector<std::string> plans() const {
    std::vector<std::string> names;
    for (size_t p = 0, e = fuse_model_num_plans(model); p < e; ++p)
      names.push_back(fuse_model_plan_name(model, p));
    return names;
  }

  nb::list run(nb::handle outputNames, nb::handle feeds,
               const std::string &plan);
  void runBound(nb::handle feeds, nb::list outputs, uintptr_t stream,
                const std::string &plan);
  nb::dict profile(nb::handle feeds, const std::string &plan, int warmup,
                   int iterations, bool measureLimits);
  nb::list groups() const;

private:
  size_t planIndex(const std::string &name) const;
  /// Checks `feeds` against the inputs and returns one array per input,
  /// in input order.
  std::vector<HostArray> checkFeeds(nb::handle feeds) const;
  /// Checks that `feeds` is a dict that names every input (of `noun`s) and
  /// nothing else, and returns take(input, value) for each input, in input
  /// order.
  template <typename T, typename Take>
  std::vector<T> takeFeeds(nb::handle feeds, const char *noun, Take take) const;
  std::vector<size_t> selectOutputs(nb::handle names) const;
  /// Runs `body`, C API calls that return the first failure, with the GIL
  /// released and the session locked; raises that failure.
  template <typename Body> void locked(Body body);
  /// The address of a tensor the caller binds (runBound): a torch tensor
  /// read directly (its __dlpack__ is Python, several microseconds), any
  /// other through DLPack; its dtype, shape, layout and device checked.
  void *boundAddress(const NodeArg &arg, const char *role, nb::handle value,
                     bool writable) const;
  /// Copies `arrays` into the inputs; the caller holds the lock.
  fuse_status copyInputs(const std::vector<HostArray> &arrays);

  fuse_model *model = nullptr;
  std::vector<NodeArg> inputs, outputs;
  std::unordered_map<std::string, size_t> inputIndex, outputIndex;
  /// The C API takes one caller at a time per model; Python threads run
  /// with the GIL released, so the session serializes them itself.
  std::mutex mutex;
  bool inputsSet = false;
};

size_t Session::planIndex(const std::string &name) const {
  std::vector<std::string> names = plans();
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end())
    return size_t(it - names.begin());
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "'" : ", '") + n + "'";
  raiseArgument("unknown plan '" + name + "'; the artifact has " + known +
                (name == "reference" ? " (compile with reference=True for "
                                       "the unfused reference plan)"
                                     : ""));
}

template <typename T, typename Take>
std::vector<T> Session::takeFeeds(nb::handle feeds, const char *noun,
                                  Take take) const {
  if (!PyDict_Check(feeds.ptr()))
    raise(PyExc_TypeError, std::string("the feeds must be a dict of input "
                                       "name to ") +
                               noun + ", not " + typeName(feeds));
  std::vector<T> taken(inputs.size());
  std::vector<bool> given(inputs.size(), false);
  for (auto [key, value] : nb::borrow<nb::dict>(feeds)) {
    size_t index = lookUp(key, inputs, inputIndex, "input");
    taken[index] = take(inputs[index], value);
    given[index] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!given[i])
      raiseArgument("missing input '" + inputs[i].name + "' (" +
                    inputs[i].signature() + "); the model's inputs are " +
                    joinNames(inputs));
  return taken;
}

std::vector<HostArray> Session::checkFeeds(nb::handle feeds) const {
  return takeFeeds<HostArray>(
      feeds, "array", [](const NodeArg &input, nb::handle value) {
        const std::string &name = input.name;
        HostArray array = toHostArray(input, value);
        if (array.dtype() != dlpackType(input.dtype))
          raiseArgument("input '" + name + "' is " + dtypeText(array.dtype()) +
                        " but the model takes " + input.signature() +
                        " (numpy " + input.numpyType() + ")");
        if (!hasShape(array, input.shape))
          raiseArgument("input '" + name + "' has shape " + shapeText(array) +
                        " but the model takes " + input.signature() +
                        " (shapes are fixed when the model is compiled)");
        return array;
      });
}

std::vector<size_t> Session::selectOutputs(nb::handle names) const {
  std::vector<size_t> selected;
  if (names.is_none()) {
    for (size_t i = 0; i < outputs.size(); ++i)
      selected.push_back(i);
    return selected;
  }
  if (nb::isinstance<nb::str>(names))
    raise(PyExc_TypeError, "output_names must be a list of names or None, "
                           "not a str");
  for (nb::handle item : names)
    selected.push_back(lookUp(item, outputs, outputIndex, "output"));
  return selected;
}

template <typename Body> void Session::locked(Body body) {
  fuse_status status;
  std::string message;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    status = body();
    if (status != FUSE_OK)
      message = fuse_last_error();
  }
  if (status != FUSE_OK)
    raise(errorType(status), message);
}

fuse_status Session::copyInputs(const std::vector<HostArray> &arrays) {
  for (size_t i = 0; i < arrays.size(); ++i)
    if (fuse_status s = fuse_model_set_input(model, i, arrays[i].data(),
                                             arrays[i].nbytes()))
      return s;
  inputsSet = true;
  return FUSE_OK;
}

nb::list Session::run(nb::handle outputNames, nb::handle feeds,
                      const std::string &plan) {
  size_t planId = planIndex(plan);
  std::vector<size_t> selected = selectOutputs(outputNames);
  std::vector<HostArray> arrays = checkFeeds(feeds);
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  for (size_t o : selected)
    buffers.emplace_back(new uint8_t[std::max<uint64_t>(outputs[o].bytes, 1)]);

  locked([&] {
    if (fuse_status s = copyInputs(arrays))
      return s;
    if (fuse_status s = fuse_model_run(model, planId))
      return s;
    for (size_t k = 0; k < selected.size(); ++k)
      if (fuse_status s = fuse_model_get_output(
              model, selected[k], buffers[k].get(), outputs[selected[k]].bytes))
        return s;
    return FUSE_OK;
  });

  nb::list results;
  for (size_t k = 0; k < selected.size(); ++k) {
    const NodeArg &output = outputs[selected[k]];
    uint8_t *data = buffers[k].release();
    nb::capsule owner(
        data, [](void *p) noexcept { delete[] static_cast<uint8_t *>(p); });
    std::vector<size_t> shape(output.shape.begin(), output.shape.end());
    results.append(nb::ndarray<nb::numpy>(data, shape.size(), shape.data(),
                                          owner, nullptr,
                                          dlpackType(output.dtype))
                       .cast());
  }
  return results;
}

/// Python's str(value). Not nb::str(value): for an object that is not a
/// str, some nanobind versions wrap it as it is rather than converting it.
std::string pyStr(nb::handle value) {
  nb::object text = nb::steal(PyObject_Str(value.ptr()));
  if (!text.is_valid())
    throw nb::python_error();
  return nb::cast<std::string>(text);
}

void *Session::boundAddress(const NodeArg &arg, const char *role,
                            nb::handle value, bool writable) const {
  bool cuda = fuse_model_target(model) == FUSE_TARGET_CUDA;
  int device = fuse_model_device(model);
  // Made for an error only: this runs on every call.
  auto where = [&] {
    return cuda ? "the CUDA device " + std::to_string(device)
                : std::string("the host");
  };
  auto what = [&] { return std::string(role) + " '" + arg.name + "'"; };
  if (nb::hasattr(value, "data_ptr") && nb::hasattr(value, "is_contiguous") &&
      nb::hasattr(value, "device")) {
    // torch.Tensor. Each attribute read with try_cast: an object that only
    // looks like a tensor gets a TypeError naming what could not be read.
    auto read = [&](auto &result, nb::handle from, const char *attribute) {
      if (!nb::try_cast(from, result))
        raise(PyExc_TypeError, what() + ": cannot read its " + attribute +
                                   " (" + pyStr(nb::repr(from)) + ")");
    };
    std::string dtype = pyStr(value.attr("dtype"));
    if (dtype != std::string("torch.") + fuse::artifact::dtypeName(arg.dtype))
      raiseArgument(what() + " is " + dtype + " but the model takes " +
                    arg.signature());
    nb::object shape = nb::steal(PySequence_Tuple(value.attr("shape").ptr()));
    if (!shape.is_valid())
      throw nb::python_error();
    bool sameShape = size_t(nb::len(shape)) == arg.shape.size();
    for (size_t d = 0; sameShape && d < arg.shape.size(); ++d) {
      int64_t extent = 0;
      read(extent, shape[d], "shape");
      sameShape = extent == arg.shape[d];
    }
    if (!sameShape)
      raiseArgument(what() + " has shape " + pyStr(shape) +
                    " but the model takes " + arg.signature());
    bool contiguous = false;
    read(contiguous, value.attr("is_contiguous")(), "is_contiguous()");
    if (!contiguous)
      raiseArgument(what() + " is not contiguous (call .contiguous())");
    nb::object on = value.attr("device");
    std::string type;
    read(type, on.attr("type"), "device.type");
    nb::object index = on.attr("index");
    int onIndex = 0;
    if (!index.is_none())
      read(onIndex, index, "device.index");
    if (type != (cuda ? "cuda" : "cpu") || (cuda && onIndex != device))
      raiseArgument(what() + " is on " + pyStr(on) + " but the model runs on " +
                    where());
    unsigned long long address = 0;
    read(address, value.attr("data_ptr")(), "data_ptr()");
    return reinterpret_cast<void *>(uintptr_t(address));
  }
  // Read-only tensors are inputs enough; an output must be writable.
  nb::ndarray<nb::ro, nb::c_contig> array;
  if (!nb::try_cast(value, array, /*convert=*/false))
    raise(PyExc_TypeError,
          what() +
              " must be a C-contiguous tensor that supports DLPack "
              "(a torch or CuPy tensor; a numpy array on the cpu "
              "target), not " +
              typeName(value));
  nb::ndarray<nb::c_contig> writableArray;
  if (writable && !nb::try_cast(value, writableArray, /*convert=*/false))
    raiseArgument(what() + " is read-only: run_dlpack writes its outputs "
                           "into it");
  if (array.dtype() != dlpackType(arg.dtype))
    raiseArgument(what() + " is " + dtypeText(array.dtype()) +
                  " but the model takes " + arg.signature());
  if (!hasShape(array, arg.shape))
    raiseArgument(what() + " has the wrong shape: the model takes " +
                  arg.signature());
  bool onDevice = cuda ? array.device_type() == nb::device::cuda::value &&
                             array.device_id() == device
                       : array.device_type() == nb::device::cpu::value;
  if (!onDevice)
    raiseArgument(what() + " is on DLPack device " +
                  std::to_string(array.device_type()) + ":" +
                  std::to_string(array.device_id()) +
                  " but the model runs on " + where());
  return const_cast<void *>(array.data());
}

void Session::runBound(nb::handle feeds, nb::list outputList, uintptr_t stream,
                       const std::string &plan) {
  size_t planId = planIndex(plan);
  std::vector<void *> in = takeFeeds<void *>(
      feeds, "tensor", [&](const NodeArg &input, nb::handle value) {
        return boundAddress(input, "input", value, false);
      });
  if (nb::len(outputList) != outputs.size())
    raiseArgument("there must be one output tensor per output (" +
                  std::to_string(outputs.size()) + "), not " +
                  std::to_string(nb::len(outputList)));
  std::vector<void *> out(outputs.size(), nullptr);
  for (size_t o = 0; o < outputs.size(); ++o)
    if (!outputList[o].is_none())
      out[o] = boundAddress(outputs[o], "output", outputList[o], true);
  void *on = reinterpret_cast<void *>(stream);
  locked([&] {
    fuse_status status = FUSE_OK;
    for (size_t i = 0; i < in.size() && !status; ++i)
      status = fuse_model_bind_input(model, i, in[i], inputs[i].bytes);
    for (size_t o = 0; o < out.size() && !status; ++o)
      status = fuse_model_bind_output(model, o, out[o], outputs[o].bytes);
    if (!status)
      status = fuse_model_run_async(model, planId, on);
    // The run has taken the addresses; later calls must not use them.
    for (size_t i = 0; i < in.size(); ++i)
      fuse_model_bind_input(model, i, nullptr, 0);
    for (size_t o = 0; o < out.size(); ++o)
      fuse_model_bind_output(model, o, nullptr, 0);
    inputsSet = false;
    return status;
  });
}

nb::dict Session::profile(nb::handle feeds, const std::string &plan, int warmup,
                          int iterations, bool measureLimits) {
  size_t planId = planIndex(plan);
  if (warmup < 0 || iterations < 1)
    raiseArgument("profile: warmup (" + std::to_string(warmup) +
                  ") must not be negative and iterations (" +
                  std::to_string(iterations) + ") must be at least 1");
  std::vector<HostArray> arrays;
  if (!feeds.is_none())
    arrays = checkFeeds(feeds);
  size_t n = fuse_model_plan_num_launches(model, planId);
  std::vector<double> times(size_t(iterations) * n);
  std::vector<double> whole(static_cast<size_t>(iterations));
  double overheadMs = 0, copyGBps = 0, peakGFlops = 0;
  double mathGFlops[4] = {0, 0, 0, 0};
  locked([&] {
    if (!arrays.empty()) {
      if (fuse_status s = copyInputs(arrays))
        return s;
    } else if (!inputsSet) {
      // Timing does not depend on the values: zeros, which are valid for
      // every input (indices included).
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::vector<uint8_t> zeros(inputs[i].bytes, 0);
        if (fuse_status s =
                fuse_model_set_input(model, i, zeros.data(), zeros.size()))
          return s;
      }
      inputsSet = true;
    }
    if (measureLimits) {
      if (fuse_status s =
              fuse_model_measure_limits(model, &copyGBps, &peakGFlops))
        return s;
      mathGFlops[FUSE_MATH_FP32] = peakGFlops;
      // The rate of each other math a launch multiplies in.
      for (size_t l = 0; l < n; ++l) {
        fuse_launch_info info;
        if (fuse_status s = fuse_model_plan_launch(model, planId, l, &info))
          return s;
        if (info.math != FUSE_MATH_FP32 && mathGFlops[info.math] == 0)
          if (fuse_status s = fuse_model_measure_matmul_rate(
                  model, info.math, &mathGFlops[info.math]))
            return s;
      }
    }
    if (fuse_status s = fuse_model_profile(model, planId, warmup, iterations,
                                           times.data(), &overheadMs))
      return s;
    return fuse_model_benchmark(model, planId, warmup, iterations,
                                whole.data());
  });

  nb::list launches;
  for (size_t l = 0; l < n; ++l) {
    fuse_launch_info info;
    check(fuse_model_plan_launch(model, planId, l, &info));
    nb::list samples;
    for (int i = 0; i < iterations; ++i)
      samples.append(times[size_t(i) * n + l]);
    nb::dict launch;
    launch["launch"] = l;
    launch["kernel"] = info.kernel;
    launch["times_ms"] = samples;
    launch["kind"] = info.kind == FUSE_LAUNCH_CUBLASLT ? "cublaslt"
                     : info.kind == FUSE_LAUNCH_CUDNN  ? "cudnn"
                                                       : "kernel";
    launch["group"] = info.group == FUSE_NO_GROUP
                          ? nb::object(nb::none())
                          : nb::object(nb::int_(info.group));
    launch["math"] = fuse_math_name(info.math);
    launches.append(launch);
  }
  nb::list wholeMs;
  for (double t : whole)
    wholeMs.append(t);
  nb::dict result;
  result["plan"] = plan;
  result["device"] = device();
  result["libraries"] = libraries();
  result["launches"] = launches;
  result["plan_times_ms"] = wholeMs;
  result["overhead_ms"] = overheadMs;
  result["copy_gbps"] = copyGBps;
  result["peak_gflops"] = peakGFlops;
  nb::dict rates;
  for (int math = FUSE_MATH_FP32; math <= FUSE_MATH_BF16; ++math)
    rates[fuse_math_name(fuse_math(math))] = mathGFlops[math];
  result["matmul_gflops"] = rates;
  return result;
}

nb::list Session::groups() const {
  nb::list result;
  for (size_t g = 0, e = fuse_model_num_groups(model); g < e; ++g) {
    fuse_group_info info;
    check(fuse_model_group_info(model, g, &info));
    nb::list nodes;
    for (size_t k = 0; k < info.num_nodes; ++k) {
      const char *name = nullptr, *opType = nullptr;
      check(fuse_model_group_node(model, g, k, &name, &opType));
      nodes.append(nb::make_tuple(name, opType));
    }
    nb::dict group;
    group["group"] = g;
    group["strategy"] = info.strategy;
    group["flops"] = info.flops;
    group["bytes"] = info.bytes;
    group["nodes"] = nodes;
    result.append(group);
  }
  return result;
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "fuse's runtime: compiled artifacts run through its C API";
  loadErrorTypes();

  nb::class_<NodeArg>(m, "NodeArg",
                      "A graph input or output: name, shape and ONNX type, "
                      "as onnxruntime's NodeArg")
      .def_ro("name", &NodeArg::name)
      .def_ro("shape", &NodeArg::shape)
      .def_prop_ro("type", &NodeArg::type, "ONNX's type: 'tensor(float)'")
      .def_prop_ro("dtype", &NodeArg::numpyType,
                   "numpy's dtype name of the arrays it takes or gives")
      .def("__repr__", &NodeArg::repr);

  nb::class_<Session>(m, "Session", "A loaded artifact")
      .def(nb::init<nb::handle, int>(), "path_or_bytes"_a, nb::kw_only(),
           "device"_a = 0)
      .def("get_inputs", &Session::getInputs)
      .def("get_outputs", &Session::getOutputs)
      .def("run", &Session::run, "output_names"_a.none(), "input_feed"_a,
           nb::kw_only(), "plan"_a = "main")
      .def("_run_bound", &Session::runBound, "input_feed"_a, "outputs"_a,
           "stream"_a, "plan"_a)
      .def("_profile", &Session::profile, "input_feed"_a.none(), "plan"_a,
           "warmup"_a, "iterations"_a, "measure_limits"_a)
      .def("groups", &Session::groups)
      .def_prop_ro("target", &Session::target)
      .def_prop_ro("arch", &Session::arch)
      .def_prop_ro("compiler", &Session::compiler)
      .def_prop_ro("compile_flags", &Session::compileFlags)
      .def_prop_ro("device", &Session::device)
      .def_prop_ro("device_index", &Session::deviceIndex)
      .def_prop_ro("libraries", &Session::libraries)
      .def_prop_ro("plans", &Session::plans);
}
