//===- GPUMapping.h - Mapping a kernel's loop to GPU blocks and threads ---===//
//
// What fuse-map-kernels-to-gpu's mappings share: the constant bounds of a
// kernel's parallel loop, delinearization of a block's or thread's index,
// moving the loop body into the gpu.func, and shared-memory buffers; and
// the `tiles` mapping of generated contractions (ContractionTiles.cpp) and
// the `transpose` mapping (TransposeTiles.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_CODEGEN_GPUMAPPING_H
#define FUSE_CODEGEN_GPUMAPPING_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace fuse {

/// The constant bounds of a parallel loop, per dim: lower bound, step and
/// number of iterations.
struct LoopBounds {
  llvm::SmallVector<int64_t> lbs, steps, extents;

  int64_t total() const {
    int64_t total = 1;
    for (int64_t e : extents)
      total *= e;
    return total;
  }
};

/// The bounds of `loop`, or failure for non-constant bounds.
mlir::FailureOr<LoopBounds> getLoopBounds(mlir::scf::ParallelOp loop);

/// Sets `ivs[from, to)` to the induction variables of `linear`, an
/// iteration counted row-major over dims [from, to) of `bounds` (the last
/// dim varies fastest).
void delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
                 const LoopBounds &bounds, int64_t from, int64_t to,
                 llvm::MutableArrayRef<mlir::Value> ivs);

/// Moves the body of `loop` to the end of `target` (before its
/// terminator), its induction variables replaced by `ivs`, and erases the
/// loop.
void inlineLoopBody(mlir::scf::ParallelOp loop, mlir::Block *target,
                    llvm::ArrayRef<mlir::Value> ivs);

/// A shared buffer of `elements` of `elementType` in `func`, 16-byte
/// aligned so that its accesses may be 128-bit ones.
mlir::Value addSharedCopy(mlir::OpBuilder &b, mlir::gpu::GPUFuncOp func,
                          int64_t elements, mlir::Type elementType,
                          mlir::Location loc);

/// `buffer` as one dim.
mlir::Value collapseToFlat(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value buffer);

/// The first element thread `tid` copies in round `first + r` of a block
/// copy, `vector` elements a thread and `threads` threads a round:
/// ((first + r) * threads + tid) * vector. Adjacent threads take adjacent
/// elements.
mlir::Value emitRoundElement(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value first, int64_t r, int64_t threads,
                             mlir::Value tid, int64_t vector);

/// Runs `emitRounds(first, count)` for `rounds` rounds of a block's copy
/// between global and shared memory: once for all of them when they are
/// few, else in a loop over groups of a few rounds (the last group may
/// reach past `rounds`: the rounds check their range). A thread issues a
/// group's loads before its stores, so their latencies overlap.
void emitRoundGroups(
    mlir::OpBuilder &b, mlir::Location loc, int64_t rounds,
    llvm::function_ref<void(mlir::Value first, int64_t count)> emitRounds);

/// `x` combined (maximum or sum) over each aligned group of `lanes` lanes
/// of a warp (a power of two up to 32) by XOR shuffles: every lane of the
/// group gets the result.
mlir::Value combineAcrossLanes(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, int64_t lanes, bool max);

/// `acc` + `a` x `bFragment`, one m16n8k16 `mma.sync` of f16 or bf16
/// fragments (A vector<4x2>, B vector<2x2>) with f32 sums
/// (vector<2x2xf32>).
mlir::Value emitMma16816(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                         mlir::Value bFragment, mlir::Value acc);

/// Shared memory (in floats) of an `attention` block of `rows` query rows
/// and key tiles of `keys`, head sizes `d` (query, key) and `dv` (value):
/// Q^T, K^T and V; the probabilities take K^T's place.
constexpr int64_t getAttentionSharedFloats(int64_t d, int64_t dv, int64_t rows,
                                           int64_t keys) {
  return d * rows + (d > rows ? d : rows) * keys + keys * dv;
}

/// Bytes of shared memory of an `attention_mma` block of `rows` query rows
/// and key tiles of `keys`, `stages` K and V tiles, 2-byte elements: each
/// row of Q, K and V padded by 8 elements (16 bytes), so that ldmatrix's
/// eight row addresses fall into different banks.
constexpr int64_t getAttentionMmaSharedBytes(int64_t d, int64_t dv,
                                             int64_t rows, int64_t keys,
                                             int64_t stages) {
  return 2 * (rows * (d + 8) + stages * keys * (d + 8 + dv + 8));
}

/// Maps `loop`, the parallel loop of the gpu.func `func`, with the `tiles`
/// strategy: block and thread tiles of its iterations, the operand tiles
/// of its reduction loop staged in shared memory.
mlir::LogicalResult distributeTiles(mlir::OpBuilder &b,
                                    mlir::gpu::GPUFuncOp func,
                                    mlir::scf::ParallelOp loop,
                                    KernelStrategyAttr strategy);

/// The blocks a `tiles` strategy needs for `loop`, whose dims must step by
/// the strategy's thread tile (fuse-jam-thread-tiles' work); an error on
/// the loop otherwise.
mlir::FailureOr<int64_t> getTileGridSize(mlir::scf::ParallelOp loop,
                                         KernelStrategyAttr strategy);

/// Maps `loop`, the parallel loop of the gpu.func `func`, with the `mma`
/// strategy: a contraction on tensor cores, its epilogue applied to each
/// sum. An error on the loop when it is not one product of f16 or bf16
/// operands that the mapping can copy (see ContractionMmaTiles.cpp).
mlir::LogicalResult distributeMmaTiles(mlir::OpBuilder &b,
                                       mlir::gpu::GPUFuncOp func,
                                       mlir::scf::ParallelOp loop,
                                       KernelStrategyAttr strategy);
/// The blocks an `mma` strategy needs for `loop`: a block tile of its last
/// two dims for each index of the others.
mlir::FailureOr<int64_t> getMmaGridSize(mlir::scf::ParallelOp loop,
                                        KernelStrategyAttr strategy);
/// Maps `loop`, the parallel loop of the gpu.func `func`, with the
/// `transpose` strategy: tiles of its output and input runs, the
/// transposed input's tile copied through shared memory.
mlir::LogicalResult distributeTransposeTiles(mlir::OpBuilder &b,
                                             mlir::gpu::GPUFuncOp func,
                                             mlir::scf::ParallelOp loop,
                                             KernelStrategyAttr strategy);

/// The blocks a `transpose` strategy needs for `loop`; an error on the
/// loop when it reads no input in another order than its own.
mlir::FailureOr<int64_t> getTransposeGridSize(mlir::scf::ParallelOp loop,
                                              KernelStrategyAttr strategy);

} // namespace fuse

#endif // FUSE_CODEGEN_GPUMAPPING_H
