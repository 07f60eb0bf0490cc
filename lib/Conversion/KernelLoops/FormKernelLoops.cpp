//===- FormKernelLoops.cpp - One loop nest per kernel ---------------------===//
//
// The op that produces a kernel's result (its root) is tiled with tile size
// 1 on every parallel dimension, as an scf.forall over output elements, and
// every producer is fused into the tile: the body then computes one output
// element from its inputs, and the group's intermediates exist only as
// per-element values. What cannot be fused is an error: "one group, one
// kernel" is a guarantee, not a hope.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_FORMKERNELLOOPS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Ops that may stay outside the kernel's loop: they compute nothing per
/// element (views, constants, empty tensors).
static bool isFreeOp(Operation *op) {
  return isa<tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             tensor::ExtractSliceOp, arith::ConstantOp, func::ReturnOp>(op);
}

/// The dims of the kernel result's iteration space that each loop
/// iteration keeps whole: those that a row-wise op (Softmax,
/// LayerNormalization) of the result's shape marked with `fuse.row_dims`,
/// so its row statistics are computed once per row. Empty when there is
/// none. Shapes, not types: a narrow float's row-wise op is computed in
/// f32 and cast back.
static SmallVector<int64_t> getRowDims(func::FuncOp kernel, Type rootType) {
  SmallVector<int64_t> dims;
  auto rootShaped = dyn_cast_or_null<ShapedType>(rootType);
  kernel.walk([&](Operation *op) {
    auto attr = op->getAttrOfType<DenseI64ArrayAttr>("fuse.row_dims");
    auto shaped = op->getNumResults() == 1
                      ? dyn_cast<ShapedType>(op->getResult(0).getType())
                      : ShapedType();
    if (attr && shaped && rootShaped && shaped.hasRank() &&
        rootShaped.hasRank() && shaped.getShape() == rootShaped.getShape())
      for (int64_t d : attr.asArrayRef())
        if (!llvm::is_contained(dims, d))
          dims.push_back(d);
  });
  return dims;
}

namespace {
/// `tensor.extract %t[i...]` of an elementwise `linalg.generic` computes
/// that one element in place: its inputs' elements extracted at the
/// indices its maps give, its body cloned. A windowed op with padding (a
/// Conv) reads its input by `tensor.extract`, which tile-and-fuse cannot
/// fuse through; a float16 Conv's input is such a generic (its cast to
/// f32).
struct ExtractOfElementwiseGeneric
    : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto generic = extract.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic.getNumDpsInits() != 1 ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isIdentity())
      return failure();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      if (!isa<RankedTensorType>(input->get().getType()) ||
          !llvm::all_of(map.getResults(), [](AffineExpr e) {
            auto c = dyn_cast<AffineConstantExpr>(e);
            return isa<AffineDimExpr>(e) || (c && c.getValue() == 0);
          }))
        return failure();
    }
    // The body's block arguments of the init (outs) must be unused: an
    // elementwise op does not read its output.
    Block &body = generic.getRegion().front();
    if (!body.getArgument(body.getNumArguments() - 1).use_empty())
      return failure();

    Location loc = extract.getLoc();
    ValueRange indices = extract.getIndices();
    IRMapping mapping;
    Value zero;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      SmallVector<Value> at;
      for (AffineExpr e : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e)) {
          at.push_back(indices[dim.getPosition()]);
          continue;
        }
        if (!zero)
          zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        at.push_back(zero);
      }
      mapping.map(body.getArgument(input->getOperandNumber()),
                  tensor::ExtractOp::create(rewriter, loc, input->get(), at)
                      .getResult());
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        mapping.map(index.getResult(), indices[index.getDim()]);
        continue;
      }
      rewriter.clone(op, mapping);
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    rewriter.replaceOp(extract, mapping.lookupOrDefault(yield.getOperand(0)));
    return success();
  }
};
} // namespace

/// Merges elementwise producers into their consumers (one linalg.generic
/// computes what several did), so that a value used twice in the kernel,
/// or read by a row reduction, is computed in place instead of being
/// materialized.
static LogicalResult fuseElementwiseOps(func::FuncOp kernel) {
  RewritePatternSet patterns(kernel.getContext());
  linalg::populateElementwiseOpsFusionPatterns(
      patterns, [](OpOperand *) { return true; });
  // Not the generic canonicalizations: they would erase the copy that a
  // reshape-only kernel consists of.
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  patterns.add<ExtractOfElementwiseGeneric>(kernel.getContext());
  return applyPatternsGreedily(kernel, std::move(patterns));
}

static LogicalResult formLoops(func::FuncOp kernel) {
  // Row dims are read before elementwise fusion, which may fold the marked
  // op into its epilogue.
  auto resultType = kernel.getFunctionType().getNumResults() == 1
                        ? kernel.getFunctionType().getResult(0)
                        : Type();
  SmallVector<int64_t> rowDims = getRowDims(kernel, resultType);
  if (failed(fuseElementwiseOps(kernel)))
    return kernel.emitOpError("could not fuse its elementwise ops");

  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return kernel.emitOpError("kernel must return one value, returns ")
           << ret.getNumOperands();
  Operation *root = ret.getOperand(0).getDefiningOp();
  // fuse.attention gets its loops after bufferization (fuse-lower-attention
  // or the GPU's `attention` mapping).
  if (isa_and_nonnull<AttentionOp>(root))
    return success();
  auto tileable = dyn_cast_or_null<TilingInterface>(root);
  if (!tileable)
    return kernel.emitOpError("kernel result is not computed by a tileable "
                              "op (got ")
           << (root ? root->getName().getStringRef() : "a block argument")
           << ")";

  SmallVector<OpFoldResult> tileSizes;
  IRRewriter rewriter(kernel.getContext());
  for (auto [i, it] : llvm::enumerate(tileable.getLoopIteratorTypes())) {
    bool tiled = it == utils::IteratorType::parallel &&
                 !llvm::is_contained(rowDims, static_cast<int64_t>(i));
    tileSizes.push_back(rewriter.getIndexAttr(tiled ? 1 : 0));
  }
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(tileSizes);
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tileable, options);
  if (failed(result))
    return root->emitOpError("could not be tiled into the kernel loop");
  for (OpResult value : root->getResults())
    rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));

  // Slices of whole-tensor inits become per-element inits; dead producers
  // (now recomputed inside the loop) go away.
  RewritePatternSet patterns(kernel.getContext());
  tensor::populateFoldTensorEmptyPatterns(patterns);
  for (Dialect *dialect : kernel.getContext()->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  scf::ForallOp::getCanonicalizationPatterns(patterns, kernel.getContext());
  if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
    return kernel.emitOpError("could not be simplified after tiling");

  // One loop nest: at most one scf.forall, and when there is one, nothing
  // that computes outside it.
  unsigned loops = 0;
  for (Operation &op : kernel.getBody().front())
    loops += isa<scf::ForallOp>(op);
  if (loops > 1)
    return kernel.emitOpError("kernel became ")
           << loops << " loop nests instead of one";
  if (loops == 1)
    for (Operation &op : kernel.getBody().front())
      if (!isa<scf::ForallOp>(op) && !isFreeOp(&op))
        return op.emitOpError("could not be fused into the kernel's loop");
  return success();
}

namespace {
struct FormKernelLoopsPass
    : public fuse::impl::FormKernelLoopsBase<FormKernelLoopsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (isKernel(func) && failed(formLoops(func)))
      signalPassFailure();
  }
};
} // namespace
