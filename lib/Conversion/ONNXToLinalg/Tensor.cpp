//===- Tensor.cpp - Reshape, Flatten and Constant -------------------------===//
//
// Reshape and Flatten are views (collapse to 1-D, expand to the result)
// followed by a copy: the copy is the kernel's tileable loop, the views
// cost nothing. Constants inside a kernel become arith.constant.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

/// `source` viewed with the shape of `resultType` (same element count),
/// then copied.
static Value buildReshape(OpBuilder &b, Location loc, Value source,
                          RankedTensorType resultType) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type elementType = sourceType.getElementType();
  auto flatType =
      RankedTensorType::get({sourceType.getNumElements()}, elementType);
  Value flat;
  if (sourceType.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, source,
                                         ArrayRef<ReassociationIndices>{});
  else if (sourceType.getRank() == 1)
    flat = source;
  else
    flat = tensor::CollapseShapeOp::create(
        b, loc, flatType, source,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, sourceType.getRank()))});
  Value view;
  if (resultType.getRank() == 0)
    view = tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  else if (resultType.getRank() == 1)
    view = flat;
  else
    view = tensor::ExpandShapeOp::create(
        b, loc, resultType, flat,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()))});
  return buildElementwise(
      b, loc, resultType, {view},
      [](OpBuilder &, Location, ArrayRef<Value> x) { return x[0]; });
}

namespace {

struct ReshapeLowering : public OpConversionPattern<ONNXReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReshape(rewriter, op.getLoc(), adaptor.getData(),
                                    cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct FlattenLowering : public OpConversionPattern<ONNXFlattenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXFlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReshape(rewriter, op.getLoc(), adaptor.getInput(),
                                    cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<ONNXConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "not a dense constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

} // namespace

void fuse::lowering::populateTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, FlattenLowering, ConstantLowering>(
      patterns.getContext());
}
