//===- LibraryCalls.cpp - Contractions that a vendor library computes -----===//

#include "fuse/Transforms/LibraryCalls.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <type_traits>

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

static uint32_t getLibraryDType(Type t) {
  using artifact::DType;
  if (t.isF16())
    return uint32_t(DType::Float16);
  if (t.isBF16())
    return uint32_t(DType::BFloat16);
  return t.isF32() ? uint32_t(DType::Float32) : 0;
}

/// What the call reads for the f32 value `v`: the buffer (block argument)
/// holding it and that buffer's element type, a library DType (0 when `v`
/// is no buffer). The buffer is `v` itself, or the half-precision operand
/// of an onnx.Cast to f32 (a group whose values are stored in half
/// precision widens them when it reads them), which `casts` gets.
static std::pair<Value, uint32_t>
getBuffer(Value v, SmallVectorImpl<Operation *> &casts) {
  if (isBuffer(v))
    return {v, getLibraryDType(getElementTypeOrSelf(v.getType()))};
  auto castOp = v ? v.getDefiningOp<ONNXCastOp>() : ONNXCastOp();
  if (!castOp || !isBuffer(castOp.getInput()) || !castOp->hasOneUse())
    return {Value(), 0};
  Type from = getElementTypeOrSelf(castOp.getInput().getType());
  if (!from.isF16() && !from.isBF16())
    return {Value(), 0};
  casts.push_back(castOp);
  return {castOp.getInput(), getLibraryDType(from)};
}

/// A and B as buffers of one type (MatmulParams::inputType, ConvParams::
/// dataType), or false.
static bool matchInputs(Value a, Value b, LibraryCall &call,
                        SmallVectorImpl<Operation *> &casts,
                        uint32_t &inputType) {
  auto [bufferA, typeA] = getBuffer(a, casts);
  auto [bufferB, typeB] = getBuffer(b, casts);
  if (!bufferA || !bufferB || typeA != typeB)
    return false;
  call.operands = {bufferA, bufferB};
  inputType = typeA;
  return true;
}

static bool matchMatMul(ONNXMatMulOp op, LibraryCall &call,
                        SmallVectorImpl<Operation *> &casts) {
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
  return matchInputs(op.getA(), op.getB(), call, casts, p.inputType);
}

static bool matchGemm(ONNXGemmOp op, LibraryCall &call, Value &bias,
                      Value &residual, SmallVectorImpl<Operation *> &casts) {
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
  if (!matchInputs(op.getA(), op.getB(), call, casts, p.inputType))
    return false;
  if (Value c = op.getC()) {
    std::optional<ArrayRef<int64_t>> shape = getF32Shape(c);
    if (!shape)
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

/// An NhwcConv's filters as cuDNN's NHWC kernels read them: stored [K, R,
/// S, C] and read through a Transpose to [K, C, R, S] (which the call then
/// computes, like a Cast). Null when they are not.
static Value getFiltersLast(ONNXNhwcConvOp op,
                            SmallVectorImpl<Operation *> &casts) {
  ONNXTransposeOp transpose = op.getFiltersLastView();
  if (!transpose)
    return Value();
  casts.push_back(transpose);
  return transpose.getData();
}

/// A Conv (NCHW) or NhwcConv (NHWC, with filters stored [K, R, S, C]).
template <typename ConvOp>
static bool matchConv(ConvOp op, const LibraryOptions &options,
                      LibraryCall &call, Value &bias,
                      SmallVectorImpl<Operation *> &casts) {
  constexpr bool nhwc = std::is_same_v<ConvOp, ONNXNhwcConvOp>;
  Value filters = op.getW();
  if constexpr (nhwc) {
    filters = getFiltersLast(op, casts);
    if (!filters)
      return false;
  }
  std::optional<ArrayRef<int64_t>> x = getF32Shape(op.getX()),
                                   w = getF32Shape(op.getW()),
                                   y = getF32Shape(op.getResult());
  if (!x || !w || !y || x->size() != 4 || w->size() != 4)
    return false;
  // NCHW dims of X and Y.
  SmallVector<int64_t, 4> xd(*x), yd(*y);
  if (nhwc) {
    xd = {(*x)[0], (*x)[3], (*x)[1], (*x)[2]};
    yd = {(*y)[0], (*y)[3], (*y)[1], (*y)[2]};
  }
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
      resolveWindowPads(ArrayRef<int64_t>(xd).drop_front(2), window);
  if (pads[0] != pads[2] || pads[1] != pads[3])
    return false; // cuDNN pads both sides alike.
  artifact::ConvParams &p = call.conv;
  p.n = xd[0];
  p.c = xd[1];
  p.h = xd[2];
  p.w = xd[3];
  p.k = (*w)[0];
  p.r = (*w)[2];
  p.s = (*w)[3];
  p.outH = yd[2];
  p.outW = yd[3];
  p.layout =
      uint32_t(nhwc ? artifact::ConvLayout::Nhwc : artifact::ConvLayout::Nchw);
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
  if (nhwc && p.groups != 1)
    return false; // NHWC calls are for convolutions of one group.
  if (!matchInputs(op.getX(), filters, call, casts, p.dataType))
    return false;
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
  SmallVector<Operation *> casts;
  bool matched = false;
  if (auto matmul = dyn_cast<ONNXMatMulOp>(contraction)) {
    call.library = Library::CublasLt;
    matched = matchMatMul(matmul, call, casts);
  } else if (auto gemm = dyn_cast<ONNXGemmOp>(contraction)) {
    call.library = Library::CublasLt;
    matched = matchGemm(gemm, call, bias, residual, casts);
  } else if (auto conv = dyn_cast<ONNXConvOp>(contraction)) {
    call.library = Library::Cudnn;
    matched = matchConv(conv, options, call, bias, casts);
  } else if (auto nhwcConv = dyn_cast<ONNXNhwcConvOp>(contraction)) {
    call.library = Library::Cudnn;
    matched = matchConv(nhwcConv, options, call, bias, casts);
  }
  if (!matched)
    return std::nullopt;
  bool matmul = call.library == Library::CublasLt;
  uint32_t inputType = matmul ? call.matmul.inputType : call.conv.dataType;
  const uint32_t f32 = uint32_t(artifact::DType::Float32);

  // The chain after the contraction: bias and residual Adds in any order,
  // then a ReLU; each value used once, by the next op. Each Add's other
  // operand is a buffer, whose type is kept to check against the output's.
  struct Link {
    Operation *op;
    Value operand; // the bias or residual buffer; null for a ReLU
    uint32_t type; // its DType
    SmallVector<Operation *> casts;
    bool isBias = false;
  };
  SmallVector<Link> chain;
  Value current = contraction->getResult(0);
  ArrayRef<int64_t> shape = *getF32Shape(current);
  bool relu = false, chainBias = false, chainResidual = false;
  while (!relu && current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (user->getBlock() != contraction->getBlock() ||
        user->getNumResults() != 1 ||
        user->getResult(0).getType() != current.getType())
      break;
    Link link{user, Value(), 0, {}};
    if (isa<ONNXReluOp>(user)) {
      relu = true;
    } else if (auto add = dyn_cast<ONNXAddOp>(user)) {
      if (add.getA() == add.getB())
        break;
      Value other = add.getA() == current ? add.getB() : add.getA();
      std::optional<ArrayRef<int64_t>> otherShape = getF32Shape(other);
      auto [buffer, type] = getBuffer(other, link.casts);
      if (!otherShape || !buffer)
        break;
      bool channelsLast =
          matmul || call.conv.layout == uint32_t(artifact::ConvLayout::Nhwc);
      int64_t channels = matmul ? call.matmul.n : call.conv.k;
      bool biasShaped = channelsLast ? isVectorAlongLast(*otherShape, channels)
                                     : isChannelVector(*otherShape, channels);
      if (biasShaped && !bias && !chainBias)
        link.isBias = chainBias = true;
      else if (*otherShape == shape && !residual && !chainResidual)
        chainResidual = true;
      else
        break;
      link.operand = buffer;
      link.type = type;
    } else {
      break;
    }
    chain.push_back(link);
    current = user->getResult(0);
  }

  // The output's type: f32, or the inputs' half type when a Cast to it
  // ends the chain (cuBLASLt takes half inputs with f32 or half outputs,
  // cuDNN one type for all). The bias, the residual (and a Gemm's C) are
  // in the output's type; the chain stops before an operand that is not.
  auto castTo = [&](Value v) -> ONNXCastOp {
    if (!v.hasOneUse())
      return ONNXCastOp();
    auto castOp = dyn_cast<ONNXCastOp>(*v.getUsers().begin());
    if (!castOp || castOp->getBlock() != contraction->getBlock() ||
        getLibraryDType(getElementTypeOrSelf(castOp.getType())) != inputType)
      return ONNXCastOp();
    return castOp;
  };
  SmallVector<Value> gemmOperands;
  if (bias)
    gemmOperands.push_back(bias);
  if (residual)
    gemmOperands.push_back(residual);
  SmallVector<std::pair<Value, uint32_t>> gemmBuffers;
  for (Value v : gemmOperands) {
    auto buffer = getBuffer(v, casts);
    if (!buffer.first)
      return std::nullopt;
    gemmBuffers.push_back(buffer);
  }
  auto fits = [&](uint32_t outputType, size_t links) {
    for (auto &[buffer, type] : gemmBuffers)
      if (type != outputType)
        return false;
    for (const Link &link : ArrayRef(chain).take_front(links))
      if (link.operand && link.type != outputType)
        return false;
    return true;
  };
  ONNXCastOp narrowing;
  uint32_t outputType = f32;
  size_t links = chain.size();
  Value end = links ? chain.back().op->getResult(0) : contraction->getResult(0);
  if (inputType != f32)
    narrowing = castTo(end);
  // Ops after the call that the split will pass a half-precision value.
  bool splitHalf = options.halfSplit && inputType != f32 && !narrowing &&
                   llvm::none_of(end.getUsers(), [](Operation *user) {
                     return user->hasTrait<OpTrait::IsTerminator>();
                   });
  if ((narrowing || splitHalf) && fits(inputType, links)) {
    outputType = inputType;
  } else {
    narrowing = ONNXCastOp();
    if (!fits(f32, 0))
      return std::nullopt;
    while (!fits(f32, links))
      --links;
    // cuDNN writes its inputs' type.
    if (!matmul && inputType != f32)
      return std::nullopt;
  }
  chain.resize(links);
  if (!matmul && inputType != f32 && outputType == f32)
    return std::nullopt;

  call.ops.push_back(contraction);
  relu = false;
  for (const Link &link : chain) {
    call.ops.push_back(link.op);
    llvm::append_range(casts, link.casts);
    if (isa<ONNXReluOp>(link.op))
      relu = true;
    else if (link.isBias)
      bias = link.operand;
    else
      residual = link.operand;
  }
  if (narrowing)
    call.ops.push_back(narrowing);
  call.result = call.ops.back()->getResult(0);
  // Gemm's own C, as a buffer.
  for (auto [v, buffer] : llvm::zip(gemmOperands, gemmBuffers)) {
    if (v == bias)
      bias = buffer.first;
    else
      residual = buffer.first;
  }
  llvm::append_range(call.ops, casts);

  if (matmul) {
    artifact::MatmulParams &p = call.matmul;
    using artifact::MatmulEpilogue;
    p.epilogue = uint32_t(bias ? (relu ? MatmulEpilogue::BiasRelu
                                       : MatmulEpilogue::Bias)
                               : (relu ? MatmulEpilogue::Relu
                                       : MatmulEpilogue::None));
    p.hasResidual = residual ? 1 : 0;
    if (residual && !isa<ONNXGemmOp>(contraction))
      p.beta = 1.0f;
    p.outputType = outputType;
    p.tf32 = options.tf32 && inputType == f32 ? 1 : 0;
  } else {
    artifact::ConvParams &p = call.conv;
    p.activation = uint32_t(relu ? artifact::ConvActivation::Relu
                                 : artifact::ConvActivation::Identity);
    p.hasResidual = residual ? 1 : 0;
    // cuDNN's fused call always adds a bias: zeros when there is none.
    p.hasBias = bias || relu || residual ? 1 : 0;
    p.tf32 = options.tf32 && inputType == f32 ? 1 : 0;
  }
  bool hasBias = matmul ? call.matmul.epilogue & 1 : call.conv.hasBias;
  if (hasBias)
    call.operands.push_back(bias); // Null: zeros (conv only).
  if (residual)
    call.operands.push_back(residual);
  return call;
}

Precision fuse::getLibraryPrecision(const LibraryCall &call) {
  bool matmul = call.library == Library::CublasLt;
  uint32_t input = matmul ? call.matmul.inputType : call.conv.dataType;
  if (input == uint32_t(artifact::DType::Float16))
    return Precision::fp16;
  if (input == uint32_t(artifact::DType::BFloat16))
    return Precision::bf16;
  return (matmul ? call.matmul.tf32 : call.conv.tf32) ? Precision::tf32
                                                      : Precision::fp32;
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
    text = p.layout == uint32_t(artifact::ConvLayout::Nhwc) ? "cudnn nhwc conv"
                                                            : "cudnn conv";
    if (p.hasBias)
      text += "+bias";
    if (p.hasResidual)
      text += "+residual";
    if (p.activation)
      text += "+relu";
  }
  Precision precision = getLibraryPrecision(call);
  if (precision != Precision::fp32)
    text += " " + stringifyPrecision(precision).str();
  return text;
}
