// cpu_avgpool_relu.cpp - The seed paper's CPU version: AvgPool2D (kernel 8,
// stride 8) followed by ReLU over an H x W float image, plain C++ loops on
// one core. Prints the median of several timed runs.
//
//   cpu_avgpool_relu H W [RUNS]
//
// Build: g++ -O3 -march=x86-64-v2 -o cpu_avgpool_relu cpu_avgpool_relu.cpp

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s H W [RUNS]\n", argv[0]);
    return 2;
  }
  const long h = std::atol(argv[1]), w = std::atol(argv[2]);
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  const long oh = h / 8, ow = w / 8;
  std::vector<float> in(static_cast<size_t>(h) * w), out(oh * ow);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : in)
    x = dist(rng);

  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < oh; ++i)
      for (long j = 0; j < ow; ++j) {
        float sum = 0.0f;
        for (long di = 0; di < 8; ++di)
          for (long dj = 0; dj < 8; ++dj)
            sum += in[(i * 8 + di) * w + j * 8 + dj];
        out[i * ow + j] = std::max(sum / 64.0f, 0.0f);
      }
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  double checksum = 0;
  for (float x : out)
    checksum += x;
  std::printf("cpu: h=%ld w=%ld median_ms=%.4f checksum=%.6g\n", h, w,
              times[times.size() / 2], checksum);
  return 0;
}
