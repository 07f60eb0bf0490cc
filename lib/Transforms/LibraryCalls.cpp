//===- LibraryCalls.cpp - Contractions that a vendor library computes -----===//

#include "fuse/Transforms/LibraryCalls.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fuse;

/// The static f32 shape of `v`, or nullopt.
static std::optional<ArrayRef<int64_t>> getF32Shape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  return type.getShape();
}

static int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Whether `shape` is `size` along its last dim and 1 everywhere else.
static bool isVectorAlongLast(ArrayRef<int64_t> shape, int64_t size) {
  if (shape.empty() || shape.back() != size)
    return false;
  return llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; });
}

/// Whether `shape` is [K, 1, 1] or [1, K, 1, 1]: one value per channel of
/// an NCHW result.
static bool isChannelVector(ArrayRef<int64_t> shape, int64_t channels) {
  if (shape.size() == 4 && shape[0] != 1)
    return false;
  if (shape.size() != 3 && shape.size() != 4)
    return false;
  ArrayRef<int64_t> chw = shape.take_back(3);
  return chw[0] == channels && chw[1] == 1 && chw[2] == 1;
}

static bool isBuffer(Value v) { return v && isa<BlockArgument>(v); }

static bool matchMatMul(ONNXMatMulOp op, LibraryCall &call) {
  std::optional<ArrayRef<int64_t>> a = getF32Shape(op.getA()),
                                   b = getF32Shape(op.getB());
  if (!a || !b || a->size() < 2 || b->size() < 2 ||
      !getF32Shape(op.getResult()))
    return false;
  artifact::MatmulParams &p = call.matmul;
  int64_t m = (*a)[a->size() - 2], k = a->back(), n = b->back();
  if ((*b)[b->size() - 2] != k)
    return false;
  p.k = k;
  p.n = n;
  p.lda = k;
  p.ldb = n;
  if (b->size() == 2) {
    // A's batch dims fold into M: its rows are contiguous.
    p.batch = 1;
    p.m = product(a->drop_back());
  } else {
    SmallVector<int64_t> batchA(a->drop_back(2)), batchB(b->drop_back(2));
    size_t rank = std::max(batchA.size(), batchB.size());
    batchA.insert(batchA.begin(), rank - batchA.size(), 1);
    batchB.insert(batchB.begin(), rank - batchB.size(), 1);
    auto ones = [](ArrayRef<int64_t> dims) {
      return llvm::all_of(dims, [](int64_t d) { return d == 1; });
    };
    p.m = m;
    if (batchA == batchB) {
      p.batch = product(batchA);
      p.strideA = m * k;
      p.strideB = k * n;
    } else if (ones(batchB)) {
      p.batch = product(batchA);
      p.strideA = m * k;
    } else if (ones(batchA)) {
      p.batch = product(batchB);
      p.strideB = k * n;
    } else {
      return false; // A broadcast the strides cannot express.
    }
  }
  call.operands = {op.getA(), op.getB()};
  return true;
}

static bool matchGemm(ONNXGemmOp op, LibraryCall &call, Value &bias,
                      Value &residual) {
  std::optional<ArrayRef<int64_t>> a = getF32Shape(op.getA()),
                                   b = getF32Shape(op.getB()),
                                   y = getF32Shape(op.getResult());
  if (!a || !b || !y || a->size() != 2 || b->size() != 2)
    return false;
  artifact::MatmulParams &p = call.matmul;
  p.transA = op.getTransA() != 0;
  p.transB = op.getTransB() != 0;
  p.m = (*y)[0];
  p.n = (*y)[1];
  p.k = p.transA ? (*a)[0] : (*a)[1];
  p.lda = (*a)[1];
  p.ldb = (*b)[1];
  p.alpha = op.getAlpha().convertToFloat();
  call.operands = {op.getA(), op.getB()};
  if (Value c = op.getC()) {
    std::optional<ArrayRef<int64_t>> shape = getF32Shape(c);
    if (!shape || !isBuffer(c))
      return false;
    float beta = op.getBeta().convertToFloat();
    if (isVectorAlongLast(*shape, p.n) && beta == 1.0f) {
      bias = c;
    } else if (*shape == *y) {
      residual = c;
      p.beta = beta;
    } else {
      return false;
    }
  }
  return true;
}

static bool matchConv(ONNXConvOp op, const LibraryOptions &options,
                      LibraryCall &call, Value &bias) {
  std::optional<ArrayRef<int64_t>> x = getF32Shape(op.getX()),
                                   w = getF32Shape(op.getW()),
                                   y = getF32Shape(op.getResult());
  if (!x || !w || !y || x->size() != 4 || w->size() != 4)
    return false;
  WindowParams window;
  window.kernel.assign(w->begin() + 2, w->end());
  if (auto s = op.getStrides())
    window.strides.assign(s->begin(), s->end());
  if (auto d = op.getDilations())
    window.dilations.assign(d->begin(), d->end());
  if (auto pads = op.getPads())
    window.pads.assign(pads->begin(), pads->end());
  window.autoPad = op.getAutoPad().str();
  std::string error;
  if (failed(normalizeWindowParams(window, 2, error)))
    return false;
  SmallVector<int64_t> pads =
      resolveWindowPads(x->drop_front(2), window);
  if (pads[0] != pads[2] || pads[1] != pads[3])
    return false; // cuDNN pads both sides alike.
  artifact::ConvParams &p = call.conv;
  p.n = (*x)[0];
  p.c = (*x)[1];
  p.h = (*x)[2];
  p.w = (*x)[3];
  p.k = (*w)[0];
  p.r = (*w)[2];
  p.s = (*w)[3];
  p.outH = (*y)[2];
  p.outW = (*y)[3];
  p.padH = pads[0];
  p.padW = pads[1];
  p.strideH = window.strides[0];
  p.strideW = window.strides[1];
  p.dilationH = window.dilations[0];
  p.dilationW = window.dilations[1];
  p.groups = op.getGroup();
  if (p.groups < 1 || p.c % p.groups != 0 || (*w)[1] != p.c / p.groups)
    return false;
  bool depthwise = p.groups > 1 && p.groups == p.c;
  if (depthwise && !options.depthwiseConv)
    return false;
  call.operands = {op.getX(), op.getW()};
  if (Value b = op.getB()) {
    std::optional<ArrayRef<int64_t>> shape = getF32Shape(b);
    if (!shape || shape->size() != 1 || (*shape)[0] != p.k)
      return false;
    bias = b;
  }
  return true;
}

std::optional<LibraryCall>
fuse::matchLibraryCall(Operation *contraction, const LibraryOptions &options) {
  LibraryCall call;
  call.contraction = contraction;
  Value bias, residual;
  bool matched = false;
  if (auto matmul = dyn_cast<ONNXMatMulOp>(contraction)) {
    call.library = Library::CublasLt;
    matched = matchMatMul(matmul, call);
  } else if (auto gemm = dyn_cast<ONNXGemmOp>(contraction)) {
    call.library = Library::CublasLt;
    matched = matchGemm(gemm, call, bias, residual);
  } else if (auto conv = dyn_cast<ONNXConvOp>(contraction)) {
    call.library = Library::Cudnn;
    matched = matchConv(conv, options, call, bias);
  }
  if (!matched || !llvm::all_of(call.operands, isBuffer))
    return std::nullopt;

  // The chain after the contraction: bias and residual Adds in any order,
  // then a ReLU; each value used once, by the next op.
  call.ops.push_back(contraction);
  Value current = contraction->getResult(0);
  ArrayRef<int64_t> shape = *getF32Shape(current);
  bool relu = false;
  while (!relu && current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (user->getBlock() != contraction->getBlock() ||
        user->getNumResults() != 1 ||
        user->getResult(0).getType() != current.getType())
      break;
    if (isa<ONNXReluOp>(user)) {
      relu = true;
    } else if (auto add = dyn_cast<ONNXAddOp>(user)) {
      if (add.getA() == add.getB())
        break;
      Value other = add.getA() == current ? add.getB() : add.getA();
      std::optional<ArrayRef<int64_t>> otherShape = getF32Shape(other);
      if (!otherShape || !isBuffer(other))
        break;
      bool biasShaped = call.library == Library::CublasLt
                            ? isVectorAlongLast(*otherShape, call.matmul.n)
                            : isChannelVector(*otherShape, call.conv.k);
      if (biasShaped && !bias)
        bias = other;
      else if (*otherShape == shape && !residual)
        residual = other;
      else
        break;
    } else {
      break;
    }
    call.ops.push_back(user);
    current = user->getResult(0);
  }
  call.result = current;

  if (call.library == Library::CublasLt) {
    artifact::MatmulParams &p = call.matmul;
    using artifact::MatmulEpilogue;
    p.epilogue = uint32_t(bias ? (relu ? MatmulEpilogue::BiasRelu
                                       : MatmulEpilogue::Bias)
                               : (relu ? MatmulEpilogue::Relu
                                       : MatmulEpilogue::None));
    p.hasResidual = residual ? 1 : 0;
    if (residual && !isa<ONNXGemmOp>(contraction))
      p.beta = 1.0f;
  } else {
    artifact::ConvParams &p = call.conv;
    p.activation = uint32_t(relu ? artifact::ConvActivation::Relu
                                 : artifact::ConvActivation::Identity);
    p.hasResidual = residual ? 1 : 0;
    // cuDNN's fused call always adds a bias: zeros when there is none.
    p.hasBias = bias || relu || residual ? 1 : 0;
  }
  bool hasBias = call.library == Library::CublasLt
                     ? call.matmul.epilogue & 1
                     : call.conv.hasBias;
  if (hasBias)
    call.operands.push_back(bias); // Null: zeros (conv only).
  if (residual)
    call.operands.push_back(residual);
  return call;
}

std::string fuse::describeLibraryCall(const LibraryCall &call) {
  std::string text;
  if (call.library == Library::CublasLt) {
    const artifact::MatmulParams &p = call.matmul;
    text = "cublaslt matmul";
    if (p.epilogue & 1)
      text += "+bias";
    if (p.hasResidual)
      text += "+residual";
    if (p.epilogue & 2)
      text += "+relu";
  } else {
    const artifact::ConvParams &p = call.conv;
    text = "cudnn conv";
    if (p.hasBias)
      text += "+bias";
    if (p.hasResidual)
      text += "+residual";
    if (p.activation)
      text += "+relu";
  }
  return text;
}
