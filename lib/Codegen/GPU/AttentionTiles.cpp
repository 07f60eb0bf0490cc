//===- AttentionTiles.cpp - fuse.attention, a block per tile of rows ------===//
//
// The `attention` mapping (see KernelStrategyAttr): block `bid` computes
// BR query rows of one (batch, head), the blocks of a head adjacent so
// that they read its K and V from L2 at about the same time. Its 256
// threads form a 16 x 16 grid: thread (ty, tx) holds rows ty * TR + r
// (TR = BR / 16) of the block, and of each key tile the columns tx * TC +
// c (TC = BC / 16) of the scores, of the output the columns tx * TD + c
// (TD = Dv / 16). Per key tile:
//
//   K^T and V tiles into shared memory        (Q^T is there from the start)
//   S = Q K^T, TR x TC scores a thread          (registers)
//   the online softmax: row maxima and sums over the row's 16 threads by
//   shuffles; the output rescaled when a row's maximum grows
//   P into shared memory, where K^T was; O += P V, TR x TD outputs a
//   thread (registers)
//
// so the score matrix never reaches global memory. Exponentials are
// exp2 of (s - max) * log2(e). A hand-written CUDA model of this kernel
// is bench/probes/attention_fp32.cu.
//
//===----------------------------------------------------------------------===//

#include "fuse/Codegen/Attention.h"
#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace fuse;

namespace {
/// Builds one attention kernel; its shapes and tile sizes are fixed.
class AttentionTileBuilder : AttentionSizes {
public:
  AttentionTileBuilder(OpBuilder &b, gpu::GPUFuncOp func, AttentionOp op,
                       KernelStrategyAttr strategy)
      : AttentionSizes(getAttentionSizes(op)), b(b), func(func), op(op),
        loc(op.getLoc()) {
    rows = strategy.getBlockTile()[0];
    cols = strategy.getBlockTile()[1];
    tr = rows / kSide;
    tc = cols / kSide;
    td = dv / kSide;
    rowTiles = llvm::divideCeil(queries, rows);
  }

  LogicalResult build(KernelStrategyAttr strategy);

private:
  static constexpr int64_t kSide = 16;
  static constexpr int64_t kThreads = kSide * kSide;
  /// The probabilities' rows: BC floats, in the K^T tile's buffer.
  int64_t pStride() const { return cols; }
  /// Where column `col` of a row of probabilities is: rows of odd thread
  /// rows have their halves (of up to 16 columns) swapped, so that the
  /// two thread rows of a warp, which read the same column of rows TR
  /// apart (the same bank without the swap), read different banks.
  Value swizzleColumn(Value col) {
    return arith::XOrIOp::create(b, loc, col, swizzle);
  }

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, c(y));
  }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  /// Loads as f32 (the op's tensors may be stored in f16 or bf16; shared
  /// memory holds f32) and stores narrowed to the buffer's type.
  Value load(Value buffer, ValueRange indices) {
    return loadAttentionElement(b, loc, buffer, indices);
  }
  void store(Value value, Value buffer, ValueRange indices) {
    storeAttentionElement(b, loc, value, buffer, indices);
  }
  Value lessThan(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c(bound));
  }
  /// `value` if `cond` (an i1), else `otherwise`: the load happens only
  /// under `cond`.
  Value loadIf(Value cond, Value buffer, ValueRange indices, float otherwise);
  /// Combines `x` over the 16 lanes of a row (aligned groups of 16 lanes
  /// in a warp): every lane gets the result.
  Value combineRow(Value x, bool max) {
    return combineAcrossLanes(b, loc, x, kSide, max);
  }

  /// A loop over k in [0, `extent`), `unroll` values of k an iteration,
  /// that adds the outer product of a column of TR values (`loadRow(k,
  /// r)`) and a row of `columns` values (`loadColumn(k, c)`) to the TR x
  /// `columns` accumulators it carries (starting at `init`, row-major).
  scf::ForOp buildOuterProducts(int64_t extent, int64_t unroll, ValueRange init,
                                int64_t columns,
                                function_ref<Value(Value, int64_t)> loadRow,
                                function_ref<Value(Value, int64_t)> loadColumn);

  /// Copies `count` elements of a tile into shared memory, `kThreads` at a
  /// time: element e (e = round * 256 + tid) is loaded by `emitLoad(e)`
  /// and stored by `emitStore(e, value)`; all of a group's loads are
  /// issued before its stores.
  void copyTile(int64_t count, function_ref<Value(Value)> emitLoad,
                function_ref<void(Value, Value)> emitStore);

  OpBuilder &b;
  gpu::GPUFuncOp func;
  AttentionOp op;
  Location loc;
  int64_t rows, cols, tr, tc, td, rowTiles;
  Value tid, swizzle;
};
} // namespace

Value AttentionTileBuilder::loadIf(Value cond, Value buffer, ValueRange indices,
                                   float otherwise) {
  auto branch = scf::IfOp::create(b, loc, TypeRange{b.getF32Type()}, cond,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(b, loc, load(buffer, indices));
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, f(otherwise));
  return branch.getResult(0);
}

scf::ForOp AttentionTileBuilder::buildOuterProducts(
    int64_t extent, int64_t unroll, ValueRange init, int64_t columns,
    function_ref<Value(Value, int64_t)> loadRow,
    function_ref<Value(Value, int64_t)> loadColumn) {
  auto loop = scf::ForOp::create(b, loc, c(0), c(extent), c(unroll), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> sums(loop.getRegionIterArgs());
  for (int64_t u = 0; u < unroll; ++u) {
    Value k = add(loop.getInductionVar(), c(u));
    SmallVector<Value> column, row;
    for (int64_t r = 0; r < tr; ++r)
      column.push_back(loadRow(k, r));
    for (int64_t cc = 0; cc < columns; ++cc)
      row.push_back(loadColumn(k, cc));
    for (int64_t r = 0; r < tr; ++r)
      for (int64_t cc = 0; cc < columns; ++cc)
        sums[r * columns + cc] =
            fma(column[r], row[cc], sums[r * columns + cc]);
  }
  scf::YieldOp::create(b, loc, sums);
  return loop;
}

void AttentionTileBuilder::copyTile(
    int64_t count, function_ref<Value(Value)> emitLoad,
    function_ref<void(Value, Value)> emitStore) {
  int64_t rounds = llvm::divideCeil(count, kThreads);
  emitRoundGroups(b, loc, rounds, [&](Value first, int64_t n) {
    SmallVector<std::pair<Value, Value>> loaded;
    for (int64_t r = 0; r < n; ++r) {
      Value e = emitRoundElement(b, loc, first, r, kThreads, tid, 1);
      // Rounds past the tile (the last group's, or a partial last round)
      // load nothing; their stores are skipped below.
      Value inTile = lessThan(e, count);
      auto branch = scf::IfOp::create(b, loc, TypeRange{b.getF32Type()}, inTile,
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        scf::YieldOp::create(b, loc, emitLoad(e));
        b.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(b, loc, f(0));
      }
      loaded.push_back({e, branch.getResult(0)});
    }
    for (auto [e, value] : loaded) {
      auto branch =
          scf::IfOp::create(b, loc, lessThan(e, count), /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      emitStore(e, value);
    }
  });
}

LogicalResult AttentionTileBuilder::build(KernelStrategyAttr strategy) {
  if (dv % kSide != 0 || rows % kSide != 0 || cols % kSide != 0)
    return op.emitOpError("strategy ")
           << strategy << " needs a value head size (" << dv
           << ") and block_tile sizes that are multiples of " << kSide;
  int64_t blocks = rowTiles * batch * heads;
  if (strategy.getGrid() != blocks)
    return op.emitOpError("strategy ")
           << strategy << " launches " << strategy.getGrid()
           << " blocks but its " << batch * heads << " heads of " << queries
           << " rows need " << blocks;
  if (strategy.getBlock() != kThreads)
    return op.emitOpError("strategy ")
           << strategy << " must have blocks of " << kThreads << " threads";
  if (getAttentionSharedFloats(d, dv, rows, cols) * 4 > kMaxStaticSharedBytes)
    return op.emitOpError("strategy ")
           << strategy << " needs "
           << getAttentionSharedFloats(d, dv, rows, cols) * 4
           << " bytes of shared memory, more than " << kMaxStaticSharedBytes;

  b.setInsertionPoint(op);
  Type f32 = b.getF32Type();
  Value minusInf = f(-std::numeric_limits<float>::infinity());
  Value zero = f(0);
  Value queryBuf = op.getQuery(), keyBuf = op.getKey(),
        valueBuf = op.getValue(), out = op.getInto();

  // Block and thread coordinates.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value tx = arith::RemUIOp::create(b, loc, tid, c(kSide));
  Value ty = arith::DivUIOp::create(b, loc, tid, c(kSide));
  Value rowTile = arith::RemUIOp::create(b, loc, bid, c(rowTiles));
  Value headIndex = arith::DivUIOp::create(b, loc, bid, c(rowTiles));
  Value head = arith::RemUIOp::create(b, loc, headIndex, c(heads));
  Value sample = arith::DivUIOp::create(b, loc, headIndex, c(heads));
  Value keyHead =
      groups == 1 ? head
                  : arith::DivUIOp::create(b, loc, head, c(groups)).getResult();
  Value rowBase = mul(rowTile, rows);

  // The probabilities take the K^T tile's place once the scores are in
  // registers: 64 x 64 tiles of a head size of 64 fit 48 KB this way.
  Value queryT = addSharedCopy(b, func, d * rows, f32, loc);
  Value keyT = addSharedCopy(b, func, std::max(d, rows) * cols, f32, loc);
  Value valueTile = addSharedCopy(b, func, cols * dv, f32, loc);
  Value probabilities = keyT;
  swizzle = mul(arith::AndIOp::create(b, loc, ty, c(1)),
                std::min<int64_t>(16, cols / 2));

  // Q^T, scaled: element e is row e % BR (adjacent threads, adjacent
  // shared addresses), dim e / BR.
  Value scale = arith::ConstantOp::create(b, loc, op.getScaleAttr());
  copyTile(
      rows * d,
      [&](Value e) {
        Value r = arith::RemUIOp::create(b, loc, e, c(rows));
        Value dim = arith::DivUIOp::create(b, loc, e, c(rows));
        Value i = add(rowBase, r);
        Value x = loadIf(lessThan(i, queries), queryBuf,
                         getAttentionIndices(b, loc, op, AttentionOp::kQuery,
                                             sample, i, head, dim),
                         0);
        return arith::MulFOp::create(b, loc, x, scale).getResult();
      },
      [&](Value e, Value x) { store(x, queryT, e); });

  // The loop over key tiles carries each row's maximum and sum, and the
  // thread's outputs.
  SmallVector<Value> init;
  init.append(tr, minusInf);
  init.append(tr, zero);
  init.append(tr * td, zero);
  auto tiles = scf::ForOp::create(b, loc, c(0), c(keys), c(cols), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(tiles.getBody());
    Value j0 = tiles.getInductionVar();
    ValueRange carried = tiles.getRegionIterArgs();
    SmallVector<Value> maxes(carried.begin(), carried.begin() + tr);
    SmallVector<Value> sums(carried.begin() + tr, carried.begin() + 2 * tr);
    SmallVector<Value> acc(carried.begin() + 2 * tr, carried.end());

    // The previous tile's readers are done (and Q^T is stored).
    gpu::BarrierOp::create(b, loc);
    // K^T: element e is dim e % 4 of a group of 4 dims of key (e / 4) %
    // BC, group e / (4 BC): a warp's loads read 16 bytes of each of 8 keys
    // (8 cache lines, not 32 with a key per lane), its stores fall 4 to a
    // bank (not 32 with a dim per lane). A head size that is no multiple
    // of 4: key e % BC, dim e / BC.
    int64_t quad = d % 4 == 0 ? 4 : 1;
    // Element e's key (in the tile) and dim.
    auto keyElement = [&](Value e) -> std::pair<Value, Value> {
      Value group = arith::DivUIOp::create(b, loc, e, c(quad));
      Value key = arith::RemUIOp::create(b, loc, group, c(cols));
      Value dim = add(mul(arith::DivUIOp::create(b, loc, group, c(cols)), quad),
                      arith::RemUIOp::create(b, loc, e, c(quad)));
      return {key, dim};
    };
    copyTile(
        cols * d,
        [&](Value e) {
          auto [tileKey, dim] = keyElement(e);
          Value key = add(j0, tileKey);
          return loadIf(lessThan(key, keys), keyBuf,
                        getAttentionIndices(b, loc, op, AttentionOp::kKey,
                                            sample, key, keyHead, dim),
                        0);
        },
        [&](Value e, Value x) {
          auto [key, dim] = keyElement(e);
          store(x, keyT, add(mul(dim, cols), key));
        });
    // V: element e is key e / Dv, dim e % Dv (coalesced, conflict-free).
    copyTile(
        cols * dv,
        [&](Value e) {
          Value key = add(j0, arith::DivUIOp::create(b, loc, e, c(dv)));
          Value dim = arith::RemUIOp::create(b, loc, e, c(dv));
          return loadIf(lessThan(key, keys), valueBuf,
                        getAttentionIndices(b, loc, op, AttentionOp::kValue,
                                            sample, key, keyHead, dim),
                        0);
        },
        [&](Value e, Value x) { store(x, valueTile, e); });
    gpu::BarrierOp::create(b, loc);

    // S = Q K^T: TR x TC scores, `unroll` dims an iteration.
    Value rowOffset = mul(ty, tr), colOffset = mul(tx, tc);
    auto dot = buildOuterProducts(
        d, d % 4 == 0 ? 4 : 1, SmallVector<Value>(tr * tc, zero), tc,
        [&](Value dim, int64_t r) {
          return load(queryT, add(add(mul(dim, rows), rowOffset), c(r)));
        },
        [&](Value dim, int64_t cc) {
          return load(keyT, add(add(mul(dim, cols), colOffset), c(cc)));
        });

    // Every thread's scores are in registers: the K^T tile's buffer is
    // free for the probabilities.
    gpu::BarrierOp::create(b, loc);

    // The online softmax, a row at a time.
    bool partialTile = keys % cols != 0;
    // A mask the same for every row (padding, [B, 1, 1, Skv]) is loaded
    // once per key, not once per score.
    SmallVector<Value> keyMask;
    auto maskAt = [&](Value row, int64_t cc) -> Value {
      if (!keyMask.empty())
        return keyMask[cc];
      Value key = add(add(j0, colOffset), c(cc));
      Value maskKey =
          partialTile
              ? arith::MinUIOp::create(b, loc, key, c(keys - 1)).getResult()
              : key;
      return loadAttentionMask(b, loc, op, sample, head, row, maskKey);
    };
    if (op.getMask() &&
        cast<ShapedType>(op.getMask().getType()).getShape()[2] == 1) {
      SmallVector<Value> loaded;
      for (int64_t cc = 0; cc < tc; ++cc)
        loaded.push_back(maskAt(c(0), cc));
      keyMask = std::move(loaded);
    }
    for (int64_t r = 0; r < tr; ++r) {
      Value i = add(add(rowBase, rowOffset), c(r));
      // A row past the queries reads the mask at a row that exists; its
      // outputs are not stored.
      Value maskRow = arith::MinUIOp::create(b, loc, i, c(queries - 1));
      SmallVector<Value> scores;
      Value rowMax = minusInf;
      for (int64_t cc = 0; cc < tc; ++cc) {
        Value key = add(add(j0, colOffset), c(cc));
        Value score = dot.getResult(r * tc + cc);
        Value inRange;
        if (partialTile)
          inRange = lessThan(key, keys);
        if (op.getMask())
          score = arith::AddFOp::create(b, loc, score, maskAt(maskRow, cc));
        if (inRange)
          score = arith::SelectOp::create(b, loc, inRange, score, minusInf);
        scores.push_back(score);
        rowMax = arith::MaximumFOp::create(b, loc, rowMax, score);
      }
      rowMax = combineRow(rowMax, /*max=*/true);
      Value newMax = arith::MaximumFOp::create(b, loc, maxes[r], rowMax);
      Value base = getSoftmaxBase(b, loc, newMax);
      auto exp2Of = [&](Value x) { return emitExpAgainst(b, loc, x, base); };
      Value correction = exp2Of(maxes[r]);
      Value rowSum = zero;
      Value pBase = mul(add(rowOffset, c(r)), pStride());
      for (int64_t cc = 0; cc < tc; ++cc) {
        Value e = exp2Of(scores[cc]);
        store(e, probabilities,
              add(pBase, swizzleColumn(add(colOffset, c(cc)))));
        rowSum = arith::AddFOp::create(b, loc, rowSum, e);
      }
      rowSum = combineRow(rowSum, /*max=*/false);
      sums[r] = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, sums[r], correction), rowSum);
      maxes[r] = newMax;
      for (int64_t cc = 0; cc < td; ++cc)
        acc[r * td + cc] =
            arith::MulFOp::create(b, loc, acc[r * td + cc], correction);
    }
    gpu::BarrierOp::create(b, loc);

    // O += P V: TR x TD outputs, 4 keys an iteration.
    Value outOffset = mul(tx, td);
    auto pv = buildOuterProducts(
        cols, 4, acc, td,
        [&](Value key, int64_t r) {
          return load(probabilities, add(mul(add(rowOffset, c(r)), pStride()),
                                         swizzleColumn(key)));
        },
        [&](Value key, int64_t cc) {
          return load(valueTile, add(add(mul(key, dv), outOffset), c(cc)));
        });
    SmallVector<Value> next = maxes;
    next.append(sums);
    next.append(pv.getResults().begin(), pv.getResults().end());
    scf::YieldOp::create(b, loc, next);
  }

  // Each row's outputs, normalized.
  ValueRange results = tiles.getResults();
  Value rowOffset = mul(ty, tr), outOffset = mul(tx, td);
  for (int64_t r = 0; r < tr; ++r) {
    Value i = add(add(rowBase, rowOffset), c(r));
    auto inRange =
        scf::IfOp::create(b, loc, lessThan(i, queries), /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(inRange.thenBlock());
    Value positive;
    Value factor = getAttentionRowFactor(b, loc, results[tr + r], positive);
    for (int64_t cc = 0; cc < td; ++cc) {
      Value value = finishAttentionOutput(
          b, loc, op, results[2 * tr + r * td + cc], factor, positive);
      store(value, out,
            getAttentionIndices(b, loc, op, AttentionOp::kResult, sample, i,
                                head, add(outOffset, c(cc))));
    }
  }
  op.erase();
  return success();
}

LogicalResult fuse::mapAttentionTiles(OpBuilder &b, gpu::GPUFuncOp func,
                                      AttentionOp op,
                                      KernelStrategyAttr strategy) {
  AttentionTileBuilder builder(b, func, op, strategy);
  return builder.build(strategy);
}
