//===- Reduction.cpp - Reduce*, Softmax, normalizations, scans -----------===//
//
// A reduction is a linalg.generic whose loops are the kept dims (the output
// shape) followed by the reduced dims. Softmax and the normalizations
// (Layer, RMS, Instance, Group) are row reductions and a final elementwise
// generic over the input; that generic is marked with the row dims
// (`fuse.row_dims`), which fuse-form-kernel-loops keeps whole in each
// iteration, so every row's statistics are computed once, not once per
// element. LRN, CumSum and ArgMax/ArgMin are reductions too: over a channel
// window, over the scanned axis, and to an index.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

/// Folds one element into the accumulator: `acc` and the scalars of the
/// reduction's inputs (the reduced tensor first).
using CombineFn = llvm::function_ref<Value(OpBuilder &, Location, Value acc,
                                           ArrayRef<Value> x)>;

/// Reduces `input` over `reducedDims` (sorted). The result keeps the
/// reduced dims as size 1 when `keepDims`, else drops them; its element
/// type is `init`'s. `extras` are further inputs of the reduction's result
/// shape with kept dims (e.g. a row maximum), read at the row of each
/// element.
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
  auto resultType = RankedTensorType::get(outShape, init.getType());
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

/// `value` as an attribute of `type` (float or integer).
static TypedAttr scalarAttr(Type type, double value) {
  OpBuilder b(type.getContext());
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, value);
  return b.getIntegerAttr(type, static_cast<int64_t>(value));
}

static TypedAttr zeroAttr(Type type) { return scalarAttr(type, 0.0); }

static TypedAttr highestAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(type, APFloat::getInf(floatType.getFloatSemantics()));
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
}

/// The dims [axis, rank) of `type` that a Layer or RMS normalization
/// normalizes over, and (`count`) how many elements they hold.
static SmallVector<int64_t> getTrailingDims(RankedTensorType type,
                                            int64_t axisAttr, int64_t &count) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> dims;
  count = 1;
  for (int64_t d = *normalizeAxis(axisAttr, rank); d < rank; ++d) {
    dims.push_back(d);
    count *= type.getDimSize(d);
  }
  return dims;
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

/// log(sum(exp(x))) as m + log(sum(exp(x - m))), m the maximum (0 where it
/// is infinite): exp(x) alone overflows f32 from x = 89.
static Value buildLogSumExp(OpBuilder &b, Location loc, Value data,
                            RankedTensorType type, ArrayRef<int64_t> dims,
                            bool keepDims) {
  Type elementType = type.getElementType();
  auto maximum = [&](bool keep) {
    return buildReduction(
        b, loc, data, dims, keep, {}, getLowestAttr(elementType),
        [](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) {
          return buildMax(b, l, acc, v[0]);
        });
  };
  auto finiteOrZero = [](OpBuilder &b, Location l, Value m) -> Value {
    Value inf = math::AbsFOp::create(b, l, m);
    Value isInf = arith::CmpFOp::create(
        b, l, arith::CmpFPredicate::OEQ, inf,
        buildScalar(b, l, m.getType(),
                    std::numeric_limits<double>::infinity()));
    return arith::SelectOp::create(b, l, isInf,
                                   buildScalar(b, l, m.getType(), 0.0), m);
  };
  Value keptMax = maximum(/*keep=*/true);
  Value sum = buildReduction(
      b, loc, data, dims, keepDims, {keptMax}, zeroAttr(elementType),
      [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
        Value shifted =
            arith::SubFOp::create(b, l, v[0], finiteOrZero(b, l, v[1]));
        return arith::AddFOp::create(b, l, acc,
                                     math::ExpOp::create(b, l, shifted));
      });
  Value max = keepDims ? keptMax : maximum(/*keep=*/false);
  return buildElementwise(
      b, loc, type, {sum, max},
      [&](OpBuilder &b, Location l, ArrayRef<Value> v) -> Value {
        return arith::AddFOp::create(b, l, math::LogOp::create(b, l, v[0]),
                                     finiteOrZero(b, l, v[1]));
      });
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
      // Nothing reduced (noop_with_empty_axes, or a rank-0 input): each
      // element on its own, as ONNX's reference computes it: x^2 for
      // SumSquare, |x| for L1 and L2, log(x) for LogSum; x otherwise
      // (LogSumExp's log(exp(x)) too, which would overflow).
      rewriter.replaceOp(
          op, buildElementwise(
                  rewriter, loc, type, {data},
                  [](OpBuilder &b, Location l, ArrayRef<Value> x) -> Value {
                    if constexpr (std::is_same_v<OpTy, ONNXReduceL2Op>)
                      return mapBeforeSum<ONNXReduceL1Op>(b, l, x[0]);
                    if constexpr (std::is_same_v<OpTy, ONNXReduceLogSumOp>)
                      return mapAfterSum<OpTy>(b, l, x[0]);
                    if constexpr (std::is_same_v<OpTy, ONNXReduceLogSumExpOp>)
                      return x[0];
                    return mapBeforeSum<OpTy>(b, l, x[0]);
                  }));
      return success();
    }
    if constexpr (std::is_same_v<OpTy, ONNXReduceLogSumExpOp>)
      if (isa<FloatType>(elementType)) {
        rewriter.replaceOp(
            op, buildLogSumExp(rewriter, loc, data, type, *dims, keepDims));
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

/// LayerNormalization, `(x - mean) / sqrt(var + epsilon) * Scale + B`, and
/// RMSNormalization, `x / sqrt(mean(x^2) + epsilon) * scale`, over dims
/// [axis, rank). LayerNorm's variance is that of the centered values (two
/// passes, as accurate as onnxruntime's).
template <typename OpTy>
struct TrailingNormLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  static constexpr bool kCentered =
      std::is_same_v<OpTy, ONNXLayerNormalizationOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    int64_t count;
    SmallVector<int64_t> dims = getTrailingDims(type, op.getAxis(), count);
    double epsilon = op.getEpsilon().convertToDouble();
    auto mean = [count](OpBuilder &b, Location l, Value total) -> Value {
      return arith::DivFOp::create(
          b, l, total, buildScalar(b, l, total.getType(), count));
    };
    Value sum, bias;
    SmallVector<Value> extras;
    if constexpr (kCentered) {
      bias = adaptor.getB();
      sum = buildReduction(
          rewriter, loc, x, dims, /*keepDims=*/true, {}, zeroAttr(elementType),
          [](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
            return arith::AddFOp::create(b, l, acc, v[0]);
          });
      extras.push_back(sum);
    }
    Value squares = buildReduction(
        rewriter, loc, x, dims, /*keepDims=*/true, extras,
        zeroAttr(elementType),
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> v) -> Value {
          Value d = kCentered
                        ? arith::SubFOp::create(b, l, v[0], mean(b, l, v[1]))
                              .getResult()
                        : v[0];
          return arith::AddFOp::create(b, l, acc,
                                       arith::MulFOp::create(b, l, d, d));
        });
    // Absent operands (sum, bias) are skipped: v holds x, [sum], squares,
    // scale, [bias].
    Value result = buildElementwise(
        rewriter, loc, type, {x, sum, squares, adaptor.getScale(), bias},
        [&](OpBuilder &b, Location l, ArrayRef<Value> v) -> Value {
          size_t next = kCentered ? 2 : 1;
          Value centered =
              kCentered
                  ? arith::SubFOp::create(b, l, v[0], mean(b, l, v[1]))
                        .getResult()
                  : v[0];
          Value var = mean(b, l, v[next++]);
          Value stddev = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, var,
                                    buildScalar(b, l, elementType, epsilon)));
          Value y = arith::MulFOp::create(
              b, l, arith::DivFOp::create(b, l, centered, stddev), v[next++]);
          return bias ? arith::AddFOp::create(b, l, y, v[next]).getResult()
                      : y;
        });
    markRowDims(result, dims);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Normalizes `x` (N x C x spatial...) per sample over each of `groups`
/// groups of consecutive channels and the spatial dims, then applies the
/// per-channel `scale` and `bias`: GroupNormalization, and
/// InstanceNormalization as one channel per group. Mean and variance are
/// two passes (as LayerNormalization). The statistics are [N, groups]
/// reductions whose loops are (n, g, channel in group, spatial...); each
/// iteration of the kernel's loop computes one group (one channel for
/// instance norm: its spatial dims are the row) or one sample.
static Value buildGroupNorm(OpBuilder &b, Location loc, Value x, Value scale,
                            Value bias, int64_t groups, double epsilon,
                            RankedTensorType type) {
  MLIRContext *ctx = b.getContext();
  Type elementType = type.getElementType();
  int64_t rank = type.getRank();
  int64_t perGroup = type.getDimSize(1) / groups;
  int64_t count = perGroup;
  for (int64_t d = 2; d < rank; ++d)
    count *= type.getDimSize(d);
  // Reduction loops: n, g, then the channel within the group (only when a
  // group has several), then the spatial dims.
  bool channelLoop = perGroup > 1;
  int64_t numLoops = 2 + (channelLoop ? 1 : 0) + (rank - 2);
  AffineExpr n = getAffineDimExpr(0, ctx), g = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> xExprs{
      n, channelLoop ? g * perGroup + getAffineDimExpr(2, ctx) : g};
  for (int64_t d = 2; d < rank; ++d)
    xExprs.push_back(getAffineDimExpr(d + (channelLoop ? 1 : 0), ctx));
  AffineMap xMap = AffineMap::get(numLoops, 0, xExprs, ctx);
  AffineMap statsMap = AffineMap::get(numLoops, 0, {n, g}, ctx);
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  iterators.append(numLoops - 2, utils::IteratorType::reduction);
  auto statsType =
      RankedTensorType::get({type.getDimSize(0), groups}, elementType);
  auto mean = [count](OpBuilder &nb, Location l, Value total) -> Value {
    return arith::DivFOp::create(nb, l, total,
                                 buildScalar(nb, l, total.getType(), count));
  };
  // The channel loop appears in x's map only as part of `g * C/G + c`: a
  // window-shaped operand gives it its bounds.
  Value window =
      channelLoop
          ? tensor::EmptyOp::create(b, loc, {perGroup}, elementType).getResult()
          : Value();
  auto reduce =
      [&](ValueRange inputs, ArrayRef<AffineMap> inputMaps,
          function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
        SmallVector<Value> operands(inputs);
        SmallVector<AffineMap> maps(inputMaps);
        if (window) {
          operands.push_back(window);
          maps.push_back(AffineMap::get(numLoops, 0, getAffineDimExpr(2, ctx)));
        }
        maps.push_back(statsMap);
        Value init = buildFilled(b, loc, statsType, zeroAttr(elementType));
        return linalg::GenericOp::create(
                   b, loc, statsType, operands, init, maps, iterators,
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     Value t = term(nb, l, args.drop_back());
                     Value sum = arith::AddFOp::create(nb, l, args.back(), t);
                     linalg::YieldOp::create(nb, l, sum);
                   })
            .getResult(0);
      };
  Value sum = reduce({x}, {xMap},
                     [](OpBuilder &, Location, ValueRange v) { return v[0]; });
  Value squares =
      reduce({x, sum}, {xMap, statsMap},
             [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
               Value d = arith::SubFOp::create(nb, l, v[0], mean(nb, l, v[1]));
               return arith::MulFOp::create(nb, l, d, d);
             });

  // The result: one parallel generic over x's shape.
  AffineExpr c = getAffineDimExpr(1, ctx);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap groupMap = AffineMap::get(
      rank, 0, {n, perGroup > 1 ? c.floorDiv(perGroup) : c}, ctx);
  AffineMap channelMap = AffineMap::get(rank, 0, {c}, ctx);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elementType);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{x, sum, squares, scale, bias}, init,
      {identity, groupMap, groupMap, channelMap, channelMap, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value centered = arith::SubFOp::create(nb, l, v[0], mean(nb, l, v[1]));
        Value stddev = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, mean(nb, l, v[2]),
                                  buildScalar(nb, l, elementType, epsilon)));
        Value y = arith::MulFOp::create(
            nb, l, arith::DivFOp::create(nb, l, centered, stddev), v[3]);
        Value shifted = arith::AddFOp::create(nb, l, y, v[4]);
        linalg::YieldOp::create(nb, l, shifted);
      });
  Value result = generic.getResult(0);
  int64_t firstRowDim = perGroup > 1 ? 1 : 2;
  markRowDims(result, llvm::to_vector(llvm::seq<int64_t>(firstRowDim, rank)));
  return result;
}

/// InstanceNormalization (a group per channel) and GroupNormalization.
template <typename OpTy>
struct ChannelNormLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    double epsilon = op.getEpsilon().convertToDouble();
    Value result;
    if constexpr (std::is_same_v<OpTy, ONNXInstanceNormalizationOp>)
      result = buildGroupNorm(rewriter, op.getLoc(), adaptor.getInput(),
                              adaptor.getScale(), adaptor.getB(),
                              type.getDimSize(1), epsilon, type);
    else
      result = buildGroupNorm(rewriter, op.getLoc(), adaptor.getX(),
                              adaptor.getScale(), adaptor.getBias(),
                              op.getNumGroups(), epsilon, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// LRN: the sum of squares over the channel window around each element (a
/// reduction over a window-shaped operand, reading the input in the body
/// with the channel clamped and 0 outside), then
/// `x / (bias + alpha / size * sum) ^ beta`.
struct LRNLowering : public OpConversionPattern<ONNXLRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getX();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t size = op.getSize();
    int64_t channels = type.getDimSize(1);
    int64_t before = (size - 1) / 2;
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps{
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
        AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, {size}, elementType);
    Value init = buildFilled(rewriter, loc, type, zeroAttr(elementType));
    auto sums = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{window}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          Value tap = linalg::IndexOp::create(b, l, rank);
          Value channel = arith::SubIOp::create(
              b, l, arith::AddIOp::create(b, l, at[1], tap),
              arith::ConstantIndexOp::create(b, l, before));
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value last = arith::ConstantIndexOp::create(b, l, channels - 1);
          Value inside = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, channel,
                                    zero),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, channel,
                                    last));
          at[1] = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, channel, zero), last);
          Value v = tensor::ExtractOp::create(b, l, x, at);
          Value square = arith::SelectOp::create(
              b, l, inside, arith::MulFOp::create(b, l, v, v),
              buildScalar(b, l, elementType, 0.0));
          Value sum = arith::AddFOp::create(b, l, args[1], square);
          linalg::YieldOp::create(b, l, sum);
        });
    double scale = op.getAlpha().convertToDouble() / size;
    double bias = op.getBias().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value result = buildElementwise(
        rewriter, loc, type, {x, sums.getResult(0)},
        [&](OpBuilder &b, Location l, ArrayRef<Value> v) -> Value {
          Value base = arith::AddFOp::create(
              b, l, buildScalar(b, l, elementType, bias),
              arith::MulFOp::create(b, l, v[1],
                                    buildScalar(b, l, elementType, scale)));
          Value divisor = math::PowFOp::create(
              b, l, base, buildScalar(b, l, elementType, beta));
          return arith::DivFOp::create(b, l, v[0], divisor);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The constant scalar `value` (a one-element integer tensor), or none.
static std::optional<int64_t> getConstantScalar(Value value) {
  std::optional<SmallVector<int64_t>> values = getConstantIntValues(value);
  if (!values || values->size() != 1)
    return std::nullopt;
  return (*values)[0];
}

/// CumSum and CumProd: a generic over the output and, as a reduction
/// loop, the whole axis; each element sums (multiplies) the inputs on its
/// side of it (before it, or after it with `reverse`; itself unless
/// `exclusive`), the others counting as 0 (1). Quadratic in the axis
/// length, which the row kernels it is used in keep short.
template <typename OpTy, bool IsProduct>
struct CumulativeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    std::optional<int64_t> axisValue = getConstantScalar(op.getAxis());
    if (!axisValue)
      return op.emitOpError("needs a constant 'axis' (an input can be fixed "
                            "to a value with --input-value)");
    FailureOr<int64_t> axis = normalizeAxis(*axisValue, rank);
    if (failed(axis))
      return op.emitOpError("'axis' = ")
             << *axisValue << " is out of range for rank " << rank;
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      outExprs.push_back(getAffineDimExpr(d, ctx));
      inExprs.push_back(getAffineDimExpr(d == *axis ? rank : d, ctx));
    }
    SmallVector<AffineMap> maps{AffineMap::get(rank + 1, 0, inExprs, ctx),
                                AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool exclusive = op.getExclusive() != 0, reverse = op.getReverse() != 0;
    arith::CmpIPredicate taken = reverse
                                     ? (exclusive ? arith::CmpIPredicate::sgt
                                                  : arith::CmpIPredicate::sge)
                                     : (exclusive ? arith::CmpIPredicate::slt
                                                  : arith::CmpIPredicate::sle);
    Type elementType = type.getElementType();
    double identity = IsProduct ? 1.0 : 0.0;
    Value init =
        buildFilled(rewriter, loc, type, scalarAttr(elementType, identity));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, adaptor.getX(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value j = linalg::IndexOp::create(b, l, rank);
          Value i = linalg::IndexOp::create(b, l, *axis);
          Value taking = arith::CmpIOp::create(b, l, taken, j, i);
          Value term = arith::SelectOp::create(
              b, l, taking, args[0], buildScalar(b, l, elementType, identity));
          linalg::YieldOp::create(b, l,
                                  IsProduct ? buildMul(b, l, args[1], term)
                                            : buildAdd(b, l, args[1], term));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// ArgMax and ArgMin: a reduction over `axis` whose accumulator is the
/// index of the best element so far; the body reads that element back to
/// compare (strictly, so the first best wins, or not, so the last does).
template <typename OpTy, bool IsMax>
struct ArgReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = dataType.getRank();
    int64_t axis = *normalizeAxis(op.getAxis(), rank);
    bool keepDims = op.getKeepdims() != 0;
    bool last = op.getSelectLastIndex() != 0;
    bool isFloat = isa<FloatType>(dataType.getElementType());
    Value reduced = buildReduction(
        rewriter, loc, data, {axis}, keepDims, {},
        rewriter.getI64IntegerAttr(0),
        [&](OpBuilder &b, Location l, Value acc, ArrayRef<Value> x) -> Value {
          // Loops: the output dims, then the axis.
          int64_t numOut = keepDims ? rank : rank - 1;
          Value k = linalg::IndexOp::create(b, l, numOut);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            if (d == axis)
              at.push_back(
                  arith::IndexCastOp::create(b, l, b.getIndexType(), acc));
            else
              at.push_back(linalg::IndexOp::create(
                  b, l, keepDims || d < axis ? d : d - 1));
          }
          Value best = tensor::ExtractOp::create(b, l, data, at);
          Value better;
          if (isFloat)
            better = arith::CmpFOp::create(
                b, l,
                IsMax ? (last ? arith::CmpFPredicate::OGE
                              : arith::CmpFPredicate::OGT)
                      : (last ? arith::CmpFPredicate::OLE
                              : arith::CmpFPredicate::OLT),
                x[0], best);
          else
            better = arith::CmpIOp::create(
                b, l,
                IsMax ? (last ? arith::CmpIPredicate::sge
                              : arith::CmpIPredicate::sgt)
                      : (last ? arith::CmpIPredicate::sle
                              : arith::CmpIPredicate::slt),
                x[0], best);
          return arith::SelectOp::create(
              b, l, better, arith::IndexCastOp::create(b, l, b.getI64Type(), k),
              acc);
        });
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

} // namespace

void fuse::lowering::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ReduceLowering<ONNXReduceMeanOp>, ReduceLowering<ONNXReduceSumOp>,
      ReduceLowering<ONNXReduceMaxOp>, ReduceLowering<ONNXReduceMinOp>,
      ReduceLowering<ONNXReduceL1Op>, ReduceLowering<ONNXReduceL2Op>,
      ReduceLowering<ONNXReduceLogSumOp>, ReduceLowering<ONNXReduceLogSumExpOp>,
      ReduceLowering<ONNXReduceSumSquareOp>, ReduceLowering<ONNXReduceProdOp>,
      SoftmaxLowering, TrailingNormLowering<ONNXLayerNormalizationOp>,
      TrailingNormLowering<ONNXRMSNormalizationOp>,
      ChannelNormLowering<ONNXInstanceNormalizationOp>,
      ChannelNormLowering<ONNXGroupNormalizationOp>, LRNLowering,
      CumulativeLowering<ONNXCumSumOp, false>,
      CumulativeLowering<ONNXCumProdOp, true>,
      ArgReduceLowering<ONNXArgMaxOp, true>,
      ArgReduceLowering<ONNXArgMinOp, false>, WidenedToF32<ONNXSoftmaxOp>,
      WidenedToF32<ONNXLayerNormalizationOp>,
      WidenedToF32<ONNXRMSNormalizationOp>,
      WidenedToF32<ONNXInstanceNormalizationOp>,
      WidenedToF32<ONNXGroupNormalizationOp>, WidenedToF32<ONNXLRNOp>,
      WidenedToF32<ONNXCumSumOp>, WidenedToF32<ONNXCumProdOp>,
      WidenedToF32<ONNXReduceMeanOp>,
      WidenedToF32<ONNXReduceSumOp>, WidenedToF32<ONNXReduceL1Op>,
      WidenedToF32<ONNXReduceL2Op>, WidenedToF32<ONNXReduceLogSumOp>,
      WidenedToF32<ONNXReduceLogSumExpOp>,
      WidenedToF32<ONNXReduceSumSquareOp>, WidenedToF32<ONNXReduceProdOp>>(
      patterns.getContext());
}
