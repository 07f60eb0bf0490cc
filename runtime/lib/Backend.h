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

namespace fuse {
namespace runtime {

class Backend {
public:
  virtual ~Backend() = default;

  /// Loads the kernels, allocates the model's memory and copies the weights
  /// in. The artifact outlives the backend; its Blobs are valid only during
  /// this call.
  virtual fuse_status load(const Artifact &artifact) = 0;
  /// Copies between host memory and the allocation at `offset`.
  virtual fuse_status copyIn(uint64_t offset, const void *data,
                             uint64_t bytes) = 0;
  virtual fuse_status copyOut(uint64_t offset, void *data, uint64_t bytes) = 0;
  /// Runs a plan to completion: the launches whose Plan::runs is set.
  virtual fuse_status run(size_t plan) = 0;
  /// fuse_model_benchmark, inputs already in place.
  virtual fuse_status benchmark(size_t plan, int warmup, int iterations,
                                double *timesMs) = 0;
  /// fuse_model_profile: iterations x launches times, inputs in place; 0
  /// for a launch that does not run.
  virtual fuse_status profile(size_t plan, int warmup, int iterations,
                              double *timesMs, double *overheadMs) = 0;
  /// fuse_model_measure_limits.
  virtual fuse_status measureLimits(double *copyGBps, double *fp32GFlops) = 0;
  /// fuse_model_device_name.
  virtual const char *deviceName() const = 0;
  /// fuse_model_device_driver.
  virtual const char *driver() const = 0;
  /// The launches that run in `plan` (Plan::runs) changed: what was
  /// prepared for the old ones (CUDA graphs) must not be replayed.
  virtual fuse_status selectionChanged(size_t plan) = 0;
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
