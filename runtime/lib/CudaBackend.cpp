//===- CudaBackend.cpp - Run a plan as a CUDA Graph -----------------------===//
//
// The chosen device's primary context (device 0 unless the caller says);
// one module from the cubin (or, where the driver has no binary for this
// GPU, JIT-compiled from the PTX section); one cuMemAlloc for the weights,
// which the sessions of a model share, and one for every plan's arena, per
// session; cuBLASLt and
// cuDNN calls prepared once (LibraryCalls.h), for artifacts that use them;
// and one CUDA Graph per plan, captured from a stream once at load and
// replayed on each run, so a run costs one launch whatever the number of
// kernels and library calls. Profiling captures a second graph per plan
// with an event recorded between every two launches.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "CudaDriver.h"
#include "Error.h"
#include "LibraryCalls.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <memory>

namespace fuse {
namespace runtime {

namespace {

using ull = unsigned long long;

/// "cuDNN 91400 (/usr/lib/x86_64-linux-gnu/libcudnn.so.9)": which copy of a
/// library the process uses (another library, PyTorch say, may have loaded
/// its own before).
std::string describeLibrary(const char *name, size_t version, void *symbol) {
  Dl_info info{};
  const char *path = dladdr(symbol, &info) && info.dli_fname
                         ? info.dli_fname
                         : "unknown path";
  return format("%s %zu (%s)", name, version, path);
}

/// What the sessions of one loaded artifact share: the device's primary
/// context (retained), the kernels and the weights.
struct CudaShared {
  ~CudaShared() {
    if (!cu || !context)
      return;
    // Teardown errors are ignored: there is nobody left to report them to.
    cu->cuCtxSetCurrent(context);
    if (weights)
      cu->cuMemFree(weights);
    if (module)
      cu->cuModuleUnload(module);
    cu->cuDevicePrimaryCtxRelease(device);
  }

  const CudaDriver *cu = nullptr;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  /// [0, Artifact::arenasOffset) of the model's offsets.
  CUdeviceptr weights = 0;
  std::string name = "cuda";
  std::string driverInfo = "CUDA driver unknown";
};

class CudaBackend : public Backend {
public:
  ~CudaBackend() override {
    if (!cu || !context)
      return;
    // Teardown errors are ignored: there is nobody left to report them to.
    // `shared`, destroyed after this, frees what the sessions share.
    cu->cuCtxSetCurrent(context);
    if (pending)
      cu->cuEventSynchronize(done);
    for (CUgraphExec graph : graphs)
      if (graph)
        cu->cuGraphExecDestroy(graph);
    for (Profiling &p : profiling) {
      if (p.graph)
        cu->cuGraphExecDestroy(p.graph);
      for (CUevent event : p.events)
        cu->cuEventDestroy(event);
    }
    if (emptyGraph)
      cu->cuGraphExecDestroy(emptyGraph);
    if (emptyModule)
      cu->cuModuleUnload(emptyModule);
    calls.clear();
    if (matmulHandle)
      cublasLt->cublasLtDestroy(matmulHandle);
    if (convHandle)
      cudnn->cudnnDestroy(convHandle);
    if (start)
      cu->cuEventDestroy(start);
    if (stop)
      cu->cuEventDestroy(stop);
    if (done)
      cu->cuEventDestroy(done);
    if (stream)
      cu->cuStreamDestroy(stream);
    if (arenas)
      cu->cuMemFree(arenas);
    if (checkStaging)
      cu->cuMemFreeHost(checkStaging);
  }

  fuse_status load(const Artifact &a, int ordinal) override {
    if (fuse_status s = CudaDriver::get(a.arch, cu))
      return s;
    shared = std::make_shared<CudaShared>();
    shared->cu = cu;
    int count = 0;
    if (fuse_status s =
            cu->check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount"))
      return s;
    if (ordinal < 0 || ordinal >= count)
      return fail(FUSE_ERROR_ARGUMENT,
                  "cuda: there is no device %d: this machine has %d CUDA "
                  "device%s",
                  ordinal, count, count == 1 ? "" : "s");
    shared->ordinal = ordinal;
    if (fuse_status s =
            cu->check(cu->cuDeviceGet(&shared->device, ordinal), "cuDeviceGet"))
      return s;
    CUcontext primary = nullptr;
    if (fuse_status s =
            cu->check(cu->cuDevicePrimaryCtxRetain(&primary, shared->device),
                      "cuDevicePrimaryCtxRetain"))
      return s;
    shared->context = context = primary;
    if (fuse_status s = makeCurrent())
      return s;
    char deviceName[256] = {};
    if (cu->cuDeviceGetName(deviceName, sizeof(deviceName) - 1,
                            shared->device) == CUDA_SUCCESS)
      shared->name = deviceName;
    int version = 0;
    if (cu->cuDriverGetVersion(&version) == CUDA_SUCCESS)
      shared->driverInfo = format("CUDA driver %d", version);

    if (!a.kernels.empty()) {
      if (fuse_status s = loadModule(a))
        return s;
      // A kernel with more than 48 KiB of dynamic shared memory in any of
      // its launches is opted in to the most it takes.
      std::vector<uint32_t> sharedBytes(a.kernels.size(), 0);
      for (const Plan &plan : a.plans)
        for (const Launch &launch : plan.launches)
          if (!launch.isLibrary())
            sharedBytes[launch.kernel] =
                std::max(sharedBytes[launch.kernel], launch.sharedBytes);
      for (size_t i = 0; i < a.kernels.size(); ++i) {
        const KernelDesc &kernel = a.kernels[i];
        CUfunction function = nullptr;
        if (fuse_status s =
                cu->check(cu->cuModuleGetFunction(&function, shared->module,
                                                  kernel.name.c_str()),
                          format("cuModuleGetFunction for kernel %zu '%s'", i,
                                 kernel.name.c_str())))
          return s;
        if (sharedBytes[i] > kDefaultMaxDynamicShared)
          if (fuse_status s = cu->check(
                  cu->cuFuncSetAttribute(
                      function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      static_cast<int>(sharedBytes[i])),
                  format("cuFuncSetAttribute (%u bytes of dynamic shared "
                         "memory) for kernel '%s'",
                         sharedBytes[i], kernel.name.c_str())))
            return s;
        shared->functions.push_back(function);
      }
    }
    // The libraries, before any memory: a missing one is the clearer error.
    if (a.matmulLaunches)
      if (fuse_status s = CublasLt::get(a.matmulLaunches, cublasLt))
        return s;
    if (a.convLaunches)
      if (fuse_status s = Cudnn::get(a.convLaunches, cudnn))
        return s;

    if (fuse_status s =
            allocate(a, a.arenasOffset, "the weights", shared->weights))
      return s;
    if (a.weights.size)
      if (fuse_status s = cu->check(
              cu->cuMemcpyHtoD(shared->weights, a.weights.data, a.weights.size),
              format("cuMemcpyHtoD of the weights (%llu bytes)",
                     ull(a.weights.size))))
        return s;
    return prepare(a);
  }

  fuse_status newSession(const Artifact &a,
                         std::unique_ptr<Backend> &session) const override {
    std::unique_ptr<CudaBackend> backend(new CudaBackend());
    backend->shared = shared;
    backend->cu = cu;
    backend->context = context;
    backend->cublasLt = cublasLt;
    backend->cudnn = cudnn;
    if (fuse_status s = backend->makeCurrent())
      return s;
    if (fuse_status s = backend->prepare(a))
      return s;
    session = std::move(backend);
    return FUSE_OK;
  }

  /// The session's own part: the arenas, a stream and events, the library
  /// handles and calls, and each plan's graph.
  fuse_status prepare(const Artifact &a) {
    artifact = &a;
    if (fuse_status s =
            allocate(a, a.memoryBytes - a.arenasOffset, "the arenas", arenas))
      return s;
    if (fuse_status s =
            cu->check(cu->cuStreamCreate(&stream, 0), "cuStreamCreate"))
      return s;
    if (fuse_status s =
            cu->check(cu->cuEventCreate(&start, 0), "cuEventCreate"))
      return s;
    if (fuse_status s = cu->check(cu->cuEventCreate(&stop, 0), "cuEventCreate"))
      return s;
    if (fuse_status s = cu->check(
            cu->cuEventCreate(&done, CU_EVENT_DISABLE_TIMING), "cuEventCreate"))
      return s;
    if (cublasLt)
      if (fuse_status s = cublasLt->check(cublasLt->cublasLtCreate(&matmulHandle),
                                          "cublasLtCreate"))
        return s;
    if (cudnn) {
      if (fuse_status s =
              cudnn->check(cudnn->cudnnCreate(&convHandle), "cudnnCreate"))
        return s;
      if (fuse_status s = cudnn->check(
              cudnn->cudnnSetStream(convHandle, stream), "cudnnSetStream"))
        return s;
    }
    if (cublasLt)
      libraryInfo = describeLibrary("cuBLASLt", cublasLt->cublasLtGetVersion(),
                                    reinterpret_cast<void *>(
                                        cublasLt->cublasLtMatmul));
    if (cudnn)
      libraryInfo += (libraryInfo.empty() ? "" : "; ") +
                     describeLibrary("cuDNN", cudnn->cudnnGetVersion(),
                                     reinterpret_cast<void *>(
                                         cudnn->cudnnConvolutionForward));
    for (const Plan &plan : a.plans)
      if (fuse_status s = prepareCalls(plan))
        return s;
    // Page-locked memory each run copies its plan's index checks into,
    // ordered before the run's `done`: reading them costs no copy of its
    // own after the run.
    uint64_t stagingBytes = 0;
    for (const Plan &plan : a.plans) {
      auto [first, end] = checkSpan(plan);
      stagingBytes = std::max(stagingBytes, end - first);
    }
    if (stagingBytes)
      if (fuse_status s = cu->check(
              cu->cuMemAllocHost(&checkStaging, stagingBytes),
              format("cuMemAllocHost of %llu bytes for the index checks",
                     ull(stagingBytes))))
        return s;
    for (size_t p = 0; p < a.plans.size(); ++p) {
      graphs.push_back(nullptr);
      if (fuse_status s = capture(a, p, nullptr, graphs.back()))
        return s;
    }
    stale.assign(a.plans.size(), false);
    profiling.resize(a.plans.size());
    return FUSE_OK;
  }

  fuse_status copyIn(uint64_t offset, const void *data,
                     uint64_t bytes) override {
    if (bytes == 0)
      return FUSE_OK;
    if (fuse_status s = finishPending())
      return s;
    return cu->check(cu->cuMemcpyHtoD(address(offset), data, bytes),
                     format("cuMemcpyHtoD of %llu bytes", ull(bytes)));
  }

  fuse_status copyOut(uint64_t offset, void *data, uint64_t bytes) override {
    if (bytes == 0)
      return FUSE_OK;
    if (fuse_status s = finishPending())
      return s;
    return cu->check(cu->cuMemcpyDtoH(data, address(offset), bytes),
                     format("cuMemcpyDtoH of %llu bytes", ull(bytes)));
  }

  fuse_status run(size_t plan, void *callerStream,
                  const std::vector<Binding> &inputs,
                  const std::vector<Binding> &outputs, bool wait) override {
    if (fuse_status s = makeCurrent())
      return s;
    CUstream on = callerStream ? static_cast<CUstream>(callerStream) : stream;
    // The last run, if on another stream, finishes before this one starts.
    if (pending && pendingStream != on)
      if (fuse_status s = cu->check(cu->cuStreamWaitEvent(on, done, 0),
                                    "cuStreamWaitEvent"))
        return s;
    auto copy = [&](CUdeviceptr to, CUdeviceptr from, uint64_t bytes,
                    const char *what) {
      if (!bytes)
        return FUSE_OK;
      return cu->check(cu->cuMemcpyDtoDAsync(to, from, bytes, on),
                       format("copying a bound %s (cuMemcpyDtoDAsync of %llu "
                              "bytes)",
                              what, ull(bytes)));
    };
    for (const Binding &input : inputs)
      if (fuse_status s = copy(address(input.offset),
                               reinterpret_cast<CUdeviceptr>(input.data),
                               input.bytes, "input in"))
        return s;
    if (fuse_status s = launch(plan, on))
      return s;
    for (const Binding &output : outputs)
      if (fuse_status s =
              copy(reinterpret_cast<CUdeviceptr>(output.data),
                   address(output.offset), output.bytes, "output out"))
        return s;
    auto [first, end] = checkSpan(artifact->plans[plan]);
    stagedPlan = -1;
    if (end > first) {
      if (fuse_status s =
              cu->check(cu->cuMemcpyDtoHAsync(checkStaging, address(first),
                                              end - first, on),
                        "copying the index checks out (cuMemcpyDtoHAsync)"))
        return s;
      stagedPlan = static_cast<long>(plan);
    }
    if (fuse_status s = cu->check(cu->cuEventRecord(done, on), "cuEventRecord"))
      return s;
    pending = true;
    pendingStream = on;
    if (!wait)
      return FUSE_OK;
    return finishPending("running the plan (cuEventSynchronize)");
  }

  fuse_status readChecks(const Plan &plan, size_t index, void *data) override {
    // Staged by the last run unless another plan ran since.
    if (stagedPlan != static_cast<long>(index))
      return Backend::readChecks(plan, index, data);
    if (fuse_status s = finishPending())
      return s;
    auto [first, end] = checkSpan(plan);
    std::memcpy(data, checkStaging, end - first);
    return FUSE_OK;
  }

  fuse_status benchmark(size_t plan, int warmup, int iterations,
                        double *timesMs) override {
    if (fuse_status s = finishPending())
      return s;
    if (fuse_status s = recaptureIfStale(plan))
      return s;
    for (int i = 0; i < warmup; ++i)
      if (fuse_status s = launch(plan, stream))
        return s;
    if (fuse_status s = cu->check(cu->cuStreamSynchronize(stream),
                                  "warming up the plan (cuStreamSynchronize)"))
      return s;
    for (int i = 0; i < iterations; ++i) {
      float ms = 0;
      if (fuse_status s =
              cu->timeGraph(stream, start, stop, graphs[plan], "the plan", ms))
        return s;
      timesMs[i] = ms;
    }
    return FUSE_OK;
  }

  fuse_status profile(size_t plan, int warmup, int iterations,
                      double *timesMs, double *overheadMs) override {
    if (overheadMs)
      *overheadMs = 0;
    if (fuse_status s = finishPending())
      return s;
    const Plan &p = artifact->plans[plan];
    if (p.launches.empty())
      return FUSE_OK;
    Profiling &prof = profiling[plan];
    size_t n = p.launches.size();
    if (fuse_status s = loadEmptyKernel())
      return s;
    size_t empties = emptyKernel ? kTimedEmptyKernels : 0;
    if (!prof.graph) {
      // kCalibration + 1 events back to back, one after each of `empties`
      // empty kernels, then one after each launch that runs (kept when a
      // new selection recaptures the graph).
      if (prof.events.empty()) {
        prof.events.assign(kCalibration + 1 + empties + n, nullptr);
        for (CUevent &event : prof.events)
          if (fuse_status s =
                  cu->check(cu->cuEventCreate(&event, 0), "cuEventCreate"))
            return s;
      }
      if (fuse_status s =
              capture(*artifact, plan, &prof.events, prof.graph, empties))
        return s;
    }
    for (int i = 0; i < warmup; ++i)
      if (fuse_status s = cu->check(cu->cuGraphLaunch(prof.graph, stream),
                                    "cuGraphLaunch (profiling)"))
        return s;
    auto elapsed = [&](size_t from, float &ms) {
      return cu->check(cu->cuEventElapsedTime(&ms, prof.events[from],
                                              prof.events[from + 1]),
                       "cuEventElapsedTime");
    };
    auto median = [](std::vector<float> v) {
      std::sort(v.begin(), v.end());
      return double(v[v.size() / 2]);
    };
    std::vector<double> overheads;
    for (int i = 0; i < iterations; ++i) {
      if (fuse_status s = cu->check(cu->cuGraphLaunch(prof.graph, stream), "cuGraphLaunch (profiling)"))
        return s;
      if (fuse_status s = cu->check(cu->cuStreamSynchronize(stream), "profiling the plan (cuStreamSynchronize)"))
        return s;
      // What timing a launch adds. Without the empty kernel: the median
      // gap between events recorded back to back. With it: an empty
      // kernel timed like a launch, less what it costs in a graph of
      // empty kernels alone (the gap between two launches of a plain
      // graph, which the replay pays and a launch's time must keep).
      std::vector<float> gaps(kCalibration);
      for (size_t c = 0; c < kCalibration; ++c)
        if (fuse_status s = elapsed(c, gaps[c]))
          return s;
      double overhead = median(gaps);
      if (empties) {
        std::vector<float> timed(empties);
        for (size_t e = 0; e < empties; ++e)
          if (fuse_status s = elapsed(kCalibration + e, timed[e]))
            return s;
        double plain = 0;
        if (fuse_status s = timeEmptyGraph(plain))
          return s;
        overhead = std::max(0.0, median(timed) - plain);
      }
      overheads.push_back(overhead);
      // The events follow the launches that run, in order.
      size_t timed = 0;
      for (size_t l = 0; l < n; ++l) {
        float ms = 0;
        if (p.runs[l])
          if (fuse_status s = elapsed(kCalibration + empties + timed++, ms))
            return s;
        timesMs[size_t(i) * n + l] =
            p.runs[l] ? std::max(0.0, double(ms) - overhead) : 0.0;
      }
    }
    if (overheadMs && !overheads.empty()) {
      std::sort(overheads.begin(), overheads.end());
      *overheadMs = overheads[overheads.size() / 2];
    }
    return FUSE_OK;
  }

  const char *libraries() const override { return libraryInfo.c_str(); }

  fuse_status measureLimits(double *copyGBps, double *fp32GFlops) override {
    return withScratch(
        "measuring the device's limits", [&](CUdeviceptr scratch) {
          if (fuse_status s = measureCopy(scratch, copyGBps))
            return s;
          return measureRate(FUSE_MATH_FP32, scratch, *fp32GFlops);
        });
  }

  fuse_status measureMatmulRate(fuse_math math, double *gflops) override {
    return withScratch("measuring a matmul's rate", [&](CUdeviceptr scratch) {
      return measureRate(math, scratch, *gflops);
    });
  }

  int device() const override { return shared->ordinal; }
  const char *deviceName() const override { return shared->name.c_str(); }
  const char *driver() const override { return shared->driverInfo.c_str(); }

  /// The plan's graphs hold the old launches: the replayed one is captured
  /// again before its next launch, the profiling one when next profiled.
  fuse_status selectionChanged(size_t plan) override {
    if (fuse_status s = finishPending())
      return s;
    Profiling &prof = profiling[plan];
    if (prof.graph)
      cu->cuGraphExecDestroy(prof.graph);
    prof.graph = nullptr;
    stale[plan] = true;
    return FUSE_OK;
  }

private:
  struct Profiling {
    CUgraphExec graph = nullptr;
    std::vector<CUevent> events;
  };
  /// The profiler's yardstick, JIT-compiled by the driver: a kernel that
  /// does nothing (any PTX ISA the driver reads, any GPU since sm_50).
  static constexpr const char *kEmptyKernelPtx =
      ".version 6.0\n.target sm_50\n.address_size 64\n"
      ".visible .entry fuse_profile_empty()\n{\n\tret;\n}\n";
  /// Empty kernels in the graph that times one of them each.
  static constexpr size_t kEmptyGraphLaunches = 64;
  /// Empty kernels timed between events in a profiled plan's graph.
  static constexpr size_t kTimedEmptyKernels = 8;

  /// Loads the empty kernel once. A driver that cannot JIT it leaves the
  /// profiler with the event-only calibration; that is no error.
  fuse_status loadEmptyKernel() {
    if (emptyKernel || emptyKernelTried)
      return FUSE_OK;
    emptyKernelTried = true;
    if (cu->cuModuleLoadDataEx(&emptyModule, kEmptyKernelPtx, 0, nullptr,
                               nullptr) != CUDA_SUCCESS) {
      emptyModule = nullptr;
      return FUSE_OK;
    }
    if (cu->cuModuleGetFunction(&emptyKernel, emptyModule,
                                "fuse_profile_empty") != CUDA_SUCCESS) {
      cu->cuModuleUnload(emptyModule);
      emptyModule = nullptr;
      emptyKernel = nullptr;
      return FUSE_OK;
    }
    // The graph of empty kernels alone, timed from outside.
    std::string what = "capturing the profiler's empty kernels";
    if (fuse_status s = cu->check(cu->cuStreamBeginCapture(
                                      stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                                  what + " (cuStreamBeginCapture)"))
      return s;
    fuse_status status = FUSE_OK;
    for (size_t i = 0; i < kEmptyGraphLaunches && !status; ++i)
      status = launchEmpty(what);
    status = cu->endCapture(stream, status, what, emptyGraph);
    // Its first launch uploads it: not part of any timing.
    double ms = 0;
    if (!status)
      status = timeEmptyGraph(ms);
    return status;
  }

  fuse_status launchEmpty(const std::string &what) {
    return cu->check(cu->cuLaunchKernel(emptyKernel, 1, 1, 1, 32, 1, 1, 0,
                                        stream, nullptr, nullptr),
                     what + " (cuLaunchKernel of the empty kernel)");
  }

  /// What one empty kernel costs in a graph of them: milliseconds.
  fuse_status timeEmptyGraph(double &ms) {
    float total = 0;
    fuse_status s = cu->timeGraph(stream, start, stop, emptyGraph,
                                  "the profiler's empty kernels", total);
    ms = double(total) / kEmptyGraphLaunches;
    return s;
  }

  /// Alignment of a library call's workspace pointer (cuBLASLt's need).
  static constexpr uint64_t kWorkspaceAlignment = 256;
  /// Events recorded back to back before a profiled plan's launches.
  static constexpr size_t kCalibration = 8;

  /// Scratch memory to measure in: 3 x 64 MiB (two halves of a copy, or
  /// the three 4096^2 float32 matrices of a matmul, half ones using half
  /// of each) and cuBLASLt's 32 MiB workspace, filled with 1.0f (finite in
  /// every type: as half words, 1.875 and 0 in float16, 1 and 0 in
  /// bfloat16). Runs `measure` with it.
  static constexpr uint64_t kScratchMatrix = uint64_t(4096) * 4096 * 4;
  static constexpr uint64_t kScratchWorkspace = 32ull << 20;
  template <class Measure>
  fuse_status withScratch(const char *what, Measure measure) {
    if (fuse_status s = finishPending())
      return s;
    CUdeviceptr scratch = 0;
    if (fuse_status s = cu->check(
            cu->cuMemAlloc(&scratch, 3 * kScratchMatrix + kScratchWorkspace),
            std::string("cuMemAlloc (") + what + ")"))
      return s;
    fuse_status status =
        cu->check(cu->cuMemsetD32Async(scratch, 0x3f800000u,
                                       3 * kScratchMatrix / 4, stream),
                  "cuMemsetD32Async");
    if (status == FUSE_OK)
      status = measure(scratch);
    cu->cuMemFree(scratch);
    return status;
  }

  /// The copy bandwidth: device-to-device copies of half the scratch
  /// (median of 5 after one untimed).
  fuse_status measureCopy(CUdeviceptr scratch, double *copyGBps) {
    const uint64_t half = 3 * kScratchMatrix / 2 / 256 * 256;
    std::vector<float> times;
    for (int i = 0; i < 6; ++i) {
      float ms = 0;
      if (fuse_status s = cu->check(cu->cuEventRecord(start, stream), "cuEventRecord"))
        return s;
      if (fuse_status s = cu->check(cu->cuMemcpyDtoDAsync(scratch + half, scratch, half, stream), "cuMemcpyDtoDAsync"))
        return s;
      if (fuse_status s = cu->check(cu->cuEventRecord(stop, stream), "cuEventRecord"))
        return s;
      if (fuse_status s = cu->check(cu->cuEventSynchronize(stop), "measuring the copy bandwidth (cuEventSynchronize)"))
        return s;
      if (fuse_status s = cu->check(cu->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime"))
        return s;
      if (i > 0)
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    double seconds = times[times.size() / 2] * 1e-3;
    *copyGBps = seconds > 0 ? 2.0 * double(half) / seconds / 1e9 : 0;
    return FUSE_OK;
  }

  /// The matmul rate of `math` in the scratch; 0 without cuBLASLt.
  fuse_status measureRate(fuse_math math, CUdeviceptr scratch,
                          double &gflops) {
    gflops = 0;
    const CublasLt *lt = cublasLt;
    if (!lt && CublasLt::get(1, lt) != FUSE_OK)
      return FUSE_OK;
    cublasLtHandle_t handle = matmulHandle;
    if (!handle && lt->cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS)
      return FUSE_OK;
    CallContext context{cu, stream, start, stop, "measuring a matmul's rate",
                        nullptr};
    fuse_status status =
        measureMatmul(*lt, handle, context, math, scratch,
                      scratch + 3 * kScratchMatrix, kScratchWorkspace, gflops);
    if (handle != matmulHandle)
      lt->cublasLtDestroy(handle);
    return status;
  }

  /// Prepares the library calls of a plan (nullptr for kernel launches).
  fuse_status prepareCalls(const Plan &plan) {
    calls.emplace_back();
    std::vector<std::unique_ptr<LibraryCall>> &planCalls = calls.back();
    for (size_t i = 0; i < plan.launches.size(); ++i) {
      const Launch &launch = plan.launches[i];
      planCalls.emplace_back();
      if (!launch.isLibrary())
        continue;
      std::vector<CUdeviceptr> pointers;
      for (uint32_t arg : launch.args)
        pointers.push_back(address(bufferOffset(plan, plan.buffers[arg])));
      CUdeviceptr workspace =
          launch.workspaceBytes
              ? address(plan.arenaOffset + launch.workspaceOffset)
              : 0;
      // The format aligns a workspace to 64 bytes; cuBLASLt refuses one
      // that is not 256-byte aligned ("The workspace pointer must be
      // aligned to at least a multiple of 256 bytes"): the call gets the
      // workspace's 256-byte aligned part.
      uint64_t workspaceBytes = launch.workspaceBytes;
      uint64_t skip = (kWorkspaceAlignment -
                       workspace % kWorkspaceAlignment) % kWorkspaceAlignment;
      if (skip >= workspaceBytes)
        workspace = 0, workspaceBytes = 0;
      else
        workspace += skip, workspaceBytes -= skip;
      CallContext context{cu,
                          stream,
                          start,
                          stop,
                          format("plan '%s' launch %zu", plan.name.c_str(), i),
                          &convChoices,
                          &matmulChoices};
      fuse_status s =
          launch.kind == uint32_t(artifact::LaunchKind::Matmul)
              ? prepareMatmul(*cublasLt, matmulHandle, context, launch.matmul,
                              pointers, workspace, workspaceBytes,
                              planCalls.back())
              : prepareConv(*cudnn, convHandle, context, launch.conv, pointers,
                            workspace, workspaceBytes, planCalls.back());
      if (s)
        return s;
    }
    return FUSE_OK;
  }

  /// The model may be used from any thread; the context must be current on
  /// the calling one.
  fuse_status makeCurrent() {
    return cu->check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  /// Makes the context current and waits for the last run
  /// (fuse_model_run_async) to finish.
  fuse_status finishPending(const char *what = "waiting for the last run "
                                               "(cuEventSynchronize)") {
    if (fuse_status s = makeCurrent())
      return s;
    if (!pending)
      return FUSE_OK;
    pending = false;
    return cu->check(cu->cuEventSynchronize(done), what);
  }

  /// The device address of an offset in the model's allocation: the
  /// weights are shared, the arenas the session's.
  CUdeviceptr address(uint64_t offset) const {
    uint64_t arenasOffset = artifact->arenasOffset;
    return offset < arenasOffset ? shared->weights + offset
                                 : arenas + (offset - arenasOffset);
  }

  /// Captures the plan's graph again after its selection changed.
  fuse_status recaptureIfStale(size_t plan) {
    if (!stale[plan])
      return FUSE_OK;
    if (graphs[plan])
      cu->cuGraphExecDestroy(graphs[plan]);
    graphs[plan] = nullptr;
    if (fuse_status s = capture(*artifact, plan, nullptr, graphs[plan]))
      return s;
    stale[plan] = false;
    return FUSE_OK;
  }

  /// Replays the plan's graph on `on`, captured again first if stale.
  fuse_status launch(size_t plan, CUstream on) {
    if (fuse_status s = recaptureIfStale(plan))
      return s;
    if (!graphs[plan]) // A plan without launches.
      return FUSE_OK;
    return cu->check(cu->cuGraphLaunch(graphs[plan], on), "cuGraphLaunch");
  }

  /// Loads the cubin, or JITs the PTX where the driver has no binary for
  /// this GPU in the cubin (or the artifact carries PTX only).
  fuse_status loadModule(const Artifact &a) {
    CUresult result = CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (a.kernelImage.size)
      result = cu->cuModuleLoadData(&shared->module, a.kernelImage.data);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    shared->module = nullptr;
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
    result = cu->cuModuleLoadDataEx(&shared->module, ptx.c_str(), 2, options,
                                    values);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    shared->module = nullptr;
    return fail(FUSE_ERROR_DEVICE,
                "cuda: JIT compilation of the PTX for %s (cuModuleLoadDataEx) "
                "failed: %s%s%s",
                device.c_str(), cu->describe(result).c_str(),
                log[0] ? ": " : "", log);
  }

  /// One of the two allocations (the weights, the arenas). When it does not
  /// fit, the error says what the model holds and how much memory the
  /// device has free.
  fuse_status allocate(const Artifact &a, uint64_t bytes, const char *part,
                       CUdeviceptr &memory) {
    CUresult result = cu->cuMemAlloc(&memory, bytes ? bytes : 1);
    if (result == CUDA_SUCCESS)
      return FUSE_OK;
    memory = 0;
    std::string what = format("cuMemAlloc of %llu bytes for %s (%s)",
                              ull(bytes), part, describeMemory(a).c_str());
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
                                 shared->device) != CUDA_SUCCESS ||
        cu->cuDeviceGetAttribute(&minor,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                 shared->device) != CUDA_SUCCESS)
      return "an unknown architecture (cuDeviceGetAttribute failed)";
    return format("sm_%d%d", major, minor);
  }

  /// Records the plan's launches that run into a graph and instantiates it;
  /// with
  /// `events`, first records kCalibration + 1 of them back to back, then
  /// launches `empties` empty kernels with one after each, then one after
  /// each launch (each launch is timed from the event before it).
  fuse_status capture(const Artifact &a, size_t planIndex,
                      const std::vector<CUevent> *events, CUgraphExec &exec,
                      size_t empties = 0) {
    const Plan &plan = a.plans[planIndex];
    if (plan.launches.empty())
      return FUSE_OK;
    std::string what = format("capturing plan '%s'%s", plan.name.c_str(),
                              events ? " for profiling" : "");
    if (fuse_status s =
            cu->check(cu->cuStreamBeginCapture(
                          stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      what + " (cuStreamBeginCapture)"))
      return s;
    auto record = [&](size_t i) {
      return cu->check(cu->cuEventRecordWithFlags((*events)[i], stream,
                                                  CU_EVENT_RECORD_EXTERNAL),
                       what + " (cuEventRecordWithFlags)");
    };
    fuse_status status = FUSE_OK;
    for (size_t c = 0; events && c <= kCalibration && !status; ++c)
      status = record(c);
    for (size_t e = 0; events && e < empties && !status; ++e) {
      status = launchEmpty(what);
      if (!status)
        status = record(kCalibration + 1 + e);
    }
    // Events after the launches that run only (see profile).
    size_t timed = 0;
    for (size_t i = 0; i < plan.launches.size() && !status; ++i) {
      const Launch &launch = plan.launches[i];
      if (!plan.runs[i])
        continue;
      if (launch.isLibrary()) {
        status = calls[planIndex][i]->enqueue(stream);
      } else {
        // kernelParams[i] points at the i-th argument's value: a device
        // pointer. The driver copies the values when the launch is captured.
        std::vector<CUdeviceptr> pointers;
        std::vector<void *> params;
        for (uint32_t arg : launch.args)
          pointers.push_back(address(bufferOffset(plan, plan.buffers[arg])));
        for (CUdeviceptr &pointer : pointers)
          params.push_back(&pointer);
        const KernelDesc &k = a.kernels[launch.kernel];
        status = cu->check(
            cu->cuLaunchKernel(shared->functions[launch.kernel], launch.grid[0],
                               launch.grid[1], launch.grid[2], launch.block[0],
                               launch.block[1], launch.block[2],
                               launch.sharedBytes, stream, params.data(),
                               nullptr),
            format("plan '%s' launch %zu of kernel '%s' (cuLaunchKernel)",
                   plan.name.c_str(), i, k.name.c_str()));
      }
      if (!status && events)
        status = record(kCalibration + 1 + empties + timed++);
    }
    return cu->endCapture(stream, status, what, exec);
  }

  std::shared_ptr<CudaShared> shared;
  const CudaDriver *cu = nullptr;
  CUcontext context = nullptr;
  CUmodule emptyModule = nullptr;
  CUfunction emptyKernel = nullptr;
  bool emptyKernelTried = false;
  CUgraphExec emptyGraph = nullptr;
  /// The session's arenas: offsets from Artifact::arenasOffset on.
  CUdeviceptr arenas = 0;
  CUstream stream = nullptr;
  CUevent start = nullptr;
  CUevent stop = nullptr;
  /// Recorded after each run, on its stream; `pending` until waited for.
  CUevent done = nullptr;
  bool pending = false;
  CUstream pendingStream = nullptr;
  std::vector<CUgraphExec> graphs;
  /// Page-locked copy of the index checks of the last run (of plan
  /// `stagedPlan`; -1: none).
  void *checkStaging = nullptr;
  long stagedPlan = -1;
  /// Per plan: its selection changed since `graphs` was captured.
  std::vector<bool> stale;
  const CublasLt *cublasLt = nullptr;
  const Cudnn *cudnn = nullptr;
  cublasLtHandle_t matmulHandle = nullptr;
  cudnnHandle_t convHandle = nullptr;
  /// Per plan, per launch: the prepared library call, or nullptr.
  std::vector<std::vector<std::unique_ptr<LibraryCall>>> calls;
  std::vector<Profiling> profiling;
  const Artifact *artifact = nullptr;
  std::string libraryInfo;
  std::map<std::string, std::pair<bool, int>> convChoices;
  std::map<std::string, cublasLtMatmulAlgo_t> matmulChoices;
};

} // namespace

std::unique_ptr<Backend> createCudaBackend() {
  return std::unique_ptr<Backend>(new CudaBackend());
}

} // namespace runtime
} // namespace fuse
