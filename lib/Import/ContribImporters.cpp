//===- ContribImporters.cpp - onnxruntime's com.microsoft operators ------===//
//
// The operators of onnxruntime's contrib domain (com.microsoft, version 1)
// that its transformer optimizer writes, as the standard ops they compute
// (onnxruntime's docs/ContribOperators.md):
//
// - Gelu: `0.5 x (1 + erf(x / sqrt(2)))`, onnx.Gelu;
// - BiasGelu(A, bias): Gelu(A + bias);
// - FastGelu(X, bias?): Gelu's tanh form of X + bias, onnx.Gelu with
//   approximate = "tanh";
// - QuickGelu(X; alpha = 1.702): `x * sigmoid(alpha x)`;
// - BiasAdd(X, bias, skip): X + bias + skip;
// - FusedMatMul(A, B; alpha, transA, transB): alpha * op(A) op(B), op
//   transposing the last two dims (transBatchA/B are refused);
// - SkipLayerNormalization(input, skip, gamma, beta?, bias?; epsilon =
//   1e-12): LayerNormalization over the last dim of input + skip (+ bias),
//   that sum as its fourth output;
// - SkipSimplifiedLayerNormalization(input, skip, gamma, bias?; epsilon =
//   1e-12): the same with RMSNormalization;
// - Attention(input, weights, bias?, mask_index?; num_heads, scale,
//   mask_filter_value = -10000): BERT's self-attention with packed Q, K, V
//   weights, as three projections (the weights' column blocks, which
//   fuse-raise-attention's fuse-projections joins again) and
//   Softmax(Q K^T * scale + mask) V, the mask adding mask_filter_value at
//   the keys it hides: a mask_index of [batch] holds each row's length
//   (keys from it on are hidden), one of [batch, keys] is the raw mask (keys
//   where it is 0 or less). Past state, attention_bias, unidirectional,
//   rotary, other mask shapes and unequal qkv_hidden_sizes are refused.
//
// SimplifiedLayerNormalization, which onnxruntime registers in the default
// domain, is RMSNormalization (OpImporters.cpp). Their mean and inverse
// standard deviation outputs (training-time statistics) are refused when a
// node or the graph reads them.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// Pushes `y` as the node's only result.
static LogicalResult finish(NodeImporter &n, NodeEmitter &e, Value y) {
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

static LogicalResult importGelu(NodeImporter &n) {
  NodeEmitter e(n);
  return finish(n, e, e.op("onnx.Gelu", {n.input(0)}));
}

static LogicalResult importBiasGelu(NodeImporter &n) {
  NodeEmitter e(n);
  return finish(
      n, e, e.op("onnx.Gelu", {e.op("onnx.Add", {n.input(0), n.input(1)})}));
}

static LogicalResult importFastGelu(NodeImporter &n) {
  NodeEmitter e(n);
  Value x = n.input(0);
  if (n.input(1))
    x = e.op("onnx.Add", {x, n.input(1)});
  NamedAttribute tanh =
      n.builder.getNamedAttr("approximate", n.builder.getStringAttr("tanh"));
  return finish(n, e, e.op("onnx.Gelu", {x}, {tanh}));
}

static LogicalResult importQuickGelu(NodeImporter &n) {
  NodeEmitter e(n);
  Value x = n.input(0);
  Value scaled = e.op("onnx.Mul", {x, e.scalar(getElementTypeOrSelf(x),
                                               n.floatAttrOr("alpha", 1.702))});
  return finish(n, e, e.op("onnx.Mul", {x, e.op("onnx.Sigmoid", {scaled})}));
}

static LogicalResult importBiasAdd(NodeImporter &n) {
  NodeEmitter e(n);
  Value sum = e.op("onnx.Add", {n.input(0), n.input(1)});
  return finish(n, e, e.op("onnx.Add", {sum, n.input(2)}));
}

static LogicalResult importFusedMatMul(NodeImporter &n) {
  for (StringRef name : {"transBatchA", "transBatchB"})
    if (n.intAttrOr(name, 0) != 0)
      return n.emitError() << name << " = " << n.intAttrOr(name, 0)
                           << " is not supported (only 0)";
  NodeEmitter e(n);
  // op(X): the last two dims swapped.
  auto op = [&](Value x, StringRef trans) -> FailureOr<Value> {
    if (n.intAttrOr(trans, 0) == 0)
      return x;
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() < 2)
      return n.emitError() << trans << " needs an input of rank 2 or more, "
                           << "not " << type.getRank();
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    std::swap(perm[perm.size() - 2], perm.back());
    return e.transpose(x, perm);
  };
  FailureOr<Value> a = op(n.input(0), "transA");
  FailureOr<Value> b = op(n.input(1), "transB");
  if (failed(a) || failed(b))
    return failure();
  Value y = e.op("onnx.MatMul", {*a, *b});
  double alpha = n.floatAttrOr("alpha", 1.0);
  if (alpha != 1.0)
    y = e.op("onnx.Mul", {y, e.scalar(getElementTypeOrSelf(y), alpha)});
  return finish(n, e, y);
}

/// Skip(Simplified)LayerNormalization: the normalization of input + skip
/// (+ bias, input `biasInput`) over the last dim, and that sum as output 3.
static LogicalResult importSkipNorm(NodeImporter &n, bool simplified) {
  for (int i : {1, 2})
    if (n.outputUsed(i))
      return n.emitError() << "output #" << i << " ("
                           << (i == 1 ? "mean" : "inv_std_var")
                           << ") is read, which is not supported";
  NodeEmitter e(n);
  unsigned biasInput = simplified ? 3 : 4;
  Value sum = e.op("onnx.Add", {n.input(0), n.input(1)});
  if (n.input(biasInput))
    sum = e.op("onnx.Add", {sum, n.input(biasInput)});
  SmallVector<NamedAttribute> attrs = {
      e.intAttr("axis", -1),
      e.floatAttr("epsilon", n.floatAttrOr("epsilon", 1e-12))};
  Value y = simplified ? e.op("onnx.RMSNormalization", {sum, n.input(2)}, attrs)
                       : e.op("onnx.LayerNormalization",
                              {sum, n.input(2), n.input(3)}, attrs);
  if (e.failed())
    return failure();
  n.results.assign({y, Value(), Value(), sum});
  return success();
}

static LogicalResult importSkipLayerNorm(NodeImporter &n) {
  return importSkipNorm(n, /*simplified=*/false);
}

static LogicalResult importSkipSimplifiedLayerNorm(NodeImporter &n) {
  return importSkipNorm(n, /*simplified=*/true);
}

/// The additive mask of Attention's `maskIndex` for the keys of `x` (its
/// dim 1), as [batch, 1, 1, keys] of `type`: 0 where a key is seen,
/// `filter` where it is hidden; null (with an error) for a mask it does not
/// take. The keys' positions come from x's shape (Shape, Range), which
/// fuse-simplify-graph folds where the import could not.
static Value attentionMaskBias(NodeImporter &n, NodeEmitter &e, Value maskIndex,
                               Value x, Type type, double filter) {
  auto maskType = dyn_cast<RankedTensorType>(maskIndex.getType());
  if (!maskType || (maskType.getRank() != 1 && maskType.getRank() != 2)) {
    n.emitError() << "a mask_index of type " << maskIndex.getType()
                  << " is not supported ([batch] lengths or [batch, keys] "
                     "raw mask)";
    return {};
  }
  Type element = maskType.getElementType();
  Value zero = e.scalar(type, 0.0), hidden = e.scalar(type, filter);
  Value seen; // [batch, keys] i1
  if (maskType.getRank() == 1) {
    Value keys = e.op(
        "onnx.Squeeze",
        {e.op("onnx.Shape", {x}, {e.intAttr("start", 1), e.intAttr("end", 2)}),
         e.i64s({0})});
    Type i64 = n.builder.getI64Type();
    Value positions =
        e.cast(e.op("onnx.Range", {e.scalar(i64, 0), keys, e.scalar(i64, 1)}),
               element);
    seen =
        e.op("onnx.Less", {e.op("onnx.Unsqueeze", {positions, e.i64s({0})}),
                           e.op("onnx.Unsqueeze", {maskIndex, e.i64s({1})})});
  } else {
    seen = e.op("onnx.Greater", {maskIndex, e.scalar(element, 0.0)});
  }
  return e.op("onnx.Unsqueeze",
              {e.op("onnx.Where", {seen, zero, hidden}), e.i64s({1, 2})});
}

static LogicalResult importContribAttention(NodeImporter &n) {
  for (unsigned i : {4, 5, 6})
    if (n.input(i))
      return n.emitError() << "input #" << i << " ("
                           << (i == 4   ? "past"
                               : i == 5 ? "attention_bias"
                                        : "past_sequence_length")
                           << ") is not supported";
  if (n.outputUsed(1))
    return n.emitError() << "output #1 (present) is read, which is not "
                            "supported";
  for (StringRef name :
       {"unidirectional", "do_rotary", "past_present_share_buffer"})
    if (n.intAttrOr(name, 0) != 0)
      return n.emitError() << name << " = " << n.intAttrOr(name, 0)
                           << " is not supported (only 0)";
  int64_t heads = n.intAttrOr("num_heads", 0);
  auto xType = dyn_cast<RankedTensorType>(n.input(0).getType());
  auto wType = dyn_cast<RankedTensorType>(n.input(1).getType());
  if (heads < 1 || (xType && xType.getRank() != 3) || !wType ||
      !wType.hasStaticShape() || wType.getRank() != 2 ||
      (xType && !xType.isDynamicDim(2) &&
       wType.getDimSize(0) != xType.getDimSize(2)) ||
      wType.getDimSize(1) % (3 * heads) != 0)
    return n.emitError() << "takes input [batch, sequence, hidden] and "
                            "weights [hidden, 3 * num_heads * head size] "
                            "with num_heads >= 1, not "
                         << n.input(0).getType() << " and "
                         << n.input(1).getType()
                         << " with num_heads = " << heads;
  int64_t hidden = wType.getDimSize(1) / 3;
  if (const auto *sizes = n.findAttr("qkv_hidden_sizes"))
    if (sizes->ints_size() != 3 ||
        llvm::any_of(sizes->ints(), [&](int64_t s) { return s != hidden; }))
      return n.emitError() << "qkv_hidden_sizes other than three equal "
                              "sizes are not supported";
  int64_t headSize = hidden / heads;
  Type type = wType.getElementType();
  NodeEmitter e(n);
  // [batch, sequence, ...] with batch and sequence copied (Reshape's 0).
  auto keepTwo = [&](Value y, ArrayRef<int64_t> rest) {
    SmallVector<int64_t> shape = {0, 0};
    llvm::append_range(shape, rest);
    return e.op("onnx.Reshape", {y, e.i64s(shape)});
  };
  // Q, K and V, each [batch, sequence, heads, head size].
  auto project = [&](int64_t part) {
    Value w = e.op("onnx.Slice",
                   {n.input(1), e.i64s({part * hidden}),
                    e.i64s({(part + 1) * hidden}), e.i64s({1}), Value()});
    Value y = e.op("onnx.MatMul", {n.input(0), w});
    if (Value b = n.input(2))
      y = e.op("onnx.Add",
               {y, e.op("onnx.Slice", {b, e.i64s({part * hidden}),
                                       e.i64s({(part + 1) * hidden}),
                                       e.i64s({0}), Value()})});
    return keepTwo(y, {heads, headSize});
  };
  Value q = e.transpose(project(0), {0, 2, 1, 3});
  Value kT = e.transpose(project(1), {0, 2, 3, 1});
  Value v = e.transpose(project(2), {0, 2, 1, 3});
  float scale = n.floatAttrOr("scale", 0.0f);
  if (scale == 0.0f)
    scale = 1.0f / std::sqrt(static_cast<float>(headSize));
  Value scores =
      e.op("onnx.Mul", {e.op("onnx.MatMul", {q, kT}), e.scalar(type, scale)});
  if (Value maskIndex = n.input(3)) {
    Value bias = attentionMaskBias(n, e, maskIndex, n.input(0), type,
                                   n.floatAttrOr("mask_filter_value", -10000));
    if (!bias)
      return failure();
    scores = e.op("onnx.Add", {scores, bias});
  }
  Value probs = e.op("onnx.Softmax", {scores}, {e.intAttr("axis", -1)});
  Value y = e.transpose(e.op("onnx.MatMul", {probs, v}), {0, 2, 1, 3});
  return finish(n, e, keepTwo(y, {hidden}));
}

const OpImportInfo *fuse::detail::lookupContribOpImporter(StringRef opType) {
  using K = AttrKind;
  static const llvm::StringMap<OpImportInfo> table = {
      {"Attention",
       {"onnx.MatMul",
        {1},
        {{"num_heads", K::Int},
         {"scale", K::Float},
         {"mask_filter_value", K::Float},
         {"unidirectional", K::Int},
         {"qkv_hidden_sizes", K::Ints},
         {"do_rotary", K::Int},
         {"past_present_share_buffer", K::Int},
         {"rotary_embedding_dim", K::Int}},
        2,
        7,
        2,
        importContribAttention}},
      {"BiasAdd", {"onnx.Add", {1}, {}, 3, 3, 1, importBiasAdd}},
      {"BiasGelu", {"onnx.Gelu", {1}, {}, 2, 2, 1, importBiasGelu}},
      {"FastGelu", {"onnx.Gelu", {1}, {}, 1, 2, 1, importFastGelu}},
      {"FusedMatMul",
       {"onnx.MatMul",
        {1},
        {{"alpha", K::Float},
         {"transA", K::Int},
         {"transB", K::Int},
         {"transBatchA", K::Int},
         {"transBatchB", K::Int}},
        2,
        2,
        1,
        importFusedMatMul}},
      {"Gelu", {"onnx.Gelu", {1}, {}, 1, 1, 1, importGelu}},
      {"QuickGelu",
       {"onnx.Sigmoid", {1}, {{"alpha", K::Float}}, 1, 1, 1, importQuickGelu}},
      {"SkipLayerNormalization",
       {"onnx.LayerNormalization",
        {1},
        {{"epsilon", K::Float}},
        3,
        5,
        4,
        importSkipLayerNorm}},
      {"SkipSimplifiedLayerNormalization",
       {"onnx.RMSNormalization",
        {1},
        {{"epsilon", K::Float}},
        3,
        4,
        4,
        importSkipSimplifiedLayerNorm}},
  };
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}
