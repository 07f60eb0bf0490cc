//===- BufferizeKernels.cpp - Kernels on buffers, results as out-params --===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"

namespace fuse {
#define GEN_PASS_DEF_BUFFERIZEKERNELS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Copies are loops, not calls to a runtime's memrefCopy.
static LogicalResult createCopy(OpBuilder &b, Location loc, Value from,
                                Value to) {
  linalg::CopyOp::create(b, loc, from, to);
  return success();
}

namespace {
struct BufferizeKernelsPass
    : public fuse::impl::BufferizeKernelsBase<BufferizeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      if (!isKernel(func)) {
        func.emitOpError("is not a kernel: only kernel functions can be "
                         "bufferized (extract them from the host first)");
        return signalPassFailure();
      }

    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.memCpyFn = createCopy;
    bufferization::BufferizationState state;
    if (failed(
            bufferization::runOneShotModuleBufferize(module, options, state)))
      return signalPassFailure();

    bufferization::BufferResultsToOutParamsOpts outParams;
    outParams.hoistStaticAllocs = true;
    outParams.modifyPublicFunctions = true;
    outParams.memCpyFn = createCopy;
    if (failed(
            bufferization::promoteBufferResultsToOutParams(module, outParams)))
      return signalPassFailure();

    // Copies made by other rewrites (e.g. folding an identity generic into
    // a parallel_insert_slice) become loops too.
    IRRewriter rewriter(&getContext());
    module.walk([&](memref::CopyOp copy) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });
  }
};
} // namespace
