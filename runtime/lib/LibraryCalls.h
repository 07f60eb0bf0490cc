//===- LibraryCalls.h - cuBLASLt and cuDNN launches -------------*- C++ -*-===//
//
// A library launch is prepared once, when the model loads: descriptors
// built, the algorithm chosen (cuBLASLt's heuristic; cuDNN's fastest
// measured algorithm that fits the launch's workspace, no tensor cores) and
// the device pointers bound. enqueue() then only issues the call on the
// plan's stream, so it can be captured into the plan's CUDA Graph.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_LIBRARYCALLS_H
#define FUSE_RUNTIME_LIB_LIBRARYCALLS_H

#include "VendorLibraries.h"

#include "fuse/runtime/Artifact.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fuse {
namespace runtime {

/// What preparing a call needs from the CUDA backend.
struct CallContext {
  const CudaDriver *cu = nullptr;
  CUstream stream = nullptr;
  /// For timing alternatives at load.
  CUevent start = nullptr, stop = nullptr;
  /// "plan 'main' launch 3", for messages.
  std::string where;
  /// The cuDNN choice made for each distinct convolution of the model (its
  /// encoded parameters and workspace), so that convolutions of the same
  /// shape run the same way and are timed once.
  std::map<std::string, std::pair<bool, int>> *convChoices = nullptr;
  /// Likewise the cuBLASLt algorithm of each distinct matmul; without it a
  /// matmul takes cuBLASLt's first heuristic pick, untimed.
  std::map<std::string, cublasLtMatmulAlgo_t> *matmulChoices = nullptr;
};

class LibraryCall {
public:
  virtual ~LibraryCall() = default;
  /// Issues the call on `stream` (capturable).
  virtual fuse_status enqueue(CUstream stream) = 0;
};

/// D = act(alpha * op(A) op(B) + beta * C + bias) through cuBLASLt.
/// `pointers` are the launch's buffers in args order.
fuse_status prepareMatmul(const CublasLt &library, cublasLtHandle_t handle,
                          const CallContext &context,
                          const artifact::MatmulParams &params,
                          const std::vector<CUdeviceptr> &pointers,
                          CUdeviceptr workspace, uint64_t workspaceBytes,
                          std::unique_ptr<LibraryCall> &call);

/// Y = act(alpha * conv(X, W) + Z + bias) through cuDNN.
fuse_status prepareConv(const Cudnn &library, cudnnHandle_t handle,
                        const CallContext &context,
                        const artifact::ConvParams &params,
                        const std::vector<CUdeviceptr> &pointers,
                        CUdeviceptr workspace, uint64_t workspaceBytes,
                        std::unique_ptr<LibraryCall> &call);

/// The GFLOP/s of a 4096^3 matmul through cuBLASLt in `math` (median of
/// 5 runs, of 20 for the tensor cores' shorter ones), in scratch memory the
/// caller provides (3 x 64 MiB, filled with data).
fuse_status measureMatmul(const CublasLt &library, cublasLtHandle_t handle,
                          const CallContext &context, fuse_math math,
                          CUdeviceptr scratch, CUdeviceptr workspace,
                          uint64_t workspaceBytes, double &gflops);

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_LIBRARYCALLS_H
