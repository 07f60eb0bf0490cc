//===- ContractionTiles.cpp - Contractions in block and thread tiles ------===//
//
// The `tiles` mapping of a generated contraction: a MatMul's or Gemm's
// kernel after fuse-jam-thread-tiles, whose parallel loop steps by the
// thread tile and whose body keeps the tile's accumulators in one
// reduction loop, then applies the epilogue to each and stores it.
//
// Each block takes `block_tile` iterations per dim of the loop, each of its
// threads one thread tile of them. The reduction loop runs `k_tile`
// iterations at a time: the block first copies what those iterations read
// of each operand that several of its threads share (a matmul's rows of A,
// which the threads along N share, and B's columns, shared along M) into
// shared memory, in coalesced loads (128-bit where the rows allow), and
// its threads then read them from there. The reduction dim comes first in
// the shared copy, so that a thread's tile reads neighbouring elements
// (one 128-bit shared load for 4 of them); a copy whose reduction dim was
// the innermost in global memory has its rows padded by 4 elements, so
// that the transposing stores do not all fall into one bank.
//
// A thread past the loop's end (a partial block tile) computes the last
// thread tile again and stores nothing: every thread must reach the
// block's barriers.
//
//===----------------------------------------------------------------------===//

#include "ContractionAccess.h"
#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::contraction;

namespace {

/// An operand the block stages: the shape of its box (the part of it one
/// chunk of the reduction loop reads), in its own dims, and the strides of
/// the shared copy, whose dims are in `layout` order.
struct StagedOperand {
  Value buffer;
  SmallVector<DimUse> dims;
  SmallVector<int64_t> box;
  SmallVector<int64_t> sharedStrides;
  int64_t sharedElements = 0;
  SmallVector<Access, 4> accesses;
  Value copy;
  /// When the innermost dim of the shared copy is the loop's last dim,
  /// whose `threads` threads each read `tile` (8 or more) neighbouring
  /// elements of it: the copy stores them in groups of 4, the first group
  /// of every thread's tile, then the second, and so on (see
  /// interleaveOffset). 0 when the dim is stored in order.
  int64_t interleaveDim = -1, interleaveTile = 0, interleaveThreads = 0;
};
} // namespace

/// Where element `x` of an interleaved dim goes in the shared copy: in
/// order, a thread's 128-bit shared loads of its tile would be `tile`
/// floats apart across a warp's threads, two or more to a bank (ncu:
/// 10.0 M of 24.2 M shared-load wavefronts were conflicts on a 128 x 128
/// block of 8 x 8 tiles); interleaved, the threads' loads of one group
/// are contiguous. x = q * tile + r goes to (r / 4) * threads * 4 + q * 4
/// + r % 4.
static Value interleaveOffset(OpBuilder &b, Location loc, Value x,
                              int64_t tile, int64_t threads) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value q = arith::DivUIOp::create(b, loc, x, c(tile));
  Value r = arith::RemUIOp::create(b, loc, x, c(tile));
  Value group = arith::DivUIOp::create(b, loc, r, c(4));
  Value lane = arith::RemUIOp::create(b, loc, r, c(4));
  // One op at a time: the order of a call's arguments is the compiler's
  // (GCC and clang built them in opposite orders).
  Value groupStart = arith::MulIOp::create(b, loc, group, c(threads * 4));
  Value threadStart = arith::MulIOp::create(b, loc, q, c(4));
  Value start = arith::AddIOp::create(b, loc, groupStart, threadStart);
  return arith::AddIOp::create(b, loc, start, lane);
}

/// Whether `v` is known to be a multiple of `m` (constants, and loop
/// induction variables, sums and products of such).
static bool isKnownMultiple(Value v, int64_t m) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % m == 0;
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      return arg == loop.getInductionVar() &&
             isKnownMultiple(loop.getLowerBound(), m) &&
             isKnownMultiple(loop.getStep(), m);
  Operation *op = v.getDefiningOp();
  if (isa_and_present<arith::AddIOp, arith::SubIOp>(op))
    return isKnownMultiple(op->getOperand(0), m) &&
           isKnownMultiple(op->getOperand(1), m);
  if (isa_and_present<arith::MulIOp>(op))
    return isKnownMultiple(op->getOperand(0), m) ||
           isKnownMultiple(op->getOperand(1), m);
  return false;
}

/// The kernel's reduction loop: the one innermost scf.for whose body loads
/// at indices that use its induction variable, reached from the function
/// body through scf.for ops only (every thread runs it: the block's
/// barriers go inside it). Null when there is no such loop, or several.
static scf::ForOp findReductionLoop(gpu::GPUFuncOp func) {
  SmallVector<scf::ForOp> candidates;
  func.walk([&](scf::ForOp loop) {
    bool hasInnerLoop =
        loop.getBody()
            ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (hasInnerLoop)
      return;
    bool reads = llvm::any_of(
        loop.getBody()->getOps<memref::LoadOp>(), [&](memref::LoadOp load) {
          return llvm::any_of(load.getIndices(), [&](Value index) {
            return index == loop.getInductionVar() ||
                   (index.getDefiningOp() &&
                    llvm::is_contained(index.getDefiningOp()->getOperands(),
                                       loop.getInductionVar()));
          });
        });
    if (reads)
      candidates.push_back(loop);
  });
  if (candidates.size() != 1)
    return nullptr;
  scf::ForOp loop = candidates.front();
  if (getConstantIntValue(loop.getStep()) != 1)
    return nullptr;
  for (Operation *parent = loop->getParentOp(); parent != func;
       parent = parent->getParentOp())
    if (!isa<scf::ForOp>(parent))
      return nullptr;
  return loop;
}

FailureOr<int64_t> fuse::getTileGridSize(scf::ParallelOp loop,
                                         KernelStrategyAttr strategy) {
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return loop.emitOpError("needs constant bounds for the tiles mapping");
  ArrayRef<int64_t> blockTile = strategy.getBlockTile();
  ArrayRef<int64_t> threadTile = strategy.getThreadTile();
  if (blockTile.size() != bounds->extents.size())
    return loop.emitOpError("has ")
           << bounds->extents.size() << " dims but the block tile of "
           << strategy << " has " << blockTile.size();
  int64_t grid = 1;
  for (auto [d, extent] : llvm::enumerate(bounds->extents)) {
    if (bounds->steps[d] != threadTile[d])
      return loop.emitOpError("dim ")
             << d << " steps by " << bounds->steps[d]
             << ", not by the thread tile of " << strategy;
    grid *= llvm::divideCeil(extent, blockTile[d] / threadTile[d]);
  }
  return grid;
}

/// Plans the operands of `reduction` the block stages: every load of the
/// operand in the loop is understood, the operand has one reduction dim,
/// and some tiled dim of the loop does not index it (threads along it
/// share what it reads). Each has `buffers` shared copies (one per chunk
/// in flight); operands that would pass the shared memory budget are left
/// in global memory.
static SmallVector<StagedOperand, 4>
planStagedOperands(scf::ForOp reduction, ArrayRef<Value> ivs,
                   ArrayRef<int64_t> steps, ArrayRef<int64_t> tilesPerBlock,
                   int64_t kTile, int64_t buffers) {
  llvm::MapVector<Value, SmallVector<Access, 4>> byBuffer;
  Value k = reduction.getInductionVar();
  for (memref::LoadOp load : reduction.getBody()->getOps<memref::LoadOp>()) {
    std::optional<Access> access = getAccess(load, ivs, k, steps);
    if (!access) {
      // A load we cannot place may still read a staged operand: then that
      // operand's copy is not the only reader, which is fine.
      continue;
    }
    byBuffer[access->buffer].push_back(std::move(*access));
  }
  SmallVector<StagedOperand, 4> staged;
  int64_t sharedBytes = 0;
  for (auto &[buffer, accesses] : byBuffer) {
    auto type = cast<MemRefType>(buffer.getType());
    // The block's copy must stay what the buffer holds: nothing may write
    // the buffer, directly or through a view.
    if (!isOnlyRead(getReshapedArgument(buffer)))
      continue;
    SmallVector<DimUse> dims = accesses.front().dims;
    bool consistent = llvm::all_of(accesses, [&](const Access &a) {
      for (auto [x, y] : llvm::zip(a.dims, dims))
        if (x.kind != y.kind || x.loopDim != y.loopDim ||
            (x.kind == DimKind::Fixed && x.constant != y.constant))
          return false;
      return true;
    });
    int64_t reductionDims = llvm::count_if(
        dims, [](const DimUse &u) { return u.kind == DimKind::Reduction; });
    if (!consistent || reductionDims != 1)
      continue;
    SmallVector<bool> indexedBy(ivs.size(), false);
    for (const DimUse &use : dims)
      if (use.kind == DimKind::Loop)
        indexedBy[use.loopDim] = true;
    bool shared = false;
    for (auto [d, count] : llvm::enumerate(tilesPerBlock))
      shared |= count > 1 && !indexedBy[d];
    if (!shared)
      continue;

    StagedOperand operand;
    operand.buffer = buffer;
    operand.dims = dims;
    int64_t rank = type.getRank(), reductionDim = -1;
    for (auto [d, use] : llvm::enumerate(dims)) {
      switch (use.kind) {
      case DimKind::Loop:
        operand.box.push_back(tilesPerBlock[use.loopDim] * steps[use.loopDim]);
        break;
      case DimKind::Reduction:
        operand.box.push_back(kTile);
        reductionDim = d;
        break;
      case DimKind::Fixed:
        operand.box.push_back(1);
        break;
      }
    }
    // The shared copy: the reduction dim first, then the others in order;
    // rows padded when that transposes the operand.
    SmallVector<int64_t> layout = {reductionDim};
    for (int64_t d = 0; d < rank; ++d)
      if (d != reductionDim)
        layout.push_back(d);
    bool transposed = reductionDim == rank - 1 && rank > 1 &&
                      operand.box[layout.back()] > 1;
    operand.sharedStrides.assign(rank, 0);
    int64_t stride = 1;
    for (int64_t i = rank - 1; i >= 0; --i) {
      int64_t d = layout[i];
      operand.sharedStrides[d] = stride;
      int64_t extent = operand.box[d];
      if (i == rank - 1 && transposed)
        extent += 4;
      stride *= extent;
    }
    // Whole 16-byte groups, so that every buffer of several starts aligned.
    operand.sharedElements = llvm::alignTo(stride, 4);
    const DimUse &inner = dims[layout.back()];
    int64_t lastLoopDim = int64_t(ivs.size()) - 1;
    if (!transposed && rank > 1 && inner.kind == DimKind::Loop &&
        inner.loopDim == lastLoopDim && steps[lastLoopDim] >= 8 &&
        steps[lastLoopDim] % 4 == 0 && tilesPerBlock[lastLoopDim] > 1) {
      operand.interleaveDim = layout.back();
      operand.interleaveTile = steps[lastLoopDim];
      operand.interleaveThreads = tilesPerBlock[lastLoopDim];
    }
    int64_t bytes =
        buffers * operand.sharedElements * type.getElementTypeBitWidth() / 8;
    if (sharedBytes + bytes > kMaxStaticSharedBytes)
      continue;
    sharedBytes += bytes;
    operand.accesses = accesses;
    staged.push_back(std::move(operand));
  }
  return staged;
}

namespace {
/// One round of a block's copy of an operand box: which element of the
/// box the thread takes (4 at once with vectors), whether the box has it,
/// where it goes in the shared copy, and the values loaded for it (not yet
/// zeroed past the operand's end: `inside` says which are real).
struct CopyRound {
  Value inBox, globalOffset, sharedOffset, inside;
  SmallVector<Value, 4> values;
};

/// How a block copies the box of a staged operand: adjacent threads read
/// adjacent elements of the box in global memory, `vector` at once (4
/// where the box's rows stay 16-byte aligned), in `rounds` rounds.
struct OperandCopy {
  const StagedOperand *operand;
  Value flat;
  int64_t vector = 1, rounds = 0;
};
} // namespace

static OperandCopy planOperandCopy(OpBuilder &b, Location loc,
                                   const StagedOperand &operand,
                                   bool originAligned, int64_t threads) {
  auto type = cast<MemRefType>(operand.buffer.getType());
  ArrayRef<int64_t> shape = type.getShape();
  OperandCopy copy;
  copy.operand = &operand;
  copy.vector =
      originAligned && operand.box.back() % 4 == 0 && shape.back() % 4 == 0
          ? 4
          : 1;
  copy.rounds = llvm::divideCeil(computeProduct(operand.box),
                                 threads * copy.vector);
  copy.flat = collapseToFlat(b, loc, operand.buffer);
  return copy;
}

/// Where `count` rounds of `copy` from round `first` on take their elements
/// of the box at `origin` (one value per dim of the operand): the flat
/// offset each reads (clamped to the operand's last element), whether it
/// is inside the operand, and its place in the shared copy. No values yet.
static SmallVector<CopyRound, 4>
planCopyRounds(OpBuilder &b, Location loc, const OperandCopy &copy,
               ArrayRef<Value> origin, Value tid, int64_t threads, Value first,
               int64_t count) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  const StagedOperand &operand = *copy.operand;
  auto type = cast<MemRefType>(operand.buffer.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank(), vector = copy.vector;
  ArrayRef<int64_t> box = operand.box;
  int64_t elements = computeProduct(box);
  SmallVector<int64_t> globalStrides = computeStrides(shape);
  SmallVector<CopyRound, 4> rounds;
  for (int64_t r = 0; r < count; ++r) {
    CopyRound round;
    Value element =
        emitRoundElement(b, loc, first, r, threads, tid, vector);
    round.inBox = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        element, c(elements));
    // The element's place in the box, row-major.
    SmallVector<Value> coords(rank);
    Value rest = element;
    for (int64_t d = rank - 1; d >= 0; --d) {
      coords[d] = arith::RemUIOp::create(b, loc, rest, c(box[d]));
      rest = arith::DivUIOp::create(b, loc, rest, c(box[d]));
    }
    Value inside = round.inBox;
    Value globalOffset = c(0), sharedOffset = c(0);
    for (int64_t d = 0; d < rank; ++d) {
      Value at = arith::AddIOp::create(b, loc, origin[d], coords[d]);
      if (operand.dims[d].kind != DimKind::Fixed)
        inside = arith::AndIOp::create(
            b, loc, inside,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at,
                                  c(shape[d])));
      int64_t last = shape[d] - (d == rank - 1 ? vector : 1);
      Value clamped = arith::MinUIOp::create(b, loc, at, c(last));
      globalOffset = arith::AddIOp::create(
          b, loc, globalOffset,
          arith::MulIOp::create(b, loc, clamped, c(globalStrides[d])));
      Value place = d == operand.interleaveDim
                        ? interleaveOffset(b, loc, coords[d],
                                           operand.interleaveTile,
                                           operand.interleaveThreads)
                        : coords[d];
      sharedOffset = arith::AddIOp::create(
          b, loc, sharedOffset,
          arith::MulIOp::create(b, loc, place, c(operand.sharedStrides[d])));
    }
    round.inside = inside;
    round.globalOffset = globalOffset;
    round.sharedOffset = sharedOffset;
    rounds.push_back(std::move(round));
  }
  return rounds;
}

/// Issues the global loads of `count` rounds of `copy` from round `first`
/// on, of the box at `origin`. Loads past the operand's end read its last
/// element (clamped) and are marked outside.
static SmallVector<CopyRound, 4>
loadCopyRounds(OpBuilder &b, Location loc, const OperandCopy &copy,
               ArrayRef<Value> origin, Value tid, int64_t threads, Value first,
               int64_t count) {
  SmallVector<CopyRound, 4> rounds =
      planCopyRounds(b, loc, copy, origin, tid, threads, first, count);
  for (CopyRound &round : rounds)
    for (int64_t j = 0; j < copy.vector; ++j) {
      Value offset = arith::AddIOp::create(
          b, loc, round.globalOffset, arith::ConstantIndexOp::create(b, loc, j));
      round.values.push_back(
          memref::LoadOp::create(b, loc, copy.flat, ValueRange{offset}));
    }
  return rounds;
}

/// Copies the box of `copy`'s operand at `origin` into its shared copy
/// from `base` on with asynchronous copies (cp.async): no register holds
/// the values on the way, and a copy of an element past the operand's end
/// reads nothing and writes 0. A round's vector goes as one 16-byte copy
/// where the shared copy keeps its elements together, else element by
/// element (a transposing copy).
static void issueAsyncCopy(OpBuilder &b, Location loc, const OperandCopy &copy,
                           ArrayRef<Value> origin, Value tid, int64_t threads,
                           Value base) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  const StagedOperand &operand = *copy.operand;
  int64_t innerStride = operand.sharedStrides.back();
  int64_t perCopy = innerStride == 1 ? copy.vector : 1;
  emitRoundGroups(b, loc, copy.rounds, [&](Value first, int64_t count) {
    for (const CopyRound &round :
         planCopyRounds(b, loc, copy, origin, tid, threads, first, count)) {
      auto ifInBox = scf::IfOp::create(b, loc, round.inBox, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifInBox.thenBlock());
      Value all = c(perCopy), none = c(0);
      Value sources =
          arith::SelectOp::create(b, loc, round.inside, all, none);
      Value start = arith::AddIOp::create(b, loc, base, round.sharedOffset);
      for (int64_t j = 0; j < copy.vector; j += perCopy) {
        Value from = arith::AddIOp::create(b, loc, round.globalOffset, c(j));
        Value to = arith::AddIOp::create(b, loc, start, c(j * innerStride));
        // 16-byte copies may bypass L1 (cp.async.cg): the block reads
        // them from shared memory.
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, operand.copy, ValueRange{to}, copy.flat, ValueRange{from},
            b.getIndexAttr(perCopy), sources,
            perCopy == 4 ? b.getUnitAttr() : UnitAttr());
      }
    }
  });
}

/// Stores loaded rounds into the shared copy, elements past the operand's
/// end as 0. The zeroing waits for the loads, so it is done here, not
/// where they are issued.
static void storeCopyRounds(OpBuilder &b, Location loc,
                            const OperandCopy &copy,
                            ArrayRef<CopyRound> rounds) {
  const StagedOperand &operand = *copy.operand;
  Type elementType =
      cast<MemRefType>(operand.buffer.getType()).getElementType();
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  int64_t innerStride = operand.sharedStrides.back();
  for (const CopyRound &round : rounds) {
    auto ifInBox = scf::IfOp::create(b, loc, round.inBox, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInBox.thenBlock());
    for (auto [j, value] : llvm::enumerate(round.values)) {
      Value kept = arith::SelectOp::create(b, loc, round.inside, value, zero);
      Value offset = arith::AddIOp::create(
          b, loc, round.sharedOffset,
          arith::ConstantIndexOp::create(b, loc, int64_t(j) * innerStride));
      memref::StoreOp::create(b, loc, kept, operand.copy, ValueRange{offset});
    }
  }
}

/// Copies the box of `copy`'s operand at `origin` into its shared copy,
/// every load of a group of rounds issued before their stores: one round's
/// latency, not one per round.
static void emitOperandCopy(OpBuilder &b, Location loc,
                            const OperandCopy &copy, ArrayRef<Value> origin,
                            Value tid, int64_t threads) {
  emitRoundGroups(b, loc, copy.rounds, [&](Value first, int64_t count) {
    storeCopyRounds(
        b, loc, copy,
        loadCopyRounds(b, loc, copy, origin, tid, threads, first, count));
  });
}

/// `upper - lower` when it is a constant: both constants, or `upper` is
/// `lower` plus a constant (a block of a blocked accumulation).
static std::optional<int64_t> getConstantTripSpan(Value lower, Value upper) {
  std::optional<int64_t> l = getConstantIntValue(lower);
  std::optional<int64_t> u = getConstantIntValue(upper);
  if (l && u)
    return *u - *l;
  if (auto add = upper.getDefiningOp<arith::AddIOp>()) {
    if (add.getLhs() == lower)
      return getConstantIntValue(add.getRhs());
    if (add.getRhs() == lower)
      return getConstantIntValue(add.getLhs());
  }
  return std::nullopt;
}

/// Iterations of a whole chunk's loop unrolled into one: LLVM leaves the
/// loop of a thread tile's FMAs rolled (64 of them for 8 x 8), paying the
/// loop's branch and address arithmetic every step.
static constexpr int64_t kMaxChunkUnroll = 16;

/// Unrolls the loop of a whole chunk (`chunk` to `chunk + kTile`) by the
/// largest divisor of `kTile` up to kMaxChunkUnroll: its bounds become 0
/// and `kTile` first, so that the trip count is a constant.
static void unrollChunk(OpBuilder &b, scf::ForOp loop, Value chunk,
                        int64_t kTile) {
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  loop.getLowerBoundMutable().assign(arith::ConstantIndexOp::create(b, loc, 0));
  loop.getUpperBoundMutable().assign(
      arith::ConstantIndexOp::create(b, loc, kTile));
  b.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  auto k = arith::AddIOp::create(b, loc, chunk, iv);
  iv.replaceAllUsesExcept(k, k);
  int64_t factor = kMaxChunkUnroll;
  while (kTile % factor != 0)
    --factor;
  if (factor > 1)
    (void)loopUnrollByFactor(loop, factor);
}

/// Appends what the chunk loop carries of loaded `rounds` to `values`:
/// each round's values, then whether they are inside the operand (the
/// order in which stageReduction reads them back from the iter_args).
static void appendCarried(SmallVectorImpl<Value> &values,
                          ArrayRef<CopyRound> rounds) {
  for (const CopyRound &round : rounds) {
    llvm::append_range(values, round.values);
    values.push_back(round.inside);
  }
}

/// Registers a thread may hold for the next chunk's copies (`stages = 2`);
/// past it the block waits for each chunk's loads instead.
static constexpr int64_t kMaxPrefetchValues = 32;

/// Splits `reduction` into chunks of `kTile` iterations; at the start of
/// each, the block copies the chunk's boxes of the staged operands into
/// shared memory between two barriers, and the loads of the staged
/// operands in the loop read the copies. With `stages = 2` the global
/// loads of a chunk's boxes are issued one chunk ahead (the first before
/// the loop), their values carried to the next iteration in registers:
/// they are in flight while the block computes. With `asyncCopy` each
/// operand has `stages` shared buffers, chunk i in buffer i % stages, and
/// the copies of the next `stages - 1` chunks are asynchronous (cp.async,
/// one commit group a chunk) while the block computes one: one barrier a
/// chunk both publishes its copies and frees the buffer read before it.
static void stageReduction(OpBuilder &b, scf::ForOp reduction,
                           MutableArrayRef<StagedOperand> operands,
                           ArrayRef<Value> blockStart,
                           ArrayRef<bool> blockStartAligned,
                           ArrayRef<Value> threadOffset,
                           ArrayRef<Value> threadIndex, Value tid,
                           int64_t threads, int64_t kTile, int64_t stages,
                           bool asyncCopy) {
  Location loc = reduction.getLoc();
  auto c = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  b.setInsertionPoint(reduction);
  Value lower = reduction.getLowerBound(), upper = reduction.getUpperBound();
  bool chunkAligned = kTile % 4 == 0 && isKnownMultiple(lower, 4);
  // Where each operand's box starts for the chunk at `chunk`.
  auto originOf = [&](OpBuilder &ob, const StagedOperand &operand,
                      Value chunk) {
    SmallVector<Value> origin;
    for (const DimUse &use : operand.dims) {
      switch (use.kind) {
      case DimKind::Loop:
        origin.push_back(blockStart[use.loopDim]);
        break;
      case DimKind::Reduction:
        origin.push_back(chunk);
        break;
      case DimKind::Fixed:
        origin.push_back(c(ob, use.constant));
        break;
      }
    }
    return origin;
  };
  SmallVector<OperandCopy, 4> copies;
  int64_t prefetchValues = 0;
  for (StagedOperand &operand : operands) {
    const DimUse &last = operand.dims.back();
    bool aligned = last.kind == DimKind::Loop
                       ? blockStartAligned[last.loopDim]
                   : last.kind == DimKind::Reduction ? chunkAligned
                                                     : last.constant % 4 == 0;
    copies.push_back(planOperandCopy(b, loc, operand, aligned, threads));
    prefetchValues += copies.back().rounds * copies.back().vector;
  }
  bool prefetch =
      !asyncCopy && stages == 2 && prefetchValues <= kMaxPrefetchValues;
  // Issues the asynchronous copies of the chunk at `at` into the buffers
  // numbered `buffer`, and commits them as one group.
  auto issueChunk = [&](Value at, Value buffer) {
    for (const OperandCopy &copy : copies) {
      Value base = arith::MulIOp::create(
          b, loc, buffer, c(b, copy.operand->sharedElements));
      issueAsyncCopy(b, loc, copy, originOf(b, *copy.operand, at), tid,
                     threads, base);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };

  // The first chunk's loads, and the values the loop carries: the sums,
  // then each round's loaded values and whether they are inside.
  SmallVector<Value> inits(reduction.getInitArgs());
  int64_t numSums = inits.size();
  if (prefetch)
    for (const OperandCopy &copy : copies)
      appendCarried(inits, loadCopyRounds(b, loc, copy,
                                          originOf(b, *copy.operand, lower),
                                          tid, threads, c(b, 0), copy.rounds));
  // (Operands built one statement at a time: the order of a call's
  // arguments is the C++ compiler's, and the IR's would follow it.)
  if (asyncCopy)
    for (int64_t ahead = 0; ahead + 1 < stages; ++ahead) {
      Value at = arith::AddIOp::create(b, loc, lower, c(b, ahead * kTile));
      Value buffer = c(b, ahead);
      issueChunk(at, buffer);
    }
  // Where the chunk's shared copy of each operand starts.
  SmallVector<Value> readBase(operands.size(), c(b, 0));
  auto chunks = scf::ForOp::create(b, loc, lower, upper, c(b, kTile), inits);
  reduction->replaceAllUsesWith(chunks.getResults().take_front(numSums));
  Block *body = chunks.getBody();
  // (scf.for made a terminator if the loop carries no values.)
  if (!body->empty())
    body->back().erase();
  b.setInsertionPointToStart(body);
  Value chunk = chunks.getInductionVar();
  SmallVector<Value> carried;
  if (asyncCopy) {
    // This chunk's group is done once at most the `stages - 2` issued after
    // it are in flight.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value done = arith::SubIOp::create(b, loc, chunk, lower);
    Value index = arith::DivUIOp::create(b, loc, done, c(b, kTile));
    Value ahead = arith::AddIOp::create(b, loc, index, c(b, stages - 1));
    Value next =
        arith::AddIOp::create(b, loc, chunk, c(b, (stages - 1) * kTile));
    Value nextBuffer = arith::RemUIOp::create(b, loc, ahead, c(b, stages));
    issueChunk(next, nextBuffer);
    Value buffer = arith::RemUIOp::create(b, loc, index, c(b, stages));
    for (auto [base, operand] : llvm::zip(readBase, operands))
      base = arith::MulIOp::create(b, loc, buffer,
                                   c(b, operand.sharedElements));
  } else if (prefetch) {
    // The next chunk's loads go first: they touch no shared memory.
    Value next = arith::AddIOp::create(b, loc, chunk, c(b, kTile));
    SmallVector<SmallVector<CopyRound, 4>, 4> nextRounds;
    for (const OperandCopy &copy : copies) {
      nextRounds.push_back(loadCopyRounds(b, loc, copy,
                                          originOf(b, *copy.operand, next),
                                          tid, threads, c(b, 0), copy.rounds));
      appendCarried(carried, nextRounds.back());
    }
    // The previous chunk's readers are done with the copies.
    gpu::BarrierOp::create(b, loc);
    // This chunk's values, loaded one iteration ago, go where the next
    // chunk's will (the same place in the box).
    auto args = chunks.getRegionIterArgs().drop_front(numSums);
    for (auto [copy, rounds] : llvm::zip(copies, nextRounds)) {
      SmallVector<CopyRound, 4> current;
      for (const CopyRound &round : rounds) {
        CopyRound now{round.inBox, round.globalOffset, round.sharedOffset,
                      Value(), {}};
        now.values.assign(args.begin(), args.begin() + copy.vector);
        now.inside = args[copy.vector];
        args = args.drop_front(copy.vector + 1);
        current.push_back(std::move(now));
      }
      storeCopyRounds(b, loc, copy, current);
    }
  } else {
    gpu::BarrierOp::create(b, loc);
    for (const OperandCopy &copy : copies)
      emitOperandCopy(b, loc, copy, originOf(b, *copy.operand, chunk), tid,
                      threads);
  }
  if (!asyncCopy)
    gpu::BarrierOp::create(b, loc);
  // Whole chunks need no bound: the inner loop then has a constant trip
  // count, which LLVM unrolls (and addresses shared memory with constant
  // offsets).
  Value end = arith::AddIOp::create(b, loc, chunk, c(b, kTile));
  std::optional<int64_t> trip = getConstantTripSpan(lower, upper);
  if (!trip || *trip % kTile != 0)
    end = arith::MinSIOp::create(b, loc, end, upper);
  reduction->moveBefore(body, body->end());
  reduction.getLowerBoundMutable().assign(chunk);
  reduction.getUpperBoundMutable().assign(end);
  for (auto [init, arg] :
       llvm::zip(reduction.getInitArgsMutable(), chunks.getRegionIterArgs()))
    init.assign(arg);
  b.setInsertionPointToEnd(body);
  SmallVector<Value> yielded(reduction.getResults());
  llvm::append_range(yielded, carried);
  scf::YieldOp::create(b, loc, yielded);
  if (asyncCopy) {
    // The copies of chunks past the end are still in flight: they must land
    // before the block's shared memory goes to another block. And the
    // buffers are free only once every thread has read its last chunk: a
    // blocked accumulation runs this loop again, and its first copies go
    // into them with no barrier before.
    b.setInsertionPointAfter(chunks);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    gpu::BarrierOp::create(b, loc);
  }

  // The staged loads read the copies, at their place in the box: the
  // thread's offset in the block tile plus the load's in the thread tile,
  // and the iteration's in the chunk.
  Value k = reduction.getInductionVar();
  for (auto [operand, base] : llvm::zip(operands, readBase)) {
    for (Access &access : operand.accesses) {
      OpBuilder lb(access.load);
      Value offset = base;
      for (auto [d, use] : llvm::enumerate(access.dims)) {
        Value local;
        if (use.kind == DimKind::Fixed)
          continue;
        if (use.kind == DimKind::Loop && int64_t(d) == operand.interleaveDim) {
          // The thread's tile index times 4, the constant's group and lane
          // added.
          Value tileStart = arith::MulIOp::create(
              lb, loc, threadIndex[use.loopDim], c(lb, 4));
          local = arith::AddIOp::create(
              lb, loc, tileStart,
              c(lb, use.constant / 4 * operand.interleaveThreads * 4 +
                        use.constant % 4));
        } else if (use.kind == DimKind::Loop)
          local = arith::AddIOp::create(lb, loc, threadOffset[use.loopDim],
                                        c(lb, use.constant));
        else
          local = arith::SubIOp::create(lb, loc, k, chunk);
        offset = arith::AddIOp::create(
            lb, loc, offset,
            arith::MulIOp::create(lb, loc, local,
                                  c(lb, operand.sharedStrides[d])));
      }
      Value value = memref::LoadOp::create(lb, access.load.getLoc(),
                                           operand.copy, ValueRange{offset});
      access.load.replaceAllUsesWith(value);
      access.load.erase();
    }
  }
  if (trip && *trip % kTile == 0)
    unrollChunk(b, reduction, chunk, kTile);
}

LogicalResult fuse::distributeTiles(OpBuilder &b, gpu::GPUFuncOp func,
                                    scf::ParallelOp loop,
                                    KernelStrategyAttr strategy) {
  Location loc = loop.getLoc();
  if (failed(getTileGridSize(loop, strategy)))
    return failure();
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  int64_t rank = bounds->extents.size();
  ArrayRef<int64_t> blockTile = strategy.getBlockTile();
  ArrayRef<int64_t> threadTile = strategy.getThreadTile();
  SmallVector<int64_t> tilesPerBlock, gridDims;
  bool partial = false;
  for (int64_t d = 0; d < rank; ++d) {
    tilesPerBlock.push_back(blockTile[d] / threadTile[d]);
    gridDims.push_back(llvm::divideCeil(bounds->extents[d],
                                        tilesPerBlock.back()));
    partial |= bounds->extents[d] % tilesPerBlock.back() != 0;
  }

  b.setInsertionPoint(loop);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // Block tiles and thread tiles row-major, the last dim fastest: adjacent
  // threads compute (and store) adjacent tiles of a row.
  SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
  LoopBounds grid{zeros, ones, gridDims}, threads{zeros, ones, tilesPerBlock};
  SmallVector<Value> blockIndex(rank), localIndex(rank);
  delinearize(b, loc, bid, grid, 0, rank, blockIndex);
  delinearize(b, loc, tid, threads, 0, rank, localIndex);
  Value valid = arith::ConstantIntOp::create(b, loc, 1, 1);
  SmallVector<Value> ivs, blockStart, threadOffset, threadIndex;
  SmallVector<bool> blockStartAligned;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t step = bounds->steps[d], extent = bounds->extents[d];
    Value first =
        arith::MulIOp::create(b, loc, blockIndex[d], c(tilesPerBlock[d]));
    Value index = arith::AddIOp::create(b, loc, first, localIndex[d]);
    if (extent % tilesPerBlock[d] != 0) {
      valid = arith::AndIOp::create(
          b, loc, valid,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                c(extent)));
      index = arith::MinUIOp::create(b, loc, index, c(extent - 1));
    }
    Value start = arith::AddIOp::create(
        b, loc, c(bounds->lbs[d]), arith::MulIOp::create(b, loc, first, c(step)));
    Value iv = arith::AddIOp::create(
        b, loc, c(bounds->lbs[d]), arith::MulIOp::create(b, loc, index, c(step)));
    ivs.push_back(iv);
    blockStart.push_back(start);
    blockStartAligned.push_back(bounds->lbs[d] % 4 == 0 &&
                                (tilesPerBlock[d] * step) % 4 == 0);
    // The thread's tile in the block tile, and its offset there.
    threadIndex.push_back(arith::SubIOp::create(b, loc, index, first));
    threadOffset.push_back(
        arith::MulIOp::create(b, loc, threadIndex.back(), c(step)));
  }
  inlineLoopBody(loop, &func.getBody().front(), ivs);

  // Threads past the loop's end store nothing.
  if (partial) {
    SmallVector<memref::StoreOp> stores;
    func.walk([&](memref::StoreOp store) {
      if (getRootArgument(store.getMemRef(), func))
        stores.push_back(store);
    });
    for (memref::StoreOp store : stores) {
      OpBuilder sb(store);
      auto ifValid = scf::IfOp::create(sb, store.getLoc(), valid, false);
      store->moveBefore(ifValid.thenBlock()->getTerminator());
    }
  }

  int64_t kTile = strategy.getKTile();
  if (kTile == 0)
    return success();
  scf::ForOp reduction = findReductionLoop(func);
  if (!reduction)
    return success();
  SmallVector<StagedOperand, 4> operands = planStagedOperands(
      reduction, ivs, bounds->steps, tilesPerBlock, kTile, /*buffers=*/1);
  if (operands.empty())
    return success();
  int64_t stages = strategy.getStages(), buffers = 1;
  bool asyncCopy = strategy.getAsyncCopy();
  if (asyncCopy) {
    // Asynchronous copies want a buffer per chunk in flight: as many as
    // leave every operand staged, at least 2; else the registers' way.
    for (buffers = stages; buffers >= 2; --buffers) {
      SmallVector<StagedOperand, 4> multiple = planStagedOperands(
          reduction, ivs, bounds->steps, tilesPerBlock, kTile, buffers);
      if (multiple.size() == operands.size()) {
        operands = std::move(multiple);
        break;
      }
    }
    // (The loop ends at 1 buffer when none fit.)
    asyncCopy = buffers >= 2;
    stages = asyncCopy ? buffers : 2;
  }
  b.setInsertionPointToStart(&func.getBody().front());
  for (StagedOperand &operand : operands)
    operand.copy = addSharedCopy(
        b, func, buffers * operand.sharedElements,
        cast<MemRefType>(operand.buffer.getType()).getElementType(), loc);
  stageReduction(b, reduction, operands, blockStart, blockStartAligned,
                 threadOffset, threadIndex, tid, strategy.getBlock(), kTile,
                 stages, asyncCopy);
  // Views that only the staged loads read.
  SmallVector<Operation *> dead;
  func.walk([&](memref::SubViewOp view) {
    if (view->use_empty())
      dead.push_back(view);
  });
  for (Operation *op : llvm::reverse(dead))
    op->erase();
  return success();
}
