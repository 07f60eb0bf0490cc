//===- AttentionImporter.cpp - Attention as the ops of its function ------===//
//
// ONNX Attention (opsets 23, 24, 25) is imported as the ops its function
// body computes (onnx/defs/nn/defs.cc), with the shapes fuse knows at
// import resolved to constants:
//
//   Q * sqrt(scale) @ (K^T * sqrt(scale))   K, V: past ++ new, kv heads
//        -> softcap * tanh(. / softcap)         repeated for GQA
//        -> + bias                          attn_mask, causal, window and
//        -> softmax (softmax_precision)     nonpad_kv_seqlen masks
//        -> rows that the bias masks entirely are zero
//        -> @ V
//
// 3-D inputs are split into heads (Reshape + Transpose) and Y joined back.
// The causal and window masks are a constant when their offset is (no
// `nonpad_kv_seqlen`); with `nonpad_kv_seqlen` they are computed from it.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

namespace {

/// The sizes of one Attention node, all static.
struct AttentionDims {
  int64_t batch, qHeads, kvHeads, qSeq, kvSeq, pastSeq, headSize, vHeadSize;
  int64_t totalSeq() const { return pastSeq + kvSeq; }
};

/// The masks of the node's attributes: which keys each query may see.
struct AttentionMasks {
  bool causal = false;
  int64_t leftWindow = -1, rightWindow = -1;
  bool any() const { return causal || leftWindow >= 0 || rightWindow >= 0; }
  /// Whether a query at absolute position `p` may see key `j`.
  bool allows(int64_t p, int64_t j) const {
    return (!causal || j <= p) && (leftWindow < 0 || p - j <= leftWindow) &&
           (rightWindow < 0 || j - p <= rightWindow);
  }
};

} // namespace

/// [B, S, H * D] -> [B, H, S, D].
static Value splitHeads(NodeEmitter &e, Value x, int64_t heads) {
  if (!x)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  int64_t batch = type.getDimSize(0), seq = type.getDimSize(1);
  Value split = e.reshape(x, {batch, seq, heads, type.getDimSize(2) / heads});
  return e.transpose(split, {0, 2, 1, 3});
}

/// [B, Hkv, T, D] -> [B, Hkv * repeats, T, D], each head repeated in place.
static Value repeatHeads(NodeEmitter &e, Value x, int64_t repeats) {
  if (!x || repeats == 1)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  Value unsqueezed = e.op("onnx.Unsqueeze", {x, e.i64s({2})});
  Value expanded = e.op(
      "onnx.Expand",
      {unsqueezed, e.i64s({shape[0], shape[1], repeats, shape[2], shape[3]})});
  return e.reshape(expanded, {shape[0], shape[1] * repeats, shape[2], shape[3]});
}

/// The bias of the causal and window masks when their offset (the past
/// length) is known: [Sq, T] of 0 and -inf, or null when no mask applies.
/// `rowMasked` says whether some query row sees no key at all.
static Value constantMaskBias(NodeEmitter &e, Type elementType,
                              const AttentionDims &d,
                              const AttentionMasks &masks, bool &rowMasked) {
  rowMasked = false;
  if (!masks.any())
    return Value();
  auto type = RankedTensorType::get({d.qSeq, d.totalSeq()}, elementType);
  auto semantics = &cast<FloatType>(elementType).getFloatSemantics();
  APFloat zero = APFloat::getZero(*semantics);
  APFloat negInf = APFloat::getInf(*semantics, /*Negative=*/true);
  SmallVector<APFloat> values;
  for (int64_t i = 0; i < d.qSeq; ++i) {
    bool seesAny = false;
    for (int64_t j = 0; j < d.totalSeq(); ++j) {
      bool allowed = masks.allows(d.pastSeq + i, j);
      seesAny |= allowed;
      values.push_back(allowed ? zero : negInf);
    }
    rowMasked |= !seesAny;
  }
  return e.constant(DenseElementsAttr::get(type, values));
}

/// The bias that `nonpad_kv_seqlen` (per batch, [B]) implies: its padding
/// mask, and the causal and window masks offset by `nonpad - Sq`:
/// [B, 1, Sq, T] (or [B, 1, 1, T] with only padding) of 0 and -inf.
static Value nonpadMaskBias(NodeEmitter &e, Type elementType, Value nonpad,
                            const AttentionDims &d,
                            const AttentionMasks &masks) {
  Builder b(nonpad.getContext());
  Type i64 = b.getI64Type();
  int64_t total = d.totalSeq();
  SmallVector<int64_t> columns(total), rows(d.qSeq);
  for (int64_t j = 0; j < total; ++j)
    columns[j] = j;
  for (int64_t i = 0; i < d.qSeq; ++i)
    rows[i] = i;
  auto col4d = RankedTensorType::get({1, 1, 1, total}, i64);
  Value col = e.constant(DenseElementsAttr::get(col4d, ArrayRef(columns)));
  Value valid = e.reshape(nonpad, {d.batch, 1, 1, 1});
  // Keys at or past the valid length are padding.
  Value masked = e.op("onnx.GreaterOrEqual", {col, valid});
  if (masks.any()) {
    auto row4d = RankedTensorType::get({1, 1, d.qSeq, 1}, i64);
    Value row = e.constant(DenseElementsAttr::get(row4d, ArrayRef(rows)));
    Value offset = e.op("onnx.Sub", {valid, e.scalar(i64, d.qSeq)});
    Value position = e.op("onnx.Add", {row, offset});
    // position - key: the key's distance to the left of the query.
    Value diff = e.op("onnx.Sub", {position, col});
    auto orMasked = [&](StringRef compare, int64_t bound) {
      Value out = e.op(compare, {diff, e.scalar(i64, bound)});
      masked = e.op("onnx.Or", {masked, out});
    };
    if (masks.causal)
      orMasked("onnx.Less", 0);
    if (masks.leftWindow >= 0)
      orMasked("onnx.Greater", masks.leftWindow);
    if (masks.rightWindow >= 0)
      orMasked("onnx.Less", -masks.rightWindow);
  }
  return e.op("onnx.Where",
              {masked,
               e.scalar(elementType, -std::numeric_limits<double>::infinity()),
               e.scalar(elementType, 0.0)});
}

/// `attn_mask` as an additive bias of `elementType`, its last dim padded
/// with -inf to the total sequence length.
static Value maskBias(NodeEmitter &e, Type elementType, Value mask,
                      int64_t totalSeq) {
  auto type = cast<RankedTensorType>(mask.getType());
  double negInf = -std::numeric_limits<double>::infinity();
  Value bias = type.getElementType().isInteger(1)
                   ? e.op("onnx.Where", {mask, e.scalar(elementType, 0.0),
                                         e.scalar(elementType, negInf)})
                   : e.cast(mask, elementType);
  int64_t rank = type.getRank(), last = type.getDimSize(rank - 1);
  if (last == totalSeq)
    return bias;
  SmallVector<int64_t> pads(2 * rank, 0);
  pads.back() = totalSeq - last;
  return e.op("onnx.Pad",
              {bias, e.i64s(pads), e.scalar(elementType, negInf), Value()});
}

/// Checks what the importer supports and reads the node's sizes.
static FailureOr<AttentionDims> readAttentionDims(NodeImporter &n) {
  SmallVector<RankedTensorType> types;
  for (unsigned i = 0; i < 7; ++i) {
    Value v = n.input(i);
    auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    if (v && (!type || !type.hasStaticShape()))
      return n.emitError() << "input #" << i
                           << " of dynamic shape is not supported";
    types.push_back(type);
  }
  RankedTensorType q = types[0], k = types[1], v = types[2];
  int64_t rank = q.getRank();
  if ((rank != 3 && rank != 4) || k.getRank() != rank || v.getRank() != rank)
    return n.emitError() << "Q, K and V must all be 3-D or all 4-D";
  if (k.getDimSize(0) != q.getDimSize(0) || v.getDimSize(0) != q.getDimSize(0))
    return n.emitError() << "Q, K and V must have the same batch size";
  if (!isa<FloatType>(q.getElementType()) ||
      k.getElementType() != q.getElementType())
    return n.emitError() << "Q and K must have the same float element type";
  const auto *qHeadsAttr = n.findAttr("q_num_heads");
  const auto *kvHeadsAttr = n.findAttr("kv_num_heads");
  AttentionDims d;
  d.batch = q.getDimSize(0);
  if (rank == 4) {
    if (qHeadsAttr || kvHeadsAttr)
      return n.emitError() << "q_num_heads and kv_num_heads are for 3-D "
                              "inputs, but Q is 4-D";
    d.qHeads = q.getDimSize(1);
    d.kvHeads = k.getDimSize(1);
    d.qSeq = q.getDimSize(2);
    d.kvSeq = k.getDimSize(2);
    d.headSize = q.getDimSize(3);
    d.vHeadSize = v.getDimSize(3);
  } else {
    if (!qHeadsAttr || !kvHeadsAttr)
      return n.emitError() << "3-D inputs require q_num_heads and "
                              "kv_num_heads";
    d.qHeads = qHeadsAttr->i();
    d.kvHeads = kvHeadsAttr->i();
    if (d.qHeads < 1 || d.kvHeads < 1 || q.getDimSize(2) % d.qHeads ||
        k.getDimSize(2) % d.kvHeads || v.getDimSize(2) % d.kvHeads)
      return n.emitError() << "the hidden sizes of Q, K and V must be "
                              "multiples of q_num_heads and kv_num_heads";
    d.qSeq = q.getDimSize(1);
    d.kvSeq = k.getDimSize(1);
    d.headSize = q.getDimSize(2) / d.qHeads;
    d.vHeadSize = v.getDimSize(2) / d.kvHeads;
  }
  if (d.kvHeads < 1 || d.qHeads % d.kvHeads)
    return n.emitError() << "q_num_heads (" << d.qHeads
                         << ") must be a multiple of kv_num_heads ("
                         << d.kvHeads << ")";
  if (bool(n.input(4)) != bool(n.input(5)))
    return n.emitError() << "past_key and past_value must be given together";
  d.pastSeq = n.input(4) ? types[4].getDimSize(2) : 0;
  if (Value nonpad = n.input(6)) {
    if (n.input(4) || n.outputUsed(1) || n.outputUsed(2))
      return n.emitError() << "nonpad_kv_seqlen does not go with past or "
                              "present key and value";
    if (types[6].getRank() != 1 || types[6].getDimSize(0) != d.batch)
      return n.emitError() << "nonpad_kv_seqlen must have shape [" << d.batch
                           << "]";
  }
  if (Value mask = n.input(3)) {
    Type maskElement = types[3].getElementType();
    if (!maskElement.isInteger(1) && !isa<FloatType>(maskElement))
      return n.emitError() << "an attn_mask of " << maskElement
                           << " is not supported (bool or float)";
    if (types[3].getRank() < 1)
      return n.emitError() << "attn_mask must have at least one dim";
  }
  return d;
}

LogicalResult fuse::detail::importAttention(NodeImporter &n) {
  FailureOr<AttentionDims> dims = readAttentionDims(n);
  if (failed(dims))
    return failure();
  const AttentionDims &d = *dims;
  AttentionMasks masks;
  masks.causal = n.intAttrOr("is_causal", 0) != 0;
  masks.leftWindow = n.intAttrOr("left_window_size", -1);
  masks.rightWindow = n.intAttrOr("right_window_size", -1);
  if (masks.leftWindow < -1 || masks.rightWindow < -1)
    return n.emitError() << "window sizes must be -1 or more";
  // The masks are built as constants at import: bound them (a K of 2^40
  // positions asked for terabytes).
  if (masks.any() || n.input(6)) {
    constexpr int64_t kMaxMaskElements = int64_t(1) << 24;
    int64_t total = 0, elements = 0;
    if (llvm::AddOverflow(d.pastSeq, d.kvSeq, total) ||
        llvm::MulOverflow(d.qSeq, total, elements) ||
        elements > kMaxMaskElements)
      return n.emitError() << "the causal, window or padding mask of "
                              "Attention (query length "
                           << d.qSeq << ", key length " << d.pastSeq
                           << " past + " << d.kvSeq
                           << " new) would have more than " << kMaxMaskElements
                           << " elements";
  }
  int64_t mode = n.intAttrOr("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return n.emitError() << "qk_matmul_output_mode = " << mode
                         << " is not supported (0 to 3)";
  Value q = n.input(0), k = n.input(1), v = n.input(2);
  Type type = cast<TensorType>(q.getType()).getElementType();
  Type softmaxType = type;
  if (const auto *precision = n.findAttr("softmax_precision")) {
    softmaxType = getElementTypeForONNX(precision->i(), n.getContext());
    if (!softmaxType || !isa<FloatType>(softmaxType))
      return n.emitError() << "softmax_precision = " << precision->i()
                           << " is not supported";
  }

  NodeEmitter e(n);
  bool is3d = cast<RankedTensorType>(q.getType()).getRank() == 3;
  if (is3d) {
    q = splitHeads(e, q, d.qHeads);
    k = splitHeads(e, k, d.kvHeads);
    v = splitHeads(e, v, d.kvHeads);
  }
  if (n.input(4)) {
    k = e.op("onnx.Concat", {n.input(4), k}, {e.intAttr("axis", 2)});
    v = e.op("onnx.Concat", {n.input(5), v}, {e.intAttr("axis", 2)});
  }
  Value presentKey = k, presentValue = v;
  k = repeatHeads(e, k, d.qHeads / d.kvHeads);
  v = repeatHeads(e, v, d.qHeads / d.kvHeads);

  // Q and K^T are each scaled by sqrt(scale), computed in f32.
  float scale = n.findAttr("scale")
                    ? n.findAttr("scale")->f()
                    : 1.0f / std::sqrt(static_cast<float>(d.headSize));
  Value rootScale = e.scalar(type, std::sqrt(scale));
  Value scaledQ = e.op("onnx.Mul", {q, rootScale});
  Value scaledK = e.op("onnx.Mul", {e.transpose(k, {0, 1, 3, 2}), rootScale});
  Value qk = e.op("onnx.MatMul", {scaledQ, scaledK});
  Value capped = qk;
  if (float softcap = n.floatAttrOr("softcap", 0.0f); softcap != 0.0f) {
    Value cap = e.scalar(type, softcap);
    capped = e.op("onnx.Mul",
                  {e.op("onnx.Tanh", {e.op("onnx.Div", {qk, cap})}), cap});
  }

  // The bias: attn_mask, then the causal and window masks, then padding.
  Value bias;
  auto addBias = [&](Value term) {
    if (term)
      bias = bias ? e.op("onnx.Add", {bias, term}) : term;
  };
  bool rowMasked = false;
  if (Value mask = n.input(3))
    addBias(maskBias(e, type, mask, d.totalSeq()));
  if (Value nonpad = n.input(6))
    addBias(nonpadMaskBias(e, type, nonpad, d, masks));
  else
    addBias(constantMaskBias(e, type, d, masks, rowMasked));
  Value scores = bias ? e.op("onnx.Add", {capped, bias}) : capped;

  Value probs = e.cast(
      e.op("onnx.Softmax", {e.cast(scores, softmaxType)}, {e.intAttr("axis", -1)}),
      type);
  // A row the bias masks entirely would be NaN; it is zero.
  if (n.input(3) || n.input(6) || rowMasked) {
    Value rowMax = e.op("onnx.ReduceMax", {bias, e.i64s({-1})});
    Value allMasked = e.op(
        "onnx.Equal",
        {rowMax, e.scalar(type, -std::numeric_limits<double>::infinity())});
    probs = e.op("onnx.Where", {allMasked, e.scalar(type, 0.0), probs});
  }

  Value y = e.op("onnx.MatMul", {probs, v});
  if (is3d)
    y = e.reshape(e.transpose(y, {0, 2, 1, 3}),
                  {d.batch, d.qSeq, d.qHeads * d.vHeadSize});
  if (e.failed())
    return failure();
  Value modeOutputs[] = {qk, capped, scores, probs};
  n.results = {y, presentKey, presentValue, modeOutputs[mode]};
  return success();
}
