// Probe (GPU machine, sm_90): what programmatic dependent launch (PDL)
// saves per kernel boundary in a CUDA graph of small kernels, the shape of
// a BERT-base batch-1 run (about 110 launches of 1-7 us; issue "Half
// precision on tensor cores").
//
//   nvcc -O2 -arch=sm_90 -o /tmp/pdl bench/probes/pdl_launch.cu -lcublasLt
//   /tmp/pdl
//
// The small kernel is a LayerNorm-like row kernel (128 rows of 768 halves,
// a block a row). Chains of 100 launches captured in one graph, median of
// 200 replays, per launch: row kernels alone, and row kernels after
// cuBLASLt matmuls (128 x 768 x 768 fp16, the attention output projection)
// that know nothing of PDL. "pdl" launches the row kernel with
// cudaLaunchAttributeProgrammaticStreamSerialization; the kernel waits
// (griddepcontrol.wait) before it reads, and "trigger" also lets its own
// dependents launch (griddepcontrol.launch_dependents) at its start.
#include "graph_timing.h"
#include <cstdio>
#include <cublasLt.h>
#include <cuda_fp16.h>

namespace {

constexpr int kRows = 128, kCols = 768, kThreads = 256;

template <bool Wait, bool Trigger>
__global__ void rowKernel(const __half *in, __half *out) {
  if (Wait)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (Trigger)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  __shared__ float partial[kThreads / 32];
  const __half *row = in + blockIdx.x * kCols;
  float values[kCols / kThreads], sum = 0;
  for (int i = 0; i < kCols / kThreads; ++i) {
    values[i] = __half2float(row[threadIdx.x + i * kThreads]);
    sum += values[i];
  }
  for (int offset = 16; offset; offset /= 2)
    sum += __shfl_xor_sync(~0u, sum, offset);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < kThreads / 32; ++w)
    total += partial[w];
  float mean = total / kCols;
  for (int i = 0; i < kCols / kThreads; ++i)
    out[blockIdx.x * kCols + threadIdx.x + i * kThreads] =
        __float2half(values[i] - mean);
}

template <bool Wait, bool Trigger>
bool launchRow(cudaStream_t stream, bool pdl, const __half *in,
               __half *out) {
  cudaLaunchConfig_t config = {};
  config.gridDim = kRows;
  config.blockDim = kThreads;
  config.stream = stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&config, rowKernel<Wait, Trigger>, in, out) ==
         cudaSuccess;
}

struct Matmul {
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d;
  cublasLtMatmulAlgo_t algo;
  void *workspace;
  size_t workspaceBytes = 32 << 20;

  bool init() {
    int m = kRows, k = kCols, n = kCols;
    cublasLtCreate(&handle);
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    // Row-major D[m,n] = A[m,k] B[k,n] as column-major D^T = B^T A^T.
    cublasLtMatrixLayoutCreate(&a, CUDA_R_16F, n, k, n);
    cublasLtMatrixLayoutCreate(&b, CUDA_R_16F, k, m, k);
    cublasLtMatrixLayoutCreate(&d, CUDA_R_16F, n, m, n);
    cudaMalloc(&workspace, workspaceBytes);
    cublasLtMatmulPreference_t preference;
    cublasLtMatmulPreferenceCreate(&preference);
    cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes));
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, d, d, preference, 1,
                                   &result, &found);
    algo = result.algo;
    return found == 1;
  }
  bool enqueue(cudaStream_t stream, const __half *weights,
               const __half *input, __half *output) {
    float one = 1, zero = 0;
    return cublasLtMatmul(handle, desc, &one, weights, a, input, b, &zero,
                          output, d, output, d, &algo, workspace,
                          workspaceBytes, stream) == CUBLAS_STATUS_SUCCESS;
  }
};

} // namespace

int main() {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  __half *x, *y, *w;
  cudaMalloc(&x, kRows * kCols * sizeof(__half));
  cudaMalloc(&y, kRows * kCols * sizeof(__half));
  cudaMalloc(&w, kCols * kCols * sizeof(__half));
  cudaMemset(x, 0, kRows * kCols * sizeof(__half));
  cudaMemset(w, 0, kCols * kCols * sizeof(__half));
  Matmul matmul;
  if (!matmul.init()) {
    std::printf("no cuBLASLt algorithm\n");
    return 1;
  }
  constexpr int kLaunches = 100, kReplays = 200;
  auto rows = [&](auto launch) {
    return timeInGraph(stream, kLaunches / 2, kReplays, [&] {
      return launch(x, y) && launch(y, x);
    });
  };
  auto afterMatmul = [&](auto launch) {
    // Per pair (matmul, row kernel).
    return timeInGraph(stream, kLaunches / 2, kReplays, [&] {
      return matmul.enqueue(stream, w, x, y) && launch(y, x);
    });
  };
  auto plain = [&](const __half *in, __half *out) {
    return launchRow<false, false>(stream, false, in, out);
  };
  auto waitOnly = [&](const __half *in, __half *out) {
    return launchRow<true, false>(stream, true, in, out);
  };
  auto waitTrigger = [&](const __half *in, __half *out) {
    return launchRow<true, true>(stream, true, in, out);
  };
  auto waitNoAttribute = [&](const __half *in, __half *out) {
    return launchRow<true, true>(stream, false, in, out);
  };
  float matmulAlone = timeInGraph(stream, kLaunches, kReplays, [&] {
    return matmul.enqueue(stream, w, x, y);
  });
  std::printf("%-44s %8s\n", "chain (graph of 100 launches)", "us");
  std::printf("%-44s %8.3f\n", "row kernels, plain", rows(plain) / 2);
  std::printf("%-44s %8.3f\n", "row kernels, wait in kernel, no attribute",
              rows(waitNoAttribute) / 2);
  std::printf("%-44s %8.3f\n", "row kernels, pdl + wait", rows(waitOnly) / 2);
  std::printf("%-44s %8.3f\n", "row kernels, pdl + wait + trigger",
              rows(waitTrigger) / 2);
  std::printf("%-44s %8.3f\n", "matmul alone", matmulAlone);
  std::printf("%-44s %8.3f\n", "matmul + row, plain (pair)",
              afterMatmul(plain));
  std::printf("%-44s %8.3f\n", "matmul + row, pdl + wait (pair)",
              afterMatmul(waitOnly));
  std::printf("%-44s %8.3f\n", "matmul + row, pdl + wait + trigger (pair)",
              afterMatmul(waitTrigger));
  cudaError_t error = cudaDeviceSynchronize();
  std::printf("status: %s\n", cudaGetErrorString(error));
  return error == cudaSuccess ? 0 : 1;
}
