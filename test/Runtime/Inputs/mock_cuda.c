/* A stand-in libcuda.so.1 for testing the runtime's CUDA backend on a
 * machine without a GPU (cuda-mock.test puts it first on LD_LIBRARY_PATH).
 *
 * "Device" memory is host memory, a "cubin" is a host shared object (the
 * test kernels of kernels.c, whose `<name>_packed(void **args)` the mock
 * calls with the device pointers of a launch), streams record launches
 * into graphs while capturing, and events read a clock. It checks what a
 * driver would reject (launches outside a graph, a graph launched before
 * instantiation, the elapsed time of an event never recorded) and traces
 * what the runtime calls (MOCK_CUDA_TRACE=1).
 *
 * Work on a stream runs at once on the host, or, while the stream is
 * capturing, becomes a node of the graph that runs when the graph is
 * launched: kernels, copies and memsets, event records (an event recorded
 * with CU_EVENT_RECORD_EXTERNAL during a capture is a node that reads the
 * clock when it runs, as in the real driver) and the host callbacks of the
 * mock vendor libraries (mock_libraries.c), which find
 *
 *   CUresult mock_cuda_enqueue_host(CUstream stream, void (*fn)(void *),
 *                                   void *context, void (*release)(void *));
 *   int mock_cuda_device_range(CUdeviceptr pointer, size_t bytes);
 *   int mock_cuda_capturing(CUstream stream);
 *
 * with dlsym: the first runs fn(context) now, or adds it to the capture
 * (release(context) when the last graph holding it is destroyed); the
 * second says whether [pointer, pointer + bytes) lies in one allocation;
 * the third whether the stream is capturing.
 *
 * Environment:
 *   MOCK_CUDA_DEVICES=0     cuInit fails with CUDA_ERROR_NO_DEVICE
 *   MOCK_CUDA_FAIL=NAME,... the driver functions NAME fail (NAME is the
 *                           symbol, e.g. cuMemAlloc_v2; "jit" fails the
 *                           PTX JIT with a log; "empty" fails launches
 *                           of the profiler's empty kernel). Teardown calls (destroy,
 *                           free, unload, release) never fail.
 *   MOCK_CUDA_FREE_BYTES=N  device memory free (default 1 GiB; the total is
 *                           twice that); a larger cuMemAlloc is
 *                           CUDA_ERROR_OUT_OF_MEMORY
 *   MOCK_CUDA_TRACE=1       print each call that matters to stderr
 *   MOCK_CUDA_DEVICE_NAME=S what cuDeviceGetName says (default "Mock GPU")
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
  ERROR_INVALID_HANDLE = 400,
  ERROR_NOT_FOUND = 500,
  ERROR_NOT_READY = 600,
  ERROR_NOT_PERMITTED = 800,
  ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
};

#define MAX_ARGS 8
#define MAX_NODES 256
/* cuEventRecordWithFlags: an event record node when capturing. */
#define EVENT_RECORD_EXTERNAL 1

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
/* Host work: a callback of a vendor library, a copy, a memset. Shared by
 * the captured graph and the executable graphs made from it. */
struct HostTask {
  void (*fn)(void *);
  void *context;
  void (*release)(void *);
  int references;
};
enum NodeKind { NODE_KERNEL, NODE_HOST, NODE_EVENT };
struct Node {
  enum NodeKind kind;
  struct CUfunc_st *function;
  CUdeviceptr args[MAX_ARGS];
  struct HostTask *task;
  struct CUevent_st *event;
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
  int recorded;
};

/* The test kernels' argument counts, which a launch does not carry. */
static const struct {
  const char *name;
  int numArgs;
} kArity[] = {{"relu_0", 2},   {"add_relu_0", 3}, {"add_1", 3}, {"relu_2", 2},
              {"relu_bad", 2}, {"scale_0", 2},    {"inc_1", 2},
              {"add_relu_slow", 3}};

#define MOCK_NAME "cuda"
#define MOCK_FAIL_ENV "MOCK_CUDA_FAIL"
#include "mock_common.h"

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
  case ERROR_INVALID_HANDLE:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return SUCCESS;
  case ERROR_NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return SUCCESS;
  case ERROR_NOT_READY:
    *name = "CUDA_ERROR_NOT_READY";
    return SUCCESS;
  case ERROR_NOT_PERMITTED:
    *name = "CUDA_ERROR_NOT_PERMITTED";
    return SUCCESS;
  case ERROR_STREAM_CAPTURE_UNSUPPORTED:
    *name = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
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

CUresult cuDriverGetVersion(int *version) {
  FAIL_IF_ASKED("cuDriverGetVersion", ERROR_INVALID_VALUE);
  *version = 13000;
  return SUCCESS;
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

CUresult cuDeviceGetName(char *name, int length, int device) {
  FAIL_IF_ASKED("cuDeviceGetName", ERROR_INVALID_VALUE);
  const char *env = getenv("MOCK_CUDA_DEVICE_NAME");
  if (!name || length <= 0 || device != 0)
    return ERROR_INVALID_VALUE;
  snprintf(name, (size_t)length, "%s", env ? env : "Mock GPU");
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

/* The runtime profiler's empty kernel (PTX it carries itself). */
static void emptyKernel(void **args) { (void)args; }
static const char kEmptyEntry[] = ".entry fuse_profile_empty";

CUresult cuModuleLoadDataEx(struct CUmod_st **module, const void *ptx,
                            unsigned numOptions, int *options, void **values) {
  FAIL_IF_ASKED("cuModuleLoadDataEx", ERROR_INVALID_IMAGE);
  if (strstr((const char *)ptx, kEmptyEntry)) {
    trace("cuModuleLoadDataEx: JIT of the profiler's empty kernel");
    if (fails("jit"))
      return ERROR_INVALID_IMAGE;
    *module = calloc(1, sizeof(**module));
    return SUCCESS;
  }
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
  if (!module->library) { /* the empty kernel's module */
    if (strcmp(name, kEmptyEntry + strlen(".entry ")) != 0)
      return ERROR_NOT_FOUND;
    *function = calloc(1, sizeof(**function));
    (*function)->kernel = emptyKernel;
    (*function)->numArgs = 0;
    snprintf((*function)->name, sizeof((*function)->name), "%s", name);
    (*function)->next = module->functions;
    module->functions = *function;
    return SUCCESS;
  }
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
  if (module->library)
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

/* The live allocations, so that a free of something else is an error and
 * the mock libraries can check that their operands are device memory. */
struct Allocation {
  CUdeviceptr pointer;
  size_t bytes;
  struct Allocation *next;
};
static struct Allocation *allocations;

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FAIL_IF_ASKED("cuMemAlloc_v2", ERROR_OUT_OF_MEMORY);
  if (bytes == 0)
    return ERROR_INVALID_VALUE;
  if (bytes > freeBytes())
    return ERROR_OUT_OF_MEMORY;
  void *memory = aligned_alloc(256, (bytes + 255) / 256 * 256);
  struct Allocation *a = malloc(sizeof(*a));
  if (!memory || !a) {
    free(memory);
    free(a);
    return ERROR_OUT_OF_MEMORY;
  }
  trace("cuMemAlloc(%zu)", bytes);
  *pointer = (CUdeviceptr)(uintptr_t)memory;
  a->pointer = *pointer;
  a->bytes = bytes;
  a->next = allocations;
  allocations = a;
  return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  trace("cuMemFree");
  for (struct Allocation **a = &allocations; *a; a = &(*a)->next)
    if ((*a)->pointer == pointer) {
      struct Allocation *dead = *a;
      *a = dead->next;
      free(dead);
      free((void *)(uintptr_t)pointer);
      return SUCCESS;
    }
  return ERROR_INVALID_VALUE;
}

/* Exported for the mock libraries: 1 if [pointer, pointer + bytes) is
 * inside one allocation. */
int mock_cuda_device_range(CUdeviceptr pointer, size_t bytes) {
  for (struct Allocation *a = allocations; a; a = a->next)
    if (pointer >= a->pointer && pointer - a->pointer <= a->bytes &&
        bytes <= a->bytes - (pointer - a->pointer))
      return 1;
  return 0;
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

static void releaseTask(struct HostTask *task) {
  if (--task->references > 0)
    return;
  if (task->release)
    task->release(task->context);
  free(task);
}

/* Drops what a graph's nodes hold. */
static void releaseNodes(struct CUgraph_st *graph) {
  for (int n = 0; n < graph->numNodes; ++n)
    if (graph->nodes[n].kind == NODE_HOST)
      releaseTask(graph->nodes[n].task);
  graph->numNodes = 0;
}

static int capturing(const struct CUstream_st *stream) {
  return stream && stream->capture;
}

/* The next node of the stream's capture, or NULL when the graph is full. */
static struct Node *addNode(struct CUstream_st *stream, enum NodeKind kind) {
  if (stream->capture->numNodes == MAX_NODES)
    return NULL;
  struct Node *node = &stream->capture->nodes[stream->capture->numNodes++];
  memset(node, 0, sizeof(*node));
  node->kind = kind;
  return node;
}

static void recordNow(struct CUevent_st *event) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  event->ms = now.tv_sec * 1e3 + now.tv_nsec / 1e6;
  event->recorded = 1;
}

/* Exported for the mock libraries: whether work on the stream is captured
 * (a call that must run now, like cuDNN's algorithm search, cannot be). */
int mock_cuda_capturing(struct CUstream_st *stream) {
  return capturing(stream);
}

/* Exported for the mock libraries (see the top). */
CUresult mock_cuda_enqueue_host(struct CUstream_st *stream, void (*fn)(void *),
                                void *context, void (*release)(void *)) {
  if (!capturing(stream)) {
    fn(context);
    if (release)
      release(context);
    return SUCCESS;
  }
  struct Node *node = addNode(stream, NODE_HOST);
  struct HostTask *task = node ? malloc(sizeof(*task)) : NULL;
  if (!task) {
    if (node)
      --stream->capture->numNodes;
    if (release)
      release(context);
    return ERROR_OUT_OF_MEMORY;
  }
  task->fn = fn;
  task->context = context;
  task->release = release;
  task->references = 1;
  node->task = task;
  return SUCCESS;
}

CUresult cuStreamCreate(struct CUstream_st **stream, unsigned flags) {
  FAIL_IF_ASKED("cuStreamCreate", ERROR_INVALID_VALUE);
  (void)flags;
  *stream = calloc(1, sizeof(**stream));
  return SUCCESS;
}

CUresult cuStreamDestroy_v2(struct CUstream_st *stream) {
  if (stream->capture) { /* A capture never ended. */
    releaseNodes(stream->capture);
    free(stream->capture);
  }
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
    if (stream->capture)
      releaseNodes(stream->capture);
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
  for (int n = 0; n < graph->numNodes; ++n)
    if (graph->nodes[n].kind == NODE_HOST)
      ++graph->nodes[n].task->references;
  return SUCCESS;
}
#endif

CUresult cuGraphLaunch(struct CUgraphExec_st *exec,
                       struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuGraphLaunch", ERROR_INVALID_VALUE);
  (void)stream;
  trace("graph launch: %d nodes", exec->graph.numNodes);
  if (capturing(stream))
    return ERROR_STREAM_CAPTURE_UNSUPPORTED;
  for (int n = 0; n < exec->graph.numNodes; ++n) {
    struct Node *node = &exec->graph.nodes[n];
    if (node->kind == NODE_HOST) {
      node->task->fn(node->task->context);
    } else if (node->kind == NODE_EVENT) {
      recordNow(node->event);
    } else {
      void *args[MAX_ARGS];
      for (int i = 0; i < node->function->numArgs; ++i)
        args[i] = (void *)(uintptr_t)node->args[i];
      node->function->kernel(args);
    }
  }
  return SUCCESS;
}

CUresult cuGraphExecDestroy(struct CUgraphExec_st *exec) {
  releaseNodes(&exec->graph);
  free(exec);
  return SUCCESS;
}

CUresult cuGraphDestroy(struct CUgraph_st *graph) {
  releaseNodes(graph);
  free(graph);
  return SUCCESS;
}

CUresult cuLaunchKernel(struct CUfunc_st *function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, struct CUstream_st *stream,
                        void **params, void **extra) {
  FAIL_IF_ASKED("cuLaunchKernel", ERROR_INVALID_VALUE);
  if (function->kernel == emptyKernel && fails("empty"))
    return ERROR_INVALID_VALUE;
  trace("launch %s grid %ux%ux%u block %ux%ux%u shared %u", function->name, gx,
        gy, gz, bx, by, bz, shared);
  /* The runtime launches only into graphs. */
  if (!capturing(stream) || extra)
    return ERROR_NOT_PERMITTED;
  struct Node *node = addNode(stream, NODE_KERNEL);
  if (!node)
    return ERROR_NOT_PERMITTED;
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

/* During a capture, a plain record only orders work (no node, no time). */
CUresult cuEventRecord(struct CUevent_st *event, struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuEventRecord", ERROR_INVALID_VALUE);
  if (capturing(stream))
    trace("cuEventRecord during a capture: no node");
  else
    recordNow(event);
  return SUCCESS;
}

/* With CU_EVENT_RECORD_EXTERNAL during a capture: an event record node. */
CUresult cuEventRecordWithFlags(struct CUevent_st *event,
                                struct CUstream_st *stream, unsigned flags) {
  FAIL_IF_ASKED("cuEventRecordWithFlags", ERROR_INVALID_VALUE);
  if (flags & ~(unsigned)EVENT_RECORD_EXTERNAL)
    return ERROR_INVALID_VALUE;
  if (!capturing(stream)) {
    recordNow(event);
    return SUCCESS;
  }
  if (!(flags & EVENT_RECORD_EXTERNAL)) {
    trace("cuEventRecordWithFlags(0) during a capture: no node");
    return SUCCESS;
  }
  struct Node *node = addNode(stream, NODE_EVENT);
  if (!node)
    return ERROR_NOT_PERMITTED;
  trace("event record node");
  node->event = event;
  return SUCCESS;
}

struct Copy {
  CUdeviceptr to, from;
  size_t bytes;
  unsigned value; /* memset */
};

static void runCopy(void *context) {
  struct Copy *c = context;
  memmove((void *)(uintptr_t)c->to, (const void *)(uintptr_t)c->from,
          c->bytes);
}

static void runMemset(void *context) {
  struct Copy *c = context;
  uint32_t *p = (uint32_t *)(uintptr_t)c->to;
  for (size_t i = 0; i < c->bytes / 4; ++i)
    p[i] = c->value;
}

/* Host memory for async copies: plain malloc here. */
CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  FAIL_IF_ASKED("cuMemAllocHost_v2", ERROR_OUT_OF_MEMORY);
  *pointer = malloc(bytes ? bytes : 1);
  return *pointer ? SUCCESS : ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *pointer) {
  free(pointer);
  return SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *host, CUdeviceptr from, size_t bytes,
                              struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuMemcpyDtoHAsync_v2", ERROR_INVALID_VALUE);
  if (!mock_cuda_device_range(from, bytes))
    return ERROR_INVALID_VALUE;
  trace("cuMemcpyDtoHAsync(%zu bytes)", bytes);
  struct Copy *c = malloc(sizeof(*c));
  if (!c)
    return ERROR_OUT_OF_MEMORY;
  c->to = (CUdeviceptr)(uintptr_t)host;
  c->from = from;
  c->bytes = bytes;
  return mock_cuda_enqueue_host(stream, runCopy, c, free);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes,
                              struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuMemcpyDtoDAsync_v2", ERROR_INVALID_VALUE);
  if (!mock_cuda_device_range(to, bytes) || !mock_cuda_device_range(from, bytes))
    return ERROR_INVALID_VALUE;
  trace("cuMemcpyDtoDAsync(%zu bytes)", bytes);
  struct Copy *c = malloc(sizeof(*c));
  if (!c)
    return ERROR_OUT_OF_MEMORY;
  c->to = to;
  c->from = from;
  c->bytes = bytes;
  return mock_cuda_enqueue_host(stream, runCopy, c, free);
}

CUresult cuMemsetD32Async(CUdeviceptr to, unsigned value, size_t count,
                          struct CUstream_st *stream) {
  FAIL_IF_ASKED("cuMemsetD32Async", ERROR_INVALID_VALUE);
  if ((to & 3) || count > SIZE_MAX / 4 ||
      !mock_cuda_device_range(to, count * 4))
    return ERROR_INVALID_VALUE;
  trace("cuMemsetD32Async(%zu words)", count);
  struct Copy *c = malloc(sizeof(*c));
  if (!c)
    return ERROR_OUT_OF_MEMORY;
  c->to = to;
  c->bytes = count * 4;
  c->value = value;
  return mock_cuda_enqueue_host(stream, runMemset, c, free);
}

/* Streams run in order at once here: waiting on an event is a no-op. */
CUresult cuStreamWaitEvent(struct CUstream_st *stream, struct CUevent_st *event,
                           unsigned flags) {
  FAIL_IF_ASKED("cuStreamWaitEvent", ERROR_INVALID_VALUE);
  (void)stream;
  (void)event;
  (void)flags;
  trace("cuStreamWaitEvent");
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
  /* As the driver: an event never recorded has no time. */
  if (!start->recorded || !end->recorded)
    return ERROR_INVALID_HANDLE;
  *ms = (float)(end->ms - start->ms);
  return SUCCESS;
}

CUresult cuEventDestroy_v2(struct CUevent_st *event) {
  free(event);
  return SUCCESS;
}
