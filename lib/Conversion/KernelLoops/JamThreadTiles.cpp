//===- JamThreadTiles.cpp - Several neighbouring outputs per iteration ----===//
//
// A kernel whose strategy has a `thread_tile` computes a tile of outputs in
// each iteration of its parallel loop (each GPU thread). Per tiled dim, the
// loop steps by the tile size and its body is wrapped in an scf.for over
// the tile, which is then unrolled and jammed into the body's own loops:
// the copies of a window's taps sit in one loop body, where CSE after
// unrolling shares what they load and compute in common.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace fuse {
#define GEN_PASS_DEF_JAMTHREADTILES
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Wraps the body of `loop` (all but its terminator) into an scf.for over
/// [0, size), in which the induction variable of `dim` reads `iv + j`.
static scf::ForOp wrapBodyInTileLoop(OpBuilder &b, scf::ParallelOp loop,
                                     unsigned dim, int64_t size) {
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  b.setInsertionPointToStart(body);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, size);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto tileLoop = scf::ForOp::create(b, loc, zero, upper, one);
  Block *tileBody = tileLoop.getBody();
  tileBody->getOperations().splice(
      tileBody->getTerminator()->getIterator(), body->getOperations(),
      std::next(tileLoop->getIterator()), body->getTerminator()->getIterator());
  // The constants of the loop's bounds stay outside it (unroll-and-jam
  // wants inner loop bounds defined outside the loop it unrolls).
  SmallVector<arith::ConstantOp> constants;
  tileLoop.getBody()->walk(
      [&](arith::ConstantOp constant) { constants.push_back(constant); });
  for (arith::ConstantOp constant : constants)
    constant->moveBefore(tileLoop);

  b.setInsertionPointToStart(tileBody);
  Value iv = body->getArgument(dim);
  Value shifted =
      arith::AddIOp::create(b, loc, iv, tileLoop.getInductionVar());
  iv.replaceUsesWithIf(shifted, [&](OpOperand &use) {
    return use.getOwner() != shifted.getDefiningOp() &&
           tileLoop->isProperAncestor(use.getOwner());
  });
  return tileLoop;
}

/// Moves into `loop`'s body the stack buffers that only it uses, so each
/// copy of the loop (or of its body) gets its own. Returns false when a
/// buffer the loop uses is also used outside it: then the copies of its
/// body cannot be jammed.
static bool privatizeAllocas(func::FuncOp kernel, LoopLikeOpInterface loop) {
  Block *body = &loop.getLoopRegions().front()->front();
  SmallVector<memref::AllocaOp> inside;
  bool shared = false;
  kernel.walk([&](memref::AllocaOp alloca) {
    if (loop->isAncestor(alloca))
      return;
    bool usedInside = false, usedOutside = false;
    for (Operation *user : alloca->getUsers())
      (loop->isAncestor(user) ? usedInside : usedOutside) = true;
    if (usedInside && usedOutside)
      shared = true;
    else if (usedInside)
      inside.push_back(alloca);
  });
  for (memref::AllocaOp alloca : inside)
    alloca->moveBefore(body, body->begin());
  return !shared;
}

/// Unrolls `tileLoop`, whose body has no loop, op by op: each op is
/// followed by its copies for the tile's other outputs, so that the tile's
/// loads sit side by side, and its stores, in one basic block, where LLVM
/// can merge them into vector accesses (copies of the whole body one after
/// another would interleave them with whatever branches the body has).
static void unrollInterleaved(scf::ForOp tileLoop, int64_t size) {
  OpBuilder b(tileLoop);
  SmallVector<IRMapping> copies(size);
  for (int64_t j = 0; j < size; ++j)
    copies[j].map(tileLoop.getInductionVar(),
                  arith::ConstantIndexOp::create(b, tileLoop.getLoc(), j));
  for (Operation &op : tileLoop.getBody()->without_terminator())
    for (IRMapping &copy : copies)
      b.clone(op, copy);
  tileLoop.erase();
}

/// Tiles dims `lastDim` down to 0 of `loop` by `tile`. With
/// `splitRemainders` (one thread runs the whole loop: the cpu), a dim that
/// the tile does not divide is split: the loop stops at the last whole
/// tile, and a copy of it runs the rest as one smaller tile (a row of 14
/// in tiles of 8: one of 8, then one of 6); a dim shorter than its tile is
/// tiled whole. Else such a dim is an error (a GPU kernel is one loop,
/// whose grid the strategy fixed).
static LogicalResult jamDims(func::FuncOp kernel, scf::ParallelOp loop,
                             SmallVector<int64_t> tile, int lastDim,
                             bool splitRemainders) {
  OpBuilder b(kernel.getContext());
  // Innermost dims first: their copies end up innermost in the jammed body.
  for (int dim = lastDim; dim >= 0; --dim) {
    int64_t size = tile[dim];
    if (size == 1)
      continue;
    std::optional<int64_t> lower =
        getConstantIntValue(loop.getLowerBound()[dim]);
    std::optional<int64_t> upper =
        getConstantIntValue(loop.getUpperBound()[dim]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[dim]);
    bool divisible = lower && upper && (*upper - *lower) % size == 0;
    if (!lower || !upper || step != 1 || (!divisible && !splitRemainders))
      return loop.emitOpError("dim ")
             << dim << " cannot be tiled by " << size
             << ": it needs constant bounds, step 1 and a multiple of "
             << size << " iterations";
    int64_t extent = *upper - *lower;
    if (extent < size)
      size = extent;
    if (int64_t rest = extent % size) {
      // The copy takes the last `rest` iterations of this dim, tiled by
      // `rest`; the dims after it are tiled in both loops already.
      b.setInsertionPoint(loop);
      Value split =
          arith::ConstantIndexOp::create(b, loop.getLoc(), *upper - rest);
      b.setInsertionPointAfter(loop);
      auto remainder = cast<scf::ParallelOp>(b.clone(*loop));
      remainder.getLowerBoundMutable()[dim].set(split);
      loop.getUpperBoundMutable()[dim].set(split);
      SmallVector<int64_t> remainderTile(tile);
      remainderTile[dim] = rest;
      if (failed(jamDims(kernel, remainder, remainderTile, dim,
                         splitRemainders)))
        return failure();
    }
    b.setInsertionPoint(loop);
    loop.getStepMutable()[dim].set(
        arith::ConstantIndexOp::create(b, loop.getLoc(), size));
    scf::ForOp tileLoop = wrapBodyInTileLoop(b, loop, dim, size);
    bool jam = privatizeAllocas(kernel, tileLoop);
    bool hasLoops = llvm::any_of(tileLoop.getBody()->getOperations(),
                                 llvm::IsaPred<LoopLikeOpInterface>);
    if (jam && !hasLoops) {
      unrollInterleaved(tileLoop, size);
      continue;
    }
    if (jam && succeeded(loopUnrollJamByFactor(tileLoop, size)))
      continue;
    // Unrolling alone is always legal: the copies run one after another.
    if (failed(loopUnrollFull(tileLoop)))
      return loop.emitOpError("could not unroll its thread tile");
  }
  return success();
}

static LogicalResult jamThreadTile(func::FuncOp kernel,
                                   KernelStrategyAttr strategy) {
  ArrayRef<int64_t> tile = strategy.getThreadTile();
  SmallVector<scf::ParallelOp> loops(
      kernel.getBody().front().getOps<scf::ParallelOp>());
  if (loops.size() != 1)
    return kernel.emitOpError("has a thread tile but ")
           << loops.size() << " top-level parallel loops; one was expected";
  scf::ParallelOp loop = loops.front();
  if (loop.getNumLoops() != tile.size())
    return loop.emitOpError("has ")
           << loop.getNumLoops() << " dims but the thread tile of "
           << strategy << " has " << tile.size();
  if (loop.getNumReductions() != 0)
    return loop.emitOpError("reduces across iterations: it cannot be tiled "
                            "per thread");
  // Stack buffers only the loop uses move into it first, so that a copy of
  // the loop for a remainder gets its own.
  privatizeAllocas(kernel, loop);
  return jamDims(kernel, loop, SmallVector<int64_t>(tile),
                 static_cast<int>(tile.size()) - 1,
                 strategy.getMapping() == Mapping::loop);
}

namespace {
struct JamThreadTilesPass
    : public fuse::impl::JamThreadTilesBase<JamThreadTilesPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    auto strategy = kernel->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
    if (!strategy || strategy.getThreadTile().empty())
      return;
    if (failed(jamThreadTile(kernel, strategy)))
      signalPassFailure();
  }
};
} // namespace
