// Probe: how close can a 3x3 stride-1 depthwise conv + Clip on small planes
// (MobileNetV2 at batch 32: 7x7 with 960 channels, 14x14 with 384) get to
// the copy bandwidth, written by hand? Decides what the generated kernels
// should do for the last memory-bound groups below 70% (docs/models.md).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/dw bench/probes/depthwise_small_planes.cu
//   /tmp/dw
//
// 32-bit indices and constant shapes, as in the generated kernels (64-bit
// division by a runtime channel count made a first version compute-bound).
// Variants (each checked against the first):
//   output      one thread per output (today's flat kernel without tiles)
//   row         one thread per output row (today's thread_tile of 7 / 14)
//   flat4       a thread per 4 outputs of the flattened N*C*H*W tensor:
//               the window's inputs are one contiguous, 16-byte aligned
//               range of the flattened input (4 + 2 * (W + 1) elements,
//               rounded to float4s), masked at the plane's edges
//   planes      a block per P planes staged in shared memory (today's
//               `planes` mapping)
// and the copy of the same bytes (cudaMemcpyAsync and a float4 kernel),
// each timed two ways: one launch between events less an empty kernel's
// time (as fuse-run --profile), and 100 back to back.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

__device__ __forceinline__ float clip6(float v) {
  return fminf(fmaxf(v, 0.f), 6.f);
}

// The 3x3 window (pads of 1) of output (row, col) of channel c over one
// input plane, plus its bias, clipped.
template <int H, int W>
__device__ __forceinline__ float window3x3(const float *plane, int row,
                                           int col, int c,
                                           const float *__restrict__ w,
                                           const float *__restrict__ b) {
  float acc = b[c];
#pragma unroll
  for (int kh = 0; kh < 3; ++kh)
#pragma unroll
    for (int kw = 0; kw < 3; ++kw) {
      int r = row + kh - 1, q = col + kw - 1;
      if (r >= 0 && r < H && q >= 0 && q < W)
        acc += plane[r * W + q] * w[c * 9 + kh * 3 + kw];
    }
  return clip6(acc);
}

__global__ void emptyKernel() {}

__global__ void copy4(const float4 *__restrict__ in, float4 *__restrict__ out,
                      long n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = __ldg(in + i);
}

template <int H, int W, int C>
__global__ void dwOutput(const float *__restrict__ x,
                         const float *__restrict__ w,
                         const float *__restrict__ b, float *__restrict__ y,
                         int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total)
    return;
  int col = i % W, row = (i / W) % H;
  int plane = i / (H * W);
  int c = plane % C;
  y[i] = window3x3<H, W>(x + plane * H * W, row, col, c, w, b);
}

template <int H, int W, int C>
__global__ void dwRow(const float *__restrict__ x, const float *__restrict__ w,
                      const float *__restrict__ b, float *__restrict__ y,
                      int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  int row = i % H;
  int plane = i / H;
  int c = plane % C;
  const float *xp = x + plane * H * W;
  float acc[W];
#pragma unroll
  for (int q = 0; q < W; ++q)
    acc[q] = b[c];
#pragma unroll
  for (int kh = 0; kh < 3; ++kh) {
    int r = row + kh - 1;
    if (r < 0 || r >= H)
      continue;
    float in[W + 2];
    in[0] = in[W + 1] = 0.f;
#pragma unroll
    for (int q = 0; q < W; ++q)
      in[q + 1] = xp[r * W + q];
#pragma unroll
    for (int kw = 0; kw < 3; ++kw) {
      float wv = w[c * 9 + kh * 3 + kw];
#pragma unroll
      for (int q = 0; q < W; ++q)
        acc[q] += in[q + kw] * wv;
    }
  }
#pragma unroll
  for (int q = 0; q < W; ++q)
    y[(plane * H + row) * W + q] = clip6(acc[q]);
}

// 4 outputs of the flattened tensor a thread. Their window inputs lie in
// [i - W - 1, i + 3 + W + 1]; rounded out to float4s that is
// [i - 4 * ceil((W + 1) / 4), i + 4 + 4 * ceil((W + 1) / 4)).
template <int H, int W, int C>
__global__ void dwFlat4(const float *__restrict__ x,
                        const float *__restrict__ w,
                        const float *__restrict__ b, float *__restrict__ y,
                        int total) {
  constexpr int kHalo = 4 * ((W + 1 + 3) / 4);
  constexpr int kLoads = (4 + 2 * kHalo) / 4;
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= total)
    return;
  float in[4 * kLoads];
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    int at = i - kHalo + 4 * l;
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (at >= 0 && at < total)
      v = __ldg(reinterpret_cast<const float4 *>(x + at));
    in[4 * l] = v.x;
    in[4 * l + 1] = v.y;
    in[4 * l + 2] = v.z;
    in[4 * l + 3] = v.w;
  }
  float out[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    int o = i + e;
    int col = o % W, row = (o / W) % H;
    int c = (o / (H * W)) % C;
    float acc = b[c];
#pragma unroll
    for (int kh = 0; kh < 3; ++kh)
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        int r = row + kh - 1, q = col + kw - 1;
        float v = in[kHalo + e + (kh - 1) * W + (kw - 1)];
        bool inside = r >= 0 && r < H && q >= 0 && q < W;
        acc += (inside ? v : 0.f) * w[c * 9 + kh * 3 + kw];
      }
    out[e] = clip6(acc);
  }
  *reinterpret_cast<float4 *>(y + i) = make_float4(out[0], out[1], out[2],
                                                   out[3]);
}

template <int H, int W, int C, int P>
__global__ void dwPlanes(const float *__restrict__ x,
                         const float *__restrict__ w,
                         const float *__restrict__ b, float *__restrict__ y,
                         int planes) {
  __shared__ __align__(16) float tile[P * H * W];
  int first = blockIdx.x * P;
  int count = min(P, planes - first);
  int n = count * H * W;
  const float *xp = x + first * H * W;
  for (int e = 4 * threadIdx.x; e < n; e += 4 * blockDim.x) {
    if (e + 3 < n && ((first * H * W) % 4) == 0) {
      float4 v = __ldg(reinterpret_cast<const float4 *>(xp + e));
      *reinterpret_cast<float4 *>(tile + e) = v;
    } else {
      for (int k = e; k < min(e + 4, n); ++k)
        tile[k] = xp[k];
    }
  }
  __syncthreads();
  for (int e = threadIdx.x; e < n; e += blockDim.x) {
    int col = e % W, row = (e / W) % H, p = e / (H * W);
    int c = (first + p) % C;
    y[first * H * W + e] = window3x3<H, W>(tile + p * H * W, row, col, c, w, b);
  }
}

struct Timing {
  float single, streamed;
};

/// The median time of `runs` launches, each alone between two events.
template <typename Launch>
static float medianSingleUs(Launch launch, int runs) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms * 1000.f);
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

template <typename Launch>
static Timing timeIt(Launch launch, float emptyUs) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i)
    launch();
  float single = medianSingleUs(launch, 101);
  std::vector<float> streams;
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < 100; ++i)
      launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    streams.push_back(ms * 10.f);
  }
  std::sort(streams.begin(), streams.end());
  CHECK(cudaGetLastError());
  return {single - emptyUs, streams[2]};
}

template <int H, int W, int C, int P>
static void run(int N, float emptyUs, float copyGBs) {
  int total = N * C * H * W, planes = N * C;
  size_t bytes = total * sizeof(float);
  std::vector<float> hx(total), hw(C * 9), hb(C);
  srand(1);
  for (auto &v : hx)
    v = rand() / (float)RAND_MAX * 2.f - 0.5f;
  for (auto &v : hw)
    v = rand() / (float)RAND_MAX - 0.3f;
  for (auto &v : hb)
    v = rand() / (float)RAND_MAX - 0.5f;
  float *x, *w, *b, *y, *ref;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&ref, bytes));
  CHECK(cudaMalloc(&w, hw.size() * 4));
  CHECK(cudaMalloc(&b, hb.size() * 4));
  CHECK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, hw.data(), hw.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  double mb = 2.0 * bytes / 1e6;
  printf("\n%dx%d, %d channels, batch %d: %.1f MB moved; at %.0f GB/s the "
         "floor is %.2f us\n",
         H, W, C, N, mb, copyGBs, mb / copyGBs * 1e3);
  printf("%-28s %10s %8s %12s %8s %s\n", "variant", "single us", "% copy",
         "streamed us", "% copy", "max |diff|");
  auto report = [&](const char *name, Timing t, bool check) {
    float diff = 0.f;
    if (check) {
      std::vector<float> got(total), want(total);
      CHECK(cudaMemcpy(got.data(), y, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(want.data(), ref, bytes, cudaMemcpyDeviceToHost));
      for (int k = 0; k < total; ++k)
        diff = std::max(diff, std::abs(got[k] - want[k]));
    }
    printf("%-28s %10.2f %7.0f%% %12.2f %7.0f%% %s\n", name, t.single,
           mb / copyGBs * 1e3 / t.single * 100, t.streamed,
           mb / copyGBs * 1e3 / t.streamed * 100,
           check ? (diff < 1e-5f ? "ok" : "MISMATCH") : "");
    if (check && diff >= 1e-5f)
      printf("  max diff %g\n", diff);
  };
  const int T = 256;
  auto blocks = [&](int n) { return (unsigned)((n + T - 1) / T); };
  report("cudaMemcpyAsync",
         timeIt([&] { CHECK(cudaMemcpyAsync(y, x, bytes,
                                            cudaMemcpyDeviceToDevice)); },
                emptyUs),
         false);
  report("copy kernel (float4)", timeIt([&] {
           copy4<<<blocks(total / 4), T>>>((const float4 *)x, (float4 *)y,
                                            total / 4);
         }, emptyUs),
         false);
  dwOutput<H, W, C><<<blocks(total), T>>>(x, w, b, ref, total);
  report("output (a thread each)", timeIt([&] {
           dwOutput<H, W, C><<<blocks(total), T>>>(x, w, b, y, total);
         }, emptyUs),
         true);
  report("row (a thread each)", timeIt([&] {
           dwRow<H, W, C><<<blocks(planes * H), T>>>(x, w, b, y, planes * H);
         }, emptyUs),
         true);
  report("flat4 (4 outputs a thread)", timeIt([&] {
           dwFlat4<H, W, C><<<blocks(total / 4), T>>>(x, w, b, y, total);
         }, emptyUs),
         true);
  for (int threads : {128, 256}) {
    char name[64];
    snprintf(name, sizeof name, "flat4, %d threads", threads);
    report(name, timeIt([&] {
             dwFlat4<H, W, C><<<(unsigned)((total / 4 + threads - 1) / threads),
                                threads>>>(x, w, b, y, total);
           }, emptyUs),
           true);
  }
  char name[64];
  snprintf(name, sizeof name, "planes (%d a block)", P);
  report(name, timeIt([&] {
           dwPlanes<H, W, C, P><<<(unsigned)((planes + P - 1) / P), T>>>(
               x, w, b, y, planes);
         }, emptyUs),
         true);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(ref));
  CHECK(cudaFree(w));
  CHECK(cudaFree(b));
}

int main() {
  float emptyUs = medianSingleUs([] { emptyKernel<<<1, 32>>>(); }, 201);
  // The copy bandwidth as fuse-run measures it: a large device copy.
  float copyGBs;
  {
    size_t bytes = 256 << 20;
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int i = 0; i < 11; ++i) {
      CHECK(cudaEventRecord(e0));
      CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    copyGBs = 2.0 * bytes / 1e6 / t[5];
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  printf("empty kernel %.2f us; copy bandwidth (256 MB, read + write) %.0f "
         "GB/s\n",
         emptyUs, copyGBs);
  run<7, 7, 960, 36>(32, emptyUs, copyGBs);
  run<14, 14, 384, 9>(32, emptyUs, copyGBs);
  run<28, 28, 192, 4>(32, emptyUs, copyGBs);
  return 0;
}
