/*===- fuse-runtime-api-test.c - Drive the C API's edge cases ------------===*
 *
 * fuse-runtime-api-test MODEL.fbin
 * fuse-runtime-api-test --load MODEL.fbin   (prints the load status only)
 * fuse-runtime-api-test --null MODEL.fbin   (a NULL for every pointer)
 * fuse-runtime-api-test --sessions MODEL.fbin
 *                        (load options, bound inputs and outputs, runs on
 *                        a stream, sessions sharing the weights; on CUDA
 *                        the device memory comes from the driver, opened
 *                        with dlopen: the test's mock driver)
 * fuse-runtime-api-test --choices MODEL.fbin OUT.fbin
 *                        (selections, times and saving, on the "choices"
 *                        artifact: three outputs, two choices of two
 *                        candidates, the first candidate of the first the
 *                        slow one; writes OUT.fbin)
 *
 * MODEL is test/Runtime's "addrelu" artifact (input x, output y, plans
 * "main" and "reference", a Metadata section with a group per launch), CPU
 * or CUDA. Prints one line per call for FileCheck: the argument errors,
 * loading from bytes, two models loaded at once, the per-thread last
 * error, launch kinds and groups, profiling and the device's limits,
 * which fuse-run cannot reach.
 *
 *===----------------------------------------------------------------------===*/

#include "fuse/runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *what, fuse_status status) {
  printf("%s: status=%d%s%s\n", what, (int)status, status ? " " : "",
         status ? fuse_last_error() : "");
}

static void *threadError(void *arg) {
  (void)arg;
  printf("other thread's last error: '%s'\n", fuse_last_error());
  return NULL;
}

static int readAll(const char *path, unsigned char **data, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return 0;
  fseek(file, 0, SEEK_END);
  *size = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  *data = malloc(*size ? *size : 1);
  int ok = fread(*data, 1, *size, file) == *size;
  fclose(file);
  return ok;
}

/* Every entry point with a NULL in each pointer it takes: a status and a
 * message (or the documented 0 / NULL / ""), never a crash. */
static int nullPointers(const char *path) {
  fuse_model *model = NULL;
  fuse_tensor_info tensor;
  fuse_launch_info launch;
  fuse_buffer_info buffer;
  double times[1];
  float x[24] = {0}, y[24];
  report("load NULL model", fuse_model_load(path, NULL));
  report("load_bytes NULL model", fuse_model_load_bytes("", 0, NULL));
  report("inspect NULL path", fuse_model_inspect(NULL, &model));
  report("inspect NULL model", fuse_model_inspect(path, NULL));
  report("inspect_bytes NULL data", fuse_model_inspect_bytes(NULL, 64, &model));
  report("inspect_bytes NULL model", fuse_model_inspect_bytes("", 0, NULL));
  printf("NULL model: target=%d arch='%s' outputs=%zu plan_name=%s "
         "launches=%zu arena=%llu buffers=%zu bytes=%llu\n",
         (int)fuse_model_target(NULL), fuse_model_arch(NULL),
         fuse_model_num_outputs(NULL),
         fuse_model_plan_name(NULL, 0) ? "?" : "NULL",
         fuse_model_plan_num_launches(NULL, 0),
         (unsigned long long)fuse_model_plan_arena_bytes(NULL, 0),
         fuse_model_plan_num_buffers(NULL, 0),
         (unsigned long long)fuse_model_plan_bytes(NULL, 0));
  report("input_info NULL model", fuse_model_input_info(NULL, 0, &tensor));
  report("plan_launch NULL model", fuse_model_plan_launch(NULL, 0, 0, &launch));
  report("plan_buffer NULL model", fuse_model_plan_buffer(NULL, 0, 0, &buffer));
  fuse_check_info checkInfo;
  report("plan_check NULL model",
         fuse_model_plan_check(NULL, 0, 0, &checkInfo));
  report("set_input NULL model", fuse_model_set_input(NULL, 0, x, sizeof(x)));
  report("run NULL model", fuse_model_run(NULL, 0));
  report("get_output NULL model", fuse_model_get_output(NULL, 0, y, sizeof(y)));
  report("benchmark NULL model", fuse_model_benchmark(NULL, 0, 1, 1, times));
  fuse_group_info group;
  const char *name = NULL, *opType = NULL;
  double copy = 0, gflops = 0;
  printf("NULL model: groups=%zu device='%s' libraries='%s'\n",
         fuse_model_num_groups(NULL), fuse_model_device_name(NULL),
         fuse_model_libraries(NULL));
  report("group_info NULL model", fuse_model_group_info(NULL, 0, &group));
  report("group_node NULL model",
         fuse_model_group_node(NULL, 0, 0, &name, &opType));
  report("profile NULL model", fuse_model_profile(NULL, 0, 1, 1, times, NULL));
  report("measure_limits NULL model",
         fuse_model_measure_limits(NULL, &copy, &gflops));

  report("load", fuse_model_load(path, &model));
  report("input_info NULL info", fuse_model_input_info(model, 0, NULL));
  report("plan_launch NULL info", fuse_model_plan_launch(model, 0, 0, NULL));
  report("plan_buffer NULL info", fuse_model_plan_buffer(model, 0, 0, NULL));
  printf("checks: %zu (plan 9: %zu)\n", fuse_model_plan_num_checks(model, 0),
         fuse_model_plan_num_checks(model, 9));
  report("plan_check out of range",
         fuse_model_plan_check(model, 0, 0, &checkInfo));
  report("group_info NULL info", fuse_model_group_info(model, 0, NULL));
  report("group_node NULL name",
         fuse_model_group_node(model, 0, 0, NULL, &opType));
  report("group_node NULL op_type",
         fuse_model_group_node(model, 0, 0, &name, NULL));
  report("measure_limits NULL copy",
         fuse_model_measure_limits(model, NULL, &gflops));
  report("measure_limits NULL gflops",
         fuse_model_measure_limits(model, &copy, NULL));
  report("set_input", fuse_model_set_input(model, 0, x, sizeof(x)));
  report("profile NULL times", fuse_model_profile(model, 0, 0, 1, NULL, NULL));
  report("run", fuse_model_run(model, 0));
  report("get_output NULL data", fuse_model_get_output(model, 0, NULL, 96));
  fuse_model_free(model);
  printf("done\n");
  return 0;
}

static void printChoices(const fuse_model *model) {
  for (size_t c = 0; c < fuse_model_plan_num_choices(model, 0); ++c) {
    fuse_choice_info choice;
    fuse_model_plan_choice(model, 0, c, &choice);
    printf("choice %zu '%s': selected=%u tuned=%u candidates=%u", c,
           choice.key, choice.selected, choice.tuned, choice.num_candidates);
    for (uint32_t i = 0; i < choice.num_candidates; ++i) {
      fuse_candidate_info candidate;
      fuse_model_plan_candidate(model, 0, c, i, &candidate);
      printf(" | '%s' [%u,+%u) %g", candidate.label, candidate.first_launch,
             candidate.num_launches, candidate.time_ms);
    }
    printf("\n");
  }
}

/* Which launches of plan 0 a profile timed (time > 0 or not). */
static void printTimed(fuse_model *model) {
  double times[6];
  report("profile", fuse_model_profile(model, 0, 0, 1, times, NULL));
  printf("timed:");
  for (int l = 0; l < 6; ++l)
    printf(" %d", times[l] > 0);
  printf(" bytes=%llu\n", (unsigned long long)fuse_model_plan_bytes(model, 0));
}

/* Checks the outputs: y, z and y2 are all relu(x + w) whichever candidates
 * ran. */
static void checkOutputs(fuse_model *model, const char *what) {
  float y[3][24];
  int same = 1;
  for (size_t o = 0; o < 3; ++o)
    fuse_model_get_output(model, o, y[o], sizeof(y[o]));
  for (int i = 0; i < 24; ++i)
    same &= y[0][i] == y[1][i] && y[0][i] == y[2][i] && y[0][i] >= 0;
  printf("%s: outputs agree: %d\n", what, same);
}

static int choices(const char *path, const char *out) {
  fuse_model *model = NULL;
  fuse_choice_info choice;
  fuse_candidate_info candidate;
  float x[24];
  for (int i = 0; i < 24; ++i)
    x[i] = (float)(i % 7) / 3.0f - 1.0f;
  report("load", fuse_model_load(path, &model));
  printf("choices: plan 0 %zu, plan 1 %zu, NULL %zu; driver '%s', "
         "NULL '%s'\n",
         fuse_model_plan_num_choices(model, 0),
         fuse_model_plan_num_choices(model, 1),
         fuse_model_plan_num_choices(NULL, 0), fuse_model_device_driver(model),
         fuse_model_device_driver(NULL));
  printChoices(model);
  report("choice 2", fuse_model_plan_choice(model, 0, 2, &choice));
  report("choice plan 1", fuse_model_plan_choice(model, 1, 0, &choice));
  report("choice NULL info", fuse_model_plan_choice(model, 0, 0, NULL));
  report("choice NULL model", fuse_model_plan_choice(NULL, 0, 0, &choice));
  report("candidate 2", fuse_model_plan_candidate(model, 0, 0, 2, &candidate));
  report("candidate NULL info",
         fuse_model_plan_candidate(model, 0, 0, 0, NULL));
  report("select candidate 2", fuse_model_plan_select(model, 0, 0, 2));
  report("select choice 5", fuse_model_plan_select(model, 0, 5, 0));
  report("select NULL model", fuse_model_plan_select(NULL, 0, 0, 0));

  report("set_input", fuse_model_set_input(model, 0, x, sizeof(x)));
  report("run", fuse_model_run(model, 0));
  checkOutputs(model, "heuristic selection");
  printTimed(model);
  report("select all", fuse_model_plan_select(model, 0, 0,
                                               FUSE_ALL_CANDIDATES));
  report("select all", fuse_model_plan_select(model, 0, 1,
                                               FUSE_ALL_CANDIDATES));
  printChoices(model);
  printTimed(model);
  checkOutputs(model, "all candidates");
  report("select 1", fuse_model_plan_select(model, 0, 0, 1));
  report("select 1", fuse_model_plan_select(model, 0, 1, 1));
  printTimed(model);
  report("run", fuse_model_run(model, 0));
  checkOutputs(model, "other candidates");

  double bad[2] = {1.0, -2.0}, nan[2] = {0.0 / 0.0, 1.0},
         huge[2] = {1e300, 1.0}, tie[2] = {0.5, 0.5}, times[2] = {2.5, 0.25};
  report("record negative", fuse_model_plan_record_times(model, 0, 0, bad));
  report("record NaN", fuse_model_plan_record_times(model, 0, 0, nan));
  report("record huge", fuse_model_plan_record_times(model, 0, 0, huge));
  report("record NULL", fuse_model_plan_record_times(model, 0, 0, NULL));
  report("record choice 2", fuse_model_plan_record_times(model, 0, 2, times));
  report("record", fuse_model_plan_record_times(model, 0, 0, times));
  report("record tie", fuse_model_plan_record_times(model, 0, 1, tie));
  printChoices(model);
  printTimed(model);

  report("save NULL path", fuse_model_save(model, NULL));
  report("save NULL model", fuse_model_save(NULL, out));
  report("save to a directory", fuse_model_save(model, "/"));
  report("save to a missing directory",
         fuse_model_save(model, "/nonexistent/t.fbin"));
  report("save", fuse_model_save(model, out));
  fuse_model_free(model);

  report("load saved", fuse_model_load(out, &model));
  printChoices(model);
  /* A choice selected by hand is no longer the tuner's. */
  report("select 0", fuse_model_plan_select(model, 0, 0, 0));
  report("select 0", fuse_model_plan_select(model, 0, 1, 0));
  printChoices(model);
  report("save over itself", fuse_model_save(model, out));
  report("save over itself again", fuse_model_save(model, out));
  fuse_model_free(model);
  report("inspect saved", fuse_model_inspect(out, &model));
  printChoices(model);
  report("inspected select", fuse_model_plan_select(model, 0, 0, 0));
  printf("inspected driver: '%s'\n", fuse_model_device_driver(model));
  /* A byte of the checksum changed, then put back. */
  FILE *file = fopen(out, "r+b");
  fseek(file, 24, SEEK_SET);
  int byte = fgetc(file);
  fseek(file, 24, SEEK_SET);
  fputc(byte ^ 0x5a, file);
  fflush(file);
  report("save after the file changed", fuse_model_save(model, out));
  fseek(file, 24, SEEK_SET);
  fputc(byte, file);
  fclose(file);
  fuse_model_free(model);

  unsigned char *data = NULL;
  size_t size = 0;
  readAll(path, &data, &size);
  report("load bytes", fuse_model_load_bytes(data, size, &model));
  report("save from bytes", fuse_model_save(model, out));
  fuse_model_free(model);
  free(data);
  printf("done\n");
  return 0;
}

/* Memory for a bound tensor: host memory on the cpu target, device memory
 * (the driver's cuMemAlloc, copies with cuMemcpy*) on the CUDA target. */
typedef struct TensorMemory {
  int device;
  int (*alloc)(unsigned long long *, size_t);
  int (*toDevice)(unsigned long long, const void *, size_t);
  int (*toHost)(void *, unsigned long long, size_t);
  int (*release)(unsigned long long);
} TensorMemory;

static int openMemory(TensorMemory *memory, fuse_target target) {
  memset(memory, 0, sizeof(*memory));
  if (target != FUSE_TARGET_CUDA)
    return 1;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (!cuda)
    return 0;
  memory->device = 1;
  *(void **)&memory->alloc = dlsym(cuda, "cuMemAlloc_v2");
  *(void **)&memory->toDevice = dlsym(cuda, "cuMemcpyHtoD_v2");
  *(void **)&memory->toHost = dlsym(cuda, "cuMemcpyDtoH_v2");
  *(void **)&memory->release = dlsym(cuda, "cuMemFree_v2");
  return memory->alloc && memory->toDevice && memory->toHost && memory->release;
}

static void *newTensor(const TensorMemory *memory, size_t bytes) {
  if (!memory->device)
    return calloc(1, bytes);
  unsigned long long pointer = 0;
  return memory->alloc(&pointer, bytes) ? NULL : (void *)(size_t)pointer;
}

static void put(const TensorMemory *memory, void *to, const void *from,
                size_t bytes) {
  if (memory->device)
    memory->toDevice((unsigned long long)(size_t)to, from, bytes);
  else
    memcpy(to, from, bytes);
}

static void get(const TensorMemory *memory, void *to, const void *from,
                size_t bytes) {
  if (memory->device)
    memory->toHost(to, (unsigned long long)(size_t)from, bytes);
  else
    memcpy(to, from, bytes);
}

static void freeTensor(const TensorMemory *memory, void *tensor) {
  if (memory->device)
    memory->release((unsigned long long)(size_t)tensor);
  else
    free(tensor);
}

/* The outputs of main for input `x`, through set_input/run/get_output. */
static void expected(fuse_model *model, const float *x, float *y) {
  fuse_model_set_input(model, 0, x, 24 * sizeof(float));
  fuse_model_run(model, 0);
  fuse_model_get_output(model, 0, y, 24 * sizeof(float));
}

static int sessions(const char *path) {
  const char *version = fuse_runtime_version();
  printf("version: %s\n", version);
  fuse_load_options options;
  memset(&options, 0x5a, sizeof(options));
  fuse_load_options_init(&options);
  printf("default device: %d\n", options.device);
  fuse_model *model = NULL, *session = NULL;
  options.device = 7;
  report("load device 7", fuse_model_load_with(path, &options, &model));
  options.device = -1;
  report("load device -1", fuse_model_load_with(path, &options, &model));
  options.device = 0;
  report("load device 0", fuse_model_load_with(path, &options, &model));
  if (!model)
    return 1;
  printf("device: %d\n", fuse_model_device(model));
  TensorMemory memory;
  if (!openMemory(&memory, fuse_model_target(model))) {
    printf("no driver to allocate device memory with\n");
    return 1;
  }
  const size_t bytes = 24 * sizeof(float);
  float x1[24], x2[24], want1[24], want2[24], got[24];
  for (int i = 0; i < 24; ++i) {
    x1[i] = (float)(i - 12) / 4;
    x2[i] = (float)(7 - i) / 3;
  }
  expected(model, x1, want1);
  expected(model, x2, want2);
  void *in1 = newTensor(&memory, bytes), *in2 = newTensor(&memory, bytes);
  void *out1 = newTensor(&memory, bytes), *out2 = newTensor(&memory, bytes);
  put(&memory, in1, x1, bytes);
  put(&memory, in2, x2, bytes);

  report("bind_input wrong size", fuse_model_bind_input(model, 0, in1, 4));
  report("bind_input index 1", fuse_model_bind_input(model, 1, in1, bytes));
  report("bind_output index 2", fuse_model_bind_output(model, 2, out1, bytes));
  report("bind_input NULL model", fuse_model_bind_input(NULL, 0, in1, bytes));
  report("unbind input", fuse_model_bind_input(model, 0, NULL, 0));
  report("run unbound", fuse_model_run(model, 0));
  report("bind_input", fuse_model_bind_input(model, 0, in1, bytes));
  report("bind_output", fuse_model_bind_output(model, 0, out1, bytes));
  report("run bound", fuse_model_run(model, 0));
  get(&memory, got, out1, bytes);
  printf("bound output matches: %s\n",
         memcmp(got, want1, bytes) == 0 ? "yes" : "no");
  report("get_output after a bound run",
         fuse_model_get_output(model, 0, got, bytes));
  printf("get_output matches: %s\n",
         memcmp(got, want1, bytes) == 0 ? "yes" : "no");

  report("new_session NULL", fuse_model_new_session(model, NULL));
  report("new_session of NULL", fuse_model_new_session(NULL, &session));
  report("new_session", fuse_model_new_session(model, &session));
  printf("session device: %d target=%d plans=%zu\n", fuse_model_device(session),
         (int)fuse_model_target(session), fuse_model_num_plans(session));
  report("session run before binding", fuse_model_run(session, 0));
  report("session bind_input", fuse_model_bind_input(session, 0, in2, bytes));
  report("session bind_output",
         fuse_model_bind_output(session, 0, out2, bytes));
  report("run_async", fuse_model_run_async(model, 0, NULL));
  report("session run_async", fuse_model_run_async(session, 0, NULL));
  report("get_output", fuse_model_get_output(session, 0, got, bytes));
  printf("session output matches: %s\n",
         memcmp(got, want2, bytes) == 0 ? "yes" : "no");
  get(&memory, got, out1, bytes);
  printf("model's bound output still its own: %s\n",
         memcmp(got, want1, bytes) == 0 ? "yes" : "no");
  if (!memory.device)
    report("run_async with a stream on the cpu",
           fuse_model_run_async(model, 0, (void *)16));
  /* The weights stay while a session holds them. */
  fuse_model_free(model);
  put(&memory, in2, x1, bytes);
  report("session run after the model is freed", fuse_model_run(session, 0));
  get(&memory, got, out2, bytes);
  printf("session output matches: %s\n",
         memcmp(got, want1, bytes) == 0 ? "yes" : "no");
  report("set_input unbinds", fuse_model_set_input(session, 0, x2, bytes));
  report("session run", fuse_model_run(session, 0));
  report("get_output", fuse_model_get_output(session, 0, got, bytes));
  printf("set input used: %s\n", memcmp(got, want2, bytes) == 0 ? "yes" : "no");
  fuse_model_free(session);

  report("inspect", fuse_model_inspect(path, &model));
  report("new_session of an inspected model",
         fuse_model_new_session(model, &session));
  report("bind_input on an inspected model",
         fuse_model_bind_input(model, 0, in1, bytes));
  printf("inspected device: %d\n", fuse_model_device(model));
  fuse_model_free(model);
  freeTensor(&memory, in1);
  freeTensor(&memory, in2);
  freeTensor(&memory, out1);
  freeTensor(&memory, out2);
  printf("done\n");
  return 0;
}

int main(int argc, char **argv) {
  fuse_model *model = NULL;
  if (argc == 4 && strcmp(argv[1], "--choices") == 0)
    return choices(argv[2], argv[3]);
  /* --load MODEL: only the status of loading it. */
  if (argc == 3 && strcmp(argv[1], "--load") == 0) {
    report("load", fuse_model_load(argv[2], &model));
    fuse_model_free(model);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--null") == 0)
    return nullPointers(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--sessions") == 0)
    return sessions(argv[2]);
  if (argc != 2) {
    fprintf(stderr,
            "usage: fuse-runtime-api-test [--load | --null | --sessions] "
            "MODEL.fbin\n"
            "       fuse-runtime-api-test --choices MODEL.fbin OUT.fbin\n");
    return 2;
  }
  report("load NULL path", fuse_model_load(NULL, &model));
  report("load missing file", fuse_model_load("/nonexistent.fbin", &model));
  report("load directory", fuse_model_load("/", &model));
  report("load empty bytes", fuse_model_load_bytes("", 0, &model));
  report("load NULL bytes", fuse_model_load_bytes(NULL, 10, &model));

  pthread_t thread;
  pthread_create(&thread, NULL, threadError, NULL);
  pthread_join(thread, NULL);

  unsigned char *bytes = NULL;
  size_t size = 0;
  if (!readAll(argv[1], &bytes, &size)) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  report("load bytes", fuse_model_load_bytes(bytes, size, &model));
  /* The model must not keep pointers into the caller's bytes. */
  memset(bytes, 0xff, size);
  free(bytes);
  fuse_model *second = NULL;
  report("load path", fuse_model_load(argv[1], &second));

  printf("target=%d arch=%s inputs=%zu outputs=%zu plans=%zu\n",
         (int)fuse_model_target(model), fuse_model_arch(model),
         fuse_model_num_inputs(model), fuse_model_num_outputs(model),
         fuse_model_num_plans(model));
  for (size_t p = 0; p < fuse_model_num_plans(model); ++p)
    printf("plan %zu '%s': launches=%zu bytes=%llu\n", p,
           fuse_model_plan_name(model, p),
           fuse_model_plan_num_launches(model, p),
           (unsigned long long)fuse_model_plan_bytes(model, p));
  printf("plan 9 name=%s launches=%zu bytes=%llu\n",
         fuse_model_plan_name(model, 9) ? "?" : "NULL",
         fuse_model_plan_num_launches(model, 9),
         (unsigned long long)fuse_model_plan_bytes(model, 9));
  printf("NULL model: inputs=%zu plans=%zu arch='%s'\n",
         fuse_model_num_inputs(NULL), fuse_model_num_plans(NULL),
         fuse_model_arch(NULL));

  fuse_tensor_info info;
  report("input_info 0", fuse_model_input_info(model, 0, &info));
  printf("input 0: name=%s dtype=%u rank=%u dims=%lld,%lld,%lld bytes=%llu\n",
         info.name, info.dtype, info.rank, (long long)info.dims[0],
         (long long)info.dims[1], (long long)info.dims[2],
         (unsigned long long)info.bytes);
  report("input_info 1", fuse_model_input_info(model, 1, &info));
  report("output_info NULL", fuse_model_output_info(model, 0, NULL));
  report("output_info NULL model", fuse_model_output_info(NULL, 0, &info));

  float x[24], y[24], reference[24], other[24];
  for (int i = 0; i < 24; ++i)
    x[i] = (float)(i - 12) / 8.0f;
  report("run before set_input", fuse_model_run(model, 0));
  report("get_output before run",
         fuse_model_get_output(model, 0, y, sizeof(y)));
  report("set_input wrong size", fuse_model_set_input(model, 0, x, 8));
  report("set_input NULL data", fuse_model_set_input(model, 0, NULL, 96));
  report("set_input index 3", fuse_model_set_input(model, 3, x, sizeof(x)));
  report("set_input", fuse_model_set_input(model, 0, x, sizeof(x)));
  report("run plan 7", fuse_model_run(model, 7));
  report("run main", fuse_model_run(model, 0));
  report("get_output wrong size", fuse_model_get_output(model, 0, y, 4));
  report("get_output", fuse_model_get_output(model, 0, y, sizeof(y)));
  report("run reference", fuse_model_run(model, 1));
  report("get_output reference",
         fuse_model_get_output(model, 0, reference, sizeof(reference)));
  int same = memcmp(y, reference, sizeof(y)) == 0;
  int nonNegative = 1;
  for (int i = 0; i < 24; ++i)
    nonNegative = nonNegative && y[i] >= 0;
  printf("main == reference: %d, relu output non-negative: %d\n", same,
         nonNegative);

  /* The second model, loaded while the first is, runs its own kernels. */
  report("second set_input", fuse_model_set_input(second, 0, x, sizeof(x)));
  report("second run", fuse_model_run(second, 0));
  report("second get_output",
         fuse_model_get_output(second, 0, other, sizeof(other)));
  printf("second == first: %d\n", memcmp(y, other, sizeof(y)) == 0);
  fuse_model_free(second);

  double times[3] = {-1, -1, -1};
  report("benchmark negative", fuse_model_benchmark(model, 0, 1, -1, times));
  report("benchmark NULL times", fuse_model_benchmark(model, 0, 1, 3, NULL));
  report("benchmark plan 5", fuse_model_benchmark(model, 5, 1, 3, times));
  report("benchmark", fuse_model_benchmark(model, 0, 2, 3, times));
  printf("times non-negative: %d\n",
         times[0] >= 0 && times[1] >= 0 && times[2] >= 0);

  /* Launch kinds and groups. */
  fuse_launch_info kinds;
  report("plan_launch", fuse_model_plan_launch(model, 1, 1, &kinds));
  printf("launch 1 of plan 1: kind=%d group=%u workspace=%llu at %llu "
         "args=%u\n",
         (int)kinds.kind, kinds.group,
         (unsigned long long)kinds.workspace_bytes,
         (unsigned long long)kinds.workspace_offset, kinds.num_args);
  printf("groups=%zu\n", fuse_model_num_groups(model));
  fuse_group_info group;
  report("group_info 0", fuse_model_group_info(model, 0, &group));
  printf("group 0: strategy='%s' flops=%llu bytes=%llu nodes=%zu\n",
         group.strategy, (unsigned long long)group.flops,
         (unsigned long long)group.bytes, group.num_nodes);
  const char *node = NULL, *opType = NULL;
  for (size_t n = 0; n < group.num_nodes; ++n) {
    report("group_node", fuse_model_group_node(model, 0, n, &node, &opType));
    printf("group 0 node %zu: %s (%s)\n", n, node, opType);
  }
  report("group_info 3", fuse_model_group_info(model, 3, &group));
  report("group_node 0 5", fuse_model_group_node(model, 0, 5, &node, &opType));

  /* Profiling: a row of times per iteration, one per launch. */
  double profile[3 * 2] = {-1, -1, -1, -1, -1, -1}, overhead = -1;
  report("profile negative", fuse_model_profile(model, 1, -1, 3, profile,
                                                &overhead));
  report("profile plan 2", fuse_model_profile(model, 2, 0, 3, profile, NULL));
  report("profile", fuse_model_profile(model, 1, 1, 3, profile, &overhead));
  int profiled = overhead >= 0;
  for (int i = 0; i < 6; ++i)
    profiled = profiled && profile[i] >= 0;
  printf("profile times and overhead non-negative: %d\n", profiled);
  report("profile without overhead",
         fuse_model_profile(model, 0, 0, 1, profile, NULL));
  report("profile no iterations", fuse_model_profile(model, 0, 0, 0, NULL,
                                                     NULL));
  report("get_output after profile",
         fuse_model_get_output(model, 0, other, sizeof(other)));
  printf("profiled output == main's: %d\n",
         memcmp(y, other, sizeof(y)) == 0);
  double copy = -1, gflops = -1;
  report("measure_limits", fuse_model_measure_limits(model, &copy, &gflops));
  printf("copy GB/s positive: %d, fp32 GFLOP/s non-negative: %d\n",
         copy > 0, gflops >= 0);
  printf("device: %s\n", fuse_model_device_name(model));
  printf("libraries: '%s'\n", fuse_model_libraries(model));

  fuse_model_free(model);
  fuse_model_free(NULL);

  /* Inspection: the same validation, no loading; describes, never runs. */
  fuse_model *inspected = NULL;
  report("inspect", fuse_model_inspect(argv[1], &inspected));
  report("inspect missing file",
         fuse_model_inspect("/nonexistent.fbin", &second));
  report("inspect empty bytes", fuse_model_inspect_bytes("", 0, &second));
  fuse_launch_info launch;
  report("inspect launch", fuse_model_plan_launch(inspected, 1, 1, &launch));
  printf("launch 1 of plan 1: %s args=%u first=%u\n", launch.kernel,
         launch.num_args, launch.args[0]);
  report("inspect launch 7", fuse_model_plan_launch(inspected, 1, 7, &launch));
  fuse_buffer_info buffer;
  report("inspect buffer 0", fuse_model_plan_buffer(inspected, 0, 0, &buffer));
  printf("buffer 0: kind=%d bytes=%llu arena=%llu\n", (int)buffer.kind,
         (unsigned long long)buffer.bytes,
         (unsigned long long)fuse_model_plan_arena_bytes(inspected, 0));
  report("inspect buffer 99",
         fuse_model_plan_buffer(inspected, 0, 99, &buffer));
  report("inspected set_input",
         fuse_model_set_input(inspected, 0, x, sizeof(x)));
  report("inspected run", fuse_model_run(inspected, 0));
  report("inspected profile",
         fuse_model_profile(inspected, 0, 0, 1, times, NULL));
  double copy2 = 0, gflops2 = 0;
  report("inspected measure_limits",
         fuse_model_measure_limits(inspected, &copy2, &gflops2));
  printf("inspected: groups=%zu device='%s' libraries='%s'\n",
         fuse_model_num_groups(inspected), fuse_model_device_name(inspected),
         fuse_model_libraries(inspected));
  fuse_model_free(inspected);
  printf("done\n");
  return 0;
}
