//===- BlockAccumulations.cpp - Sums in blocks, not one long chain --------===//
//
// A reduction lowered to loops adds its elements one after another into one
// accumulator, and the rounding error of a chain of n additions grows with
// n: 2^25 float ones sum to 2^24. This pass splits each loop that carries
// only sums, and may add more than `block` times to them (its iterations
// times the additions of one iteration, which inner loops multiply), into
// a loop over blocks of about `block` additions, each summed from zero
// into a partial that is then added to the running value; the loop over
// blocks is split again while it may still run more than `block`
// iterations. No chain is then longer than `block` additions a level.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace fuse {
#define GEN_PASS_DEF_BLOCKACCUMULATIONS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// The most iterations `loop` may run: its trip count, or with a lower
/// bound that is not a constant (a thread's first element), that of a loop
/// from 0. None when the step or the upper bound is not a constant.
static std::optional<int64_t> maxTripCount(scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  if (!step || *step <= 0 || !upper)
    return std::nullopt;
  int64_t lower = getConstantIntValue(loop.getLowerBound()).value_or(0);
  if (*upper <= lower)
    return 0;
  return llvm::divideCeil(*upper - lower, *step);
}

/// a * b for counts that may be huge (a loop over 2^62 elements): past
/// int64_t, the largest one, which is as good for comparing with a block.
static int64_t saturatingProduct(int64_t a, int64_t b) {
  int64_t product;
  if (llvm::MulOverflow(a, b, product))
    return std::numeric_limits<int64_t>::max();
  return product;
}

/// When the iteration argument `arg`, which the loop body turns into
/// `yielded`, is only ever added to, the number of additions one iteration
/// makes to it: 1 when `yielded` is `arg + x` (either order), or the chain
/// of an inner scf.for that takes `arg` as the initial value of a sum
/// (its trip count times its own additions an iteration). None when
/// anything else reads the running value.
static std::optional<int64_t> sumChain(BlockArgument arg, Value yielded) {
  if (!isa<FloatType>(arg.getType()) || !arg.hasOneUse() ||
      !yielded.hasOneUse())
    return std::nullopt;
  OpOperand &use = *arg.getUses().begin();
  Operation *user = use.getOwner();
  if (auto add = dyn_cast<arith::AddFOp>(user)) {
    if (add.getResult() != yielded || add.getLhs() == add.getRhs())
      return std::nullopt;
    return 1;
  }
  auto inner = dyn_cast<scf::ForOp>(user);
  if (!inner || use.getOperandNumber() < inner.getNumControlOperands())
    return std::nullopt;
  unsigned index = use.getOperandNumber() - inner.getNumControlOperands();
  if (inner.getResult(index) != yielded)
    return std::nullopt;
  std::optional<int64_t> chain = sumChain(inner.getRegionIterArgs()[index],
                                          inner.getYieldedValues()[index]);
  if (!chain)
    return std::nullopt;
  // An inner loop of unknown length counts as one iteration: too short a
  // chain only makes blocks longer.
  return saturatingProduct(
      *chain, std::max<int64_t>(1, maxTripCount(inner).value_or(1)));
}

/// The additions an iteration of `loop` makes to any of its iteration
/// arguments, when they all are sums.
static std::optional<int64_t> sumChainPerIteration(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() == 0)
    return std::nullopt;
  int64_t longest = 0;
  for (auto [arg, yielded] :
       llvm::zip_equal(loop.getRegionIterArgs(), loop.getYieldedValues())) {
    std::optional<int64_t> chain = sumChain(arg, yielded);
    if (!chain)
      return std::nullopt;
    longest = std::max(longest, *chain);
  }
  return longest;
}

/// Makes `loop` the inner loop of a loop over blocks of `block` of its
/// iterations: each block sums from -0.0 (the identity of addf: -0.0 + x is
/// x for every x), and its partial sums are added to the running values.
/// Returns the loop over blocks.
static scf::ForOp splitIntoBlocks(scf::ForOp loop, int64_t block) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  int64_t step = *getConstantIntValue(loop.getStep());
  Value upper = loop.getUpperBound();
  // A static loop that blocks divide needs no clamp on the last block.
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> trips = maxTripCount(loop);
  bool exact = lower && trips && *trips % block == 0;
  Value blockStep = arith::ConstantIndexOp::create(b, loc, step * block);

  SmallVector<Value> zeros;
  for (Value init : loop.getInitArgs()) {
    auto type = cast<FloatType>(init.getType());
    zeros.push_back(arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(type, APFloat::getZero(type.getFloatSemantics(),
                                              /*Negative=*/true))));
  }
  Value blockUpper;
  auto outer = scf::ForOp::create(
      b, loc, loop.getLowerBound(), upper, blockStep, loop.getInitArgs(),
      [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
        blockUpper = arith::AddIOp::create(nested, nestedLoc, iv, blockStep);
        if (!exact)
          blockUpper =
              arith::MinSIOp::create(nested, nestedLoc, blockUpper, upper);
        scf::YieldOp::create(nested, nestedLoc, args);
      });
  loop->replaceAllUsesWith(outer.getResults());
  Operation *yield = outer.getBody()->getTerminator();
  loop->moveBefore(yield);
  loop.setLowerBound(outer.getInductionVar());
  loop.setUpperBound(blockUpper);
  loop.getInitArgsMutable().assign(zeros);

  b.setInsertionPoint(yield);
  SmallVector<Value> sums;
  for (auto [running, partial] :
       llvm::zip_equal(outer.getRegionIterArgs(), loop.getResults())) {
    auto add = arith::AddFOp::create(b, loc, running, partial);
    sums.push_back(add);
  }
  yield->setOperands(sums);
  return outer;
}

namespace {
struct BlockAccumulationsPass
    : public fuse::impl::BlockAccumulationsBase<BlockAccumulationsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (block < 2) {
      getOperation().emitError() << "block must be at least 2 (got "
                                 << static_cast<int64_t>(block)
                                 << ")";
      return signalPassFailure();
    }
    // An `mma` kernel's sums are the tensor cores' (fuse-map-kernels-to-gpu
    // rebuilds its reduction): a chain of K / 16 additions per sum.
    auto strategy =
        getOperation()->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
    if (strategy && strategy.getMapping() == Mapping::mma)
      return;
    // Inner loops first: a loop that carries its sums through an inner one
    // sees the inner one already split (which keeps its values sums, and
    // shortens the chain an iteration adds to them).
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<int64_t> perIteration = sumChainPerIteration(loop);
      std::optional<int64_t> trips = maxTripCount(loop);
      if (!perIteration || !trips)
        continue;
      // Blocks of as many iterations as make `block` additions; then the
      // loop over blocks adds one partial an iteration.
      while (*trips > 1 && saturatingProduct(*trips, *perIteration) > block) {
        int64_t iterations = std::max<int64_t>(1, block / *perIteration);
        loop = splitIntoBlocks(loop, iterations);
        perIteration = 1;
        trips = maxTripCount(loop);
      }
    }
  }
};
} // namespace
