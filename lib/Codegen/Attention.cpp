//===- Attention.cpp - fuse.attention as loops ----------------------------===//

#include "fuse/Codegen/Attention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fuse;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

AttentionSizes fuse::getAttentionSizes(AttentionOp op) {
  SmallVector<int64_t, 4> q = op.getLogicalShape(AttentionOp::kQuery),
                          k = op.getLogicalShape(AttentionOp::kKey);
  return {q[0], q[1], q[2], q[3], k[1], q[2] / k[2],
          op.getLogicalShape(AttentionOp::kResult)[3]};
}

SmallVector<Value, 4> fuse::getAttentionIndices(OpBuilder &b, Location loc,
                                                AttentionOp op, unsigned which,
                                                Value batch, Value sequence,
                                                Value head, Value dim) {
  if (int64_t offset = op.getHeadOffset(which))
    head = arith::AddIOp::create(
        b, loc, head, arith::ConstantIndexOp::create(b, loc, offset));
  if (op.isHeadsFirst(which))
    return {batch, head, sequence, dim};
  return {batch, sequence, head, dim};
}

Value fuse::loadAttentionElement(OpBuilder &b, Location loc, Value buffer,
                                 ValueRange indices) {
  Value value = memref::LoadOp::create(b, loc, buffer, indices);
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

void fuse::storeAttentionElement(OpBuilder &b, Location loc, Value value,
                                 Value buffer, ValueRange indices) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  if (element != value.getType())
    value = arith::TruncFOp::create(b, loc, element, value);
  memref::StoreOp::create(b, loc, value, buffer, indices);
}

Value fuse::loadAttentionMask(OpBuilder &b, Location loc, AttentionOp op,
                              Value batch, Value head, Value row, Value key) {
  Value mask = op.getMask();
  if (!mask)
    return Value();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value, 4> indices = {batch, head, row, key};
  for (auto [extent, index] : llvm::zip(shapeOf(mask), indices))
    if (extent == 1)
      index = zero;
  return loadAttentionElement(b, loc, mask, indices);
}

Value fuse::getSoftmaxBase(OpBuilder &b, Location loc, Value newMax) {
  Value minusInf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      newMax, minusInf);
  return arith::SelectOp::create(b, loc, empty, zero, newMax);
}

Value fuse::emitExpAgainst(OpBuilder &b, Location loc, Value x, Value base) {
  const float log2e = 1.4426950408889634f;
  Value shifted = arith::SubFOp::create(b, loc, x, base);
  return math::Exp2Op::create(
      b, loc,
      arith::MulFOp::create(
          b, loc, shifted,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(log2e))));
}

Value fuse::getAttentionRowFactor(OpBuilder &b, Location loc, Value sum,
                                  Value &positive) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1));
  // Ordered: false for a NaN sum.
  positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero);
  return arith::DivFOp::create(b, loc, one, sum);
}

Value fuse::finishAttentionOutput(OpBuilder &b, Location loc, AttentionOp op,
                                  Value acc, Value factor, Value positive) {
  Value scaled = arith::MulFOp::create(b, loc, acc, factor);
  APFloat empty = op.getZeroNanProbabilities()
                      ? APFloat(0.0f)
                      : APFloat::getQNaN(APFloat::IEEEsingle());
  Value emptyValue = arith::ConstantFloatOp::create(
      b, loc, cast<FloatType>(b.getF32Type()), empty);
  return arith::SelectOp::create(b, loc, positive, scaled, emptyValue);
}

LogicalResult fuse::lowerAttentionToLoops(RewriterBase &rewriter,
                                          AttentionOp op) {
  if (!op.hasBufferSemantics())
    return rewriter.notifyMatchFailure(op, "not the buffer form");
  Location loc = op.getLoc();
  SmallVector<int64_t, 4> q = op.getLogicalShape(AttentionOp::kQuery),
                          k = op.getLogicalShape(AttentionOp::kKey);
  int64_t dv = op.getLogicalShape(AttentionOp::kResult)[3];
  int64_t groups = q[2] / k[2];
  Type f32 = rewriter.getF32Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto f = [&](float v) -> Value {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getF32FloatAttr(v));
  };

  rewriter.setInsertionPoint(op);
  Value zeroIndex = c(0), oneIndex = c(1);
  auto rows = scf::ParallelOp::create(
      rewriter, loc, ValueRange{zeroIndex, zeroIndex, zeroIndex},
      ValueRange{c(q[0]), c(q[2]), c(q[1])},
      ValueRange{oneIndex, oneIndex, oneIndex});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(rows.getBody());
  Value batch = rows.getInductionVars()[0];
  Value head = rows.getInductionVars()[1];
  Value row = rows.getInductionVars()[2];
  Value keyHead =
      groups == 1
          ? head
          : arith::DivUIOp::create(rewriter, loc, head, c(groups)).getResult();
  Value zero = f(0.0f);
  Value scale = arith::ConstantOp::create(rewriter, loc, op.getScaleAttr());
  Value minusInf = f(-std::numeric_limits<float>::infinity());

  // The row's outputs, rescaled as the maximum grows.
  auto accType = MemRefType::get({dv}, f32);
  Value acc = memref::AllocaOp::create(rewriter, loc, accType);
  auto clear = scf::ForOp::create(rewriter, loc, zeroIndex, c(dv), oneIndex);
  {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(clear.getBody());
    memref::StoreOp::create(rewriter, loc, zero, acc, clear.getInductionVar());
  }

  auto keys = scf::ForOp::create(rewriter, loc, zeroIndex, c(k[1]), oneIndex,
                                 ValueRange{minusInf, zero});
  {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(keys.getBody());
    Value key = keys.getInductionVar();
    Value max = keys.getRegionIterArgs()[0];
    Value sum = keys.getRegionIterArgs()[1];
    auto dot = scf::ForOp::create(rewriter, loc, zeroIndex, c(q[3]), oneIndex,
                                  ValueRange{zero});
    {
      OpBuilder::InsertionGuard body(rewriter);
      rewriter.setInsertionPointToStart(dot.getBody());
      Value d = dot.getInductionVar();
      Value a = loadAttentionElement(
          rewriter, loc, op.getQuery(),
          getAttentionIndices(rewriter, loc, op, AttentionOp::kQuery, batch,
                              row, head, d));
      Value bk = loadAttentionElement(
          rewriter, loc, op.getKey(),
          getAttentionIndices(rewriter, loc, op, AttentionOp::kKey, batch, key,
                              keyHead, d));
      Value product = arith::MulFOp::create(rewriter, loc, a, bk);
      Value next = arith::AddFOp::create(rewriter, loc,
                                         dot.getRegionIterArgs()[0], product);
      scf::YieldOp::create(rewriter, loc, next);
    }
    Value score = arith::MulFOp::create(rewriter, loc, dot.getResult(0), scale);
    if (Value mask =
            loadAttentionMask(rewriter, loc, op, batch, head, row, key))
      score = arith::AddFOp::create(rewriter, loc, score, mask);
    Value newMax = arith::MaximumFOp::create(rewriter, loc, max, score);
    Value base = getSoftmaxBase(rewriter, loc, newMax);
    Value correction = math::ExpOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, max, base));
    Value weight = math::ExpOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, score, base));
    Value newSum = arith::AddFOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, sum, correction),
        weight);
    auto update = scf::ForOp::create(rewriter, loc, zeroIndex, c(dv), oneIndex);
    {
      OpBuilder::InsertionGuard body(rewriter);
      rewriter.setInsertionPointToStart(update.getBody());
      Value d = update.getInductionVar();
      Value old = memref::LoadOp::create(rewriter, loc, acc, d);
      Value v = loadAttentionElement(
          rewriter, loc, op.getValue(),
          getAttentionIndices(rewriter, loc, op, AttentionOp::kValue, batch,
                              key, keyHead, d));
      Value next = arith::AddFOp::create(
          rewriter, loc, arith::MulFOp::create(rewriter, loc, old, correction),
          arith::MulFOp::create(rewriter, loc, weight, v));
      memref::StoreOp::create(rewriter, loc, next, acc, d);
    }
    scf::YieldOp::create(rewriter, loc, ValueRange{newMax, newSum});
  }

  Value positive;
  Value factor =
      getAttentionRowFactor(rewriter, loc, keys.getResult(1), positive);
  auto store = scf::ForOp::create(rewriter, loc, zeroIndex, c(dv), oneIndex);
  {
    OpBuilder::InsertionGuard body(rewriter);
    rewriter.setInsertionPointToStart(store.getBody());
    Value d = store.getInductionVar();
    Value out = finishAttentionOutput(
        rewriter, loc, op, memref::LoadOp::create(rewriter, loc, acc, d),
        factor, positive);
    storeAttentionElement(rewriter, loc, out, op.getInto(),
                          getAttentionIndices(rewriter, loc, op,
                                              AttentionOp::kResult, batch, row,
                                              head, d));
  }
  rewriter.eraseOp(op);
  return success();
}
