//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"
#include "Error.h"

#include <dlfcn.h>

namespace fuse {
namespace runtime {

namespace {

/// The outcome of the one attempt per process to load the driver.
struct LoadedDriver {
  CudaDriver driver;
  /// Why the driver cannot be used ("" if it can); the artifact's needs are
  /// appended per load.
  std::string problem;
};

template <typename Function>
bool bind(void *library, Function &function, const char *symbol,
          const char *fallback) {
  void *address = dlsym(library, symbol);
  if (!address && fallback)
    address = dlsym(library, fallback);
  function = reinterpret_cast<Function>(address);
  return address != nullptr;
}

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  CudaDriver &d = loaded.driver;
  // Never closed: the driver stays for the life of the process.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    loaded.problem = "CUDA driver (libcuda.so.1) not found";
    return loaded;
  }
#define FUSE_CUDA_BIND(member, symbol, fallback, result, params)               \
  if (!bind(library, d.member, symbol, fallback)) {                            \
    loaded.problem = "CUDA driver (libcuda.so.1) has no " symbol               \
                     " (the driver is too old for this runtime)";              \
    return loaded;                                                             \
  }
  FUSE_CUDA_DRIVER_FUNCTIONS(FUSE_CUDA_BIND)
#undef FUSE_CUDA_BIND

  CUresult result = d.cuInit(0);
  if (result != CUDA_SUCCESS) {
    loaded.problem = result == CUDA_ERROR_NO_DEVICE
                         ? "no CUDA device found"
                         : "cannot initialize the CUDA driver";
    loaded.problem += " (cuInit: " + d.describe(result) + ")";
    return loaded;
  }
  int count = 0;
  result = d.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    loaded.problem =
        "cannot count the CUDA devices (cuDeviceGetCount: " +
        d.describe(result) + ")";
  else if (count == 0)
    loaded.problem = "no CUDA device found (cuDeviceGetCount: 0 devices)";
  return loaded;
}

} // namespace

fuse_status CudaDriver::get(const std::string &arch,
                            const CudaDriver *&driver) {
  static const LoadedDriver loaded = loadDriver();
  if (!loaded.problem.empty())
    return fail(FUSE_ERROR_TARGET,
                "%s: this artifact targets %s and needs an NVIDIA GPU",
                loaded.problem.c_str(), arch.c_str());
  driver = &loaded.driver;
  return FUSE_OK;
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!cuGetErrorName || cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return format("CUDA error %d", result);
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    return name;
  return format("%s (%s)", name, text);
}

fuse_status CudaDriver::check(CUresult result, const std::string &what) const {
  if (result == CUDA_SUCCESS)
    return FUSE_OK;
  return fail(FUSE_ERROR_DEVICE, "cuda: %s failed: %s", what.c_str(),
              describe(result).c_str());
}

fuse_status CudaDriver::endCapture(CUstream stream, fuse_status status,
                                   const std::string &what,
                                   CUgraphExec &exec) const {
  CUgraph graph = nullptr;
  CUresult ended = cuStreamEndCapture(stream, &graph);
  if (!status)
    status = check(ended, what + " (cuStreamEndCapture)");
  if (!status)
    status = check(cuGraphInstantiate(&exec, graph, 0),
                   what + " (cuGraphInstantiateWithFlags)");
  if (graph)
    cuGraphDestroy(graph);
  return status;
}

fuse_status CudaDriver::timeGraph(CUstream stream, CUevent start, CUevent stop,
                                  CUgraphExec exec, const std::string &what,
                                  float &ms) const {
  fuse_status s = check(cuEventRecord(start, stream), "cuEventRecord");
  if (!s && exec)
    s = check(cuGraphLaunch(exec, stream), "cuGraphLaunch (" + what + ")");
  if (!s)
    s = check(cuEventRecord(stop, stream), "cuEventRecord");
  if (!s)
    s = check(cuEventSynchronize(stop),
              "running " + what + " (cuEventSynchronize)");
  if (!s)
    s = check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return s;
}

} // namespace runtime
} // namespace fuse
