//===- Reduction.cpp - Reduce*, Softmax and LayerNormalization -----------===//
//
// A reduction is a linalg.generic whose loops are the kept dims (the output
// shape) followed by the reduced dims. Softmax and LayerNormalization are
// two row reductions and a final elementwise generic over the input; that
// generic is marked with the row dims (`fuse.row_dims`), which
// fuse-form-kernel-loops keeps whole in each iteration, so every row's
// statistics are computed once, not once per element.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

/// Folds one element into the accumulator: `acc` and the scalars of the
/// reduction's inputs (the reduced tensor first).
using CombineFn = llvm::function_ref<Value(OpBuilder &, Location, Value acc,
                                           ArrayRef<Value> x)>;

/// Reduces `input` over `reducedDims` (sorted). The result keeps the
/// reduced dims as size 1 when `keepDims`, else drops them. `extras` are
/// further inputs of the reduction's result shape with kept dims (e.g. a
/// row maximum), read at the row of each element.
static Value buildReduction(OpBuilder &b, Location loc, Value input,
                            ArrayRef<int64_t> reducedDims, bool keepDims,
                            ValueRange extras, TypedAttr init,
                            CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  auto isReduced = [&](int64_t d) { return llvm::is_contained(reducedDims, d); };

  // Loop dims: the output dims, then one per reduced dim.
  SmallVector<int64_t> outShape, keptShape;
  SmallVector<AffineExpr> inputExprs(rank), keptExprs(rank);
  int64_t numOut = 0;
  for (int64_t d = 0; d < rank; ++d) {
    keptShape.push_back(isReduced(d) ? 1 : inputType.getDimSize(d));
    if (!isReduced(d) || keepDims)
      outShape.push_back(keptShape.back());
  }
  numOut = outShape.size();
  int64_t numLoops = numOut + static_cast<int64_t>(reducedDims.size());
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < numOut; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  int64_t nextOut = 0, nextReduced = numOut;
  for (int64_t d = 0; d < rank; ++d) {
    if (isReduced(d)) {
      inputExprs[d] = getAffineDimExpr(nextReduced++, ctx);
      keptExprs[d] = getAffineConstantExpr(0, ctx);
      if (keepDims)
        ++nextOut;
    } else {
      inputExprs[d] = getAffineDimExpr(nextOut, ctx);
      keptExprs[d] = getAffineDimExpr(nextOut, ctx);
      ++nextOut;
    }
  }
  SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, inputExprs, ctx)};
  for (size_t i = 0; i < extras.size(); ++i)
    maps.push_back(AffineMap::get(numLoops, 0, keptExprs, ctx));
  maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));

  SmallVector<utils::IteratorType> iterators(numOut,
                                             utils::IteratorType::parallel);
  iterators.append(reducedDims.size(), utils::IteratorType::reduction);
  auto resultType = RankedTensorType::get(outShape, inputType.getElementType());
  Value filled = buildFilled(b, loc, resultType, init);
  SmallVector<Value> inputs{input};
  llvm::append_range(inputs, extras);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, filled, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value acc = args.back();
        SmallVector<Value> scalars(args.drop_back());
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, acc, scalars));
      });
  return generic.getResult(0);
}

static TypedAttr zeroAttr(Type type) {
  OpBuilder b(type.getContext());
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, 0.0);
  return b.getIntegerAttr(type, 0);
}

static TypedAttr highestAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(type, APFloat::getInf(floatType.getFloatSemantics()));
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
}

/// Marks the generic that produces `value` with the dims each kernel loop
/// iteration must keep whole.
static void markRowDims(Value value, ArrayRef<int64_t> dims) {
  Operation *op = value.getDefiningOp();
  op->setAttr("fuse.row_dims",
              DenseI64ArrayAttr::get(op->getContext(), dims));
}

namespace {

/// What a sum-based reduction adds up: |x| (L1), x^2 (L2, SumSquare),
/// exp(x) (LogSumExp), x itself otherwise.
template <typename OpTy>
static Value mapBeforeSum(OpBuilder &b, Location loc, Value x) {
  if constexpr (std::is_same_v<OpTy, ONNXReduceL1Op>)
    return isa<FloatType>(x.getType()) ? Value(math::AbsFOp::create(b, loc, x))
                                       : Value(math::AbsIOp::create(b, loc, x));
  if constexpr (std::is_same_v<OpTy, ONNXReduceL2Op> ||
                std::is_same_v<OpTy, ONNXReduceSumSquareOp>)
    return buildMul(b, loc, x, x);
  if constexpr (std::is_same_v<OpTy, ONNXReduceLogSumExpOp>)
    return math::ExpOp::create(b, loc, x);
  return x;
}

template <typename OpTy> static constexpr bool hasMapAfterSum() {
  return std::is_same_v<OpTy, ONNXReduceL2Op> ||
         std::is_same_v<OpTy, ONNXReduceLogSumOp> ||
         std::is_same_v<OpTy, ONNXReduceLogSumExpOp>;
}

/// What becomes of the sum: sqrt (L2), log (LogSum, LogSumExp).
template <typename OpTy>
static Value mapAfterSum(OpBuilder &b, Location loc, Value sum) {
  if constexpr (std::is_same_v<OpTy, ONNXReduceL2Op>)
    return math::SqrtOp::create(b, loc, sum);
  return math::LogOp::create(b, loc, sum);
}

template <typename OpTy>
struct ReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    FailureOr<SmallVector<int64_t>> dims =
        op.getReducedDims(dataType.getRank());
    if (failed(dims))
      return op.emitOpError("needs constant, valid axes");
    bool keepDims = op.getKeepdims() != 0;
    if (dims->empty()) {
      // noop_with_empty_axes: the input, unchanged.
      rewriter.replaceOp(op, buildElementwise(
                                 rewriter, loc, type, {data},
                                 [](OpBuilder &, Location, ArrayRef<Value> x) {
                                   return x[0];
                                 }));
      return success();
    }
    constexpr bool isMax = std::is_same_v<OpTy, ONNXReduceMaxOp>;
    constexpr bool isMin = std::is_same_v<OpTy, ONNXReduceMinOp>;
    constexpr bool isProd = std::is_same_v<OpTy, ONNXReduceProdOp>;
    bool isBool = elementType.isInteger(1);
    bool isFloat = isa<FloatType>(elementType);
    TypedAttr init = isMax   ? getLowestAttr(elementType)
                     : isMin ? highestAttr(elementType)
                             : zeroAttr(elementType);
    if (isProd)
      init = isFloat ? TypedAttr(rewriter.getFloatAttr(elementType, 1.0))
                     : TypedAttr(rewriter.getIntegerAttr(elementType, 1));
    if (isBool) // max is `or` (from false), min is `and` (from true)
      init = rewriter.getBoolAttr(isMin);
    Value reduced = buildReduction(
        rewriter, loc, data, *dims, keepDims, {}, init,
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> x) -> Value {
          if (isBool && isMax)
            return arith::OrIOp::create(b, l, acc, x[0]);
          if (isBool && isMin)
            return arith::AndIOp::create(b, l, acc, x[0]);
          if (isMax)
            return buildMax(b, l, acc, x[0]);
          if (isMin)
            return buildMin(b, l, acc, x[0]);
          if (isProd)
            return buildMul(b, l, acc, x[0]);
          return buildAdd(b, l, acc, mapBeforeSum<OpTy>(b, l, x[0]));
        });
    if constexpr (hasMapAfterSum<OpTy>())
      reduced = buildElementwise(
          rewriter, loc, type, {reduced},
          [&](OpBuilder &b, Location l, ArrayRef<Value> x) -> Value {
            return mapAfterSum<OpTy>(b, l, x[0]);
          });
    if constexpr (std::is_same_v<OpTy, ONNXReduceMeanOp>) {
      int64_t count = 1;
      for (int64_t d : *dims)
        count *= dataType.getDimSize(d);
      reduced = buildElementwise(
          rewriter, loc, type, {reduced},
          [&](OpBuilder &b, Location l, ArrayRef<Value> x) -> Value {
            Value n = buildScalar(b, l, elementType, count);
            if (isa<FloatType>(elementType))
              return arith::DivFOp::create(b, l, x[0], n);
            return arith::DivSIOp::create(b, l, x[0], n);
          });
    }
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

/// `exp(x - max) / sum(exp(x - max))` along `axis`.
struct SoftmaxLowering : public OpConversionPattern<ONNXSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = *normalizeAxis(op.getAxis(), type.getRank());
    Type elementType = type.getElementType();
    Value max = buildReduction(
        rewriter, loc, x, {axis}, /*keepDims=*/true, {},
        getLowestAttr(elementType),
        [](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) {
          return buildMax(b, l, acc, v[0]);
        });
    Value sum = buildReduction(
        rewriter, loc, x, {axis}, /*keepDims=*/true, {max},
        zeroAttr(elementType),
        [](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
          Value e =
              math::ExpOp::create(b, l, arith::SubFOp::create(b, l, v[0], v[1]));
          return arith::AddFOp::create(b, l, acc, e);
        });
    Value result = buildElementwise(
        rewriter, loc, type, {x, max, sum},
        [](OpBuilder &b, Location l, ArrayRef<Value> v) -> Value {
          Value e =
              math::ExpOp::create(b, l, arith::SubFOp::create(b, l, v[0], v[1]));
          return arith::DivFOp::create(b, l, e, v[2]);
        });
    markRowDims(result, {axis});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `(x - mean) / sqrt(var + epsilon) * Scale + B` over dims [axis, rank),
/// with the variance of the centered values (two passes, as accurate as
/// onnxruntime's).
struct LayerNormLowering
    : public OpConversionPattern<ONNXLayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t axis = *normalizeAxis(op.getAxis(), rank);
    Type elementType = type.getElementType();
    SmallVector<int64_t> dims;
    int64_t count = 1;
    for (int64_t d = axis; d < rank; ++d) {
      dims.push_back(d);
      count *= type.getDimSize(d);
    }
    double epsilon = op.getEpsilon().convertToDouble();
    auto mean = [count](OpBuilder &b, Location l, Value total) -> Value {
      return arith::DivFOp::create(
          b, l, total, buildScalar(b, l, total.getType(), count));
    };
    Value sum = buildReduction(
        rewriter, loc, x, dims, /*keepDims=*/true, {}, zeroAttr(elementType),
        [](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
          return arith::AddFOp::create(b, l, acc, v[0]);
        });
    Value squares = buildReduction(
        rewriter, loc, x, dims, /*keepDims=*/true, {sum},
        zeroAttr(elementType),
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
          Value d = arith::SubFOp::create(b, l, v[0], mean(b, l, v[1]));
          return arith::AddFOp::create(b, l, acc,
                                       arith::MulFOp::create(b, l, d, d));
        });
    bool hasBias = static_cast<bool>(adaptor.getB());
    Value result = buildElementwise(
        rewriter, loc, type,
        {x, sum, squares, adaptor.getScale(), adaptor.getB()},
        [&](OpBuilder &b, Location l, ArrayRef<Value> v) -> Value {
          Value centered = arith::SubFOp::create(b, l, v[0], mean(b, l, v[1]));
          Value var = mean(b, l, v[2]);
          Value stddev = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, var,
                                    buildScalar(b, l, elementType, epsilon)));
          Value y = arith::MulFOp::create(
              b, l, arith::DivFOp::create(b, l, centered, stddev), v[3]);
          return hasBias ? arith::AddFOp::create(b, l, y, v[4]).getResult()
                         : y;
        });
    markRowDims(result, dims);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void fuse::lowering::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ONNXReduceMeanOp>,
               ReduceLowering<ONNXReduceSumOp>,
               ReduceLowering<ONNXReduceMaxOp>,
               ReduceLowering<ONNXReduceMinOp>,
               ReduceLowering<ONNXReduceL1Op>, ReduceLowering<ONNXReduceL2Op>,
               ReduceLowering<ONNXReduceLogSumOp>,
               ReduceLowering<ONNXReduceLogSumExpOp>,
               ReduceLowering<ONNXReduceSumSquareOp>,
               ReduceLowering<ONNXReduceProdOp>, SoftmaxLowering,
               LayerNormLowering>(patterns.getContext());
}
