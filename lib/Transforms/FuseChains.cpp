//===- FuseChains.cpp - Form fuse.group ops from chains of onnx ops ------===//
//
// Each pattern is anchored on the op that decides a group: the pooling or
// contraction op for epilogue groups, the last op of the chain for
// elementwise groups. Groups never overlap: every pattern skips ops that
// are already inside a group, and the epilogue patterns run to completion
// before the elementwise ones so they claim their chains first.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_FUSECHAINS
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// An anchor op (trait `AnchorTrait`) and the elementwise chain after it.
template <template <typename> class AnchorTrait, GroupKind Kind>
struct FormEpilogueGroup : public OpTraitRewritePattern<AnchorTrait> {
  using OpTraitRewritePattern<AnchorTrait>::OpTraitRewritePattern;

  LogicalResult matchAndRewrite(Operation *anchor,
                                PatternRewriter &rewriter) const override {
    if (!isUngrouped(anchor))
      return rewriter.notifyMatchFailure(anchor, "already in a group");
    if (anchor->getNumResults() != 1)
      return rewriter.notifyMatchFailure(anchor, "not a single-result op");
    SmallVector<Operation *> chain{anchor};
    while (Operation *next = getFusibleConsumer(chain.back()->getResult(0)))
      chain.push_back(next);
    if (chain.size() < 2)
      return rewriter.notifyMatchFailure(anchor,
                                         "no elementwise consumer to fuse");
    return formGroup(rewriter, Kind, chain);
  }
};

using FormPoolEpilogueGroup =
    FormEpilogueGroup<ONNXTrait::Pooling, GroupKind::pool_epilogue>;
using FormContractionEpilogueGroup =
    FormEpilogueGroup<ONNXTrait::Contraction, GroupKind::contraction_epilogue>;

/// A maximal DAG of elementwise ops, formed from its root: the op whose
/// result cannot be fused any further.
struct FormElementwiseGroup
    : public OpTraitRewritePattern<ONNXTrait::Elementwise> {
  using OpTraitRewritePattern::OpTraitRewritePattern;

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isUngrouped(root))
      return rewriter.notifyMatchFailure(root, "already in a group");
    if (root->getNumResults() != 1 || getFusibleConsumer(root->getResult(0)))
      return rewriter.notifyMatchFailure(
          root, "not a root: it fuses into its consumer's group");

    // Grow backwards to a fixpoint: a producer joins once all its users
    // have (so diamonds are found in any visiting order).
    llvm::SmallPtrSet<Operation *, 8> members{root};
    SmallVector<Operation *> ops{root};
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < ops.size(); ++i) {
        for (Value operand : ops[i]->getOperands()) {
          Operation *producer = operand.getDefiningOp();
          if (!producer || members.contains(producer) ||
              !isUngrouped(producer) || !isElementwiseOp(producer) ||
              producer->getNumResults() != 1 ||
              producer->getBlock() != root->getBlock())
            continue;
          // All its users must be in the group and keep its shape, so the
          // group has one iteration space.
          Value result = producer->getResult(0);
          if (!llvm::all_of(result.getUsers(), [&](Operation *user) {
                return members.contains(user) && keepsShape(result, user);
              }))
            continue;
          members.insert(producer);
          ops.push_back(producer);
          changed = true;
        }
      }
    }
    if (ops.size() < 2)
      return rewriter.notifyMatchFailure(root, "nothing to fuse with");
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return formGroup(rewriter, GroupKind::elementwise, ops);
  }
};

struct FuseChainsPass : public fuse::impl::FuseChainsBase<FuseChainsPass> {
  using FuseChainsBase::FuseChainsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);

    RewritePatternSet epilogues(ctx);
    if (poolEpilogues)
      populatePoolEpiloguePatterns(epilogues);
    if (contractionEpilogues)
      populateContractionEpiloguePatterns(epilogues);
    if (failed(applyPatternsGreedily(getOperation(), std::move(epilogues),
                                     config)))
      return signalPassFailure();

    if (!elementwise)
      return;
    RewritePatternSet chains(ctx);
    populateElementwiseFusionPatterns(chains);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(chains), config)))
      return signalPassFailure();
  }
};

} // namespace

void fuse::populatePoolEpiloguePatterns(RewritePatternSet &patterns) {
  patterns.add<FormPoolEpilogueGroup>(patterns.getContext());
}

void fuse::populateContractionEpiloguePatterns(RewritePatternSet &patterns) {
  patterns.add<FormContractionEpilogueGroup>(patterns.getContext());
}

void fuse::populateElementwiseFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<FormElementwiseGroup>(patterns.getContext());
}
