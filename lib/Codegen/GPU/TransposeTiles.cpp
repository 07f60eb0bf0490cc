//===- TransposeTiles.cpp - Transposing loops through shared memory -------===//
//
// The `transpose` mapping of a loop that reads an input in another order
// than it writes its output (a Transpose, alone or with elementwise ops
// around it). Mapped flat, adjacent threads store adjacent output
// elements but load input elements a whole input row apart, and a warp's
// loads touch 32 sectors for 64 or 128 useful bytes (docs/models.md,
// "Transposes").
//
// Here each block takes a tile of the loop's iterations: `block_tile[0]`
// of its output run (the loop's last dims, consecutive in the input too)
// by `block_tile[1]` of its input run (the loop dims that are the input's
// innermost), at one index of the other dims. Its threads first copy the
// input's elements of the tile into shared memory, adjacent threads
// loading adjacent input elements, then run the tile's iterations,
// adjacent threads taking adjacent iterations of the output run (adjacent
// output elements), each reading its input element from the copy. The
// copy's rows (one per output-run iteration) hold an odd number of
// elements, so that the 32 elements of a column that a warp reads fall
// into different banks.
//
// The tile's dims come from the first load in the loop whose indices (a
// subview's offsets plus the load's indices) are the loop's induction
// variables in an order whose innermost is not the loop's last; every
// input whose loads are all in that order is staged, the others read
// directly.
//
//===----------------------------------------------------------------------===//

#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace fuse;

namespace {
/// A load of a buffer at the loop's induction variables in some order,
/// directly or through a subview of unit sizes whose offsets hold them.
struct PermutedLoad {
  memref::LoadOp load;
  memref::SubViewOp subview; // null for a direct load
};

/// An input whose loads all read at the transposed order of the loop's
/// induction variables, which the block copies into shared memory.
struct StagedInput {
  BlockArgument buffer;
  SmallVector<int64_t> inputOrder; // loop dim of each input dim of extent > 1
  SmallVector<PermutedLoad> loads;
};
} // namespace

/// The loop dim of each dim of a buffer of `shape` (but those of extent 1,
/// which must be at 0) that an access at `offsets` plus `indices` reads:
/// each index must be one of `ivs` and the other 0. None otherwise.
static std::optional<SmallVector<int64_t>>
getAccessOrder(ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> offsets,
               ValueRange indices, ValueRange ivs) {
  auto isZero = [](OpFoldResult v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c == 0;
  };
  SmallVector<int64_t> order;
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    OpFoldResult offset =
        offsets.empty() ? OpFoldResult() : OpFoldResult(offsets[d]);
    bool noOffset = offsets.empty() || isZero(offset);
    if (shape[d] == 1) {
      if (!noOffset || !isZero(indices[d]))
        return std::nullopt;
      continue;
    }
    Value index;
    if (noOffset)
      index = indices[d];
    else if (isZero(indices[d]))
      index = dyn_cast<Value>(offset);
    auto iv = index ? llvm::find(ivs, index) : ivs.end();
    if (iv == ivs.end())
      return std::nullopt;
    order.push_back(iv - ivs.begin());
  }
  return order;
}

/// The loop dims that `load` reads its buffer at, in the buffer's order
/// (see getAccessOrder), directly or through a subview of unit sizes;
/// none for any other access.
static std::optional<SmallVector<int64_t>>
getLoadOrder(memref::LoadOp load, ValueRange ivs, memref::SubViewOp &subview) {
  Value memref = load.getMemRef();
  SmallVector<OpFoldResult> offsets;
  subview = memref.getDefiningOp<memref::SubViewOp>();
  if (subview) {
    if (subview.getType().getRank() != subview.getSourceType().getRank() ||
        !llvm::all_of(subview.getStaticSizes(),
                      [](int64_t s) { return s == 1; }))
      return std::nullopt;
    offsets = subview.getMixedOffsets();
    memref = subview.getSource();
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  return getAccessOrder(type.getShape(), offsets, load.getIndices(), ivs);
}

/// The loads of `buffer` in `loop` when every access to it is a load at
/// the loop dims `order`; none otherwise.
static std::optional<StagedInput> matchStagedInput(BlockArgument buffer,
                                                   scf::ParallelOp loop,
                                                   ArrayRef<int64_t> order) {
  StagedInput input{buffer, SmallVector<int64_t>(order), {}};
  auto addLoad = [&](Operation *user) {
    auto load = dyn_cast<memref::LoadOp>(user);
    if (!load || !loop->isProperAncestor(load))
      return false;
    memref::SubViewOp subview;
    std::optional<SmallVector<int64_t>> loadOrder =
        getLoadOrder(load, loop.getInductionVars(), subview);
    if (!loadOrder || *loadOrder != order)
      return false;
    input.loads.push_back({load, subview});
    return true;
  };
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::SubViewOp>(user)) {
      for (Operation *viewUser : user->getUsers())
        if (!addLoad(viewUser))
          return std::nullopt;
      continue;
    }
    if (!addLoad(user))
      return std::nullopt;
  }
  if (input.loads.empty())
    return std::nullopt;
  return input;
}

/// The order of the first load in `loop` whose innermost dim is not the
/// loop's last, and the tile dims it gives.
static std::optional<std::pair<SmallVector<int64_t>, TransposeTileDims>>
findTransposedLoad(scf::ParallelOp loop, ArrayRef<int64_t> extents) {
  std::optional<std::pair<SmallVector<int64_t>, TransposeTileDims>> found;
  loop.getBody()->walk([&](memref::LoadOp load) {
    memref::SubViewOp subview;
    std::optional<SmallVector<int64_t>> order =
        getLoadOrder(load, loop.getInductionVars(), subview);
    if (!order)
      return WalkResult::advance();
    std::optional<TransposeTileDims> dims =
        getTransposeTileDims(extents, *order);
    if (!dims)
      return WalkResult::advance();
    found.emplace(std::move(*order), std::move(*dims));
    return WalkResult::interrupt();
  });
  return found;
}

/// Sets `ivs` at `dims` to the iteration `linear` of those dims (row-major
/// over their extents), each as the loop's lower bound plus its step
/// times the iteration.
static void setRunIvs(OpBuilder &b, Location loc, Value linear,
                      const LoopBounds &bounds, ArrayRef<int64_t> dims,
                      MutableArrayRef<Value> ivs) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value rest = linear;
  for (int64_t i = dims.size() - 1; i >= 0; --i) {
    int64_t d = dims[i];
    Value index = i == 0 ? rest
                         : b.createOrFold<arith::RemUIOp>(loc, rest,
                                                          c(bounds.extents[d]));
    if (i != 0)
      rest = b.createOrFold<arith::DivUIOp>(loc, rest, c(bounds.extents[d]));
    ivs[d] = b.createOrFold<arith::AddIOp>(
        loc, c(bounds.lbs[d]),
        b.createOrFold<arith::MulIOp>(loc, index, c(bounds.steps[d])));
  }
}

LogicalResult fuse::distributeTransposeTiles(OpBuilder &b, gpu::GPUFuncOp func,
                                             scf::ParallelOp loop,
                                             KernelStrategyAttr strategy) {
  Location loc = loop.getLoc();
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return failure();
  int64_t rank = bounds->extents.size();

  auto transposed = findTransposedLoad(loop, bounds->extents);
  if (!transposed)
    return loop.emitOpError("has no input read in another order than its "
                            "output, which the transpose mapping needs");
  const TransposeTileDims &tileDims = transposed->second;
  ArrayRef<int64_t> blockTile = strategy.getBlockTile();
  int64_t tileOutput = blockTile[0], tileInput = blockTile[1];
  // Rows of an odd number of elements: a warp reading a column touches
  // 32 different banks (2-byte elements: pairs of rows share none).
  int64_t pitch = tileInput | 1;
  // The staged inputs: those read only in the order of the first
  // transposed load, as many as fit in shared memory.
  SmallVector<StagedInput> staged;
  int64_t sharedBytes = 0;
  for (BlockArgument arg : func.getArguments()) {
    std::optional<StagedInput> input =
        matchStagedInput(arg, loop, transposed->first);
    if (!input)
      continue;
    int64_t bytes =
        tileOutput * pitch *
        llvm::divideCeil(
            cast<MemRefType>(arg.getType()).getElementTypeBitWidth(), 8);
    if (sharedBytes + bytes > kMaxStaticSharedBytes)
      continue;
    sharedBytes += bytes;
    staged.push_back(std::move(*input));
  }

  int64_t tileElements = tileOutput * tileInput;
  int64_t block = strategy.getBlock();
  int64_t outputTiles = llvm::divideCeil(tileDims.outputIterations, tileOutput);
  int64_t inputTiles = llvm::divideCeil(tileDims.inputIterations, tileInput);
  int64_t rounds = llvm::divideCeil(tileElements, block);

  b.setInsertionPoint(loop);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // Block (outer, input tile, output tile), row-major.
  Value outputTile = b.createOrFold<arith::RemUIOp>(loc, bid, c(outputTiles));
  Value rest = b.createOrFold<arith::DivUIOp>(loc, bid, c(outputTiles));
  Value inputTile = b.createOrFold<arith::RemUIOp>(loc, rest, c(inputTiles));
  Value outer = b.createOrFold<arith::DivUIOp>(loc, rest, c(inputTiles));
  Value outputBase =
      b.createOrFold<arith::MulIOp>(loc, outputTile, c(tileOutput));
  Value inputBase = b.createOrFold<arith::MulIOp>(loc, inputTile, c(tileInput));
  SmallVector<Value> outerIvs(rank);
  setRunIvs(b, loc, outer, *bounds, tileDims.outer, outerIvs);

  // The iterations (output run, input run) of a tile element: past the
  // loop's end in a partial tile at its end.
  auto iterationsOf = [&](Value outputLocal, Value inputLocal) {
    Value output = b.createOrFold<arith::AddIOp>(loc, outputBase, outputLocal);
    Value input = b.createOrFold<arith::AddIOp>(loc, inputBase, inputLocal);
    return std::make_pair(output, input);
  };

  // The copy: adjacent threads take adjacent elements of the input run.
  // Every thread issues its loads first, each at an element inside the
  // loop (the last one's where its own is past it), then stores them.
  SmallVector<Value> copies;
  for (StagedInput &input : staged) {
    auto type = cast<MemRefType>(input.buffer.getType());
    Value copy =
        addSharedCopy(b, func, tileOutput * pitch, type.getElementType(), loc);
    copies.push_back(copy);
    SmallVector<Value> values, slots, valid;
    for (int64_t r = 0; r < rounds; ++r) {
      Value element = b.createOrFold<arith::AddIOp>(loc, c(r * block), tid);
      Value outputLocal =
          b.createOrFold<arith::DivUIOp>(loc, element, c(tileInput));
      Value inputLocal =
          b.createOrFold<arith::RemUIOp>(loc, element, c(tileInput));
      auto [output, in] = iterationsOf(outputLocal, inputLocal);
      Value clampedOutput = b.createOrFold<arith::MinUIOp>(
          loc, output, c(tileDims.outputIterations - 1));
      Value clampedInput = b.createOrFold<arith::MinUIOp>(
          loc, in, c(tileDims.inputIterations - 1));
      SmallVector<Value> ivs(outerIvs);
      setRunIvs(b, loc, clampedOutput, *bounds, tileDims.outputRun, ivs);
      setRunIvs(b, loc, clampedInput, *bounds, tileDims.inputRun, ivs);
      SmallVector<Value> indices;
      auto inputOrder = input.inputOrder.begin();
      for (int64_t extent : type.getShape())
        indices.push_back(extent == 1 ? c(0) : ivs[*inputOrder++]);
      values.push_back(memref::LoadOp::create(b, loc, input.buffer, indices));
      slots.push_back(b.createOrFold<arith::AddIOp>(
          loc, b.createOrFold<arith::MulIOp>(loc, outputLocal, c(pitch)),
          inputLocal));
      valid.push_back(tileElements % block == 0 || r + 1 < rounds
                          ? Value()
                          : arith::CmpIOp::create(b, loc,
                                                  arith::CmpIPredicate::ult,
                                                  element, c(tileElements))
                                .getResult());
    }
    for (int64_t r = 0; r < rounds; ++r) {
      OpBuilder::InsertionGuard guard(b);
      if (valid[r]) {
        auto ifValid = scf::IfOp::create(b, loc, valid[r], false);
        b.setInsertionPointToStart(ifValid.thenBlock());
      }
      memref::StoreOp::create(b, loc, values[r], copy, slots[r]);
    }
  }
  if (!staged.empty())
    gpu::BarrierOp::create(b, loc);

  // The tile's iterations: adjacent threads take adjacent iterations of
  // the output run.
  auto computeLoop = scf::ForOp::create(b, loc, c(0), c(rounds), c(1));
  b.setInsertionPointToStart(computeLoop.getBody());
  Value element = b.createOrFold<arith::AddIOp>(
      loc,
      b.createOrFold<arith::MulIOp>(loc, computeLoop.getInductionVar(),
                                    c(block)),
      tid);
  Value inputLocal =
      b.createOrFold<arith::DivUIOp>(loc, element, c(tileOutput));
  Value outputLocal =
      b.createOrFold<arith::RemUIOp>(loc, element, c(tileOutput));
  auto [output, in] = iterationsOf(outputLocal, inputLocal);
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, output,
                            c(tileDims.outputIterations)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, in,
                            c(tileDims.inputIterations)));
  if (tileElements % block != 0)
    inRange = arith::AndIOp::create(
        b, loc, inRange,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, element,
                              c(tileElements)));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  SmallVector<Value> ivs(outerIvs);
  setRunIvs(b, loc, output, *bounds, tileDims.outputRun, ivs);
  setRunIvs(b, loc, in, *bounds, tileDims.inputRun, ivs);
  Value slot = b.createOrFold<arith::AddIOp>(
      loc, b.createOrFold<arith::MulIOp>(loc, outputLocal, c(pitch)),
      inputLocal);

  // Staged loads read the copy.
  for (auto [input, copy] : llvm::zip(staged, copies)) {
    for (PermutedLoad &access : input.loads) {
      OpBuilder lb(access.load);
      Value value =
          memref::LoadOp::create(lb, access.load.getLoc(), copy, slot);
      access.load.replaceAllUsesWith(value);
      access.load.erase();
      if (access.subview && access.subview->use_empty())
        access.subview->erase();
    }
  }
  inlineLoopBody(loop, guard.thenBlock(), ivs);
  return success();
}

FailureOr<int64_t> fuse::getTransposeGridSize(scf::ParallelOp loop,
                                              KernelStrategyAttr strategy) {
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return failure();
  auto transposed = findTransposedLoad(loop, bounds->extents);
  if (!transposed)
    return loop.emitOpError("has no input read in another order than its "
                            "output, which the transpose mapping needs");
  return transposed->second.getGrid(strategy.getBlockTile());
}
