/* A stand-in libcuda.so.1 for testing the runtime's CUDA backend on a
 * machine without a GPU (cuda-mock.test puts it first on LD_LIBRARY_PATH).
 *
 * "Device" memory is host memory, a "cubin" is a host shared object (the
 * test kernels of kernels.c, whose `<name>_packed(void **args)` the mock
 * calls with the device pointers of a launch), streams record launches
 * into graphs while capturing, and events read a clock. It checks what a
 * driver would reject (launches outside a graph, a graph launched before
 * instantiation) and traces what the runtime calls (MOCK_CUDA_TRACE=1).
 *
 * Environment:
 *   MOCK_CUDA_DEVICES=0     cuInit fails with CUDA_ERROR_NO_DEVICE
 *   MOCK_CUDA_FAIL=NAME,... the driver functions NAME fail (NAME is the
 *                           symbol, e.g. cuMemAlloc_v2; "jit" fails the
 *                           PTX JIT with a log). Teardown calls (destroy,
 *                           free, unload, release) never fail.
 *   MOCK_CUDA_FREE_BYTES=N  device memory free (default 1 GiB; the total is
 *                           twice that); a larger cuMemAlloc is
 *                           CUDA_ERROR_OUT_OF_MEMORY
 *   MOCK_CUDA_TRACE=1       print each call that matters to stderr
 * Built with -DMOCK_OLD_DRIVER, it lacks cuGraphInstantiateWithFlags.
 *
 * An image that is not an ELF file is a binary for another GPU
 * (CUDA_ERROR_NO_BINARY_FOR_GPU); the "PTX" given to cuModuleLoadDataEx is
 * the path of the shared object to load, on its first line.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  ERROR_INVALID_VALUE = 1,
  ERROR_OUT_OF_MEMORY = 2,
  ERROR_NO_DEVICE = 100,
  ERROR_INVALID_IMAGE = 200,
  ERROR_NO_BINARY_FOR_GPU = 209,
  ERROR_NOT_FOUND = 500,
  ERROR_NOT_PERMITTED = 800,
};

#define MAX_ARGS 8
#define MAX_NODES 64

typedef void (*Kernel)(void **);
struct CUfunc_st {
  Kernel kernel;
  int numArgs;
  char name[64];
  struct CUfunc_st *next; /* The module's functions, freed with it. */
};
struct CUmod_st {
  void *library;
  struct CUfunc_st *functions;
};
struct Node {
  struct CUfunc_st *function;
  CUdeviceptr args[MAX_ARGS];
};
struct CUgraph_st {
  struct Node nodes[MAX_NODES];
  int numNodes;
};
struct CUgraphExec_st {
  struct CUgraph_st graph;
};
struct CUstream_st {
  struct CUgraph_st *capture;
};
struct CUevent_st {
  double ms;
};

/* The test kernels' argument counts, which a launch does not carry. */
static const struct {
  const char *name;
  int numArgs;
} kArity[] = {{"relu_0", 2},   {"add_relu_0", 3}, {"add_1", 3}, {"relu_2", 2},
              {"relu_bad", 2}, {"scale_0", 2},    {"inc_1", 2}};

static int fails(const char *symbol) {
  const char *names = getenv("MOCK_CUDA_FAIL");
  size_t length = strlen(symbol);
  for (const char *p = names; p && *p; p += strcspn(p, ",")) {
    p += *p == ',';
    if (strncmp(p, symbol, length) == 0 && (p[length] == ',' || !p[length]))
      return 1;
  }
  return 0;
}

static void trace(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void trace(const char *format, ...) {
  if (!getenv("MOCK_CUDA_TRACE"))
    return;
  va_list args;
  va_start(args, format);
  fputs("mock-cuda: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

#define FAIL_IF_ASKED(symbol, error)                                           \
  do {                                                                         \
    if (fails(symbol))                                                         \
      return error;                                                            \
  } while (0)

CUresult cuGetErrorName(CUresult error, const char **name) {
  FAIL_IF_ASKED("cuGetErrorName", ERROR_INVALID_VALUE);
  switch (error) {
  case SUCCESS:
    *name = "CUDA_SUCCESS";
    return SUCCESS;
  case ERROR_INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return SUCCESS;
  case ERROR_OUT_OF_MEMORY:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return SUCCESS;
  case ERROR_NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return SUCCESS;
  case ERROR_INVALID_IMAGE:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return SUCCESS;
  case ERROR_NO_BINARY_FOR_GPU:
    *name = "CUDA_ERROR_NO_BINARY_FOR_GPU";
    return SUCCESS;
  case ERROR_NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return SUCCESS;
  case ERROR_NOT_PERMITTED:
    *name = "CUDA_ERROR_NOT_PERMITTED";
    return SUCCESS;
  }
  return ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  FAIL_IF_ASKED("cuGetErrorString", ERROR_INVALID_VALUE);
  switch (error) {
  case ERROR_OUT_OF_MEMORY:
    *text = "out of memory";
    return SUCCESS;
  case ERROR_NO_DEVICE:
    *text = "no CUDA-capable device is detected";
    return SUCCESS;
  case ERROR_NO_BINARY_FOR_GPU:
    *text = "no kernel image is available for execution on the device";
    return SUCCESS;
  }
  *text = "mock error";
  return SUCCESS;
}

CUresult cuInit(unsigned flags) {
  FAIL_IF_ASKED("cuInit", ERROR_INVALID_VALUE);
  const char *devices = getenv("MOCK_CUDA_DEVICES");
  trace("cuInit(%u)", flags);
  return devices && atoi(devices) == 0 ? ERROR_NO_DEVICE : SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  FAIL_IF_ASKED("cuDeviceGetCount", ERROR_INVALID_VALUE);
  *count = 1;
  return SUCCESS;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  FAIL_IF_ASKED("cuDeviceGet", ERROR_INVALID_VALUE);
  *device = ordinal;
  return ordinal == 0 ? SUCCESS : ERROR_INVALID_VALUE;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  FAIL_IF_ASKED("cuDeviceGetAttribute", ERROR_INVALID_VALUE);
  (void)device;
  *value = attribute == 75 ? 9 : 0; /* sm_90 */
  return SUCCESS;
}

static int contextRefs;
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  FAIL_IF_ASKED("cuDevicePrimaryCtxRetain", ERROR_INVALID_VALUE);
  (void)device;
  ++contextRefs;
  *context = &contextRefs;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  trace("cuDevicePrimaryCtxRelease (references left: %d)", --contextRefs);
  return SUCCESS;
}

CUresult cuCtxSetCurrent(void *context) {
  FAIL_IF_ASKED("cuCtxSetCurrent", ERROR_INVALID_VALUE);
  return context == &contextRefs ? SUCCESS : ERROR_INVALID_VALUE;
}

/* Size of an ELF file: its section headers come last. */
static size_t elfSize(const unsigned char *p) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  memcpy(&shoff, p + 40, 8);
  memcpy(&shentsize, p + 58, 2);
  memcpy(&shnum, p + 60, 2);
  return shoff + (size_t)shentsize * shnum;
}

static CUresult loadLibrary(struct CUmod_st **module, const void *image,
                            size_t size, const char *path) {
  char name[64];
  int fd = -1;
  if (!path) {
    fd = memfd_create("mock-cubin", 0);
    if (fd < 0 || write(fd, image, size) != (ssize_t)size)
      return ERROR_INVALID_IMAGE;
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
    path = name;
  }
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    trace("dlopen: %s", dlerror());
    return ERROR_INVALID_IMAGE;
  }
  *module = calloc(1, sizeof(**module));
  (*module)->library = library;
  return SUCCESS;
}

CUresult cuModuleLoadData(struct CUmod_st **module, const void *image) {
  FAIL_IF_ASKED("cuModuleLoadData", ERROR_INVALID_IMAGE);
  if (memcmp(image,
             "\x7f"
             "ELF",
             4) != 0) {
    trace("cuModuleLoadData: not for this GPU");
    return ERROR_NO_BINARY_FOR_GPU;
  }
  trace("cuModuleLoadData: cubin");
  return loadLibrary(module, image, elfSize(image), NULL);
}

CUresult cuModuleLoadDataEx(struct CUmod_st **module, const void *ptx,
                            unsigned numOptions, int *options, void **values) {
  FAIL_IF_ASKED("cuModuleLoadDataEx", ERROR_INVALID_IMAGE);
  char path[4096];
  snprintf(path, sizeof(path), "%s", (const char *)ptx);
  path[strcspn(path, "\n")] = '\0';
  trace("cuModuleLoadDataEx: JIT of PTX naming '%s', %u options", path,
        numOptions);
  /* The error log buffer (option 5) gets the JIT's complaint. */
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == 5 && fails("jit"))
      snprintf(values[i], 64, "ptxas fatal: mock JIT error");
  if (fails("jit"))
    return ERROR_INVALID_IMAGE;
  return loadLibrary(module, NULL, 0, path);
}

CUresult cuModuleGetFunction(struct CUfunc_st **function,
                             struct CUmod_st *module, const char *name) {
  FAIL_IF_ASKED("cuModuleGetFunction", ERROR_NOT_FOUND);
  char symbol[80];
  snprintf(symbol, sizeof(symbol), "%s_packed", name);
  Kernel kernel = (Kernel)dlsym(module->library, symbol);
  int numArgs = -1;
  for (size_t i = 0; i < sizeof(kArity) / sizeof(kArity[0]); ++i)
    if (strcmp(kArity[i].name, name) == 0)
      numArgs = kArity[i].numArgs;
  if (!kernel || numArgs < 0)
    return ERROR_NOT_FOUND;
  *function = calloc(1, sizeof(**function));
  (*function)->kernel = kernel;
  (*function)->numArgs = numArgs;
  snprintf((*function)->name, sizeof((*function)->name), "%s", name);
  (*function)->next = module->functions;
  module->functions = *function;
  return SUCCESS;
}

CUresult cuModuleUnload(struct CUmod_st *module) {
  trace("cuModuleUnload");
  while (module->functions) {
    struct CUfunc_st *next = module->functions->next;
    free(module->functions);
    module->functions = next;
  }
  dlclose(module->library);
  free(module);
  return SUCCESS;
}

CUresult cuFuncSetAttribute(struct CUfunc_st *function, int attribute,
                            int value) {
  FAIL_IF_ASKED("cuFuncSetAttribute", ERROR_INVALID_VALUE);
  trace("cuFuncSetAttribute(%s, %d, %d)", function->name, attribute, value);
  return SUCCESS;
}

static size_t freeBytes(void) {
  const char *env = getenv("MOCK_CUDA_FREE_BYTES");
  return env ? (size_t)strtoull(env, NULL, 10) : (size_t)1 << 30;
}

CUresult cuMemGetInfo_v2(size_t *freeMemory, size_t *totalMemory) {
  FAIL_IF_ASKED("cuMemGetInfo_v2", ERROR_INVALID_VALUE);
  *freeMemory = freeBytes();
  *totalMemory = 2 * freeBytes();
  return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FAIL_IF_ASKED("cuMemAlloc_v2", ERROR_OUT_OF_MEMORY);
  if (bytes > freeBytes())
    return ERROR_OUT_OF_MEMORY;
  void *memory = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return ERROR_OUT_OF_MEMORY;
  trace("cuMemAlloc(%zu)", bytes);
  *pointer = (CUdeviceptr)(uintptr_t)memory;
  return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  trace("cuMemFree");
  free((void *)(uintptr_t)pointer);
  return SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr device, const void *host, size_t bytes) {
  FAIL_IF_ASKED("cuMemcpyHtoD_v2", ERROR_INVALID_VALUE);
  memcpy((void *)(uintptr_t)device, host, bytes);
  return SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *host, CUdeviceptr device, size_t bytes) {
  FAIL_IF_ASKED("cuMemcpyDtoH_v2", ERROR_INVALID_VALUE);
  memcpy(host, (const void *)(uintptr_t)device, bytes);
  return SUCCESS;
}

CUresult cuStreamCreate(struct CUstream_st **stream, unsigned flags) {
  FAIL_IF_ASKED("cuStreamCreate", ERROR_INVALID_VALUE);
  (void)flags;
  *stream = calloc(1, sizeof(**stream));
  return SUCCESS;
}

CUresult cuStreamDestroy_v2(struct CUstream_st *stream) {
  free(stream);
  return SUCCESS;
}

CUresult cuStreamSynchronize(struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuStreamSynchronize", ERROR_INVALID_VALUE);
  (void)stream;
  return SUCCESS;
}

CUresult cuStreamBeginCapture_v2(struct CUstream_st *stream, int mode) {
  FAIL_IF_ASKED("cuStreamBeginCapture_v2", ERROR_INVALID_VALUE);
  trace("capture begins (mode %d)", mode);
  stream->capture = calloc(1, sizeof(struct CUgraph_st));
  return SUCCESS;
}

CUresult cuStreamEndCapture(struct CUstream_st *stream,
                            struct CUgraph_st **graph) {
  if (fails("cuStreamEndCapture")) { /* The capture is invalidated. */
    free(stream->capture);
    stream->capture = NULL;
    return ERROR_INVALID_VALUE;
  }
  trace("capture ends: %d nodes",
        stream->capture ? stream->capture->numNodes : -1);
  *graph = stream->capture;
  stream->capture = NULL;
  return *graph ? SUCCESS : ERROR_INVALID_VALUE;
}

#ifndef MOCK_OLD_DRIVER /* A driver older than CUDA 11.4 lacks it. */
CUresult cuGraphInstantiateWithFlags(struct CUgraphExec_st **exec,
                                     struct CUgraph_st *graph,
                                     unsigned long long flags) {
  FAIL_IF_ASKED("cuGraphInstantiateWithFlags", ERROR_INVALID_VALUE);
  (void)flags;
  *exec = calloc(1, sizeof(**exec));
  (*exec)->graph = *graph;
  return SUCCESS;
}
#endif

CUresult cuGraphLaunch(struct CUgraphExec_st *exec,
                       struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuGraphLaunch", ERROR_INVALID_VALUE);
  (void)stream;
  trace("graph launch: %d nodes", exec->graph.numNodes);
  for (int n = 0; n < exec->graph.numNodes; ++n) {
    struct Node *node = &exec->graph.nodes[n];
    void *args[MAX_ARGS];
    for (int i = 0; i < node->function->numArgs; ++i)
      args[i] = (void *)(uintptr_t)node->args[i];
    node->function->kernel(args);
  }
  return SUCCESS;
}

CUresult cuGraphExecDestroy(struct CUgraphExec_st *exec) {
  free(exec);
  return SUCCESS;
}

CUresult cuGraphDestroy(struct CUgraph_st *graph) {
  free(graph);
  return SUCCESS;
}

CUresult cuLaunchKernel(struct CUfunc_st *function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, struct CUstream_st *stream,
                        void **params, void **extra) {
  FAIL_IF_ASKED("cuLaunchKernel", ERROR_INVALID_VALUE);
  trace("launch %s grid %ux%ux%u block %ux%ux%u shared %u", function->name, gx,
        gy, gz, bx, by, bz, shared);
  /* The runtime launches only into graphs. */
  if (!stream->capture || extra || stream->capture->numNodes == MAX_NODES)
    return ERROR_NOT_PERMITTED;
  struct Node *node = &stream->capture->nodes[stream->capture->numNodes++];
  node->function = function;
  /* Like the driver, copy the argument values now: params[i] points at the
   * i-th device pointer. */
  for (int i = 0; i < function->numArgs; ++i)
    memcpy(&node->args[i], params[i], sizeof(CUdeviceptr));
  return SUCCESS;
}

CUresult cuEventCreate(struct CUevent_st **event, unsigned flags) {
  FAIL_IF_ASKED("cuEventCreate", ERROR_INVALID_VALUE);
  (void)flags;
  *event = calloc(1, sizeof(**event));
  return SUCCESS;
}

CUresult cuEventRecord(struct CUevent_st *event, struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuEventRecord", ERROR_INVALID_VALUE);
  (void)stream;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  event->ms = now.tv_sec * 1e3 + now.tv_nsec / 1e6;
  return SUCCESS;
}

CUresult cuEventSynchronize(struct CUevent_st *event) {
  FAIL_IF_ASKED("cuEventSynchronize", ERROR_INVALID_VALUE);
  (void)event;
  return SUCCESS;
}

/* Only the _v2 name: the runtime must prefer it. */
CUresult cuEventElapsedTime_v2(float *ms, struct CUevent_st *start,
                               struct CUevent_st *end) {
  FAIL_IF_ASKED("cuEventElapsedTime_v2", ERROR_INVALID_VALUE);
  *ms = (float)(end->ms - start->ms);
  return SUCCESS;
}

CUresult cuEventDestroy_v2(struct CUevent_st *event) {
  free(event);
  return SUCCESS;
}
