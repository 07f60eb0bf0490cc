//===- Integers.cpp - Unsigned integers on signless ones, BitShift --------===//
//
// arith and linalg compute on signless integers. Before the conversion, a
// kernel's unsigned element types (uiN) become signless (iN) of the same
// width: its signature (the plan recorded the unsigned types before the
// kernels were lowered), the results of its ops and its constants. The ops
// whose result depends on the signedness are marked `fuse.unsigned` first
// and lowered by the patterns below, with the unsigned arith ops (divui,
// remui, maxui, cmpi ult, shrui, uitofp, fptoui, extui, ...); the ops that only move elements
// need no mark. Any other op of unsigned elements is refused.
//
// BitShift (of signed or unsigned integers) is lowered here too: a shift
// by a negative amount or by the width or more gives 0, or for a signed
// right shift the sign (-1 or 0), as onnx's reference does.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

static constexpr StringLiteral kUnsignedAttr = "fuse.unsigned";
// Which side of a marked Cast is unsigned (the mark alone says either).
static constexpr StringLiteral kUnsignedSourceAttr = "fuse.unsigned_source";
static constexpr StringLiteral kUnsignedResultAttr = "fuse.unsigned_result";

/// `type` with a signless element type in place of an unsigned one.
static Type toSignless(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto integer =
      tensor ? dyn_cast<IntegerType>(tensor.getElementType()) : nullptr;
  if (!integer || !integer.isUnsigned())
    return type;
  return tensor.clone(
      IntegerType::get(type.getContext(), integer.getWidth()));
}

static bool isUnsignedTensor(Type type) { return toSignless(type) != type; }

/// Ops whose result reads the signedness of their (unsigned) operands.
static bool isSignednessAware(Operation *op) {
  return isa<ONNXAddOp, ONNXSubOp, ONNXMulOp, ONNXDivOp, ONNXModOp, ONNXMaxOp,
             ONNXMinOp, ONNXSumOp, ONNXEqualOp, ONNXLessOp, ONNXLessOrEqualOp,
             ONNXGreaterOp, ONNXGreaterOrEqualOp, ONNXBitShiftOp, ONNXCastOp>(
      op);
}

/// Ops that move or select elements without reading them as numbers.
static bool movesElementsOnly(Operation *op) {
  return isa<ONNXConstantOp, ONNXIdentityOp, ONNXReshapeOp, ONNXFlattenOp,
             ONNXSqueezeOp, ONNXUnsqueezeOp, ONNXTransposeOp, ONNXConcatOp,
             ONNXSliceOp, ONNXGatherOp, ONNXGatherElementsOp, ONNXGatherNDOp,
             ONNXExpandOp, ONNXTileOp, ONNXWhereOp>(op);
}

LogicalResult fuse::lowering::eraseUnsignedTypes(func::FuncOp func) {
  // Mark (or refuse) first, while the types still say what is unsigned.
  WalkResult checked = func.walk([](Operation *op) -> WalkResult {
    if (!isa<ONNXDialect>(op->getDialect()))
      return WalkResult::advance();
    auto types = llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes());
    auto unsignedType = llvm::find_if(types, isUnsignedTensor);
    if (unsignedType == types.end() || movesElementsOnly(op))
      return WalkResult::advance();
    // Pow reads an unsigned exponent as a number, of a float base.
    bool unsignedExponent =
        isa<ONNXPowOp>(op) && !isUnsignedTensor(op->getOperand(0).getType());
    if (!isSignednessAware(op) && !unsignedExponent) {
      op->emitOpError("has element type ")
          << cast<ShapedType>(*unsignedType).getElementType()
          << ", which the lowering does not support yet";
      return WalkResult::interrupt();
    }
    op->setAttr(kUnsignedAttr, UnitAttr::get(op->getContext()));
    if (isa<ONNXCastOp>(op)) {
      if (isUnsignedTensor(op->getOperand(0).getType()))
        op->setAttr(kUnsignedSourceAttr, UnitAttr::get(op->getContext()));
      if (isUnsignedTensor(op->getResult(0).getType()))
        op->setAttr(kUnsignedResultAttr, UnitAttr::get(op->getContext()));
    }
    return WalkResult::advance();
  });
  if (checked.wasInterrupted())
    return failure();

  for (BlockArgument arg : func.getArguments())
    arg.setType(toSignless(arg.getType()));
  func.walk([](Operation *op) {
    for (OpResult result : op->getResults())
      result.setType(toSignless(result.getType()));
    auto constant = dyn_cast<ONNXConstantOp>(op);
    if (!constant)
      return;
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      if (auto integer = dyn_cast<IntegerType>(dense.getElementType());
          integer && integer.isUnsigned())
        constant.setValueAttr(dense.bitcast(
            IntegerType::get(op->getContext(), integer.getWidth())));
  });
  SmallVector<Type> argTypes, resultTypes;
  for (Type type : func.getArgumentTypes())
    argTypes.push_back(toSignless(type));
  for (Type type : func.getResultTypes())
    resultTypes.push_back(toSignless(type));
  func.setFunctionType(
      FunctionType::get(func.getContext(), argTypes, resultTypes));
  return success();
}

//===----------------------------------------------------------------------===//
// Scalar semantics of unsigned integers
//===----------------------------------------------------------------------===//

/// x / y, 0 for a zero divisor (as the signed lowering; x86 traps).
static Value divUnsigned(OpBuilder &b, Location loc, Value x, Value y,
                         bool remainder) {
  Type type = x.getType();
  Value zero = buildScalar(b, loc, type, 0.0);
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value divisor = arith::SelectOp::create(b, loc, byZero,
                                          buildScalar(b, loc, type, 1.0), y);
  Value r = remainder
                ? arith::RemUIOp::create(b, loc, x, divisor).getResult()
                : arith::DivUIOp::create(b, loc, x, divisor).getResult();
  return arith::SelectOp::create(b, loc, byZero, zero, r);
}

/// x << y or x >> y (arithmetic for signed x); amounts out of [0, width)
/// shift everything out.
static Value buildShift(OpBuilder &b, Location loc, Value x, Value y,
                        bool left, bool isUnsigned) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  // Negative amounts compare as huge ones, unsigned.
  Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, y,
                                       buildScalar(b, loc, type, width));
  Value amount = arith::SelectOp::create(
      b, loc, tooFar, buildScalar(b, loc, type, 0.0), y);
  Value shifted, outOfRange;
  if (left || isUnsigned) {
    shifted = left ? arith::ShLIOp::create(b, loc, x, amount).getResult()
                   : arith::ShRUIOp::create(b, loc, x, amount).getResult();
    outOfRange = buildScalar(b, loc, type, 0.0);
  } else {
    shifted = arith::ShRSIOp::create(b, loc, x, amount);
    outOfRange = arith::ShRSIOp::create(b, loc, x,
                                        buildScalar(b, loc, type, width - 1));
  }
  return arith::SelectOp::create(b, loc, tooFar, outOfRange, shifted);
}

static Value compareUnsigned(OpBuilder &b, Location loc,
                             arith::CmpIPredicate predicate, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, predicate, x, y);
}

/// `v` converted to `to`, reading it as unsigned when `fromUnsigned`,
/// producing an unsigned value when `toUnsigned` (both signless here).
static Value castUnsigned(OpBuilder &b, Location loc, Value v, Type to,
                          bool fromUnsigned, bool toUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 buildScalar(b, loc, from, 0.0));
  bool fromBool = from.isInteger(1);
  if (isa<FloatType>(from))
    return buildFloatToInt(b, loc, v, to, toUnsigned);
  if (isa<FloatType>(to))
    return fromUnsigned || fromBool
               ? arith::UIToFPOp::create(b, loc, to, v).getResult()
               : arith::SIToFPOp::create(b, loc, to, v).getResult();
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return fromUnsigned || fromBool
               ? arith::ExtUIOp::create(b, loc, to, v).getResult()
               : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

/// Folds `fn` over all operands (Max, Min, Sum).
static Value foldOperands(OpBuilder &b, Location loc, ArrayRef<Value> x,
                          function_ref<Value(Value, Value)> fn) {
  Value v = x[0];
  for (Value y : x.drop_front())
    v = fn(v, y);
  return v;
}

namespace {

/// The ops marked `fuse.unsigned`, each one linalg.generic of unsigned
/// scalar semantics (benefit 2: before the signed patterns), and BitShift.
struct IntegerLowering : public ConversionPattern {
  IntegerLowering(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    bool isUnsigned = op->hasAttr(kUnsignedAttr);
    if ((!isUnsigned && !isa<ONNXBitShiftOp>(op)) || op->getNumResults() != 1)
      return failure();
    using Pred = arith::CmpIPredicate;
    using Fn = std::function<Value(OpBuilder &, Location, ArrayRef<Value>)>;
    auto compare = [](Pred predicate) -> Fn {
      return [predicate](OpBuilder &b, Location loc, ArrayRef<Value> x) {
        return compareUnsigned(b, loc, predicate, x[0], x[1]);
      };
    };
    Fn fn =
        TypeSwitch<Operation *, Fn>(op)
            .Case([](ONNXAddOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return buildAdd(b, loc, x[0], x[1]);
              };
            })
            .Case([](ONNXSumOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return foldOperands(b, loc, x, [&](Value u, Value v) {
                  return buildAdd(b, loc, u, v);
                });
              };
            })
            .Case([](ONNXSubOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return arith::SubIOp::create(b, loc, x[0], x[1]);
              };
            })
            .Case([](ONNXMulOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return buildMul(b, loc, x[0], x[1]);
              };
            })
            .Case([](ONNXDivOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return divUnsigned(b, loc, x[0], x[1], /*remainder=*/false);
              };
            })
            // Truncated and floored remainders agree for unsigned values.
            .Case([](ONNXModOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return divUnsigned(b, loc, x[0], x[1], /*remainder=*/true);
              };
            })
            .Case([](ONNXMaxOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return foldOperands(b, loc, x, [&](Value u, Value v) {
                  return arith::MaxUIOp::create(b, loc, u, v);
                });
              };
            })
            .Case([](ONNXMinOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return foldOperands(b, loc, x, [&](Value u, Value v) {
                  return arith::MinUIOp::create(b, loc, u, v);
                });
              };
            })
            .Case([&](ONNXEqualOp) { return compare(Pred::eq); })
            .Case([&](ONNXLessOp) { return compare(Pred::ult); })
            .Case([&](ONNXLessOrEqualOp) { return compare(Pred::ule); })
            .Case([&](ONNXGreaterOp) { return compare(Pred::ugt); })
            .Case([&](ONNXGreaterOrEqualOp) { return compare(Pred::uge); })
            .Case([&](ONNXBitShiftOp shift) -> Fn {
              bool left = shift.getDirection() == "LEFT";
              return [left, isUnsigned](OpBuilder &b, Location loc,
                                        ArrayRef<Value> x) {
                return buildShift(b, loc, x[0], x[1], left, isUnsigned);
              };
            })
            .Case([&](ONNXCastOp cast) -> Fn {
              bool fromUnsigned = op->hasAttr(kUnsignedSourceAttr);
              bool toUnsigned = op->hasAttr(kUnsignedResultAttr);
              Type to = // signless by now
                  llvm::cast<TensorType>(cast.getType()).getElementType();
              return [=](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                return castUnsigned(b, loc, x[0], to, fromUnsigned,
                                    toUnsigned);
              };
            })
            // A float base to an unsigned exponent.
            .Case([](ONNXPowOp) -> Fn {
              return [](OpBuilder &b, Location loc, ArrayRef<Value> x) {
                Value exponent = arith::UIToFPOp::create(
                    b, loc, x[0].getType(), x[1]);
                return math::PowFOp::create(b, loc, x[0], exponent);
              };
            })
            .Default([](Operation *) { return Fn(); });
    if (!fn)
      return rewriter.notifyMatchFailure(op, "no unsigned semantics");
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, buildElementwise(rewriter, op->getLoc(), type,
                                            operands, fn));
    return success();
  }
};

} // namespace

void fuse::lowering::populateIntegerPatterns(RewritePatternSet &patterns) {
  patterns.add<IntegerLowering>(patterns.getContext());
}
