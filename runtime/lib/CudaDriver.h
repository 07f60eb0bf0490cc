//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen and its functions resolved into a
// table, so that the runtime builds and links where there is no CUDA, and a
// CUDA artifact on a machine without a GPU is an error, not a load failure.
// The few driver types and constants the runtime uses are declared here
// (values from cuda.h) so that nothing needs the CUDA toolkit's headers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_CUDADRIVER_H
#define FUSE_RUNTIME_LIB_CUDADRIVER_H

#include "fuse/runtime.h"

#include <cstddef>
#include <string>

namespace fuse {
namespace runtime {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
/// cuEventRecordWithFlags during a capture: an event record node.
constexpr unsigned CU_EVENT_RECORD_EXTERNAL = 1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
/// Dynamic shared memory a kernel gets without opting in.
constexpr unsigned kDefaultMaxDynamicShared = 48 * 1024;

// X(member, symbol, fallback symbol or nullptr, return type, parameters).
// The versioned symbols are the ones cuda.h's macros name today.
#define FUSE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName, "cuGetErrorName", nullptr, CUresult,                       \
    (CUresult, const char **))                                                 \
  X(cuGetErrorString, "cuGetErrorString", nullptr, CUresult,                   \
    (CUresult, const char **))                                                 \
  X(cuInit, "cuInit", nullptr, CUresult, (unsigned))                           \
  X(cuDriverGetVersion, "cuDriverGetVersion", nullptr, CUresult, (int *))      \
  X(cuDeviceGetCount, "cuDeviceGetCount", nullptr, CUresult, (int *))          \
  X(cuDeviceGet, "cuDeviceGet", nullptr, CUresult, (CUdevice *, int))          \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr, CUresult,           \
    (int *, int, CUdevice))                                                    \
  X(cuDeviceGetName, "cuDeviceGetName", nullptr, CUresult,                     \
    (char *, int, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr, CUresult,   \
    (CUcontext *, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    "cuDevicePrimaryCtxRelease", CUresult, (CUdevice))                         \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", nullptr, CUresult, (CUcontext))        \
  X(cuModuleLoadData, "cuModuleLoadData", nullptr, CUresult,                   \
    (CUmodule *, const void *))                                                \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr, CUresult,               \
    (CUmodule *, const void *, unsigned, int *, void **))                      \
  X(cuModuleGetFunction, "cuModuleGetFunction", nullptr, CUresult,             \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuModuleUnload, "cuModuleUnload", nullptr, CUresult, (CUmodule))           \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", nullptr, CUresult,               \
    (CUfunction, int, int))                                                    \
  X(cuMemAlloc, "cuMemAlloc_v2", nullptr, CUresult, (CUdeviceptr *, size_t))   \
  X(cuMemFree, "cuMemFree_v2", nullptr, CUresult, (CUdeviceptr))               \
  X(cuMemGetInfo, "cuMemGetInfo_v2", nullptr, CUresult, (size_t *, size_t *))  \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", nullptr, CUresult,                        \
    (CUdeviceptr, const void *, size_t))                                       \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", nullptr, CUresult,                        \
    (void *, CUdeviceptr, size_t))                                             \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", nullptr, CUresult,              \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", nullptr, CUresult,              \
    (void *, CUdeviceptr, size_t, CUstream))                                   \
  X(cuMemAllocHost, "cuMemAllocHost_v2", nullptr, CUresult, (void **, size_t)) \
  X(cuMemFreeHost, "cuMemFreeHost", nullptr, CUresult, (void *))               \
  X(cuMemsetD32Async, "cuMemsetD32Async", nullptr, CUresult,                   \
    (CUdeviceptr, unsigned, size_t, CUstream))                                 \
  X(cuStreamCreate, "cuStreamCreate", nullptr, CUresult,                       \
    (CUstream *, unsigned))                                                    \
  X(cuStreamDestroy, "cuStreamDestroy_v2", nullptr, CUresult, (CUstream))      \
  X(cuStreamSynchronize, "cuStreamSynchronize", nullptr, CUresult, (CUstream)) \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", nullptr, CUresult,        \
    (CUstream, int))                                                           \
  X(cuStreamEndCapture, "cuStreamEndCapture", nullptr, CUresult,               \
    (CUstream, CUgraph *))                                                     \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", nullptr, CUresult,      \
    (CUgraphExec *, CUgraph, unsigned long long))                              \
  X(cuGraphLaunch, "cuGraphLaunch", nullptr, CUresult,                         \
    (CUgraphExec, CUstream))                                                   \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", nullptr, CUresult,               \
    (CUgraphExec))                                                             \
  X(cuGraphDestroy, "cuGraphDestroy", nullptr, CUresult, (CUgraph))            \
  X(cuLaunchKernel, "cuLaunchKernel", nullptr, CUresult,                       \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))                                    \
  X(cuEventCreate, "cuEventCreate", nullptr, CUresult, (CUevent *, unsigned))  \
  X(cuEventRecord, "cuEventRecord", nullptr, CUresult, (CUevent, CUstream))    \
  X(cuEventRecordWithFlags, "cuEventRecordWithFlags", nullptr, CUresult,       \
    (CUevent, CUstream, unsigned))                                             \
  X(cuEventSynchronize, "cuEventSynchronize", nullptr, CUresult, (CUevent))    \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", nullptr, CUresult,                 \
    (CUstream, CUevent, unsigned))                                             \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",         \
    CUresult, (float *, CUevent, CUevent))                                     \
  X(cuEventDestroy, "cuEventDestroy_v2", nullptr, CUresult, (CUevent))

/// The driver's functions. One table per process, loaded on first use.
struct CudaDriver {
#define FUSE_CUDA_DECLARE(member, symbol, fallback, result, params)            \
  result(*member) params = nullptr;
  FUSE_CUDA_DRIVER_FUNCTIONS(FUSE_CUDA_DECLARE)
#undef FUSE_CUDA_DECLARE

  /// Loads libcuda.so.1 and runs cuInit once per process. On failure returns
  /// FUSE_ERROR_TARGET with a message that names `arch`, the architecture
  /// the artifact needs.
  static fuse_status get(const std::string &arch, const CudaDriver *&driver);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;

  /// FUSE_OK if `result` is CUDA_SUCCESS, else FUSE_ERROR_DEVICE with
  /// "cuda: <what> failed: <describe(result)>".
  fuse_status check(CUresult result, const std::string &what) const;

  /// Ends `stream`'s capture (always, so that the stream stays usable
  /// after an error) and, if `status` is still OK, instantiates the graph
  /// into `exec`; returns the first failure. `what` names the capture.
  fuse_status endCapture(CUstream stream, fuse_status status,
                         const std::string &what, CUgraphExec &exec) const;

  /// One launch of `exec` on `stream` (none when null: a plan without
  /// launches), timed with the events `start` and `stop` around it.
  fuse_status timeGraph(CUstream stream, CUevent start, CUevent stop,
                        CUgraphExec exec, const std::string &what,
                        float &ms) const;
};

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_CUDADRIVER_H
