//===- Attention.h - Code for fuse.attention ------------------------------===//
//
// The buffer form of fuse.attention becomes code in one of three ways:
// loops (a query row per iteration of one parallel loop, for the cpu and
// for GPU shapes the tiled kernels do not take; fuse-lower-attention), the
// GPU's `attention` mapping (a block per tile of query rows,
// AttentionTiles.cpp) or, for half-precision tensors, its tensor-core form
// `attention_mma` (AttentionMmaTiles.cpp). All compute a row's softmax
// online, in one pass over the keys, and share how they read the mask and
// finish a row.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_CODEGEN_ATTENTION_H
#define FUSE_CODEGEN_ATTENTION_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace fuse {

/// The sizes of `op`: query [batch, queries, heads, d], key and value
/// [batch, keys, heads / groups, d or dv], the result's head size dv.
struct AttentionSizes {
  int64_t batch, queries, heads, d, keys, groups, dv;
};
AttentionSizes getAttentionSizes(AttentionOp op);

/// The indices of element (batch, sequence, head, dim) of tensor `which`
/// of `op` (AttentionOp::kQuery...), in its layout (the head moved by the
/// tensor's head offset).
llvm::SmallVector<mlir::Value, 4>
getAttentionIndices(mlir::OpBuilder &b, mlir::Location loc, AttentionOp op,
                    unsigned which, mlir::Value batch, mlir::Value sequence,
                    mlir::Value head, mlir::Value dim);

/// Element `indices` of an attention operand, as f32 (widened from f16 or
/// bf16: the op computes in f32 whatever its tensors are stored in).
mlir::Value loadAttentionElement(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value buffer, mlir::ValueRange indices);

/// Stores the f32 `value` into `buffer`, narrowed to its element type.
void storeAttentionElement(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, mlir::Value buffer,
                           mlir::ValueRange indices);

/// The mask's element for scores (b, h, i, j) (index values; a dim of
/// extent 1 broadcasts), or a null value when `op` has no mask.
mlir::Value loadAttentionMask(mlir::OpBuilder &b, mlir::Location loc,
                              AttentionOp op, mlir::Value batch,
                              mlir::Value head, mlir::Value row,
                              mlir::Value key);

/// The online softmax's base for a row whose running maximum becomes
/// `newMax`: the exponentials are taken against it, or against 0 while
/// every score so far is -inf (against -inf they would be NaN).
mlir::Value getSoftmaxBase(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value newMax);

/// exp(`x` - `base`), computed as exp2((x - base) * log2 e) (the GPU's
/// kernels: ex2.approx is one instruction).
mlir::Value emitExpAgainst(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, mlir::Value base);

/// 1 / `sum` for a row whose exponentials sum to `sum`; `positive` is set
/// to whether `sum` > 0 (false when every score was -inf, or NaN).
mlir::Value getAttentionRowFactor(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value sum, mlir::Value &positive);

/// One output of a row: `acc` * `factor` when the row's sum is positive,
/// else 0 with `zero_nan_probabilities` and NaN without (softmax over
/// scores that are all -inf is NaN).
mlir::Value finishAttentionOutput(mlir::OpBuilder &b, mlir::Location loc,
                                  AttentionOp op, mlir::Value acc,
                                  mlir::Value factor, mlir::Value positive);

/// Replaces the buffer-form `op` by one scf.parallel over (batch, head,
/// query row) whose iteration computes its row's outputs: a loop over the
/// keys keeps the running maximum and sum of exponentials, and the row's
/// outputs in a stack buffer, rescaled when the maximum grows.
mlir::LogicalResult lowerAttentionToLoops(mlir::RewriterBase &rewriter,
                                          AttentionOp op);

/// Builds the body of `func`, a kernel that is the buffer-form `op`, with
/// the `attention` mapping of `strategy`: see KernelStrategyAttr. Fails
/// with an error on `op` when the shapes do not fit the strategy.
mlir::LogicalResult mapAttentionTiles(mlir::OpBuilder &b,
                                      mlir::gpu::GPUFuncOp func, AttentionOp op,
                                      KernelStrategyAttr strategy);

/// The same with the `attention_mma` mapping: the kernel on tensor cores
/// (f16 or bf16 tensors, sm_80 and later).
mlir::LogicalResult mapAttentionMmaTiles(mlir::OpBuilder &b,
                                         mlir::gpu::GPUFuncOp func,
                                         AttentionOp op,
                                         KernelStrategyAttr strategy);

} // namespace fuse

#endif // FUSE_CODEGEN_ATTENTION_H
