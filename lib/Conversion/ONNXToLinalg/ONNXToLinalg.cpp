//===- ONNXToLinalg.cpp - The convert-onnx-to-linalg pass -----------------===//
//
// Makes the kernel's unsigned element types signless first (Integers.cpp),
// checks that every op can be lowered (static shapes), so that what cannot
// be is an error naming the op, then runs the conversion.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace fuse {
#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

bool fuse::isKernel(Operation *func) { return func->hasAttr("fuse.kernel"); }

void fuse::populateONNXToLinalgPatterns(RewritePatternSet &patterns) {
  lowering::populateElementwisePatterns(patterns);
  lowering::populatePoolingPatterns(patterns);
  lowering::populateContractionPatterns(patterns);
  lowering::populateTensorPatterns(patterns);
  lowering::populateReductionPatterns(patterns);
  lowering::populateIntegerPatterns(patterns);
}

/// What the lowering needs of every value an onnx op touches.
static LogicalResult checkLowerable(Operation *op) {
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return op->emitOpError("needs static shapes to be compiled, got ")
             << type << " (give the model's inputs shapes with --input-shape)";
    Type element = tensor.getElementType();
    if (auto integer = dyn_cast<IntegerType>(element);
        integer && !integer.isSignless())
      return op->emitOpError("has element type ")
             << element << ", which the lowering does not support yet";
  }
  return success();
}

namespace {
struct ConvertONNXToLinalgPass
    : public fuse::impl::ConvertONNXToLinalgBase<ConvertONNXToLinalgPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!isKernel(func))
      return;
    if (failed(lowering::eraseUnsignedTypes(func)))
      return signalPassFailure();
    WalkResult checked = func.walk([](Operation *op) {
      if (isa<ONNXDialect>(op->getDialect()) && failed(checkLowerable(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalDialect<ONNXDialect>();
    target.addIllegalOp<Im2ColOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.addLegalOp<func::ReturnOp>();
    RewritePatternSet patterns(&getContext());
    populateONNXToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(func, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
