//===- LibraryCalls.h - Contractions that a vendor library computes -*- C++ -*-===//
//
// Which part of a contraction group one cuBLASLt or cuDNN call can compute:
// the contraction and the chain right after it of a bias Add, a residual
// Add and a ReLU, in the order the libraries apply them. The strategy pass
// asks this to decide and to split a group; the plan builder asks it again
// on the outlined kernel to encode the call, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TRANSFORMS_LIBRARYCALLS_H
#define FUSE_TRANSFORMS_LIBRARYCALLS_H

#include "fuse/runtime/Artifact.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fuse {

enum class Library { CublasLt, Cudnn };

struct LibraryCall {
  Library library = Library::CublasLt;
  mlir::Operation *contraction = nullptr;
  /// The ops the call computes, in order, the contraction first.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The value the call produces: the last op's result.
  mlir::Value result;
  /// Its operands in the artifact's order, without the output: A, B, bias,
  /// C (matmul) or X, W, bias, Z (conv); bias and C/Z only when the params
  /// say so. Each is a block argument of the ops' block. A conv whose
  /// epilogue needs a bias it does not have gets a null bias operand: the
  /// plan builder passes zeros.
  llvm::SmallVector<mlir::Value> operands;
  artifact::MatmulParams matmul;
  artifact::ConvParams conv;
};

/// What the library may take.
struct LibraryOptions {
  /// Grouped convolutions with one input channel per group (depthwise):
  /// fuse's kernels fuse their whole epilogue, cuDNN may still be faster.
  bool depthwiseConv = false;
};

/// The call that computes `contraction` (a Conv, Gemm or MatMul) and as much
/// of the chain after it as the library can, or nullopt when no library
/// computes the contraction: other element types or layouts, ranks, a
/// broadcast the call cannot express, operands defined in the block (only
/// block arguments are buffers), asymmetric pads.
std::optional<LibraryCall> matchLibraryCall(mlir::Operation *contraction,
                                            const LibraryOptions &options);

/// "cublaslt matmul+bias+relu", "cudnn conv+bias+residual" (for people).
std::string describeLibraryCall(const LibraryCall &call);

} // namespace fuse

#endif // FUSE_TRANSFORMS_LIBRARYCALLS_H
