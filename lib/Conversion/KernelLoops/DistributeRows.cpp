//===- DistributeRows.cpp - The threads of a row share its loops ----------===//
//
// A kernel with the `rows` strategy runs each iteration of its parallel
// loop (a row: a Softmax or LayerNormalization row, the elements one
// Reduce* or GlobalAveragePool output folds) on `row_threads` GPU threads:
// a warp, or the whole block. Inside the row, after bufferization, the
// work is linalg ops on buffers. This pass splits each of them over the
// row's threads ("lanes"):
//
// - an op whose iterators are all parallel and that writes global memory:
//   lane l runs the iterations l, l + R, l + 2R, ... of its linearized
//   iteration space (neighbouring lanes, neighbouring elements), in a loop
//   of a constant number of rounds that LLVM unrolls;
// - an op whose iterators are all reductions, with a combiner MLIR's GPU
//   reductions know (add, max, ...): each lane folds its share into a
//   partial that starts at the combiner's identity, the partials are
//   combined across the row with warp shuffles (and shared memory when the
//   row is a whole block of several warps), and the result is folded into
//   the op's output once: in every lane when the output is the lane's own
//   (a stack buffer), by lane 0 when it is in global memory;
// - anything else that writes global memory runs in lane 0 only; ops that
//   write only a lane's own buffers (fills, accumulators) run in every
//   lane.
//
// After each op that writes global memory the row's lanes synchronize
// (a warp barrier, or a block barrier), so later ops may read what it
// wrote. Lowering linalg to loops, rows to blocks and warps
// (fuse-map-kernels-to-gpu) happens later.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fuse {
#define GEN_PASS_DEF_DISTRIBUTEROWS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Shared memory through which the warps of a block-wide row combine their
/// partial results: one f32 per warp.
static constexpr StringLiteral kPartialsName = "__fuse_row_partials";
static constexpr int64_t kWarpSize = 32;

/// Whether `memref` is a lane's own buffer (a stack allocation, seen
/// through views).
static bool isPrivate(Value memref) {
  auto value = dyn_cast<MemrefValue>(memref);
  return value && isa_and_nonnull<memref::AllocaOp>(
                      memref::skipViewLikeOps(value).getDefiningOp());
}

/// Whether `op` (or an op inside it) writes memory that is not a lane's own.
static bool writesShared(Operation *op) {
  bool shared = false;
  op->walk([&](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects) {
      // Unknown effects: conservatively shared, unless it is pure structure.
      if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          inner->getNumRegions() == 0 && !isPure(inner))
        shared = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &instance : instances) {
      if (!isa<MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (!value || !isPrivate(value))
        shared = true;
    }
  });
  return shared;
}

namespace {
/// A combiner of a reduction, as the GPU reductions know it.
struct Combiner {
  gpu::AllReduceOperation kind;
  /// The op in the reduction's body (its name and attributes: fast-math
  /// flags), rebuilt to combine partials.
  OperationName name;
  DictionaryAttr attributes;
};
} // namespace

static std::optional<gpu::AllReduceOperation> combinerKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  if (isa<arith::AddFOp>(op))
    return K::ADD;
  if (isa<arith::MulFOp>(op))
    return K::MUL;
  if (isa<arith::MaximumFOp>(op))
    return K::MAXIMUMF;
  if (isa<arith::MinimumFOp>(op))
    return K::MINIMUMF;
  if (isa<arith::MaxNumFOp>(op))
    return K::MAXNUMF;
  if (isa<arith::MinNumFOp>(op))
    return K::MINNUMF;
  return std::nullopt;
}

static TypedAttr identity(gpu::AllReduceOperation kind, FloatType type) {
  using K = gpu::AllReduceOperation;
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  switch (kind) {
  case K::ADD:
    return FloatAttr::get(type, 0.0);
  case K::MUL:
    return FloatAttr::get(type, 1.0);
  case K::MAXIMUMF:
  case K::MAXNUMF:
    return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
  case K::MINIMUMF:
  case K::MINNUMF:
    return FloatAttr::get(type, APFloat::getInf(sem));
  default:
    return {};
  }
}

/// The combiner of each output of an all-reduction `op`: the yielded value
/// is `combine(x, out)` (or `combine(out, x)`) where `out`, the output's
/// block argument, is used nowhere else. f32 outputs of one element only.
static std::optional<SmallVector<Combiner>>
matchCombiners(linalg::LinalgOp op) {
  SmallVector<Combiner> combiners;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
        type.getNumElements() != 1)
      return std::nullopt;
    BlockArgument out = op.getMatchingBlockArgument(&init);
    Value yielded = yield.getOperand(op.getIndexingMapIndex(&init) -
                                     op.getNumDpsInputs());
    Operation *combine = yielded.getDefiningOp();
    if (!combine || combine->getBlock() != body || !out.hasOneUse() ||
        *out.getUsers().begin() != combine || combine->getNumOperands() != 2)
      return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = combinerKind(combine);
    if (!kind)
      return std::nullopt;
    combiners.push_back(
        {*kind, combine->getName(), combine->getAttrDictionary()});
  }
  return combiners;
}

namespace {
class RowDistributor {
public:
  RowDistributor(func::FuncOp kernel, int64_t rowThreads,
                 int64_t blockThreads)
      : kernel(kernel), rewriter(kernel.getContext()), rowThreads(rowThreads),
        blockThreads(blockThreads) {}

  LogicalResult run(scf::ForallOp rows) {
    Block *body = rows.getBody();
    rewriter.setInsertionPointToStart(body);
    Location loc = rows.getLoc();
    tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    lane = rowThreads == blockThreads
               ? tid
               : arith::RemUIOp::create(rewriter, loc, tid, index(rowThreads))
                     .getResult();
    SmallVector<Operation *> ops;
    for (Operation &op : body->without_terminator())
      if (&op != tid.getDefiningOp() && &op != lane.getDefiningOp() &&
          !isa<arith::ConstantOp>(op))
        ops.push_back(&op);
    for (Operation *op : ops) {
      bool last = op == ops.back();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (failed(distribute(linalgOp, last)))
          return failure();
        continue;
      }
      if (writesShared(op)) {
        inLaneZero(op);
        if (!last)
          sync(loc);
      }
    }
    return success();
  }

private:
  Value index(int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, kernel.getLoc(), v);
  }

  /// Synchronizes the lanes of a row.
  void sync(Location loc) {
    if (rowThreads <= kWarpSize) {
      Value all = arith::ConstantIntOp::create(rewriter, loc, -1, 32);
      NVVM::SyncWarpOp::create(rewriter, loc, all);
    } else {
      gpu::BarrierOp::create(rewriter, loc);
    }
  }

  /// Moves `op` into an `if (lane == 0)` and sets the insertion point after
  /// it.
  void inLaneZero(Operation *op) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, index(0));
    auto guard = scf::IfOp::create(rewriter, loc, first, false);
    op->moveBefore(guard.thenBlock()->getTerminator());
    rewriter.setInsertionPointAfter(guard);
  }

  LogicalResult distribute(linalg::LinalgOp op, bool last) {
    bool privateOutputs = llvm::all_of(op.getDpsInits(), isPrivate);
    // Dims of one iteration (the row's tiled dims) are neither.
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    bool staticRanges = llvm::none_of(
        ranges, [](int64_t r) { return ShapedType::isDynamic(r); });
    bool allParallel = true, allReduction = true, anyReduction = false;
    for (auto [type, range] : llvm::zip(iterators, ranges)) {
      if (range == 1)
        continue;
      bool reduction = type == utils::IteratorType::reduction;
      allParallel &= !reduction;
      allReduction &= reduction;
      anyReduction |= reduction;
    }
    allReduction &= anyReduction;
    Location loc = op.getLoc();

    if (allReduction && staticRanges && op.hasPureBufferSemantics()) {
      if (std::optional<SmallVector<Combiner>> combiners =
              matchCombiners(op)) {
        if (failed(distributeReduction(op, *combiners, ranges,
                                       privateOutputs)))
          return failure();
        if (!privateOutputs && !last)
          sync(loc);
        return success();
      }
    }
    if (privateOutputs)
      return success(); // Every lane computes its own copy.
    if (allParallel && staticRanges && !ranges.empty() &&
        op.hasPureBufferSemantics()) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        return op.emitOpError("could not be lowered to loops for its row");
      rewriter.eraseOp(op);
      Operation *after = linearize(*loops, ranges);
      rewriter.setInsertionPointAfter(after);
    } else {
      inLaneZero(op);
    }
    if (!last)
      sync(loc);
    return success();
  }

  /// Replaces the perfect nest `loops` (outermost first, ranges from 0 with
  /// step 1) by one loop over the linearized index, lane by lane: lane l
  /// takes l, l + R, l + 2R, ... The loop counts rounds, the same number
  /// in every lane (a guard skips the index past the end when R does not
  /// divide the total), so LLVM can unroll it and keep several loads in
  /// flight. Returns the new loop.
  Operation *linearize(ArrayRef<Operation *> loops,
                       ArrayRef<int64_t> ranges) {
    auto outer = cast<scf::ForOp>(loops.front());
    auto inner = cast<scf::ForOp>(loops.back());
    Location loc = outer.getLoc();
    rewriter.setInsertionPoint(outer);
    int64_t total = 1;
    for (int64_t r : ranges)
      total *= r;
    int64_t rounds = (total + rowThreads - 1) / rowThreads;
    auto loop = scf::ForOp::create(rewriter, loc, index(0), index(rounds),
                                   index(1));
    rewriter.setInsertionPointToStart(loop.getBody());
    Value linear = arith::AddIOp::create(
        rewriter, loc, lane,
        arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                              index(rowThreads)));
    Operation *insertBefore = loop.getBody()->getTerminator();
    if (total % rowThreads != 0) {
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, linear, index(total));
      auto guard = scf::IfOp::create(rewriter, loc, inRange, false);
      insertBefore = guard.thenBlock()->getTerminator();
      rewriter.setInsertionPoint(insertBefore);
    }
    // Row-major: the last loop varies fastest.
    SmallVector<Value> ivs(loops.size());
    Value rest = linear;
    int outermost = 0; // The outermost loop of more than one iteration.
    while (outermost + 1 < int(loops.size()) && ranges[outermost] == 1)
      ++outermost;
    for (int i = static_cast<int>(loops.size()) - 1; i >= 0; --i) {
      if (ranges[i] == 1 && i != outermost) {
        ivs[i] = index(0);
        continue;
      }
      if (i == outermost) {
        ivs[i] = rest;
        continue;
      }
      ivs[i] = arith::RemUIOp::create(rewriter, loc, rest, index(ranges[i]));
      rest = arith::DivUIOp::create(rewriter, loc, rest, index(ranges[i]));
    }
    Block *from = inner.getBody();
    for (Operation &op : llvm::make_early_inc_range(from->without_terminator()))
      op.moveBefore(insertBefore);
    for (auto [l, iv] : llvm::zip(loops, ivs))
      cast<scf::ForOp>(l).getInductionVar().replaceAllUsesWith(iv);
    rewriter.eraseOp(outer);
    return loop;
  }

  /// `a` combined with `b` by the reduction's own op.
  Value combine(Location loc, const Combiner &combiner, Value a, Value b) {
    OperationState state(loc, combiner.name);
    state.addOperands({a, b});
    state.addTypes(a.getType());
    state.addAttributes(combiner.attributes.getValue());
    return rewriter.create(state)->getResult(0);
  }

  /// The combination of `x` across the row's lanes, in every lane.
  Value combineAcrossRow(Location loc, Value x, const Combiner &combiner) {
    auto combine = [&](Value a, Value b) {
      return this->combine(loc, combiner, a, b);
    };
    // Butterfly within the warp: every lane ends with the value of its row
    // (a row of fewer lanes than a warp is an aligned group of them, which
    // xor offsets below its size never leave) or of its warp.
    Value width = arith::ConstantIntOp::create(rewriter, loc, kWarpSize, 32);
    for (int64_t offset = std::min(rowThreads, kWarpSize) / 2; offset >= 1;
         offset /= 2) {
      Value shift = arith::ConstantIntOp::create(rewriter, loc, offset, 32);
      auto shuffle = gpu::ShuffleOp::create(rewriter, loc, x, shift, width,
                                            gpu::ShuffleMode::XOR);
      x = combine(x, shuffle.getShuffleResult());
    }
    if (rowThreads <= kWarpSize)
      return x;
    // A block-wide row: the warps meet in shared memory.
    auto partialsType = MemRefType::get(
        {kWarpSize}, rewriter.getF32Type(), AffineMap(),
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::AddressSpace::Workgroup));
    Value partials = memref::GetGlobalOp::create(rewriter, loc, partialsType,
                                                 kPartialsName);
    Value warp = arith::DivUIOp::create(rewriter, loc, tid, index(kWarpSize));
    Value laneInWarp =
        arith::RemUIOp::create(rewriter, loc, tid, index(kWarpSize));
    Value leader = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, laneInWarp, index(0));
    auto guard = scf::IfOp::create(rewriter, loc, leader, false);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      memref::StoreOp::create(rewriter, loc, x, partials, ValueRange{warp});
    }
    gpu::BarrierOp::create(rewriter, loc);
    Value total =
        memref::LoadOp::create(rewriter, loc, partials, ValueRange{index(0)});
    for (int64_t w = 1; w < rowThreads / kWarpSize; ++w)
      total = combine(total, memref::LoadOp::create(rewriter, loc, partials,
                                                    ValueRange{index(w)}));
    // The next reduction may write the partials again.
    gpu::BarrierOp::create(rewriter, loc);
    return total;
  }

  LogicalResult distributeReduction(linalg::LinalgOp op,
                                    ArrayRef<Combiner> combiners,
                                    ArrayRef<int64_t> ranges,
                                    bool privateOutputs) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    // Each lane folds its share into its own partials.
    SmallVector<Value> outputs, partials;
    for (auto [init, combiner] :
         llvm::zip(op.getDpsInitsMutable(), combiners)) {
      auto type = cast<MemRefType>(init.get().getType());
      auto partialType =
          MemRefType::get(type.getShape(), type.getElementType());
      Value partial = memref::AllocaOp::create(rewriter, loc, partialType);
      SmallVector<Value> zeros(type.getRank(), index(0));
      Value start = arith::ConstantOp::create(
          rewriter, loc,
          identity(combiner.kind, cast<FloatType>(type.getElementType())));
      memref::StoreOp::create(rewriter, loc, start, partial, zeros);
      outputs.push_back(init.get());
      partials.push_back(partial);
    }
    for (auto [init, partial] : llvm::zip(op.getDpsInitsMutable(), partials))
      init.set(partial);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToLoops(rewriter, op);
    if (failed(loops) || loops->empty())
      return op.emitOpError("could not be lowered to loops for its row");
    rewriter.eraseOp(op);
    Operation *loop = linearize(*loops, ranges);
    rewriter.setInsertionPointAfter(loop);

    Value first;
    if (!privateOutputs)
      first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    lane, index(0));
    for (auto [output, partial, combiner] :
         llvm::zip(outputs, partials, combiners)) {
      auto type = cast<MemRefType>(output.getType());
      SmallVector<Value> zeros(type.getRank(), index(0));
      Value mine = memref::LoadOp::create(rewriter, loc, partial, zeros);
      Value row = combineAcrossRow(loc, mine, combiner);
      Value old = memref::LoadOp::create(rewriter, loc, output, zeros);
      Value result = combine(loc, combiner, old, row);
      if (privateOutputs) {
        memref::StoreOp::create(rewriter, loc, result, output, zeros);
      } else {
        auto guard = scf::IfOp::create(rewriter, loc, first, false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        memref::StoreOp::create(rewriter, loc, result, output, zeros);
      }
    }
    needsPartials |= rowThreads > kWarpSize;
    return success();
  }

public:
  /// Whether a block-wide row combined partials in shared memory.
  bool needsPartials = false;

private:
  func::FuncOp kernel;
  IRRewriter rewriter;
  int64_t rowThreads, blockThreads;
  Value tid, lane;
};

struct DistributeRowsPass
    : public fuse::impl::DistributeRowsBase<DistributeRowsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool needsPartials = false;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      auto strategy =
          kernel->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
      if (!isKernel(kernel) || !strategy ||
          strategy.getMapping() != Mapping::rows)
        continue;
      SmallVector<scf::ForallOp> rows;
      for (auto forall : kernel.getBody().getOps<scf::ForallOp>())
        rows.push_back(forall);
      if (rows.size() != 1)
        continue; // No loop: one row, run by lane 0 (see map-kernels-to-gpu).
      RowDistributor distributor(kernel, strategy.getRowThreads(),
                                 strategy.getBlock());
      if (failed(distributor.run(rows.front())))
        return signalPassFailure();
      needsPartials |= distributor.needsPartials;
    }
    if (needsPartials && !SymbolTable::lookupSymbolIn(module, kPartialsName)) {
      OpBuilder b(module.getBodyRegion());
      auto type = MemRefType::get(
          {kWarpSize}, b.getF32Type(), AffineMap(),
          gpu::AddressSpaceAttr::get(b.getContext(),
                                     gpu::AddressSpace::Workgroup));
      memref::GlobalOp::create(b, module.getLoc(), kPartialsName,
                               b.getStringAttr("private"), type, Attribute(),
                               /*constant=*/false, IntegerAttr());
    }
  }
};
} // namespace
