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

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
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
  /// The ops the call computes: the contraction, the chain after it in
  /// order (ending with a narrowing Cast, when it has one), then the Casts
  /// that widen its buffers.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The value the call produces: the last op's result.
  mlir::Value result;
  /// Its operands in the artifact's order, without the output: A, B, bias,
  /// C (matmul) or X, W, bias, Z (conv); bias and C/Z only when the params
  /// say so. Each is a block argument of the ops' block (f32, f16 or bf16,
  /// as the params' types say). A conv whose
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
  /// f32 inputs on TF32 tensor cores (a group of precision tf32). Half
  /// inputs need no option: their type says.
  bool tf32 = false;
  /// The group is stored in half precision: when its ops go on after the
  /// call, the strategy pass splits it there and passes the call's result
  /// on in the inputs' half type (splitGroup), so a call with half inputs
  /// may write that type.
  bool halfSplit = false;
};

/// The call that computes `contraction` (a Conv, Gemm or MatMul) and as much
/// of the chain after it as the library can, or nullopt when no library
/// computes the contraction: other element types or layouts, ranks, a
/// broadcast the call cannot express, operands defined in the block (only
/// block arguments are buffers), asymmetric pads.
///
/// The ops are f32; a buffer may be f16 or bf16 read through an onnx.Cast
/// to f32 (a half-precision group), and a Cast of the chain's result to the
/// inputs' half type, when the group ends so, is the call's output type.
/// A and B (X and W) are buffers of one type; the bias and residual of the
/// output's.
std::optional<LibraryCall> matchLibraryCall(mlir::Operation *contraction,
                                            const LibraryOptions &options);

/// "cublaslt matmul+bias+relu", "cudnn conv+bias+residual fp16" (for
/// people).
std::string describeLibraryCall(const LibraryCall &call);

/// How the call multiplies: fp16 or bf16 (its inputs' type), tf32, fp32.
Precision getLibraryPrecision(const LibraryCall &call);

} // namespace fuse

#endif // FUSE_TRANSFORMS_LIBRARYCALLS_H
