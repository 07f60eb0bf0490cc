// Probe: how close can a 3x3 stride-1 depthwise conv + Clip on small planes
// (MobileNetV2 at batch 32: 7x7 with 960 channels, 14x14 with 384) get to
// the copy bandwidth, written by hand? Decides what the generated kernels
// should do for the last memory-bound groups below 70% (docs/models.md).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/dw_probe bench/probes/depthwise_small_planes.cu
//   /tmp/dw_probe
//
// 32-bit indices and constant shapes, as in the generated kernels (64-bit
// division by a runtime channel count made a first version compute-bound).
// Variants (each checked against the first, with the output filled with
// NaNs before it runs):
//   output      one thread per output (today's flat kernel without tiles)
//   row         one thread per output row (today's thread_tile of 7 / 14)
//   flat4       a thread per 4 outputs of the flattened N*C*H*W tensor:
//               the window's inputs are one contiguous, 16-byte aligned
//               range of the flattened input (4 + 2 * (W + 1) elements,
//               rounded to float4s), masked at the plane's edges
//   planes      a block per P planes staged in shared memory (the
//               `planes` mapping before staged_output)
//   planes, N threads, rows / outputs
//               the same with G planes and one or two warps a block, a
//               thread a row (stored directly) or an output
//   staged out  what the `planes` mapping with staged_output makes: P
//               planes staged with float4 loads, a thread per 7 (or 14)
//               outputs of a row, the outputs into a second shared
//               buffer, a barrier, float4 stores; 1 to 8 warps a block
//   warp planes a warp per group of G consecutive planes (G * H * W a
//               multiple of 4: G = 4 at 7x7, 1 at 14x14 and 28x28), read
//               with coalesced float4 loads into the warp's own shared
//               memory with the group's weights and biases; __syncwarp()
//               only, no block barrier. A lane computes 7 consecutive
//               outputs of a row from the 3 x 9 inputs around them
//               (conflict-free: lanes step by 7 floats), writes them back
//               over the inputs, and the warp stores the group as float4s
//   persistent  warp planes with a grid that fits at once (blocks of 4
//               warps, 16 / 32 / 48 warps an SM at most): a warp loops over
//               groups gw, gw + warps, ... and loads the next group into
//               registers before it computes and stores this one
//   cp.async    persistent too, but with 3 buffers a warp filled by
//               cp.async, two groups ahead, costing no registers
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

// Today's `planes` lowering with a one-warp block: P planes staged with
// float4 loads, then a thread per output row (ROWS = true, the row's W
// outputs from the staged rows, stored directly) or per output.
template <int H, int W, int C, int P, bool ROWS>
__global__ void dwPlanesWarp(const float *__restrict__ x,
                             const float *__restrict__ w,
                             const float *__restrict__ b,
                             float *__restrict__ y, int planes) {
  static_assert((P * H * W) % 4 == 0, "whole float4s");
  __shared__ __align__(16) float tile[P * H * W];
  int first = blockIdx.x * P;
  if (first >= planes)
    return;
  constexpr int n = P * H * W;
  const float4 *xp = reinterpret_cast<const float4 *>(x + first * H * W);
  for (int e = threadIdx.x; e < n / 4; e += blockDim.x)
    reinterpret_cast<float4 *>(tile)[e] = __ldg(xp + e);
  __syncthreads();
  if constexpr (!ROWS) {
    for (int e = threadIdx.x; e < n; e += blockDim.x) {
      int col = e % W, row = (e / W) % H, p = e / (H * W);
      int c = (first + p) % C;
      y[first * H * W + e] =
          window3x3<H, W>(tile + p * H * W, row, col, c, w, b);
    }
  } else {
  for (int t = threadIdx.x; t < P * H; t += blockDim.x) {
    int row = t % H, p = t / H;
    int c = (first + p) % C;
    const float *plane = tile + p * H * W;
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
        in[q + 1] = plane[r * W + q];
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
      y[((first + p) * H + row) * W + q] = clip6(acc[q]);
  }
  }
}

// What the `planes` lowering makes with a staged output: P planes staged
// with float4 loads, a thread per SEG outputs of a row (weights through
// the cache), the outputs into a second shared buffer, a barrier, and
// float4 stores of the block's planes.
template <int H, int W, int C, int P, int SEG>
__global__ void dwPlanesStaged(const float *__restrict__ x,
                               const float *__restrict__ w,
                               const float *__restrict__ b,
                               float *__restrict__ y, int planes) {
  static_assert((P * H * W) % 4 == 0 && W % SEG == 0, "");
  constexpr int n = P * H * W;
  __shared__ __align__(16) float tile[n];
  __shared__ __align__(16) float out[n];
  int first = blockIdx.x * P;
  if (first >= planes)
    return;
  const float4 *xp = reinterpret_cast<const float4 *>(x + first * H * W);
  for (int e = threadIdx.x; e < n / 4; e += blockDim.x)
    reinterpret_cast<float4 *>(tile)[e] = __ldg(xp + e);
  __syncthreads();
  for (int t = threadIdx.x; t < n / SEG; t += blockDim.x) {
    int s = t * SEG;
    int p = s / (H * W), row = (s / W) % H, col0 = s % W;
    int c = (first + p) % C;
    float acc[SEG];
    float bias = b[c];
#pragma unroll
    for (int q = 0; q < SEG; ++q)
      acc[q] = bias;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh) {
      int r = row + kh - 1;
      if (r < 0 || r >= H)
        continue;
      int at = s + (kh - 1) * W;
      float in[SEG + 2];
      in[0] = col0 > 0 ? tile[at - 1] : 0.f;
      in[SEG + 1] = col0 + SEG < W ? tile[at + SEG] : 0.f;
#pragma unroll
      for (int q = 0; q < SEG; ++q)
        in[q + 1] = tile[at + q];
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        float wv = w[c * 9 + kh * 3 + kw];
#pragma unroll
        for (int q = 0; q < SEG; ++q)
          acc[q] += in[q + kw] * wv;
      }
    }
#pragma unroll
    for (int q = 0; q < SEG; ++q)
      out[s + q] = clip6(acc[q]);
  }
  __syncthreads();
  float4 *yp = reinterpret_cast<float4 *>(y + first * H * W);
  for (int e = threadIdx.x; e < n / 4; e += blockDim.x)
    yp[e] = reinterpret_cast<const float4 *>(out)[e];
}

// --- Warp-private plane groups ----------------------------------------------
// A warp owns a group of G consecutive planes (G * H * W a multiple of 4, so
// every group starts 16-byte aligned), reads it with coalesced float4 loads
// into its own shared memory and syncs with __syncwarp() only. A lane then
// computes a segment of SEG consecutive outputs of one row: it reads the 3
// input rows of the segment (SEG + 2 each) from shared memory, so a warp's
// shared reads step by SEG floats between lanes (conflict-free for odd SEG)
// and cost 3 * (SEG + 2) / SEG reads an output instead of 9. The outputs go
// back to the same buffer and leave as coalesced float4 stores.
template <int H, int W, int C, int G, int SEG> struct WarpGroup {
  static_assert((G * H * W) % 4 == 0, "a group must be whole float4s");
  static_assert(C % G == 0, "a group's channels must not wrap");
  static_assert(W % SEG == 0, "segments must tile a row");
  static constexpr int kN = G * H * W;  // floats of a group
  static constexpr int kN4 = kN / 4;
  static constexpr int kBias = G * 9;   // 9 weights a channel, then G biases
  static constexpr int kWts = G * 10;
  // Floats of a group's buffer (inputs, then weights), a multiple of 4.
  static constexpr int kStage = kN + (kWts + 3) / 4 * 4;
  static constexpr int kTasks = kN / SEG;
  static constexpr int kRounds = (kTasks + 31) / 32;
  static constexpr int kVec = (kN4 + 31) / 32;  // float4s a lane loads
  static constexpr int kWVec = (kWts + 31) / 32;
};

// Loads group g (its inputs and its G channels' weights and biases) into
// registers; the float4s are coalesced.
template <class Gp, int C, int G>
__device__ __forceinline__ void loadGroup(const float4 *__restrict__ x4,
                                          const float *__restrict__ w,
                                          const float *__restrict__ b, int g,
                                          int lane, float4 (&v)[Gp::kVec],
                                          float (&wv)[Gp::kWVec]) {
  const float4 *src = x4 + g * Gp::kN4;
#pragma unroll
  for (int j = 0; j < Gp::kVec; ++j) {
    int i = lane + 32 * j;
    if (i < Gp::kN4)
      v[j] = __ldg(src + i);
  }
  int c0 = (g * G) % C;
#pragma unroll
  for (int j = 0; j < Gp::kWVec; ++j) {
    int k = lane + 32 * j;
    if (k < Gp::kBias)
      wv[j] = __ldg(w + c0 * 9 + k);
    else if (k < Gp::kWts)
      wv[j] = __ldg(b + c0 + k - Gp::kBias);
  }
}

template <class Gp>
__device__ __forceinline__ void stageGroup(float *buf, int lane,
                                           const float4 (&v)[Gp::kVec],
                                           const float (&wv)[Gp::kWVec]) {
#pragma unroll
  for (int j = 0; j < Gp::kVec; ++j) {
    int i = lane + 32 * j;
    if (i < Gp::kN4)
      reinterpret_cast<float4 *>(buf)[i] = v[j];
  }
#pragma unroll
  for (int j = 0; j < Gp::kWVec; ++j) {
    int k = lane + 32 * j;
    if (k < Gp::kWts)
      buf[Gp::kN + k] = wv[j];
  }
}

// Every output of the group staged in `buf`, into registers: segment
// t = lane + 32 * k of the flattened group is out[k].
template <class Gp, int H, int W, int SEG>
__device__ __forceinline__ void computeGroup(const float *buf, int lane,
                                             float (&out)[Gp::kRounds][SEG]) {
  constexpr int HW = H * W;
  const float *wt = buf + Gp::kN;
#pragma unroll
  for (int k = 0; k < Gp::kRounds; ++k) {
    int t = lane + 32 * k;
    if (Gp::kTasks % 32 != 0 && t >= Gp::kTasks)
      continue;
    int s = t * SEG;
    int p = s / HW, row = (s / W) % H, col0 = s % W;
    float acc[SEG];
    float bias = wt[Gp::kBias + p];
#pragma unroll
    for (int q = 0; q < SEG; ++q)
      acc[q] = bias;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh) {
      int r = row + kh - 1;
      if (r < 0 || r >= H)
        continue;
      int at = s + (kh - 1) * W;  // the input under acc[0], same plane
      float in[SEG + 2];
      in[0] = col0 > 0 ? buf[at - 1] : 0.f;
      in[SEG + 1] = col0 + SEG < W ? buf[at + SEG] : 0.f;
#pragma unroll
      for (int q = 0; q < SEG; ++q)
        in[q + 1] = buf[at + q];
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        float wv = wt[p * 9 + kh * 3 + kw];
#pragma unroll
        for (int q = 0; q < SEG; ++q)
          acc[q] += in[q + kw] * wv;
      }
    }
#pragma unroll
    for (int q = 0; q < SEG; ++q)
      out[k][q] = clip6(acc[q]);
  }
}

// Writes the outputs over the staged inputs and stores them as float4s;
// `buf` is free again on return.
template <class Gp, int SEG>
__device__ __forceinline__ void storeGroup(float *buf, int lane,
                                           const float (&out)[Gp::kRounds][SEG],
                                           float4 *__restrict__ y4, int g) {
  __syncwarp(); // every lane has read its inputs
#pragma unroll
  for (int k = 0; k < Gp::kRounds; ++k) {
    int t = lane + 32 * k;
    if (Gp::kTasks % 32 != 0 && t >= Gp::kTasks)
      continue;
#pragma unroll
    for (int q = 0; q < SEG; ++q)
      buf[t * SEG + q] = out[k][q];
  }
  __syncwarp();
  float4 *dst = y4 + g * Gp::kN4;
#pragma unroll
  for (int j = 0; j < Gp::kVec; ++j) {
    int i = lane + 32 * j;
    if (i < Gp::kN4)
      dst[i] = reinterpret_cast<const float4 *>(buf)[i];
  }
  __syncwarp(); // every lane has read the outputs
}

// A group a warp, blockDim.x / 32 warps a block; dynamic shared memory of
// blockDim.x / 32 * kStage floats.
template <int H, int W, int C, int G, int SEG>
__global__ void dwWarpPlanes(const float *__restrict__ x,
                             const float *__restrict__ w,
                             const float *__restrict__ b,
                             float *__restrict__ y, int groups) {
  using Gp = WarpGroup<H, W, C, G, SEG>;
  extern __shared__ float4 smem4[];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int g = blockIdx.x * (blockDim.x / 32) + warp;
  if (g >= groups) // the whole warp: no __syncwarp() waits for it
    return;
  float *buf = reinterpret_cast<float *>(smem4) + warp * Gp::kStage;
  float4 v[Gp::kVec];
  float wv[Gp::kWVec];
  loadGroup<Gp, C, G>(reinterpret_cast<const float4 *>(x), w, b, g, lane, v,
                      wv);
  stageGroup<Gp>(buf, lane, v, wv);
  __syncwarp();
  float out[Gp::kRounds][SEG];
  computeGroup<Gp, H, W, SEG>(buf, lane, out);
  storeGroup<Gp, SEG>(buf, lane, out, reinterpret_cast<float4 *>(y), g);
}

// Persistent: warp gw of the grid's `warps` does groups gw, gw + warps, ...,
// and loads the next group into registers before it computes the current
// one, so that group's loads are in flight during the compute and stores.
template <int H, int W, int C, int G, int SEG>
__global__ void dwWarpPlanesPersistent(const float *__restrict__ x,
                                       const float *__restrict__ w,
                                       const float *__restrict__ b,
                                       float *__restrict__ y, int groups) {
  using Gp = WarpGroup<H, W, C, G, SEG>;
  extern __shared__ float4 smem4[];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int warps = gridDim.x * (blockDim.x / 32);
  int g = blockIdx.x * (blockDim.x / 32) + warp;
  if (g >= groups)
    return;
  float *buf = reinterpret_cast<float *>(smem4) + warp * Gp::kStage;
  const float4 *x4 = reinterpret_cast<const float4 *>(x);
  float4 v[Gp::kVec];
  float wv[Gp::kWVec];
  loadGroup<Gp, C, G>(x4, w, b, g, lane, v, wv);
  for (; g < groups; g += warps) {
    stageGroup<Gp>(buf, lane, v, wv);
    __syncwarp();
    if (g + warps < groups)
      loadGroup<Gp, C, G>(x4, w, b, g + warps, lane, v, wv);
    float out[Gp::kRounds][SEG];
    computeGroup<Gp, H, W, SEG>(buf, lane, out);
    storeGroup<Gp, SEG>(buf, lane, out, reinterpret_cast<float4 *>(y), g);
  }
}

__device__ __forceinline__ void cpAsync16(void *dst, const void *src) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s),
               "l"(src)
               : "memory");
}

__device__ __forceinline__ void cpAsync4(void *dst, const void *src) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s),
               "l"(src)
               : "memory");
}

__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Group g into `buf` by cp.async (16-byte copies that bypass L1 for the
// inputs, 4-byte ones for weights and biases).
template <class Gp, int C, int G>
__device__ __forceinline__ void issueGroup(const float *__restrict__ x,
                                           const float *__restrict__ w,
                                           const float *__restrict__ b,
                                           int g, int lane, float *buf) {
  const float *src = x + g * Gp::kN;
#pragma unroll
  for (int j = 0; j < Gp::kVec; ++j) {
    int i = lane + 32 * j;
    if (i < Gp::kN4)
      cpAsync16(buf + 4 * i, src + 4 * i);
  }
  int c0 = (g * G) % C;
#pragma unroll
  for (int j = 0; j < Gp::kWVec; ++j) {
    int k = lane + 32 * j;
    if (k < Gp::kBias)
      cpAsync4(buf + Gp::kN + k, w + c0 * 9 + k);
    else if (k < Gp::kWts)
      cpAsync4(buf + Gp::kN + k, b + c0 + k - Gp::kBias);
  }
}

// Persistent with S buffers a warp filled by cp.async: S - 1 groups ahead
// are in flight while the warp computes and stores one, and they cost no
// registers. Dynamic shared memory of blockDim.x / 32 * S * kStage floats.
template <int H, int W, int C, int G, int SEG, int S>
__global__ void dwWarpPlanesAsync(const float *__restrict__ x,
                                  const float *__restrict__ w,
                                  const float *__restrict__ b,
                                  float *__restrict__ y, int groups) {
  static_assert(S >= 2, "cp.async needs at least two buffers");
  using Gp = WarpGroup<H, W, C, G, SEG>;
  extern __shared__ float4 smem4[];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int warps = gridDim.x * (blockDim.x / 32);
  int g = blockIdx.x * (blockDim.x / 32) + warp;
  if (g >= groups)
    return;
  float *base = reinterpret_cast<float *>(smem4) + warp * S * Gp::kStage;
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (g + s * warps < groups)
      issueGroup<Gp, C, G>(x, w, b, g + s * warps, lane, base + s * Gp::kStage);
    cpAsyncCommit(); // empty groups too: one commit group per buffer
  }
  int stage = 0; // the buffer of group g
  for (; g < groups; g += warps) {
    // The buffer S - 1 ahead held the previous group, which storeGroup
    // freed (its last __syncwarp()).
    int ahead = stage == 0 ? S - 1 : stage - 1;
    if (g + (S - 1) * warps < groups)
      issueGroup<Gp, C, G>(x, w, b, g + (S - 1) * warps, lane,
                           base + ahead * Gp::kStage);
    cpAsyncCommit();
    cpAsyncWait<S - 1>(); // this lane's copies of group g have landed
    __syncwarp();         // and every lane's
    float *buf = base + stage * Gp::kStage;
    float out[Gp::kRounds][SEG];
    computeGroup<Gp, H, W, SEG>(buf, lane, out);
    storeGroup<Gp, SEG>(buf, lane, out, reinterpret_cast<float4 *>(y), g);
    stage = stage == S - 1 ? 0 : stage + 1;
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

// The dynamic shared memory a kernel needs, allowed; the blocks of `threads`
// that fit on an SM with it, at most `want`.
template <typename Kernel>
static int allowBlocksPerSM(Kernel kernel, int threads, size_t smem,
                            int want) {
  CHECK(cudaFuncSetAttribute(kernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem));
  int fit = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads,
                                                      smem));
  return std::min(fit, want);
}

template <int H, int W, int C, int P, int G>
static void run(int N, float emptyUs, float copyGBs, int sms) {
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
  printf("%-36s %10s %8s %12s %8s %s\n", "variant", "single us", "% copy",
         "streamed us", "% copy", "max |diff|");
  auto report = [&](const char *name, Timing t, bool check) {
    float diff = 0.f;
    if (check) {
      std::vector<float> got(total), want(total);
      CHECK(cudaMemcpy(got.data(), y, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(want.data(), ref, bytes, cudaMemcpyDeviceToHost));
      for (int k = 0; k < total; ++k) {
        float d = std::abs(got[k] - want[k]);
        if (!(d <= diff)) // NaN (an output never written) too
          diff = d;
      }
    }
    printf("%-36s %10.2f %7.0f%% %12.2f %7.0f%% %s\n", name, t.single,
           mb / copyGBs * 1e3 / t.single * 100, t.streamed,
           mb / copyGBs * 1e3 / t.streamed * 100,
           check ? (diff < 1e-5f ? "ok" : "MISMATCH") : "");
    if (check && diff >= 1e-5f)
      printf("  max diff %g\n", diff);
  };
  // Fills y with NaNs and times `launch`: an output a variant leaves unwritten
  // fails the check rather than passing with the previous variant's value.
  auto timeChecked = [&](auto launch) {
    CHECK(cudaMemset(y, 0xff, bytes));
    return timeIt(launch, emptyUs);
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
  report("output (a thread each)", timeChecked([&] {
           dwOutput<H, W, C><<<blocks(total), T>>>(x, w, b, y, total);
         }),
         true);
  report("row (a thread each)", timeChecked([&] {
           dwRow<H, W, C><<<blocks(planes * H), T>>>(x, w, b, y, planes * H);
         }),
         true);
  report("flat4 (4 outputs a thread)", timeChecked([&] {
           dwFlat4<H, W, C><<<blocks(total / 4), T>>>(x, w, b, y, total);
         }),
         true);
  for (int threads : {128, 256}) {
    char name[64];
    snprintf(name, sizeof name, "flat4, %d threads", threads);
    report(name, timeChecked([&] {
             dwFlat4<H, W, C><<<(unsigned)((total / 4 + threads - 1) / threads),
                                threads>>>(x, w, b, y, total);
           }),
           true);
  }
  char name[64];
  snprintf(name, sizeof name, "planes (%d a block)", P);
  report(name, timeChecked([&] {
           dwPlanes<H, W, C, P><<<(unsigned)((planes + P - 1) / P), T>>>(
               x, w, b, y, planes);
         }),
         true);
  for (int threads : {32, 64}) {
    snprintf(name, sizeof name, "planes (%d), %d threads, rows", G, threads);
    report(name, timeChecked([&] {
             dwPlanesWarp<H, W, C, G, true>
                 <<<(unsigned)((planes + G - 1) / G), threads>>>(x, w, b, y,
                                                                 planes);
           }),
           true);
    snprintf(name, sizeof name, "planes (%d), %d threads, outputs", G,
             threads);
    report(name, timeChecked([&] {
             dwPlanesWarp<H, W, C, G, false>
                 <<<(unsigned)((planes + G - 1) / G), threads>>>(x, w, b, y,
                                                                 planes);
           }),
           true);
  }
  {
    auto staged = [&](auto kernel, int p, int threads, const char *what) {
      snprintf(name, sizeof name, "staged out, %d planes, %d thr, %s", p,
               threads, what);
      report(name, timeChecked([&] {
               kernel<<<(unsigned)((planes + p - 1) / p), threads>>>(
                   x, w, b, y, planes);
             }),
             true);
    };
    staged(dwPlanesStaged<H, W, C, G, 7>, G, 32, "seg 7");
    staged(dwPlanesStaged<H, W, C, 2 * G, 7>, 2 * G, 64, "seg 7");
    staged(dwPlanesStaged<H, W, C, 4 * G, 7>, 4 * G, 128, "seg 7");
    if constexpr (H * W < 784) {
      staged(dwPlanesStaged<H, W, C, 8 * G, 7>, 8 * G, 256, "seg 7");
      if constexpr (W % 14 == 0) {
        staged(dwPlanesStaged<H, W, C, 2 * G, 14>, 2 * G, 32, "seg 14");
        staged(dwPlanesStaged<H, W, C, 4 * G, 14>, 4 * G, 64, "seg 14");
        staged(dwPlanesStaged<H, W, C, 8 * G, 14>, 8 * G, 128, "seg 14");
      }
    }
  }
  // Warp-private plane groups of G planes, row segments of 7.
  constexpr int SEG = 7;
  constexpr int kStages = 3;
  using Gp = WarpGroup<H, W, C, G, SEG>;
  int groups = planes / G;
  for (int warpsPerBlock : {4, 8}) {
    int threads = 32 * warpsPerBlock;
    size_t smem = warpsPerBlock * Gp::kStage * sizeof(float);
    allowBlocksPerSM(dwWarpPlanes<H, W, C, G, SEG>, threads, smem, 1);
    snprintf(name, sizeof name, "warp planes (%d), %d warps a block", G,
             warpsPerBlock);
    report(name, timeChecked([&] {
             dwWarpPlanes<H, W, C, G, SEG>
                 <<<(unsigned)((groups + warpsPerBlock - 1) / warpsPerBlock),
                    threads, smem>>>(x, w, b, y, groups);
           }),
           true);
  }
  // Persistent kernels: blocks of 4 warps, as many as wanted that fit on
  // every SM (no more than the groups need).
  const int kWarpsPerBlock = 4, kThreads = 32 * kWarpsPerBlock;
  int lastPerSM = -1; // a row once when occupancy clamps two to the same
  for (int warpsPerSM : {16, 32, 48}) {
    size_t smem = kWarpsPerBlock * Gp::kStage * sizeof(float);
    int perSM = allowBlocksPerSM(dwWarpPlanesPersistent<H, W, C, G, SEG>,
                                 kThreads, smem, warpsPerSM / kWarpsPerBlock);
    if (perSM == 0) {
      printf("(%d warps an SM: a block does not fit)\n", warpsPerSM);
      continue;
    }
    if (perSM == lastPerSM)
      continue;
    lastPerSM = perSM;
    int grid = std::min(sms * perSM,
                        (groups + kWarpsPerBlock - 1) / kWarpsPerBlock);
    snprintf(name, sizeof name, "persistent, %d warps an SM",
             perSM * kWarpsPerBlock);
    report(name, timeChecked([&] {
             dwWarpPlanesPersistent<H, W, C, G, SEG>
                 <<<grid, kThreads, smem>>>(x, w, b, y, groups);
           }),
           true);
  }
  lastPerSM = -1;
  for (int warpsPerSM : {16, 32}) {
    size_t smem = kWarpsPerBlock * kStages * Gp::kStage * sizeof(float);
    int perSM = allowBlocksPerSM(dwWarpPlanesAsync<H, W, C, G, SEG, kStages>,
                                 kThreads, smem, warpsPerSM / kWarpsPerBlock);
    if (perSM == 0) {
      printf("(%d warps an SM: a block does not fit)\n", warpsPerSM);
      continue;
    }
    if (perSM == lastPerSM)
      continue;
    lastPerSM = perSM;
    int grid = std::min(sms * perSM,
                        (groups + kWarpsPerBlock - 1) / kWarpsPerBlock);
    snprintf(name, sizeof name, "cp.async x%d, %d warps an SM", kStages,
             perSM * kWarpsPerBlock);
    report(name, timeChecked([&] {
             dwWarpPlanesAsync<H, W, C, G, SEG, kStages>
                 <<<grid, kThreads, smem>>>(x, w, b, y, groups);
           }),
           true);
  }
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
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // The last template argument is G, the planes of a warp's group: the
  // fewest with G * H * W a multiple of 4.
  run<7, 7, 960, 36, 4>(32, emptyUs, copyGBs, sms);
  run<14, 14, 384, 9, 1>(32, emptyUs, copyGBs, sms);
  run<28, 28, 192, 4, 1>(32, emptyUs, copyGBs, sms);
  return 0;
}
