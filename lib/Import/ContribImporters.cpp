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
//   1e-12): the same with RMSNormalization.
//
// SimplifiedLayerNormalization, which onnxruntime registers in the default
// domain, is RMSNormalization (OpImporters.cpp). Their mean and inverse
// standard deviation outputs (training-time statistics) are refused when a
// node or the graph reads them.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The element type of `v`, a tensor.
static Type elementOf(Value v) {
  return cast<TensorType>(v.getType()).getElementType();
}

/// An f32 attribute named `name`.
static NamedAttribute floatAttr(NodeImporter &n, StringRef name, double value) {
  return n.builder.getNamedAttr(name, n.builder.getF32FloatAttr(value));
}

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
  Value scaled = e.op(
      "onnx.Mul", {x, e.scalar(elementOf(x), n.floatAttrOr("alpha", 1.702))});
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
    y = e.op("onnx.Mul", {y, e.scalar(elementOf(y), alpha)});
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
      floatAttr(n, "epsilon", n.floatAttrOr("epsilon", 1e-12))};
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

const OpImportInfo *fuse::detail::lookupContribOpImporter(StringRef opType) {
  using K = AttrKind;
  static const llvm::StringMap<OpImportInfo> table = {
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
