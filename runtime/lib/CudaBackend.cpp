//===- CudaBackend.cpp - Run a plan as a CUDA Graph -----------------------===//
//
// Device 0's primary context; one module from the cubin (or, where the
// driver has no binary for this GPU, JIT-compiled from the PTX section);
// one cuMemAlloc holding the weights and every plan's arena; and one CUDA
// Graph per plan, captured from a stream once at load and replayed on each
// run, so a run costs one launch whatever the number of kernels.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "CudaDriver.h"
#include "Error.h"

#include <cstdint>

namespace fuse {
namespace runtime {

namespace {

using ull = unsigned long long;

class CudaBackend : public Backend {
public:
  ~CudaBackend() override {
    if (!cu || !context)
      return;
    // Teardown errors are ignored: there is nobody left to report them to.
    cu->cuCtxSetCurrent(context);
    for (CUgraphExec graph : graphs)
      if (graph)
        cu->cuGraphExecDestroy(graph);
    if (start)
      cu->cuEventDestroy(start);
    if (stop)
      cu->cuEventDestroy(stop);
    if (stream)
      cu->cuStreamDestroy(stream);
    if (memory)
      cu->cuMemFree(memory);
    if (module)
      cu->cuModuleUnload(module);
    cu->cuDevicePrimaryCtxRelease(device);
  }

  fuse_status load(const Artifact &a) override {
    if (fuse_status s = CudaDriver::get(a.arch, cu))
      return s;
    if (fuse_status s = cu->check(cu->cuDeviceGet(&device, 0), "cuDeviceGet"))
      return s;
    CUcontext primary = nullptr;
    if (fuse_status s =
            cu->check(cu->cuDevicePrimaryCtxRetain(&primary, device),
                      "cuDevicePrimaryCtxRetain"))
      return s;
    context = primary;
    if (fuse_status s = makeCurrent())
      return s;

    std::vector<CUfunction> functions;
    if (!a.kernels.empty()) {
      if (fuse_status s = loadModule(a))
        return s;
      for (size_t i = 0; i < a.kernels.size(); ++i) {
        const KernelDesc &kernel = a.kernels[i];
        CUfunction function = nullptr;
        if (fuse_status s = cu->check(
                cu->cuModuleGetFunction(&function, module, kernel.name.c_str()),
                format("cuModuleGetFunction for kernel %zu '%s'", i,
                       kernel.name.c_str())))
          return s;
        if (kernel.sharedBytes > kDefaultMaxDynamicShared)
          if (fuse_status s = cu->check(
                  cu->cuFuncSetAttribute(
                      function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      static_cast<int>(kernel.sharedBytes)),
                  format("cuFuncSetAttribute (%u bytes of dynamic shared "
                         "memory) for kernel '%s'",
                         kernel.sharedBytes, kernel.name.c_str())))
            return s;
        functions.push_back(function);
      }
    }

    // One allocation: the weights, then each plan's arena.
    if (fuse_status s = allocate(a))
      return s;
    if (a.weights.size)
      if (fuse_status s = copyIn(0, a.weights.data, a.weights.size))
        return s;
    if (fuse_status s =
            cu->check(cu->cuStreamCreate(&stream, 0), "cuStreamCreate"))
      return s;
    if (fuse_status s =
            cu->check(cu->cuEventCreate(&start, 0), "cuEventCreate"))
      return s;
    if (fuse_status s = cu->check(cu->cuEventCreate(&stop, 0), "cuEventCreate"))
      return s;
    for (const PlanDesc &plan : a.plans) {
      graphs.push_back(nullptr);
      if (fuse_status s = capture(a, plan, functions, graphs.back()))
        return s;
    }
    return FUSE_OK;
  }

  fuse_status copyIn(uint64_t offset, const void *data,
                     uint64_t bytes) override {
    if (bytes == 0)
      return FUSE_OK;
    if (fuse_status s = makeCurrent())
      return s;
    return cu->check(cu->cuMemcpyHtoD(memory + offset, data, bytes),
                     format("cuMemcpyHtoD of %llu bytes", ull(bytes)));
  }

  fuse_status copyOut(uint64_t offset, void *data, uint64_t bytes) override {
    if (bytes == 0)
      return FUSE_OK;
    if (fuse_status s = makeCurrent())
      return s;
    return cu->check(cu->cuMemcpyDtoH(data, memory + offset, bytes),
                     format("cuMemcpyDtoH of %llu bytes", ull(bytes)));
  }

  fuse_status run(size_t plan) override {
    if (fuse_status s = makeCurrent())
      return s;
    if (fuse_status s = launch(plan))
      return s;
    return cu->check(cu->cuStreamSynchronize(stream),
                     "running the plan (cuStreamSynchronize)");
  }

  fuse_status benchmark(size_t plan, int warmup, int iterations,
                        double *timesMs) override {
    if (fuse_status s = makeCurrent())
      return s;
    for (int i = 0; i < warmup; ++i)
      if (fuse_status s = launch(plan))
        return s;
    if (fuse_status s = cu->check(cu->cuStreamSynchronize(stream),
                                  "warming up the plan (cuStreamSynchronize)"))
      return s;
    for (int i = 0; i < iterations; ++i) {
      float ms = 0;
      fuse_status s =
          cu->check(cu->cuEventRecord(start, stream), "cuEventRecord");
      if (!s)
        s = launch(plan);
      if (!s)
        s = cu->check(cu->cuEventRecord(stop, stream), "cuEventRecord");
      if (!s)
        s = cu->check(cu->cuEventSynchronize(stop),
                      "running the plan (cuEventSynchronize)");
      if (!s)
        s = cu->check(cu->cuEventElapsedTime(&ms, start, stop),
                      "cuEventElapsedTime");
      if (s)
        return s;
      timesMs[i] = ms;
    }
    return FUSE_OK;
  }

private:
  /// The model may be used from any thread; the context must be current on
  /// the calling one.
  fuse_status makeCurrent() {
    return cu->check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  fuse_status launch(size_t plan) {
    if (!graphs[plan]) // A plan without launches.
      return FUSE_OK;
    return cu->check(cu->cuGraphLaunch(graphs[plan], stream), "cuGraphLaunch");
  }

  /// Loads the cubin, or JITs the PTX where the driver has no binary for
  /// this GPU in the cubin (or the artifact carries PTX only).
  fuse_status loadModule(const Artifact &a) {
    CUresult result = CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (a.kernelImage.size)
      result = cu->cuModuleLoadData(&module, a.kernelImage.data);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    module = nullptr;
    if (result != CUDA_ERROR_NO_BINARY_FOR_GPU)
      return cu->check(result, "cuModuleLoadData (the cubin)");
    std::string device = deviceArch();
    if (!a.kernelPtx.size)
      return fail(FUSE_ERROR_TARGET,
                  "cuda: the artifact's cubin is for %s, this GPU is %s, and "
                  "the artifact has no PTX to compile for it",
                  a.arch.c_str(), device.c_str());
    // cuModuleLoadDataEx wants NUL-terminated PTX.
    std::string ptx(reinterpret_cast<const char *>(a.kernelPtx.data),
                    a.kernelPtx.size);
    char log[4096] = {};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
    result = cu->cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    module = nullptr;
    return fail(FUSE_ERROR_DEVICE,
                "cuda: JIT compilation of the PTX for %s (cuModuleLoadDataEx) "
                "failed: %s%s%s",
                device.c_str(), cu->describe(result).c_str(),
                log[0] ? ": " : "", log);
  }

  /// The one allocation. When it does not fit, the error says what it
  /// holds and how much memory the device has free.
  fuse_status allocate(const Artifact &a) {
    uint64_t bytes = a.memoryBytes ? a.memoryBytes : 1;
    CUresult result = cu->cuMemAlloc(&memory, bytes);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    memory = 0;
    std::string what =
        format("cuMemAlloc of %llu bytes (%s)", ull(bytes),
               describeMemory(a).c_str());
    size_t freeBytes = 0, totalBytes = 0;
    if (result != CUDA_ERROR_OUT_OF_MEMORY ||
        cu->cuMemGetInfo(&freeBytes, &totalBytes) != CUDA_SUCCESS)
      return cu->check(result, what);
    return fail(FUSE_ERROR_DEVICE,
                "cuda: %s failed: %s: the device has %llu bytes free of "
                "%llu",
                what.c_str(), cu->describe(result).c_str(), ull(freeBytes),
                ull(totalBytes));
  }

  /// "sm_90", or a note that the driver cannot say.
  std::string deviceArch() {
    int major = 0, minor = 0;
    if (cu->cuDeviceGetAttribute(&major,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                 device) != CUDA_SUCCESS ||
        cu->cuDeviceGetAttribute(&minor,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                 device) != CUDA_SUCCESS)
      return "an unknown architecture (cuDeviceGetAttribute failed)";
    return format("sm_%d%d", major, minor);
  }

  /// Records a plan's launches into a graph and instantiates it.
  fuse_status capture(const Artifact &a, const PlanDesc &plan,
                      const std::vector<CUfunction> &functions,
                      CUgraphExec &exec) {
    if (plan.launches.empty())
      return FUSE_OK;
    std::string what = format("capturing plan '%s'", plan.name.c_str());
    if (fuse_status s =
            cu->check(cu->cuStreamBeginCapture(
                          stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      what + " (cuStreamBeginCapture)"))
      return s;
    fuse_status status = FUSE_OK;
    for (size_t i = 0; i < plan.launches.size() && !status; ++i) {
      const LaunchDesc &launch = plan.launches[i];
      const KernelDesc &k = a.kernels[launch.kernel];
      // kernelParams[i] points at the i-th argument's value: a device
      // pointer. The driver copies the values when the launch is captured.
      std::vector<CUdeviceptr> pointers;
      std::vector<void *> params;
      for (uint32_t arg : launch.args)
        pointers.push_back(memory + bufferOffset(plan, plan.buffers[arg]));
      for (CUdeviceptr &pointer : pointers)
        params.push_back(&pointer);
      status = cu->check(
          cu->cuLaunchKernel(functions[launch.kernel], k.grid[0], k.grid[1],
                             k.grid[2], k.block[0], k.block[1], k.block[2],
                             k.sharedBytes, stream, params.data(), nullptr),
          format("plan '%s' launch %zu of kernel '%s' (cuLaunchKernel)",
                 plan.name.c_str(), i, k.name.c_str()));
    }
    // Capture always ends, so that the stream stays usable after an error.
    CUgraph graph = nullptr;
    CUresult ended = cu->cuStreamEndCapture(stream, &graph);
    if (!status)
      status = cu->check(ended, what + " (cuStreamEndCapture)");
    if (!status)
      status = cu->check(cu->cuGraphInstantiate(&exec, graph, 0),
                         what + " (cuGraphInstantiateWithFlags)");
    if (graph)
      cu->cuGraphDestroy(graph);
    return status;
  }

  const CudaDriver *cu = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUdeviceptr memory = 0;
  CUstream stream = nullptr;
  CUevent start = nullptr;
  CUevent stop = nullptr;
  std::vector<CUgraphExec> graphs;
};

} // namespace

std::unique_ptr<Backend> createCudaBackend() {
  return std::unique_ptr<Backend>(new CudaBackend());
}

} // namespace runtime
} // namespace fuse
