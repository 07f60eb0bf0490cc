//===- ConvsToMatmuls.cpp - Convolutions as im2col and a matmul -----------===//
//
// A convolution whose output has few positions (small images, small
// batches: ResNet-50's last stages at batch 1) does too little work per
// filter for cuDNN's fp32 kernels, which then run at 1.5-3 TFLOP/s on the
// H100, while cuBLASLt runs the same contraction as a matmul at 5-6; one
// with many filters pays back the im2col copy at any size
// (docs/models.md). This rewrite turns such a Conv into
//
//   %cols = fuse.im2col %x        [N, rows, outH * outW]
//   %y3   = onnx.MatMul(%w2, %cols)   with %w2 = [W | bias | 0] [K, rows]
//   %y    = onnx.Reshape(%y3)     [N, K, outH, outW]
//
// The bias is the column of %w2 that meets im2col's row of ones, so the
// matmul computes it; the residual Adds and the ReLU right after the Conv
// move before the Reshape (on 3-D values, the residual reshaped to match),
// where fusion and the cuBLASLt call take them as the matmul's epilogue.
// Reshapes of intermediates are views and cost nothing.
//
// With `channels-last` (half precision on cuda) the rewrite is NHWC
// instead, for every convolution of one group not next to a grouped one:
//
//   %xl   = onnx.Transpose(%x)    [N, H, W, C]
//   %rows = fuse.im2col %xl {channels_last}   [N, outH * outW, rows]
//   %y2   = onnx.MatMul(Reshape(%rows), %w2)  [N * outH * outW, K]
//   %y    = onnx.Transpose(onnx.Reshape(%y2)) [N, K, outH, outW]
//
// with %w2 = [W | bias | 0]^T, or, for a 1x1 window of stride 1 without
// pads, no im2col: the matmul reads %xl's [N * H * W, C] view, and the
// bias is an Add after it. The batch joins the matmul's rows (one large
// product instead of N small ones with H * W columns each), the bias is
// along the result's last dim where cuBLASLt's epilogue takes it, and
// the Transpose back is cancelled by the next convolution's Transpose
// in, so a CNN's activations stay NHWC from one convolution to the next.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensor.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace fuse {
#define GEN_PASS_DEF_CONVSTOMATMULS
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Weights larger than this stay convolutions (the host copy is made in
/// doubles).
static constexpr int64_t kMaxWeightElements = int64_t(1) << 26;

/// Transpose's permutations between NCHW and NHWC.
static constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
static constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

static bool hasPerm(ONNXTransposeOp op, ArrayRef<int64_t> perm) {
  std::optional<ArrayRef<int64_t>> actual = op.getPerm();
  return actual && *actual == perm;
}

/// `value` (NCHW) in NHWC: the source of a Transpose to NCHW, an existing
/// Transpose of `value` to NHWC before `user`, or a new one right after
/// `value` is defined.
static Value toChannelsLast(PatternRewriter &rewriter, Value value,
                            Operation *user) {
  if (auto back = value.getDefiningOp<ONNXTransposeOp>())
    if (hasPerm(back, kToChannelsFirst))
      return back.getData();
  for (Operation *other : value.getUsers())
    if (auto transpose = dyn_cast<ONNXTransposeOp>(other))
      if (hasPerm(transpose, kToChannelsLast) &&
          transpose->getBlock() == user->getBlock() &&
          transpose->isBeforeInBlock(user))
        return transpose;
  OpBuilder::InsertionGuard guard(rewriter);
  if (Operation *def = value.getDefiningOp())
    rewriter.setInsertionPointAfter(def);
  else
    rewriter.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> d = type.getShape();
  return ONNXTransposeOp::create(
      rewriter, value.getLoc(), type.clone({d[0], d[2], d[3], d[1]}), value,
      rewriter.getDenseI64ArrayAttr(kToChannelsLast));
}

static bool isGroupedConv(Operation *op) {
  auto conv = dyn_cast_or_null<ONNXConvOp>(op);
  return conv && conv.getGroup() != 1;
}

/// The activations CNNs put between convolutions (MobileNet's ReLU6 is a
/// Clip).
static bool isActivation(Operation *op) {
  return isa_and_nonnull<ONNXReluOp, ONNXClipOp>(op);
}

static bool feedsGroupedConv(Value value, int depth = 0) {
  for (Operation *user : value.getUsers()) {
    if (isGroupedConv(user))
      return true;
    if (depth < 4 && isActivation(user) &&
        feedsGroupedConv(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// Convolutions next to a grouped one go NHWC all the same when their
/// outputs have at most this many positions per image: in NCHW their
/// matmuls have that few columns, and cuDNN's NCHW half-precision kernels
/// run such maps far below the tensor cores' rate, while the Transposes
/// either side of the grouped convolution move small maps.
static constexpr int64_t kMaxPositionsNextToGrouped = 196;

/// Whether `conv` reads or feeds a grouped (depthwise) convolution, through
/// activations: those stay NCHW, so NHWC there adds Transposes. With
/// `inputChannelsLast`, a convolution of the model's input is not: the
/// input's Transpose runs in the kernel that converts it anyway, and the
/// one back is a `transpose` kernel with the activation in it.
static bool isNextToGroupedConv(ONNXConvOp conv, bool inputChannelsLast) {
  // The model's input, or its conversion (a model exported in half
  // precision, --io-precision).
  Value x = conv.getX();
  if (auto cast = x.getDefiningOp<ONNXCastOp>())
    x = cast.getInput();
  if (inputChannelsLast && isa<BlockArgument>(x))
    return false;
  Operation *producer = conv.getX().getDefiningOp();
  while (isActivation(producer))
    producer = producer->getOperand(0).getDefiningOp();
  return isGroupedConv(producer) || feedsGroupedConv(conv.getResult());
}

/// Rebuilds the residual Adds and the ReLU right after `conv` on `flat`,
/// the matmul's result: `toFlat` brings a residual (of the Conv's type) to
/// `flat`'s type, `finish` brings the chain's result back to the Conv's
/// type, and replaces the chain's last op.
static void replaceWithChain(ONNXConvOp conv, Value flat,
                             function_ref<Value(Value, Operation *)> toFlat,
                             function_ref<Value(Value, Location)> finish,
                             PatternRewriter &rewriter) {
  auto yType = cast<RankedTensorType>(conv.getType());
  Type flatType = flat.getType();
  Operation *last = conv;
  SmallVector<Operation *> chain;
  while (last->getResult(0).hasOneUse()) {
    Operation *user = *last->getResult(0).getUsers().begin();
    if (user->getBlock() != conv->getBlock() || user->getNumResults() != 1 ||
        user->getResult(0).getType() != yType)
      break;
    Value current = last->getResult(0);
    // Each op is rebuilt where it was: a residual may be computed after
    // the Conv.
    rewriter.setInsertionPoint(user);
    if (isa<ONNXReluOp>(user)) {
      flat = ONNXReluOp::create(rewriter, user->getLoc(), flatType, flat);
    } else if (auto add = dyn_cast<ONNXAddOp>(user)) {
      Value other = add.getA() == current ? add.getB() : add.getA();
      if (other == current || other.getType() != yType)
        break;
      Value residual = toFlat(other, user);
      flat = add.getA() == current
                 ? ONNXAddOp::create(rewriter, user->getLoc(), flatType, flat,
                                     residual)
                 : ONNXAddOp::create(rewriter, user->getLoc(), flatType,
                                     residual, flat);
    } else {
      break;
    }
    chain.push_back(user);
    last = user;
    if (isa<ONNXReluOp>(user))
      break;
  }
  rewriter.setInsertionPoint(last);
  rewriter.replaceOp(last, finish(flat, last->getLoc()));
  for (Operation *op : llvm::reverse(chain))
    if (op != last)
      rewriter.eraseOp(op);
  if (last != conv.getOperation())
    rewriter.eraseOp(conv);
}

namespace {
struct ConvToMatmul : public OpRewritePattern<ONNXConvOp> {
  ConvToMatmul(MLIRContext *ctx, int64_t maxColumns, int64_t minFilters,
               int64_t rowAlignment, bool pointwise, bool channelsLast,
               bool directWindows, int64_t minChannels, bool inputChannelsLast)
      : OpRewritePattern(ctx), maxColumns(maxColumns), minFilters(minFilters),
        rowAlignment(rowAlignment), minChannels(minChannels),
        pointwise(pointwise), channelsLast(channelsLast),
        directWindows(directWindows), inputChannelsLast(inputChannelsLast) {}

  LogicalResult matchAndRewrite(ONNXConvOp conv,
                                PatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(conv.getX().getType());
    auto yType = dyn_cast<RankedTensorType>(conv.getType());
    if (!xType || !yType || !xType.hasStaticShape() ||
        !yType.hasStaticShape() || xType.getRank() != 4 ||
        !xType.getElementType().isF32() || conv.getGroup() != 1)
      return rewriter.notifyMatchFailure(conv, "not a static 2-D f32 Conv "
                                               "of one group");
    std::optional<ConstantTensor> w =
        readConstant(conv.getW(), kMaxWeightElements);
    if (!w || w->type.getRank() != 4)
      return rewriter.notifyMatchFailure(conv, "weights are not a constant");
    std::optional<ConstantTensor> bias;
    if (Value b = conv.getB()) {
      bias = readConstant(b, kMaxWeightElements);
      if (!bias)
        return rewriter.notifyMatchFailure(conv, "bias is not a constant");
    }

    WindowParams window;
    window.kernel.assign(w->type.getShape().begin() + 2,
                         w->type.getShape().end());
    if (auto s = conv.getStrides())
      window.strides.assign(s->begin(), s->end());
    if (auto d = conv.getDilations())
      window.dilations.assign(d->begin(), d->end());
    if (auto p = conv.getPads())
      window.pads.assign(p->begin(), p->end());
    window.autoPad = conv.getAutoPad().str();
    std::string error;
    if (failed(normalizeWindowParams(window, 2, error)))
      return rewriter.notifyMatchFailure(conv, error);
    SmallVector<int64_t> pads =
        resolveWindowPads(xType.getShape().drop_front(2), window);

    ArrayRef<int64_t> y = yType.getShape();
    int64_t positions = y[2] * y[3];
    if (channelsLast && (positions <= kMaxPositionsNextToGrouped ||
                         !isNextToGroupedConv(conv, inputChannelsLast))) {
      rewriteChannelsLast(conv, *w, bias, window, pads, rewriter);
      return success();
    }

    int64_t images = xType.getDimSize(0), filters = y[1];
    bool fewColumns = maxColumns <= 0 || images * positions <= maxColumns;
    bool manyFilters = minFilters > 0 && filters >= minFilters;
    bool alignedPointwise = pointwise && window.kernel[0] == 1 &&
                            window.kernel[1] == 1 &&
                            positions % rowAlignment == 0;
    if (!fewColumns && !manyFilters && !alignedPointwise)
      return rewriter.notifyMatchFailure(
          conv, "too many output positions for its few filters");
    rewriteChannelsFirst(conv, *w, bias, window, pads, rewriter);
    return success();
  }

  void rewriteChannelsFirst(ONNXConvOp conv, const ConstantTensor &w,
                            const std::optional<ConstantTensor> &bias,
                            const WindowParams &window, ArrayRef<int64_t> pads,
                            PatternRewriter &rewriter) const {
    ArrayRef<int64_t> x = conv.getX().getType().getShape();
    ArrayRef<int64_t> y = conv.getType().getShape();
    int64_t images = x[0], filters = y[1], positions = y[2] * y[3];
    // [W | bias | 0]: rows aligned to 16 bytes of what the matmul reads,
    // as cuBLASLt's fast kernels want their leading dimensions.
    int64_t taps = x[1] * window.kernel[0] * window.kernel[1];
    int64_t rows = llvm::alignTo(taps + 1, rowAlignment);
    ConstantTensor matrix;
    matrix.type = RankedTensorType::get({filters, rows}, rewriter.getF32Type());
    matrix.floats.assign(filters * rows, 0.0);
    for (int64_t f = 0; f < filters; ++f) {
      for (int64_t t = 0; t < taps; ++t)
        matrix.floats[f * rows + t] = w.floats[f * taps + t];
      matrix.floats[f * rows + taps] = bias ? bias->floats[f] : 0.0;
    }

    Location loc = conv.getLoc();
    Type f32 = rewriter.getF32Type();
    auto colsType = RankedTensorType::get({images, rows, positions}, f32);
    Value cols = Im2ColOp::create(
        rewriter, loc, colsType, conv.getX(),
        rewriter.getDenseI64ArrayAttr(window.kernel),
        rewriter.getDenseI64ArrayAttr(pads),
        rewriter.getDenseI64ArrayAttr(window.strides),
        rewriter.getDenseI64ArrayAttr(window.dilations));
    Value weights = ONNXConstantOp::create(
        rewriter, loc, matrix.type,
        buildConstantAttr(matrix, blobNameStem(conv, "conv") + "_matmul_W"));
    auto flatType = RankedTensorType::get({images, filters, positions}, f32);
    Value flat = ONNXMatMulOp::create(rewriter, loc, flatType, weights, cols);

    Value shape3 = nullptr;
    auto toFlat = [&](Value residual, Operation *user) -> Value {
      if (!shape3)
        shape3 = createI64Constant(rewriter, loc, {images, filters, positions});
      return ONNXReshapeOp::create(rewriter, user->getLoc(), flatType, residual,
                                   shape3);
    };
    auto finish = [&](Value result, Location at) -> Value {
      Value shape4 = createI64Constant(rewriter, loc, y);
      return ONNXReshapeOp::create(rewriter, at, conv.getType(), result,
                                   shape4);
    };
    replaceWithChain(conv, flat, toFlat, finish, rewriter);
  }

  void rewriteChannelsLast(ONNXConvOp conv, const ConstantTensor &w,
                           const std::optional<ConstantTensor> &bias,
                           const WindowParams &window, ArrayRef<int64_t> pads,
                           PatternRewriter &rewriter) const {
    ArrayRef<int64_t> x = conv.getX().getType().getShape();
    ArrayRef<int64_t> y = conv.getType().getShape();
    int64_t images = x[0], channels = x[1], filters = y[1];
    int64_t positions = y[2] * y[3], outRows = images * positions;
    int64_t windowSize = window.kernel[0] * window.kernel[1];
    int64_t taps = channels * windowSize;
    // A 1x1 window of stride 1 without pads reads the input as it is:
    // [N * H * W, C] is the NHWC input, and the bias is an Add.
    bool direct =
        windowSize == 1 &&
        llvm::all_of(window.strides, [](int64_t s) { return s == 1; }) &&
        llvm::all_of(pads, [](int64_t p) { return p == 0; }) &&
        channels % rowAlignment == 0;
    if (!direct && directWindows) {
      rewriteAsNhwcConv(conv, w, window, pads, rewriter);
      return;
    }
    int64_t rows = direct ? channels : llvm::alignTo(taps + 1, rowAlignment);

    // [W | bias | 0]^T, row (kh * S + kw) * C + c as im2col's columns.
    ConstantTensor matrix;
    matrix.type = RankedTensorType::get({rows, filters}, rewriter.getF32Type());
    matrix.floats.assign(rows * filters, 0.0);
    for (int64_t f = 0; f < filters; ++f) {
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t t = 0; t < windowSize; ++t)
          matrix.floats[(t * channels + c) * filters + f] =
              w.floats[(f * channels + c) * windowSize + t];
      if (!direct)
        matrix.floats[taps * filters + f] = bias ? bias->floats[f] : 0.0;
    }

    Location loc = conv.getLoc();
    Type f32 = rewriter.getF32Type();
    rewriter.setInsertionPoint(conv);
    Value input = toChannelsLast(rewriter, conv.getX(), conv);
    // The matmul reads the NHWC input itself or its im2col, as [outRows,
    // rows].
    Value rowsSource = input;
    if (!direct)
      rowsSource = Im2ColOp::create(
          rewriter, loc, RankedTensorType::get({images, positions, rows}, f32),
          input, rewriter.getDenseI64ArrayAttr(window.kernel),
          rewriter.getDenseI64ArrayAttr(pads),
          rewriter.getDenseI64ArrayAttr(window.strides),
          rewriter.getDenseI64ArrayAttr(window.dilations),
          rewriter.getUnitAttr());
    Value lhs = ONNXReshapeOp::create(
        rewriter, loc, RankedTensorType::get({outRows, rows}, f32), rowsSource,
        createI64Constant(rewriter, loc, {outRows, rows}));
    Value weights = ONNXConstantOp::create(
        rewriter, loc, matrix.type,
        buildConstantAttr(matrix, blobNameStem(conv, "conv") + "_nhwc_W"));
    auto flatType = RankedTensorType::get({outRows, filters}, f32);
    Value flat = ONNXMatMulOp::create(rewriter, loc, flatType, lhs, weights);
    if (direct && bias)
      flat = ONNXAddOp::create(rewriter, loc, flatType, flat, conv.getB());

    Value shape2 = nullptr;
    auto toFlat = [&](Value residual, Operation *user) -> Value {
      Value last = toChannelsLast(rewriter, residual, user);
      if (!shape2)
        shape2 = createI64Constant(rewriter, loc, {outRows, filters});
      return ONNXReshapeOp::create(rewriter, user->getLoc(), flatType, last,
                                   shape2);
    };
    auto finish = [&](Value result, Location at) -> Value {
      SmallVector<int64_t> nhwc{images, y[2], y[3], filters};
      Value view =
          ONNXReshapeOp::create(rewriter, at, RankedTensorType::get(nhwc, f32),
                                result, createI64Constant(rewriter, loc, nhwc));
      return ONNXTransposeOp::create(
          rewriter, at, conv.getType(), view,
          rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    };
    replaceWithChain(conv, flat, toFlat, finish, rewriter);
  }

  /// `input` (NHWC) with zero channels appended up to `padded`: the Pad
  /// another convolution of the same input made already, or a new one.
  static Value padChannels(PatternRewriter &rewriter, Location loc, Value input,
                           int64_t padded) {
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape(inputType.getShape());
    SmallVector<int64_t> pads(8, 0);
    pads[7] = padded - shape[3];
    shape[3] = padded;
    RankedTensorType type = inputType.clone(shape);
    for (Operation *user : input.getUsers()) {
      auto pad = dyn_cast<ONNXPadOp>(user);
      std::optional<SmallVector<int64_t>> existing =
          pad ? getConstantIntValues(pad.getPads()) : std::nullopt;
      if (pad && pad.getType() == type && pad.getMode() == "constant" &&
          !pad.getConstantValue() && !pad.getAxes() && existing &&
          *existing == pads)
        return pad;
    }
    return ONNXPadOp::create(rewriter, loc, type, input,
                             createI64Constant(rewriter, loc, pads),
                             /*constant_value=*/Value(), /*axes=*/Value(),
                             rewriter.getStringAttr("constant"));
  }

  /// `conv` as an NhwcConv of the NHWC input, its filters stored [K, R, S,
  /// C] (as cuDNN's NHWC kernels read them) and read through a Transpose
  /// to NhwcConv's [K, C, R, S]; the residual Adds and the ReLU after it
  /// on the NHWC result.
  void rewriteAsNhwcConv(ONNXConvOp conv, const ConstantTensor &w,
                         const WindowParams &window, ArrayRef<int64_t> pads,
                         PatternRewriter &rewriter) const {
    ArrayRef<int64_t> y = conv.getType().getShape();
    ArrayRef<int64_t> k = w.type.getShape();
    int64_t filters = k[0], channels = k[1], windowSize = k[2] * k[3];
    // Zero channels appended to the input and the filters add nothing to
    // any output.
    int64_t padded = std::max(channels, minChannels);
    ConstantTensor filtersLast;
    filtersLast.type = RankedTensorType::get({filters, k[2], k[3], padded},
                                             rewriter.getF32Type());
    filtersLast.floats.assign(filters * windowSize * padded, 0.0);
    for (int64_t f = 0; f < filters; ++f)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t t = 0; t < windowSize; ++t)
          filtersLast.floats[(f * windowSize + t) * padded + c] =
              w.floats[(f * channels + c) * windowSize + t];

    Location loc = conv.getLoc();
    rewriter.setInsertionPoint(conv);
    Value input = toChannelsLast(rewriter, conv.getX(), conv);
    if (padded != channels)
      input = padChannels(rewriter, loc, input, padded);
    Value stored = ONNXConstantOp::create(
        rewriter, loc, filtersLast.type,
        buildConstantAttr(filtersLast,
                          blobNameStem(conv, "conv") + "_nhwc_filters"));
    Value weights = ONNXTransposeOp::create(
        rewriter, loc, w.type.clone({filters, padded, k[2], k[3]}), stored,
        rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    auto resultType = conv.getType().clone({y[0], y[2], y[3], y[1]});
    Value result = ONNXNhwcConvOp::create(
        rewriter, loc, resultType, input, weights, conv.getB(),
        rewriter.getStringAttr("NOTSET"),
        rewriter.getDenseI64ArrayAttr(window.dilations),
        rewriter.getI64IntegerAttr(1), DenseI64ArrayAttr(),
        rewriter.getDenseI64ArrayAttr(pads),
        rewriter.getDenseI64ArrayAttr(window.strides));
    auto toNhwc = [&](Value residual, Operation *user) -> Value {
      return toChannelsLast(rewriter, residual, user);
    };
    auto finish = [&](Value nhwc, Location at) -> Value {
      return ONNXTransposeOp::create(
          rewriter, at, conv.getType(), nhwc,
          rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    };
    replaceWithChain(conv, result, toNhwc, finish, rewriter);
  }

  int64_t maxColumns, minFilters, rowAlignment, minChannels;
  bool pointwise, channelsLast, directWindows, inputChannelsLast;
};

/// A 2-D MaxPool of an NHWC convolution's result (the stem of a ResNet):
/// the same MaxPool over the NHWC data, as a 3-D MaxPool of [N, 1, H, W, C]
/// whose window is 1 along C, so that the next convolution reads NHWC
/// without a Transpose either side of the pool.
struct MaxPoolToChannelsLast : public OpRewritePattern<ONNXMaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXMaxPoolOp pool,
                                PatternRewriter &rewriter) const override {
    auto back = pool.getX().getDefiningOp<ONNXTransposeOp>();
    auto type = dyn_cast<RankedTensorType>(pool.getType());
    if (!back || !hasPerm(back, kToChannelsFirst) || !type ||
        type.getRank() != 4 || !type.hasStaticShape() ||
        pool.getKernelShape().size() != 2)
      return rewriter.notifyMatchFailure(pool,
                                         "not a 2-D MaxPool of NHWC data");
    auto append = [&](std::optional<ArrayRef<int64_t>> values, int64_t one,
                      int64_t split) -> DenseI64ArrayAttr {
      if (!values)
        return {};
      SmallVector<int64_t> v(values->begin(), values->end());
      // Pads are [begin..., end...]: one more dim in each half.
      if (split)
        v.insert(v.begin() + split, 0);
      v.push_back(one);
      return rewriter.getDenseI64ArrayAttr(v);
    };
    Value data = back.getData();
    auto dataType = dyn_cast<RankedTensorType>(data.getType());
    if (!dataType || !dataType.hasStaticShape())
      return rewriter.notifyMatchFailure(pool, "NHWC data of a dynamic shape");
    ArrayRef<int64_t> nhwc = dataType.getShape();
    Type element = type.getElementType();
    Location loc = pool.getLoc();
    SmallVector<int64_t> in5{nhwc[0], 1, nhwc[1], nhwc[2], nhwc[3]};
    ArrayRef<int64_t> y = type.getShape();
    SmallVector<int64_t> out5{y[0], 1, y[2], y[3], y[1]};
    Value view = ONNXReshapeOp::create(
        rewriter, loc, RankedTensorType::get(in5, element), data,
        createI64Constant(rewriter, loc, in5));
    SmallVector<int64_t> kernel(pool.getKernelShape());
    kernel.push_back(1);
    Value pooled = ONNXMaxPoolOp::create(
        rewriter, loc, RankedTensorType::get(out5, element), view,
        pool.getAutoPadAttr(), pool.getCeilModeAttr(),
        append(pool.getDilations(), 1, 0),
        rewriter.getDenseI64ArrayAttr(kernel), append(pool.getPads(), 0, 2),
        pool.getStorageOrderAttr(), append(pool.getStrides(), 1, 0));
    SmallVector<int64_t> outNhwc{y[0], y[2], y[3], y[1]};
    Value result = ONNXReshapeOp::create(
        rewriter, loc, RankedTensorType::get(outNhwc, element), pooled,
        createI64Constant(rewriter, loc, outNhwc));
    rewriter.replaceOpWithNewOp<ONNXTransposeOp>(
        pool, type, result, rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    return success();
  }
};

/// An elementwise op of NHWC convolutions' results (a residual Sum that
/// did not fuse into a matmul's epilogue, a Relu after it) computes on the
/// NHWC data, and its result is transposed back instead, where the next
/// convolution's Transpose to NHWC cancels it. Each operand is a Transpose
/// to NCHW of the result's shape read only there, or a scalar.
struct SinkTransposeThroughElementwise : public RewritePattern {
  SinkTransposeThroughElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<ONNXDialect>(op->getDialect()) || !isElementwiseOp(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || type.getRank() != 4 || !type.hasStaticShape())
      return failure();
    SmallVector<Value> operands;
    bool transposed = false;
    for (Value operand : op->getOperands()) {
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      auto back = operand.getDefiningOp<ONNXTransposeOp>();
      // A Transpose read elsewhere too would stay, and one more would
      // follow the op.
      if (back && hasPerm(back, kToChannelsFirst) && back->hasOneUse() &&
          operandType && operandType.getShape() == type.getShape()) {
        operands.push_back(back.getData());
        transposed = true;
      } else if (operandType && operandType.hasStaticShape() &&
                 operandType.getNumElements() == 1 &&
                 operandType.getRank() <= 4) {
        // One element broadcasts the same in either layout.
        operands.push_back(operand);
      } else {
        return failure();
      }
    }
    if (!transposed)
      return failure();
    ArrayRef<int64_t> d = type.getShape();
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(type.clone({d[0], d[2], d[3], d[1]}));
    rewriter.replaceOpWithNewOp<ONNXTransposeOp>(
        op, type, moved->getResult(0),
        rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    return success();
  }
};

/// Transpose(Transpose(x)) with inverse permutations: x. What is left
/// where one convolution's NHWC result meets the next one's NHWC input.
struct CancelTransposes : public OpRewritePattern<ONNXTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXTransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<ONNXTransposeOp>();
    if (!inner || !op.getPerm() || !inner.getPerm())
      return rewriter.notifyMatchFailure(op, "not a Transpose of a Transpose");
    ArrayRef<int64_t> outer = *op.getPerm(), first = *inner.getPerm();
    if (outer.size() != first.size())
      return rewriter.notifyMatchFailure(op, "ranks differ");
    for (auto [i, p] : llvm::enumerate(outer))
      if (p < 0 || p >= int64_t(first.size()) || first[p] != int64_t(i))
        return rewriter.notifyMatchFailure(op, "not inverse permutations");
    rewriter.replaceOp(op, inner.getData());
    return success();
  }
};

struct ConvsToMatmulsPass
    : public fuse::impl::ConvsToMatmulsBase<ConvsToMatmulsPass> {
  using ConvsToMatmulsBase::ConvsToMatmulsBase;

  void runOnOperation() override {
    if (rowAlignment < 1 || rowAlignment > 64) {
      getOperation().emitError()
          << "fuse-convs-to-matmuls: row-alignment must be from 1 to 64, not "
          << static_cast<int64_t>(rowAlignment);
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvToMatmul>(&getContext(), maxColumns, minFilters,
                               rowAlignment, pointwise, channelsLast,
                               directWindows, minChannels, inputChannelsLast);
    if (channelsLast)
      patterns.add<CancelTransposes, MaxPoolToChannelsLast,
                   SinkTransposeThroughElementwise>(&getContext());
    // No folding, no constant CSE: the graph is simplified already, and
    // only the rewritten convolutions should change.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setUseTopDownTraversal();
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};
} // namespace
