//===- Elementwise.cpp - Elementwise onnx ops to linalg.generic ----------===//
//
// One linalg.generic per op; the scalar semantics of each op live in the
// small functions below. Integers are signless (the lowering rejects
// unsigned element types before it gets here).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

static Value zeroLike(OpBuilder &b, Location loc, Value v) {
  return buildScalar(b, loc, v.getType(), 0.0);
}

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

static Value relu(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return buildMax(b, loc, x[0], zeroLike(b, loc, x[0]));
}

static Value sigmoid(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  // 1 / (1 + exp(-x)): exp overflows to inf for very negative x and the
  // result is 0, as it should be.
  Value one = buildScalar(b, loc, x[0].getType(), 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x[0]));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

static Value tanh(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::TanhOp::create(b, loc, x[0]);
}

static Value exp(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::ExpOp::create(b, loc, x[0]);
}

static Value sqrt(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::SqrtOp::create(b, loc, x[0]);
}

static Value neg(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  if (isFloat(x[0]))
    return arith::NegFOp::create(b, loc, x[0]);
  return arith::SubIOp::create(b, loc, zeroLike(b, loc, x[0]), x[0]);
}

static Value abs(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  if (isFloat(x[0]))
    return math::AbsFOp::create(b, loc, x[0]);
  return math::AbsIOp::create(b, loc, x[0]);
}

static Value identity(OpBuilder &, Location, ArrayRef<Value> x) { return x[0]; }

static Value add(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return buildAdd(b, loc, x[0], x[1]);
}

static Value sub(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  if (isFloat(x[0]))
    return arith::SubFOp::create(b, loc, x[0], x[1]);
  return arith::SubIOp::create(b, loc, x[0], x[1]);
}

static Value mul(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return buildMul(b, loc, x[0], x[1]);
}

static Value div(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  if (isFloat(x[0]))
    return arith::DivFOp::create(b, loc, x[0], x[1]);
  // Integer division truncates toward zero, as onnxruntime's does.
  return arith::DivSIOp::create(b, loc, x[0], x[1]);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// An op whose result is `Fn` applied to all its operands.
template <typename OpTy, Value (*Fn)(OpBuilder &, Location, ArrayRef<Value>)>
struct ElementwiseLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                            adaptor.getOperands(), Fn));
    return success();
  }
};

struct LeakyReluLowering : public OpConversionPattern<ONNXLeakyReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLeakyReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      Value zero = zeroLike(b, loc, x[0]);
      Value negative =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0], zero);
      Value scaled = arith::MulFOp::create(
          b, loc, x[0], buildScalar(b, loc, x[0].getType(), alpha));
      return arith::SelectOp::create(b, loc, negative, scaled, x[0]);
    };
    rewriter.replaceOp(op,
                       buildElementwise(rewriter, op.getLoc(),
                                        cast<RankedTensorType>(op.getType()),
                                        adaptor.getOperands(), fn));
    return success();
  }
};

struct ClipLowering : public OpConversionPattern<ONNXClipOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool hasMin = static_cast<bool>(adaptor.getMin());
    bool hasMax = static_cast<bool>(adaptor.getMax());
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      Value v = x[0];
      size_t next = 1;
      if (hasMin)
        v = buildMax(b, loc, v, x[next++]);
      if (hasMax)
        v = buildMin(b, loc, v, x[next++]);
      return v;
    };
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
                {adaptor.getInput(), adaptor.getMin(), adaptor.getMax()}, fn));
    return success();
  }
};

/// Inference-mode normalization, per channel (dim 1):
/// `(x - mean) * (scale / sqrt(var + epsilon)) + B`.
struct BatchNormLowering
    : public OpConversionPattern<ONNXBatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXBatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    // The per-channel vectors index dim 1 of the result; reshape them to
    // [C, 1, ..., 1] so ordinary broadcasting applies.
    SmallVector<int64_t> channelShape(type.getRank() - 1, 1);
    channelShape[0] = type.getDimSize(1);
    SmallVector<Value> params;
    for (Value v : {adaptor.getScale(), adaptor.getB(), adaptor.getInputMean(),
                    adaptor.getInputVar()}) {
      auto vType = cast<RankedTensorType>(v.getType());
      if (channelShape.size() == 1) {
        params.push_back(v);
        continue;
      }
      auto expanded =
          RankedTensorType::get(channelShape, vType.getElementType());
      SmallVector<ReassociationIndices> reassociation{
          llvm::to_vector(llvm::seq<int64_t>(0, channelShape.size()))};
      params.push_back(tensor::ExpandShapeOp::create(
          rewriter, op.getLoc(), expanded, v, reassociation));
    }
    double epsilon = op.getEpsilon().convertToDouble();
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      Value centered = arith::SubFOp::create(b, loc, x[0], x[3]);
      Value eps = buildScalar(b, loc, x[0].getType(), epsilon);
      Value stddev = math::SqrtOp::create(
          b, loc, arith::AddFOp::create(b, loc, x[4], eps));
      Value factor = arith::DivFOp::create(b, loc, x[1], stddev);
      return arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, centered, factor), x[2]);
    };
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                            {adaptor.getX(), params[0],
                                             params[1], params[2], params[3]},
                                            fn));
    return success();
  }
};

} // namespace

void fuse::lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      ElementwiseLowering<ONNXReluOp, relu>,
      ElementwiseLowering<ONNXSigmoidOp, sigmoid>,
      ElementwiseLowering<ONNXTanhOp, tanh>,
      ElementwiseLowering<ONNXExpOp, exp>,
      ElementwiseLowering<ONNXSqrtOp, sqrt>,
      ElementwiseLowering<ONNXNegOp, neg>, ElementwiseLowering<ONNXAbsOp, abs>,
      ElementwiseLowering<ONNXIdentityOp, identity>,
      ElementwiseLowering<ONNXAddOp, add>, ElementwiseLowering<ONNXSubOp, sub>,
      ElementwiseLowering<ONNXMulOp, mul>, ElementwiseLowering<ONNXDivOp, div>,
      LeakyReluLowering, ClipLowering, BatchNormLowering>(ctx);
}
