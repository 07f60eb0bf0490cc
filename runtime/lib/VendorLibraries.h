//===- VendorLibraries.h - cuBLASLt and cuDNN, loaded at run time -*- C++ -*-===//
//
// Like libcuda (CudaDriver.h), the vendor libraries are opened with dlopen
// and their functions resolved into tables, only for artifacts that call
// them, so that the runtime builds and links without them. The few types
// and constants used are declared here with the values of cublasLt.h
// (CUDA 13) and cudnn.h (cuDNN 9); test/Runtime/library-abi.test checks
// them against the real headers where those are installed.
//
// Where the libraries are looked for: the directories of
// $FUSE_CUDA_LIBRARY_PATH (colon-separated) if it is set, and only those;
// else the system's library path, then /usr/local/cuda/lib64,
// /usr/local/cuda/targets/x86_64-linux/lib and /usr/lib/x86_64-linux-gnu.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_VENDORLIBRARIES_H
#define FUSE_RUNTIME_LIB_VENDORLIBRARIES_H

#include "CudaDriver.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fuse {
namespace runtime {

//===----------------------------------------------------------------------===//
// cuBLASLt
//===----------------------------------------------------------------------===//

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque *;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_COMPUTE_32F = 68; // fp32, no TF32
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77; // f32 inputs rounded to TF32
constexpr int CUDA_R_32F = 0;
constexpr int CUDA_R_16F = 2;
constexpr int CUDA_R_16BF = 14;
constexpr int CUBLAS_OP_N = 0;
constexpr int CUBLAS_OP_T = 1;
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
constexpr int CUBLASLT_ALGO_CONFIG_SPLITK_NUM = 2;
constexpr int CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME = 3;
constexpr uint32_t CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2;
constexpr uint32_t CUBLASLT_EPILOGUE_DEFAULT = 1;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU = 2;
constexpr uint32_t CUBLASLT_EPILOGUE_BIAS = 4;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU_BIAS = 6;

#define FUSE_CUBLASLT_FUNCTIONS(X)                                             \
  X(cublasLtCreate, cublasStatus_t, (cublasLtHandle_t *))                      \
  X(cublasLtDestroy, cublasStatus_t, (cublasLtHandle_t))                       \
  X(cublasLtGetVersion, size_t, ())                                            \
  X(cublasLtGetStatusName, const char *, (cublasStatus_t))                     \
  X(cublasLtMatmulDescCreate, cublasStatus_t,                                  \
    (cublasLtMatmulDesc_t *, int, int))                                        \
  X(cublasLtMatmulDescDestroy, cublasStatus_t, (cublasLtMatmulDesc_t))         \
  X(cublasLtMatmulDescSetAttribute, cublasStatus_t,                            \
    (cublasLtMatmulDesc_t, int, const void *, size_t))                         \
  X(cublasLtMatrixLayoutCreate, cublasStatus_t,                                \
    (cublasLtMatrixLayout_t *, int, uint64_t, uint64_t, int64_t))              \
  X(cublasLtMatrixLayoutDestroy, cublasStatus_t, (cublasLtMatrixLayout_t))     \
  X(cublasLtMatrixLayoutSetAttribute, cublasStatus_t,                          \
    (cublasLtMatrixLayout_t, int, const void *, size_t))                       \
  X(cublasLtMatmulPreferenceCreate, cublasStatus_t,                            \
    (cublasLtMatmulPreference_t *))                                            \
  X(cublasLtMatmulPreferenceDestroy, cublasStatus_t,                           \
    (cublasLtMatmulPreference_t))                                              \
  X(cublasLtMatmulPreferenceSetAttribute, cublasStatus_t,                      \
    (cublasLtMatmulPreference_t, int, const void *, size_t))                   \
  X(cublasLtMatmulAlgoGetHeuristic, cublasStatus_t,                            \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,           \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,   \
     cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,       \
     int *))                                                                   \
  X(cublasLtMatmulAlgoConfigSetAttribute, cublasStatus_t,                      \
    (cublasLtMatmulAlgo_t *, int, const void *, size_t))                       \
  X(cublasLtMatmulAlgoCheck, cublasStatus_t,                                   \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,           \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,   \
     const cublasLtMatmulAlgo_t *, cublasLtMatmulHeuristicResult_t *))         \
  X(cublasLtMatmul, cublasStatus_t,                                            \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,       \
     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,             \
     const void *, const void *, cublasLtMatrixLayout_t, void *,               \
     cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,     \
     CUstream))

struct CublasLt {
#define FUSE_LIBRARY_DECLARE(name, result, params) result(*name) params = nullptr;
  FUSE_CUBLASLT_FUNCTIONS(FUSE_LIBRARY_DECLARE)

  /// Loads libcublasLt.so.13 once per process. On failure returns
  /// FUSE_ERROR_TARGET naming the library, the paths searched and
  /// `launches`, the number of launches that need it.
  static fuse_status get(size_t launches, const CublasLt *&library);

  /// FUSE_OK, or FUSE_ERROR_DEVICE "cublaslt: <what> failed: <status>".
  fuse_status check(cublasStatus_t status, const std::string &what) const;
};

//===----------------------------------------------------------------------===//
// cuDNN
//===----------------------------------------------------------------------===//

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
using cudnnActivationDescriptor_t = struct cudnnActivationStruct *;

struct cudnnConvolutionFwdAlgoPerf_t {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DATA_HALF = 2;
constexpr int CUDNN_DATA_BFLOAT16 = 9;
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_TENSOR_NHWC = 1;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_TENSOR_OP_MATH = 1;
constexpr int CUDNN_FMA_MATH = 3; // no tensor cores: no TF32
constexpr int CUDNN_PROPAGATE_NAN = 1;
constexpr int CUDNN_ACTIVATION_RELU = 1;
constexpr int CUDNN_ACTIVATION_IDENTITY = 5;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;

#define FUSE_CUDNN_FUNCTIONS(X)                                                \
  X(cudnnCreate, cudnnStatus_t, (cudnnHandle_t *))                             \
  X(cudnnDestroy, cudnnStatus_t, (cudnnHandle_t))                              \
  X(cudnnGetVersion, size_t, ())                                               \
  X(cudnnGetErrorString, const char *, (cudnnStatus_t))                        \
  X(cudnnSetStream, cudnnStatus_t, (cudnnHandle_t, CUstream))                  \
  X(cudnnCreateTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t *))   \
  X(cudnnSetTensor4dDescriptor, cudnnStatus_t,                                 \
    (cudnnTensorDescriptor_t, int, int, int, int, int, int))                   \
  X(cudnnDestroyTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t))    \
  X(cudnnCreateFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t *))   \
  X(cudnnSetFilter4dDescriptor, cudnnStatus_t,                                 \
    (cudnnFilterDescriptor_t, int, int, int, int, int, int))                   \
  X(cudnnDestroyFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t))    \
  X(cudnnCreateConvolutionDescriptor, cudnnStatus_t,                           \
    (cudnnConvolutionDescriptor_t *))                                          \
  X(cudnnSetConvolution2dDescriptor, cudnnStatus_t,                            \
    (cudnnConvolutionDescriptor_t, int, int, int, int, int, int, int, int))    \
  X(cudnnSetConvolutionGroupCount, cudnnStatus_t,                              \
    (cudnnConvolutionDescriptor_t, int))                                       \
  X(cudnnSetConvolutionMathType, cudnnStatus_t,                                \
    (cudnnConvolutionDescriptor_t, int))                                       \
  X(cudnnDestroyConvolutionDescriptor, cudnnStatus_t,                          \
    (cudnnConvolutionDescriptor_t))                                            \
  X(cudnnCreateActivationDescriptor, cudnnStatus_t,                            \
    (cudnnActivationDescriptor_t *))                                           \
  X(cudnnSetActivationDescriptor, cudnnStatus_t,                               \
    (cudnnActivationDescriptor_t, int, int, double))                           \
  X(cudnnDestroyActivationDescriptor, cudnnStatus_t,                           \
    (cudnnActivationDescriptor_t))                                             \
  X(cudnnFindConvolutionForwardAlgorithmEx, cudnnStatus_t,                     \
    (cudnnHandle_t, cudnnTensorDescriptor_t, const void *,                     \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnTensorDescriptor_t, void *, int, int *,                              \
     cudnnConvolutionFwdAlgoPerf_t *, void *, size_t))                         \
  X(cudnnConvolutionForward, cudnnStatus_t,                                    \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnTensorDescriptor_t, void *))           \
  X(cudnnConvolutionBiasActivationForward, cudnnStatus_t,                      \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnTensorDescriptor_t, const void *,      \
     cudnnTensorDescriptor_t, const void *, cudnnActivationDescriptor_t,       \
     cudnnTensorDescriptor_t, void *))                                         \
  X(cudnnAddTensor, cudnnStatus_t,                                             \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     const void *, cudnnTensorDescriptor_t, void *))                           \
  X(cudnnActivationForward, cudnnStatus_t,                                     \
    (cudnnHandle_t, cudnnActivationDescriptor_t, const void *,                 \
     cudnnTensorDescriptor_t, const void *, const void *,                      \
     cudnnTensorDescriptor_t, void *))

struct Cudnn {
  FUSE_CUDNN_FUNCTIONS(FUSE_LIBRARY_DECLARE)
#undef FUSE_LIBRARY_DECLARE

  /// Loads libcudnn.so.9 once per process (see CublasLt::get).
  static fuse_status get(size_t launches, const Cudnn *&library);

  /// FUSE_OK, or FUSE_ERROR_DEVICE "cudnn: <what> failed: <status>".
  fuse_status check(cudnnStatus_t status, const std::string &what) const;
};

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_VENDORLIBRARIES_H
