//===- FusionUtils.cpp - Legality checks and group construction ----------===//

#include "FusionUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace fuse;

bool fuse::isUngrouped(Operation *op) {
  return isa<ONNXDialect>(op->getDialect()) && !op->getParentOfType<GroupOp>();
}

bool fuse::feedsReturn(Operation *op) {
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    return isa<func::ReturnOp>(user);
  });
}

bool fuse::isComputeOp(Operation *op) {
  if (isFuseComputeOp(op))
    return true;
  return isa<ONNXDialect>(op->getDialect()) &&
         !op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `value` is a constant of int64 elements (a Slice's bounds).
static bool isConstantIndexList(Value value) {
  return !value || getConstantIntValues(value).has_value();
}

bool fuse::isFusibleGather(Operation *op) {
  if (!isUngrouped(op) || op->getNumResults() != 1)
    return false;
  auto hasStaticShape = [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.hasStaticShape();
  };
  if (auto concat = dyn_cast<ONNXConcatOp>(op))
    return hasStaticShape(concat.getResult()) &&
           llvm::all_of(concat.getInputs(), hasStaticShape);
  if (auto transpose = dyn_cast<ONNXTransposeOp>(op))
    return hasStaticShape(transpose.getData()) &&
           hasStaticShape(transpose.getResult());
  if (auto pad = dyn_cast<ONNXPadOp>(op)) {
    // The lowering needs the pads and the fill as constants.
    Value fill = pad.getConstantValue();
    SmallVector<int64_t> begins, ends;
    return pad.getMode() == "constant" && hasStaticShape(pad.getData()) &&
           hasStaticShape(pad.getResult()) &&
           (!fill || fill.getDefiningOp<ONNXConstantOp>()) &&
           succeeded(pad.getDimPads(
               cast<RankedTensorType>(pad.getType()).getRank(), begins, ends));
  }
  auto slice = dyn_cast<ONNXSliceOp>(op);
  if (!slice || !hasStaticShape(slice.getData()) ||
      !hasStaticShape(slice.getResult()) ||
      !isConstantIndexList(slice.getStarts()) ||
      !isConstantIndexList(slice.getEnds()) ||
      !isConstantIndexList(slice.getAxes()))
    return false;
  // A negative step reads through an indexing map that the kernel's
  // element-wise fusion does not take.
  if (!slice.getSteps())
    return true;
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(slice.getSteps());
  return steps && llvm::all_of(*steps, [](int64_t s) { return s > 0; });
}

bool fuse::isGatherRoot(Operation *op) {
  return isa<ONNXTransposeOp, ONNXPadOp>(op) && isFusibleGather(op);
}

bool fuse::holdsOnlyElementwiseOps(GroupOp group) {
  return llvm::all_of(
      group.getBodyBlock().without_terminator(), [](Operation &op) {
        return isElementwiseOp(&op) || op.hasTrait<OpTrait::ConstantLike>();
      });
}

/// Whether the op's tensor operands other than `except` are all scalars
/// (rank 0 or every dim a static 1), so that they cannot widen its result.
static bool otherOperandsAreScalars(Operation *op, Value except) {
  for (Value operand : op->getOperands()) {
    if (operand == except)
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type ||
        !llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; }))
      return false;
  }
  return true;
}

bool fuse::keepsShape(Value value, Operation *user) {
  if (user->getNumResults() != 1)
    return false;
  auto valueType = dyn_cast<RankedTensorType>(value.getType());
  auto resultType = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  if (!valueType || !resultType ||
      valueType.getShape() != resultType.getShape())
    return false;
  // Equal static shapes are a proof; with dynamic dims only when nothing
  // else can broadcast the result wider at run time.
  return valueType.hasStaticShape() || otherOperandsAreScalars(user, value);
}

Operation *fuse::getFusibleConsumer(Value value) {
  Operation *consumer = nullptr;
  return getConsumerBlocker(value, &consumer) == FusionBlocker::None
             ? consumer
             : nullptr;
}

/// Whether `user` runs: not in a candidate of a fuse.alternatives other
/// than its selected one.
static bool runs(Operation *user) {
  auto alternatives = dyn_cast_or_null<AlternativesOp>(user->getParentOp());
  return !alternatives || user->getParentRegion()->getRegionNumber() ==
                              alternatives.getSelected();
}

/// The one op among `users` (repeats allowed: `x * x` is one user, two
/// uses), or null.
static Operation *getOnlyUser(Value::user_range users) {
  Operation *only = nullptr;
  for (Operation *user : users) {
    if (!runs(user) || user == only)
      continue;
    if (only)
      return nullptr;
    only = user;
  }
  return only;
}

FusionBlocker fuse::getConsumerBlocker(Value value, Operation **userOut) {
  if (llvm::none_of(value.getUsers(), runs))
    return FusionBlocker::Unused;
  Operation *user = getOnlyUser(value.getUsers());
  if (!user)
    return FusionBlocker::SeveralUsers;
  // A candidate of a fuse.alternatives reads values from the block around
  // it, as the op would.
  Block *block = user->getBlock();
  if (isa_and_nonnull<AlternativesOp>(user->getParentOp()))
    block = user->getParentOp()->getBlock();
  if (block != value.getParentBlock())
    return FusionBlocker::OtherBlock;
  // A group stands for the op of its body that reads the value.
  Value read = value;
  if (auto group = dyn_cast<GroupOp>(user)) {
    for (OpOperand &input : group->getOpOperands())
      if (input.get() == value)
        read = group.getBodyBlock().getArgument(input.getOperandNumber());
    user = getOnlyUser(read.getUsers());
    if (!user)
      return FusionBlocker::SeveralUsers;
  }
  if (userOut)
    *userOut = user;
  if (isa<func::ReturnOp>(user))
    return FusionBlocker::GraphOutput;
  if (!isElementwiseOp(user))
    return FusionBlocker::NotElementwise;
  if (!keepsShape(read, user))
    return FusionBlocker::Broadcast;
  if (!isUngrouped(user))
    return FusionBlocker::Grouped;
  return FusionBlocker::None;
}

/// Whether `a` and `b` are ranked tensors of one shape (one iteration
/// space), whatever their element types.
static bool haveOneShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  return ta && tb && ta.getShape() == tb.getShape();
}

bool fuse::isReductionPrologue(Value value, Operation *reduction,
                               function_ref<bool(Operation *)> isMember) {
  Operation *producer = value.getDefiningOp();
  return producer && !isMember(producer) && isUngrouped(producer) &&
         isElementwiseOp(producer) && producer->getNumResults() == 1 &&
         producer->getBlock() == reduction->getBlock() &&
         haveOneShape(value.getType(), reduction->getOperand(0).getType()) &&
         llvm::all_of(value.getUsers(), isMember);
}

// Scalar constants are cheaper inside the kernel than as an input; shape
// constants (axes, slice bounds) must be visible to the lowering.
bool fuse::isClonedIntoGroup(Value value) {
  auto constant = value.getDefiningOp<ONNXConstantOp>();
  if (!constant)
    return false;
  if (isShapeLikeConstant(value))
    return true;
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  return type &&
         llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; });
}

/// The NhwcConvs' filters among `ops`' operands: a Transpose (to [K, C, R,
/// S]) of a constant stored [K, R, S, C] for cuDNN, read by nothing else.
/// In the contraction's group it is indexing of its operand (and the
/// library call reads the stored layout); outside it would be a kernel
/// moving the weights on every run. Other contractions' Transposed
/// operands stay out: their library calls read block arguments.
static SmallVector<Operation *> getFilterViews(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> views;
  for (Operation *op : ops) {
    auto conv = dyn_cast<ONNXNhwcConvOp>(op);
    ONNXTransposeOp transpose = conv ? conv.getFiltersLastView() : nullptr;
    if (transpose && transpose.getData().getDefiningOp<ONNXConstantOp>() &&
        !llvm::is_contained(ops, transpose.getOperation()))
      views.push_back(transpose);
  }
  return views;
}

/// What a group of `ops` reads from outside them: its inputs in order of
/// first use, and the constants it clones instead (`constants` may be null).
static llvm::SetVector<Value>
collectGroupInputs(ArrayRef<Operation *> ops,
                   llvm::SetVector<Operation *> *constants) {
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp();
          def && members.contains(def))
        continue;
      if (!isClonedIntoGroup(operand))
        inputs.insert(operand);
      else if (constants)
        constants->insert(operand.getDefiningOp());
    }
  return inputs;
}

size_t fuse::countGroupInputs(ArrayRef<Operation *> ops) {
  return collectGroupInputs(ops, /*constants=*/nullptr).size();
}

FailureOr<GroupOp> fuse::formGroup(RewriterBase &rewriter, GroupKind kind,
                                   ArrayRef<Operation *> groupOps) {
  assert(!groupOps.empty());
  SmallVector<Operation *> ops;
  if (kind == GroupKind::contraction_epilogue)
    ops = getFilterViews(groupOps);
  llvm::append_range(ops, groupOps);
  Operation *root = ops.back();
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  for (Operation *op : ArrayRef(ops).drop_back())
    for (Operation *user : op->getUsers())
      if (!members.contains(user))
        return rewriter.notifyMatchFailure(
            op, "an intermediate of the group is used outside it");

  // Inputs in order of first use; scalar constants are cloned instead.
  llvm::SetVector<Operation *> constants;
  llvm::SetVector<Value> inputs = collectGroupInputs(ops, &constants);

  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  rewriter.setInsertionPoint(root);
  auto group = GroupOp::create(rewriter, rewriter.getFusedLoc(locs), kind,
                               root->getResultTypes(), inputs.getArrayRef());

  Block &body = group.getBodyBlock();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, body.getArguments()))
    mapping.map(input, arg);
  rewriter.setInsertionPointToStart(&body);
  for (Operation *constant : constants)
    rewriter.clone(*constant, mapping);
  for (Operation *op : ops)
    rewriter.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value result : root->getResults())
    yielded.push_back(mapping.lookup(result));
  YieldOp::create(rewriter, root->getLoc(), yielded);

  rewriter.replaceOp(root, group.getResults());
  for (Operation *op : llvm::reverse(ArrayRef(ops).drop_back()))
    rewriter.eraseOp(op);
  return group;
}

SmallVector<Operation *> fuse::getOpsThroughAlternatives(Block &block,
                                                         bool selectedOnly) {
  SmallVector<Operation *> ops;
  for (Operation &op : block) {
    auto alternatives = dyn_cast<AlternativesOp>(op);
    if (!alternatives) {
      ops.push_back(&op);
      continue;
    }
    for (auto [i, region] : llvm::enumerate(alternatives.getCandidates()))
      if (!selectedOnly || uint64_t(i) == alternatives.getSelected())
        for (Operation &inner : region.getOps())
          ops.push_back(&inner);
  }
  return ops;
}
