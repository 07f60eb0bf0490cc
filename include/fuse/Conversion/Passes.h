//===- Passes.h - fuse lowering passes ---------------------------*- C++
//-*-===//

#ifndef FUSE_CONVERSION_PASSES_H
#define FUSE_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace fuse {

#define GEN_PASS_DECL
#include "fuse/Conversion/Passes.h.inc"

/// Patterns lowering onnx ops to linalg/tensor/arith on tensors.
void populateONNXToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// fuse.attention's bufferization: the op reads its operands and writes its
/// result into a new buffer (its buffer form).
void registerAttentionBufferization(mlir::DialectRegistry &registry);

/// Whether `func` is a kernel (marked by fuse-outline-kernels).
bool isKernel(mlir::Operation *func);

#define GEN_PASS_REGISTRATION
#include "fuse/Conversion/Passes.h.inc"

} // namespace fuse

#endif // FUSE_CONVERSION_PASSES_H
