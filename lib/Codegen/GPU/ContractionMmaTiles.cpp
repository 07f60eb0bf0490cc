//===- ContractionMmaTiles.cpp - Contractions on tensor cores -------------===//
//
// The `mma` mapping (see KernelStrategyAttr): the kernel of a MatMul or
// Gemm of f16 or bf16 operands, whose parallel loop computes one output an
// iteration: a reduction loop adding products of an element of A and one
// of B into an f32 sum, then the epilogue on the sum, then its stores. The
// loop's last two dims are the product's rows (M) and columns (N); each
// index of the dims before them (batch dims) has block tiles of its own.
//
// Block `bid` computes BM x BN outputs, each of its warps a WM x WN part
// (getMmaWarpGrid) as (WM / 16) x (WN / 8) m16n8k16 accumulators. The
// reduction runs BK steps a chunk: the block copies the chunk's rows of A
// (BM x BK) and of B (BK x BN, or BN x BK when B holds the reduction dim
// innermost) into shared memory with cp.async, 16 bytes a copy, rows
// padded by 16 bytes so that ldmatrix's eight row addresses fall into
// different banks; with `stages` buffers the copies of the next `stages -
// 1` chunks are in flight while the warps compute one. A warp reads A
// fragments by ldmatrix (x4: 16 rows x 16 steps) and B fragments by
// ldmatrix.trans when B's rows are reduction steps, else by ldmatrix (x4:
// 16 steps x 16 columns). A copy past an operand's end reads nothing and
// writes zeros: partial tiles and a partial last chunk add nothing.
//
// Then each sum, added to the reduction's initial value, goes through the
// loop body's epilogue (its ops other than the reduction loop, cloned per
// sum with the sum's row and column); the stores come after all the sums'
// epilogues, guarded where the block tile may pass the loop's end.
// Fragment layouts are those of AttentionMmaTiles.cpp.
//
// With `split_k = S` (sm_90) the S consecutive blocks of a cluster share a
// block tile, block r running chunks [r C / S, (r + 1) C / S) of the C;
// their sums meet in shared memory across the cluster (`mapa`), and each
// block puts every S-th fragment of the tile through the epilogue.
//
//===----------------------------------------------------------------------===//

#include "ContractionAccess.h"
#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::contraction;

namespace {
/// An operand of the product as the mapping copies it.
struct MmaOperand {
  Access access;
  /// The function argument, as one dim, and the strides of the view the
  /// loop indexes (a reshape keeps the order of the elements).
  Value flat;
  SmallVector<int64_t> strides;
  /// Whether the shared copy's rows are reduction steps (B as K x N), not
  /// rows or columns of the product (A as M x K, B as N x K).
  bool rowsAreSteps = false;
};

/// The product the kernel's loop computes.
struct MmaProduct {
  scf::ForOp reduction;
  int64_t steps = 0;
  MmaOperand a, b;
  Type element;
};
} // namespace

/// The load `value` is (through an extension to f32), or null.
static memref::LoadOp getLoadedElement(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    value = ext.getIn();
  return value.getDefiningOp<memref::LoadOp>();
}

/// Matches the product in `loop`: one reduction loop directly in its body,
/// from 0 by 1, carrying one f32 sum (from zero, or a Gemm's C), whose
/// body adds the product of two loads of f16 or bf16 (extended) and does
/// nothing else;
/// A indexed by the loop's row dim and the reduction (innermost), B by
/// the column dim and the reduction, the reduction or the column dim its
/// innermost. The error says what is missing.
static FailureOr<MmaProduct> matchProduct(scf::ParallelOp loop,
                                          ArrayRef<int64_t> extents) {
  auto fail = [&](const Twine &why) {
    return loop.emitOpError("cannot run as an mma contraction: ") << why;
  };
  int64_t rank = extents.size();
  if (rank < 2)
    return fail("its loop has fewer than two dims (rows and columns)");
  auto fors = llvm::to_vector(loop.getBody()->getOps<scf::ForOp>());
  if (fors.size() != 1)
    return fail("its loop body has no single reduction loop");
  MmaProduct product;
  scf::ForOp reduction = product.reduction = fors.front();
  std::optional<int64_t> lower = getConstantIntValue(reduction.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(reduction.getUpperBound());
  if (lower != 0 || !upper || getConstantIntValue(reduction.getStep()) != 1)
    return fail("its reduction loop does not run from 0 to a constant by 1");
  product.steps = *upper;
  if (reduction.getNumRegionIterArgs() != 1 ||
      !reduction.getRegionIterArgs()[0].getType().isF32())
    return fail("its reduction loop does not carry one f32 sum");
  Value sum = reduction.getRegionIterArgs()[0];
  auto yield = cast<scf::YieldOp>(reduction.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  arith::MulFOp mul;
  if (add && add.getLhs() == sum)
    mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  else if (add && add.getRhs() == sum)
    mul = add.getLhs().getDefiningOp<arith::MulFOp>();
  memref::LoadOp lhs = mul ? getLoadedElement(mul.getLhs()) : nullptr;
  memref::LoadOp rhs = mul ? getLoadedElement(mul.getRhs()) : nullptr;
  if (!lhs || !rhs)
    return fail("its reduction loop does not add a product of two loads");
  product.element = lhs.getType();
  if (lhs.getType() != rhs.getType() ||
      !(product.element.isF16() || product.element.isBF16()))
    return fail("its operands are not both f16 or both bf16");
  // Nothing else: the loads, their extensions, the product, the sum and
  // index arithmetic.
  for (Operation &op : reduction.getBody()->without_terminator()) {
    if (&op == lhs || &op == rhs || &op == mul || &op == add ||
        (isa<arith::ExtFOp>(op) &&
         llvm::is_contained(mul->getOperands(), op.getResult(0))))
      continue;
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        llvm::any_of(op.getResultTypes(), [](Type t) { return !t.isIndex(); }))
      return fail("its reduction loop computes more than a product's sum");
  }

  SmallVector<int64_t> ones(rank, 1);
  SmallVector<Value> ivs(loop.getInductionVars());
  Value k = reduction.getInductionVar();
  int64_t rowDim = rank - 2, colDim = rank - 1;
  auto uses = [](const Access &access, DimKind kind, int64_t loopDim) {
    return llvm::count_if(access.dims, [&](const DimUse &use) {
      return use.kind == kind &&
             (kind != DimKind::Loop || use.loopDim == loopDim);
    });
  };
  bool haveA = false, haveB = false;
  for (memref::LoadOp load : {lhs, rhs}) {
    std::optional<Access> access = getAccess(load, ivs, k, ones);
    if (!access || uses(*access, DimKind::Reduction, -1) != 1 ||
        !isOnlyRead(getReshapedArgument(access->buffer)))
      return fail("an operand is not a kernel argument read at the loop's "
                  "indices and the reduction's");
    bool byRow = uses(*access, DimKind::Loop, rowDim) != 0;
    bool byCol = uses(*access, DimKind::Loop, colDim) != 0;
    if (byRow == byCol)
      return fail("an operand is indexed by both or neither of the loop's "
                  "last two dims");
    MmaOperand &operand = byRow ? product.a : product.b;
    (byRow ? haveA : haveB) = true;
    operand.access = std::move(*access);
    auto type = cast<MemRefType>(operand.access.buffer.getType());
    const DimUse &inner = operand.access.dims.back();
    if (inner.kind != DimKind::Reduction &&
        !(!byRow && inner.kind == DimKind::Loop && inner.loopDim == colDim))
      return fail(byRow ? "A's innermost dim is not the reduction"
                        : "B's innermost dim is neither the reduction nor "
                          "the columns");
    // 16-byte copies: rows that start 16-byte aligned, whole copies.
    int64_t innerExtent =
        inner.kind == DimKind::Reduction ? product.steps : extents[colDim];
    if (type.getShape().back() % 8 != 0 || innerExtent % 8 != 0)
      return fail("an operand's rows are not multiples of 8 elements");
    operand.rowsAreSteps = inner.kind != DimKind::Reduction;
    operand.strides = computeStrides(type.getShape());
  }
  if (!haveA || !haveB)
    return fail("it has no operand for the rows or for the columns");
  return product;
}

FailureOr<int64_t> fuse::getMmaGridSize(scf::ParallelOp loop,
                                        KernelStrategyAttr strategy) {
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return loop.emitOpError("needs constant bounds for the mma mapping");
  ArrayRef<int64_t> extents = bounds->extents;
  int64_t rank = extents.size();
  if (rank < 2)
    return loop.emitOpError("needs a loop of two dims or more (rows and "
                            "columns) for ")
           << strategy;
  for (auto [lb, step] : llvm::zip(bounds->lbs, bounds->steps))
    if (lb != 0 || step != 1)
      return loop.emitOpError("needs a loop from 0 by 1 for ") << strategy;
  ArrayRef<int64_t> blockTile = strategy.getBlockTile();
  return computeProduct(extents.drop_back(2)) *
         llvm::divideCeil(extents[rank - 2], blockTile[0]) *
         llvm::divideCeil(extents[rank - 1], blockTile[1]) *
         strategy.getSplitK();
}

LogicalResult fuse::distributeMmaTiles(OpBuilder &b, gpu::GPUFuncOp func,
                                       scf::ParallelOp loop,
                                       KernelStrategyAttr strategy) {
  if (failed(getMmaGridSize(loop, strategy)))
    return failure();
  SmallVector<int64_t> extents = getLoopBounds(loop)->extents;
  FailureOr<MmaProduct> matched = matchProduct(loop, extents);
  if (failed(matched))
    return failure();
  MmaProduct &product = *matched;
  Location loc = loop.getLoc();
  int64_t rank = extents.size(), rows = extents[rank - 2],
          cols = extents[rank - 1], steps = product.steps;
  int64_t blockRows = strategy.getBlockTile()[0];
  int64_t blockCols = strategy.getBlockTile()[1];
  int64_t kTile = strategy.getKTile(), stages = strategy.getStages();
  int64_t threads = strategy.getBlock();
  MmaWarpGrid warps = *getMmaWarpGrid(blockRows, blockCols, threads / 32);
  int64_t rowFragments = warps.warpRows / 16, colFragments = warps.warpCols / 8;
  bool partialRows = rows % blockRows != 0, partialCols = cols % blockCols != 0;
  bool partialChunk = steps % kTile != 0;
  int64_t chunks = llvm::divideCeil(steps, kTile);
  // Each block of a cluster runs `sliceChunks` consecutive chunks.
  int64_t splitK = strategy.getSplitK();
  if (chunks % splitK != 0)
    return loop.emitOpError("cannot split the ")
           << chunks << " chunks of its reduction among " << splitK
           << " blocks of a cluster (" << strategy << ")";
  int64_t sliceChunks = chunks / splitK;

  b.setInsertionPoint(loop);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto addc = [&](Value x, int64_t y) { return y == 0 ? x : add(x, c(y)); };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, c(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, c(y));
  };
  auto lessThan = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c(bound));
  };
  auto minIndex = [&](Value x, int64_t bound) -> Value {
    return arith::MinUIOp::create(b, loc, x, c(bound));
  };
  // `all` and `cond` (`cond` alone when there is no `all` yet).
  auto conjoin = [&](Value all, Value cond) -> Value {
    return all ? arith::AndIOp::create(b, loc, all, cond).getResult() : cond;
  };

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // A cluster's blocks are consecutive: the block's slice of the reduction
  // is its rank in the cluster.
  Value slice = c(0);
  if (splitK > 1) {
    slice = rem(bid, splitK);
    bid = div(bid, splitK);
  }
  Value firstChunk = mul(slice, sliceChunks);
  Value warp = div(tid, 32), lane = rem(tid, 32);
  Value group = div(lane, 4), quadLane = rem(lane, 4);
  Value lane16 = rem(lane, 16), laneHalf = div(lane, 16);
  Value lane8 = rem(lane, 8), laneMatrix = div(lane, 8);
  // Blocks: the batch dims row-major, then row tiles, then column tiles.
  SmallVector<int64_t> gridExtents(extents.begin(), extents.end() - 2);
  gridExtents.push_back(llvm::divideCeil(rows, blockRows));
  gridExtents.push_back(llvm::divideCeil(cols, blockCols));
  SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
  SmallVector<Value> blockIndex(rank);
  delinearize(b, loc, bid, LoopBounds{zeros, ones, gridExtents}, 0, rank,
              blockIndex);
  Value rowBase = mul(blockIndex[rank - 2], blockRows);
  Value colBase = mul(blockIndex[rank - 1], blockCols);
  Value warpRow = mul(div(warp, warps.cols), warps.warpRows);
  Value warpCol = mul(rem(warp, warps.cols), warps.warpCols);

  // Shared copies: `stages` buffers of each operand's chunk.
  auto sharedShape = [&](const MmaOperand &operand, int64_t tileExtent) {
    // (rows, row stride)
    return operand.rowsAreSteps
               ? std::pair<int64_t, int64_t>{kTile, tileExtent + 8}
               : std::pair<int64_t, int64_t>{tileExtent, kTile + 8};
  };
  auto [aRows, aStride] = sharedShape(product.a, blockRows);
  auto [bRows, bStride] = sharedShape(product.b, blockCols);
  int64_t aElements = aRows * aStride, bElements = bRows * bStride;
  Value aShared =
      addSharedCopy(b, func, stages * aElements, product.element, loc);
  Value bShared =
      addSharedCopy(b, func, stages * bElements, product.element, loc);
  for (MmaOperand *operand : {&product.a, &product.b})
    operand->flat =
        collapseToFlat(b, loc, getReshapedArgument(operand->access.buffer));

  // Copies the chunk at reduction step `k0` of `operand` (whose tile
  // starts at `base` along its loop dim, of `extent` there and `tile` in
  // the block) into `shared` from `offset` on.
  auto copyChunk = [&](const MmaOperand &operand, Value shared, Value offset,
                       Value k0, Value base, int64_t loopDim, int64_t extent,
                       int64_t tile) {
    auto [copyRows, stride] = sharedShape(operand, tile);
    int64_t perRow = (stride - 8) / 8, total = copyRows * perRow;
    bool partialTile = extent % tile != 0;
    for (int64_t round = 0; round * threads < total; ++round) {
      OpBuilder::InsertionGuard guard(b);
      Value e = addc(tid, round * threads);
      if ((round + 1) * threads > total) {
        auto inRange = scf::IfOp::create(b, loc, lessThan(e, total), false);
        b.setInsertionPointToStart(inRange.thenBlock());
      }
      Value row = div(e, perRow), within = mul(rem(e, perRow), 8);
      // The step and the row or column this copy reads.
      Value step = add(k0, operand.rowsAreSteps ? row : within);
      Value at = add(base, operand.rowsAreSteps ? within : row);
      Value inside;
      if (partialChunk)
        inside = lessThan(step, steps);
      if (partialTile)
        inside = conjoin(inside, lessThan(at, extent));
      Value from = c(0);
      for (auto [d, use] : llvm::enumerate(operand.access.dims)) {
        Value index;
        bool innermost = d + 1 == operand.access.dims.size();
        // (Clamped only where a copy may pass the end: the address is
        // otherwise the chunk's offset plus what the loop does not change.)
        switch (use.kind) {
        case DimKind::Reduction:
          index = partialChunk ? minIndex(step, steps - (innermost ? 8 : 1))
                               : step;
          break;
        case DimKind::Loop:
          if (use.loopDim != loopDim)
            index = blockIndex[use.loopDim];
          else
            index = partialTile ? minIndex(at, extent - (innermost ? 8 : 1))
                                : at;
          break;
        case DimKind::Fixed:
          index = c(use.constant);
          break;
        }
        from = add(from, mul(index, operand.strides[d]));
      }
      Value to = add(offset, add(mul(row, stride), within));
      Value sources =
          inside
              ? arith::SelectOp::create(b, loc, inside, c(8), c(0)).getResult()
              : Value();
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, shared, ValueRange{to}, operand.flat, ValueRange{from},
          b.getIndexAttr(8), sources, b.getUnitAttr());
    }
  };
  auto copyChunks = [&](Value chunk, Value buffer) {
    Value k0 = mul(chunk, kTile);
    copyChunk(product.a, aShared, mul(buffer, aElements), k0, rowBase, rank - 2,
              rows, blockRows);
    copyChunk(product.b, bShared, mul(buffer, bElements), k0, colBase, rank - 1,
              cols, blockCols);
  };

  // The first `stages - 1` chunks, a commit group each (empty past the
  // end, so that every iteration waits for the same count).
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < sliceChunks)
      copyChunks(addc(firstChunk, s), c(s));
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  Type f32 = b.getF32Type();
  auto accType = VectorType::get({2, 2}, f32);
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, accType, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> inits(rowFragments * colFragments, zeroAcc);
  auto chunkLoop =
      scf::ForOp::create(b, loc, c(0), c(sliceChunks), c(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    Value chunk = chunkLoop.getInductionVar();
    SmallVector<Value> acc(chunkLoop.getRegionIterArgs());
    // This chunk's group has landed once at most `stages - 2` are in
    // flight; the barrier also frees the buffer the previous iteration
    // read, which the next copies go to.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value next = addc(chunk, stages - 1);
    auto hasNext =
        scf::IfOp::create(b, loc, lessThan(next, sliceChunks), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(hasNext.thenBlock());
      copyChunks(add(firstChunk, next), rem(next, stages));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    Value buffer = rem(chunk, stages);
    Value aBase = mul(buffer, aElements), bBase = mul(buffer, bElements);
    auto loadMatrix = [&](Value shared, Value index, bool transpose) {
      return nvgpu::LdMatrixOp::create(b, loc,
                                       VectorType::get({4, 2}, product.element),
                                       shared, ValueRange{index}, transpose, 4);
    };
    // Matrices `first` and `first + 1` of an x4 load, as one B fragment.
    auto half = [&](Value matrices, int64_t first) -> Value {
      SmallVector<Value, 4> elements;
      for (int64_t i = first; i < first + 2; ++i)
        for (int64_t j = 0; j < 2; ++j)
          elements.push_back(vector::ExtractOp::create(
              b, loc, matrices, ArrayRef<int64_t>{i, j}));
      return vector::FromElementsOp::create(
          b, loc, VectorType::get({2, 2}, product.element), elements);
    };
    for (int64_t kk = 0; kk < kTile / 16; ++kk) {
      // A fragments: matrices 0-3 are rows 0-7 and 8-15 at steps 0-7,
      // then at steps 8-15; lane l addresses row l % 16, steps 8 (l / 16).
      SmallVector<Value> aFragments;
      for (int64_t m = 0; m < rowFragments; ++m) {
        Value row = add(warpRow, addc(lane16, m * 16));
        Value index =
            add(aBase, add(mul(row, aStride), addc(mul(laneHalf, 8), kk * 16)));
        aFragments.push_back(loadMatrix(aShared, index, false));
      }
      // B fragments, two column tiles an ldmatrix: matrices 0-1 are steps
      // 0-7 and 8-15 of columns 0-7, matrices 2-3 the same of columns
      // 8-15.
      SmallVector<Value> bFragments;
      for (int64_t n = 0; n < colFragments; n += 2) {
        Value index;
        if (product.b.rowsAreSteps) {
          // Rows are steps: lane l addresses step l % 16, columns 8 (l / 16).
          Value step = addc(lane16, kk * 16);
          Value col = add(warpCol, addc(mul(laneHalf, 8), n * 8));
          index = add(bBase, add(mul(step, bStride), col));
        } else {
          // Rows are columns: lane l addresses column l % 8 + 8 (l / 16),
          // steps 8 ((l / 8) % 2).
          Value col = add(warpCol, add(lane8, addc(mul(laneHalf, 8), n * 8)));
          Value step = addc(mul(rem(laneMatrix, 2), 8), kk * 16);
          index = add(bBase, add(mul(col, bStride), step));
        }
        Value matrices = loadMatrix(bShared, index, product.b.rowsAreSteps);
        bFragments.push_back(half(matrices, 0));
        bFragments.push_back(half(matrices, 2));
      }
      for (int64_t m = 0; m < rowFragments; ++m)
        for (int64_t n = 0; n < colFragments; ++n) {
          Value &sums = acc[m * colFragments + n];
          sums = emitMma16816(b, loc, aFragments[m], bFragments[n], sums);
        }
    }
    scf::YieldOp::create(b, loc, acc);
  }
  // Nothing real is in flight (the groups past the last chunk are empty).
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // The sums a thread puts through the epilogue, a fragment (16 x 8 sums
  // of its warp, 2 x 2 of them the lane's) at a time: where the fragment
  // is in the warp's tile, its sums, and whether there is one (null:
  // always).
  struct FragmentSums {
    OpFoldResult row, col;
    Value sums, valid;
  };
  SmallVector<FragmentSums> fragments;
  int64_t warpFragments = rowFragments * colFragments;
  auto addOfr = [&](Value x, OpFoldResult y) -> Value {
    if (std::optional<int64_t> constant = getConstantIntValue(y))
      return addc(x, *constant);
    return add(x, cast<Value>(y));
  };
  if (splitK == 1) {
    for (int64_t m = 0; m < rowFragments; ++m)
      for (int64_t n = 0; n < colFragments; ++n)
        fragments.push_back({b.getIndexAttr(m * 16), b.getIndexAttr(n * 8),
                             chunkLoop.getResult(m * colFragments + n),
                             Value()});
  } else {
    // The cluster's blocks meet in shared memory: each writes its sums (a
    // fragment's four sums of a lane together, lane after lane, so that a
    // warp's 16-byte stores and loads are contiguous) where its A copies
    // were, if they fit there (getMmaSharedBytes); after the cluster's
    // barrier, block `slice` adds up fragments slice, slice + S, ... of
    // every block's sums, in rank order (the same in every block).
    MLIRContext *ctx = b.getContext();
    auto quad = VectorType::get({4}, f32);
    Value partial = aShared;
    if (!mmaSumsFitInACopies(blockRows, blockCols, kTile, stages))
      partial = addSharedCopy(b, func, blockRows * blockCols, f32, loc);
    auto sharedPtr = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    auto clusterPtr = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, partial);
    Value local = LLVM::IntToPtrOp::create(
        b, loc, sharedPtr,
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address)
            .getResult());
    // A fragment's four sums of this lane: the element offset.
    auto offsetOf = [&](Value fragment) -> Value {
      return arith::IndexCastUIOp::create(
          b, loc, b.getI32Type(), mul(add(mul(fragment, threads), tid), 4));
    };
    // vector<2x2xf32> sums <-> vector<4xf32> (no 2-D shape_cast in the
    // lowering to NVVM).
    auto reshape = [&](Value sums, VectorType to) -> Value {
      SmallVector<Value, 4> elements;
      for (int64_t i = 0; i < 4; ++i)
        elements.push_back(vector::ExtractOp::create(
            b, loc, sums,
            cast<VectorType>(sums.getType()).getRank() == 1
                ? SmallVector<int64_t>{i}
                : SmallVector<int64_t>{i / 2, i % 2}));
      return vector::FromElementsOp::create(b, loc, to, elements);
    };
    // (The other warps may still read their last A fragments.)
    if (partial == aShared)
      gpu::BarrierOp::create(b, loc);
    for (int64_t f = 0; f < warpFragments; ++f) {
      Value sums = reshape(chunkLoop.getResult(f), quad);
      Value at = LLVM::GEPOp::create(b, loc, sharedPtr, f32, local,
                                     ValueRange{offsetOf(c(f))});
      LLVM::StoreOp::create(b, loc, sums, at, /*alignment=*/16);
    }
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    SmallVector<Value> blocks;
    for (int64_t rank = 0; rank < splitK; ++rank)
      blocks.push_back(
          NVVM::MapaOp::create(b, loc, clusterPtr, local,
                               arith::ConstantIntOp::create(b, loc, rank, 32)));
    for (int64_t j = 0; j * splitK < warpFragments; ++j) {
      Value fragment = addc(slice, j * splitK), valid;
      if ((j + 1) * splitK > warpFragments) {
        valid = lessThan(fragment, warpFragments);
        fragment = minIndex(fragment, warpFragments - 1);
      }
      Value offset = offsetOf(fragment);
      Value total;
      for (Value block : blocks) {
        Value at = LLVM::GEPOp::create(b, loc, clusterPtr, f32, block,
                                       ValueRange{offset});
        Value sums = LLVM::LoadOp::create(b, loc, quad, at, /*alignment=*/16);
        total = total ? arith::AddFOp::create(b, loc, total, sums).getResult()
                      : sums;
      }
      fragments.push_back({mul(div(fragment, colFragments), 16),
                           mul(rem(fragment, colFragments), 8),
                           reshape(total, accType), valid});
    }
    // Every block's sums stay until all blocks have read them (the wait
    // is at the kernel's end).
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  }

  // Each sum through the epilogue: the loop body less its reduction loop,
  // at the sum's row and column. The stores to the kernel's buffers wait
  // until every sum's epilogue is computed, so that the epilogues' loads
  // (a bias, a residual) are in flight together instead of each waiting
  // behind the stores before it, which might alias it; a sum past the
  // loop's end computes at the last row or column (reading in bounds) and
  // stores nothing. Where the epilogue reads a buffer it stores to, stores
  // inside a region, or has effects other than loads and stores, each
  // sum's epilogue runs whole in a guard.
  Block *body = loop.getBody();
  Value reduced = product.reduction.getResult(0);
  auto isOutputStore = [&](Operation *op) {
    auto store = dyn_cast<memref::StoreOp>(op);
    return store && getRootArgument(store.getMemRef(), func);
  };
  llvm::SmallPtrSet<Value, 4> stored, read;
  bool nestedStore = false, otherEffects = false;
  body->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      // (Stores to the kernel's stack buffers stay in place.)
      if (Value root = getRootArgument(store.getMemRef(), func)) {
        stored.insert(root);
        nestedStore |= op->getBlock() != body;
      }
    } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (Value root = getRootArgument(load.getMemRef(), func))
        read.insert(root);
    } else if (op->getNumRegions() == 0 && !isMemoryEffectFree(op) &&
               !isa<memref::AllocaOp>(op)) {
      otherEffects = true;
    }
  });
  bool deferStores =
      !nestedStore && !otherEffects &&
      llvm::none_of(stored, [&](Value buffer) { return read.contains(buffer); });
  struct Element {
    IRMapping mapping;
    Value inside;
  };
  SmallVector<Element> elements;
  for (const FragmentSums &fragment : fragments)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t cc = 0; cc < 2; ++cc) {
        OpBuilder::InsertionGuard guard(b);
        Value row = add(rowBase,
                        add(warpRow, addOfr(addc(group, r * 8), fragment.row)));
        Value col =
            add(colBase,
                add(warpCol, addOfr(addc(mul(quadLane, 2), cc), fragment.col)));
        Element &element = elements.emplace_back();
        element.inside = fragment.valid;
        if (partialRows)
          element.inside = conjoin(element.inside, lessThan(row, rows));
        if (partialCols)
          element.inside = conjoin(element.inside, lessThan(col, cols));
        if (element.inside && deferStores) {
          if (partialRows)
            row = minIndex(row, rows - 1);
          if (partialCols)
            col = minIndex(col, cols - 1);
        } else if (element.inside) {
          auto ifInside = scf::IfOp::create(b, loc, element.inside, false);
          b.setInsertionPointToStart(ifInside.thenBlock());
        }
        IRMapping &mapping = element.mapping;
        auto ivs = loop.getInductionVars();
        for (int64_t d = 0; d + 2 < rank; ++d)
          mapping.map(ivs[d], blockIndex[d]);
        mapping.map(ivs[rank - 2], row);
        mapping.map(ivs[rank - 1], col);
        for (Operation &op : body->without_terminator()) {
          if (deferStores && isOutputStore(&op))
            continue;
          if (&op != product.reduction) {
            b.clone(op, mapping);
            continue;
          }
          // The sum from its initial value (a Gemm's C) on.
          Value sum = vector::ExtractOp::create(b, loc, fragment.sums,
                                                ArrayRef<int64_t>{r, cc});
          Value init = product.reduction.getInitArgs()[0];
          if (!matchPattern(init, m_AnyZeroFloat()))
            sum = arith::AddFOp::create(b, loc, mapping.lookupOrDefault(init),
                                        sum);
          mapping.map(reduced, sum);
        }
      }
  if (deferStores)
    for (Element &element : elements) {
      OpBuilder::InsertionGuard guard(b);
      if (element.inside) {
        auto ifInside = scf::IfOp::create(b, loc, element.inside, false);
        b.setInsertionPointToStart(ifInside.thenBlock());
      }
      for (Operation &op : body->without_terminator())
        if (isOutputStore(&op))
          b.clone(op, element.mapping);
    }
  if (splitK > 1)
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  loop.erase();
  return success();
}
