// Probe (GPU machine): how much cuBLASLt's first heuristic pick leaves on
// the table for BERT-base's matmuls (128 rows: batch 1, sequence 128; 4096:
// batch 32), the measurement behind offering other algorithms or split-K
// as tuning candidates (issue "Half precision on tensor cores").
//
//   nvcc -O2 -arch=sm_90 -o /tmp/lt_algos bench/probes/cublaslt_algorithms.cu -lcublasLt
//   /tmp/lt_algos [MxKxN[+r] ...]   (default: BERT-base's eight, with +r)
//
// Row-major D[M,N] = A[M,K] B[K,N] + bias (+ C with "+r": beta 1, a
// residual), fp16 in and out, f32 compute, as fuse's runtime calls it
// (cuBLASLt sees the transposed problem). Every result of
// cublasLtMatmulAlgoGetHeuristic (up to 32 asked), then split-K 2-8 with
// each reduction scheme on the first six, each checked by
// cublasLtMatmulAlgoCheck; twenty calls in one CUDA graph, median of
// 30 replays, per call.
#include <algorithm>
#include <array>
#include <cstring>
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "graph_timing.h"

#define CK(x)                                                                  \
  do {                                                                         \
    auto s = (x);                                                              \
    if (s != 0) {                                                              \
      printf("error %d at %s:%d\n", (int)s, __FILE__, __LINE__);               \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Cand {
  cublasLtMatmulAlgo_t algo;
  int id, tile, stages, splitk, red;
  float us;
  int heurIndex;
};

int main(int argc, char **argv) {
  std::vector<std::array<int, 4>> shapes = {
      {128, 768, 2304, 1},  {128, 768, 768, 1},  {128, 768, 3072, 1},
      {128, 3072, 768, 1},  {4096, 768, 2304, 1}, {4096, 768, 768, 1},
      {4096, 768, 3072, 1}, {4096, 3072, 768, 1}};
  if (argc > 1)
    shapes.clear();
  for (int i = 1; i < argc; ++i) {
    std::array<int, 4> s{0, 0, 0, 0};
    if (sscanf(argv[i], "%dx%dx%d", &s[0], &s[1], &s[2]) != 3) {
      fprintf(stderr, "bad shape '%s' (want MxKxN or MxKxN+r)\n", argv[i]);
      return 2;
    }
    s[3] = strstr(argv[i], "+r") != nullptr;
    shapes.push_back(s);
  }
  cublasLtHandle_t h;
  CK(cublasLtCreate(&h));
  size_t wsBytes = 32 << 20;
  void *ws;
  CK(cudaMalloc(&ws, wsBytes));
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (auto &s : shapes) {
    int M = s[0], K = s[1], N = s[2];
    bool residual = s[3];
    half *A, *B, *C, *D, *bias;
    CK(cudaMalloc(&A, sizeof(half) * M * K));
    CK(cudaMalloc(&B, sizeof(half) * K * N));
    CK(cudaMalloc(&C, sizeof(half) * M * N));
    CK(cudaMalloc(&D, sizeof(half) * M * N));
    CK(cudaMalloc(&bias, sizeof(half) * N));
    CK(cudaMemset(A, 0, sizeof(half) * M * K));
    CK(cudaMemset(B, 0, sizeof(half) * K * N));
    CK(cudaMemset(C, 0, sizeof(half) * M * N));
    CK(cudaMemset(bias, 0, sizeof(half) * N));
    cublasLtMatmulDesc_t desc;
    CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                      sizeof(epi)));
    void *bp = bias;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                      &bp, sizeof(bp)));
    cublasLtMatrixLayout_t la, lb, lc, ld;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, N, K, N));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, K, M, K));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, N, M, N));
    CK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16F, N, M, N));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes,
        sizeof(wsBytes)));
    std::vector<cublasLtMatmulHeuristicResult_t> res(32);
    int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, ld, pref, 32,
                                      res.data(), &found));
    std::vector<Cand> cands;
    auto describe = [&](Cand &c) {
      size_t w;
      cublasLtMatmulAlgoConfigGetAttribute(&c.algo, CUBLASLT_ALGO_CONFIG_ID,
                                           &c.id, sizeof(int), &w);
      cublasLtMatmulAlgoConfigGetAttribute(
          &c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &c.tile, sizeof(int), &w);
      cublasLtMatmulAlgoConfigGetAttribute(
          &c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &c.stages, sizeof(int), &w);
      cublasLtMatmulAlgoConfigGetAttribute(
          &c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c.splitk, sizeof(int), &w);
      cublasLtMatmulAlgoConfigGetAttribute(
          &c.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c.red, sizeof(int),
          &w);
    };
    for (int i = 0; i < found; ++i) {
      Cand c{res[i].algo};
      c.heurIndex = i;
      describe(c);
      cands.push_back(c);
    }
    // split-K variants of the first 6 heuristic results
    int nbase = cands.size();
    for (int i = 0; i < std::min(nbase, 6); ++i) {
      for (int sk : {2, 3, 4, 6, 8}) {
        for (int red : {CUBLASLT_REDUCTION_SCHEME_INPLACE,
                        CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                        CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE}) {
          Cand c = cands[i];
          c.heurIndex = -1 - i;
          cublasLtMatmulAlgoConfigSetAttribute(
              &c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &sk, sizeof(sk));
          uint32_t r = red;
          cublasLtMatmulAlgoConfigSetAttribute(
              &c.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &r, sizeof(r));
          cublasLtMatmulHeuristicResult_t chk;
          if (cublasLtMatmulAlgoCheck(h, desc, la, lb, lc, ld, &c.algo, &chk) !=
              CUBLAS_STATUS_SUCCESS)
            continue;
          if (chk.workspaceSize > wsBytes)
            continue;
          describe(c);
          cands.push_back(c);
        }
      }
    }
    float alpha = 1, beta = residual ? 1 : 0;
    for (Cand &c : cands)
      c.us = timeInGraph(stream, 20, 30, [&] {
        return cublasLtMatmul(h, desc, &alpha, B, la, A, lb, &beta, C, lc, D,
                              ld, &c.algo, ws, wsBytes, stream) == 0;
      });
    std::vector<Cand> sorted = cands;
    std::sort(sorted.begin(), sorted.end(), [](const Cand &a, const Cand &b) {
      float x = a.us < 0 ? 1e9 : a.us, y = b.us < 0 ? 1e9 : b.us;
      return x < y;
    });
    double flop = 2.0 * M * N * K;
    double bytes = 2.0 * ((double)M * K + (double)K * N +
                          (double)M * N * (residual ? 2 : 1));
    printf("== M=%d K=%d N=%d%s: %d heuristic results, %zu candidates; heur[0] "
           "%.2f us (id %d tile %d splitk %d); bytes %.1f MB\n",
           M, K, N, residual ? " +residual" : "", found, cands.size(),
           cands[0].us, cands[0].id, cands[0].tile, cands[0].splitk,
           bytes / 1e6);
    for (int i = 0; i < std::min<int>(6, sorted.size()); ++i) {
      Cand &c = sorted[i];
      printf("  %.2f us %.0f TFLOP/s heur %d id %d tile %d stages %d splitk %d "
             "red %d\n",
             c.us, flop / c.us / 1e6, c.heurIndex, c.id, c.tile, c.stages,
             c.splitk, c.red);
    }
    int heurBest = 0;
    for (int i = 0; i < found; ++i)
      if (cands[i].us > 0 && cands[i].us < cands[heurBest].us)
        heurBest = i;
    printf("  best of heuristic list: index %d %.2f us (%.0f GB/s)\n",
           heurBest, cands[heurBest].us, bytes / cands[heurBest].us / 1e3);
    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(D), cudaFree(bias);
  }
  return 0;
}
