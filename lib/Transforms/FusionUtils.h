//===- FusionUtils.h - Legality checks and group construction ----*- C++
//-*-===//
//
// Private to the fusion passes.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_TRANSFORMS_FUSIONUTILS_H
#define FUSE_LIB_TRANSFORMS_FUSIONUTILS_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/PatternMatch.h"

namespace fuse {

/// Whether `op` may join a group at all: an onnx op, not yet in a group.
bool isUngrouped(mlir::Operation *op);

/// Whether the function's return reads `op`'s results: a graph output,
/// which needs a value (and a buffer) of its own.
bool feedsReturn(mlir::Operation *op);

/// Whether `op` is what kernels compute: an onnx op other than a constant,
/// or fuse.im2col. Outside a group, such an op is a kernel of its own.
bool isComputeOp(mlir::Operation *op);

/// Whether `op` is a Slice (constant bounds, positive steps), a Concat, a
/// Transpose or a constant-mode Pad (constant pads and fill) of static
/// shapes: ops whose every output element is one element of an operand (or
/// the fill), at a position computed from its own. They join elementwise
/// groups as gathers: the kernel reads, or recomputes, the one element each
/// output needs, so their operands need not have the group's shape (a
/// rotary embedding's Slice/Neg/Concat; a model input's conversion, layout
/// change and channel padding before an NHWC convolution).
bool isFusibleGather(mlir::Operation *op);

/// Whether `op` is a fusible gather that may also be the root of an
/// elementwise group (a Transpose or Pad, not a Slice or Concat).
bool isGatherRoot(mlir::Operation *op);

/// Whether every compute op of `group` is elementwise (no gather).
bool holdsOnlyElementwiseOps(GroupOp group);

/// Whether `user`'s result provably has `value`'s shape: `user` adds no
/// broadcasting to `value`, so both can share one iteration space.
bool keepsShape(mlir::Value value, mlir::Operation *user);

/// The op `value` can be fused into: its only user, if that user is an
/// ungrouped elementwise op in the same block whose result has `value`'s
/// shape (so the consumer adds no broadcasting to the chain). Null if none.
mlir::Operation *getFusibleConsumer(mlir::Value value);

/// Why a value is not fused into the op that reads it: what
/// getFusibleConsumer found instead of that op.
enum class FusionBlocker {
  None,           // it is: getFusibleConsumer returns the op
  Unused,         // no op reads it
  SeveralUsers,   // several ops read it (so it is written out anyway)
  OtherBlock,     // the op that reads it is in another block
  GraphOutput,    // the graph returns it
  NotElementwise, // the op that reads it is not elementwise
  Broadcast,      // the op that reads it may broadcast it to another shape
  Grouped,        // the op that reads it is in a group already
};

/// Why `value` has no fusible consumer, FusionBlocker::None when
/// getFusibleConsumer(value) finds one; the op that reads it, if one does,
/// in `user`. After fusion a group that reads it stands for the op of its
/// body that does, and a fuse.alternatives for the ops of its selected
/// candidate (the others do not run), so the fusion report can say why an
/// op stayed outside every group.
FusionBlocker getConsumerBlocker(mlir::Value value,
                                 mlir::Operation **user = nullptr);

/// Whether `value` can join `reduction`'s group as the input it reduces
/// (or part of the DAG computing it): the prologue of fuse-chains'
/// reduction groups, where `isMember` tells the ops already in the group.
bool isReductionPrologue(mlir::Value value, mlir::Operation *reduction,
                         llvm::function_ref<bool(mlir::Operation *)> isMember);

/// The most inputs fuse-chains lets a group take: its kernel's parameters
/// are bounded (4 KB on CUDA, about 540 pointers), and a Concat in the
/// group reads all of them at every element. (Splitting a group later, for
/// a library call or split-K, may add one or two.)
inline constexpr size_t kMaxGroupInputs = 128;

/// Whether a group reading `value` clones it into its body instead of
/// taking it as an input: scalar constants, and shape constants (axes,
/// slice bounds) the lowering must see.
bool isClonedIntoGroup(mlir::Value value);

/// The inputs a group of `ops` would take: the values they read that none
/// of them computes, constants cloned into the group aside.
size_t countGroupInputs(llvm::ArrayRef<mlir::Operation *> ops);

/// Replaces `ops` (in block order; the last one is the root, whose results
/// the group returns, and no other op of `ops` may be used outside `ops`)
/// by one `fuse.group` of `kind` placed at the root. A contraction group
/// also takes an NhwcConv's filters: the Transpose of a constant that only
/// the NhwcConv reads.
mlir::FailureOr<GroupOp> formGroup(mlir::RewriterBase &rewriter, GroupKind kind,
                                   llvm::ArrayRef<mlir::Operation *> ops);

/// The ops of `block` in order, each `fuse.alternatives` replaced by the ops
/// of its candidates, in order (with `selectedOnly`, of its selected one):
/// what the passes after strategy selection run over.
llvm::SmallVector<mlir::Operation *>
getOpsThroughAlternatives(mlir::Block &block, bool selectedOnly = false);

} // namespace fuse

#endif // FUSE_LIB_TRANSFORMS_FUSIONUTILS_H
