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

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
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
             arith::ConstantOp, func::ReturnOp>(op);
}

static LogicalResult formLoops(func::FuncOp kernel) {
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return kernel.emitOpError("kernel must return one value, returns ")
           << ret.getNumOperands();
  Operation *root = ret.getOperand(0).getDefiningOp();
  auto tileable = dyn_cast_or_null<TilingInterface>(root);
  if (!tileable)
    return kernel.emitOpError("kernel result is not computed by a tileable "
                              "op (got ")
           << (root ? root->getName().getStringRef() : "a block argument")
           << ")";

  SmallVector<OpFoldResult> tileSizes;
  IRRewriter rewriter(kernel.getContext());
  for (utils::IteratorType it : tileable.getLoopIteratorTypes())
    tileSizes.push_back(
        rewriter.getIndexAttr(it == utils::IteratorType::parallel ? 1 : 0));
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
