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
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"

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
  FormEpilogueGroup(MLIRContext *ctx, int64_t maxOps)
      : OpTraitRewritePattern<AnchorTrait>(ctx), maxOps(maxOps) {}

  LogicalResult matchAndRewrite(Operation *anchor,
                                PatternRewriter &rewriter) const override {
    if (!isUngrouped(anchor))
      return rewriter.notifyMatchFailure(anchor, "already in a group");
    if (anchor->getNumResults() != 1)
      return rewriter.notifyMatchFailure(anchor, "not a single-result op");
    SmallVector<Operation *> chain{anchor};
    while (int64_t(chain.size()) < maxOps) {
      Operation *next = getFusibleConsumer(chain.back()->getResult(0));
      if (!next)
        break;
      chain.push_back(next);
      if (countGroupInputs(chain) > kMaxGroupInputs) {
        chain.pop_back();
        break;
      }
    }
    if (chain.size() < 2)
      return rewriter.notifyMatchFailure(anchor,
                                         "no elementwise consumer to fuse");
    return formGroup(rewriter, Kind, chain);
  }

private:
  int64_t maxOps;
};

using FormPoolEpilogueGroup =
    FormEpilogueGroup<ONNXTrait::Pooling, GroupKind::pool_epilogue>;
using FormContractionEpilogueGroup =
    FormEpilogueGroup<ONNXTrait::Contraction, GroupKind::contraction_epilogue>;

/// Whether the gather `op` reads its data operand at positions of its own,
/// whatever the data's shape: its producers may join its group.
static bool readsOperandsAsGather(Operation *op) {
  return isa<ONNXConcatOp, ONNXTransposeOp, ONNXPadOp>(op);
}

/// Whether `op`'s result is read only by a Transpose or Pad that roots a
/// group: that group takes `op` in as it grows back, whichever pattern
/// runs first.
static bool feedsGatherRoot(Operation *op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return false;
  Operation *user = *result.getUsers().begin();
  return isGatherRoot(user) && user->getBlock() == op->getBlock() &&
         (isElementwiseOp(op) || isFusibleGather(op));
}

/// A maximal DAG of elementwise ops, formed from its root: the op whose
/// result cannot be fused any further, an elementwise op or a Transpose or
/// Pad (a model input's conversion to fp16 and NHWC, padded to the
/// channels cuDNN wants, is one kernel). Gathers that only the DAG reads
/// join it too (isFusibleGather), with the elementwise ops computing a
/// Concat's, Transpose's or Pad's operands; a Slice's data is an input.
struct FormElementwiseGroup : public RewritePattern {
  FormElementwiseGroup(MLIRContext *ctx, int64_t maxOps)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        maxOps(maxOps) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseOp(root) && !isGatherRoot(root))
      return rewriter.notifyMatchFailure(root, "not an elementwise op");
    if (!isUngrouped(root))
      return rewriter.notifyMatchFailure(root, "already in a group");
    if (root->getNumResults() != 1 || getFusibleConsumer(root->getResult(0)) ||
        feedsGatherRoot(root))
      return rewriter.notifyMatchFailure(
          root, "not a root: it fuses into its consumer's group");

    // Grow backwards to a fixpoint: a producer joins once all its users
    // have (so diamonds are found in any visiting order), up to maxOps ops;
    // the producers left out form groups of their own.
    llvm::SmallPtrSet<Operation *, 8> members{root};
    SmallVector<Operation *> ops{root};
    // The group's inputs, constants aside (a gather reads every one of
    // them at each element, and each is a kernel parameter).
    llvm::SmallDenseSet<Value, 8> inputs;
    auto isCounted = [](Value v) { return !isClonedIntoGroup(v); };
    for (Value operand : root->getOperands())
      if (isCounted(operand))
        inputs.insert(operand);
    for (bool changed = true; changed && int64_t(ops.size()) < maxOps;) {
      changed = false;
      for (size_t i = 0; i < ops.size() && int64_t(ops.size()) < maxOps;
           ++i) {
        // A Slice reads a view of its data: what computes the data stays
        // outside, as an input of the group.
        if (isa<ONNXSliceOp>(ops[i]))
          continue;
        for (Value operand : ops[i]->getOperands()) {
          if (int64_t(ops.size()) >= maxOps)
            break;
          Operation *producer = operand.getDefiningOp();
          if (!producer || members.contains(producer) ||
              !isUngrouped(producer) ||
              !(isElementwiseOp(producer) || isFusibleGather(producer)) ||
              producer->getNumResults() != 1 ||
              producer->getBlock() != root->getBlock())
            continue;
          // All its users must be in the group and keep its shape, so the
          // group has one iteration space; a gather reads each operand
          // element at a position of its own, whatever the operand's shape.
          // A Slice's data stays an input, even where the Slice is whole.
          Value result = producer->getResult(0);
          if (!llvm::all_of(result.getUsers(), [&](Operation *user) {
                return members.contains(user) && !isa<ONNXSliceOp>(user) &&
                       (keepsShape(result, user) ||
                        readsOperandsAsGather(user));
              }))
            continue;
          llvm::SmallDenseSet<Value, 8> added;
          for (Value v : producer->getOperands())
            if (isCounted(v) && !inputs.contains(v))
              added.insert(v);
          if (inputs.size() - 1 + added.size() > kMaxGroupInputs)
            continue;
          inputs.erase(result);
          inputs.insert(added.begin(), added.end());
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

private:
  int64_t maxOps;
};

/// A reduction (Softmax, LayerNormalization, Reduce*) with the elementwise
/// DAG that computes its input (e.g. the scaling and mask of attention
/// scores, or bias and residual adds) and the chain that consumes its
/// result.
struct FormReductionGroup : public OpTraitRewritePattern<ONNXTrait::Reduction> {
  FormReductionGroup(MLIRContext *ctx, int64_t maxOps)
      : OpTraitRewritePattern(ctx), maxOps(maxOps) {}

  LogicalResult matchAndRewrite(Operation *anchor,
                                PatternRewriter &rewriter) const override {
    if (!isUngrouped(anchor))
      return rewriter.notifyMatchFailure(anchor, "already in a group");
    if (anchor->getNumResults() != 1 || anchor->getNumOperands() == 0)
      return rewriter.notifyMatchFailure(anchor, "not a single-result op");
    Value input = anchor->getOperand(0);
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(anchor, "input shape not static");

    // Prologue: producers of the input, each with the input's type (one
    // iteration space) and no user outside the group.
    llvm::SmallPtrSet<Operation *, 8> members{anchor};
    SmallVector<Operation *> ops{anchor};
    SmallVector<Value> frontier{input};
    // The prologue takes at most half of maxOps, the epilogue the rest.
    auto isMember = [&](Operation *op) { return members.contains(op); };
    while (!frontier.empty() && int64_t(ops.size()) < maxOps / 2) {
      Value value = frontier.pop_back_val();
      if (!isReductionPrologue(value, anchor, isMember))
        continue;
      Operation *producer = value.getDefiningOp();
      ops.push_back(producer);
      if (countGroupInputs(ops) > kMaxGroupInputs) {
        ops.pop_back();
        continue;
      }
      members.insert(producer);
      llvm::append_range(frontier, producer->getOperands());
    }
    // Epilogue: the elementwise chain after it.
    for (Operation *next = getFusibleConsumer(anchor->getResult(0));
         next && int64_t(ops.size()) < maxOps;
         next = getFusibleConsumer(next->getResult(0))) {
      if (members.contains(next))
        break;
      ops.push_back(next);
      if (countGroupInputs(ops) > kMaxGroupInputs) {
        ops.pop_back();
        break;
      }
      members.insert(next);
    }
    if (ops.size() < 2)
      return rewriter.notifyMatchFailure(anchor, "nothing to fuse with");
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return formGroup(rewriter, GroupKind::reduction, ops);
  }

private:
  int64_t maxOps;
};

/// The ops of `group`'s body that compute (not cloned constants).
static int64_t countComputeOps(GroupOp group) {
  return llvm::count_if(group.getBodyBlock().without_terminator(),
                        [](Operation &op) {
                          return !op.hasTrait<OpTrait::ConstantLike>();
                        });
}

/// Moves the body of `group` back into the parent block and erases the
/// group; returns its compute ops (not cloned constants) in order.
static SmallVector<Operation *> unwrapGroup(RewriterBase &rewriter,
                                            GroupOp group) {
  Block &body = group.getBodyBlock();
  SmallVector<Value> yielded(group.getYield().getValues());
  for (auto [arg, input] : llvm::zip(body.getArguments(), group.getInputs()))
    rewriter.replaceAllUsesWith(arg, input);
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    op.moveBefore(group);
    if (!op.hasTrait<OpTrait::ConstantLike>())
      ops.push_back(&op);
  }
  rewriter.replaceOp(group, yielded);
  return ops;
}

/// An `elementwise` group whose input is the result of a contraction or
/// pooling (grouped or not), or of a reduction group, that nothing else
/// uses, over the same shape, joins that op's epilogue: e.g. MatMul + bias
/// + GELU, where the bias add has two users inside the GELU and so ended
/// the epilogue chain, or the IsNaN/Where guard PyTorch's sdpa export puts
/// after the attention's Softmax, whose result both read.
struct MergeElementwiseIntoEpilogue : public OpRewritePattern<GroupOp> {
  MergeElementwiseIntoEpilogue(MLIRContext *ctx, int64_t maxOps)
      : OpRewritePattern(ctx), maxOps(maxOps) {}

  LogicalResult matchAndRewrite(GroupOp group,
                                PatternRewriter &rewriter) const override {
    if (group.getKind() != GroupKind::elementwise ||
        group->getNumResults() != 1)
      return rewriter.notifyMatchFailure(group, "not an elementwise group");
    // Gathers (Slice, Concat, Transpose, Pad) belong to elementwise groups.
    if (!holdsOnlyElementwiseOps(group))
      return rewriter.notifyMatchFailure(group, "holds a gather");
    Type resultType = group->getResult(0).getType();
    for (Value input : group.getInputs()) {
      Operation *def = input.getDefiningOp();
      if (!def || def->getBlock() != group->getBlock() ||
          def->getNumResults() != 1 || input.getType() != resultType ||
          !llvm::all_of(input.getUsers(),
                        [&](Operation *u) { return u == group; }))
        continue;
      GroupKind kind;
      auto producer = dyn_cast<GroupOp>(def);
      if (producer && (producer.getKind() == GroupKind::contraction_epilogue ||
                       producer.getKind() == GroupKind::pool_epilogue ||
                       producer.getKind() == GroupKind::reduction))
        kind = producer.getKind();
      else if (!producer && isUngrouped(def) && isContractionOp(def))
        kind = GroupKind::contraction_epilogue;
      else if (!producer && isUngrouped(def) && isPoolingOp(def))
        kind = GroupKind::pool_epilogue;
      else
        continue;
      if (countComputeOps(group) + (producer ? countComputeOps(producer) : 1) >
          maxOps)
        continue;
      // Both groups' inputs, less the one that joins them.
      llvm::SmallDenseSet<Value, 8> inputs(group.getInputs().begin(),
                                           group.getInputs().end());
      if (producer)
        inputs.insert(producer.getInputs().begin(), producer.getInputs().end());
      else
        for (Value operand : def->getOperands())
          if (!isClonedIntoGroup(operand))
            inputs.insert(operand);
      if (inputs.size() - 1 > kMaxGroupInputs)
        continue;
      SmallVector<Operation *> ops =
          producer ? unwrapGroup(rewriter, producer)
                   : SmallVector<Operation *>{def};
      llvm::append_range(ops, unwrapGroup(rewriter, group));
      return formGroup(rewriter, kind, ops);
    }
    return rewriter.notifyMatchFailure(group, "no producer to merge into");
  }

private:
  int64_t maxOps;
};

namespace {
/// A Slice that takes `size` elements from `start` along `axis` and every
/// other dim whole (a Split's part), read by graph outputs only.
struct OutputPart {
  ONNXSliceOp slice;
  int64_t axis, start, size;
};
} // namespace

static std::optional<OutputPart> getOutputPart(ONNXSliceOp slice) {
  if (!llvm::all_of(slice->getUsers(), llvm::IsaPred<func::ReturnOp>))
    return std::nullopt;
  std::optional<SliceParams> params = slice.getStaticParams();
  if (!params)
    return std::nullopt;
  auto type = cast<RankedTensorType>(slice.getData().getType());
  std::optional<OutputPart> part;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (params->sizes[i] > 1 && params->steps[i] != 1)
      return std::nullopt;
    if (params->sizes[i] == type.getDimSize(i))
      continue;
    if (part || params->sizes[i] == 0)
      return std::nullopt; // Cut along two dims, or empty.
    part = OutputPart{slice, i, params->starts[i], params->sizes[i]};
  }
  return part;
}

/// Graph outputs that are parts of one value along one dim (a Split's)
/// become views of one copy of it, whose bytes the plan lets them share
/// (no launch each): a Split into 10,000 outputs is one kernel, not
/// 10,000. Parts along the first dim of size above 1 are consecutive: a
/// graph input gets an onnx.Identity (an input itself cannot be viewed: a
/// caller may set it again before reading the run's outputs); a computed
/// value needs nothing. Equal parts along another dim are consecutive in a
/// transposed copy, [K, A, s * B] for K parts of s of [A, K * s, B], each
/// part a Slice of it along its first dim reshaped back.
static void stageOutputParts(func::FuncOp func) {
  if (func.isExternal())
    return;
  SmallVector<Value> values(func.getArguments());
  for (Operation &op : func.getBody().front())
    if (!isa<ONNXConstantOp>(op))
      llvm::append_range(values, op.getResults());
  SmallVector<ONNXSliceOp> replaced;
  for (Value value : values) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
      continue;
    // The parts along the dim most of them cut.
    llvm::MapVector<int64_t, SmallVector<OutputPart>> byAxis;
    for (Operation *user : value.getUsers())
      if (auto slice = dyn_cast<ONNXSliceOp>(user);
          slice && slice.getData() == value)
        if (std::optional<OutputPart> part = getOutputPart(slice))
          byAxis[part->axis].push_back(*part);
    SmallVector<OutputPart> *parts = nullptr;
    for (auto &[axis, list] : byAxis)
      if (!parts || list.size() > parts->size())
        parts = &list;
    if (!parts || parts->size() < 2)
      continue;
    int64_t axis = parts->front().axis;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= shape[i];
    for (int64_t i = axis + 1; i < type.getRank(); ++i)
      inner *= shape[i];
    OpBuilder builder(func.getContext());
    if (auto arg = dyn_cast<BlockArgument>(value))
      builder.setInsertionPointToStart(arg.getOwner());
    else
      builder.setInsertionPointAfter(value.getDefiningOp());
    Location loc = parts->front().slice.getLoc();
    if (outer == 1) {
      if (!isa<BlockArgument>(value))
        continue;
      Value copy = ONNXIdentityOp::create(builder, loc, type, value);
      for (OutputPart &part : *parts)
        part.slice.getDataMutable().assign(copy);
      continue;
    }
    int64_t size = parts->front().size, dim = shape[axis];
    if (dim % size != 0 || llvm::any_of(*parts, [&](const OutputPart &p) {
          return p.size != size || p.start % size != 0;
        }))
      continue;
    int64_t count = dim / size;
    Type element = type.getElementType();
    Value grouped = ONNXReshapeOp::create(
        builder, loc,
        RankedTensorType::get({outer, count, size * inner}, element), value,
        createI64Constant(builder, loc, {outer, count, size * inner}));
    Value stacked = ONNXTransposeOp::create(
        builder, loc,
        RankedTensorType::get({count, outer, size * inner}, element), grouped,
        builder.getDenseI64ArrayAttr({1, 0, 2}));
    Value zero = createI64Constant(builder, loc, {0});
    for (OutputPart &part : *parts) {
      builder.setInsertionPoint(part.slice);
      int64_t k = part.start / size;
      Value piece = ONNXSliceOp::create(
          builder, part.slice.getLoc(),
          RankedTensorType::get({1, outer, size * inner}, element), stacked,
          createI64Constant(builder, loc, {k}),
          createI64Constant(builder, loc, {k + 1}), zero, Value());
      auto partType = cast<RankedTensorType>(part.slice.getType());
      Value reshaped = ONNXReshapeOp::create(
          builder, part.slice.getLoc(), partType, piece,
          createI64Constant(builder, loc, partType.getShape()));
      part.slice.replaceAllUsesWith(reshaped);
      replaced.push_back(part.slice);
    }
  }
  // Afterwards: `values` holds their results.
  for (ONNXSliceOp slice : replaced)
    slice.erase();
}

struct FuseChainsPass : public fuse::impl::FuseChainsBase<FuseChainsPass> {
  using FuseChainsBase::FuseChainsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    stageOutputParts(getOperation());
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);

    if (reductions) {
      RewritePatternSet rows(ctx);
      populateReductionFusionPatterns(rows, maxGroupOps);
      if (failed(applyPatternsGreedily(getOperation(), std::move(rows),
                                       config)))
        return signalPassFailure();
    }

    RewritePatternSet epilogues(ctx);
    if (poolEpilogues)
      populatePoolEpiloguePatterns(epilogues, maxGroupOps);
    if (contractionEpilogues)
      populateContractionEpiloguePatterns(epilogues, maxGroupOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(epilogues),
                                     config)))
      return signalPassFailure();

    if (!elementwise)
      return;
    RewritePatternSet chains(ctx);
    populateElementwiseFusionPatterns(chains, maxGroupOps);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(chains), config)))
      return signalPassFailure();

    if (!contractionEpilogues && !poolEpilogues && !reductions)
      return;
    RewritePatternSet merges(ctx);
    merges.add<MergeElementwiseIntoEpilogue>(ctx, maxGroupOps);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(merges), config)))
      return signalPassFailure();
    // Constants the merged groups cloned and nothing else reads.
    getOperation().walk([](ONNXConstantOp constant) {
      if (constant.use_empty() && !constant->getParentOfType<GroupOp>())
        constant.erase();
    });
  }
};

} // namespace

void fuse::populatePoolEpiloguePatterns(RewritePatternSet &patterns,
                                        int64_t maxOps) {
  patterns.add<FormPoolEpilogueGroup>(patterns.getContext(), maxOps);
}

void fuse::populateContractionEpiloguePatterns(RewritePatternSet &patterns,
                                               int64_t maxOps) {
  patterns.add<FormContractionEpilogueGroup>(patterns.getContext(), maxOps);
}

void fuse::populateReductionFusionPatterns(RewritePatternSet &patterns,
                                           int64_t maxOps) {
  patterns.add<FormReductionGroup>(patterns.getContext(), maxOps);
}

void fuse::populateElementwiseFusionPatterns(RewritePatternSet &patterns,
                                             int64_t maxOps) {
  patterns.add<FormElementwiseGroup>(patterns.getContext(), maxOps);
}
