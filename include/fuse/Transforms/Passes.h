//===- Passes.h - fuse fusion passes -----------------------------*- C++
//-*-===//

#ifndef FUSE_TRANSFORMS_PASSES_H
#define FUSE_TRANSFORMS_PASSES_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace fuse {

#define GEN_PASS_DECL
#include "fuse/Transforms/Passes.h.inc"

/// The most compute ops a group takes by default (fuse-chains'
/// `max-group-ops`): a longer chain is cut into several groups, so that
/// compile time stays linear in the model's size. Real models' groups have
/// a few dozen ops at most.
constexpr int64_t kDefaultMaxGroupOps = 256;

/// Patterns forming `pool_epilogue` groups: a pooling op and the chain of
/// elementwise ops that follows it, at most `maxOps` ops.
void populatePoolEpiloguePatterns(mlir::RewritePatternSet &patterns,
                                  int64_t maxOps = kDefaultMaxGroupOps);

/// Patterns forming `contraction_epilogue` groups: a Conv, Gemm or MatMul
/// and the chain of elementwise ops that follows it, at most `maxOps` ops.
void populateContractionEpiloguePatterns(mlir::RewritePatternSet &patterns,
                                         int64_t maxOps = kDefaultMaxGroupOps);

/// Patterns forming `reduction` groups: Softmax, LayerNormalization or
/// Reduce* with the elementwise ops before and after it, at most `maxOps`
/// ops. Run first.
void populateReductionFusionPatterns(mlir::RewritePatternSet &patterns,
                                     int64_t maxOps = kDefaultMaxGroupOps);

/// Patterns forming `elementwise` groups from maximal DAGs of elementwise
/// ops (cut at `maxOps` ops). Run after the epilogue patterns, which claim
/// their chains first.
void populateElementwiseFusionPatterns(mlir::RewritePatternSet &patterns,
                                       int64_t maxOps = kDefaultMaxGroupOps);

/// fusion-report, writing to `os` instead of stderr.
std::unique_ptr<mlir::Pass>
createFusionReport(llvm::raw_ostream &os,
                   const FusionReportOptions &options = {});

/// For the kernels of another x86-64 level: gives a cpu kernel function
/// (outlined, `loop` strategy) whose thread tile is the contraction tile
/// fuse-select-strategies picks with `fromRegisters` vector registers of
/// `fromWidth` f32 lanes the tile it would pick with `toRegisters` and
/// `toWidth`. Other kernels, and other tiles (tuning candidates), are left
/// as they are.
void retileCpuKernel(mlir::func::FuncOp kernel, int64_t fromRegisters,
                     int64_t fromWidth, int64_t toRegisters, int64_t toWidth);

#define GEN_PASS_REGISTRATION
#include "fuse/Transforms/Passes.h.inc"

} // namespace fuse

#endif // FUSE_TRANSFORMS_PASSES_H
