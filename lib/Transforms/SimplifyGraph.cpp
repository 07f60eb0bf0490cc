//===- SimplifyGraph.cpp - Graph clean-up before fusion -------------------===//
//
// Exported models carry computations that need not run at all: shape
// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) that are
// constant once the input shapes are, Dropout/Identity, BatchNormalization
// after a convolution. This pass, in one walk over the function in order:
//
//  1. refines each op's result type from its (possibly just folded)
//     operands, so shapes that became known propagate;
//  2. folds ops whose operands are all constants (small tensors only);
//  3. folds BatchNormalization into the Conv before it, or else rewrites
//     it as Mul + Add with per-channel constants (elementwise, fusible);
//  4. forwards Identity;
//  5. replaces results with no elements (a dim of 0) by empty constants,
//     and drops such inputs of a Concat;
//  6. replaces a Reduce* of a tensor with no elements by the reduction's
//     identity (0 for sums, 1 for products, -inf for max, ...), and a Pad
//     of one by its pad value;
//  7. moves a scalar factor of an operand of a product of two activations
//     after the product (MatMul(x * c, y) = MatMul(x, y) * c), when the
//     product goes on into an elementwise op or a Softmax: PyTorch's sdpa
//     export scales Q and K by sqrt(scale) each, two kernels over whole
//     tensors, which after the product join the Softmax's group;
//  8. turns a Gemm of rows collapsed by a Reshape, whose result only
//     Reshapes read, into a MatMul of the uncollapsed tensor (GPT-2's
//     Conv1D: [B, S, H] -> [B*S, H] -> Gemm -> [B, S, N]), so the ops
//     after it see the product in the shape they use and join its group;
//  9. makes a Reshape of a Reshape one Reshape, and forwards a Reshape to
//     its input's own shape (what step 8 leaves behind);
// 10. makes a Concat, Sum, Max, Min or Mean of more than 64 inputs a tree
//     of such ops of at most 64 inputs each (a Mean: its chunks' Means,
//     each weighted by its share of the inputs, then Sums), so that no kernel
//     takes more buffers than a CUDA kernel's parameters hold and compile time
//     grows linearly with the inputs;
//
// then erases what is dead and updates the function's result types.
//
//===----------------------------------------------------------------------===//

#include "ConstantEvaluator.h"
#include "FusionUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <memory>
#include <unordered_map>

namespace fuse {
#define GEN_PASS_DEF_SIMPLIFYGRAPH
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Tensors up to this many elements are evaluated at compile time; shape
/// computations are far smaller, weights far larger.
static constexpr int64_t kMaxFoldElements = 1 << 16;

/// The most inputs a Concat, Sum, Max, Min or Mean keeps (step 10). A
/// kernel's buffers are its parameters: a CUDA kernel takes 4 KB of them
/// (about 540 pointers), and each gather of a Concat reads every input.
static constexpr size_t kMaxVariadicOperands = 64;

/// The most static type that both `a` and `b` describe, or null when they
/// contradict each other.
static Type joinTypes(Type a, Type b) {
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if (!ta || !tb)
    return a == b ? a : Type();
  if (ta.getElementType() != tb.getElementType())
    return Type();
  if (!ta.hasRank())
    return tb;
  if (!tb.hasRank())
    return ta;
  if (ta.getRank() != tb.getRank())
    return Type();
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape())) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return Type();
    shape.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return RankedTensorType::get(shape, ta.getElementType());
}

namespace {

class GraphSimplifier {
public:
  explicit GraphSimplifier(func::FuncOp func)
      : func(func), builder(func.getContext()) {}

  LogicalResult run();

private:
  const ConstantTensor *lookup(Value v);
  LogicalResult refineResultTypes(Operation *op);
  bool tryFoldEmpty(Operation *op);
  bool tryFoldEmptyReduction(Operation *op);
  bool tryFoldEmptyPad(Operation *op);
  bool dropEmptyInputs(ONNXConcatOp concat);
  bool tryFold(Operation *op);
  bool tryFoldBatchNorm(ONNXBatchNormalizationOp bn);
  bool tryHoistScalarFactors(ONNXMatMulOp matmul);
  bool tryUncollapseGemm(ONNXGemmOp gemm);
  bool tryMergeReshapes(ONNXReshapeOp reshape);
  bool trySplitWideVariadic(Operation *op);
  Value createReshape(Location loc, Value input, RankedTensorType type);
  void replaceWithConstant(Operation *op, ElementsAttr value);
  std::string blobName(Operation *op, StringRef suffix);

  func::FuncOp func;
  OpBuilder builder;
  std::unordered_map<const void *, std::unique_ptr<ConstantTensor>> cache;
  unsigned blobCounter = 0;
};

} // namespace

const ConstantTensor *GraphSimplifier::lookup(Value v) {
  if (!v)
    return nullptr;
  auto it = cache.find(v.getAsOpaquePointer());
  if (it != cache.end())
    return it->second.get();
  std::optional<ConstantTensor> t = readConstant(v, kMaxFoldElements);
  auto &slot = cache[v.getAsOpaquePointer()];
  if (t)
    slot = std::make_unique<ConstantTensor>(std::move(*t));
  return slot.get();
}

LogicalResult GraphSimplifier::refineResultTypes(Operation *op) {
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return success();
  SmallVector<Type> inferred;
  if (failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), inferred)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
    Type joined = joinTypes(result.getType(), type);
    if (!joined)
      return op->emitOpError("result type ")
             << result.getType() << " contradicts the inferred type " << type;
    result.setType(joined);
  }
  return success();
}

std::string GraphSimplifier::blobName(Operation *op, StringRef suffix) {
  return blobNameStem(op, "folded") + "_" + suffix.str() + "_" +
         std::to_string(blobCounter++);
}

void GraphSimplifier::replaceWithConstant(Operation *op, ElementsAttr value) {
  builder.setInsertionPoint(op);
  auto constant = ONNXConstantOp::create(builder, op->getLoc(),
                                         value.getShapedType(), value);
  op->getResult(0).replaceAllUsesWith(constant.getResult());
  op->erase();
}

/// A tensor of static shape with no elements (a dim of 0).
static bool isEmptyTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 0;
}

/// An op whose result has no elements (a dim of 0) computes nothing: its
/// result is an empty constant, whatever its operands, and no kernel runs
/// for it (a kernel would have no loop).
bool GraphSimplifier::tryFoldEmpty(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  Type type = op->getResult(0).getType();
  if (!isEmptyTensor(type) ||
      !cast<RankedTensorType>(type).getElementType().isIntOrFloat())
    return false;
  replaceWithConstant(op, DenseElementsAttr::get(cast<RankedTensorType>(type),
                                                 ArrayRef<Attribute>{}));
  return true;
}

/// What a Reduce* op gives for an empty set: the identity of its
/// reduction (ONNX's values: log(0) = -inf for the log sums, 0 / 0 for the
/// mean), or null for other ops.
static Attribute getEmptyReductionValue(Operation *op, Type elementType) {
  auto floatType = dyn_cast<FloatType>(elementType);
  auto intType = dyn_cast<IntegerType>(elementType);
  auto fromDouble = [&](double value) -> Attribute {
    if (floatType)
      return FloatAttr::get(floatType, value);
    return Attribute();
  };
  if (isa<ONNXReduceSumOp, ONNXReduceL1Op, ONNXReduceL2Op,
          ONNXReduceSumSquareOp>(op))
    return floatType ? fromDouble(0.0) : IntegerAttr::get(elementType, 0);
  if (isa<ONNXReduceProdOp>(op))
    return floatType ? fromDouble(1.0) : IntegerAttr::get(elementType, 1);
  if (isa<ONNXReduceLogSumOp, ONNXReduceLogSumExpOp>(op))
    return fromDouble(-std::numeric_limits<double>::infinity());
  if (isa<ONNXReduceMeanOp>(op))
    return fromDouble(std::numeric_limits<double>::quiet_NaN());
  bool isMax = isa<ONNXReduceMaxOp>(op);
  if (!isMax && !isa<ONNXReduceMinOp>(op))
    return Attribute();
  if (floatType)
    return fromDouble(isMax ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity());
  if (!intType)
    return Attribute();
  // Bool: max is `or` (false), min is `and` (true).
  unsigned width = intType.getWidth();
  APInt value = width == 1 ? APInt(1, isMax ? 0 : 1)
                : intType.isUnsigned()
                    ? (isMax ? APInt::getMinValue(width)
                             : APInt::getMaxValue(width))
                    : (isMax ? APInt::getSignedMinValue(width)
                             : APInt::getSignedMaxValue(width));
  return IntegerAttr::get(elementType, value);
}

/// A Reduce* of a tensor with no elements whose result has elements (the
/// reduced dims are the empty ones) is the reduction's identity.
bool GraphSimplifier::tryFoldEmptyReduction(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() < 1 ||
      !isEmptyTensor(op->getOperand(0).getType()))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  Attribute value = getEmptyReductionValue(op, type.getElementType());
  if (!value)
    return false;
  replaceWithConstant(op, DenseElementsAttr::get(type, value));
  return true;
}

/// A Pad of a tensor with no elements whose result has elements (constant
/// mode: the Pad verifier refuses the others for an empty padded dim) is
/// the pad value everywhere: a constant, or the value expanded to the
/// result's shape (a kernel would read an empty buffer).
bool GraphSimplifier::tryFoldEmptyPad(Operation *op) {
  auto pad = dyn_cast<ONNXPadOp>(op);
  if (!pad || pad.getMode() != "constant" ||
      !isEmptyTensor(pad.getData().getType()))
    return false;
  auto type = dyn_cast<RankedTensorType>(pad.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return false;
  Type elementType = type.getElementType();
  Attribute value;
  if (Value fill = pad.getConstantValue()) {
    auto constant = fill.getDefiningOp<ONNXConstantOp>();
    auto dense =
        constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
    if (!dense || !dense.isSplat()) {
      // Not known here: the value broadcast to the result's shape.
      builder.setInsertionPoint(op);
      Value shape = createI64Constant(builder, op->getLoc(), type.getShape());
      Value expanded =
          ONNXExpandOp::create(builder, op->getLoc(), type, fill, shape);
      op->getResult(0).replaceAllUsesWith(expanded);
      op->erase();
      return true;
    }
    value = dense.getSplatValue<Attribute>();
  } else if (auto floatType = dyn_cast<FloatType>(elementType)) {
    value = FloatAttr::get(floatType, 0.0);
  } else if (isa<IntegerType>(elementType)) {
    value = IntegerAttr::get(elementType, 0);
  } else {
    return false;
  }
  replaceWithConstant(op, DenseElementsAttr::get(type, value));
  return true;
}

/// A Concat's inputs with no elements add nothing to it; a Concat left
/// with one input is that input (true: the Concat is erased).
bool GraphSimplifier::dropEmptyInputs(ONNXConcatOp concat) {
  SmallVector<Value> inputs;
  for (Value input : concat->getOperands())
    if (!isEmptyTensor(input.getType()))
      inputs.push_back(input);
  if (inputs.empty() || inputs.size() == concat->getNumOperands())
    return false;
  if (inputs.size() == 1 && inputs[0].getType() == concat.getType()) {
    concat.getResult().replaceAllUsesWith(inputs[0]);
    concat.erase();
    return true;
  }
  concat->setOperands(inputs);
  return false;
}

bool GraphSimplifier::tryFold(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  // Ops with folders (Shape of a static tensor needs no constant operand;
  // ConstantOfShape gives a splat of any size).
  SmallVector<OpFoldResult> folded;
  if (!isa<ONNXConstantOp>(op) && succeeded(op->fold(folded)) &&
      folded.size() == 1)
    if (auto value =
            dyn_cast_or_null<ElementsAttr>(dyn_cast<Attribute>(folded[0])))
      if (value.getShapedType() == type) {
        replaceWithConstant(op, value);
        return true;
      }
  if (type.getNumElements() > kMaxFoldElements)
    return false;
  std::optional<ConstantTensor> result =
      evaluateConstantOp(op, [this](Value v) { return lookup(v); });
  if (!result)
    return false;
  replaceWithConstant(op, buildConstantAttr(*result, blobName(op, "value")));
  return true;
}

/// `scale / sqrt(var + epsilon)` and `B - mean * that`, per channel.
static std::optional<std::pair<std::vector<double>, std::vector<double>>>
getBatchNormAffine(ONNXBatchNormalizationOp bn,
                   llvm::function_ref<const ConstantTensor *(Value)> lookup) {
  const ConstantTensor *scale = lookup(bn.getScale());
  const ConstantTensor *bias = lookup(bn.getB());
  const ConstantTensor *mean = lookup(bn.getInputMean());
  const ConstantTensor *var = lookup(bn.getInputVar());
  if (!scale || !bias || !mean || !var)
    return std::nullopt;
  int64_t c = scale->size();
  if (bias->size() != c || mean->size() != c || var->size() != c)
    return std::nullopt;
  double epsilon = bn.getEpsilon().convertToDouble();
  std::vector<double> factor(c), shift(c);
  for (int64_t i = 0; i < c; ++i) {
    factor[i] = scale->floats[i] / std::sqrt(var->floats[i] + epsilon);
    shift[i] = bias->floats[i] - mean->floats[i] * factor[i];
  }
  return std::make_pair(std::move(factor), std::move(shift));
}

bool GraphSimplifier::tryFoldBatchNorm(ONNXBatchNormalizationOp bn) {
  auto type = dyn_cast<RankedTensorType>(bn.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2)
    return false;
  auto affine = getBatchNormAffine(bn, [this](Value v) { return lookup(v); });
  if (!affine)
    return false;
  auto &[factor, shift] = *affine;
  int64_t channels = type.getDimSize(1);
  if (static_cast<int64_t>(factor.size()) != channels)
    return false;
  Type elementType = type.getElementType();
  builder.setInsertionPoint(bn);
  Location loc = bn.getLoc();

  // Conv -> BN: scale the filters of each output channel, shift the bias.
  auto conv = bn.getX().getDefiningOp<ONNXConvOp>();
  if (conv && conv->hasOneUse() && conv.getType() == bn.getType()) {
    std::optional<ConstantTensor> w =
        readConstant(conv.getW(), std::numeric_limits<int64_t>::max());
    std::optional<ConstantTensor> b;
    if (conv.getB())
      b = readConstant(conv.getB(), std::numeric_limits<int64_t>::max());
    if (w && w->isFloat() && w->type.getDimSize(0) == channels &&
        (!conv.getB() || (b && b->size() == channels))) {
      int64_t perChannel = w->size() / channels;
      for (int64_t m = 0; m < channels; ++m)
        for (int64_t k = 0; k < perChannel; ++k)
          w->floats[m * perChannel + k] *= factor[m];
      ConstantTensor newB;
      newB.type = RankedTensorType::get({channels}, elementType);
      for (int64_t m = 0; m < channels; ++m)
        newB.floats.push_back((b ? b->floats[m] : 0.0) * factor[m] +
                              shift[m]);
      Value wValue = ONNXConstantOp::create(
          builder, loc, w->type, buildConstantAttr(*w, blobName(conv, "W")));
      Value bValue = ONNXConstantOp::create(
          builder, loc, newB.type,
          buildConstantAttr(newB, blobName(conv, "B")));
      OperationState state(conv.getLoc(), conv->getName());
      state.addOperands({conv.getX(), wValue, bValue});
      state.addAttributes(conv->getAttrs());
      state.addTypes(conv.getType());
      Operation *folded = builder.create(state);
      bn.getResult().replaceAllUsesWith(folded->getResult(0));
      bn.erase();
      conv.erase();
      return true;
    }
  }

  // Otherwise X * factor + shift, the vectors shaped [C, 1, ..., 1] to
  // broadcast along dim 1.
  SmallVector<int64_t> vectorShape(type.getRank() - 1, 1);
  vectorShape[0] = channels;
  auto vectorType = RankedTensorType::get(vectorShape, elementType);
  ConstantTensor f{vectorType, factor, {}}, s{vectorType, shift, {}};
  Value fValue = ONNXConstantOp::create(
      builder, loc, vectorType, buildConstantAttr(f, blobName(bn, "scale")));
  Value sValue = ONNXConstantOp::create(
      builder, loc, vectorType, buildConstantAttr(s, blobName(bn, "shift")));
  Value mul = ONNXMulOp::create(builder, loc, type, bn.getX(), fValue);
  Value add = ONNXAddOp::create(builder, loc, type, mul, sValue);
  bn.getResult().replaceAllUsesWith(add);
  bn.erase();
  return true;
}

/// Step 7. Only for a product of two activations whose result goes on into
/// a Softmax or an elementwise op, which the moved factor joins: against a
/// weight, folding the factor into the weight would be the better rewrite,
/// and a product whose consumer is a library call's epilogue would get a
/// kernel of its own for the factor.
bool GraphSimplifier::tryHoistScalarFactors(ONNXMatMulOp matmul) {
  auto type = dyn_cast<RankedTensorType>(matmul.getType());
  if (!type || !isa<FloatType>(type.getElementType()) || !matmul->hasOneUse())
    return false;
  Operation *user = *matmul->getUsers().begin();
  if (!isa<ONNXSoftmaxOp>(user) && !isElementwiseOp(user))
    return false;
  auto isConstant = [](Value v) {
    return v.getDefiningOp<ONNXConstantOp>() != nullptr;
  };
  bool hoisted = false;
  for (OpOperand &operand : matmul->getOpOperands()) {
    auto mul = operand.get().getDefiningOp<ONNXMulOp>();
    if (!mul || !mul->hasOneUse())
      continue;
    for (unsigned i : {0u, 1u}) {
      Value factor = mul->getOperand(i), scaled = mul->getOperand(1 - i);
      auto factorType = dyn_cast<RankedTensorType>(factor.getType());
      // A scalar that does not broadcast `scaled` (nor, below, the
      // product) to more dims.
      if (!factorType || !factorType.hasStaticShape() ||
          factorType.getNumElements() != 1 ||
          factorType.getRank() > type.getRank() ||
          scaled.getType() != mul.getType() || isConstant(scaled) ||
          isConstant(matmul->getOperand(1 - operand.getOperandNumber())))
        continue;
      operand.set(scaled);
      builder.setInsertionPointAfter(matmul);
      Value product = matmul.getResult();
      auto moved =
          ONNXMulOp::create(builder, mul.getLoc(), type, product, factor);
      product.replaceAllUsesExcept(moved, moved);
      mul.erase();
      hoisted = true;
      break;
    }
  }
  return hoisted;
}

/// A Reshape of `input` to static `type`, its shape given in full (no 0 or
/// -1 to read from the input).
Value GraphSimplifier::createReshape(Location loc, Value input,
                                     RankedTensorType type) {
  return ONNXReshapeOp::create(builder, loc, type, input,
                               createI64Constant(builder, loc, type.getShape()),
                               /*allowzero=*/1);
}

/// Step 8. `Gemm(Reshape(x), W, c)` where the Reshape collapses x's leading
/// dims L into the rows (and its other dims into K), W is not transposed,
/// c is absent or a vector over the columns (or a scalar for one column),
/// and every user of the result
/// is a Reshape: `Reshape(MatMul(x', W) + c)`, x' being x with its
/// trailing dims merged (a view). A user that is no Reshape (an
/// elementwise epilogue on the rows) would have had to read through the
/// new Reshape, which it cannot fuse across.
bool GraphSimplifier::tryUncollapseGemm(ONNXGemmOp gemm) {
  auto rows = gemm.getA().getDefiningOp<ONNXReshapeOp>();
  auto type = dyn_cast<RankedTensorType>(gemm.getType());
  if (!rows || !type || !type.hasStaticShape() || gemm.getTransA() != 0 ||
      gemm.getTransB() != 0 || gemm.getAlpha().convertToFloat() != 1.0f ||
      gemm.getBeta().convertToFloat() != 1.0f || gemm->use_empty() ||
      !llvm::all_of(gemm->getUsers(),
                    [](Operation *user) { return isa<ONNXReshapeOp>(user); }))
    return false;
  auto xType = dyn_cast<RankedTensorType>(rows.getData().getType());
  auto bType = dyn_cast<RankedTensorType>(gemm.getB().getType());
  if (!xType || !xType.hasStaticShape() || !bType || !bType.hasStaticShape() ||
      bType.getRank() != 2 || xType.getElementType() != type.getElementType())
    return false;
  int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  int64_t k = bType.getDimSize(0);
  // The longest prefix of x's dims that makes the rows; the rest is K.
  ArrayRef<int64_t> xShape = xType.getShape();
  int64_t prefix = 0, rowCount = 1;
  for (int64_t i = 0; i + 1 < xType.getRank(); ++i) {
    rowCount *= xShape[i];
    if (rowCount == m)
      prefix = i + 1;
    else if (rowCount > m)
      break;
  }
  if (prefix == 0 || m == 0 || k == 0 || n == 0 ||
      xType.getNumElements() != m * k)
    return false;
  if (Value c = gemm.getC()) {
    auto cType = dyn_cast<RankedTensorType>(c.getType());
    if (!cType || !cType.hasStaticShape() ||
        cType.getElementType() != type.getElementType() ||
        cType.getNumElements() != n ||
        (cType.getRank() > 0 && cType.getShape().back() != n))
      return false;
  }

  builder.setInsertionPoint(gemm);
  Location loc = gemm.getLoc();
  SmallVector<int64_t> lhsShape(xShape.take_front(prefix));
  lhsShape.push_back(k);
  auto lhsType = RankedTensorType::get(lhsShape, xType.getElementType());
  Value lhs = rows.getData();
  if (lhsType != xType)
    lhs = createReshape(rows.getLoc(), lhs, lhsType);
  lhsShape.back() = n;
  auto productType = RankedTensorType::get(lhsShape, type.getElementType());
  Value product =
      ONNXMatMulOp::create(builder, loc, productType, lhs, gemm.getB());
  if (Value c = gemm.getC())
    product = ONNXAddOp::create(builder, loc, productType, product, c);
  gemm.getResult().replaceAllUsesWith(createReshape(loc, product, type));
  gemm.erase();
  return true;
}

/// Replaces `op`'s one result by `input` when they have the same type,
/// except straight into the return, where the graph output needs a value
/// of its own; erases `op`.
static bool forwardInput(Operation *op, Value input) {
  if (input.getType() != op->getResult(0).getType() || feedsReturn(op))
    return false;
  op->getResult(0).replaceAllUsesWith(input);
  op->erase();
  return true;
}

/// Step 9.
bool GraphSimplifier::tryMergeReshapes(ONNXReshapeOp reshape) {
  auto type = dyn_cast<RankedTensorType>(reshape.getType());
  if (!type || !type.hasStaticShape())
    return false;
  Value input = reshape.getData();
  bool merged = false;
  if (auto inner = input.getDefiningOp<ONNXReshapeOp>()) {
    builder.setInsertionPoint(reshape);
    Value one = createReshape(reshape.getLoc(), inner.getData(), type);
    reshape.getResult().replaceAllUsesWith(one);
    reshape.erase();
    reshape = one.getDefiningOp<ONNXReshapeOp>();
    input = reshape.getData();
    merged = true;
  }
  return forwardInput(reshape, input) || merged;
}

/// Step 10.
bool GraphSimplifier::trySplitWideVariadic(Operation *op) {
  if (!isa<ONNXConcatOp, ONNXSumOp, ONNXMaxOp, ONNXMinOp, ONNXMeanOp>(op) ||
      op->getNumOperands() <= kMaxVariadicOperands)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !llvm::all_of(op->getOperandTypes(),
                             [](Type t) { return isa<RankedTensorType>(t); }))
    return false;
  auto concat = dyn_cast<ONNXConcatOp>(op);
  int64_t axis = 0;
  if (concat) {
    FailureOr<int64_t> normalized =
        normalizeAxis(concat.getAxis(), type.getRank());
    if (failed(normalized))
      return false;
    axis = *normalized;
  }
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  // One op of the tree over `values`; `resultType` when it is the root.
  auto combine = [&](ArrayRef<Value> values, RankedTensorType resultType,
                     bool asMean = false) -> FailureOr<Value> {
    if (!resultType) {
      SmallVector<ArrayRef<int64_t>> shapes;
      for (Value v : values)
        shapes.push_back(cast<RankedTensorType>(v.getType()).getShape());
      SmallVector<int64_t> shape(shapes.front());
      if (concat) {
        shape[axis] = 0;
        for (ArrayRef<int64_t> s : shapes)
          shape[axis] = ShapedType::isDynamic(s[axis]) ||
                                ShapedType::isDynamic(shape[axis])
                            ? ShapedType::kDynamic
                            : shape[axis] + s[axis];
      } else {
        FailureOr<SmallVector<int64_t>> broadcast = broadcastAllShapes(shapes);
        if (failed(broadcast))
          return failure();
        shape = *broadcast;
      }
      resultType = RankedTensorType::get(shape, type.getElementType());
    }
    if (concat)
      return ONNXConcatOp::create(builder, loc, resultType, values,
                                  concat.getAxis())
          .getResult();
    if (isa<ONNXMaxOp>(op))
      return ONNXMaxOp::create(builder, loc, resultType, values).getResult();
    if (isa<ONNXMinOp>(op))
      return ONNXMinOp::create(builder, loc, resultType, values).getResult();
    if (asMean)
      return ONNXMeanOp::create(builder, loc, resultType, values).getResult();
    return ONNXSumOp::create(builder, loc, resultType, values).getResult();
  };
  // Balanced: each level splits its values into as few chunks as it can,
  // of equal sizes (to one).
  SmallVector<Value> level(op->getOperands());
  SmallVector<Operation *> created;
  auto undo = [&] {
    for (Operation *c : llvm::reverse(created))
      c->erase();
    return false;
  };
  // A Mean's first level is its chunks' Means, each weighted by its share
  // of the inputs, and the levels above add those up: no value stored
  // between groups grows beyond the inputs' magnitude (200 float16 inputs
  // of 2000 overflowed in a Sum before a final division).
  bool mean = isa<ONNXMeanOp>(op);
  if (mean && !isa<FloatType>(type.getElementType()))
    return false;
  auto scalar = [&](double value) -> Value {
    auto scalarType = RankedTensorType::get({}, type.getElementType());
    return ONNXConstantOp::create(
        builder, loc, scalarType,
        DenseElementsAttr::get(
            scalarType, builder.getFloatAttr(type.getElementType(), value)));
  };
  bool first = true;
  while (level.size() > kMaxVariadicOperands) {
    size_t chunks = llvm::divideCeil(level.size(), kMaxVariadicOperands);
    SmallVector<Value> next;
    for (size_t c = 0, begin = 0; c < chunks; ++c) {
      size_t end = (c + 1) * level.size() / chunks;
      ArrayRef<Value> chunk = ArrayRef<Value>(level).slice(begin, end - begin);
      FailureOr<Value> value = combine(chunk, nullptr, mean && first);
      if (failed(value))
        return undo();
      created.push_back(value->getDefiningOp());
      if (mean && first) {
        Value weighted = ONNXMulOp::create(
            builder, loc, value->getType(), *value,
            scalar(double(chunk.size()) / double(op->getNumOperands())));
        created.push_back(weighted.getDefiningOp());
        value = weighted;
      }
      next.push_back(*value);
      begin = end;
    }
    level = std::move(next);
    first = false;
  }
  FailureOr<Value> result = combine(level, type);
  if (failed(result))
    return undo();
  op->getResult(0).replaceAllUsesWith(*result);
  op->erase();
  return true;
}

LogicalResult GraphSimplifier::run() {
  Block &body = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!isa<ONNXDialect>(op.getDialect()) || isa<ONNXConstantOp>(op))
      continue;
    if (failed(refineResultTypes(&op)))
      return failure();
    if (tryFoldEmpty(&op) || tryFoldEmptyReduction(&op) || tryFold(&op) ||
        tryFoldEmptyPad(&op))
      continue;
    // May erase the Concat: nothing below applies to one anyway.
    if (auto concat = dyn_cast<ONNXConcatOp>(op)) {
      if (!dropEmptyInputs(concat))
        trySplitWideVariadic(concat);
      continue;
    }
    if (trySplitWideVariadic(&op))
      continue;
    if (auto bn = dyn_cast<ONNXBatchNormalizationOp>(op)) {
      tryFoldBatchNorm(bn);
      continue;
    }
    if (auto matmul = dyn_cast<ONNXMatMulOp>(op)) {
      tryHoistScalarFactors(matmul);
      continue;
    }
    if (auto gemm = dyn_cast<ONNXGemmOp>(op)) {
      tryUncollapseGemm(gemm);
      continue;
    }
    if (auto reshape = dyn_cast<ONNXReshapeOp>(op)) {
      tryMergeReshapes(reshape);
      continue;
    }
    // Identity forwards its input, except straight into the return, where
    // the graph output needs a value of its own.
    if (auto identity = dyn_cast<ONNXIdentityOp>(op))
      forwardInput(identity, identity.getInput());
  }

  // Dead ops, last first so chains go in one sweep.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isa<ONNXDialect>(op.getDialect()) && op.use_empty())
      op.erase();

  // The graph outputs may have become more static.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getArgumentTypes(), ret.getOperandTypes()));
  return success();
}

namespace {
struct SimplifyGraphPass
    : public fuse::impl::SimplifyGraphBase<SimplifyGraphPass> {
  void runOnOperation() override {
    if (failed(GraphSimplifier(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
