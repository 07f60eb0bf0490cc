// Loads an artifact, runs it on inputs of 0.5 and prints its first
// output's first elements (float32), through the installed C API.
#include <fuse/runtime.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer MODEL.fbin\n");
    return 2;
  }
  std::printf("runtime %s\n", fuse_runtime_version());
  fuse_model *model = nullptr;
  if (fuse_model_load(argv[1], &model) != FUSE_OK) {
    std::fprintf(stderr, "error: %s\n", fuse_last_error());
    return 1;
  }
  for (size_t i = 0; i < fuse_model_num_inputs(model); ++i) {
    fuse_tensor_info info;
    fuse_model_input_info(model, i, &info);
    std::vector<float> data(info.bytes / sizeof(float), 0.5f);
    fuse_model_set_input(model, i, data.data(), info.bytes);
  }
  fuse_tensor_info out;
  fuse_model_output_info(model, 0, &out);
  std::vector<float> y(out.bytes / sizeof(float));
  if (fuse_model_run(model, 0) != FUSE_OK ||
      fuse_model_get_output(model, 0, y.data(), out.bytes) != FUSE_OK) {
    std::fprintf(stderr, "error: %s\n", fuse_last_error());
    return 1;
  }
  std::printf("output '%s': %g %g %g\n", out.name, y[0], y[1], y[2]);
  fuse_model_free(model);
  return 0;
}
