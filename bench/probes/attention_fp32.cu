// Probe: how fast can one fp32 attention kernel per layer be on the H100,
// written by hand, against what fuse runs today (two cuBLASLt matmuls, a
// Softmax row kernel and the head Transposes) and PyTorch's fused SDPA?
// Decides the design of issue 11's attention kernel (docs/models.md,
// "GPU: transformers exported with default settings", has today's costs).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/attention_probe bench/probes/attention_fp32.cu
//   /tmp/attention_probe            # BERT-base and Llama-style shapes
//
// The kernel reads Q, K and V where the projections leave them, [B, S,
// heads * D] (no head Transposes), and writes O the same way (no Transpose
// after it): the layout folding of issue 11's part 3. Grouped-query heads
// read K/V head h / (Hq / Hkv). The mask is BERT's padding mask (a key
// mask per sample, additive) or causal.
//
// flash<TR>: a block of 256 threads per (sample, head, BR = 16 * TR query
// rows); the loop over key tiles of BC = 64: K^T and V tiles in shared
// memory, S = Q K^T as a 16 x 16 grid of threads with TR x 4 scores each,
// the online softmax (row maxima and sums over the 16 threads of a row by
// shuffles, exp2 of pre-scaled scores), P through shared memory, O += P V
// with TR x 4 outputs a thread (D = 64). The score matrix never leaves the
// SM. Each variant is checked against a naive kernel (a thread per query
// row, double sums) with the output filled with NaNs before it runs.
//
// Prints, per shape: the naive kernel, flash<1>, flash<2>, flash<4> in us
// (median of 50), GFLOP/s (4 * B * Hq * Sq * Skv * D flops) and the max
// relative error.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int D = 64;
constexpr int BC = 64;

struct Shape {
  const char *name;
  int b, hq, hkv, sq, skv;
  bool causal;
  bool padded; // BERT's key padding mask: sample i masks its last 28 + i % 32
};

// Element (b, h, s, d) of a [B, S, H * D] tensor.
__host__ __device__ inline size_t at(int b, int h, int s, int d, int S, int H) {
  return ((size_t(b) * S + s) * H + h) * D + d;
}

__device__ inline bool masked(const Shape &p, int b, int i, int j) {
  if (p.causal && j > i + (p.skv - p.sq))
    return true;
  if (p.padded && j >= 100 - b % 32)
    return true;
  return false;
}

__global__ void naive(Shape p, float scale, const float *q, const float *k,
                      const float *v, float *o) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= p.b * p.hq * p.sq)
    return;
  int i = row % p.sq, h = row / p.sq % p.hq, b = row / p.sq / p.hq;
  int hk = h / (p.hq / p.hkv);
  double m = -INFINITY, l = 0, acc[D] = {};
  for (int j = 0; j < p.skv; ++j) {
    if (masked(p, b, i, j))
      continue;
    double s = 0;
    for (int d = 0; d < D; ++d)
      s += double(q[at(b, h, i, d, p.sq, p.hq)]) *
           k[at(b, hk, j, d, p.skv, p.hkv)];
    s *= scale;
    double mn = fmax(m, s), c = exp(m - mn), e = exp(s - mn);
    l = l * c + e;
    for (int d = 0; d < D; ++d)
      acc[d] = acc[d] * c + e * v[at(b, hk, j, d, p.skv, p.hkv)];
    m = mn;
  }
  for (int d = 0; d < D; ++d)
    o[at(b, h, i, d, p.sq, p.hq)] = l > 0 ? float(acc[d] / l) : 0.f;
}

template <int TR>
__global__ void __launch_bounds__(256)
    flash(Shape p, float scale, const float *__restrict__ q,
          const float *__restrict__ k, const float *__restrict__ v,
          float *__restrict__ o) {
  constexpr int BR = 16 * TR;
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  float *qT = smem;        // [D][BR], pre-scaled by scale * log2(e)
  float *kT = qT + D * BR; // [D][BC]
  float *vs = kT + D * BC; // [BC][D]
  float *ps = vs + BC * D; // [BR][BC + 4]
  constexpr int PS = BC + 4;
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int rowBase = blockIdx.x * BR;
  const int h = blockIdx.y % p.hq, b = blockIdx.y / p.hq;
  const int hk = h / (p.hq / p.hkv);
  const float qscale = scale * 1.4426950408889634f;

  for (int e = tid; e < BR * D / 4; e += 256) {
    int r = e / (D / 4), d4 = e % (D / 4) * 4;
    int i = rowBase + r;
    float4 x =
        i < p.sq
            ? *reinterpret_cast<const float4 *>(&q[at(b, h, i, d4, p.sq, p.hq)])
            : make_float4(0, 0, 0, 0);
    qT[(d4 + 0) * BR + r] = x.x * qscale;
    qT[(d4 + 1) * BR + r] = x.y * qscale;
    qT[(d4 + 2) * BR + r] = x.z * qscale;
    qT[(d4 + 3) * BR + r] = x.w * qscale;
  }
  float m[TR], l[TR], acc[TR][4];
  for (int r = 0; r < TR; ++r) {
    m[r] = -INFINITY;
    l[r] = 0;
    for (int c = 0; c < 4; ++c)
      acc[r][c] = 0;
  }
  int lastKey = p.skv;
  if (p.causal)
    lastKey = min(p.skv, rowBase + BR + (p.skv - p.sq));
  for (int j0 = 0; j0 < lastKey; j0 += BC) {
    __syncthreads(); // the previous tile's readers are done
    for (int e = tid; e < BC * D / 4; e += 256) {
      int c = e / (D / 4), d4 = e % (D / 4) * 4;
      int j = j0 + c;
      float4 kk = make_float4(0, 0, 0, 0), vv = kk;
      if (j < p.skv) {
        kk = *reinterpret_cast<const float4 *>(
            &k[at(b, hk, j, d4, p.skv, p.hkv)]);
        vv = *reinterpret_cast<const float4 *>(
            &v[at(b, hk, j, d4, p.skv, p.hkv)]);
      }
      kT[(d4 + 0) * BC + c] = kk.x;
      kT[(d4 + 1) * BC + c] = kk.y;
      kT[(d4 + 2) * BC + c] = kk.z;
      kT[(d4 + 3) * BC + c] = kk.w;
      *reinterpret_cast<float4 *>(&vs[c * D + d4]) = vv;
    }
    __syncthreads();
    // S = Q K^T: rows ty * TR + r, columns tx * 4 + c.
    float s[TR][4] = {};
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      float a[TR];
      for (int r = 0; r < TR; ++r)
        a[r] = qT[d * BR + ty * TR + r];
      float4 kk = *reinterpret_cast<const float4 *>(&kT[d * BC + tx * 4]);
      for (int r = 0; r < TR; ++r) {
        s[r][0] += a[r] * kk.x;
        s[r][1] += a[r] * kk.y;
        s[r][2] += a[r] * kk.z;
        s[r][3] += a[r] * kk.w;
      }
    }
    // Online softmax over the 16 threads that hold a row.
    for (int r = 0; r < TR; ++r) {
      int i = rowBase + ty * TR + r;
      float mx = -INFINITY;
      for (int c = 0; c < 4; ++c) {
        int j = j0 + tx * 4 + c;
        if (j >= p.skv || masked(p, b, i, j))
          s[r][c] = -INFINITY;
        mx = fmaxf(mx, s[r][c]);
      }
      for (int w = 1; w < 16; w *= 2)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, w));
      float mn = fmaxf(m[r], mx);
      // A row with nothing unmasked yet keeps m = -inf: no NaNs.
      float base = mn == -INFINITY ? 0.f : mn;
      float corr = exp2f(m[r] - base);
      float sum = 0;
      for (int c = 0; c < 4; ++c) {
        float e = exp2f(s[r][c] - base);
        ps[(ty * TR + r) * PS + tx * 4 + c] = e;
        sum += e;
      }
      for (int w = 1; w < 16; w *= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, w);
      l[r] = l[r] * corr + sum;
      m[r] = mn;
      for (int c = 0; c < 4; ++c)
        acc[r][c] *= corr;
    }
    __syncthreads();
    // O += P V: rows ty * TR + r, columns (of D) tx * 4 + c.
#pragma unroll 8
    for (int j = 0; j < BC; ++j) {
      float4 vv = *reinterpret_cast<const float4 *>(&vs[j * D + tx * 4]);
      for (int r = 0; r < TR; ++r) {
        float pj = ps[(ty * TR + r) * PS + j];
        acc[r][0] += pj * vv.x;
        acc[r][1] += pj * vv.y;
        acc[r][2] += pj * vv.z;
        acc[r][3] += pj * vv.w;
      }
    }
  }
  for (int r = 0; r < TR; ++r) {
    int i = rowBase + ty * TR + r;
    if (i >= p.sq)
      continue;
    float inv = l[r] > 0 ? 1.f / l[r] : 0.f;
    *reinterpret_cast<float4 *>(&o[at(b, h, i, tx * 4, p.sq, p.hq)]) =
        make_float4(acc[r][0] * inv, acc[r][1] * inv, acc[r][2] * inv,
                    acc[r][3] * inv);
  }
}

template <int TR> size_t flashSmem() {
  return sizeof(float) * (D * 16 * TR + D * BC + BC * D + 16 * TR * (BC + 4));
}

template <int TR>
void launchFlash(const Shape &p, float scale, const float *q, const float *k,
                 const float *v, float *o) {
  dim3 grid((p.sq + 16 * TR - 1) / (16 * TR), p.b * p.hq);
  flash<TR><<<grid, 256, flashSmem<TR>()>>>(p, scale, q, k, v, o);
}

template <class F> float medianUs(F &&launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i)
    launch();
  std::vector<float> times;
  for (int i = 0; i < 50; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1000);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main() {
  CHECK(cudaFuncSetAttribute(flash<1>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(flashSmem<1>())));
  CHECK(cudaFuncSetAttribute(flash<2>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(flashSmem<2>())));
  CHECK(cudaFuncSetAttribute(flash<4>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(flashSmem<4>())));
  std::vector<Shape> shapes = {
      {"bert b1", 1, 12, 12, 128, 128, false, true},
      {"bert b32", 32, 12, 12, 128, 128, false, true},
      {"llama b1", 1, 16, 4, 128, 128, true, false},
      {"llama b32", 32, 16, 4, 128, 128, true, false},
      {"long b1 s1024", 1, 16, 16, 1024, 1024, false, false},
  };
  std::printf("%-14s %10s %10s %10s %10s   %s\n", "shape", "naive us",
              "flash<1>", "flash<2>", "flash<4>",
              "GFLOP/s of the best, max rel. err. of each flash");
  for (const Shape &p : shapes) {
    size_t qn = size_t(p.b) * p.sq * p.hq * D;
    size_t kn = size_t(p.b) * p.skv * p.hkv * D;
    std::vector<float> host(std::max(qn, kn));
    float *q, *k, *v, *o, *ref;
    CHECK(cudaMalloc(&q, qn * 4));
    CHECK(cudaMalloc(&k, kn * 4));
    CHECK(cudaMalloc(&v, kn * 4));
    CHECK(cudaMalloc(&o, qn * 4));
    CHECK(cudaMalloc(&ref, qn * 4));
    srand(1);
    for (float *dst : {q, k, v}) {
      size_t n = dst == q ? qn : kn;
      for (size_t i = 0; i < n; ++i)
        host[i] = float(rand()) / RAND_MAX * 2 - 1;
      CHECK(cudaMemcpy(dst, host.data(), n * 4, cudaMemcpyHostToDevice));
    }
    float scale = 1.f / std::sqrt(float(D));
    int rows = p.b * p.hq * p.sq;
    float naiveUs = medianUs(
        [&] { naive<<<(rows + 127) / 128, 128>>>(p, scale, q, k, v, ref); });
    std::vector<float> want(qn), have(qn);
    CHECK(cudaMemcpy(want.data(), ref, qn * 4, cudaMemcpyDeviceToHost));
    float us[3], err[3];
    for (int t = 0; t < 3; ++t) {
      CHECK(cudaMemset(o, 0xff, qn * 4)); // NaNs
      auto launch = [&] {
        if (t == 0)
          launchFlash<1>(p, scale, q, k, v, o);
        else if (t == 1)
          launchFlash<2>(p, scale, q, k, v, o);
        else
          launchFlash<4>(p, scale, q, k, v, o);
      };
      launch();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(have.data(), o, qn * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (size_t i = 0; i < qn; ++i) {
        double d = std::fabs(double(have[i]) - want[i]) /
                   std::max(1e-3, std::fabs(double(want[i])));
        worst = std::isnan(have[i]) ? INFINITY : std::max(worst, d);
      }
      err[t] = float(worst);
      us[t] = medianUs(launch);
    }
    double flops = 4.0 * p.b * p.hq * p.sq * double(p.skv) * D;
    if (p.causal)
      flops /= 2;
    float best = std::min({us[0], us[1], us[2]});
    std::printf("%-14s %10.1f %10.1f %10.1f %10.1f   %.0f GFLOP/s, err %.1e "
                "%.1e %.1e\n",
                p.name, naiveUs, us[0], us[1], us[2], flops / best / 1e3,
                err[0], err[1], err[2]);
    for (float *ptr : {q, k, v, o, ref})
      CHECK(cudaFree(ptr));
  }
  return 0;
}
