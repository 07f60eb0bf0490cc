// Step 5 of docs/tutorial.md: load an artifact, run it on an input of
// constant pixels, print the top class. Every C API call returns a
// status; fuse_last_error() says what went wrong.
#include <fuse/runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

static int fail(const char *what) {
  std::fprintf(stderr, "%s: %s\n", what, fuse_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: serve MODEL.fbin\n");
    return 2;
  }
  fuse_model *model = nullptr;
  if (fuse_model_load(argv[1], &model) != FUSE_OK)
    return fail("load");
  fuse_tensor_info in, out;
  fuse_model_input_info(model, 0, &in);
  fuse_model_output_info(model, 0, &out);
  if (in.dtype != 1 || out.dtype != 1) { // ONNX FLOAT
    std::fprintf(stderr, "this example takes float32 tensors\n");
    return 1;
  }
  std::vector<float> image(in.bytes / sizeof(float), 0.5f);
  std::vector<float> logits(out.bytes / sizeof(float));
  if (fuse_model_set_input(model, 0, image.data(), in.bytes) != FUSE_OK)
    return fail("set_input");
  if (fuse_model_run(model, 0) != FUSE_OK) // plan 0: "main"
    return fail("run");
  if (fuse_model_get_output(model, 0, logits.data(), out.bytes) != FUSE_OK)
    return fail("get_output");
  size_t top = std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::printf("%s on %s: '%s' has %zu values, the largest at %zu (%g)\n",
              fuse_runtime_version(), fuse_model_device_name(model), out.name,
              logits.size(), top, logits[top]);
  fuse_model_free(model);
  return 0;
}
