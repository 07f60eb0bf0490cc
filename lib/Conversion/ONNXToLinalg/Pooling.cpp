//===- Pooling.cpp - Pooling onnx ops to linalg ---------------------------===//
//
// A pooling op is a reduction over a window: the input is padded (with 0
// for sums, the lowest value for max), and a linalg.generic walks
// [N, C, out..., window...] with a window-shaped operand that only gives
// the window loops their bounds. AveragePool then divides by the number of
// taps counted, per ONNX: all window taps inside the padded input with
// count_include_pad, only those inside the input otherwise; windows that
// ceil_mode lets run past the padding never count the overhang.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

namespace {

/// The window of a pooling op, resolved for its (static) input.
struct ResolvedWindow {
  WindowParams params;
  SmallVector<int64_t> padLow, padHigh; // per spatial dim, overhang included
  SmallVector<int64_t> spatialIn, spatialOut;
  bool overhang = false;
};

} // namespace

static FailureOr<ResolvedWindow> resolveWindow(WindowParams params,
                                               RankedTensorType input,
                                               RankedTensorType output) {
  ResolvedWindow w;
  size_t n = input.getRank() - 2;
  std::string error;
  if (failed(normalizeWindowParams(params, n, error)))
    return failure();
  w.spatialIn.assign(input.getShape().begin() + 2, input.getShape().end());
  w.spatialOut.assign(output.getShape().begin() + 2, output.getShape().end());
  SmallVector<int64_t> pads = resolveWindowPads(w.spatialIn, params);
  for (size_t i = 0; i < n; ++i) {
    int64_t low = pads[i], high = pads[i + n];
    int64_t span = (params.kernel[i] - 1) * params.dilations[i] + 1;
    int64_t needed =
        (w.spatialOut[i] - 1) * params.strides[i] + span - w.spatialIn[i] - low;
    if (needed > high) {
      w.overhang = true;
      high = needed;
    }
    w.padLow.push_back(low);
    w.padHigh.push_back(high);
  }
  params.pads = pads;
  w.params = params;
  return w;
}

/// Sum or max over the window: a generic over [N, C, out..., window...].
static Value buildWindowReduction(OpBuilder &b, Location loc, Value input,
                                  const ResolvedWindow &w,
                                  RankedTensorType resultType, bool isMax) {
  MLIRContext *ctx = b.getContext();
  Type elementType = resultType.getElementType();
  TypedAttr identity =
      isMax ? getLowestAttr(elementType) : b.getZeroAttr(elementType);
  bool isPadded =
      llvm::any_of(w.padLow, [](int64_t p) { return p != 0; }) ||
      llvm::any_of(w.padHigh, [](int64_t p) { return p != 0; });

  size_t n = w.spatialIn.size();
  unsigned numDims = 2 + 2 * n;
  SmallVector<AffineExpr> inExprs{getAffineDimExpr(0, ctx),
                                  getAffineDimExpr(1, ctx)};
  SmallVector<AffineExpr> windowExprs,
      outExprs{getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)};
  for (size_t i = 0; i < n; ++i) {
    AffineExpr o = getAffineDimExpr(2 + i, ctx);
    AffineExpr k = getAffineDimExpr(2 + n + i, ctx);
    inExprs.push_back(o * w.params.strides[i] + k * w.params.dilations[i]);
    windowExprs.push_back(k);
    outExprs.push_back(o);
  }
  SmallVector<utils::IteratorType> iterators(2 + n,
                                             utils::IteratorType::parallel);
  iterators.append(n, utils::IteratorType::reduction);
  // Only the window's shape matters: it gives the window loops' bounds.
  Value window = tensor::EmptyOp::create(b, loc, w.params.kernel, elementType);
  Value init = buildFilled(b, loc, resultType, identity);
  auto combine = [&](OpBuilder &nb, Location nloc, Value x, Value acc) {
    return isMax ? buildMax(nb, nloc, x, acc) : buildAdd(nb, nloc, x, acc);
  };
  if (!isPadded) {
    SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, inExprs, ctx),
                                AffineMap::get(numDims, 0, windowExprs, ctx),
                                AffineMap::get(numDims, 0, outExprs, ctx)};
    auto generic = linalg::GenericOp::create(
        b, loc, resultType, ValueRange{input, window}, init, maps, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc,
                                  combine(nb, nloc, args[0], args[2]));
        });
    return generic.getResult(0);
  }
  // Padded: each tap reads the input at its position, clamped, and counts
  // as the identity outside the image (as a padded operand would, without
  // making one per output element).
  SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, windowExprs, ctx),
                              AffineMap::get(numDims, 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, ValueRange{window}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        auto index = [&](int64_t d) -> Value {
          return linalg::IndexOp::create(nb, nloc, d);
        };
        SmallVector<Value> out, taps;
        for (size_t i = 0; i < n; ++i) {
          out.push_back(index(2 + i));
          taps.push_back(index(2 + n + i));
        }
        WindowGeometry geometry{w.params.strides, w.params.dilations,
                                w.padLow, w.spatialIn};
        Value padValue = arith::ConstantOp::create(nb, nloc, identity);
        Value batch = index(0), channel = index(1);
        Value tap = buildPaddedTap(nb, nloc, input, {batch, channel}, out,
                                   taps, geometry, padValue);
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, tap, args[1]));
      });
  return generic.getResult(0);
}

/// The number of window taps counted at the output position given by the
/// `linalg.index` values `out` (spatial dims only), as an index value.
static Value buildTapCount(OpBuilder &b, Location loc, ArrayRef<Value> out,
                           const ResolvedWindow &w, bool includePad) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value count = c(1);
  size_t n = out.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t s = w.params.strides[i], d = w.params.dilations[i],
            k = w.params.kernel[i], pb = w.params.pads[i],
            pe = w.params.pads[i + n], size = w.spatialIn[i];
    // Tap t reads position start + t*d; count t in [0, k) landing in
    // [lo, hi).
    int64_t lo = includePad ? -pb : 0, hi = includePad ? size + pe : size;
    Value start = arith::SubIOp::create(
        b, loc, arith::MulIOp::create(b, loc, out[i], c(s)), c(pb));
    Value first = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, c(lo), start), c(d));
    Value last = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, c(hi), start), c(d));
    first = arith::MaxSIOp::create(b, loc, first, c(0));
    last = arith::MinSIOp::create(b, loc, last, c(k));
    Value taps = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, last, first), c(0));
    count = arith::MulIOp::create(b, loc, count, taps);
  }
  return count;
}

/// Divides the window sums by the tap count.
static Value buildAverage(OpBuilder &b, Location loc, Value sums,
                          const ResolvedWindow &w, bool includePad) {
  auto type = cast<RankedTensorType>(sums.getType());
  Type elementType = type.getElementType();
  bool constantCount =
      !w.overhang &&
      (includePad ||
       (llvm::all_of(w.params.pads, [](int64_t p) { return p == 0; })));
  if (constantCount) {
    int64_t taps = 1;
    for (int64_t k : w.params.kernel)
      taps *= k;
    double divisor = static_cast<double>(taps);
    return buildElementwise(
        b, loc, type, {sums},
        [&](OpBuilder &nb, Location nloc, ArrayRef<Value> x) -> Value {
          return arith::DivFOp::create(
              nb, nloc, x[0], buildScalar(nb, nloc, elementType, divisor));
        });
  }
  unsigned rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elementType);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, sums, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> out;
        for (unsigned i = 2; i < rank; ++i)
          out.push_back(linalg::IndexOp::create(nb, nloc, i));
        Value count = buildTapCount(nb, nloc, out, w, includePad);
        Value asInt =
            arith::IndexCastOp::create(nb, nloc, nb.getI64Type(), count);
        Value asFloat = arith::SIToFPOp::create(nb, nloc, elementType, asInt);
        Value average = arith::DivFOp::create(nb, nloc, args[0], asFloat);
        linalg::YieldOp::create(nb, nloc, average);
      });
  return generic.getResult(0);
}

namespace {

template <typename PoolOp>
struct WindowPoolLowering : public OpConversionPattern<PoolOp> {
  using OpConversionPattern<PoolOp>::OpConversionPattern;
  using OpAdaptor = typename PoolOp::Adaptor;

  LogicalResult
  matchAndRewrite(PoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<PoolOp, ONNXMaxPoolOp>;
    auto inputType = cast<RankedTensorType>(adaptor.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    WindowParams params;
    params.kernel = toVector(op.getKernelShape());
    params.strides = toVector(op.getStrides());
    params.dilations = toVector(op.getDilations());
    params.pads = toVector(op.getPads());
    params.autoPad = op.getAutoPad().str();
    params.ceilMode = op.getCeilMode() != 0;
    FailureOr<ResolvedWindow> w = resolveWindow(params, inputType, resultType);
    if (failed(w))
      return rewriter.notifyMatchFailure(op, "invalid window");
    Location loc = op.getLoc();
    Value result = buildWindowReduction(rewriter, loc, adaptor.getX(), *w,
                                        resultType, isMax);
    if constexpr (!isMax)
      result =
          buildAverage(rewriter, loc, result, *w, op.getCountIncludePad() != 0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GlobalAveragePoolLowering
    : public OpConversionPattern<ONNXGlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    WindowParams params;
    params.kernel.assign(inputType.getShape().begin() + 2,
                         inputType.getShape().end());
    FailureOr<ResolvedWindow> w = resolveWindow(params, inputType, resultType);
    if (failed(w))
      return rewriter.notifyMatchFailure(op, "invalid window");
    Value sums = buildWindowReduction(rewriter, op.getLoc(), adaptor.getX(), *w,
                                      resultType, /*isMax=*/false);
    rewriter.replaceOp(op, buildAverage(rewriter, op.getLoc(), sums, *w,
                                        /*includePad=*/true));
    return success();
  }
};

} // namespace

void fuse::lowering::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<WindowPoolLowering<ONNXAveragePoolOp>,
               WindowPoolLowering<ONNXMaxPoolOp>, GlobalAveragePoolLowering>(
      patterns.getContext());
}
