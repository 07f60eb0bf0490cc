// Shared by the library probes: per-call time of a library call captured
// in a CUDA graph, the way a compiled model's plan launches it.
#ifndef FUSE_BENCH_PROBES_GRAPH_TIMING_H
#define FUSE_BENCH_PROBES_GRAPH_TIMING_H

#include <algorithm>
#include <cuda_runtime.h>
#include <vector>

/// `calls` back-to-back calls of `enqueue()` (true when the call was
/// accepted) captured in one graph on `stream`; the median of `replays`
/// replays, per call, in microseconds. Negative when a call or the capture
/// failed (the error is cleared).
template <class Enqueue>
float timeInGraph(cudaStream_t stream, int calls, int replays,
                  Enqueue enqueue) {
  cudaGraph_t graph;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) !=
      cudaSuccess)
    return -1;
  bool ok = true;
  for (int i = 0; i < calls; ++i)
    ok &= enqueue();
  cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  if (!ok || captured != cudaSuccess ||
      cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    cudaGetLastError();
    if (captured == cudaSuccess)
      cudaGraphDestroy(graph);
    return -1;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r < replays; ++r) {
    cudaEventRecord(start, stream);
    cudaGraphLaunch(exec, stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms * 1000 / calls);
  }
  std::sort(times.begin(), times.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return times[times.size() / 2];
}

#endif // FUSE_BENCH_PROBES_GRAPH_TIMING_H
