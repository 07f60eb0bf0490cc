//===- ContractionAccess.h - How a contraction's loop reads its operands -===//
//
// The loads of a generated contraction's reduction loop, understood as
// affine uses of the kernel loop's induction variables and the reduction's:
// what the `tiles` mapping stages in shared memory (ContractionTiles.cpp)
// and what the `mma` mapping feeds to tensor cores (ContractionMmaTiles.cpp)
// read.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_CODEGEN_GPU_CONTRACTIONACCESS_H
#define FUSE_LIB_CODEGEN_GPU_CONTRACTIONACCESS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

namespace fuse::contraction {
using llvm::SmallVector;
using mlir::BlockArgument;
using mlir::Value;
using mlir::memref::LoadOp;

/// An index as a sum of integer multiples of symbols (induction variables)
/// and a constant.
struct IndexExpr {
  llvm::SmallMapVector<Value, int64_t, 4> terms;
  int64_t constant = 0;

  void add(const IndexExpr &other, int64_t scale = 1) {
    for (auto [value, coefficient] : other.terms)
      terms[value] += coefficient * scale;
    constant += other.constant * scale;
  }
  /// The terms whose coefficient is not 0.
  SmallVector<std::pair<Value, int64_t>> nonZeroTerms() const {
    SmallVector<std::pair<Value, int64_t>> result;
    for (auto [value, coefficient] : terms)
      if (coefficient != 0)
        result.push_back({value, coefficient});
    return result;
  }
};

/// How one dim of an operand is indexed in the reduction loop.
enum class DimKind {
  Loop,      // a dim of the parallel loop, plus a constant in its step
  Reduction, // the reduction loop's induction variable
  Fixed      // a constant
};

struct DimUse {
  DimKind kind;
  int64_t loopDim = -1; // for Loop
  int64_t constant = 0; // for Loop (the offset in the tile) and Fixed
};

/// A load in the reduction loop: the buffer it reads (a function argument,
/// or a reshaped view of one) and its indices into it (through subviews).
struct Access {
  LoadOp load;
  Value buffer;
  SmallVector<DimUse> dims;
};

/// The access of `load` when it reads a function argument, or a reshape of
/// one, of static shape and identity layout, directly or through subviews
/// of unit strides that keep the rank, at indices that are, per dim, one of
/// the loop's induction variables `ivs` plus a constant within its step in
/// `steps` (a thread tile's offset), the reduction's `k`, or a constant.
std::optional<Access> getAccess(mlir::memref::LoadOp load,
                                llvm::ArrayRef<Value> ivs, Value k,
                                llvm::ArrayRef<int64_t> steps);

/// The function argument that `memref` is, or views whole through
/// reshapes (a split-K operand's [M, S, K/S] view of [M, K]); null for
/// anything else.
BlockArgument getReshapedArgument(Value memref);

/// Whether every use of `memref`, and of the views of it, is a load.
bool isOnlyRead(Value memref);

/// The argument of `func` that `memref` is a view of, or null.
BlockArgument getRootArgument(Value memref, mlir::gpu::GPUFuncOp func);

} // namespace fuse::contraction

#endif // FUSE_LIB_CODEGEN_GPU_CONTRACTIONACCESS_H
