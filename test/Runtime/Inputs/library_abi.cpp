// Checks the declarations of runtime/lib/VendorLibraries.h (and the driver
// types it uses) against the real cublasLt.h and cudnn.h: every constant's
// value, the layout of every struct the runtime shares with a library, and
// for every function the runtime resolves, its arity and the size of its
// result and of each parameter (what a call's ABI depends on). A mismatch
// is a compile error naming it; a run prints what was checked.
// library-abi.test builds it where the CUDA toolkit is installed; the cuDNN
// part needs cudnn.h.

#include <cublasLt.h>
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define HAVE_CUDNN 1
#endif

#include "VendorLibraries.h"

#include <cstddef>
#include <cstdio>

namespace {

template <class F> struct Signature;
template <class R, class... A> struct Signature<R (*)(A...)> {
  static constexpr size_t arity = sizeof...(A);
  static constexpr size_t result = sizeof(R);
  static constexpr size_t sizes[sizeof...(A) + 1] = {sizeof(A)..., 0};
};

template <class Ours, class Theirs> constexpr bool compatible() {
  using A = Signature<Ours>;
  using B = Signature<Theirs>;
  if (A::arity != B::arity || A::result != B::result)
    return false;
  for (size_t i = 0; i < A::arity; ++i)
    if (A::sizes[i] != B::sizes[i])
      return false;
  return true;
}

} // namespace

#define SAME(ours, theirs)                                                     \
  static_assert(static_cast<long long>(ours) ==                               \
                    static_cast<long long>(theirs),                            \
                #ours " differs from the library's header");                   \
  ++constants;
#define SAME_LAYOUT(type, ...)                                                 \
  static_assert(sizeof(fuse::runtime::type) == sizeof(::type),                 \
                "the size of " #type " differs");                              \
  ++structs;
#define SAME_FIELD(type, field)                                                \
  static_assert(offsetof(fuse::runtime::type, field) ==                        \
                    offsetof(::type, field),                                   \
                "the offset of " #type "::" #field " differs");

namespace fuse {
namespace runtime {
// Here the table's types are the runtime's; the functions are the header's.
#define CHECK_FUNCTION(name, result, params)                                   \
  static_assert(compatible<result(*) params, decltype(&::name)>(),             \
                #name "'s signature differs from the library's header");       \
  ++functions;

static int cublasLtFunctions() {
  int functions = 0;
  FUSE_CUBLASLT_FUNCTIONS(CHECK_FUNCTION)
  return functions;
}
#ifdef HAVE_CUDNN
static int cudnnFunctions() {
  int functions = 0;
  FUSE_CUDNN_FUNCTIONS(CHECK_FUNCTION)
  return functions;
}
#endif
} // namespace runtime
} // namespace fuse

int main() {
  namespace rt = fuse::runtime;
  int constants = 0, structs = 0;
  SAME(rt::CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS)
  SAME(rt::CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F)
  SAME(rt::CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32)
  SAME(rt::CUDA_R_32F, CUDA_R_32F)
  SAME(rt::CUDA_R_16F, CUDA_R_16F)
  SAME(rt::CUDA_R_16BF, CUDA_R_16BF)
  SAME(rt::CUBLAS_OP_N, CUBLAS_OP_N)
  SAME(rt::CUBLAS_OP_T, CUBLAS_OP_T)
  SAME(rt::CUBLASLT_MATMUL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA)
  SAME(rt::CUBLASLT_MATMUL_DESC_TRANSB, CUBLASLT_MATMUL_DESC_TRANSB)
  SAME(rt::CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_MATMUL_DESC_EPILOGUE)
  SAME(rt::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
       CUBLASLT_MATMUL_DESC_BIAS_POINTER)
  SAME(rt::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
       CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT)
  SAME(rt::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
       CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET)
  SAME(rt::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
       CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES)
  SAME(rt::CUBLASLT_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)
  SAME(rt::CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
       CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)
  SAME(rt::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
       CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE)
  SAME(rt::CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_DEFAULT)
  SAME(rt::CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU)
  SAME(rt::CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_BIAS)
  SAME(rt::CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS)
  SAME_LAYOUT(cublasLtMatmulAlgo_t)
  SAME_LAYOUT(cublasLtMatmulHeuristicResult_t)
  SAME_FIELD(cublasLtMatmulHeuristicResult_t, algo)
  SAME_FIELD(cublasLtMatmulHeuristicResult_t, workspaceSize)
  SAME_FIELD(cublasLtMatmulHeuristicResult_t, state)
  SAME_FIELD(cublasLtMatmulHeuristicResult_t, wavesCount)
  std::printf("cublasLt.h %d: %d constants, %d structs, %d functions match\n",
              CUBLAS_VERSION, constants, structs,
              rt::cublasLtFunctions());
#ifdef HAVE_CUDNN
  constants = structs = 0;
  SAME(rt::CUDNN_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS)
  SAME(rt::CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT)
  SAME(rt::CUDNN_DATA_HALF, CUDNN_DATA_HALF)
  SAME(rt::CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16)
  SAME(rt::CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW)
  SAME(rt::CUDNN_CROSS_CORRELATION, CUDNN_CROSS_CORRELATION)
  SAME(rt::CUDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH)
  SAME(rt::CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH)
  SAME(rt::CUDNN_FMA_MATH, CUDNN_FMA_MATH)
  SAME(rt::CUDNN_PROPAGATE_NAN, CUDNN_PROPAGATE_NAN)
  SAME(rt::CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_RELU)
  SAME(rt::CUDNN_ACTIVATION_IDENTITY, CUDNN_ACTIVATION_IDENTITY)
  SAME(rt::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
  SAME(rt::CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
  SAME_LAYOUT(cudnnConvolutionFwdAlgoPerf_t)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, algo)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, status)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, time)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, memory)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, determinism)
  SAME_FIELD(cudnnConvolutionFwdAlgoPerf_t, mathType)
  std::printf("cudnn.h %d: %d constants, %d structs, %d functions match\n",
              CUDNN_VERSION, constants, structs, rt::cudnnFunctions());
#else
  std::printf("cudnn.h not installed\n");
#endif
  return 0;
}
