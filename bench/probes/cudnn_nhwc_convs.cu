// Probe (GPU machine): cuDNN's fp16 convolutions over NHWC data for the
// convolution shapes of torchvision's ResNet-50, the measurement behind
// running its windowed convolutions (3x3, the 7x7 stem, 1x1 of stride 2)
// as cuDNN calls over the NHWC activations instead of fuse.im2col plus a
// cuBLASLt matmul (issue "Half precision on tensor cores").
//
//   nvcc -O2 -arch=sm_90 -o /tmp/cudnn_nhwc bench/probes/cudnn_nhwc_convs.cu -lcudnn
//   /tmp/cudnn_nhwc [batch, default 32] [1: NHWC (default), 0: NCHW]
//                   [filters: 1 in the data's layout (default), 0 KCRS]
//
// Each shape, each forward algorithm whose workspace fits 256 MiB, as
// cudnnConvolutionBiasActivationForward (bias + ReLU: the call fuse makes)
// and as cudnnConvolutionForward alone; ten calls captured in one CUDA
// graph, median of 20 replays, per call. Unlike timing calls one at a
// time from PyTorch (bench/probes/resnet_layout_fp16.py), this leaves out
// the launch overhead the graph of a compiled model does not pay. The
// stem is timed with 3 input channels and padded to 4 and 8.
#include <algorithm>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "graph_timing.h"

#define CK(x)                                                                  \
  do {                                                                         \
    auto st_ = (x);                                                            \
    if (st_ != 0) {                                                            \
      printf("error %d at %s:%d\n", (int)st_, __FILE__, __LINE__);             \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Shape {
  const char *name;
  int c, h, k, r, stride, pad, count;
  bool residual = false; // + z (alpha2 1): a residual added before the ReLU
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32;
  int layoutArg = argc > 2 ? atoi(argv[2]) : 1; // 1 NHWC, 0 NCHW
  Shape shapes[] = {
      {"stem c3", 3, 224, 64, 7, 2, 3, 1},
      {"stem c4", 4, 224, 64, 7, 2, 3, 1},
      {"stem c8", 8, 224, 64, 7, 2, 3, 1},
      {"l1 3x3", 64, 56, 64, 3, 1, 1, 3},
      {"l2 3x3 s2", 128, 56, 128, 3, 2, 1, 1},
      {"l2 3x3", 128, 28, 128, 3, 1, 1, 3},
      {"l3 3x3 s2", 256, 28, 256, 3, 2, 1, 1},
      {"l3 3x3", 256, 14, 256, 3, 1, 1, 5},
      {"l4 3x3 s2", 512, 14, 512, 3, 2, 1, 1},
      {"l4 3x3", 512, 7, 512, 3, 1, 1, 2},
      {"ds2 1x1 s2", 256, 56, 512, 1, 2, 0, 1},
      {"ds3 1x1 s2", 512, 28, 1024, 1, 2, 0, 1},
      {"ds4 1x1 s2", 1024, 14, 2048, 1, 2, 0, 1},
      {"l1 1x1 64-256", 64, 56, 256, 1, 1, 0, 4},
      {"l1 1x1 256-64", 256, 56, 64, 1, 1, 0, 2},
      {"l2 1x1 512-128", 512, 28, 128, 1, 1, 0, 3},
      {"l3 1x1 1024-256", 1024, 14, 256, 1, 1, 0, 5},
      {"l1 1x1 64-256 +z", 64, 56, 256, 1, 1, 0, 3, true},
      {"l2 1x1 128-512 +z", 128, 28, 512, 1, 1, 0, 4, true},
      {"l3 1x1 256-1024 +z", 256, 14, 1024, 1, 1, 0, 6, true},
      {"l4 1x1 512-2048 +z", 512, 7, 2048, 1, 1, 0, 3, true},
  };
  cudnnHandle_t h;
  CK(cudnnCreate(&h));
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CK(cudnnSetStream(h, stream));
  size_t wsBytes = 256 << 20;
  void *ws;
  CK(cudaMalloc(&ws, wsBytes));
  int filterArg = argc > 3 ? atoi(argv[3]) : 1;
  cudnnTensorFormat_t fmt = layoutArg ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  cudnnTensorFormat_t filterFmt = filterArg ? fmt : CUDNN_TENSOR_NCHW;
  double weighted = 0;
  for (Shape &s : shapes) {
    int outH = (s.h + 2 * s.pad - s.r) / s.stride + 1;
    size_t xs = (size_t)n * s.c * s.h * s.h, ys = (size_t)n * s.k * outH * outH,
           wsz = (size_t)s.k * s.c * s.r * s.r;
    half *x, *y, *z, *w, *bias;
    CK(cudaMalloc(&x, xs * 2));
    CK(cudaMalloc(&y, ys * 2));
    CK(cudaMalloc(&z, ys * 2));
    CK(cudaMemset(z, 0, ys * 2));
    CK(cudaMalloc(&w, wsz * 2));
    CK(cudaMalloc(&bias, s.k * 2));
    CK(cudaMemset(x, 0, xs * 2));
    CK(cudaMemset(w, 0, wsz * 2));
    CK(cudaMemset(bias, 0, s.k * 2));
    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    CK(cudnnCreateTensorDescriptor(&xd));
    CK(cudnnCreateTensorDescriptor(&yd));
    CK(cudnnCreateTensorDescriptor(&bd));
    CK(cudnnCreateFilterDescriptor(&wd));
    CK(cudnnCreateConvolutionDescriptor(&cd));
    CK(cudnnCreateActivationDescriptor(&ad));
    CK(cudnnSetTensor4dDescriptor(xd, fmt, CUDNN_DATA_HALF, n, s.c, s.h, s.h));
    CK(cudnnSetTensor4dDescriptor(yd, fmt, CUDNN_DATA_HALF, n, s.k, outH,
                                  outH));
    CK(cudnnSetTensor4dDescriptor(bd, fmt, CUDNN_DATA_HALF, 1, s.k, 1, 1));
    CK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_HALF, filterFmt, s.k, s.c, s.r,
                                  s.r));
    CK(cudnnSetConvolution2dDescriptor(cd, s.pad, s.pad, s.stride, s.stride, 1,
                                       1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    CK(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
    CK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU,
                                    CUDNN_PROPAGATE_NAN, 0.0));
    float alpha = 1, beta = 0, alpha2 = s.residual ? 1 : 0;
    double flop = 2.0 * n * outH * outH * s.k * s.c * s.r * s.r;
    float bestFused = 1e9, bestPlain = 1e9;
    int bestFusedAlgo = -1, bestPlainAlgo = -1;
    for (int fused = 0; fused < 2; ++fused)
      for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++algo) {
        size_t need = 0;
        if (cudnnGetConvolutionForwardWorkspaceSize(
                h, xd, wd, cd, yd, (cudnnConvolutionFwdAlgo_t)algo, &need) !=
                CUDNN_STATUS_SUCCESS ||
            need > wsBytes)
          continue;
        float us = timeInGraph(stream, 10, 20, [&] {
          cudnnStatus_t st =
              fused ? cudnnConvolutionBiasActivationForward(
                          h, &alpha, xd, x, wd, w, cd,
                          (cudnnConvolutionFwdAlgo_t)algo, ws, wsBytes, &alpha2,
                          yd, s.residual ? z : y, bd, bias, ad, yd, y)
                    : cudnnConvolutionForward(h, &alpha, xd, x, wd, w, cd,
                                              (cudnnConvolutionFwdAlgo_t)algo,
                                              ws, wsBytes, &beta, yd, y);
          return st == CUDNN_STATUS_SUCCESS;
        });
        if (us < 0)
          continue;
        if (fused && us < bestFused)
          bestFused = us, bestFusedAlgo = algo;
        if (!fused && us < bestPlain)
          bestPlain = us, bestPlainAlgo = algo;
      }
    printf("%-18s n=%d x%d: fused %7.2f us (algo %d, %5.0f TFLOP/s)  plain "
           "%7.2f us (algo %d)  bytes-floor %.2f us\n",
           s.name, n, s.count, bestFused, bestFusedAlgo,
           flop / bestFused / 1e6, bestPlain, bestPlainAlgo,
           (xs + ys * (s.residual ? 2 : 1) + wsz) * 2 / 4.0e6);
    if (!s.residual && (s.name[0] != 's' || s.c == 3))
      weighted += s.count * std::min(bestFused, 1e6f);
    cudaFree(x), cudaFree(y), cudaFree(z), cudaFree(w), cudaFree(bias);
  }
  printf("sum over the listed convs (x count, stem c3): %.1f us\n", weighted);
  return 0;
}
