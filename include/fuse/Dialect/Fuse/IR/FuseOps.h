//===- FuseOps.h - fuse dialect operations -----------------------*- C++
//-*-===//
//
// fuse::GroupOp (`fuse.group`) and fuse::YieldOp (`fuse.yield`).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEOPS_H
#define FUSE_DIALECT_FUSE_IR_FUSEOPS_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"

#include <array>
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fuse/Dialect/Fuse/IR/FuseEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseAttrs.h.inc"

namespace fuse {
/// The name of the discardable attribute that carries a strategy on an op
/// outside any group and on an outlined kernel function.
constexpr llvm::StringLiteral kStrategyAttrName = "fuse.strategy";
/// Marks a `rows` kernel without a row loop (one row: a reduction to one
/// value) whose work fuse-distribute-rows split over the block's threads:
/// fuse-map-kernels-to-gpu runs it in every thread, not thread 0 alone.
constexpr llvm::StringLiteral kOneRowAttrName = "fuse.one_row";
/// Marks a result of the graph function that is an index check
/// (IndexCheckAttr), not an output of the model.
constexpr llvm::StringLiteral kIndexCheckAttrName = "fuse.index_check";

/// Alignment of every buffer in an execution plan's arena and weights:
/// enough for coalesced GPU access and any vector load. A view of part of
/// a value's bytes that a launch reads starts at such an offset too.
constexpr uint64_t kBufferAlignment = 256;
/// A unit attribute on the ops a split-K rewrite adds (the operands' views,
/// the sum of the partial products): not ops of the model, so the fusion
/// report does not count them.
constexpr llvm::StringLiteral kSplitKOpAttrName = "fuse.split_k";
/// Marks the onnx.Casts the precision policy puts in groups (widening what
/// a group reads, narrowing what it yields): not the model's ops.
constexpr llvm::StringLiteral kPrecisionCastAttrName = "fuse.precision_cast";
/// Marks an op whose result the model computes in half precision and
/// fuse-widen-floats (to-f32) made f32: the precision policy, keeping the
/// model's types, stores it in half precision again.
constexpr llvm::StringLiteral kModelHalfAttrName = "fuse.model_half";

/// Threads of a block of the `attention` mapping: a 16 x 16 grid over a
/// block's query rows and keys (or head-size columns).
constexpr int64_t kAttentionBlock = 256;

/// Whether `mapping` builds a kernel from its fuse.attention (`attention`
/// or its tensor-core form `attention_mma`) rather than from a loop.
inline bool isAttentionMapping(Mapping mapping) {
  return mapping == Mapping::attention || mapping == Mapping::attention_mma;
}

/// The number of an NVIDIA architecture ("sm_90a": 90), 0 when it has none
/// (what --gpu-arch must name: sm_50 or later).
unsigned getChipVersion(llvm::StringRef chip);

/// The SM count fuse-set-target gives an architecture (by its number) when
/// none is given: its usual data-center part's.
int64_t getDefaultSmCount(unsigned chipVersion);

/// The SMs of a module without a `fuse.target` (an H100's), and the most
/// a target may have.
constexpr int64_t kDefaultTargetSms = 132;
constexpr int64_t kMaxTargetSms = 4096;

/// The name of the module attribute holding the GPU target.
constexpr llvm::StringLiteral kTargetAttrName = "fuse.target";

/// The `fuse.target` of `op`'s module (of `op`, a module), or null.
TargetAttr getTarget(mlir::Operation *op);

/// The SMs of the GPU that `op`'s module is compiled for (its
/// `fuse.target`), kDefaultTargetSms without one.
int64_t getTargetSms(mlir::Operation *op);

/// Static shared memory a block may have without opting in to more.
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// How the warps of an `mma` block share its block tile: `rows` x `cols`
/// warps, each computing `warpRows` x `warpCols` outputs (multiples of 16:
/// an A fragment's rows, and two B fragments' columns).
struct MmaWarpGrid {
  int64_t rows, cols, warpRows, warpCols;
};
/// The most sums a warp of an `mma` block computes (64 x 64: 128 a lane).
constexpr int64_t kMaxMmaWarpTile = 64 * 64;
/// The warp grid of `warps` warps over a `blockRows` x `blockCols` tile:
/// of the layouts whose warp tiles are multiples of 16 x 16, the one whose
/// warp tiles are closest to square (more warps along the columns on a
/// tie). None when there is no such layout.
std::optional<MmaWarpGrid> getMmaWarpGrid(int64_t blockRows, int64_t blockCols,
                                          int64_t warps);
/// The most bytes of shared memory an `mma` block needs: `stages` copies of
/// its A tile (`blockRows` x `kTile`) and B tile (`kTile` x `blockCols`),
/// 2-byte elements, each row padded by 8 elements (16 bytes) so that
/// ldmatrix's eight row addresses fall into different banks; B counted
/// in whichever of its two layouts pads more. With `splitK` > 1 the block
/// tile's f32 sums, which the other blocks of the cluster read, take the
/// A copies' place, or shared memory of their own where they do not fit.
int64_t getMmaSharedBytes(int64_t blockRows, int64_t blockCols, int64_t kTile,
                          int64_t stages, int64_t splitK = 1);
/// The most blocks of a cluster (the portable limit) and so the most
/// slices of an `mma` contraction's reduction.
constexpr int64_t kMaxMmaSplitK = 8;
/// Whether `tile` is a thread tile a `tiles` contraction can be given
/// (gpu-contraction-tile): rows and columns, powers of two from 1 to 16,
/// of at most 128 outputs.
inline bool isGpuContractionTile(llvm::ArrayRef<int64_t> tile) {
  return tile.size() == 2 &&
         llvm::all_of(tile,
                      [](int64_t s) {
                        return s >= 1 && s <= 16 && llvm::isPowerOf2_64(s);
                      }) &&
         tile[0] * tile[1] <= 128;
}

/// The most slices split-K (fuse-select-strategies' `split-k`) cuts a
/// generated MatMul's reduction into; whether `splitK` is one it takes: 0
/// (the heuristic), 1 (never), or a power of two up to kMaxSplitK.
constexpr int64_t kMaxSplitK = 16;
inline bool isSplitK(int64_t splitK) {
  return splitK >= 0 && splitK <= kMaxSplitK &&
         (splitK <= 1 || llvm::isPowerOf2_64(splitK));
}

/// Whether a staging `tiles` block may have `stages` shared buffers: 1 or
/// 2, or with `asyncCopy` (cp.async) 2 or 3.
inline bool isGpuStages(int64_t stages, bool asyncCopy) {
  return asyncCopy ? stages == 2 || stages == 3 : stages == 1 || stages == 2;
}

/// Whether an `mma` kernel can split its reduction `splitK` ways: 1 (no
/// split), or the blocks of a cluster, a power of two up to kMaxMmaSplitK.
inline bool isMmaSplitK(int64_t splitK) {
  return splitK >= 1 && splitK <= kMaxMmaSplitK && llvm::isPowerOf2_64(splitK);
}
/// Whether a split `mma` block's f32 sums fit in the shared memory its A
/// copies take (`stages` chunks of `blockRows` x `kTile` steps, padded),
/// where the mapping then puts them.
bool mmaSumsFitInACopies(int64_t blockRows, int64_t blockCols, int64_t kTile,
                         int64_t stages);

/// The most iterations a block of the `transpose` mapping computes (its
/// shared copy of the input's tile, whose rows have an odd number of
/// elements: at most 6144 elements).
constexpr int64_t kMaxTransposeTileElements = 4096;

/// How the `transpose` mapping splits a loop that reads an input in
/// another order than its own: `outputRun`, the run of the loop's last
/// dims that the input holds consecutively in the same order (adjacent
/// iterations of it store adjacent output elements); `inputRun`, the run of
/// loop dims, in order, that are the input's innermost (adjacent iterations
/// of it load adjacent input elements); `outer`, the other dims. The
/// iterations of each.
struct TransposeTileDims {
  llvm::SmallVector<int64_t> outer, outputRun, inputRun;
  int64_t outerIterations = 1, outputIterations = 1, inputIterations = 1;

  /// Blocks of `blockTile` ([output run, input run] iterations) that cover
  /// the loop: a block per outer iteration and pair of tiles.
  int64_t getGrid(llvm::ArrayRef<int64_t> blockTile) const;
};

/// The transpose tile dims of a loop of `extents` (no dim of extent 1)
/// that reads an input whose dims, outermost first, are the loop's dims
/// `inputOrder` (a permutation); none when the input's innermost dim is
/// the loop's last.
std::optional<TransposeTileDims>
getTransposeTileDims(llvm::ArrayRef<int64_t> extents,
                     llvm::ArrayRef<int64_t> inputOrder);

/// The float type values are stored in between kernels under `precision`:
/// f16 for fp16, bf16 for bf16, f32 for fp32 and tf32.
mlir::FloatType getStorageType(mlir::MLIRContext *context, Precision precision);

/// A strategy in a few words, for people: "kernel rows(32)",
/// "cublaslt matmul+bias+relu", "cudnn conv+bias+residual".
std::string describeStrategy(mlir::Attribute strategy);
} // namespace fuse

namespace fuse {
class YieldOp;
} // namespace fuse

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.h.inc"

namespace fuse {
/// Whether `op` is a fuse op that computes, like an onnx op: outside a
/// group it is a kernel of its own (fuse.im2col, fuse.attention).
inline bool isFuseComputeOp(mlir::Operation *op) {
  return mlir::isa<Im2ColOp, AttentionOp>(op);
}
} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_H
