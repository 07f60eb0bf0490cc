//===- LibraryCalls.cpp - cuBLASLt and cuDNN launches ---------------------===//
//
// Matmuls: fuse's tensors are row-major and cuBLASLt's matrices
// column-major. A row-major M x N matrix is a column-major N x M one, so
// the call computes D^T = op(B)^T op(A)^T: cuBLASLt's (m, n, k) is fuse's
// (n, m, k), its first operand is B and its second A, each transposed
// exactly when fuse's is. The bias, one value per column of fuse's D, is
// then one per row of cuBLASLt's, as its epilogues expect. The algorithm
// is the fastest of the heuristic's first eight, timed as the call runs.
//
// Types: float16 and bfloat16 operands are multiplied on tensor cores with
// float32 sums (cuBLASLt's CUBLAS_COMPUTE_32F, cuDNN's float convolution
// type with tensor-op math); float32 operands with FMAs (no TF32) unless
// the call asks for TF32 (CUBLAS_COMPUTE_32F_FAST_TF32, cuDNN's default
// math). alpha and beta are float32 scalars throughout.
//
// Convolutions: descriptors for NCHW, or NHWC with [k, r, s, c] filters,
// in the call's data type. The
// candidates are the algorithms cudnnFindConvolutionForwardAlgorithmEx
// finds whose workspace fits; since it times the bare convolution, and the
// fused call may run otherwise (seen on the H100: the algorithm it ranks
// first for a 1x1 conv ran 3.5x slower in the fused call than PyTorch's
// choice), each candidate is timed as the call fuse makes (four calls
// captured in a CUDA graph, as the plan runs them; the three fastest timed
// again, since one timing at load is noisy), and the fastest kept, once per
// distinct shape in a model: cudnnConvolutionBiasActivationForward (bias,
// residual and ReLU in one call; without ReLU it only runs the implicit
// precomputed GEMM algorithm), or cudnnConvolutionForward followed by
// cudnnAddTensor (bias, residual) and cudnnActivationForward (ReLU).
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"
#include "Error.h"

#include <algorithm>
#include <functional>
#include <tuple>

namespace fuse {
namespace runtime {

using namespace fuse::artifact;

namespace {

bool contains(const std::vector<int> &v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void *ptr(CUdeviceptr p) { return reinterpret_cast<void *>(uintptr_t(p)); }

/// cuBLASLt's cudaDataType_t for a library float DType (the reader has
/// checked it is one).
int cudaDataType(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float16:
    return CUDA_R_16F;
  case DType::BFloat16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

/// cuDNN's cudnnDataType_t for a library float DType.
int cudnnDataType(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float16:
    return CUDNN_DATA_HALF;
  case DType::BFloat16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

/// Times `call`, in ms, as a plan runs it: four calls captured in one CUDA
/// graph, the median of five replays (after one to warm up), per call.
/// Timed from the stream instead, each library call's host time (several
/// us) hid the difference between candidates. One call runs first outside
/// the capture (what a library sets up on a first call need not be
/// capturable). Fails when the calls cannot be captured: the plan's graph
/// could not run them either.
fuse_status timeInGraph(const CallContext &context, const std::string &what,
                        LibraryCall &call, float &ms) {
  const CudaDriver &cu = *context.cu;
  constexpr int kCalls = 4, kSamples = 5;
  std::string timing = what + ": timing";
  if (fuse_status s = call.enqueue(context.stream))
    return s;
  if (fuse_status s = cu.check(cu.cuStreamSynchronize(context.stream),
                               timing + " (cuStreamSynchronize)"))
    return s;
  if (fuse_status s =
          cu.check(cu.cuStreamBeginCapture(context.stream,
                                           CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                   timing + " (cuStreamBeginCapture)"))
    return s;
  fuse_status s = FUSE_OK;
  for (int c = 0; c < kCalls && !s; ++c)
    s = call.enqueue(context.stream);
  CUgraphExec exec = nullptr;
  if (fuse_status ended = cu.endCapture(context.stream, s, timing, exec))
    return ended;
  std::vector<float> times;
  for (int i = -1; i < kSamples && !s; ++i) {
    float t = 0;
    s = cu.timeGraph(context.stream, context.start, context.stop, exec, timing,
                     t);
    if (!s && i >= 0)
      times.push_back(t / kCalls);
  }
  cu.cuGraphExecDestroy(exec);
  if (s)
    return s;
  std::sort(times.begin(), times.end());
  ms = times[kSamples / 2];
  return FUSE_OK;
}

/// The key under which a call's choice is shared by the calls of the same
/// parameters and workspace in a model.
template <class Params>
std::string choiceKey(Params params, uint64_t workspaceBytes) {
  std::vector<uint8_t> bytes = artifact::encode(params);
  return std::string(bytes.begin(), bytes.end()) +
         std::to_string(workspaceBytes);
}

/// The fastest of `count` ways to run a call: `select(i)` makes way i the
/// call's, which is then timed (timeInGraph); the three fastest are timed
/// again, since one timing at load is noisy. Leaves the fastest selected.
/// A way that fails (or cannot be captured) is no option; when none runs,
/// the first failure is the error.
fuse_status chooseFastest(const CallContext &context, const std::string &what,
                          LibraryCall &call, size_t count,
                          const std::function<void(size_t)> &select) {
  struct Option {
    size_t index;
    float ms;
  };
  std::vector<Option> options;
  fuse_status firstFailure = FUSE_OK;
  std::string firstMessage;
  for (size_t i = 0; i < count; ++i) {
    Option option{i, 0};
    select(i);
    if (fuse_status s = timeInGraph(context, what, call, option.ms)) {
      if (!firstFailure) {
        firstFailure = s;
        firstMessage = fuse_last_error();
      }
      continue;
    }
    options.push_back(option);
  }
  if (options.empty())
    return fail(firstFailure, "%s", firstMessage.c_str());
  std::sort(options.begin(), options.end(),
            [](const Option &a, const Option &b) { return a.ms < b.ms; });
  options.resize(std::min<size_t>(options.size(), 3));
  for (Option &option : options) {
    select(option.index);
    if (fuse_status s = timeInGraph(context, what, call, option.ms))
      return s;
  }
  select(std::min_element(
             options.begin(), options.end(),
             [](const Option &a, const Option &b) { return a.ms < b.ms; })
             ->index);
  return FUSE_OK;
}

class MatmulCall : public LibraryCall {
public:
  explicit MatmulCall(const CublasLt &lt) : lt(lt) {}
  ~MatmulCall() override {
    // Teardown errors are ignored: nobody is left to report them to.
    for (cublasLtMatrixLayout_t layout : {a, b, c, d})
      if (layout)
        lt.cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      lt.cublasLtMatmulDescDestroy(desc);
    if (preference)
      lt.cublasLtMatmulPreferenceDestroy(preference);
  }

  fuse_status prepare(cublasLtHandle_t h, const CallContext &context,
                      const MatmulParams &p,
                      const std::vector<CUdeviceptr> &pointers, CUdeviceptr ws,
                      uint64_t wsBytes) {
    const std::string &where = context.where;
    handle = h;
    workspace = ws;
    workspaceBytes = wsBytes;
    alpha = p.alpha;
    beta = p.hasResidual ? p.beta : 0.0f;
    bool hasBias = p.epilogue == uint32_t(MatmulEpilogue::Bias) ||
                   p.epilogue == uint32_t(MatmulEpilogue::BiasRelu);
    size_t next = 0;
    pointerA = pointers[next++];
    pointerB = pointers[next++];
    CUdeviceptr bias = hasBias ? pointers[next++] : 0;
    pointerC = p.hasResidual ? pointers[next++] : 0;
    pointerD = pointers[next++];
    if (!p.hasResidual)
      pointerC = pointerD; // Not read (beta is 0), but must be valid.

    auto check = [&](cublasStatus_t status, const char *what) {
      return lt.check(status, where + ": " + what);
    };
    int compute = p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (fuse_status s =
            check(lt.cublasLtMatmulDescCreate(&desc, compute, CUDA_R_32F),
                  "cublasLtMatmulDescCreate"))
      return s;
    // cuBLASLt's A is fuse's B and its B is fuse's A (see the top).
    int32_t opA = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    int32_t opB = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    static const uint32_t epilogues[] = {
        CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS,
        CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU_BIAS};
    uint32_t epilogue = epilogues[p.epilogue & 3];
    void *biasPointer = ptr(bias);
    if (fuse_status s = check(
            lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                              &opA, sizeof(opA)),
            "cublasLtMatmulDescSetAttribute (TRANSA)"))
      return s;
    if (fuse_status s = check(
            lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                              &opB, sizeof(opB)),
            "cublasLtMatmulDescSetAttribute (TRANSB)"))
      return s;
    if (fuse_status s = check(lt.cublasLtMatmulDescSetAttribute(
                                  desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                  &epilogue, sizeof(epilogue)),
                              "cublasLtMatmulDescSetAttribute (EPILOGUE)"))
      return s;
    if (hasBias)
      if (fuse_status s = check(lt.cublasLtMatmulDescSetAttribute(
                                    desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                    &biasPointer, sizeof(biasPointer)),
                                "cublasLtMatmulDescSetAttribute (BIAS_POINTER)"))
        return s;

    // Layouts, column-major: cuBLASLt's A is B's storage, its B is A's.
    uint64_t rowsA = p.transB ? p.k : p.n, colsA = p.transB ? p.n : p.k;
    uint64_t rowsB = p.transA ? p.m : p.k, colsB = p.transA ? p.k : p.m;
    int input = cudaDataType(p.inputType), output = cudaDataType(p.outputType);
    struct Layout {
      cublasLtMatrixLayout_t *layout;
      int type;
      uint64_t rows, cols;
      int64_t ld, stride;
      const char *name;
    } layouts[] = {
        {&a, input, rowsA, colsA, p.ldb, p.strideB, "B"},
        {&b, input, rowsB, colsB, p.lda, p.strideA, "A"},
        {&c, output, uint64_t(p.n), uint64_t(p.m), p.n, p.m * p.n, "C"},
        {&d, output, uint64_t(p.n), uint64_t(p.m), p.n, p.m * p.n, "D"},
    };
    int32_t batch = static_cast<int32_t>(p.batch);
    for (Layout &l : layouts) {
      std::string what = std::string("cublasLtMatrixLayoutCreate (") +
                         l.name + ")";
      if (fuse_status s = check(lt.cublasLtMatrixLayoutCreate(
                                    l.layout, l.type, l.rows, l.cols, l.ld),
                                what.c_str()))
        return s;
      if (p.batch > 1) {
        if (fuse_status s = check(
                lt.cublasLtMatrixLayoutSetAttribute(
                    *l.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                    sizeof(batch)),
                (std::string("cublasLtMatrixLayoutSetAttribute (BATCH_COUNT "
                             "of ") +
                 l.name + ")")
                    .c_str()))
          return s;
        if (fuse_status s = check(
                lt.cublasLtMatrixLayoutSetAttribute(
                    *l.layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                    &l.stride, sizeof(l.stride)),
                (std::string("cublasLtMatrixLayoutSetAttribute "
                             "(STRIDED_BATCH_OFFSET of ") +
                 l.name + ")")
                    .c_str()))
          return s;
      }
    }

    if (fuse_status s = check(lt.cublasLtMatmulPreferenceCreate(&preference),
                              "cublasLtMatmulPreferenceCreate"))
      return s;
    uint64_t maxWorkspace = workspaceBytes;
    if (fuse_status s = check(lt.cublasLtMatmulPreferenceSetAttribute(
                                  preference,
                                  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                  &maxWorkspace, sizeof(maxWorkspace)),
                              "cublasLtMatmulPreferenceSetAttribute (MAX_WORKSPACE_BYTES)"))
      return s;
    what = where;
    // Matmuls of the same shape (a transformer's layers repeat) run alike.
    std::string shape;
    if (context.matmulChoices) {
      shape = choiceKey(p, workspaceBytes);
      auto it = context.matmulChoices->find(shape);
      if (it != context.matmulChoices->end()) {
        algo = it->second;
        return FUSE_OK;
      }
    }
    // cuBLASLt's first heuristic pick is not always its fastest algorithm
    // for the call (docs/design.md): with a context to time in, its first
    // few results are timed as the call runs and the fastest kept.
    constexpr int kCandidates = 8;
    cublasLtMatmulHeuristicResult_t results[kCandidates] = {};
    int found = 0;
    if (fuse_status s =
            check(lt.cublasLtMatmulAlgoGetHeuristic(
                      handle, desc, a, b, c, d, preference,
                      context.matmulChoices ? kCandidates : 1, results, &found),
                  "cublasLtMatmulAlgoGetHeuristic"))
      return s;
    std::vector<cublasLtMatmulAlgo_t> candidates;
    for (int i = 0; i < std::min(found, kCandidates); ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS &&
          results[i].workspaceSize <= workspaceBytes)
        candidates.push_back(results[i].algo);
    // The heuristic offers few split-K configurations; for short products
    // (a transformer's at batch 1) splitting the reduction of one of its
    // first picks is sometimes faster (docs/log/2026-11-28.md): the first
    // three again with 2 and 4 slices, where cuBLASLt accepts them.
    if (context.matmulChoices) {
      size_t picks = std::min<size_t>(candidates.size(), 3);
      for (size_t i = 0; i < picks; ++i)
        for (int32_t slices : {2, 4}) {
          cublasLtMatmulAlgo_t split = candidates[i];
          uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
          cublasLtMatmulHeuristicResult_t checked = {};
          if (lt.cublasLtMatmulAlgoConfigSetAttribute(
                  &split, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &slices,
                  sizeof(slices)) == CUBLAS_STATUS_SUCCESS &&
              lt.cublasLtMatmulAlgoConfigSetAttribute(
                  &split, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
                  sizeof(scheme)) == CUBLAS_STATUS_SUCCESS &&
              lt.cublasLtMatmulAlgoCheck(handle, desc, a, b, c, d, &split,
                                         &checked) == CUBLAS_STATUS_SUCCESS &&
              checked.workspaceSize <= workspaceBytes)
            candidates.push_back(split);
        }
    }
    if (candidates.empty())
      return fail(FUSE_ERROR_DEVICE,
                  "cublaslt: %s: no algorithm for this matmul "
                  "(%lldx%lldx%lld, batch %lld, %llu workspace bytes)",
                  where.c_str(), (long long)p.m, (long long)p.n,
                  (long long)p.k, (long long)p.batch,
                  (unsigned long long)workspaceBytes);
    algo = candidates.front();
    if (candidates.size() > 1)
      if (fuse_status s =
              chooseFastest(context, what, *this, candidates.size(),
                            [&](size_t i) { algo = candidates[i]; }))
        return s;
    if (context.matmulChoices)
      (*context.matmulChoices)[shape] = algo;
    return FUSE_OK;
  }

  fuse_status enqueue(CUstream stream) override {
    return lt.check(lt.cublasLtMatmul(handle, desc, &alpha, ptr(pointerB), a,
                                      ptr(pointerA), b, &beta, ptr(pointerC),
                                      c, ptr(pointerD), d, &algo,
                                      ptr(workspace), workspaceBytes, stream),
                    what + ": cublasLtMatmul");
  }

private:
  const CublasLt &lt;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulAlgo_t algo{};
  float alpha = 1, beta = 0;
  CUdeviceptr pointerA = 0, pointerB = 0, pointerC = 0, pointerD = 0;
  CUdeviceptr workspace = 0;
  uint64_t workspaceBytes = 0;
  std::string what;
};

class ConvCall : public LibraryCall {
public:
  explicit ConvCall(const Cudnn &dnn) : dnn(dnn) {}
  ~ConvCall() override {
    for (cudnnTensorDescriptor_t t : {x, y, bias})
      if (t)
        dnn.cudnnDestroyTensorDescriptor(t);
    if (w)
      dnn.cudnnDestroyFilterDescriptor(w);
    if (conv)
      dnn.cudnnDestroyConvolutionDescriptor(conv);
    if (activation)
      dnn.cudnnDestroyActivationDescriptor(activation);
  }

  fuse_status prepare(cudnnHandle_t h, const CallContext &context,
                      const ConvParams &p,
                      const std::vector<CUdeviceptr> &pointers, CUdeviceptr ws,
                      uint64_t wsBytes) {
    handle = h;
    what = context.where;
    workspace = ws;
    workspaceBytes = wsBytes;
    alpha = p.alpha;
    size_t next = 0;
    pointerX = pointers[next++];
    pointerW = pointers[next++];
    pointerBias = p.hasBias ? pointers[next++] : 0;
    pointerZ = p.hasResidual ? pointers[next++] : 0;
    pointerY = pointers[next++];

    auto check = [&](cudnnStatus_t status, const char *call) {
      return dnn.check(status, what + ": " + call);
    };
    auto i = [](int64_t v) { return static_cast<int>(v); };
    relu = p.activation == uint32_t(ConvActivation::Relu);
    bool needsActivation = p.hasBias || p.hasResidual || relu;
    int type = cudnnDataType(p.dataType);
    // Half data on tensor cores; float32 with FMAs unless TF32 is asked for
    // (cuDNN's default math allows it).
    bool half = p.dataType != uint32_t(DType::Float32);
    // NHWC: X and Y channels-last, the filters [k, r, s, c] (cuDNN's NHWC
    // filter format); the descriptors still take their sizes as n, c, h, w.
    int format = p.layout == uint32_t(ConvLayout::Nhwc) ? CUDNN_TENSOR_NHWC
                                                        : CUDNN_TENSOR_NCHW;
    mathType = half ? CUDNN_TENSOR_OP_MATH
                    : (p.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH);
    // Each step runs only if the ones before it succeeded.
    std::pair<std::function<cudnnStatus_t()>, const char *> steps[] = {
        {[&] { return dnn.cudnnCreateTensorDescriptor(&x); },
         "cudnnCreateTensorDescriptor (X)"},
        {[&] {
           return dnn.cudnnSetTensor4dDescriptor(x, format, type, i(p.n),
                                                 i(p.c), i(p.h), i(p.w));
         },
         "cudnnSetTensor4dDescriptor (X)"},
        {[&] { return dnn.cudnnCreateTensorDescriptor(&y); },
         "cudnnCreateTensorDescriptor (Y)"},
        {[&] {
           return dnn.cudnnSetTensor4dDescriptor(y, format, type, i(p.n),
                                                 i(p.k), i(p.outH), i(p.outW));
         },
         "cudnnSetTensor4dDescriptor (Y)"},
        {[&] { return dnn.cudnnCreateFilterDescriptor(&w); },
         "cudnnCreateFilterDescriptor (W)"},
        {[&] {
           return dnn.cudnnSetFilter4dDescriptor(
               w, type, format, i(p.k), i(p.c / p.groups), i(p.r), i(p.s));
         },
         "cudnnSetFilter4dDescriptor (W)"},
        {[&] { return dnn.cudnnCreateConvolutionDescriptor(&conv); },
         "cudnnCreateConvolutionDescriptor"},
        {[&] {
           return dnn.cudnnSetConvolution2dDescriptor(
               conv, i(p.padH), i(p.padW), i(p.strideH), i(p.strideW),
               i(p.dilationH), i(p.dilationW), CUDNN_CROSS_CORRELATION,
               CUDNN_DATA_FLOAT);
         },
         "cudnnSetConvolution2dDescriptor"},
        {[&] { return dnn.cudnnSetConvolutionGroupCount(conv, i(p.groups)); },
         "cudnnSetConvolutionGroupCount"},
        {[&] { return dnn.cudnnSetConvolutionMathType(conv, mathType); },
         "cudnnSetConvolutionMathType"},
        {[&] {
           return p.hasBias ? dnn.cudnnCreateTensorDescriptor(&bias)
                            : CUDNN_STATUS_SUCCESS;
         },
         "cudnnCreateTensorDescriptor (bias)"},
        {[&] {
           return p.hasBias
                      ? dnn.cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW,
                                                       type, 1, i(p.k), 1, 1)
                      : CUDNN_STATUS_SUCCESS;
         },
         "cudnnSetTensor4dDescriptor (bias)"},
        {[&] {
           return needsActivation
                      ? dnn.cudnnCreateActivationDescriptor(&activation)
                      : CUDNN_STATUS_SUCCESS;
         },
         "cudnnCreateActivationDescriptor"},
        {[&] {
           return needsActivation
                      ? dnn.cudnnSetActivationDescriptor(
                            activation,
                            relu ? CUDNN_ACTIVATION_RELU
                                 : CUDNN_ACTIVATION_IDENTITY,
                            CUDNN_PROPAGATE_NAN, 0.0)
                      : CUDNN_STATUS_SUCCESS;
         },
         "cudnnSetActivationDescriptor"},
    };
    for (auto &[step, name] : steps)
      if (fuse_status s = check(step(), name))
        return s;
    // Convolutions of the same shape (ResNet's blocks repeat) run alike.
    std::string shape = choiceKey(p, workspaceBytes);
    if (context.convChoices) {
      auto it = context.convChoices->find(shape);
      if (it != context.convChoices->end()) {
        std::tie(fused, algo) = it->second;
        return FUSE_OK;
      }
    }
    if (fuse_status s = chooseAlgorithm(context, p))
      return s;
    if (context.convChoices)
      (*context.convChoices)[shape] = {fused, algo};
    return FUSE_OK;
  }

  fuse_status enqueue(CUstream) override {
    // The handle's stream is the plan's stream (set at load).
    float zero = 0, one = 1;
    if (fused) {
      const void *z = pointerZ ? ptr(pointerZ) : ptr(pointerY);
      float alpha2 = pointerZ ? 1.0f : 0.0f;
      return dnn.check(
          dnn.cudnnConvolutionBiasActivationForward(
              handle, &alpha, x, ptr(pointerX), w, ptr(pointerW), conv, algo,
              ptr(workspace), workspaceBytes, &alpha2, y, z, bias,
              ptr(pointerBias), activation, y, ptr(pointerY)),
          what + ": cudnnConvolutionBiasActivationForward");
    }
    if (fuse_status s = dnn.check(
            dnn.cudnnConvolutionForward(handle, &alpha, x, ptr(pointerX), w,
                                        ptr(pointerW), conv, algo,
                                        ptr(workspace), workspaceBytes, &zero,
                                        y, ptr(pointerY)),
            what + ": cudnnConvolutionForward"))
      return s;
    if (pointerBias)
      if (fuse_status s = dnn.check(
              dnn.cudnnAddTensor(handle, &one, bias, ptr(pointerBias), &one, y,
                                 ptr(pointerY)),
              what + ": cudnnAddTensor (bias)"))
        return s;
    if (pointerZ)
      if (fuse_status s = dnn.check(dnn.cudnnAddTensor(handle, &one, y,
                                                       ptr(pointerZ), &one, y,
                                                       ptr(pointerY)),
                                    what + ": cudnnAddTensor (residual)"))
        return s;
    if (relu)
      if (fuse_status s = dnn.check(
              dnn.cudnnActivationForward(handle, activation, &one, y,
                                         ptr(pointerY), &zero, y,
                                         ptr(pointerY)),
              what + ": cudnnActivationForward"))
        return s;
    return FUSE_OK;
  }

private:
  fuse_status chooseAlgorithm(const CallContext &context,
                              const ConvParams &p) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
    int found = 0;
    if (fuse_status s = dnn.check(
            dnn.cudnnFindConvolutionForwardAlgorithmEx(
                handle, x, ptr(pointerX), w, ptr(pointerW), conv, y,
                ptr(pointerY), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf,
                ptr(workspace), workspaceBytes),
            what + ": cudnnFindConvolutionForwardAlgorithmEx"))
      return s;
    // Only algorithms in the call's math: float32 without TF32 takes no
    // tensor-core one.
    std::vector<int> candidates;
    for (int i = 0; i < found; ++i) {
      const cudnnConvolutionFwdAlgoPerf_t &r = perf[i];
      bool math =
          mathType == CUDNN_FMA_MATH
              ? r.mathType == CUDNN_FMA_MATH || r.mathType == CUDNN_DEFAULT_MATH
              : true;
      if (r.status == CUDNN_STATUS_SUCCESS && r.memory <= workspaceBytes &&
          math && !contains(candidates, r.algo))
        candidates.push_back(r.algo);
    }
    if (candidates.empty())
      return fail(FUSE_ERROR_DEVICE,
                  "cudnn: %s: no %s algorithm for this convolution fits "
                  "its %llu-byte workspace (%d tried)",
                  what.c_str(), dtypeName(p.dataType),
                  (unsigned long long)workspaceBytes, found);
    bool epilogue = p.hasBias || p.hasResidual || relu;
    // Every way to run it: (fused, algorithm).
    std::vector<std::pair<bool, int>> ways;
    for (int candidate : candidates) {
      ways.push_back({false, candidate});
      // Without ReLU the fused call runs only the precomputed GEMM.
      if (epilogue &&
          (relu ||
           candidate == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM))
        ways.push_back({true, candidate});
    }
    return chooseFastest(context, what, *this, ways.size(),
                         [&](size_t i) { std::tie(fused, algo) = ways[i]; });
  }

  const Cudnn &dnn;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t activation = nullptr;
  bool relu = false, fused = false;
  int algo = 0;
  int mathType = CUDNN_FMA_MATH;
  float alpha = 1;
  CUdeviceptr pointerX = 0, pointerW = 0, pointerBias = 0, pointerZ = 0,
              pointerY = 0, workspace = 0;
  uint64_t workspaceBytes = 0;
  std::string what;
};

} // namespace

fuse_status prepareMatmul(const CublasLt &library, cublasLtHandle_t handle,
                          const CallContext &context,
                          const MatmulParams &params,
                          const std::vector<CUdeviceptr> &pointers,
                          CUdeviceptr workspace, uint64_t workspaceBytes,
                          std::unique_ptr<LibraryCall> &call) {
  std::unique_ptr<MatmulCall> matmul(new MatmulCall(library));
  if (fuse_status s = matmul->prepare(handle, context, params, pointers,
                                      workspace, workspaceBytes))
    return s;
  call = std::move(matmul);
  return FUSE_OK;
}

fuse_status prepareConv(const Cudnn &library, cudnnHandle_t handle,
                        const CallContext &context, const ConvParams &params,
                        const std::vector<CUdeviceptr> &pointers,
                        CUdeviceptr workspace, uint64_t workspaceBytes,
                        std::unique_ptr<LibraryCall> &call) {
  std::unique_ptr<ConvCall> conv(new ConvCall(library));
  if (fuse_status s = conv->prepare(handle, context, params, pointers,
                                    workspace, workspaceBytes))
    return s;
  call = std::move(conv);
  return FUSE_OK;
}

fuse_status measureMatmul(const CublasLt &library, cublasLtHandle_t handle,
                          const CallContext &context, fuse_math math,
                          CUdeviceptr scratch, CUdeviceptr workspace,
                          uint64_t workspaceBytes, double &gflops) {
  const int64_t n = 4096;
  MatmulParams p;
  p.m = p.n = p.k = n;
  p.lda = p.ldb = n;
  uint64_t elementBytes = 4;
  if (math == FUSE_MATH_FP16 || math == FUSE_MATH_BF16) {
    p.inputType = p.outputType = uint32_t(math == FUSE_MATH_FP16
                                              ? DType::Float16
                                              : DType::BFloat16);
    elementBytes = 2;
  }
  p.tf32 = math == FUSE_MATH_TF32;
  const uint64_t matrix = uint64_t(n) * n * elementBytes;
  std::vector<CUdeviceptr> pointers = {scratch, scratch + matrix,
                                       scratch + 2 * matrix};
  static const char *const names[] = {
      "measuring SGEMM", "measuring a TF32 matmul", "measuring an fp16 matmul",
      "measuring a bf16 matmul"};
  const char *name = names[math];
  MatmulCall call(library);
  CallContext measuring = context;
  measuring.where = name;
  measuring.matmulChoices = nullptr;
  if (fuse_status s = call.prepare(handle, measuring, p, pointers, workspace,
                                   workspaceBytes))
    return s;
  const CudaDriver &cu = *context.cu;
  std::vector<float> times;
  int runs = math == FUSE_MATH_FP32 ? 6 : 21;
  for (int i = 0; i < runs; ++i) {
    float ms = 0;
    if (fuse_status s = cu.check(cu.cuEventRecord(context.start, context.stream), "cuEventRecord"))
      return s;
    if (fuse_status s = call.enqueue(context.stream))
      return s;
    if (fuse_status s = cu.check(cu.cuEventRecord(context.stop, context.stream), "cuEventRecord"))
      return s;
    if (fuse_status s = cu.check(cu.cuEventSynchronize(context.stop), std::string(name) + " (cuEventSynchronize)"))
      return s;
    if (fuse_status s = cu.check(cu.cuEventElapsedTime(&ms, context.start, context.stop), "cuEventElapsedTime"))
      return s;
    if (i > 0)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  double seconds = times[times.size() / 2] * 1e-3;
  gflops = seconds > 0 ? 2.0 * double(n) * n * n / seconds / 1e9 : 0;
  return FUSE_OK;
}

} // namespace runtime
} // namespace fuse
