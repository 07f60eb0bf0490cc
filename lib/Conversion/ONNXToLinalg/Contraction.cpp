//===- Contraction.cpp - Conv, Gemm and MatMul to linalg.generic ---------===//
//
// Each contraction is one linalg.generic that accumulates into an init
// holding the bias (or zero), so the bias costs no extra pass over the
// output. Conv handles groups in its input indexing map and any number of
// spatial dims (NhwcConv, its channels-last form, the same); MatMul broadcasts
// batch dims through its maps. A padded Conv reads its input in the body
// instead (tensor.extract at the clamped position, zero outside the image): a
// padded operand would be made per output element, a window-sized buffer in
// (GPU local) memory. fuse.im2col (a convolution's columns, for convolutions
// run as matmuls) reads its input the same way. Narrow floats (f16, bf16) are
// computed in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

/// `init[...] += a * b` over `maps` (a, b, init) and `iterators`.
static Value buildMulAccumulate(OpBuilder &b, Location loc,
                                RankedTensorType resultType, Value lhs,
                                Value rhs, Value init, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators,
                                double scale = 1.0) {
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, ValueRange{lhs, rhs}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        if (scale == 1.0) {
          linalg::YieldOp::create(
              nb, nloc, buildMulAdd(nb, nloc, args[2], args[0], args[1]));
          return;
        }
        Value product = buildMul(nb, nloc, args[0], args[1]);
        product = buildMul(nb, nloc, product,
                           buildScalar(nb, nloc, product.getType(), scale));
        linalg::YieldOp::create(nb, nloc, buildAdd(nb, nloc, args[2], product));
      });
  return generic.getResult(0);
}

namespace {

/// Conv, and NhwcConv (`channelsLast`: the input and result have their
/// channels last, the spatial dims after the batch).
template <typename ConvOp, bool channelsLast>
struct ConvLowering : public OpConversionPattern<ConvOp> {
  using OpConversionPattern<ConvOp>::OpConversionPattern;
  using OpAdaptor = typename ConvOp::Adaptor;

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = cast<RankedTensorType>(adaptor.getW().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    size_t n = xType.getRank() - 2;
    // Where the channels and the first spatial dim are in X and the result.
    unsigned channelDim = channelsLast ? n + 1 : 1;
    unsigned firstSpatial = channelsLast ? 1 : 2;
    WindowParams params;
    params.kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
    params.strides = toVector(op.getStrides());
    params.dilations = toVector(op.getDilations());
    params.pads = toVector(op.getPads());
    params.autoPad = op.getAutoPad().str();
    std::string error;
    if (failed(normalizeWindowParams(params, n, error)))
      return rewriter.notifyMatchFailure(op, error);
    SmallVector<int64_t> spatialIn(xType.getShape().begin() + firstSpatial,
                                   xType.getShape().begin() + firstSpatial + n);
    SmallVector<int64_t> pads = resolveWindowPads(spatialIn, params);
    SmallVector<int64_t> low{0, 0}, high{0, 0};
    low.append(pads.begin(), pads.begin() + n);
    high.append(pads.begin() + n, pads.end());
    Type elementType = resultType.getElementType();
    bool isPadded = llvm::any_of(pads, [](int64_t p) { return p != 0; });

    // Init: the bias broadcast along the channels, or zero.
    Value init;
    if (Value bias = adaptor.getB()) {
      unsigned rank = resultType.getRank();
      AffineMap biasMap =
          AffineMap::get(rank, 0, getAffineDimExpr(channelDim, ctx), ctx);
      Value empty = tensor::EmptyOp::create(rewriter, loc,
                                            resultType.getShape(), elementType);
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      init = linalg::GenericOp::create(
                 rewriter, loc, resultType, bias, empty,
                 ArrayRef<AffineMap>{biasMap,
                                     rewriter.getMultiDimIdentityMap(rank)},
                 iterators,
                 [](OpBuilder &nb, Location nloc, ValueRange args) {
                   linalg::YieldOp::create(nb, nloc, args[0]);
                 })
                 .getResult(0);
    } else {
      init = buildFilled(rewriter, loc, resultType,
                         rewriter.getZeroAttr(elementType));
    }

    // Dims: n, m, out_1..out_k (parallel), c, w_1..w_k (reduction); the
    // maps place m and the input channel where the layout has them.
    int64_t group = op.getGroup();
    int64_t channelsPerGroup = wType.getDimSize(1);
    int64_t filtersPerGroup = wType.getDimSize(0) / group;
    unsigned numDims = 3 + 2 * n;
    AffineExpr dn = getAffineDimExpr(0, ctx), dm = getAffineDimExpr(1, ctx),
               dc = getAffineDimExpr(2 + n, ctx);
    AffineExpr inChannel =
        group == 1 ? dc : dm.floorDiv(filtersPerGroup) * channelsPerGroup + dc;
    SmallVector<AffineExpr> xExprs{dn}, wExprs{dm, dc}, outExprs{dn};
    if (!channelsLast) {
      xExprs.push_back(inChannel);
      outExprs.push_back(dm);
    }
    for (size_t i = 0; i < n; ++i) {
      AffineExpr o = getAffineDimExpr(2 + i, ctx);
      AffineExpr k = getAffineDimExpr(3 + n + i, ctx);
      xExprs.push_back(o * params.strides[i] + k * params.dilations[i]);
      wExprs.push_back(k);
      outExprs.push_back(o);
    }
    if (channelsLast) {
      xExprs.push_back(inChannel);
      outExprs.push_back(dm);
    }
    SmallVector<utils::IteratorType> iterators(2 + n,
                                               utils::IteratorType::parallel);
    iterators.append(1 + n, utils::IteratorType::reduction);
    if (!isPadded) {
      SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, xExprs, ctx),
                                  AffineMap::get(numDims, 0, wExprs, ctx),
                                  AffineMap::get(numDims, 0, outExprs, ctx)};
      rewriter.replaceOp(op, buildMulAccumulate(rewriter, loc, resultType,
                                                adaptor.getX(), adaptor.getW(),
                                                init, maps, iterators));
      return success();
    }
    // Padded: the input position of each tap, computed in the body.
    Value x = adaptor.getX();
    SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, wExprs, ctx),
                                AffineMap::get(numDims, 0, outExprs, ctx)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{adaptor.getW()}, init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto index = [&](int64_t d) -> Value {
            return linalg::IndexOp::create(b, l, d);
          };
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value inChannel = index(2 + n);
          if (group != 1) {
            // (m floordiv filtersPerGroup) * channelsPerGroup + c, in steps
            // so the ops' order does not depend on the compiler.
            Value outChannel = index(1);
            Value perGroup = constant(filtersPerGroup);
            Value groupIndex =
                arith::DivUIOp::create(b, l, outChannel, perGroup);
            Value channels = constant(channelsPerGroup);
            Value first = arith::MulIOp::create(b, l, groupIndex, channels);
            inChannel = arith::AddIOp::create(b, l, first, inChannel);
          }
          SmallVector<Value> out, taps;
          for (size_t i = 0; i < n; ++i) {
            out.push_back(index(2 + i));
            taps.push_back(index(3 + n + i));
          }
          WindowGeometry geometry{params.strides, params.dilations,
                                  ArrayRef<int64_t>(low).drop_front(2),
                                  spatialIn};
          Value zero = buildScalar(b, l, elementType, 0.0);
          Value batch = index(0);
          Value tap = channelsLast ? buildPaddedTap(b, l, x, {batch}, out, taps,
                                                    geometry, zero, {inChannel})
                                   : buildPaddedTap(b, l, x, {batch, inChannel},
                                                    out, taps, geometry, zero);
          linalg::YieldOp::create(b, l,
                                  buildMulAdd(b, l, args[1], tap, args[0]));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct GemmLowering : public OpConversionPattern<ONNXGemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();

    // Init: beta * C broadcast to M x N, or zero.
    Value init;
    if (Value c = adaptor.getC(); c && beta != 0.0) {
      init = buildElementwise(
          rewriter, loc, resultType, {c},
          [&](OpBuilder &b, Location l, ArrayRef<Value> x) -> Value {
            if (beta == 1.0)
              return x[0];
            return buildMul(b, l, x[0], buildScalar(b, l, elementType, beta));
          });
    } else {
      init = buildFilled(rewriter, loc, resultType,
                         rewriter.getZeroAttr(elementType));
    }
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    AffineMap aMap = op.getTransA() ? AffineMap::get(3, 0, {k, m}, ctx)
                                    : AffineMap::get(3, 0, {m, k}, ctx);
    AffineMap bMap = op.getTransB() ? AffineMap::get(3, 0, {n, k}, ctx)
                                    : AffineMap::get(3, 0, {k, n}, ctx);
    AffineMap outMap = AffineMap::get(3, 0, {m, n}, ctx);
    SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel,
                                               utils::IteratorType::parallel,
                                               utils::IteratorType::reduction};
    rewriter.replaceOp(op, buildMulAccumulate(rewriter, loc, resultType,
                                              adaptor.getA(), adaptor.getB(),
                                              init, {aMap, bMap, outMap},
                                              iterators, alpha));
    return success();
  }
};

/// numpy matmul: a 1-D A is a row and a 1-D B a column, whose added dim is
/// not in the result; batch dims broadcast.
struct MatMulLowering : public OpConversionPattern<ONNXMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto aType = cast<RankedTensorType>(adaptor.getA().getType());
    auto bType = cast<RankedTensorType>(adaptor.getB().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    bool rowA = aType.getRank() == 1, colB = bType.getRank() == 1;
    // Result dims: batch..., [m], [n]; then the reduction dim k.
    unsigned resultRank = resultType.getRank();
    unsigned numBatch = resultRank - (rowA ? 0 : 1) - (colB ? 0 : 1);
    unsigned numDims = resultRank + 1;
    AffineExpr k = getAffineDimExpr(resultRank, ctx);
    ArrayRef<int64_t> batchShape = resultType.getShape().take_front(numBatch);

    auto operandMap = [&](RankedTensorType type, bool isA) {
      bool vector = isA ? rowA : colB;
      unsigned ownBatch = vector ? 0 : type.getRank() - 2;
      SmallVector<AffineExpr> exprs = llvm::to_vector(
          getBroadcastMap(ctx, type.getShape().take_front(ownBatch), batchShape,
                          numDims)
              .getResults());
      if (isA) {
        if (!rowA)
          exprs.push_back(getAffineDimExpr(numBatch, ctx)); // m
        exprs.push_back(k);
      } else {
        exprs.push_back(k);
        if (!colB)
          exprs.push_back(getAffineDimExpr(resultRank - 1, ctx)); // n
      }
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (unsigned i = 0; i < resultRank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps{operandMap(aType, true),
                                operandMap(bType, false),
                                AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(resultRank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = buildFilled(rewriter, loc, resultType,
                             rewriter.getZeroAttr(resultType.getElementType()));
    rewriter.replaceOp(op, buildMulAccumulate(rewriter, loc, resultType,
                                              adaptor.getA(), adaptor.getB(),
                                              init, maps, iterators));
    return success();
  }
};

/// fuse.im2col: one linalg.generic over its result with no inputs; each
/// element is a clamped read of the input (a tap), 1 (the bias entry) or 0
/// (alignment entries).
struct Im2ColLowering : public OpConversionPattern<Im2ColOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Im2ColOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernelShape();
    bool channelsLast = op.getChannelsLast();
    int64_t tapRows = op.getNumTapRows();
    int64_t channels = op.getNumChannels();
    int64_t outW = op.getOutputSize()[1];
    SmallVector<int64_t> padLow{op.getPads()[0], op.getPads()[1]};
    std::array<int64_t, 2> inputSize = op.getInputSize();
    SmallVector<int64_t> spatialIn(inputSize.begin(), inputSize.end());
    WindowGeometry geometry{op.getStrides(), op.getDilations(), padLow,
                            spatialIn};
    Value input = adaptor.getInput();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(3, ctx);
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value image = linalg::IndexOp::create(b, l, 0);
          Value row = linalg::IndexOp::create(b, l, channelsLast ? 2 : 1);
          Value column = linalg::IndexOp::create(b, l, channelsLast ? 1 : 2);
          // NCHW: row = (c * R + kh) * S + kw, rows past the taps clamped
          // to the last channel. NHWC: row = (kh * S + kw) * C + c, rows
          // past the taps clamped to the last tap. Clamped reads are
          // replaced below.
          Value channel, tap;
          if (channelsLast) {
            Value channelCount = constant(channels);
            channel = arith::RemUIOp::create(b, l, row, channelCount);
            tap = arith::DivUIOp::create(b, l, row, channelCount);
            Value lastTap = constant(kernel[0] * kernel[1] - 1);
            tap = arith::MinUIOp::create(b, l, tap, lastTap);
          } else {
            Value windowSize = constant(kernel[0] * kernel[1]);
            channel = arith::DivUIOp::create(b, l, row, windowSize);
            Value lastChannel = constant(channels - 1);
            channel = arith::MinUIOp::create(b, l, channel, lastChannel);
            tap = arith::RemUIOp::create(b, l, row, windowSize);
          }
          Value width = constant(kernel[1]);
          Value kh = arith::DivUIOp::create(b, l, tap, width);
          Value kw = arith::RemUIOp::create(b, l, tap, width);
          Value outWidth = constant(outW);
          Value oh = arith::DivUIOp::create(b, l, column, outWidth);
          Value ow = arith::RemUIOp::create(b, l, column, outWidth);
          Value zero = buildScalar(b, l, element, 0.0);
          Value value =
              channelsLast ? buildPaddedTap(b, l, input, {image}, {oh, ow},
                                            {kh, kw}, geometry, zero, {channel})
                           : buildPaddedTap(b, l, input, {image, channel},
                                            {oh, ow}, {kh, kw}, geometry, zero);
          Value tapRowCount = constant(tapRows);
          Value isTap = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                              row, tapRowCount);
          Value isOnes = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               row, tapRowCount);
          Value one = buildScalar(b, l, element, 1.0);
          Value other = arith::SelectOp::create(b, l, isOnes, one, zero);
          Value result = arith::SelectOp::create(b, l, isTap, value, other);
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void fuse::lowering::populateContractionPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConvLowering<ONNXConvOp, false>, ConvLowering<ONNXNhwcConvOp, true>,
           GemmLowering, Im2ColLowering, MatMulLowering,
           WidenedToF32<ONNXConvOp>, WidenedToF32<ONNXNhwcConvOp>,
           WidenedToF32<ONNXGemmOp>, WidenedToF32<ONNXMatMulOp>>(
          patterns.getContext());
}
