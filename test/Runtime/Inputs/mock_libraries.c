/* Stand-ins for cuBLASLt (libcublasLt.so.13) and cuDNN (libcudnn.so.9) for
 * testing the runtime's library launches without a GPU, against the mock
 * driver (mock_cuda.c). Built twice from this file:
 *
 *   cc -shared -fPIC -O2 -DMOCK_CUBLASLT mock_libraries.c -o libcublasLt.so.13
 *   cc -shared -fPIC -O2 -DMOCK_CUDNN mock_libraries.c -o libcudnn.so.9
 *
 * into a directory that FUSE_CUDA_LIBRARY_PATH names. Each implements, on
 * the host ("device" memory is host memory in the mock driver), exactly the
 * functions the runtime resolves (runtime/lib/VendorLibraries.h), with the
 * semantics NVIDIA documents for them, not fuse's:
 *
 *   cublasLtMatmul      column-major matrices described by their layouts
 *                       (rows, cols, ld, batch count, strided batch offset,
 *                       0 repeating one matrix); D = epilogue(alpha op(A)
 *                       op(B) + beta C), op by TRANSA / TRANSB; epilogues
 *                       DEFAULT, RELU, BIAS, RELU_BIAS with a bias vector of
 *                       D's rows added to every column before the ReLU;
 *                       alpha and beta read from host pointers when the
 *                       call is made; C not read when beta is 0.
 *   cuDNN               NCHW or NHWC float tensors (NHWC filters [k, r, s,
 *                       c]); 2-D convolution with pads,
 *                       strides, dilations and groups (cross-correlation,
 *                       or true convolution); cudnnConvolutionForward
 *                       (y = alpha conv + beta y), cudnnConvolution-
 *                       BiasActivationForward (y = act(alpha1 conv + alpha2
 *                       z + bias), ReLU or identity, identity only with
 *                       IMPLICIT_PRECOMP_GEMM, a bias of [1, K, 1, 1]),
 *                       cudnnAddTensor (C = alpha A + beta C, A broadcast
 *                       along its dims of 1), cudnnActivationForward (y =
 *                       alpha act(x) + beta y, in place or not), and
 *                       cudnnFindConvolutionForwardAlgorithmEx, which
 *                       returns, fastest first: a tensor-core (TF32)
 *                       algorithm (WINOGRAD, which then fails with FMA
 *                       math), one needing 1 GiB of workspace (FFT), then
 *                       IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM (FMA math,
 *                       status 0), and GEMM with status NOT_SUPPORTED.
 *
 * They check what the libraries reject: shapes that do not agree, a size of
 * an attribute that is not its type's, an algorithm that needs more
 * workspace than it is given, a cuBLASLt workspace that is not 256-byte
 * aligned (cuBLASLt 13 refuses it), a NULL operand, an operand outside the mock
 * driver's allocations (the call then fails with EXECUTION_FAILED and says
 * which). A call on a capturing stream becomes a node of the graph (the
 * mock driver's mock_cuda_enqueue_host), so it runs on each replay with the
 * pointers and scalars it was given; otherwise it runs at once. The
 * workspace and, during the algorithm search, Y are overwritten with NaNs,
 * as the real libraries leave them with garbage.
 *
 * Environment:
 *   MOCK_CUBLASLT_FAIL=NAME,...  those cuBLASLt functions fail with
 *                                CUBLAS_STATUS_INTERNAL_ERROR (GetStatusName
 *                                returns NULL)
 *   MOCK_CUDNN_FAIL=NAME,...     those cuDNN functions fail with
 *                                CUDNN_STATUS_INTERNAL_ERROR (GetErrorString
 *                                returns NULL)
 *   MOCK_CUDA_TRACE=1            print each call that matters to stderr, and
 *                                at exit the objects never destroyed
 * Built with -DMOCK_INCOMPLETE, cuBLASLt lacks cublasLtMatmulAlgoGetHeuristic
 * and cuDNN lacks cudnnAddTensor.
 *
 * A matmul of more than 2^32 multiply-adds (fuse_model_measure_limits'
 * 4096^3 SGEMM) is checked but not computed: on the host it would take
 * minutes.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(MOCK_CUBLASLT) == defined(MOCK_CUDNN)
#error "build with -DMOCK_CUBLASLT or -DMOCK_CUDNN"
#endif

#ifdef MOCK_CUBLASLT
#define MOCK_NAME "cublaslt"
#define MOCK_FAIL_ENV "MOCK_CUBLASLT_FAIL"
#else
#define MOCK_NAME "cudnn"
#define MOCK_FAIL_ENV "MOCK_CUDNN_FAIL"
#endif

typedef unsigned long long CUdeviceptr;
typedef struct CUstream_st *CUstream;

/*===----------------------------------------------------------------------===*
 * Shared: tracing, failures, the mock driver's helpers
 *===----------------------------------------------------------------------===*/

#include "mock_common.h"

/* Objects created and not yet destroyed, reported at exit when tracing. */
static long alive;

__attribute__((destructor)) static void reportAlive(void) {
  trace("objects alive at exit: %ld", alive);
}

static void *create(size_t bytes) {
  void *p = calloc(1, bytes);
  if (p)
    ++alive;
  return p;
}

static void destroy(void *p) {
  if (!p)
    return;
  --alive;
  free(p);
}

typedef int (*EnqueueFn)(CUstream, void (*)(void *), void *,
                         void (*)(void *));
typedef int (*RangeFn)(CUdeviceptr, size_t);
typedef int (*CapturingFn)(CUstream);

static struct {
  int looked;
  EnqueueFn enqueue;
  RangeFn range;
  CapturingFn capturing;
} driver;

/* The mock driver's helpers, if it is the libcuda.so.1 loaded. */
static void findDriver(void) {
  if (driver.looked)
    return;
  driver.looked = 1;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_NOW);
  if (!cuda)
    return;
  driver.enqueue = (EnqueueFn)dlsym(cuda, "mock_cuda_enqueue_host");
  driver.range = (RangeFn)dlsym(cuda, "mock_cuda_device_range");
  driver.capturing = (CapturingFn)dlsym(cuda, "mock_cuda_capturing");
}

/* Runs fn(context) on the stream: a graph node while it captures, else
 * now. Takes ownership of `context` (freed with free()). */
static int enqueue(CUstream stream, void (*fn)(void *), void *context) {
  findDriver();
  if (driver.enqueue)
    return driver.enqueue(stream, fn, context, free) == 0;
  fn(context);
  free(context);
  return 1;
}

static int capturing(CUstream stream) {
  findDriver();
  return driver.capturing && driver.capturing(stream);
}

/* Whether `bytes` at `p` are device memory (always, without the mock
 * driver); says which operand is not. */
static int inDeviceMemory(const char *call, const char *what, const void *p,
                          size_t bytes) {
  findDriver();
  if (!driver.range || bytes == 0 ||
      driver.range((CUdeviceptr)(uintptr_t)p, bytes))
    return 1;
  fprintf(stderr,
          "mock-" MOCK_NAME ": %s: %s [%p, +%zu) is not device memory\n", call,
          what, p, bytes);
  return 0;
}

static void scribble(void *p, size_t bytes) {
  if (p && bytes)
    memset(p, 0xff, bytes); /* NaN floats */
}

#ifdef MOCK_CUBLASLT
/*===----------------------------------------------------------------------===*
 * cuBLASLt
 *===----------------------------------------------------------------------===*/

typedef int cublasStatus_t;
enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
       CUDA_R_32F = 0 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum {
  DESC_TRANSA = 3,
  DESC_TRANSB = 4,
  DESC_EPILOGUE = 7,
  DESC_BIAS_POINTER = 8,
  LAYOUT_BATCH_COUNT = 5,
  LAYOUT_STRIDED_BATCH_OFFSET = 6,
  PREF_MAX_WORKSPACE_BYTES = 1,
};
enum {
  EPILOGUE_DEFAULT = 1,
  EPILOGUE_RELU = 2,
  EPILOGUE_BIAS = 4,
  EPILOGUE_RELU_BIAS = 6,
};
/* The mock's algorithm: data[0] is this, data[1] its workspace bytes. */
#define ALGO_MAGIC 0x4b434f4d544c4d4dull
/* What the one algorithm asks of the workspace, when it may have it. */
#define ALGO_WORKSPACE 512u

struct cublasLtContext {
  int valid;
};
struct cublasLtMatmulDescOpaque {
  int computeType, scaleType;
  int32_t transa, transb;
  uint32_t epilogue;
  const float *bias;
};
struct cublasLtMatrixLayoutOpaque {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch;
  int64_t stride;
};
struct cublasLtMatmulPreferenceOpaque {
  uint64_t maxWorkspace;
};
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque *cublasLtMatmulPreference_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;

#define FAIL_IF_ASKED(symbol)                                                  \
  do {                                                                         \
    if (fails(symbol))                                                         \
      return CUBLAS_STATUS_INTERNAL_ERROR;                                     \
  } while (0)

size_t cublasLtGetVersion(void) {
  return fails("cublasLtGetVersion") ? 0 : 130100;
}

const char *cublasLtGetStatusName(cublasStatus_t status) {
  if (fails("cublasLtGetStatusName"))
    return NULL;
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  FAIL_IF_ASKED("cublasLtCreate");
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = create(sizeof(**handle));
  if (!*handle)
    return CUBLAS_STATUS_ALLOC_FAILED;
  (*handle)->valid = 1;
  trace("cublasLtCreate");
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  trace("cublasLtDestroy");
  destroy(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                        int computeType, int scaleType) {
  FAIL_IF_ASKED("cublasLtMatmulDescCreate");
  if (!desc)
    return CUBLAS_STATUS_INVALID_VALUE;
  /* fp32 data and compute; TF32 (compute type 77) computes in fp32 here:
   * the stand-in checks the plumbing, not TF32's rounding. */
  if ((computeType != CUBLAS_COMPUTE_32F &&
       computeType != CUBLAS_COMPUTE_32F_FAST_TF32) ||
      scaleType != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  *desc = create(sizeof(**desc));
  if (!*desc)
    return CUBLAS_STATUS_ALLOC_FAILED;
  (*desc)->computeType = computeType;
  (*desc)->scaleType = scaleType;
  (*desc)->epilogue = EPILOGUE_DEFAULT;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  destroy(desc);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              int attribute, const void *buf,
                                              size_t size) {
  FAIL_IF_ASKED("cublasLtMatmulDescSetAttribute");
  if (!desc || !buf)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (attribute) {
  case DESC_TRANSA:
  case DESC_TRANSB: {
    int32_t op;
    if (size != sizeof(op))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&op, buf, sizeof(op));
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T)
      return CUBLAS_STATUS_NOT_SUPPORTED;
    *(attribute == DESC_TRANSA ? &desc->transa : &desc->transb) = op;
    return CUBLAS_STATUS_SUCCESS;
  }
  case DESC_EPILOGUE: {
    uint32_t epilogue;
    if (size != sizeof(epilogue))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&epilogue, buf, sizeof(epilogue));
    if (epilogue != EPILOGUE_DEFAULT && epilogue != EPILOGUE_RELU &&
        epilogue != EPILOGUE_BIAS && epilogue != EPILOGUE_RELU_BIAS)
      return CUBLAS_STATUS_NOT_SUPPORTED;
    desc->epilogue = epilogue;
    return CUBLAS_STATUS_SUCCESS;
  }
  case DESC_BIAS_POINTER:
    if (size != sizeof(void *))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&desc->bias, buf, sizeof(void *));
    return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                          int type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  FAIL_IF_ASKED("cublasLtMatrixLayoutCreate");
  if (!layout)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (type != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  /* Column-major: a column holds `rows` elements, columns `ld` apart. */
  if (rows == 0 || cols == 0 || ld < 0 || (uint64_t)ld < rows)
    return CUBLAS_STATUS_INVALID_VALUE;
  *layout = create(sizeof(**layout));
  if (!*layout)
    return CUBLAS_STATUS_ALLOC_FAILED;
  (*layout)->type = type;
  (*layout)->rows = rows;
  (*layout)->cols = cols;
  (*layout)->ld = ld;
  (*layout)->batch = 1;
  (*layout)->stride = 0;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  destroy(layout);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                int attribute, const void *buf,
                                                size_t size) {
  FAIL_IF_ASKED("cublasLtMatrixLayoutSetAttribute");
  if (!layout || !buf)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (attribute == LAYOUT_BATCH_COUNT) {
    int32_t batch;
    if (size != sizeof(batch))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&batch, buf, sizeof(batch));
    if (batch < 1)
      return CUBLAS_STATUS_INVALID_VALUE;
    layout->batch = batch;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (attribute == LAYOUT_STRIDED_BATCH_OFFSET) {
    if (size != sizeof(int64_t))
      return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&layout->stride, buf, sizeof(int64_t));
    return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference) {
  FAIL_IF_ASKED("cublasLtMatmulPreferenceCreate");
  if (!preference)
    return CUBLAS_STATUS_INVALID_VALUE;
  *preference = create(sizeof(**preference));
  return *preference ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  destroy(preference);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t preference,
                                     int attribute, const void *buf,
                                     size_t size) {
  FAIL_IF_ASKED("cublasLtMatmulPreferenceSetAttribute");
  if (!preference || !buf || attribute != PREF_MAX_WORKSPACE_BYTES ||
      size != sizeof(uint64_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  memcpy(&preference->maxWorkspace, buf, sizeof(uint64_t));
  return CUBLAS_STATUS_SUCCESS;
}

/* The problem a descriptor and four layouts describe, checked. */
struct Problem {
  uint64_t m, n, k;
  int32_t batch;
};

static cublasStatus_t checkProblem(cublasLtMatmulDesc_t desc,
                                   cublasLtMatrixLayout_t a,
                                   cublasLtMatrixLayout_t b,
                                   cublasLtMatrixLayout_t c,
                                   cublasLtMatrixLayout_t d,
                                   struct Problem *p) {
  if (!desc || !a || !b || !c || !d)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t rowsOpA = desc->transa ? a->cols : a->rows;
  uint64_t colsOpA = desc->transa ? a->rows : a->cols;
  uint64_t rowsOpB = desc->transb ? b->cols : b->rows;
  uint64_t colsOpB = desc->transb ? b->rows : b->cols;
  p->m = d->rows;
  p->n = d->cols;
  p->k = colsOpA;
  p->batch = d->batch;
  if (rowsOpA != p->m || colsOpB != p->n || rowsOpB != p->k ||
      c->rows != d->rows || c->cols != d->cols)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (a->batch != d->batch || b->batch != d->batch || c->batch != d->batch)
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t preference, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *returned)
#ifdef MOCK_INCOMPLETE
    __attribute__((visibility("hidden")))
#endif
    ;
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t preference, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *returned) {
  FAIL_IF_ASKED("cublasLtMatmulAlgoGetHeuristic");
  if (!handle || !preference || requested < 1 || !results || !returned)
    return CUBLAS_STATUS_INVALID_VALUE;
  struct Problem p;
  cublasStatus_t status = checkProblem(desc, a, b, c, d, &p);
  if (status != CUBLAS_STATUS_SUCCESS)
    return status;
  memset(results, 0, sizeof(*results) * (size_t)requested);
  /* Two algorithms when asked for more than one: the first uses the
     workspace when it fits, the second none. */
  int count = requested < 2 ? requested : 2;
  for (int i = 0; i < count; ++i) {
    results[i].algo.data[0] = ALGO_MAGIC;
    results[i].workspaceSize =
        i == 0 && preference->maxWorkspace >= ALGO_WORKSPACE ? ALGO_WORKSPACE
                                                             : 0;
    results[i].algo.data[1] = results[i].workspaceSize;
    results[i].algo.data[2] = (uint64_t)i;
    results[i].state = CUBLAS_STATUS_SUCCESS;
    results[i].wavesCount = 1;
  }
  *returned = count;
  trace("cublasLtMatmulAlgoGetHeuristic: %llux%llux%llu batch %d, "
        "workspace %zu of %llu bytes, %d of %d algorithms",
        (unsigned long long)p.m, (unsigned long long)p.n,
        (unsigned long long)p.k, p.batch, results[0].workspaceSize,
        (unsigned long long)preference->maxWorkspace, count, requested);
  return CUBLAS_STATUS_SUCCESS;
}

/* Split-K configurations: accepted and checked, and rejected (this mock's
   algorithms have no split-K), so the runtime times the heuristic's own. */
cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                    int attribute,
                                                    const void *value,
                                                    size_t size) {
  FAIL_IF_ASKED("cublasLtMatmulAlgoConfigSetAttribute");
  if (!algo || algo->data[0] != ALGO_MAGIC || !value || size != 4)
    return CUBLAS_STATUS_INVALID_VALUE;
  /* CUBLASLT_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME */
  if (attribute == 2)
    algo->data[3] = *(const uint32_t *)value;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulAlgoCheck(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                        cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                        cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                        const cublasLtMatmulAlgo_t *algo,
                        cublasLtMatmulHeuristicResult_t *result) {
  FAIL_IF_ASKED("cublasLtMatmulAlgoCheck");
  if (!handle || !algo || algo->data[0] != ALGO_MAGIC || !result)
    return CUBLAS_STATUS_INVALID_VALUE;
  struct Problem p;
  cublasStatus_t status = checkProblem(desc, a, b, c, d, &p);
  if (status != CUBLAS_STATUS_SUCCESS)
    return status;
  trace("cublasLtMatmulAlgoCheck: algo %llu split-K %llu: not supported",
        (unsigned long long)algo->data[2], (unsigned long long)algo->data[3]);
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

/* One matmul, as captured: everything by value. */
struct Matmul {
  struct Problem p;
  struct cublasLtMatrixLayoutOpaque a, b, c, d;
  int32_t transa, transb;
  uint32_t epilogue;
  float alpha, beta;
  const float *A, *B, *C, *bias;
  float *D;
  void *workspace;
  size_t workspaceBytes;
};

/* Element (row, col) of matrix `batch` of a column-major layout. */
static size_t at(const struct cublasLtMatrixLayoutOpaque *l, int32_t batch,
                 uint64_t row, uint64_t col) {
  return (size_t)((int64_t)batch * l->stride + (int64_t)col * l->ld +
                  (int64_t)row);
}

/* Elements a layout spans. */
static size_t extent(const struct cublasLtMatrixLayoutOpaque *l) {
  return at(l, l->batch - 1, l->rows - 1, l->cols - 1) + 1;
}

static void runMatmul(void *context) {
  struct Matmul *mm = context;
  const struct Problem *p = &mm->p;
  scribble(mm->workspace, mm->workspaceBytes);
  if ((double)p->m * (double)p->n * (double)p->k * p->batch > 4294967296.0)
    return; /* Too large to compute on the host (see the top). */
  int bias = mm->epilogue == EPILOGUE_BIAS ||
             mm->epilogue == EPILOGUE_RELU_BIAS;
  int relu = mm->epilogue == EPILOGUE_RELU ||
             mm->epilogue == EPILOGUE_RELU_BIAS;
  float *out = malloc(sizeof(float) * p->m * p->n);
  if (!out)
    abort();
  for (int32_t b = 0; b < p->batch; ++b) {
    /* Into a temporary first: D may be an operand too. */
    for (uint64_t j = 0; j < p->n; ++j)
      for (uint64_t i = 0; i < p->m; ++i) {
        float sum = 0;
        for (uint64_t l = 0; l < p->k; ++l) {
          float x = mm->A[mm->transa ? at(&mm->a, b, l, i) : at(&mm->a, b, i, l)];
          float y = mm->B[mm->transb ? at(&mm->b, b, j, l) : at(&mm->b, b, l, j)];
          sum += x * y;
        }
        float v = mm->alpha * sum;
        if (mm->beta != 0)
          v += mm->beta * mm->C[at(&mm->c, b, i, j)];
        if (bias)
          v += mm->bias[i];
        if (relu && !(v >= 0))
          v = v != v ? v : 0; /* ReLU keeps NaNs, like max(v, 0) on a GPU. */
        out[j * p->m + i] = v;
      }
    for (uint64_t j = 0; j < p->n; ++j)
      for (uint64_t i = 0; i < p->m; ++i)
        mm->D[at(&mm->d, b, i, j)] = out[j * p->m + i];
  }
  free(out);
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle,
                              cublasLtMatmulDesc_t desc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t a,
                              const void *B, cublasLtMatrixLayout_t b,
                              const void *beta, const void *C,
                              cublasLtMatrixLayout_t c, void *D,
                              cublasLtMatrixLayout_t d,
                              const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceBytes,
                              CUstream stream) {
  FAIL_IF_ASKED("cublasLtMatmul");
  if (!handle || !alpha || !beta || !A || !B || !C || !D)
    return CUBLAS_STATUS_INVALID_VALUE;
  struct Problem p;
  cublasStatus_t status = checkProblem(desc, a, b, c, d, &p);
  if (status != CUBLAS_STATUS_SUCCESS)
    return status;
  /* The algorithm must be one of the heuristic's, with its workspace. */
  if (!algo || algo->data[0] != ALGO_MAGIC ||
      workspaceBytes < algo->data[1] || (workspaceBytes && !workspace))
    return CUBLAS_STATUS_INVALID_VALUE;
  /* As cuBLASLt 13 says: "The workspace pointer must be aligned to at least
   * a multiple of 256 bytes". */
  if ((uintptr_t)workspace % 256 != 0) {
    trace("cublasLtMatmul: the workspace %p is not 256-byte aligned",
          workspace);
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  int bias = desc->epilogue == EPILOGUE_BIAS ||
             desc->epilogue == EPILOGUE_RELU_BIAS;
  if (bias && !desc->bias)
    return CUBLAS_STATUS_INVALID_VALUE;
  struct Matmul *mm = malloc(sizeof(*mm));
  if (!mm)
    return CUBLAS_STATUS_ALLOC_FAILED;
  mm->p = p;
  mm->a = *a;
  mm->b = *b;
  mm->c = *c;
  mm->d = *d;
  mm->transa = desc->transa;
  mm->transb = desc->transb;
  mm->epilogue = desc->epilogue;
  /* Host pointer mode: the scalars are read now. */
  memcpy(&mm->alpha, alpha, sizeof(float));
  memcpy(&mm->beta, beta, sizeof(float));
  mm->A = A;
  mm->B = B;
  mm->C = C;
  mm->D = D;
  mm->bias = bias ? desc->bias : NULL;
  mm->workspace = workspace;
  mm->workspaceBytes = algo->data[1];
  const char *call = "cublasLtMatmul";
  if (!inDeviceMemory(call, "A", A, extent(a) * 4) ||
      !inDeviceMemory(call, "B", B, extent(b) * 4) ||
      (mm->beta != 0 && !inDeviceMemory(call, "C", C, extent(c) * 4)) ||
      !inDeviceMemory(call, "D", D, extent(d) * 4) ||
      (bias && !inDeviceMemory(call, "the bias", mm->bias, p.m * 4)) ||
      !inDeviceMemory(call, "the workspace", workspace, workspaceBytes)) {
    free(mm);
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  trace("cublasLtMatmul%s: %llux%llux%llu batch %d, op(A) %c lda %lld "
        "stride %lld, op(B) %c ldb %lld stride %lld, ldc %lld, ldd %lld "
        "stride %lld, epilogue %u, alpha %g, beta %g, workspace %zu bytes, "
        "algo %llu",
        capturing(stream) ? " (captured)" : "", (unsigned long long)p.m,
        (unsigned long long)p.n, (unsigned long long)p.k, p.batch,
        desc->transa ? 'T' : 'N', (long long)a->ld, (long long)a->stride,
        desc->transb ? 'T' : 'N', (long long)b->ld, (long long)b->stride,
        (long long)c->ld, (long long)d->ld, (long long)d->stride,
        desc->epilogue, mm->alpha, mm->beta, workspaceBytes,
        (unsigned long long)algo->data[2]);
  return enqueue(stream, runMatmul, mm) ? CUBLAS_STATUS_SUCCESS
                                        : CUBLAS_STATUS_EXECUTION_FAILED;
}

#else /* MOCK_CUDNN */
/*===----------------------------------------------------------------------===*
 * cuDNN
 *===----------------------------------------------------------------------===*/

typedef int cudnnStatus_t;
enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_BAD_PARAM_NULL_POINTER = 2002,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_INTERNAL_ERROR = 4000,
  CUDNN_STATUS_EXECUTION_FAILED = 5000,
};
enum { CUDNN_DATA_FLOAT = 0, CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 };
enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 };
enum { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3 };
enum { CUDNN_ACTIVATION_RELU = 1, CUDNN_ACTIVATION_IDENTITY = 5 };
enum {
  ALGO_IMPLICIT_GEMM = 0,
  ALGO_IMPLICIT_PRECOMP_GEMM = 1,
  ALGO_GEMM = 2,
  ALGO_FFT = 4,
  ALGO_WINOGRAD = 6,
  ALGO_COUNT = 8,
};

struct cudnnContext {
  CUstream stream;
};
struct cudnnTensorStruct {
  int set;
  int n, c, h, w;
  int format; /* CUDNN_TENSOR_NCHW or CUDNN_TENSOR_NHWC */
};
struct cudnnFilterStruct {
  int set;
  int k, c, h, w;
  int format; /* NHWC: [k, h, w, c] */
};
struct cudnnConvolutionStruct {
  int set;
  int padH, padW, strideH, strideW, dilationH, dilationW, mode, groups, math;
};
struct cudnnActivationStruct {
  int set;
  int mode;
};
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;
typedef struct {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

#define FAIL_IF_ASKED(symbol)                                                  \
  do {                                                                         \
    if (fails(symbol))                                                         \
      return CUDNN_STATUS_INTERNAL_ERROR;                                      \
  } while (0)

/* What cudnnFindConvolutionForwardAlgorithmEx reports, fastest first. */
static const cudnnConvolutionFwdAlgoPerf_t kAlgorithms[] = {
    {ALGO_WINOGRAD, CUDNN_STATUS_SUCCESS, 0.01f, 0, 1, CUDNN_TENSOR_OP_MATH,
     {0}}, /* TF32: fuse never takes it */
    {ALGO_FFT, CUDNN_STATUS_SUCCESS, 0.02f, (size_t)1 << 30, 1,
     CUDNN_FMA_MATH, {0}}, /* more workspace than any test gives */
    {ALGO_IMPLICIT_GEMM, CUDNN_STATUS_SUCCESS, 0.05f, 0, 1, CUDNN_FMA_MATH,
     {0}},
    {ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_STATUS_SUCCESS, 0.06f, 256, 1,
     CUDNN_FMA_MATH, {0}},
    {ALGO_GEMM, CUDNN_STATUS_NOT_SUPPORTED, -1.0f, 0, 0, CUDNN_DEFAULT_MATH,
     {0}},
};

/* The workspace an algorithm needs, or -1 if the mock does not know it. */
static long long algorithmWorkspace(int algo) {
  switch (algo) {
  case ALGO_IMPLICIT_GEMM:
  case ALGO_GEMM:
    return 0;
  case ALGO_IMPLICIT_PRECOMP_GEMM:
    return 256;
  case ALGO_FFT:
    return 1ll << 30;
  case ALGO_WINOGRAD:
    return 0;
  }
  return -1;
}

size_t cudnnGetVersion(void) { return fails("cudnnGetVersion") ? 0 : 90100; }

const char *cudnnGetErrorString(cudnnStatus_t status) {
  if (fails("cudnnGetErrorString"))
    return NULL;
  switch (status) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_INTERNAL_ERROR:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  case CUDNN_STATUS_EXECUTION_FAILED:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  FAIL_IF_ASKED("cudnnCreate");
  if (!handle)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *handle = create(sizeof(**handle));
  trace("cudnnCreate");
  return *handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  if (!handle)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  trace("cudnnDestroy");
  destroy(handle);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, CUstream stream) {
  FAIL_IF_ASKED("cudnnSetStream");
  if (!handle)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

#define CREATE_DESTROY(type, create_fn, destroy_fn)                            \
  cudnnStatus_t create_fn(type *desc) {                                        \
    FAIL_IF_ASKED(#create_fn);                                                 \
    if (!desc)                                                                 \
      return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;                              \
    *desc = create(sizeof(**desc));                                            \
    return *desc ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR;         \
  }                                                                            \
  cudnnStatus_t destroy_fn(type desc) {                                        \
    destroy(desc);                                                             \
    return CUDNN_STATUS_SUCCESS;                                               \
  }
CREATE_DESTROY(cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
               cudnnDestroyTensorDescriptor)
CREATE_DESTROY(cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
               cudnnDestroyFilterDescriptor)
CREATE_DESTROY(cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
               cudnnDestroyConvolutionDescriptor)
CREATE_DESTROY(cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
               cudnnDestroyActivationDescriptor)

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t desc,
                                         int format, int dataType, int n,
                                         int c, int h, int w) {
  FAIL_IF_ASKED("cudnnSetTensor4dDescriptor");
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if ((format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC) ||
      dataType != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (n < 1 || c < 1 || h < 1 || w < 1)
    return CUDNN_STATUS_BAD_PARAM;
  *desc = (struct cudnnTensorStruct){1, n, c, h, w, format};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t desc,
                                         int dataType, int format, int k,
                                         int c, int h, int w) {
  FAIL_IF_ASKED("cudnnSetFilter4dDescriptor");
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if ((format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC) ||
      dataType != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (k < 1 || c < 1 || h < 1 || w < 1)
    return CUDNN_STATUS_BAD_PARAM;
  *desc = (struct cudnnFilterStruct){1, k, c, h, w, format};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t desc, int padH,
                                int padW, int strideH, int strideW,
                                int dilationH, int dilationW, int mode,
                                int computeType) {
  FAIL_IF_ASKED("cudnnSetConvolution2dDescriptor");
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (padH < 0 || padW < 0 || strideH < 1 || strideW < 1 || dilationH < 1 ||
      dilationW < 1 ||
      (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
    return CUDNN_STATUS_BAD_PARAM;
  if (computeType != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_NOT_SUPPORTED;
  int groups = desc->set ? desc->groups : 1, math = desc->math;
  *desc = (struct cudnnConvolutionStruct){
      1, padH, padW, strideH, strideW, dilationH, dilationW, mode, groups,
      math};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc, int groups) {
  FAIL_IF_ASKED("cudnnSetConvolutionGroupCount");
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  desc->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                          int math) {
  FAIL_IF_ASKED("cudnnSetConvolutionMathType");
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (math != CUDNN_DEFAULT_MATH && math != CUDNN_TENSOR_OP_MATH &&
      math != 2 && math != CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  desc->math = math;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t desc,
                                           int mode, int nanOpt,
                                           double coef) {
  FAIL_IF_ASKED("cudnnSetActivationDescriptor");
  (void)coef;
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nanOpt != 0 && nanOpt != 1)
    return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY)
    return CUDNN_STATUS_NOT_SUPPORTED; /* The mock has no others. */
  desc->set = 1;
  desc->mode = mode;
  return CUDNN_STATUS_SUCCESS;
}

static size_t elements(const struct cudnnTensorStruct *t) {
  return (size_t)t->n * t->c * t->h * t->w;
}

/* Checks that x, w, conv and y describe one convolution. */
static cudnnStatus_t checkConv(const struct cudnnTensorStruct *x,
                               const struct cudnnFilterStruct *w,
                               const struct cudnnConvolutionStruct *conv,
                               const struct cudnnTensorStruct *y) {
  if (!x || !w || !conv || !y)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!x->set || !w->set || !conv->set || !y->set)
    return CUDNN_STATUS_BAD_PARAM;
  long spanH = (long)conv->dilationH * (w->h - 1) + 1;
  long spanW = (long)conv->dilationW * (w->w - 1) + 1;
  long outH = ((long)x->h + 2l * conv->padH - spanH) / conv->strideH + 1;
  long outW = ((long)x->w + 2l * conv->padW - spanW) / conv->strideW + 1;
  if (x->c != w->c * conv->groups || w->k % conv->groups != 0 ||
      y->n != x->n || y->c != w->k || x->h + 2l * conv->padH < spanH ||
      x->w + 2l * conv->padW < spanW || y->h != outH || y->w != outW)
    return CUDNN_STATUS_BAD_PARAM;
  return CUDNN_STATUS_SUCCESS;
}

/* Where element (n, c, h, w) of `t` is, in its format. */
static size_t tensorIndex(const struct cudnnTensorStruct *t, int n, int c,
                          int h, int w) {
  if (t->format == CUDNN_TENSOR_NHWC)
    return (((size_t)n * t->h + h) * t->w + w) * t->c + c;
  return (((size_t)n * t->c + c) * t->h + h) * t->w + w;
}

/* Where filter element (k, c, r, s) is, in its format. */
static size_t filterIndex(const struct cudnnFilterStruct *f, int k, int c,
                          int r, int s) {
  if (f->format == CUDNN_TENSOR_NHWC)
    return (((size_t)k * f->h + r) * f->w + s) * f->c + c;
  return (((size_t)k * f->c + c) * f->h + r) * f->w + s;
}

static int sameShape(const struct cudnnTensorStruct *a,
                     const struct cudnnTensorStruct *b) {
  return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w &&
         a->format == b->format;
}

/* A convolution as captured: everything by value. */
struct Conv {
  struct cudnnTensorStruct x, y, bias;
  struct cudnnFilterStruct w;
  struct cudnnConvolutionStruct conv;
  int relu;
  float alpha, beta;  /* y = alpha conv + beta y */
  float alpha2;       /* + alpha2 z */
  const float *X, *W, *Z, *bias_;
  float *Y;
  void *workspace;
  size_t workspaceBytes;
};

static void runConv(void *context) {
  struct Conv *c = context;
  const struct cudnnTensorStruct *x = &c->x, *y = &c->y;
  const struct cudnnFilterStruct *w = &c->w;
  const struct cudnnConvolutionStruct *cv = &c->conv;
  scribble(c->workspace, c->workspaceBytes);
  int cg = w->c, kg = w->k / cv->groups;
  float *out = malloc(sizeof(float) * elements(y));
  if (!out)
    abort();
  for (int n = 0; n < y->n; ++n)
    for (int k = 0; k < y->c; ++k) {
      int g = k / kg;
      for (int oh = 0; oh < y->h; ++oh)
        for (int ow = 0; ow < y->w; ++ow) {
          float sum = 0;
          for (int ci = 0; ci < cg; ++ci)
            for (int r = 0; r < w->h; ++r)
              for (int s = 0; s < w->w; ++s) {
                int ih = oh * cv->strideH - cv->padH + r * cv->dilationH;
                int iw = ow * cv->strideW - cv->padW + s * cv->dilationW;
                if (ih < 0 || ih >= x->h || iw < 0 || iw >= x->w)
                  continue;
                /* True convolution flips the window. */
                int fr = cv->mode == CUDNN_CONVOLUTION ? w->h - 1 - r : r;
                int fs = cv->mode == CUDNN_CONVOLUTION ? w->w - 1 - s : s;
                float xv = c->X[tensorIndex(x, n, g * cg + ci, ih, iw)];
                float wv = c->W[filterIndex(w, k, ci, fr, fs)];
                sum += xv * wv;
              }
          size_t i = tensorIndex(y, n, k, oh, ow);
          float v = c->alpha * sum;
          if (c->beta != 0)
            v += c->beta * c->Y[i];
          if (c->alpha2 != 0)
            v += c->alpha2 * c->Z[i];
          if (c->bias_)
            v += c->bias_[k];
          if (c->relu && !(v >= 0))
            v = v != v ? v : 0;
          out[i] = v;
        }
    }
  memcpy(c->Y, out, sizeof(float) * elements(y));
  free(out);
}

static cudnnStatus_t checkOperands(const char *call, const struct Conv *c,
                                   size_t workspaceBytes) {
  if (!inDeviceMemory(call, "x", c->X, elements(&c->x) * 4) ||
      !inDeviceMemory(call, "w", c->W,
                      (size_t)c->w.k * c->w.c * c->w.h * c->w.w * 4) ||
      !inDeviceMemory(call, "y", c->Y, elements(&c->y) * 4) ||
      (c->Z && !inDeviceMemory(call, "z", c->Z, elements(&c->y) * 4)) ||
      (c->bias_ && !inDeviceMemory(call, "the bias", c->bias_, c->y.c * 4)) ||
      !inDeviceMemory(call, "the workspace", c->workspace, workspaceBytes))
    return CUDNN_STATUS_EXECUTION_FAILED;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, cudnnTensorDescriptor_t xDesc, const void *x,
    cudnnFilterDescriptor_t wDesc, const void *w,
    cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t yDesc,
    void *y, int requested, int *returned,
    cudnnConvolutionFwdAlgoPerf_t *results, void *workspace,
    size_t workspaceBytes) {
  FAIL_IF_ASKED("cudnnFindConvolutionForwardAlgorithmEx");
  if (!handle || !x || !w || !y || !returned || !results)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  cudnnStatus_t status = checkConv(xDesc, wDesc, convDesc, yDesc);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  /* It runs the algorithms: it cannot be captured into a graph. */
  if (capturing(handle->stream))
    return CUDNN_STATUS_NOT_SUPPORTED;
  struct Conv c = {.x = *xDesc, .y = *yDesc, .w = *wDesc, .X = x, .W = w,
                   .Y = y, .workspace = workspace};
  status = checkOperands("cudnnFindConvolutionForwardAlgorithmEx", &c,
                         workspaceBytes);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  int n = (int)(sizeof(kAlgorithms) / sizeof(kAlgorithms[0]));
  *returned = requested < n ? requested : n;
  memcpy(results, kAlgorithms, sizeof(kAlgorithms[0]) * (size_t)*returned);
  /* What the runs leave behind. */
  scribble(y, elements(yDesc) * 4);
  scribble(workspace, workspaceBytes);
  trace("cudnnFindConvolutionForwardAlgorithmEx: %d algorithms, workspace "
        "%zu bytes",
        *returned, workspaceBytes);
  return CUDNN_STATUS_SUCCESS;
}

/* The checks a forward call makes of its algorithm and workspace. */
static cudnnStatus_t checkAlgorithm(int algo,
                                    const struct cudnnConvolutionStruct *conv,
                                    void *workspace, size_t workspaceBytes) {
  long long need = algorithmWorkspace(algo);
  if (algo < 0 || algo >= ALGO_COUNT || need < 0)
    return CUDNN_STATUS_NOT_SUPPORTED;
  /* The mock's Winograd runs on tensor cores only (TF32), which FMA math
   * forbids. */
  if (algo == ALGO_WINOGRAD && conv->math == CUDNN_FMA_MATH)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if ((size_t)need > workspaceBytes || (need && !workspace))
    return CUDNN_STATUS_BAD_PARAM;
  return CUDNN_STATUS_SUCCESS;
}

static void traceConv(const char *call, const struct Conv *c, int algo,
                      int captured) {
  trace("%s%s: x %dx%dx%dx%d%s, w %dx%dx%dx%d%s, pad %d,%d, stride %d,%d, "
        "dilation %d,%d, groups %d, %s, math %d, algo %d, alpha %g, "
        "beta %g, alpha2 %g, bias %s, activation %s",
        call, captured ? " (captured)" : "", c->x.n, c->x.c, c->x.h, c->x.w,
        c->x.format == CUDNN_TENSOR_NHWC ? " nhwc" : "", c->w.k, c->w.c, c->w.h,
        c->w.w, c->w.format == CUDNN_TENSOR_NHWC ? " krsc" : "", c->conv.padH,
        c->conv.padW, c->conv.strideH, c->conv.strideW, c->conv.dilationH,
        c->conv.dilationW, c->conv.groups,
        c->conv.mode == CUDNN_CROSS_CORRELATION ? "cross-correlation"
                                                : "convolution",
        c->conv.math, algo, c->alpha, c->beta, c->alpha2,
        c->bias_ ? "yes" : "no", c->relu ? "relu" : "identity");
}

cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t xDesc,
    const void *x, cudnnFilterDescriptor_t wDesc, const void *w,
    cudnnConvolutionDescriptor_t convDesc, int algo, void *workspace,
    size_t workspaceBytes, const void *beta, cudnnTensorDescriptor_t yDesc,
    void *y) {
  FAIL_IF_ASKED("cudnnConvolutionForward");
  if (!handle || !alpha || !beta || !x || !w || !y)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  cudnnStatus_t status = checkConv(xDesc, wDesc, convDesc, yDesc);
  if (status == CUDNN_STATUS_SUCCESS)
    status = checkAlgorithm(algo, convDesc, workspace, workspaceBytes);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  struct Conv *c = calloc(1, sizeof(*c));
  if (!c)
    return CUDNN_STATUS_INTERNAL_ERROR;
  *c = (struct Conv){.x = *xDesc, .y = *yDesc, .w = *wDesc,
                     .conv = *convDesc, .X = x, .W = w, .Y = y,
                     .workspace = workspace,
                     .workspaceBytes = (size_t)algorithmWorkspace(algo)};
  memcpy(&c->alpha, alpha, sizeof(float));
  memcpy(&c->beta, beta, sizeof(float));
  status = checkOperands("cudnnConvolutionForward", c, workspaceBytes);
  if (status != CUDNN_STATUS_SUCCESS) {
    free(c);
    return status;
  }
  traceConv("cudnnConvolutionForward", c, algo, capturing(handle->stream));
  return enqueue(handle->stream, runConv, c) ? CUDNN_STATUS_SUCCESS
                                             : CUDNN_STATUS_EXECUTION_FAILED;
}

cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, cudnnTensorDescriptor_t xDesc,
    const void *x, cudnnFilterDescriptor_t wDesc, const void *w,
    cudnnConvolutionDescriptor_t convDesc, int algo, void *workspace,
    size_t workspaceBytes, const void *alpha2, cudnnTensorDescriptor_t zDesc,
    const void *z, cudnnTensorDescriptor_t biasDesc, const void *bias,
    cudnnActivationDescriptor_t activationDesc, cudnnTensorDescriptor_t yDesc,
    void *y) {
  FAIL_IF_ASKED("cudnnConvolutionBiasActivationForward");
  /* Every descriptor and pointer is required: the bias too. */
  if (!handle || !alpha1 || !alpha2 || !x || !w || !z || !bias || !y ||
      !zDesc || !biasDesc || !activationDesc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  cudnnStatus_t status = checkConv(xDesc, wDesc, convDesc, yDesc);
  if (status == CUDNN_STATUS_SUCCESS)
    status = checkAlgorithm(algo, convDesc, workspace, workspaceBytes);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  if (!zDesc->set || !sameShape(zDesc, yDesc) || !biasDesc->set ||
      biasDesc->n != 1 || biasDesc->c != yDesc->c || biasDesc->h != 1 ||
      biasDesc->w != 1 || !activationDesc->set)
    return CUDNN_STATUS_BAD_PARAM;
  /* As documented: ReLU with any algorithm, identity only with
   * IMPLICIT_PRECOMP_GEMM. */
  if (activationDesc->mode != CUDNN_ACTIVATION_RELU &&
      !(activationDesc->mode == CUDNN_ACTIVATION_IDENTITY &&
        algo == ALGO_IMPLICIT_PRECOMP_GEMM))
    return CUDNN_STATUS_NOT_SUPPORTED;
  struct Conv *c = calloc(1, sizeof(*c));
  if (!c)
    return CUDNN_STATUS_INTERNAL_ERROR;
  *c = (struct Conv){.x = *xDesc, .y = *yDesc, .w = *wDesc,
                     .conv = *convDesc, .X = x, .W = w, .Y = y, .Z = z,
                     .bias_ = bias,
                     .relu = activationDesc->mode == CUDNN_ACTIVATION_RELU,
                     .workspace = workspace,
                     .workspaceBytes = (size_t)algorithmWorkspace(algo)};
  memcpy(&c->alpha, alpha1, sizeof(float));
  memcpy(&c->alpha2, alpha2, sizeof(float));
  if (c->alpha2 == 0)
    c->Z = NULL; /* Not read. */
  status = checkOperands("cudnnConvolutionBiasActivationForward", c,
                         workspaceBytes);
  if (status != CUDNN_STATUS_SUCCESS) {
    free(c);
    return status;
  }
  traceConv("cudnnConvolutionBiasActivationForward", c, algo,
            capturing(handle->stream));
  return enqueue(handle->stream, runConv, c) ? CUDNN_STATUS_SUCCESS
                                             : CUDNN_STATUS_EXECUTION_FAILED;
}

struct Add {
  struct cudnnTensorStruct a, c;
  float alpha, beta;
  const float *A;
  float *C;
};

static void runAdd(void *context) {
  struct Add *add = context;
  const struct cudnnTensorStruct *a = &add->a, *c = &add->c;
  for (int n = 0; n < c->n; ++n)
    for (int ch = 0; ch < c->c; ++ch)
      for (int h = 0; h < c->h; ++h)
        for (int w = 0; w < c->w; ++w) {
          /* A broadcasts along its dims of 1. */
          size_t ia = tensorIndex(a, a->n == 1 ? 0 : n, a->c == 1 ? 0 : ch,
                                  a->h == 1 ? 0 : h, a->w == 1 ? 0 : w);
          size_t ic = tensorIndex(c, n, ch, h, w);
          float v = add->alpha * add->A[ia];
          if (add->beta != 0)
            v += add->beta * add->C[ic];
          add->C[ic] = v;
        }
}

#ifdef MOCK_INCOMPLETE
__attribute__((visibility("hidden")))
#endif
cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha,
                             cudnnTensorDescriptor_t aDesc, const void *A,
                             const void *beta, cudnnTensorDescriptor_t cDesc,
                             void *C) {
  FAIL_IF_ASKED("cudnnAddTensor");
  if (!handle || !alpha || !beta || !aDesc || !A || !cDesc || !C)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!aDesc->set || !cDesc->set ||
      (aDesc->n != cDesc->n && aDesc->n != 1) ||
      (aDesc->c != cDesc->c && aDesc->c != 1) ||
      (aDesc->h != cDesc->h && aDesc->h != 1) ||
      (aDesc->w != cDesc->w && aDesc->w != 1))
    return CUDNN_STATUS_BAD_PARAM;
  struct Add *add = malloc(sizeof(*add));
  if (!add)
    return CUDNN_STATUS_INTERNAL_ERROR;
  *add = (struct Add){*aDesc, *cDesc, 0, 0, A, C};
  memcpy(&add->alpha, alpha, sizeof(float));
  memcpy(&add->beta, beta, sizeof(float));
  if (!inDeviceMemory("cudnnAddTensor", "A", A, elements(aDesc) * 4) ||
      !inDeviceMemory("cudnnAddTensor", "C", C, elements(cDesc) * 4)) {
    free(add);
    return CUDNN_STATUS_EXECUTION_FAILED;
  }
  trace("cudnnAddTensor%s: A %dx%dx%dx%d to C %dx%dx%dx%d, alpha %g, beta %g",
        capturing(handle->stream) ? " (captured)" : "", aDesc->n, aDesc->c,
        aDesc->h, aDesc->w, cDesc->n, cDesc->c, cDesc->h, cDesc->w,
        add->alpha, add->beta);
  return enqueue(handle->stream, runAdd, add) ? CUDNN_STATUS_SUCCESS
                                              : CUDNN_STATUS_EXECUTION_FAILED;
}

struct Activation {
  struct cudnnTensorStruct x;
  int relu;
  float alpha, beta;
  const float *X;
  float *Y;
};

static void runActivation(void *context) {
  struct Activation *a = context;
  for (size_t i = 0; i < elements(&a->x); ++i) {
    float v = a->X[i];
    if (a->relu && !(v >= 0))
      v = v != v ? v : 0;
    v *= a->alpha;
    if (a->beta != 0)
      v += a->beta * a->Y[i];
    a->Y[i] = v;
  }
}

cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle,
                                     cudnnActivationDescriptor_t desc,
                                     const void *alpha,
                                     cudnnTensorDescriptor_t xDesc,
                                     const void *x, const void *beta,
                                     cudnnTensorDescriptor_t yDesc, void *y) {
  FAIL_IF_ASKED("cudnnActivationForward");
  if (!handle || !desc || !alpha || !beta || !xDesc || !x || !yDesc || !y)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!desc->set || !xDesc->set || !yDesc->set || !sameShape(xDesc, yDesc))
    return CUDNN_STATUS_BAD_PARAM;
  if (desc->mode == CUDNN_ACTIVATION_IDENTITY)
    return CUDNN_STATUS_BAD_PARAM; /* As documented: not for this call. */
  struct Activation *a = malloc(sizeof(*a));
  if (!a)
    return CUDNN_STATUS_INTERNAL_ERROR;
  *a = (struct Activation){*xDesc, desc->mode == CUDNN_ACTIVATION_RELU, 0, 0,
                           x, y};
  memcpy(&a->alpha, alpha, sizeof(float));
  memcpy(&a->beta, beta, sizeof(float));
  if (!inDeviceMemory("cudnnActivationForward", "x", x, elements(xDesc) * 4) ||
      !inDeviceMemory("cudnnActivationForward", "y", y, elements(yDesc) * 4)) {
    free(a);
    return CUDNN_STATUS_EXECUTION_FAILED;
  }
  trace("cudnnActivationForward%s: %dx%dx%dx%d, %s, alpha %g, beta %g",
        capturing(handle->stream) ? " (captured)" : "", xDesc->n, xDesc->c,
        xDesc->h, xDesc->w, a->relu ? "relu" : "?", a->alpha, a->beta);
  return enqueue(handle->stream, runActivation, a)
             ? CUDNN_STATUS_SUCCESS
             : CUDNN_STATUS_EXECUTION_FAILED;
}

#endif
