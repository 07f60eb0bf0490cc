//===- AttentionMmaTiles.cpp - fuse.attention on tensor cores -------------===//
//
// The `attention_mma` mapping (see KernelStrategyAttr): FlashAttention-2's
// schedule for f16 and bf16 tensors on sm_80 and later. Block `bid`
// computes BR query rows of one (batch, head) with BR / 16 warps, 16 rows
// a warp. Its rows of Q are copied into shared memory once and then held
// in registers as mma A fragments; the keys are walked BC at a time, each
// K and V tile copied into shared memory with cp.async (with two stages
// the next tile's copies are in flight while the block computes one). Per
// key tile a warp computes, all in registers:
//
//   S = Q K^T      m16n8k16 mma.sync, f32 sums; K fragments by ldmatrix
//   the online softmax on S's fragments: each row's maximum over the four
//                  lanes that hold it (shuffles); each lane keeps its own
//                  partial sums, combined once at the end
//   O += P V       the probabilities rounded to the tensors' type; an
//                  accumulator fragment pair is an A fragment as it stands,
//                  so P never leaves the registers; V fragments by
//                  ldmatrix.trans
//
// Fragment layouts (PTX ISA, mma.m16n8k16): lane l holds group g = l / 4
// and quad lane t = l % 4; an accumulator vector<2x2xf32> holds rows g and
// g + 8, columns 2t and 2t + 1; an A vector<4x2> rows g, g + 8, g, g + 8
// at columns 2t (first two) and 2t + 8 (last two); a B vector<2x2> column
// g at rows 2t and 2t + 8. Shared rows are padded by 16 bytes so that the
// eight row addresses of an ldmatrix fall into different banks.
//
//===----------------------------------------------------------------------===//

#include "fuse/Codegen/Attention.h"
#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace fuse;

namespace {
/// Builds one tensor-core attention kernel; its shapes and tiles are fixed.
class AttentionMmaBuilder : AttentionSizes {
public:
  AttentionMmaBuilder(OpBuilder &b, gpu::GPUFuncOp func, AttentionOp op,
                      KernelStrategyAttr strategy)
      : AttentionSizes(getAttentionSizes(op)), b(b), func(func), op(op),
        loc(op.getLoc()) {
    rows = strategy.getBlockTile()[0];
    cols = strategy.getBlockTile()[1];
    stages = strategy.getStages();
    threads = rows * 2;
    rowTiles = llvm::divideCeil(queries, rows);
    element = cast<ShapedType>(op.getQuery().getType()).getElementType();
  }

  LogicalResult build(KernelStrategyAttr strategy);

private:
  static constexpr int64_t kPad = 8;
  int64_t qStride() const { return d + kPad; }
  int64_t vStride() const { return dv + kPad; }

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, c(y)); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, c(y));
  }
  Value lessThan(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c(bound));
  }
  Value minIndex(Value x, int64_t bound) {
    return arith::MinUIOp::create(b, loc, x, c(bound));
  }
  /// `x` combined over the four lanes of a quad (the lanes holding one row
  /// of an accumulator fragment).
  Value combineQuad(Value x, bool max) {
    return combineAcrossLanes(b, loc, x, 4, max);
  }

  /// Copies rows [first, first + count) of tensor `which` (sequence
  /// positions, up to `limit`), `width` elements each, into `buffer` from
  /// element `offset` on, rows `stride` apart, 16 bytes a cp.async; rows
  /// past `limit` are zero-filled.
  void copyRows(Value buffer, Value offset, int64_t count, int64_t width,
                int64_t stride, unsigned which, Value first, int64_t limit,
                Value sample, Value head);
  /// An ldmatrix of `tiles` 8 x 8 matrices from `buffer`; `index` is the
  /// calling lane's row address.
  Value loadMatrix(Value buffer, Value index, int64_t tiles, bool transpose);

  OpBuilder &b;
  gpu::GPUFuncOp func;
  AttentionOp op;
  Location loc;
  Type element;
  int64_t rows, cols, stages, threads, rowTiles;
  Value tid;
};
} // namespace

void AttentionMmaBuilder::copyRows(Value buffer, Value offset, int64_t count,
                                   int64_t width, int64_t stride,
                                   unsigned which, Value first, int64_t limit,
                                   Value sample, Value head) {
  int64_t chunks = width / 8, total = count * chunks;
  for (int64_t round = 0; round * threads < total; ++round) {
    Value e = add(tid, round * threads);
    scf::IfOp inTile;
    OpBuilder::InsertionGuard guard(b);
    if ((round + 1) * threads > total) {
      inTile = scf::IfOp::create(b, loc, lessThan(e, total), false);
      b.setInsertionPointToStart(inTile.thenBlock());
    }
    Value row = arith::DivUIOp::create(b, loc, e, c(chunks));
    Value dim = mul(arith::RemUIOp::create(b, loc, e, c(chunks)), 8);
    Value position = add(first, row);
    // A row past the tensor's end reads nothing (its copy zero-fills) from
    // a row that exists.
    Value sources = arith::SelectOp::create(b, loc, lessThan(position, limit),
                                            c(8), c(0));
    SmallVector<Value, 4> from =
        getAttentionIndices(b, loc, op, which, sample,
                            minIndex(position, limit - 1), head, dim);
    Value to = add(add(offset, mul(row, stride)), dim);
    Value source = which == AttentionOp::kQuery ? op.getQuery()
                   : which == AttentionOp::kKey ? op.getKey()
                                                : op.getValue();
    nvgpu::DeviceAsyncCopyOp::create(b, loc, buffer, ValueRange{to}, source,
                                     from, b.getIndexAttr(8), sources,
                                     b.getUnitAttr());
  }
}

Value AttentionMmaBuilder::loadMatrix(Value buffer, Value index,
                                      int64_t tiles, bool transpose) {
  auto type = VectorType::get({tiles, 2}, element);
  return nvgpu::LdMatrixOp::create(b, loc, type, buffer, ValueRange{index},
                                   transpose, tiles);
}

LogicalResult AttentionMmaBuilder::build(KernelStrategyAttr strategy) {
  for (Value tensor : SmallVector<Value, 4>{op.getQuery(), op.getKey(),
                                            op.getValue(), op.getInto()}) {
    auto type = cast<MemRefType>(tensor.getType());
    if (!type.getElementType().isF16() && !type.getElementType().isBF16())
      return op.emitOpError("strategy ")
             << strategy << " needs f16 or bf16 tensors, not " << type;
    if (!type.getLayout().isIdentity())
      return op.emitOpError("strategy ")
             << strategy << " needs tensors in the identity layout, not "
             << type;
  }
  if (d % 16 != 0 || dv % 16 != 0)
    return op.emitOpError("strategy ")
           << strategy << " needs head sizes that are multiples of 16, not "
           << d << " and " << dv;
  if (cols % 16 != 0 || rows % 16 != 0 || threads != strategy.getBlock())
    return op.emitOpError("strategy ")
           << strategy << " needs a warp (32 threads) per 16 rows";
  int64_t blocks = rowTiles * batch * heads;
  if (strategy.getGrid() != blocks)
    return op.emitOpError("strategy ")
           << strategy << " launches " << strategy.getGrid()
           << " blocks but its " << batch * heads << " heads of " << queries
           << " rows need " << blocks;
  int64_t shared = getAttentionMmaSharedBytes(d, dv, rows, cols, stages);
  if (shared > kMaxStaticSharedBytes)
    return op.emitOpError("strategy ")
           << strategy << " needs " << shared
           << " bytes of shared memory, more than " << kMaxStaticSharedBytes;

  b.setInsertionPoint(op);
  Type f32 = b.getF32Type();
  auto accType = VectorType::get({2, 2}, f32);
  Value minusInf = f(-std::numeric_limits<float>::infinity());
  Value zero = f(0);

  // Block, warp and lane coordinates.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, tid, c(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, c(32));
  Value group = arith::DivUIOp::create(b, loc, lane, c(4));
  Value quadLane = arith::RemUIOp::create(b, loc, lane, c(4));
  // ldmatrix: lanes 0-7 address the rows of the first 8 x 8 matrix, 8-15
  // the second's...; an x2 load reads the addresses of lanes 0-15 only.
  Value matrixRow = arith::RemUIOp::create(b, loc, lane, c(8));
  Value matrixIndex = arith::DivUIOp::create(b, loc, lane, c(8));
  Value lane16 = arith::RemUIOp::create(b, loc, lane, c(16));
  Value rowTile = arith::RemUIOp::create(b, loc, bid, c(rowTiles));
  Value headIndex = arith::DivUIOp::create(b, loc, bid, c(rowTiles));
  Value head = arith::RemUIOp::create(b, loc, headIndex, c(heads));
  Value sample = arith::DivUIOp::create(b, loc, headIndex, c(heads));
  Value keyHead =
      groups == 1 ? head
                  : arith::DivUIOp::create(b, loc, head, c(groups)).getResult();
  Value rowBase = mul(rowTile, rows);
  Value warpRow = mul(warp, 16);

  Value queryTile = addSharedCopy(b, func, rows * qStride(), element, loc);
  Value keyTiles =
      addSharedCopy(b, func, stages * cols * qStride(), element, loc);
  Value valueTiles =
      addSharedCopy(b, func, stages * cols * vStride(), element, loc);
  auto copyKeyValueTile = [&](Value j0, Value stage) {
    copyRows(keyTiles, mul(stage, cols * qStride()), cols, d, qStride(),
             AttentionOp::kKey, j0, keys, sample, keyHead);
    copyRows(valueTiles, mul(stage, cols * vStride()), cols, dv, vStride(),
             AttentionOp::kValue, j0, keys, sample, keyHead);
  };

  // Q's rows (and with two stages the first K and V tiles), then each
  // warp's 16 rows of Q as A fragments, D / 16 of them.
  copyRows(queryTile, c(0), rows, d, qStride(), AttentionOp::kQuery, rowBase,
           queries, sample, head);
  if (stages == 2)
    copyKeyValueTile(c(0), c(0));
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> queryFragments;
  // Matrices 0-3: rows 0-7 and 8-15 at dims 0-7, then at dims 8-15.
  Value queryLaneRow = add(warpRow, lane16);
  Value queryLaneDim = mul(arith::DivUIOp::create(b, loc, lane, c(16)), 8);
  for (int64_t k = 0; k < d / 16; ++k)
    queryFragments.push_back(loadMatrix(
        queryTile,
        add(add(mul(queryLaneRow, qStride()), queryLaneDim), k * 16), 4,
        /*transpose=*/false));

  // The loop over key tiles carries each of the lane's two rows' maximum
  // and partial sum, and its output fragments (Dv / 8).
  SmallVector<Value> init = {minusInf, minusInf, zero, zero};
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, accType, DenseElementsAttr::get(accType, 0.0f));
  init.append(dv / 8, zeroAcc);
  auto tiles = scf::ForOp::create(b, loc, c(0), c(keys), c(cols), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tiles.getBody());
    Value j0 = tiles.getInductionVar();
    ValueRange carried = tiles.getRegionIterArgs();
    SmallVector<Value> maxes(carried.begin(), carried.begin() + 2);
    SmallVector<Value> sums(carried.begin() + 2, carried.begin() + 4);
    SmallVector<Value> acc(carried.begin() + 4, carried.end());

    Value stage = c(0);
    if (stages == 2) {
      // This tile's copies have landed (the previous iteration waited);
      // the next tile's go to the other stage, which the block finished
      // reading before the previous iteration's barrier.
      Value tileIndex = arith::DivUIOp::create(b, loc, j0, c(cols));
      stage = arith::RemUIOp::create(b, loc, tileIndex, c(2));
      Value next = add(j0, cols);
      auto hasNext = scf::IfOp::create(b, loc, lessThan(next, keys), false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(hasNext.thenBlock());
        copyKeyValueTile(next, arith::SubIOp::create(b, loc, c(1), stage));
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    } else {
      copyKeyValueTile(j0, stage);
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
      gpu::BarrierOp::create(b, loc);
    }
    Value keyOffset = mul(stage, cols * qStride());
    Value valueOffset = mul(stage, cols * vStride());

    // S = Q K^T: BC / 8 fragments of 16 rows x 8 keys. K is stored key
    // by key, which is the B operand's column-major layout: matrix 0 is
    // keys 0-7 at dims 0-7, matrix 1 the same keys at dims 8-15.
    Value keyLaneDim = mul(arith::RemUIOp::create(b, loc, matrixIndex, c(2)), 8);
    SmallVector<Value> scores;
    for (int64_t n = 0; n < cols / 8; ++n) {
      Value laneRow = add(keyOffset, mul(add(matrixRow, n * 8), qStride()));
      Value s = zeroAcc;
      for (int64_t k = 0; k < d / 16; ++k)
        s = emitMma16816(b, loc, queryFragments[k],
                         loadMatrix(keyTiles,
                                    add(add(laneRow, keyLaneDim), k * 16), 2,
                                    /*transpose=*/false),
                         s);
      scores.push_back(s);
    }

    // The online softmax, for each of the lane's rows g and g + 8.
    Value scale = arith::ConstantOp::create(b, loc, op.getScaleAttr());
    bool partialTile = keys % cols != 0;
    SmallVector<Value> corrections;
    // probabilities[n][r]: the lane's two probabilities of row r in
    // fragment n, rounded to the tensors' type.
    SmallVector<SmallVector<Value, 2>> probabilities(cols / 8);
    Value laneKey = add(j0, mul(quadLane, 2));
    for (int64_t r = 0; r < 2; ++r) {
      Value row = add(add(rowBase, warpRow), add(group, r * 8));
      Value maskRow = minIndex(row, queries - 1);
      SmallVector<Value> x;
      Value rowMax = minusInf;
      for (int64_t n = 0; n < cols / 8; ++n)
        for (int64_t cc = 0; cc < 2; ++cc) {
          Value key = add(laneKey, n * 8 + cc);
          Value score = arith::MulFOp::create(
              b, loc,
              vector::ExtractOp::create(b, loc, scores[n],
                                        ArrayRef<int64_t>{r, cc}),
              scale);
          if (op.getMask())
            score = arith::AddFOp::create(
                b, loc, score,
                loadAttentionMask(b, loc, op, sample, head, maskRow,
                                  minIndex(key, keys - 1)));
          if (partialTile)
            score = arith::SelectOp::create(b, loc, lessThan(key, keys),
                                            score, minusInf);
          x.push_back(score);
          rowMax = arith::MaximumFOp::create(b, loc, rowMax, score);
        }
      rowMax = combineQuad(rowMax, /*max=*/true);
      Value newMax = arith::MaximumFOp::create(b, loc, maxes[r], rowMax);
      Value base = getSoftmaxBase(b, loc, newMax);
      auto exp2Of = [&](Value v) { return emitExpAgainst(b, loc, v, base); };
      corrections.push_back(exp2Of(maxes[r]));
      Value rowSum = zero;
      for (int64_t n = 0; n < cols / 8; ++n) {
        for (int64_t cc = 0; cc < 2; ++cc) {
          Value p = exp2Of(x[n * 2 + cc]);
          rowSum = arith::AddFOp::create(b, loc, rowSum, p);
          probabilities[n].push_back(
              arith::TruncFOp::create(b, loc, element, p));
        }
      }
      sums[r] = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, sums[r], corrections[r]),
          rowSum);
      maxes[r] = newMax;
    }
    Value rescale = vector::FromElementsOp::create(
        b, loc, accType,
        ValueRange{corrections[0], corrections[0], corrections[1],
                   corrections[1]});
    for (Value &fragment : acc)
      fragment = arith::MulFOp::create(b, loc, fragment, rescale);

    // O += P V. The probabilities of keys 16k to 16k + 15 are fragments 2k
    // and 2k + 1, which together are the A fragment of that k step. V is
    // stored key by key (the B operand's row-major layout): ldmatrix.trans
    // of keys 0-7 and 8-15 at the fragment's 8 dims.
    for (int64_t k = 0; k < cols / 16; ++k) {
      SmallVector<Value> elements;
      for (int64_t n : {2 * k, 2 * k + 1})
        elements.append(probabilities[n].begin(), probabilities[n].end());
      // probabilities[n] is (row g: 2t, 2t + 1; row g + 8: 2t, 2t + 1).
      Value a = vector::FromElementsOp::create(
          b, loc, VectorType::get({4, 2}, element), elements);
      Value laneRow =
          add(valueOffset, mul(add(lane16, k * 16), vStride()));
      for (int64_t n = 0; n < dv / 8; ++n)
        acc[n] = emitMma16816(b, loc, a,
                              loadMatrix(valueTiles, add(laneRow, n * 8), 2,
                                         /*transpose=*/true),
                              acc[n]);
    }

    if (stages == 2)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    // Every warp is done with this tile's stage (and, with two stages,
    // the next tile is in shared memory).
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> next = maxes;
    next.append(sums);
    next.append(acc);
    scf::YieldOp::create(b, loc, next);
  }

  // Each row's outputs, normalized by the sum over its four lanes.
  ValueRange results = tiles.getResults();
  for (int64_t r = 0; r < 2; ++r) {
    Value row = add(add(rowBase, warpRow), add(group, r * 8));
    Value sum = combineQuad(results[2 + r], /*max=*/false);
    auto inRange =
        scf::IfOp::create(b, loc, lessThan(row, queries), /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(inRange.thenBlock());
    Value positive;
    Value factor = getAttentionRowFactor(b, loc, sum, positive);
    for (int64_t n = 0; n < dv / 8; ++n)
      for (int64_t cc = 0; cc < 2; ++cc) {
        Value value = finishAttentionOutput(
            b, loc, op,
            vector::ExtractOp::create(b, loc, results[4 + n],
                                      ArrayRef<int64_t>{r, cc}),
            factor, positive);
        Value dim = add(mul(quadLane, 2), n * 8 + cc);
        storeAttentionElement(b, loc, value, op.getInto(),
                              getAttentionIndices(b, loc, op,
                                                  AttentionOp::kResult,
                                                  sample, row, head, dim));
      }
  }
  op.erase();
  return success();
}

LogicalResult fuse::mapAttentionMmaTiles(OpBuilder &b, gpu::GPUFuncOp func,
                                         AttentionOp op,
                                         KernelStrategyAttr strategy) {
  AttentionMmaBuilder builder(b, func, op, strategy);
  return builder.build(strategy);
}
