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
  // Dividing by 0 and INT_MIN / -1 trap on x86: x / 0 gives 0 (numpy's
  // result) and x / -1 is -x, wrapping for INT_MIN (numpy's too).
  Type type = x[0].getType();
  Value zero = buildScalar(b, loc, type, 0.0);
  Value minusOne = buildScalar(b, loc, type, -1.0);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x[1], zero);
  Value byMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x[1], minusOne);
  Value divisor = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne),
      buildScalar(b, loc, type, 1.0), x[1]);
  Value quotient = arith::DivSIOp::create(b, loc, x[0], divisor);
  Value negated = arith::SubIOp::create(b, loc, zero, x[0]);
  quotient = arith::SelectOp::create(b, loc, byMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, byZero, zero, quotient);
}

static Value reciprocal(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::DivFOp::create(b, loc, buildScalar(b, loc, x[0].getType(), 1.0),
                               x[0]);
}

static Value log(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::LogOp::create(b, loc, x[0]);
}

static Value erf(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::ErfOp::create(b, loc, x[0]);
}

/// `max(0, min(1, alpha * x + beta))`.
static Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha,
                         double beta) {
  Type t = x.getType();
  Value v = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, buildScalar(b, loc, t, alpha)),
      buildScalar(b, loc, t, beta));
  v = arith::MinimumFOp::create(b, loc, v, buildScalar(b, loc, t, 1.0));
  return arith::MaximumFOp::create(b, loc, v, buildScalar(b, loc, t, 0.0));
}

static Value hardSwish(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::MulFOp::create(b, loc, x[0],
                               hardSigmoid(b, loc, x[0], 1.0 / 6.0, 0.5));
}

static Value floor(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::FloorOp::create(b, loc, x[0]);
}

static Value ceil(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::CeilOp::create(b, loc, x[0]);
}

static Value roundEven(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return math::RoundEvenOp::create(b, loc, x[0]);
}

/// -1, 0 or 1 (NaN stays NaN: both comparisons are false, and the select
/// keeps x).
static Value sign(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Type t = x[0].getType();
  Value zero = zeroLike(b, loc, x[0]);
  Value one = buildScalar(b, loc, t, 1.0), minusOne = buildScalar(b, loc, t, -1.0);
  Value positive, negative;
  if (isFloat(x[0])) {
    positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x[0], zero);
    negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0], zero);
  } else {
    positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x[0], zero);
    negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x[0], zero);
  }
  // Neither positive nor negative: 0, or NaN for a float NaN.
  Value other = isFloat(x[0]) ? x[0] : zero;
  Value v = arith::SelectOp::create(b, loc, negative, minusOne, other);
  return arith::SelectOp::create(b, loc, positive, one, v);
}

template <typename MathOp>
static Value mathUnary(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return MathOp::create(b, loc, x[0]);
}

/// log(1 + x) accurate for small x, for x >= 0: log(u) * x / (u - 1) with
/// u = 1 + x, which cancels u's rounding (x itself where u rounds to 1).
/// Not math.log1p: MathToLLVM lowers that to log(1 + x), which is 0 for x
/// below the type's epsilon (softplus(-20) = 2e-9 became 0 in f32).
static Value accurateLog1p(OpBuilder &b, Location loc, Value x) {
  Value one = buildScalar(b, loc, x.getType(), 1.0);
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value uMinusOne = arith::SubFOp::create(b, loc, u, one);
  Value scaled = arith::DivFOp::create(
      b, loc, arith::MulFOp::create(b, loc, math::LogOp::create(b, loc, u), x),
      uMinusOne);
  Value exact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  return arith::SelectOp::create(b, loc, exact, x, scaled);
}

/// log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|)) so that large |x|
/// neither overflows nor loses the small term.
static Value softplus(OpBuilder &b, Location loc, Value x) {
  Value zero = zeroLike(b, loc, x);
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  Value tail = accurateLog1p(b, loc, math::ExpOp::create(b, loc, negAbs));
  return arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, zero),
                               tail);
}

static Value softplusOf(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return softplus(b, loc, x[0]);
}

static Value mish(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::MulFOp::create(
      b, loc, x[0], math::TanhOp::create(b, loc, softplus(b, loc, x[0])));
}

static Value softsign(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value one = buildScalar(b, loc, x[0].getType(), 1.0);
  return arith::DivFOp::create(
      b, loc, x[0],
      arith::AddFOp::create(b, loc, one, math::AbsFOp::create(b, loc, x[0])));
}

static Value isNaN(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0], x[0]);
}

/// alpha * (exp(x) - 1), the negative branch of Elu and Selu.
static Value expm1Scaled(OpBuilder &b, Location loc, Value x, double alpha) {
  Type t = x.getType();
  Value e = math::ExpM1Op::create(b, loc, x);
  return arith::MulFOp::create(b, loc, e, buildScalar(b, loc, t, alpha));
}

static Value elu(OpBuilder &b, Location loc, Value x, ONNXEluOp op) {
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                         zeroLike(b, loc, x));
  return arith::SelectOp::create(
      b, loc, negative,
      expm1Scaled(b, loc, x, op.getAlpha().convertToDouble()), x);
}

static Value selu(OpBuilder &b, Location loc, Value x, ONNXSeluOp op) {
  Value notPositive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                            x, zeroLike(b, loc, x));
  Value v = arith::SelectOp::create(
      b, loc, notPositive,
      expm1Scaled(b, loc, x, op.getAlpha().convertToDouble()), x);
  return arith::MulFOp::create(
      b, loc, v, buildScalar(b, loc, x.getType(), op.getGamma().convertToDouble()));
}

static Value celu(OpBuilder &b, Location loc, Value x, ONNXCeluOp op) {
  double alpha = op.getAlpha().convertToDouble();
  Type t = x.getType();
  Value zero = zeroLike(b, loc, x);
  Value scaled = arith::DivFOp::create(b, loc, x, buildScalar(b, loc, t, alpha));
  Value negative = arith::MinimumFOp::create(
      b, loc, expm1Scaled(b, loc, scaled, alpha), zero);
  return arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, zero),
                               negative);
}

static Value thresholdedRelu(OpBuilder &b, Location loc, Value x,
                             ONNXThresholdedReluOp op) {
  Value above = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT, x,
      buildScalar(b, loc, x.getType(), op.getAlpha().convertToDouble()));
  return arith::SelectOp::create(b, loc, above, x, zeroLike(b, loc, x));
}

static Value shrink(OpBuilder &b, Location loc, Value x, ONNXShrinkOp op) {
  Type t = x.getType();
  double lambd = op.getLambd().convertToDouble();
  Value bias = buildScalar(b, loc, t, op.getBias().convertToDouble());
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      buildScalar(b, loc, t, -lambd));
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      buildScalar(b, loc, t, lambd));
  Value v = arith::SelectOp::create(b, loc, above,
                                    arith::SubFOp::create(b, loc, x, bias),
                                    zeroLike(b, loc, x));
  return arith::SelectOp::create(b, loc, below,
                                 arith::AddFOp::create(b, loc, x, bias), v);
}

static Value isInf(OpBuilder &b, Location loc, Value x, ONNXIsInfOp op) {
  Type t = x.getType();
  auto inf = [&](bool negative) {
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(t, APFloat::getInf(
                                      cast<FloatType>(t).getFloatSemantics(),
                                      negative)));
  };
  Value result = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  if (op.getDetectPositive())
    result = arith::OrIOp::create(
        b, loc, result,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, inf(false)));
  if (op.getDetectNegative())
    result = arith::OrIOp::create(
        b, loc, result,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, inf(true)));
  return result;
}

/// `x < 0 ? slope * x : x`.
static Value prelu(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value zero = zeroLike(b, loc, x[0]);
  Value negative =
      isFloat(x[0])
          ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0], zero)
                .getResult()
          : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x[0], zero)
                .getResult();
  return arith::SelectOp::create(b, loc, negative, buildMul(b, loc, x[0], x[1]),
                                 x[0]);
}

/// The remainder of `x / y`: of truncated division with `fmod` (the sign of
/// x, C's fmod), else of floored division (the sign of y, Python's %).
static Value mod(OpBuilder &b, Location loc, Value x, Value y, bool fmod) {
  if (isFloat(x)) {
    Value r = arith::RemFOp::create(b, loc, x, y);
    if (fmod)
      return r;
    // A nonzero remainder of the other sign than y moves by y (an infinite
    // y then gives y, as ONNX says); a zero one takes y's sign.
    Value zero = zeroLike(b, loc, r);
    Value rNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
    Value nonzero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    Value move = arith::AndIOp::create(
        b, loc, nonzero, arith::XOrIOp::create(b, loc, rNegative, yNegative));
    r = arith::SelectOp::create(b, loc, move,
                                arith::AddFOp::create(b, loc, r, y), r);
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, r, zero);
    return arith::SelectOp::create(b, loc, isZero,
                                   math::CopySignOp::create(b, loc, r, y), r);
  }
  // Dividing by 0 or -1 (INT_MIN / -1) traps on x86; both give 0 here, as
  // x % 1 does (numpy's result for a zero divisor too).
  Value zero = zeroLike(b, loc, x);
  Value one = buildScalar(b, loc, x.getType(), 1.0);
  Value trivial = arith::OrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                            buildScalar(b, loc, x.getType(), -1.0)));
  Value divisor = arith::SelectOp::create(b, loc, trivial, one, y);
  Value r = arith::RemSIOp::create(b, loc, x, divisor);
  if (fmod)
    return r;
  Value differ = arith::XOrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, divisor, zero));
  Value move = arith::AndIOp::create(
      b, loc, differ,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero));
  return arith::SelectOp::create(b, loc, move,
                                 arith::AddIOp::create(b, loc, r, divisor), r);
}

static Value logicalAnd(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::AndIOp::create(b, loc, x[0], x[1]);
}

static Value logicalOr(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::OrIOp::create(b, loc, x[0], x[1]);
}

static Value logicalXor(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::XOrIOp::create(b, loc, x[0], x[1]);
}

static Value logicalNot(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::XOrIOp::create(b, loc, x[0],
                               buildScalar(b, loc, x[0].getType(), 1));
}

static Value maximum(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value v = x[0];
  for (Value y : x.drop_front())
    v = buildMax(b, loc, v, y);
  return v;
}

static Value minimum(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value v = x[0];
  for (Value y : x.drop_front())
    v = buildMin(b, loc, v, y);
  return v;
}

static Value sum(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value v = x[0];
  for (Value y : x.drop_front())
    v = buildAdd(b, loc, v, y);
  return v;
}

static Value mean(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  Value total = sum(b, loc, x);
  Value n = buildScalar(b, loc, total.getType(), x.size());
  if (isFloat(total))
    return arith::DivFOp::create(b, loc, total, n);
  return arith::DivSIOp::create(b, loc, total, n);
}

static Value where(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  return arith::SelectOp::create(b, loc, x[0], x[1], x[2]);
}

/// Comparisons: ordered for floats (NaN compares false, as in ONNX),
/// signed for integers, unsigned for bool.
template <arith::CmpFPredicate F, arith::CmpIPredicate I>
static Value compare(OpBuilder &b, Location loc, ArrayRef<Value> x) {
  if (isFloat(x[0]))
    return arith::CmpFOp::create(b, loc, F, x[0], x[1]);
  arith::CmpIPredicate pred = I;
  if (x[0].getType().isInteger(1)) {
    // i1 true is -1 when signed; compare bools as unsigned.
    switch (I) {
    case arith::CmpIPredicate::slt:
      pred = arith::CmpIPredicate::ult;
      break;
    case arith::CmpIPredicate::sle:
      pred = arith::CmpIPredicate::ule;
      break;
    case arith::CmpIPredicate::sgt:
      pred = arith::CmpIPredicate::ugt;
      break;
    case arith::CmpIPredicate::sge:
      pred = arith::CmpIPredicate::uge;
      break;
    default:
      break;
    }
  }
  return arith::CmpIOp::create(b, loc, pred, x[0], x[1]);
}

/// Converts scalar `v` to `to` as ONNX Cast does: float to integer
/// truncates toward zero, anything to bool is `v != 0`, bool is 0 or 1.
static Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    Value zero = buildScalar(b, loc, from, 0.0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    // f64 to bf16 through f32: LLVM would call __truncdfbf2, which the C
    // runtime of the cpu target may lack (f32 to bf16 is expanded inline).
    if (fromFloat.getWidth() == 64 && toFloat.isBF16())
      v = arith::TruncFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (fromFloat)
    return buildFloatToInt(b, loc, v, to, /*isUnsigned=*/false);
  bool fromBool = from.isInteger(1);
  if (toFloat)
    return fromBool ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                    : arith::SIToFPOp::create(b, loc, to, v).getResult();
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return fromBool ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                    : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
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

/// `fn(x)`, computed in f32 when x is a narrower float (f16, bf16), whose
/// math functions the CPU target has no versions of, and stored back in
/// x's type.
static Value computeInF32(OpBuilder &b, Location loc, Value x,
                          function_ref<Value(Value)> fn) {
  auto type = dyn_cast<FloatType>(x.getType());
  if (!type || type.getWidth() >= 32)
    return fn(x);
  Value result = fn(arith::ExtFOp::create(b, loc, b.getF32Type(), x));
  if (isa<FloatType>(result.getType()))
    result = arith::TruncFOp::create(b, loc, type, result);
  return result;
}

/// An op of one operand whose scalar function reads the op's attributes
/// (computed in f32 for narrow floats).
template <typename OpTy, Value (*Fn)(OpBuilder &, Location, Value, OpTy)>
struct AttributedLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      return computeInF32(b, loc, x[0],
                          [&](Value v) { return Fn(b, loc, v, op); });
    };
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                            adaptor.getOperands(), fn));
    return success();
  }
};

template <typename OpTy, Value (*Fn)(OpBuilder &, Location, ArrayRef<Value>)>
static Value withoutAttributes(OpBuilder &b, Location loc, Value x, OpTy) {
  return Fn(b, loc, {x});
}

/// A unary op whose scalar function is computed in f32 for narrow floats.
template <typename OpTy, Value (*Fn)(OpBuilder &, Location, ArrayRef<Value>)>
using WidenedLowering = AttributedLowering<OpTy, withoutAttributes<OpTy, Fn>>;

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
    SmallVector<Value> params;
    for (Value v : {adaptor.getScale(), adaptor.getB(), adaptor.getInputMean(),
                    adaptor.getInputVar()})
      params.push_back(
          buildChannelVector(rewriter, op.getLoc(), v, type.getRank()));
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

struct HardSigmoidLowering : public OpConversionPattern<ONNXHardSigmoidOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXHardSigmoidOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      return hardSigmoid(b, loc, x[0], alpha, beta);
    };
    rewriter.replaceOp(op,
                       buildElementwise(rewriter, op.getLoc(),
                                        cast<RankedTensorType>(op.getType()),
                                        adaptor.getOperands(), fn));
    return success();
  }
};

struct GeluLowering : public OpConversionPattern<ONNXGeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool useTanh = op.getApproximate() == "tanh";
    if (!useTanh && op.getApproximate() != "none")
      return op.emitOpError("approximate = '")
             << op.getApproximate() << "' is not 'none' or 'tanh'";
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      Type t = x[0].getType();
      auto c = [&](double v) { return buildScalar(b, loc, t, v); };
      Value inner;
      if (useTanh) {
        // sqrt(2/pi) * (x + 0.044715 x^3)
        Value x3 = arith::MulFOp::create(
            b, loc, arith::MulFOp::create(b, loc, x[0], x[0]), x[0]);
        Value poly = arith::AddFOp::create(
            b, loc, x[0], arith::MulFOp::create(b, loc, x3, c(0.044715)));
        inner = math::TanhOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, poly, c(0.7978845608028654)));
      } else {
        inner = math::ErfOp::create(
            b, loc, arith::MulFOp::create(b, loc, x[0], c(M_SQRT1_2)));
      }
      Value half = arith::MulFOp::create(b, loc, x[0], c(0.5));
      return arith::MulFOp::create(
          b, loc, half, arith::AddFOp::create(b, loc, inner, c(1.0)));
    };
    rewriter.replaceOp(op,
                       buildElementwise(rewriter, op.getLoc(),
                                        cast<RankedTensorType>(op.getType()),
                                        adaptor.getOperands(), fn));
    return success();
  }
};

/// Pow with a splat exponent of 1, 2, 3 or 0.5 is a product or a square
/// root (what models use, and exact); otherwise math.powf, or an integer
/// power by squaring.
struct PowLowering : public OpConversionPattern<ONNXPowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXPowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    std::optional<double> exponent;
    if (TypedAttr splat = getSplatScalar(adaptor.getY())) {
      if (auto f = dyn_cast<FloatAttr>(splat))
        exponent = f.getValueAsDouble();
      else if (auto i = dyn_cast<IntegerAttr>(splat))
        exponent = static_cast<double>(i.getValue().getSExtValue());
    }
    if (exponent && (*exponent == 1 || *exponent == 2 || *exponent == 3 ||
                     (*exponent == 0.5 && isa<FloatType>(elementType)))) {
      double e = *exponent;
      auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
        if (e == 0.5)
          return math::SqrtOp::create(b, loc, x[0]);
        Value v = x[0];
        for (int i = 1; i < static_cast<int>(e); ++i)
          v = buildMul(b, loc, v, x[0]);
        return v;
      };
      rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                              {adaptor.getX()}, fn));
      return success();
    }
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      if (isa<FloatType>(elementType))
        return math::PowFOp::create(
            b, loc, x[0], convertScalar(b, loc, x[1], elementType));
      // Integer powers in f64 (exact up to 2^53), rounded back.
      Type f64 = b.getF64Type();
      Value p = math::PowFOp::create(b, loc, convertScalar(b, loc, x[0], f64),
                                     convertScalar(b, loc, x[1], f64));
      return convertScalar(b, loc, math::RoundEvenOp::create(b, loc, p),
                           elementType);
    };
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                            adaptor.getOperands(), fn));
    return success();
  }
};

/// Mod, computed in f32 for narrow floats.
struct ModLowering : public OpConversionPattern<ONNXModOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXModOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool fmod = op.getFmod() != 0;
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      auto type = dyn_cast<FloatType>(x[0].getType());
      if (!type || type.getWidth() >= 32)
        return mod(b, loc, x[0], x[1], fmod);
      Type f32 = b.getF32Type();
      Value r = mod(b, loc, arith::ExtFOp::create(b, loc, f32, x[0]),
                    arith::ExtFOp::create(b, loc, f32, x[1]), fmod);
      return arith::TruncFOp::create(b, loc, type, r);
    };
    rewriter.replaceOp(op,
                       buildElementwise(rewriter, op.getLoc(),
                                        cast<RankedTensorType>(op.getType()),
                                        adaptor.getOperands(), fn));
    return success();
  }
};

struct CastLowering : public OpConversionPattern<ONNXCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type to = type.getElementType();
    auto fn = [&](OpBuilder &b, Location loc, ArrayRef<Value> x) -> Value {
      return convertScalar(b, loc, x[0], to);
    };
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type,
                                            adaptor.getOperands(), fn));
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
      ElementwiseLowering<ONNXReciprocalOp, reciprocal>,
      ElementwiseLowering<ONNXLogOp, log>, ElementwiseLowering<ONNXErfOp, erf>,
      ElementwiseLowering<ONNXHardSwishOp, hardSwish>,
      ElementwiseLowering<ONNXNotOp, logicalNot>,
      ElementwiseLowering<ONNXAndOp, logicalAnd>,
      ElementwiseLowering<ONNXOrOp, logicalOr>,
      ElementwiseLowering<ONNXXorOp, logicalXor>,
      ElementwiseLowering<ONNXFloorOp, floor>,
      ElementwiseLowering<ONNXCeilOp, ceil>,
      WidenedLowering<ONNXRoundOp, roundEven>,
      WidenedLowering<ONNXSignOp, sign>,
      WidenedLowering<ONNXSinOp, mathUnary<math::SinOp>>,
      WidenedLowering<ONNXCosOp, mathUnary<math::CosOp>>,
      WidenedLowering<ONNXTanOp, mathUnary<math::TanOp>>,
      WidenedLowering<ONNXAsinOp, mathUnary<math::AsinOp>>,
      WidenedLowering<ONNXAcosOp, mathUnary<math::AcosOp>>,
      WidenedLowering<ONNXAtanOp, mathUnary<math::AtanOp>>,
      WidenedLowering<ONNXSinhOp, mathUnary<math::SinhOp>>,
      WidenedLowering<ONNXCoshOp, mathUnary<math::CoshOp>>,
      WidenedLowering<ONNXAsinhOp, mathUnary<math::AsinhOp>>,
      WidenedLowering<ONNXAcoshOp, mathUnary<math::AcoshOp>>,
      WidenedLowering<ONNXAtanhOp, mathUnary<math::AtanhOp>>,
      WidenedLowering<ONNXSoftsignOp, softsign>,
      WidenedLowering<ONNXSoftplusOp, softplusOf>,
      WidenedLowering<ONNXMishOp, mish>, WidenedLowering<ONNXIsNaNOp, isNaN>,
      AttributedLowering<ONNXEluOp, elu>, AttributedLowering<ONNXSeluOp, selu>,
      AttributedLowering<ONNXCeluOp, celu>,
      AttributedLowering<ONNXThresholdedReluOp, thresholdedRelu>,
      AttributedLowering<ONNXShrinkOp, shrink>,
      AttributedLowering<ONNXIsInfOp, isInf>,
      ElementwiseLowering<ONNXSumOp, sum>,
      ElementwiseLowering<ONNXMaxOp, maximum>,
      ElementwiseLowering<ONNXMinOp, minimum>,
      ElementwiseLowering<ONNXMeanOp, mean>,
      ElementwiseLowering<ONNXWhereOp, where>,
      ElementwiseLowering<ONNXPReluOp, prelu>,
      ElementwiseLowering<ONNXEqualOp, compare<arith::CmpFPredicate::OEQ,
                                               arith::CmpIPredicate::eq>>,
      ElementwiseLowering<ONNXLessOp, compare<arith::CmpFPredicate::OLT,
                                              arith::CmpIPredicate::slt>>,
      ElementwiseLowering<
          ONNXLessOrEqualOp,
          compare<arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle>>,
      ElementwiseLowering<ONNXGreaterOp, compare<arith::CmpFPredicate::OGT,
                                                 arith::CmpIPredicate::sgt>>,
      ElementwiseLowering<
          ONNXGreaterOrEqualOp,
          compare<arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge>>,
      LeakyReluLowering, ClipLowering, BatchNormLowering, HardSigmoidLowering,
      GeluLowering, PowLowering, ModLowering, CastLowering>(ctx);
}
