//===- LowerAttention.cpp - fuse.attention on buffers, then as loops ------===//

#include "fuse/Codegen/Attention.h"
#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/DialectRegistry.h"

namespace fuse {
#define GEN_PASS_DEF_LOWERATTENTION
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;
using namespace mlir::bufferization;

namespace {
/// The tensor form reads its operands and writes a new buffer of the
/// result's shape: the buffer form's `into`.
struct AttentionBufferization
    : public BufferizableOpInterface::ExternalModel<AttentionBufferization,
                                                    AttentionOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attention = cast<AttentionOp>(op);
    if (attention.hasBufferSemantics())
      return success();
    SmallVector<Value, 4> buffers;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    auto resultType = cast<RankedTensorType>(attention.getResult().getType());
    // The result's layout (heads first or not) is its type's: kept.
    Value into = memref::AllocOp::create(
        rewriter, op->getLoc(),
        MemRefType::get(resultType.getShape(), resultType.getElementType()));
    Value mask = attention.getMask() ? buffers[3] : Value();
    auto buffered = AttentionOp::create(
        rewriter, op->getLoc(), buffers[0], buffers[1], buffers[2], mask, into,
        attention.getScaleAttr(), attention.getZeroNanProbabilities(),
        attention.getHeadsFirst().value_or(ArrayRef<bool>()));
    buffered.setHeadOffsetsAttr(attention.getHeadOffsetsAttr());
    buffered.setKeyValueHeadsAttr(attention.getKeyValueHeadsAttr());
    replaceOpWithBufferizedValues(rewriter, op, into);
    return success();
  }
};

struct LowerAttentionPass
    : public fuse::impl::LowerAttentionBase<LowerAttentionPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto strategy = func->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
    if (strategy && isAttentionMapping(strategy.getMapping()))
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<AttentionOp> ops;
    func.walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops) {
      if (!op.hasBufferSemantics()) {
        op.emitOpError("must be bufferized before it is lowered to loops");
        return signalPassFailure();
      }
      if (failed(lowerAttentionToLoops(rewriter, op)))
        return signalPassFailure();
    }
  }
};
} // namespace

void fuse::registerAttentionBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, FuseDialect *) {
    AttentionOp::attachInterface<AttentionBufferization>(*ctx);
  });
}
