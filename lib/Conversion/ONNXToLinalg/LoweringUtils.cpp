//===- LoweringUtils.cpp - Builders shared by the onnx lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

TypedAttr fuse::lowering::getSplatScalar(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return nullptr;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return nullptr;
  return dense.getSplatValue<TypedAttr>();
}

AffineMap fuse::lowering::getBroadcastMap(MLIRContext *ctx,
                                          ArrayRef<int64_t> operandShape,
                                          ArrayRef<int64_t> outputShape,
                                          unsigned numDims, unsigned firstDim) {
  SmallVector<AffineExpr> exprs;
  size_t offset = outputShape.size() - operandShape.size();
  for (auto [i, size] : llvm::enumerate(operandShape)) {
    if (size == 1 && outputShape[offset + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(firstDim + offset + i, ctx));
  }
  return AffineMap::get(numDims, 0, exprs, ctx);
}

Value fuse::lowering::buildElementwise(OpBuilder &b, Location loc,
                                       RankedTensorType resultType,
                                       ValueRange operands, ScalarFn fn) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = resultType.getRank();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // For each present operand: the index of its input, or -1 for a splat.
  SmallVector<int> slots;
  SmallVector<TypedAttr> splats;
  for (Value operand : operands) {
    if (!operand)
      continue;
    if (TypedAttr splat = getSplatScalar(operand)) {
      slots.push_back(-1);
      splats.push_back(splat);
      continue;
    }
    auto type = cast<RankedTensorType>(operand.getType());
    slots.push_back(inputs.size());
    splats.push_back(nullptr);
    inputs.push_back(operand);
    maps.push_back(
        getBroadcastMap(ctx, type.getShape(), resultType.getShape(), rank));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> scalars;
        for (auto [slot, splat] : llvm::zip(slots, splats))
          scalars.push_back(
              slot >= 0
                  ? args[slot]
                  : arith::ConstantOp::create(nb, nloc, splat).getResult());
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, scalars));
      });
  return generic.getResult(0);
}

Value fuse::lowering::buildFilled(OpBuilder &b, Location loc,
                                  RankedTensorType type, TypedAttr value) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

Value fuse::lowering::buildScalar(OpBuilder &b, Location loc, Type type,
                                  double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value fuse::lowering::buildFloatToInt(OpBuilder &b, Location loc, Value v,
                                      Type to, bool isUnsigned) {
  Type from = v.getType();
  unsigned width = to.getIntOrFloatBitWidth();
  // Both bounds are powers of two, exact in every float type that reaches
  // them (f16 rounds 2^16 and beyond to inf, which only inf reaches).
  double high = std::ldexp(1.0, isUnsigned ? width : width - 1);
  double low = isUnsigned ? -1.0 : -high;
  auto compare = [&](arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, predicate, x, y).getResult();
  };
  Value tooHigh =
      compare(arith::CmpFPredicate::OGE, v, buildScalar(b, loc, from, high));
  Value tooLow = compare(isUnsigned ? arith::CmpFPredicate::OLE
                                    : arith::CmpFPredicate::OLT,
                         v, buildScalar(b, loc, from, low));
  Value notANumber = compare(arith::CmpFPredicate::UNO, v, v);
  Value outside = arith::OrIOp::create(
      b, loc, arith::OrIOp::create(b, loc, tooHigh, tooLow), notANumber);
  // Only values in range reach the conversion, whose result is undefined
  // for the others (and differs between a vector loop and its tail).
  Value inRange = arith::SelectOp::create(b, loc, outside,
                                          buildScalar(b, loc, from, 0.0), v);
  Value converted =
      isUnsigned ? arith::FPToUIOp::create(b, loc, to, inRange).getResult()
                 : arith::FPToSIOp::create(b, loc, to, inRange).getResult();
  APInt highest =
      isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  APInt lowest =
      isUnsigned ? APInt::getZero(width) : APInt::getSignedMinValue(width);
  Value highValue =
      arith::ConstantOp::create(b, loc, IntegerAttr::get(to, highest));
  Value lowValue =
      arith::ConstantOp::create(b, loc, IntegerAttr::get(to, lowest));
  converted = arith::SelectOp::create(b, loc, tooHigh, highValue, converted);
  return arith::SelectOp::create(b, loc, tooLow, lowValue, converted);
}

TypedAttr fuse::lowering::getLowestAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(type, APFloat::getInf(floatType.getFloatSemantics(),
                                                /*Negative=*/true));
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, APInt::getSignedMinValue(width));
}

Value fuse::lowering::buildAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value fuse::lowering::buildMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value fuse::lowering::buildMulAdd(OpBuilder &b, Location loc, Value acc,
                                  Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::AddIOp::create(b, loc, acc,
                                 arith::MulIOp::create(b, loc, x, y));
  auto contract = arith::FastMathFlags::contract;
  Value product = arith::MulFOp::create(b, loc, x, y, contract);
  return arith::AddFOp::create(b, loc, acc, product, contract);
}

Value fuse::lowering::buildMax(OpBuilder &b, Location loc, Value x, Value y) {
  // maximumf propagates NaN, as ONNX's Max, Relu and MaxPool do.
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value fuse::lowering::buildMin(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

Value fuse::lowering::buildPad(OpBuilder &b, Location loc, Value source,
                               ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                               TypedAttr padValue) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return source;
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < shape.size(); ++i)
    shape[i] += low[i] + high[i];
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value value = arith::ConstantOp::create(b, loc, padValue);
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (int64_t x : low)
    lowOfr.push_back(b.getIndexAttr(x));
  for (int64_t x : high)
    highOfr.push_back(b.getIndexAttr(x));
  return tensor::PadOp::create(b, loc, resultType, source, lowOfr, highOfr,
                               value);
}

Value fuse::lowering::buildChannelVector(OpBuilder &b, Location loc, Value v,
                                         int64_t rank) {
  if (rank <= 2)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = type.getDimSize(0);
  SmallVector<ReassociationIndices> reassociation{
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1))};
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v,
      reassociation);
}

Value fuse::lowering::buildPaddedTap(OpBuilder &b, Location loc, Value input,
                                     ArrayRef<Value> leading,
                                     ArrayRef<Value> out, ArrayRef<Value> tap,
                                     const WindowGeometry &window,
                                     Value padValue, ArrayRef<Value> trailing) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> coords(leading.begin(), leading.end());
  Value inside;
  // Named steps: the ops are created in this order whatever the compiler's
  // argument evaluation order, so the IR is the same from every build.
  for (size_t i = 0, e = out.size(); i < e; ++i) {
    Value stride = constant(window.strides[i]);
    Value scaledOut = arith::MulIOp::create(b, loc, out[i], stride);
    Value dilation = constant(window.dilations[i]);
    Value scaledTap = arith::MulIOp::create(b, loc, tap[i], dilation);
    Value sum = arith::AddIOp::create(b, loc, scaledOut, scaledTap);
    Value padLow = constant(window.padLow[i]);
    Value pos = arith::SubIOp::create(b, loc, sum, padLow);
    Value zero = constant(0);
    Value size = constant(window.spatialIn[i]);
    Value aboveLow =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, pos, zero);
    Value belowHigh =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, pos, size);
    Value ok = arith::AndIOp::create(b, loc, aboveLow, belowHigh);
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    Value last = constant(window.spatialIn[i] - 1);
    Value atLeastZero = arith::MaxSIOp::create(b, loc, pos, zero);
    coords.push_back(arith::MinSIOp::create(b, loc, atLeastZero, last));
  }
  coords.append(trailing.begin(), trailing.end());
  Value value = tensor::ExtractOp::create(b, loc, input, coords);
  return inside ? arith::SelectOp::create(b, loc, inside, value, padValue)
                : value;
}
