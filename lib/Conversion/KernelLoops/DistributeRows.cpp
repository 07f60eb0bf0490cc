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
// - where every operand that varies along the innermost loop is contiguous
//   in it and provably aligned, the same split goes by chunks of 16 bytes
//   (8 f16 or 4 f32 elements) instead of elements: lane l takes chunks l,
//   l + R, ..., moving each operand's chunk with one aligned vector.load or
//   vector.store, and runs the op's body once per element of the chunk.
//   One 16-byte access a lane instead of eight 2-byte ones is what lets a
//   row of f16 move at the copy rate;
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
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
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
/// The bytes of one chunk of a vectorized row op: the widest global access
/// of one thread.
static constexpr int64_t kChunkBytes = 16;
/// The alignment the runtime gives every buffer a kernel receives
/// (art::kAlignment).
static constexpr int64_t kArgumentAlignment = 64;

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

/// Whether every access of `memref` whose last index is a multiple of
/// `width` starts at a multiple of `width` elements from an aligned
/// address: the buffer is a kernel argument (whose address the runtime
/// aligns to kArgumentAlignment bytes) of static, row-major shape whose
/// last dim `width` divides, seen through subviews of unit strides whose
/// last offset `width` divides (every other stride is a multiple of the
/// last dim's size).
static bool isChunkAligned(Value memref, int64_t width) {
  while (auto subview = memref.getDefiningOp<memref::SubViewOp>()) {
    if (!subview.hasUnitStride() ||
        subview.getSourceType().getRank() != subview.getType().getRank())
      return false;
    int64_t lastOffset = subview.getStaticOffsets().back();
    if (ShapedType::isDynamic(lastOffset) || lastOffset % width != 0)
      return false;
    memref = subview.getSource();
  }
  auto argument = dyn_cast<BlockArgument>(memref);
  if (!argument)
    return false;
  auto function = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  auto type = dyn_cast<MemRefType>(memref.getType());
  return function && isKernel(function) &&
         argument.getOwner() == &function.getBody().front() && type &&
         type.getRank() > 0 && type.hasStaticShape() &&
         type.getLayout().isIdentity() && type.getShape().back() % width == 0;
}

namespace {
/// How a row op runs by chunks: `width` consecutive iterations of its
/// innermost loop a chunk; `contiguous[i]` says whether operand i varies
/// along that loop (one vector access a chunk) or not (one scalar load a
/// chunk).
struct ChunkPlan {
  int64_t width = 0;
  SmallVector<bool> contiguous;
};
} // namespace

/// The chunks `op` can run by, if any: a linalg.generic with a body of
/// pure ops whose operands that vary along the innermost loop index it in
/// their last dim only, are contiguous and aligned there (isChunkAligned),
/// and whose innermost range the chunk width divides. For an all-reduction
/// (`reduction`) the outputs are per-lane partials that do not vary along
/// the loop.
static std::optional<ChunkPlan> planChunks(linalg::LinalgOp op,
                                           ArrayRef<int64_t> ranges,
                                           bool reduction) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || ranges.empty() || ranges.back() <= 1)
    return std::nullopt;
  for (Operation &inner : generic.getBody()->without_terminator())
    if (!isPure(&inner) || inner.getNumRegions() != 0)
      return std::nullopt;
  unsigned innermost = ranges.size() - 1;
  ChunkPlan plan;
  int64_t narrowest = kChunkBytes;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getElementType().isIntOrFloat())
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool varies = llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(innermost);
    });
    bool output = op.isDpsInit(&operand);
    if (varies && (output && reduction))
      return std::nullopt;
    if (!varies && output && !reduction)
      return std::nullopt;
    if (varies) {
      ArrayRef<AffineExpr> results = map.getResults();
      auto last = dyn_cast<AffineDimExpr>(results.back());
      if (!last || last.getPosition() != innermost ||
          llvm::any_of(results.drop_back(), [&](AffineExpr e) {
            return e.isFunctionOfDim(innermost);
          }))
        return std::nullopt;
      unsigned bits = type.getElementTypeBitWidth();
      if (bits % 8 != 0 || bits / 8 > kChunkBytes)
        return std::nullopt;
      narrowest = std::min<int64_t>(narrowest, bits / 8);
    }
    plan.contiguous.push_back(varies);
  }
  plan.width = kChunkBytes / narrowest;
  if (plan.width < 2 || ranges.back() % plan.width != 0)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (plan.contiguous[operand.getOperandNumber()] &&
        !isChunkAligned(operand.get(), plan.width))
      return std::nullopt;
  return plan;
}

namespace {
class RowDistributor {
public:
  RowDistributor(func::FuncOp kernel, int64_t rowThreads,
                 int64_t blockThreads)
      : kernel(kernel), rewriter(kernel.getContext()), rowThreads(rowThreads),
        blockThreads(blockThreads) {}

  /// Splits the ops of one row, `body` (the row loop's body, or a one-row
  /// kernel's own), over the row's lanes.
  LogicalResult run(Block *body, Location loc) {
    rewriter.setInsertionPointToStart(body);
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
      if (std::optional<ChunkPlan> plan =
              planChunks(op, ranges, /*reduction=*/false)) {
        Operation *after = runByChunks(op, *plan, ranges);
        rewriter.setInsertionPointAfter(after);
        if (!last)
          sync(loc);
        return success();
      }
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

  /// Starts the loop by which the lanes share `count` items: lane l takes
  /// items l, l + R, ..., in rounds whose number is the same in every lane
  /// (a guard skips an item past the end when R does not divide `count`).
  /// Returns the loop and the item, the insertion point where the item's
  /// work goes.
  std::pair<scf::ForOp, Value> startRounds(Location loc, int64_t count) {
    int64_t rounds = (count + rowThreads - 1) / rowThreads;
    auto loop = scf::ForOp::create(rewriter, loc, index(0), index(rounds),
                                   index(1));
    rewriter.setInsertionPointToStart(loop.getBody());
    Value item = arith::AddIOp::create(
        rewriter, loc, lane,
        arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                              index(rowThreads)));
    if (count % rowThreads != 0) {
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, item, index(count));
      auto guard = scf::IfOp::create(rewriter, loc, inRange, false);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
    }
    return {loop, item};
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
    auto [loop, linear] = startRounds(loc, computeProduct(ranges));
    Operation *insertBefore = rewriter.getInsertionBlock()->getTerminator();
    SmallVector<Value> ivs = delinearize(loc, linear, ranges);
    Block *from = inner.getBody();
    for (Operation &op : llvm::make_early_inc_range(from->without_terminator()))
      op.moveBefore(insertBefore);
    for (auto [l, iv] : llvm::zip(loops, ivs))
      cast<scf::ForOp>(l).getInductionVar().replaceAllUsesWith(iv);
    rewriter.eraseOp(outer);
    return loop;
  }

  /// The loop indices of the iteration `linear` (below the product of
  /// `ranges`) in row-major order: the last loop varies fastest.
  SmallVector<Value> delinearize(Location loc, Value linear,
                                 ArrayRef<int64_t> ranges) {
    SmallVector<Value> ivs(ranges.size());
    Value rest = linear;
    int outermost = 0; // The outermost loop of more than one iteration.
    while (outermost + 1 < int(ranges.size()) && ranges[outermost] == 1)
      ++outermost;
    for (int i = static_cast<int>(ranges.size()) - 1; i >= 0; --i) {
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
    return ivs;
  }

  /// The indices `map` gives at loop indices `ivs`.
  SmallVector<Value> applyMap(Location loc, AffineMap map, ValueRange ivs) {
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        indices.push_back(ivs[dim.getPosition()]);
      else if (auto constant = dyn_cast<AffineConstantExpr>(e))
        indices.push_back(index(constant.getValue()));
      else
        indices.push_back(affine::AffineApplyOp::create(
            rewriter, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
    }
    return indices;
  }

  /// Replaces `op` (see planChunks) by a loop over its chunks, lane by
  /// lane as `linearize` does with iterations: lane l takes chunks l,
  /// l + R, ... Each contiguous operand's chunk moves with one vector.load
  /// or vector.store aligned to the chunk's bytes; an operand that does
  /// not vary along the innermost loop is loaded once a chunk; the body
  /// runs once per element of the chunk, an all-reduction's per-lane
  /// partials (its outputs) carried from one element to the next. Returns
  /// the new loop.
  Operation *runByChunks(linalg::LinalgOp op, const ChunkPlan &plan,
                         ArrayRef<int64_t> ranges) {
    auto generic = cast<linalg::GenericOp>(op.getOperation());
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    int64_t width = plan.width;
    auto [loop, chunk] = startRounds(loc, computeProduct(ranges) / width);
    Value first = arith::MulIOp::create(rewriter, loc, chunk, index(width));
    SmallVector<Value> ivs = delinearize(loc, first, ranges);
    unsigned innermost = ranges.size() - 1;

    // Each operand's chunk (a vector) or value (a scalar), and where it is.
    Block *body = generic.getBody();
    SmallVector<Value> values;
    SmallVector<SmallVector<Value>> places;
    auto chunkType = [&](MemRefType type) {
      return VectorType::get({width}, type.getElementType());
    };
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      auto type = cast<MemRefType>(operand.get().getType());
      places.push_back(applyMap(loc, op.getMatchingIndexingMap(&operand), ivs));
      bool read = op.isDpsInput(&operand) ||
                  !body->getArgument(i).use_empty() || !plan.contiguous[i];
      if (!read) {
        values.push_back(Value());
        continue;
      }
      if (plan.contiguous[i])
        values.push_back(vector::LoadOp::create(
            rewriter, loc, chunkType(type), operand.get(), places.back(),
            /*nontemporal=*/false, chunkAlignment(type, width)));
      else
        values.push_back(memref::LoadOp::create(rewriter, loc, operand.get(),
                                                places.back()));
    }

    // The body, once per element; a reduction's outputs (scalars) carry.
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    unsigned numInputs = op.getNumDpsInputs();
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t j = 0; j < width; ++j) {
      IRMapping mapping;
      for (BlockArgument argument : body->getArguments()) {
        unsigned i = argument.getArgNumber();
        Value value = values[i];
        if (!value)
          continue;
        if (plan.contiguous[i])
          value = vector::ExtractOp::create(rewriter, loc, value,
                                            ArrayRef<int64_t>{j});
        mapping.map(argument, value);
      }
      for (Operation &inner : body->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          Value iv = ivs[index.getDim()];
          if (index.getDim() == innermost && j != 0)
            iv = arith::AddIOp::create(rewriter, loc, iv, this->index(j));
          mapping.map(index.getResult(), iv);
          continue;
        }
        rewriter.clone(inner, mapping);
      }
      for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
        Value result = mapping.lookupOrDefault(yield.getOperand(k));
        if (plan.contiguous[numInputs + k])
          results[k].push_back(result);
        else
          values[numInputs + k] = result; // A partial: the next element's.
      }
    }
    for (OpOperand &init : op.getDpsInitsMutable()) {
      unsigned i = init.getOperandNumber();
      auto type = cast<MemRefType>(init.get().getType());
      if (plan.contiguous[i]) {
        Value chunkValue = vector::FromElementsOp::create(
            rewriter, loc, chunkType(type), results[i - numInputs]);
        vector::StoreOp::create(rewriter, loc, chunkValue, init.get(),
                                places[i], /*nontemporal=*/false,
                                chunkAlignment(type, width));
      } else {
        memref::StoreOp::create(rewriter, loc, values[i], init.get(),
                                places[i]);
      }
    }
    rewriter.eraseOp(op);
    return loop;
  }

  /// The alignment of a chunk of `width` elements of `type` (see
  /// isChunkAligned).
  static llvm::MaybeAlign chunkAlignment(MemRefType type, int64_t width) {
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    return llvm::Align(std::min(bytes, kArgumentAlignment));
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
    Operation *loop;
    if (std::optional<ChunkPlan> plan =
            planChunks(op, ranges, /*reduction=*/true)) {
      loop = runByChunks(op, *plan, ranges);
    } else {
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops) || loops->empty())
        return op.emitOpError("could not be lowered to loops for its row");
      rewriter.eraseOp(op);
      loop = linearize(*loops, ranges);
    }
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
      RowDistributor distributor(kernel, strategy.getRowThreads(),
                                 strategy.getBlock());
      if (rows.size() == 1) {
        if (failed(
                distributor.run(rows.front().getBody(), rows.front().getLoc())))
          return signalPassFailure();
      } else if (rows.empty() && strategy.getGrid() == 1 &&
                 strategy.getRowThreads() == strategy.getBlock()) {
        // No loop: the kernel is one row (a reduction to one value), which
        // the whole block shares; map-kernels-to-gpu then runs it in every
        // thread instead of thread 0 alone.
        if (failed(distributor.run(&kernel.getBody().front(), kernel.getLoc())))
          return signalPassFailure();
        kernel->setAttr(kOneRowAttrName, UnitAttr::get(kernel.getContext()));
      } else {
        continue;
      }
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
