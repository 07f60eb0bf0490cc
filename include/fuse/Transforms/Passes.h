//===- Passes.h - fuse fusion passes -----------------------------*- C++
//-*-===//

#ifndef FUSE_TRANSFORMS_PASSES_H
#define FUSE_TRANSFORMS_PASSES_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace fuse {

#define GEN_PASS_DECL
#include "fuse/Transforms/Passes.h.inc"

/// Patterns forming `pool_epilogue` groups: a pooling op and the chain of
/// elementwise ops that follows it.
void populatePoolEpiloguePatterns(mlir::RewritePatternSet &patterns);

/// Patterns forming `contraction_epilogue` groups: a Conv, Gemm or MatMul
/// and the chain of elementwise ops that follows it.
void populateContractionEpiloguePatterns(mlir::RewritePatternSet &patterns);

/// Patterns forming `reduction` groups: Softmax, LayerNormalization or
/// Reduce* with the elementwise ops before and after it. Run first.
void populateReductionFusionPatterns(mlir::RewritePatternSet &patterns);

/// Patterns forming `elementwise` groups from maximal DAGs of elementwise
/// ops. Run after the epilogue patterns, which claim their chains first.
void populateElementwiseFusionPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "fuse/Transforms/Passes.h.inc"

} // namespace fuse

#endif // FUSE_TRANSFORMS_PASSES_H
