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
//===----------------------------------------------------------------------===//

#include "ConstantTensor.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
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

static Value buildShape(PatternRewriter &rewriter, Location loc,
                        ArrayRef<int64_t> dims) {
  auto type = RankedTensorType::get({int64_t(dims.size())},
                                    rewriter.getI64Type());
  return ONNXConstantOp::create(rewriter, loc, type,
                                DenseIntElementsAttr::get(type, dims));
}

namespace {
struct ConvToMatmul : public OpRewritePattern<ONNXConvOp> {
  ConvToMatmul(MLIRContext *ctx, int64_t maxColumns, int64_t minFilters,
               int64_t rowAlignment, bool pointwise)
      : OpRewritePattern(ctx), maxColumns(maxColumns), minFilters(minFilters),
        rowAlignment(rowAlignment), pointwise(pointwise) {}

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
    ArrayRef<int64_t> x = xType.getShape(), y = yType.getShape();
    int64_t images = x[0], filters = y[1], positions = y[2] * y[3];
    bool fewColumns = maxColumns <= 0 || images * positions <= maxColumns;
    bool manyFilters = minFilters > 0 && filters >= minFilters;
    ArrayRef<int64_t> kernel = w->type.getShape().drop_front(2);
    bool alignedPointwise = pointwise && kernel[0] == 1 && kernel[1] == 1 &&
                            positions % rowAlignment == 0;
    if (!fewColumns && !manyFilters && !alignedPointwise)
      return rewriter.notifyMatchFailure(
          conv, "too many output positions for its few filters");

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
    SmallVector<int64_t> pads = resolveWindowPads(x.drop_front(2), window);

    // [W | bias | 0]: rows aligned to 16 bytes of what the matmul reads,
    // as cuBLASLt's fast kernels want their leading dimensions.
    int64_t taps = x[1] * window.kernel[0] * window.kernel[1];
    int64_t rows = llvm::alignTo(taps + 1, rowAlignment);
    ConstantTensor matrix;
    matrix.type = RankedTensorType::get({filters, rows}, rewriter.getF32Type());
    matrix.floats.assign(filters * rows, 0.0);
    for (int64_t f = 0; f < filters; ++f) {
      for (int64_t t = 0; t < taps; ++t)
        matrix.floats[f * rows + t] = w->floats[f * taps + t];
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

    // The residual Adds and the ReLU after the Conv, on 3-D values.
    Operation *last = conv;
    SmallVector<Operation *> chain;
    Value shape3 = nullptr;
    while (last->getResult(0).hasOneUse()) {
      Operation *user = *last->getResult(0).getUsers().begin();
      if (user->getBlock() != conv->getBlock() ||
          user->getNumResults() != 1 || user->getResult(0).getType() != yType)
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
        if (!shape3)
          shape3 = buildShape(rewriter, loc, {images, filters, positions});
        Value residual = ONNXReshapeOp::create(rewriter, user->getLoc(),
                                               flatType, other, shape3);
        flat = add.getA() == current
                   ? ONNXAddOp::create(rewriter, user->getLoc(), flatType,
                                       flat, residual)
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
    Value shape4 = buildShape(rewriter, loc, y);
    Value result = ONNXReshapeOp::create(rewriter, last->getLoc(), yType,
                                         flat, shape4);
    rewriter.replaceOp(last, result);
    for (Operation *op : llvm::reverse(chain))
      if (op != last)
        rewriter.eraseOp(op);
    if (last != conv.getOperation())
      rewriter.eraseOp(conv);
    return success();
  }

  int64_t maxColumns, minFilters, rowAlignment;
  bool pointwise;
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
                               rowAlignment, pointwise);
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
