//===- Backend.h - What a target does for the C API -------------*- C++ -*-===//
//
// The C API (Model.cpp) does the bookkeeping common to both targets (which
// inputs are set, which plan ran last, argument checks); a Backend owns the
// target's kernels and its one allocation, in which every buffer is an
// offset (see bufferOffset in ArtifactReader.h).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_BACKEND_H
#define FUSE_RUNTIME_LIB_BACKEND_H

#include "ArtifactReader.h"

#include <memory>
#include <vector>

namespace fuse {
namespace runtime {

/// Caller memory (device memory on CUDA) bound to the tensor at `offset`
/// of the model's allocation (fuse_model_bind_input/_output).
struct Binding {
  uint64_t offset;
  void *data;
  uint64_t bytes;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// Loads the kernels, allocates the model's memory and copies the weights
  /// in, on CUDA device `device`. The artifact outlives the backend; its
  /// Blobs are valid only during this call.
  virtual fuse_status load(const Artifact &artifact, int device) = 0;
  /// A backend for `artifact` (a copy of this one's, Blobs dropped) that
  /// shares this one's kernels and weights and has its own arenas.
  virtual fuse_status newSession(const Artifact &artifact,
                                 std::unique_ptr<Backend> &session) const = 0;
  /// Copies between host memory and the allocation at `offset`, after the
  /// last run has finished.
  virtual fuse_status copyIn(uint64_t offset, const void *data,
                             uint64_t bytes) = 0;
  virtual fuse_status copyOut(uint64_t offset, void *data, uint64_t bytes) = 0;
  /// Runs a plan, the launches whose Plan::runs is set, on `stream` (NULL:
  /// the backend's own): copies `inputs` in first and `outputs` out after.
  /// With `wait`, returns when the run has finished.
  virtual fuse_status run(size_t plan, void *stream,
                          const std::vector<Binding> &inputs,
                          const std::vector<Binding> &outputs, bool wait) = 0;
  /// Copies the bytes of the model's allocation that hold `plan`'s index
  /// checks (checkSpan) to `data`, as its last run left them; waits for
  /// the run.
  virtual fuse_status readChecks(const Plan &plan, size_t index, void *data) {
    (void)index;
    auto [first, end] = checkSpan(plan);
    return copyOut(first, data, end - first);
  }
  /// fuse_model_benchmark, inputs already in place.
  virtual fuse_status benchmark(size_t plan, int warmup, int iterations,
                                double *timesMs) = 0;
  /// fuse_model_profile: iterations x launches times, inputs in place; 0
  /// for a launch that does not run.
  virtual fuse_status profile(size_t plan, int warmup, int iterations,
                              double *timesMs, double *overheadMs) = 0;
  /// fuse_model_measure_limits.
  virtual fuse_status measureLimits(double *copyGBps, double *fp32GFlops) = 0;
  /// fuse_model_measure_matmul_rate (0 where there is no matrix library).
  virtual fuse_status measureMatmulRate(fuse_math math, double *gflops) {
    *gflops = 0;
    return FUSE_OK;
  }
  /// fuse_model_device_name.
  virtual const char *deviceName() const = 0;
  /// fuse_model_device_driver.
  virtual const char *driver() const = 0;
  /// The launches that run in `plan` (Plan::runs) changed: what was
  /// prepared for the old ones (CUDA graphs) must not be replayed.
  virtual fuse_status selectionChanged(size_t plan) = 0;
  /// fuse_model_device.
  virtual int device() const { return 0; }
  /// fuse_model_libraries.
  virtual const char *libraries() const { return ""; }
  /// The kernel image the backend loaded: for cpu its x86-64 level; ""
  /// where the artifact's arch says it all.
  virtual const char *kernelArch() const { return ""; }
};

std::unique_ptr<Backend> createCpuBackend();
std::unique_ptr<Backend> createCudaBackend();

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_BACKEND_H
