//===- PromoteAccumulators.cpp - Loop accumulators as iter_args ----------===//
//
// A reduction lowered to loops reads and writes its accumulator in memory
// on every iteration. When the accumulator is an element of a kernel
// argument, LLVM must assume the loop's other loads may alias it and keeps
// the round trip through memory, which serializes the loop's loads. Here
// the plan's guarantee (a kernel's written buffers overlap none of its
// other buffers) makes the accumulator a value carried by the loop.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fuse {
#define GEN_PASS_DEF_PROMOTEACCUMULATORS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// The buffer `memref` views: a function argument, an allocation or a
/// global, through subviews, casts and reshapes.
static Value getViewedBuffer(Value memref) {
  return memref::skipViewLikeOps(cast<MemrefValue>(memref));
}

namespace {
/// A load and a later store of the same element, both in the loop's body.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};
} // namespace

/// Whether `op` (not nested ops) may touch memory of `buffer`, or memory
/// nothing names.
static bool mayAccess(Operation *op, Value buffer) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false; // Its nested ops are visited themselves.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (!value || (isa<BaseMemRefType>(value.getType()) &&
                   getViewedBuffer(value) == buffer))
      return true;
  }
  return false;
}

/// Whether `op` loads or stores an element of the memref `store` writes
/// that is, by constant indices, not the one it writes (two accumulators
/// of one buffer).
static bool isOtherElement(Operation *op, memref::StoreOp store) {
  Value memref;
  ValueRange indices;
  if (auto other = dyn_cast<memref::LoadOp>(op)) {
    memref = other.getMemRef();
    indices = other.getIndices();
  } else if (auto other = dyn_cast<memref::StoreOp>(op)) {
    memref = other.getMemRef();
    indices = other.getIndices();
  }
  if (!memref || memref != store.getMemRef())
    return false;
  for (auto [a, b] : llvm::zip(indices, store.getIndices())) {
    std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
    if (x && y && *x != *y)
      return true;
  }
  return false;
}

/// The accumulators of `loop`: each a load then a store, at the top level
/// of the body, of one loop-invariant element that nothing else in the
/// loop touches.
static SmallVector<Accumulator> findAccumulators(scf::ForOp loop) {
  SmallVector<Accumulator> found;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  // The hoisted load and store run even if the loop would not.
  if (!lb || !ub || *ub <= *lb)
    return found;
  Block *body = loop.getBody();
  for (auto store : body->getOps<memref::StoreOp>()) {
    Value memref = store.getMemRef();
    if (!loop.isDefinedOutsideOfLoop(memref) ||
        !llvm::all_of(store.getIndices(), [&](Value v) {
          return loop.isDefinedOutsideOfLoop(v);
        }))
      continue;
    memref::LoadOp load;
    for (auto candidate : body->getOps<memref::LoadOp>())
      if (candidate.getMemRef() == memref &&
          candidate.getIndices() == store.getIndices() &&
          candidate->isBeforeInBlock(store)) {
        load = candidate;
        break;
      }
    if (!load)
      continue;
    Value buffer = getViewedBuffer(memref);
    WalkResult conflict = loop.getBody()->walk([&](Operation *op) {
      if (op == load || op == store || !mayAccess(op, buffer) ||
          isOtherElement(op, store))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (!conflict.wasInterrupted())
      found.push_back({load, store});
  }
  return found;
}

/// The store before `loop`, in its block, that sets the element `load`
/// reads, with nothing in between touching its buffer; or null.
static memref::StoreOp findInitialStore(scf::ForOp loop, memref::LoadOp load) {
  Value buffer = getViewedBuffer(load.getMemRef());
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (store && store.getMemRef() == load.getMemRef() &&
        store.getIndices() == load.getIndices())
      return store;
    WalkResult touches = op->walk([&](Operation *nested) {
      return mayAccess(nested, buffer) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    });
    if (touches.wasInterrupted())
      return nullptr;
  }
  return nullptr;
}

/// Carries the accumulators of `loop` as iter_args. The value stored just
/// before the loop (the reduction's initial value) is carried in directly:
/// the store after the loop overwrites it.
static void promote(RewriterBase &rewriter, scf::ForOp loop,
                    ArrayRef<Accumulator> accumulators) {
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits;
  for (Accumulator acc : accumulators) {
    if (memref::StoreOp initial = findInitialStore(loop, acc.load)) {
      inits.push_back(initial.getValueToStore());
      rewriter.eraseOp(initial);
      continue;
    }
    inits.push_back(memref::LoadOp::create(rewriter, acc.load.getLoc(),
                                           acc.load.getMemRef(),
                                           acc.load.getIndices()));
  }
  auto yielded = [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
    SmallVector<Value> values;
    for (Accumulator acc : accumulators)
      values.push_back(acc.store.getValueToStore());
    return values;
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, yielded);
  assert(succeeded(replaced) && "scf.for takes additional yields");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = newLoop.getNumRegionIterArgs() - accumulators.size();
  rewriter.setInsertionPointAfter(newLoop);
  for (auto [i, accRef] : llvm::enumerate(accumulators)) {
    Accumulator acc = accRef;
    rewriter.replaceAllUsesWith(acc.load.getResult(),
                                newLoop.getRegionIterArgs()[first + i]);
    memref::StoreOp::create(rewriter, acc.store.getLoc(),
                            newLoop.getResult(first + i),
                            acc.store.getMemRef(), acc.store.getIndices());
    rewriter.eraseOp(acc.store);
    rewriter.eraseOp(acc.load);
  }
}

namespace {
struct PromoteAccumulatorsPass
    : public fuse::impl::PromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    // Post-order: an inner loop's carried value becomes a load and a store
    // around it, which its enclosing loop then carries.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<Accumulator> accumulators = findAccumulators(loop);
      if (!accumulators.empty())
        promote(rewriter, loop, accumulators);
    }
  }
};
} // namespace
