//===- NNImporters.cpp - Softmax-like ops and losses as primitive ops ----===//
//
// Operators whose ONNX function bodies fuse imports as the primitive ops
// they compute:
//
// - LogSoftmax: `x - max - log(sum(exp(x - max)))` along `axis`;
// - Hardmax: 1 at the first maximum along `axis` (ArgMax, compared with
//   the index), 0 elsewhere;
// - LayerNormalization's Mean and InvStdDev outputs, in the stash type;
// - LpNormalization: `x / norm(x)` along `axis` (ReduceL1 or ReduceL2),
//   0 where the norm is;
// - LpPool: `(sum of |x|^p over the window)^(1/p)`, the sum an AveragePool
//   that counts the padding, times the window size;
// - Swish: `x * sigmoid(alpha * x)`;
// - NegativeLogLikelihoodLoss (onnx/defs/math/defs.cc):
//   `loss[n, d...] = -input[n, target[n, d...], d...] * weight[target]`,
//   `ignore_index` targets weighing 0, then reduced (none, sum, or mean:
//   the sum over the sum of the weights);
// - SoftmaxCrossEntropyLoss: that loss of LogSoftmax(scores) over the
//   class dim, which its `log_prob` output returns.
//
// LogSoftmax-1/11 and Hardmax-1/11 work on the input flattened to 2-D
// around `axis`.
//
// OneHot (a constant depth) is, likewise, the indices compared with the
// positions along the new axis, selecting the on or off value; TopK (a
// constant k) is k rounds of ArgMax (ArgMin), each taking the best element
// left and masking it.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// log(softmax(x)) along `axis`, stable for large values.
static Value logSoftmax(NodeEmitter &e, Value x, int64_t axis) {
  Value axes = e.i64s({axis});
  Value shifted = e.op("onnx.Sub", {x, e.op("onnx.ReduceMax", {x, axes})});
  Value sum = e.op("onnx.ReduceSum", {e.op("onnx.Exp", {shifted}), axes});
  return e.op("onnx.Sub", {shifted, e.op("onnx.Log", {sum})});
}

/// One along `axis` at the first maximum of `x`, zero elsewhere.
static Value hardmax(NodeEmitter &e, Value x, int64_t axis) {
  if (!x)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  Value argmax = e.op("onnx.ArgMax", {x}, {e.intAttr("axis", axis)});
  // [1, ..., C, ..., 1]: the index along axis.
  SmallVector<int64_t> shape(type.getRank(), 1), indices;
  shape[axis] = type.getDimSize(axis);
  for (int64_t i = 0; i < shape[axis]; ++i)
    indices.push_back(i);
  auto iotaType =
      RankedTensorType::get(shape, IntegerType::get(x.getContext(), 64));
  Value iota = e.constant(DenseElementsAttr::get(iotaType, ArrayRef(indices)));
  return e.cast(e.op("onnx.Equal", {iota, argmax}), type.getElementType());
}

/// LogSoftmax and Hardmax: `fn` along `axis` (opset 13 on), or along the
/// last dim of the input flattened to 2-D around `axis` (opsets 1, 11).
static LogicalResult
importAlongAxis(NodeImporter &n,
                function_ref<Value(NodeEmitter &, Value, int64_t)> fn) {
  auto type = dyn_cast<RankedTensorType>(n.input(0).getType());
  if (!type || !type.hasStaticShape())
    return n.emitError() << "an input of dynamic shape is not supported";
  const auto *axisAttr = n.findAttr("axis");
  int64_t axisValue = axisAttr ? axisAttr->i() : (n.version >= 13 ? -1 : 1);
  FailureOr<int64_t> axis = normalizeAxis(axisValue, type.getRank());
  if (failed(axis))
    return n.emitError() << "axis " << axisValue
                         << " is out of range for rank " << type.getRank();
  NodeEmitter e(n);
  Value result;
  if (n.version >= 13 || *axis == type.getRank() - 1) {
    result = fn(e, n.input(0), *axis);
  } else {
    FailureOr<std::pair<int64_t, int64_t>> sizes =
        getSizesAroundAxis(n, type.getShape(), *axis);
    if (failed(sizes))
      return failure();
    auto [outer, inner] = *sizes;
    Value flat = e.reshape(n.input(0), {outer, inner});
    result = e.reshape(fn(e, flat, 1), type.getShape());
  }
  if (e.failed())
    return failure();
  n.results.push_back(result);
  return success();
}

LogicalResult fuse::detail::importLogSoftmax(NodeImporter &n) {
  return importAlongAxis(n, logSoftmax);
}

LogicalResult fuse::detail::importHardmax(NodeImporter &n) {
  // The index along the axis is a constant of the axis's length (before
  // opset 13, of the dims from the axis on, flattened): bounded, as
  // OneHot's depth is (a dim of 2^63-1 ran the fuzzer out of memory).
  constexpr int64_t kMaxAxisLength = int64_t(1) << 24;
  auto type = dyn_cast<RankedTensorType>(n.input(0).getType());
  const auto *axisAttr = n.findAttr("axis");
  int64_t axisValue = axisAttr ? axisAttr->i() : (n.version >= 13 ? -1 : 1);
  if (type && type.hasStaticShape())
    if (FailureOr<int64_t> axis = normalizeAxis(axisValue, type.getRank());
        succeeded(axis)) {
      int64_t end = n.version >= 13 ? *axis + 1 : type.getRank();
      int64_t length = 1;
      for (int64_t i = *axis; i < end; ++i)
        if (llvm::MulOverflow(length, type.getDimSize(i), length) ||
            length > kMaxAxisLength)
          return n.emitError() << "the axis of Hardmax has more than "
                               << kMaxAxisLength << " elements";
    }
  return importAlongAxis(n, hardmax);
}

/// Y as onnx.LayerNormalization; Mean and InvStdDev, when used, from
/// their own reductions in the stash type.
LogicalResult fuse::detail::importLayerNorm(NodeImporter &n) {
  FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes();
  if (failed(attrs))
    return failure();
  NodeEmitter e(n);
  SmallVector<Value> operands(n.inputs);
  operands.resize(3);
  Value y = e.op("onnx.LayerNormalization", operands, *attrs);
  if (e.failed())
    return failure();
  n.results.push_back(y);
  if (!n.outputUsed(1) && !n.outputUsed(2))
    return success();
  auto type = cast<RankedTensorType>(n.input(0).getType());
  const auto *stash = n.findAttr("stash_type");
  Type stashType = getElementTypeForONNX(stash ? stash->i() : 1, n.getContext());
  if (!stashType || !isa<FloatType>(stashType))
    return n.emitError() << "stash_type = " << stash->i()
                         << " is not supported";
  const auto *axisAttr = n.findAttr("axis");
  int64_t axis = axisAttr ? axisAttr->i() : -1;
  axis = axis < 0 ? axis + type.getRank() : axis; // checked by the op
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < type.getRank(); ++i)
    axes.push_back(i);
  const auto *epsilon = n.findAttr("epsilon");
  Value x = e.cast(n.input(0), stashType);
  Value mean = e.op("onnx.ReduceMean", {x, e.i64s(axes)});
  Value centered = e.op("onnx.Sub", {x, mean});
  Value variance =
      e.op("onnx.ReduceMean",
           {e.op("onnx.Mul", {centered, centered}), e.i64s(axes)});
  Value stdDev = e.op(
      "onnx.Sqrt",
      {e.op("onnx.Add",
            {variance, e.scalar(stashType, epsilon ? epsilon->f() : 1e-5f)})});
  Value invStdDev = e.op("onnx.Reciprocal", {stdDev});
  if (e.failed())
    return failure();
  n.results.append({mean, invStdDev});
  return success();
}

/// The `p` attribute, which LpNormalization and LpPool take as 1 or 2 and
/// any positive value.
static FailureOr<int64_t> readP(NodeImporter &n, bool oneOrTwo) {
  const auto *pAttr = n.findAttr("p");
  int64_t p = pAttr ? pAttr->i() : 2;
  if (p < 1 || (oneOrTwo && p > 2))
    return n.emitError() << "p = " << p << " is not supported ("
                         << (oneOrTwo ? "1 or 2" : "a positive value") << ")";
  return p;
}

LogicalResult fuse::detail::importLpNormalization(NodeImporter &n) {
  FailureOr<int64_t> p = readP(n, /*oneOrTwo=*/true);
  if (failed(p))
    return failure();
  const auto *axis = n.findAttr("axis");
  NodeEmitter e(n);
  Value x = n.input(0);
  Value norm = e.op(*p == 1 ? "onnx.ReduceL1" : "onnx.ReduceL2",
                    {x, e.i64s({axis ? axis->i() : -1})});
  // A zero norm gives zeros, not NaN (as onnx's reference does).
  Type type = cast<TensorType>(x.getType()).getElementType();
  Value zero = e.scalar(type, 0.0);
  Value y = e.op("onnx.Where", {e.op("onnx.Equal", {norm, zero}), zero,
                                e.op("onnx.Div", {x, norm})});
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

LogicalResult fuse::detail::importLpPool(NodeImporter &n) {
  FailureOr<int64_t> p = readP(n, /*oneOrTwo=*/false);
  if (failed(p))
    return failure();
  FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes({"p"});
  const auto *kernel = n.findAttr("kernel_shape");
  if (failed(attrs))
    return failure();
  if (!kernel)
    return n.emitError() << "requires attribute 'kernel_shape'";
  NodeEmitter e(n);
  attrs->push_back(e.intAttr("count_include_pad", 1));
  Value x = n.input(0);
  Type type = cast<TensorType>(x.getType()).getElementType();
  Value powered =
      *p == 1   ? e.op("onnx.Abs", {x})
      : *p == 2 ? e.op("onnx.Mul", {x, x})
                : e.op("onnx.Pow", {e.op("onnx.Abs", {x}), e.scalar(type, *p)});
  double windowSize = 1;
  for (int64_t k : kernel->ints())
    windowSize *= k;
  Value sum = e.op("onnx.Mul", {e.op("onnx.AveragePool", {powered}, *attrs),
                                e.scalar(type, windowSize)});
  Value y = *p == 1   ? sum
            : *p == 2 ? e.op("onnx.Sqrt", {sum})
                      : e.op("onnx.Pow", {sum, e.scalar(type, 1.0 / *p)});
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

LogicalResult fuse::detail::importSwish(NodeImporter &n) {
  const auto *alpha = n.findAttr("alpha");
  NodeEmitter e(n);
  Value x = n.input(0);
  Type type = cast<TensorType>(x.getType()).getElementType();
  Value scaled = alpha ? e.op("onnx.Mul", {x, e.scalar(type, alpha->f())}) : x;
  Value y = e.op("onnx.Mul", {x, e.op("onnx.Sigmoid", {scaled})});
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

/// The NegativeLogLikelihoodLoss of `logProbs` ([N, C, d...]) for
/// `target` ([N, d...]) and optional per-class `weight` ([C]).
static Value nllLoss(NodeEmitter &e, NodeImporter &n, Value logProbs,
                     Value target, Value weight) {
  Type type = cast<TensorType>(logProbs.getType()).getElementType();
  Value classAxis = e.i64s({1});
  Value expanded = e.op("onnx.Unsqueeze", {target, classAxis});
  Value ignored; // [N, 1, d...]: the targets equal to ignore_index
  if (const auto *ignore = n.findAttr("ignore_index")) {
    Type targetType = cast<TensorType>(target.getType()).getElementType();
    ignored = e.op("onnx.Equal",
                   {expanded, e.scalar(targetType, double(ignore->i()))});
    expanded =
        e.op("onnx.Where", {ignored, e.scalar(targetType, 0.0), expanded});
  }
  Value zero = e.scalar(type, 0.0);
  Value picked = e.op("onnx.GatherElements", {logProbs, expanded},
                      {e.intAttr("axis", 1)});
  if (ignored)
    picked = e.op("onnx.Where", {ignored, zero, picked});
  Value loss =
      e.op("onnx.Squeeze", {e.op("onnx.Neg", {picked}), classAxis});
  // The weight of each element: weight[target], 0 where ignored.
  Value weights;
  if (weight)
    weights = e.op("onnx.Gather", {weight, expanded});
  else if (ignored)
    weights = e.scalar(type, 1.0);
  if (weights && ignored)
    weights = e.op("onnx.Where", {ignored, zero, weights});
  if (weights) {
    weights = e.op("onnx.Squeeze", {weights, classAxis});
    loss = e.op("onnx.Mul", {loss, weights});
  }
  const auto *reductionAttr = n.findAttr("reduction");
  StringRef reduction = reductionAttr ? StringRef(reductionAttr->s()) : "mean";
  NamedAttribute dropDims = e.intAttr("keepdims", 0);
  if (reduction == "none")
    return loss;
  Value sum = e.op("onnx.ReduceSum", {loss, Value()}, {dropDims});
  if (reduction == "sum")
    return sum;
  if (!weights)
    return e.op("onnx.ReduceMean", {loss, Value()}, {dropDims});
  Value total = e.op("onnx.ReduceSum", {weights, Value()}, {dropDims});
  return e.op("onnx.Div", {sum, total});
}

/// Checks `reduction` and the ranks of the loss's inputs.
static LogicalResult checkLossInputs(NodeImporter &n) {
  const auto *reduction = n.findAttr("reduction");
  if (reduction && reduction->s() != "none" && reduction->s() != "sum" &&
      reduction->s() != "mean")
    return n.emitError() << "reduction = '" << reduction->s()
                         << "' is not supported (none, sum or mean)";
  auto input = dyn_cast<RankedTensorType>(n.input(0).getType());
  auto target = dyn_cast<RankedTensorType>(n.input(1).getType());
  if (!input || !target || input.getRank() < 2 ||
      target.getRank() != input.getRank() - 1)
    return n.emitError() << "requires an input [N, C, d...] and a target "
                            "[N, d...] of known ranks";
  if (!isa<FloatType>(input.getElementType()))
    return n.emitError() << "requires a float input";
  return success();
}

LogicalResult fuse::detail::importNLLLoss(NodeImporter &n) {
  if (failed(checkLossInputs(n)))
    return failure();
  NodeEmitter e(n);
  Value loss = nllLoss(e, n, n.input(0), n.input(1), n.input(2));
  if (e.failed())
    return failure();
  n.results.push_back(loss);
  return success();
}

LogicalResult fuse::detail::importSoftmaxCrossEntropyLoss(NodeImporter &n) {
  if (failed(checkLossInputs(n)))
    return failure();
  NodeEmitter e(n);
  Value logProbs = logSoftmax(e, n.input(0), 1);
  Value loss = nllLoss(e, n, logProbs, n.input(1), n.input(2));
  if (e.failed())
    return failure();
  n.results = {loss, logProbs};
  return success();
}

/// The value of a one-element constant of any numeric type, truncated to
/// an integer.
static std::optional<int64_t> getConstantScalarInt(Value v) {
  if (std::optional<SmallVector<int64_t>> ints = getConstantIntValues(v))
    return ints->size() == 1 ? std::optional<int64_t>((*ints)[0])
                             : std::nullopt;
  DenseFPElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  double value = (*attr.getValues<APFloat>().begin()).convertToDouble();
  // Beyond int64 (or NaN): an extreme, which the callers' range checks
  // refuse.
  constexpr double kLimit = 9.2e18;
  if (!(value > -kLimit && value < kLimit))
    return value > 0 ? std::numeric_limits<int64_t>::max()
                     : std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

LogicalResult fuse::detail::importOneHot(NodeImporter &n) {
  Value indices = n.input(0), values = n.input(2);
  auto type = dyn_cast<RankedTensorType>(indices.getType());
  if (!type || !type.hasStaticShape())
    return n.emitError() << "indices of dynamic shape are not supported";
  std::optional<int64_t> depth = getConstantScalarInt(n.input(1));
  if (!depth)
    return n.emitError() << "needs a constant 'depth'";
  // The positions are a constant of depth elements.
  constexpr int64_t kMaxDepth = int64_t(1) << 24;
  if (*depth < 1 || *depth > kMaxDepth)
    return n.emitError() << "depth = " << *depth << " is not in [1, "
                         << kMaxDepth << "]";
  int64_t rank = type.getRank() + 1;
  const auto *axisAttr = n.findAttr("axis");
  int64_t axisValue = axisAttr ? axisAttr->i() : -1;
  FailureOr<int64_t> axis = normalizeAxis(axisValue, rank);
  if (failed(axis))
    return n.emitError() << "axis " << axisValue << " is out of range for rank "
                         << rank;
  NodeEmitter e(n);
  Type i64 = IntegerType::get(n.getContext(), 64);
  // Negative indices count from depth; others out of range match nothing.
  Value index = e.cast(indices, i64);
  Value wrapped = e.op("onnx.Where",
                       {e.op("onnx.Less", {index, e.scalar(i64, 0)}),
                        e.op("onnx.Add", {index, e.scalar(i64, *depth)}),
                        index});
  Value expanded = e.op("onnx.Unsqueeze", {wrapped, e.i64s({*axis})});
  SmallVector<int64_t> positions, shape(rank, 1);
  shape[*axis] = *depth;
  for (int64_t i = 0; i < *depth; ++i)
    positions.push_back(i);
  Value iota = e.constant(DenseElementsAttr::get(
      RankedTensorType::get(shape, i64), ArrayRef(positions)));
  Value hot = e.op("onnx.Equal", {expanded, iota});
  auto pick = [&](int64_t i) {
    auto scalar = RankedTensorType::get({}, i64);
    return e.op("onnx.Gather",
                {values, e.constant(DenseElementsAttr::get(scalar, i))});
  };
  Value y = e.op("onnx.Where", {hot, pick(1), pick(0)});
  if (e.failed())
    return failure();
  n.results.push_back(y);
  return success();
}

/// TopK: k rounds, each taking the first best element not taken yet (the
/// lower index first among equal values, as ONNX orders them) and masking
/// it with the worst value of the type; when only masked-like values are
/// left (the input holds that value), the first untaken index.
LogicalResult fuse::detail::importTopK(NodeImporter &n) {
  Value x = n.input(0);
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1)
    return n.emitError() << "an input of dynamic shape is not supported";
  std::optional<int64_t> k;
  if (n.version < 10) {
    if (const auto *attr = n.findAttr("k"))
      k = attr->i();
  } else {
    k = getConstantScalarInt(n.input(1));
  }
  if (!k)
    return n.emitError() << "needs a constant 'k'";
  const auto *axisAttr = n.findAttr("axis");
  int64_t axisValue = axisAttr ? axisAttr->i() : -1;
  FailureOr<int64_t> axis = normalizeAxis(axisValue, type.getRank());
  if (failed(axis))
    return n.emitError() << "axis " << axisValue << " is out of range for rank "
                         << type.getRank();
  int64_t length = type.getDimSize(*axis);
  if (*k < 1 || *k > length)
    return n.emitError() << "k = " << *k << " is not in [1, " << length
                         << "]";
  // Each round is a dozen ops over the whole input: a large k would make
  // the graph (and the compile time) grow without bound.
  constexpr int64_t kMaxTopKRounds = 64;
  if (*k > kMaxTopKRounds)
    return n.emitError() << "k = " << *k << " is larger than the "
                         << kMaxTopKRounds
                         << " supported (TopK is built as k rounds of ArgMax)";
  // The positions along the axis become a constant of that many int64s.
  constexpr int64_t kMaxTopKLength = int64_t(1) << 24;
  if (length > kMaxTopKLength)
    return n.emitError() << "an axis of " << length
                         << " elements is longer than the " << kMaxTopKLength
                         << " supported";
  const auto *largestAttr = n.findAttr("largest");
  bool largest = !largestAttr || largestAttr->i() != 0;
  Type elementType = type.getElementType();
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!isa<FloatType>(elementType) && (!intType || intType.getWidth() == 1))
    return n.emitError() << "an input of " << elementType
                         << " is not supported";

  NodeEmitter e(n);
  Type i64 = IntegerType::get(n.getContext(), 64);
  auto worstType = RankedTensorType::get({}, elementType);
  Attribute worstAttr;
  if (auto floatType = dyn_cast<FloatType>(elementType))
    worstAttr = FloatAttr::get(
        elementType,
        APFloat::getInf(floatType.getFloatSemantics(), /*Negative=*/largest));
  else
    worstAttr = IntegerAttr::get(
        elementType, largest ? APInt::getSignedMinValue(intType.getWidth())
                             : APInt::getSignedMaxValue(intType.getWidth()));
  Value worst = e.constant(DenseElementsAttr::get(worstType, worstAttr));
  SmallVector<int64_t> shape(type.getRank(), 1), positions;
  shape[*axis] = length;
  for (int64_t i = 0; i < length; ++i)
    positions.push_back(i);
  Value iota = e.constant(DenseElementsAttr::get(
      RankedTensorType::get(shape, i64), ArrayRef(positions)));
  NamedAttribute axisNamed = e.intAttr("axis", *axis);
  StringRef pick = largest ? "onnx.ArgMax" : "onnx.ArgMin";
  Value left = x, taken;
  SmallVector<Value> values, indices;
  for (int64_t round = 0; round < *k; ++round) {
    Value best = e.op(pick, {left}, {axisNamed});
    if (taken) {
      // Only worst values left: the first index not taken yet.
      Value free = e.cast(e.op("onnx.Not", {taken}), IntegerType::get(
                                                         n.getContext(), 8));
      Value firstFree = e.op("onnx.ArgMax", {free}, {axisNamed});
      Value bestValue = e.op("onnx.GatherElements", {left, best}, {axisNamed});
      best = e.op("onnx.Where", {e.op("onnx.Equal", {bestValue, worst}),
                                 firstFree, best});
    }
    indices.push_back(best);
    values.push_back(e.op("onnx.GatherElements", {x, best}, {axisNamed}));
    Value hit = e.op("onnx.Equal", {iota, best});
    taken = taken ? e.op("onnx.Or", {taken, hit}) : hit;
    left = e.op("onnx.Where", {hit, worst, left});
  }
  Value allValues = e.op("onnx.Concat", values, {axisNamed});
  Value allIndices = e.op("onnx.Concat", indices, {axisNamed});
  if (e.failed())
    return failure();
  n.results = {allValues, allIndices};
  return success();
}
