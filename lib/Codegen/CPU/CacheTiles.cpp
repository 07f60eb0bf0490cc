//===- CacheTiles.cpp - Contraction loops in cache-sized column blocks ----===//
//
// On the cpu, a contraction's kernel loop (after fuse-jam-thread-tiles:
// each iteration a register tile of rows x columns, each summing over the
// whole reduction) runs its row tiles outside its column tiles. Every row
// tile then reads all of B (the reduction x columns operand) again: for a
// 3x3 convolution as im2col, 7 MB of columns, which no core's L2 holds.
// This pass runs the columns in blocks whose part of B fits a cache budget:
// for each block, all row tiles, then the next block. B's block is read
// from memory once and from L2 by every other row tile; A (rows x
// reduction) is read once per block, a row tile's panel staying in L1
// across the block's column tiles.
//
// The iteration space and the body do not change, only the order: the
// column dim's bounds become the block's, the block a new outer dim.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace fuse {
#define GEN_PASS_DEF_CACHETILECONTRACTIONS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {
/// Constant bounds and step of one dim of a parallel loop.
struct ConstantDim {
  int64_t lower, upper, step;
  int64_t trips() const {
    return upper <= lower ? 0 : (upper - lower + step - 1) / step;
  }
};
} // namespace

static std::optional<ConstantDim> getConstantDim(scf::ParallelOp loop,
                                                 unsigned dim) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[dim]);
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[dim]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[dim]);
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return ConstantDim{*lower, *upper, *step};
}

/// The bytes of B one column of the loop's register tile reads: the
/// reduction's length (the first loop of the body that carries values,
/// from 0 to a constant) times the size of what it sums. None when the
/// body has no such loop (not a contraction).
static std::optional<int64_t> getColumnBytes(scf::ParallelOp loop) {
  std::optional<int64_t> bytes;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](scf::ForOp reduction) {
    if (reduction.getNumRegionIterArgs() == 0)
      return WalkResult::advance();
    std::optional<int64_t> lower =
        getConstantIntValue(reduction.getLowerBound());
    std::optional<int64_t> upper =
        getConstantIntValue(reduction.getUpperBound());
    Type type = reduction.getRegionIterArgs().front().getType();
    if (lower && upper && *lower == 0 && *upper > 0 && type.isIntOrFloat())
      bytes = *upper * std::max<int64_t>(type.getIntOrFloatBitWidth() / 8, 1);
    return WalkResult::interrupt();
  });
  return bytes;
}

/// Splits the last dim of `loop` into blocks of `blockColumns`: an outer
/// parallel loop over the other dims but the row dim (the one before the
/// last) and the blocks, around an inner one over rows and the block's
/// columns, which takes the body.
static void tileColumns(scf::ParallelOp loop, int64_t blockColumns) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned dims = loop.getNumLoops();
  unsigned rowDim = dims - 2, columnDim = dims - 1;
  SmallVector<Value> outerLower, outerUpper, outerSteps;
  for (unsigned d = 0; d < rowDim; ++d) {
    outerLower.push_back(loop.getLowerBound()[d]);
    outerUpper.push_back(loop.getUpperBound()[d]);
    outerSteps.push_back(loop.getStep()[d]);
  }
  Value columnUpper = loop.getUpperBound()[columnDim];
  outerLower.push_back(loop.getLowerBound()[columnDim]);
  outerUpper.push_back(columnUpper);
  outerSteps.push_back(arith::ConstantIndexOp::create(b, loc, blockColumns));
  auto outer =
      scf::ParallelOp::create(b, loc, outerLower, outerUpper, outerSteps);

  b.setInsertionPointToStart(outer.getBody());
  Value blockStart = outer.getInductionVars().back();
  Value blockEnd = arith::AddIOp::create(
      b, loc, blockStart, arith::ConstantIndexOp::create(b, loc, blockColumns));
  blockEnd = arith::MinSIOp::create(b, loc, blockEnd, columnUpper);
  auto inner = scf::ParallelOp::create(
      b, loc, ValueRange{loop.getLowerBound()[rowDim], blockStart},
      ValueRange{loop.getUpperBound()[rowDim], blockEnd},
      ValueRange{loop.getStep()[rowDim], loop.getStep()[columnDim]});

  // The body moves into the inner loop; its induction variables become
  // the outer loop's (other dims) and the inner one's (rows, columns).
  Block *body = loop.getBody();
  Block *innerBody = inner.getBody();
  for (unsigned d = 0; d < rowDim; ++d)
    body->getArgument(d).replaceAllUsesWith(outer.getInductionVars()[d]);
  body->getArgument(rowDim).replaceAllUsesWith(inner.getInductionVars()[0]);
  body->getArgument(columnDim).replaceAllUsesWith(inner.getInductionVars()[1]);
  innerBody->getOperations().splice(innerBody->getTerminator()->getIterator(),
                                    body->getOperations(), body->begin(),
                                    body->getTerminator()->getIterator());
  loop.erase();
}

namespace {
struct CacheTileContractionsPass
    : public fuse::impl::CacheTileContractionsBase<CacheTileContractionsPass> {
  using CacheTileContractionsBase::CacheTileContractionsBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    auto strategy =
        kernel->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
    if (!strategy || strategy.getMapping() != Mapping::loop ||
        strategy.getThreadTile().size() < 2)
      return;
    // Jamming may have left remainder loops beside the main one: each is
    // blocked on its own.
    for (auto loop : llvm::make_early_inc_range(
             kernel.getBody().front().getOps<scf::ParallelOp>())) {
      unsigned dims = loop.getNumLoops();
      if (dims < 2 || loop.getNumReductions() != 0)
        continue;
      std::optional<ConstantDim> rows = getConstantDim(loop, dims - 2);
      std::optional<ConstantDim> columns = getConstantDim(loop, dims - 1);
      std::optional<int64_t> columnBytes = getColumnBytes(loop);
      // A single row tile reads B once anyway.
      if (!rows || !columns || !columnBytes || rows->trips() < 2)
        continue;
      int64_t tiles =
          std::max<int64_t>(cacheBytes / *columnBytes, 1) / columns->step;
      int64_t blockColumns = std::max<int64_t>(tiles, 1) * columns->step;
      if (blockColumns >= columns->upper - columns->lower)
        continue;
      tileColumns(loop, blockColumns);
    }
  }
};
} // namespace
