//===- MapKernelsToGPU.cpp - Kernels as gpu.func, mapped by strategy ----===//
//
// A bufferized kernel is a function of memrefs whose work is one top-level
// scf.parallel. It becomes a gpu.func in `gpu.module @fuse_kernels`; the
// loop's iteration space is flattened to one dimension and mapped as the
// kernel's strategy says: `flat`, each thread runs the iteration with its
// linear id, so adjacent threads touch adjacent output elements (coalesced
// stores, and coalesced loads for elementwise and pooling kernels); `rows`,
// the threads of a warp or block share an iteration (a row), whose work
// fuse-distribute-rows split over them; `planes`, a block computes whole
// planes of the output (the loop's last two dims) from a copy in shared
// memory of the planes of each input the loop reads a window of (a
// depthwise convolution's or a pooling's input): each element is read from
// global memory once, in coalesced loads, instead of once per window that
// covers it; `attention`, a fuse.attention kernel built by blocks of query
// rows (AttentionTiles.cpp), and `attention_mma`, the same on tensor cores
// (AttentionMmaTiles.cpp); `transpose`, a block computes a tile of a loop
// that reads an input in another order than its own, from a copy of the
// input's tile in shared memory (TransposeTiles.cpp); `mma`, a contraction
// on tensor cores (ContractionMmaTiles.cpp). A kernel with no
// parallel loop runs in one thread, or, marked `fuse.one_row`, as one row
// of the block's threads.
//
//===----------------------------------------------------------------------===//

#include "fuse/Codegen/Attention.h"
#include "fuse/Codegen/GPUMapping.h"
#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/runtime/Artifact.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace fuse {
#define GEN_PASS_DEF_MAPKERNELSTOGPU
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

static constexpr StringLiteral kModuleName = "fuse_kernels";

/// Replaces the top-level `loop` by the iteration of the calling thread (or
/// row of threads).
static FailureOr<int64_t> distributeLoop(OpBuilder &b, scf::ParallelOp loop,
                                         KernelStrategyAttr strategy) {
  Location loc = loop.getLoc();
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return failure();
  ArrayRef<int64_t> extents = bounds->extents;
  int64_t total = bounds->total();

  b.setInsertionPoint(loop);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // flat: a thread per iteration; rows: `row_threads` per iteration.
  int64_t perBlock = strategy.getBlock();
  Value local = tid;
  if (strategy.getMapping() == Mapping::rows) {
    perBlock = strategy.getBlock() / strategy.getRowThreads();
    local = perBlock == 1 ? c(0)
                          : arith::DivUIOp::create(
                                b, loc, tid, c(strategy.getRowThreads()))
                                .getResult();
  }
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, c(perBlock)), local);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        linear, c(total));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  SmallVector<Value> ivs(extents.size());
  delinearize(b, loc, linear, *bounds, 0, extents.size(), ivs);
  inlineLoopBody(loop, guard.thenBlock(), ivs);
  return total;
}

/// An input of a `planes` kernel whose planes the block copies into shared
/// memory: every access to it is a load in the kernel's loop whose leading
/// indices are the loop's leading induction variables (0 for its dims of
/// extent 1), so the loop's plane p reads only the input's plane p.
struct StagedInput {
  BlockArgument buffer;
  int64_t planeElements; // the input's last two dims
  SmallVector<memref::LoadOp> loads;
};

/// Whether an access of a buffer of `shape` at `indices` (plus the
/// offsets of a subview it goes through, when given) is at the plane the
/// iteration of `loop` computes: its leading indices are the loop's
/// induction variables in order, 0 for dims of extent 1.
static bool accessesIterationPlane(ArrayRef<int64_t> shape, ValueRange indices,
                                   ArrayRef<OpFoldResult> offsets,
                                   scf::ParallelOp loop) {
  auto isZero = [](OpFoldResult v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c == 0;
  };
  auto ivs = loop.getInductionVars();
  unsigned next = 0;
  for (int64_t d = 0, e = shape.size() - 2; d < e; ++d) {
    bool noOffset = offsets.empty() || isZero(offsets[d]);
    if (shape[d] == 1) {
      if (!noOffset || !isZero(indices[d]))
        return false;
      continue;
    }
    if (next >= ivs.size())
      return false;
    Value iv = ivs[next++];
    bool atIndex = noOffset && indices[d] == iv;
    bool atOffset = !noOffset && isZero(indices[d]) &&
                    llvm::dyn_cast_if_present<Value>(offsets[d]) == iv;
    if (!atIndex && !atOffset)
      return false;
  }
  return true;
}

/// Offset (localPlane * height + row) * width + col into a block's shared
/// copy of its planes.
static Value buildPlaneOffset(OpBuilder &b, Location loc, Value localPlane,
                              int64_t height, int64_t width, Value row,
                              Value col) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value planeRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, localPlane, c(height)), row);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, planeRow, c(width)), col);
}

/// Whether `loads` of `buffer` in `loop` read the same plane as the
/// iteration computes, and a window of it: more loads than outputs (a
/// thread tile's), or a load in a loop of the body.
static std::optional<StagedInput>
matchStagedInput(BlockArgument buffer, scf::ParallelOp loop,
                 ArrayRef<int64_t> leadingExtents, int64_t tileOutputs) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getLayout().isIdentity())
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  // The input's leading dims, less those of extent 1, are the loop's.
  SmallVector<int64_t> leading;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (shape[d] != 1)
      leading.push_back(d);
  if (leading.size() != leadingExtents.size())
    return std::nullopt;
  for (auto [d, extent] : llvm::zip(leading, leadingExtents))
    if (shape[d] != extent)
      return std::nullopt;
  StagedInput input{buffer, shape[rank - 2] * shape[rank - 1], {}};
  bool inInnerLoop = false;
  for (Operation *user : buffer.getUsers()) {
    auto load = dyn_cast<memref::LoadOp>(user);
    if (!load || !loop->isProperAncestor(load))
      return std::nullopt;
    if (!accessesIterationPlane(shape, load.getIndices(), {}, loop))
      return std::nullopt;
    inInnerLoop |= load->getParentOp() != loop.getOperation() &&
                   load->getParentOfType<LoopLikeOpInterface>() != loop;
    input.loads.push_back(load);
  }
  if (input.loads.empty() ||
      (!inInnerLoop && int64_t(input.loads.size()) <= tileOutputs))
    return std::nullopt;
  return input;
}

/// The number of leading dims of `loop` that count the planes of the
/// kernel's output (its last argument, an out-param): the output's dims
/// but the last two, less those of extent 1 (the loop has none). The dims
/// after them run inside a plane; a plane dim that a thread tile covers
/// whole is no loop dim any more.
static FailureOr<int64_t> getLeadingPlaneDims(gpu::GPUFuncOp func,
                                              ArrayRef<int64_t> extents) {
  if (func.getNumArguments() == 0)
    return failure();
  auto output = dyn_cast<MemRefType>(
      func.getArgument(func.getNumArguments() - 1).getType());
  if (!output || !output.hasStaticShape() || output.getRank() < 3)
    return failure();
  SmallVector<int64_t> leading;
  for (int64_t extent : output.getShape().drop_back(2))
    if (extent != 1)
      leading.push_back(extent);
  if (leading.size() >= extents.size() ||
      ArrayRef<int64_t>(extents).take_front(leading.size()) !=
          ArrayRef<int64_t>(leading))
    return failure();
  return static_cast<int64_t>(leading.size());
}

/// Elements a thread moves at once between a block's shared copy of
/// `elements` and a buffer of `total`: 4 (one 128-bit access) where every
/// run stays 16-byte aligned, else 1.
static int64_t copyVectorWidth(int64_t elements, int64_t total) {
  return elements % 4 == 0 && total % 4 == 0 ? 4 : 1;
}

/// Copies the `elements` of `buffer`, seen flat, from `base` on into the
/// shared `copy` (a read past `total` reads its last element instead and
/// goes nowhere). Adjacent threads copy adjacent runs of `vector` elements
/// (4 where the range stays 16-byte aligned, so LLVM makes each run one
/// 128-bit load), and each thread issues the loads of a few rounds
/// before their stores (emitRoundGroups): a loop of load-store pairs would wait out the
/// latency of every load in turn (7x7 planes ran at 42% of the copy
/// bandwidth that way, against 66% without staging).
static void emitStagingCopy(OpBuilder &b, Location loc, Value buffer,
                            Value copy, Value tid, Value base,
                            int64_t elements, int64_t total, int64_t block) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value flat = collapseToFlat(b, loc, buffer);
  int64_t vector = copyVectorWidth(elements, total);
  int64_t rounds = llvm::divideCeil(elements, block * vector);
  auto emitRounds = [&](Value first, int64_t count) {
    SmallVector<Value> offsets, values;
    for (int64_t r = 0; r < count; ++r) {
      Value offset = emitRoundElement(b, loc, first, r, block, tid, vector);
      Value at = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, offset),
          c(total - vector));
      offsets.push_back(offset);
      for (int64_t j = 0; j < vector; ++j)
        values.push_back(memref::LoadOp::create(
            b, loc, flat, arith::AddIOp::create(b, loc, at, c(j)).getResult()));
    }
    for (int64_t r = 0; r < count; ++r) {
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           offsets[r], c(elements));
      auto ifInside = scf::IfOp::create(b, loc, inside, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifInside.thenBlock());
      for (int64_t j = 0; j < vector; ++j)
        memref::StoreOp::create(
            b, loc, values[r * vector + j], copy,
            arith::AddIOp::create(b, loc, offsets[r], c(j)).getResult());
    }
  };
  emitRoundGroups(b, loc, rounds, emitRounds);
}

/// A store of a `planes` kernel's output: directly, or through a subview
/// of unit strides (a thread tile's element), whose offsets add to the
/// store's indices.
struct StagedStore {
  memref::StoreOp store;
  SmallVector<OpFoldResult> offsets; // empty for a direct store
};

/// The stores of a `planes` kernel's output (its last argument) when every
/// access to it is a store in `loop` at the plane the iteration computes
/// (leading indices the loop's leading induction variables, 0 for dims of
/// extent 1): a block's output planes can then be written to shared memory
/// first. None otherwise.
static std::optional<SmallVector<StagedStore>>
matchStagedOutput(BlockArgument output, scf::ParallelOp loop) {
  auto type = dyn_cast<MemRefType>(output.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 3 ||
      !type.getLayout().isIdentity())
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<StagedStore> stores;
  auto addStore = [&](Operation *user, Value memref,
                      ArrayRef<OpFoldResult> offsets) {
    auto store = dyn_cast<memref::StoreOp>(user);
    if (!store || store.getMemRef() != memref ||
        !loop->isProperAncestor(store) ||
        !accessesIterationPlane(shape, store.getIndices(), offsets, loop))
      return false;
    stores.push_back({store, SmallVector<OpFoldResult>(offsets)});
    return true;
  };
  for (Operation *user : output.getUsers()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      if (subview.getSourceType().getRank() != type.getRank() ||
          subview.getType().getRank() != type.getRank() ||
          !llvm::all_of(subview.getStaticStrides(),
                        [](int64_t s) { return s == 1; }))
        return std::nullopt;
      SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
      for (Operation *viewUser : subview->getUsers())
        if (!addStore(viewUser, subview.getResult(), offsets))
          return std::nullopt;
      continue;
    }
    if (!addStore(user, output, {}))
      return std::nullopt;
  }
  if (stores.empty())
    return std::nullopt;
  return stores;
}

/// Stores the first `valid` of the `elements` in the shared `copy` into
/// `buffer`, seen flat, from `base` on: adjacent threads store adjacent
/// runs of `vector` elements (4 where the range stays 16-byte aligned, one
/// 128-bit store each); a run that reaches past `valid` (the grid's last
/// block) is stored element by element.
static void emitStagedStores(OpBuilder &b, Location loc, Value copy,
                             Value buffer, Value tid, Value base, Value valid,
                             int64_t elements, int64_t total, int64_t block) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value flat = collapseToFlat(b, loc, buffer);
  int64_t vector = copyVectorWidth(elements, total);
  int64_t rounds = llvm::divideCeil(elements, block * vector);
  auto roundLoop = scf::ForOp::create(b, loc, c(0), c(rounds), c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(roundLoop.getBody());
  Value offset = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, roundLoop.getInductionVar(), c(block)),
          tid),
      c(vector));
  auto storeRun = [&](OpBuilder &rb, bool checked) {
    for (int64_t j = 0; j < vector; ++j) {
      Value at = arith::AddIOp::create(rb, loc, offset, c(j));
      OpBuilder::InsertionGuard inner(rb);
      if (checked) {
        Value inside = arith::CmpIOp::create(
            rb, loc, arith::CmpIPredicate::ult, at, valid);
        auto ifInside = scf::IfOp::create(rb, loc, inside, false);
        rb.setInsertionPointToStart(ifInside.thenBlock());
      }
      Value value = memref::LoadOp::create(rb, loc, copy, at);
      memref::StoreOp::create(
          rb, loc, value, flat,
          arith::AddIOp::create(rb, loc, base, at).getResult());
    }
  };
  Value end = arith::AddIOp::create(b, loc, offset, c(vector));
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                      valid);
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  b.setInsertionPointToStart(ifWhole.thenBlock());
  storeRun(b, /*checked=*/false);
  b.setInsertionPointToStart(ifWhole.elseBlock());
  storeRun(b, /*checked=*/true);
}

/// Maps `loop` with the `planes` strategy: block b computes the planes
/// [b * P, (b + 1) * P) of the loop (its leading dims, row-major), after
/// copying those planes of each windowed input into shared memory.
static LogicalResult distributePlanes(OpBuilder &b, gpu::GPUFuncOp func,
                                      scf::ParallelOp loop,
                                      KernelStrategyAttr strategy) {
  Location loc = loop.getLoc();
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return failure();
  int64_t rank = bounds->extents.size();
  ArrayRef<int64_t> extents = bounds->extents;
  FailureOr<int64_t> leadingDims = getLeadingPlaneDims(func, extents);
  if (failed(leadingDims))
    return failure();
  ArrayRef<int64_t> leadingExtents = extents.take_front(*leadingDims);
  int64_t numPlanes = computeProduct(leadingExtents);
  int64_t planeIterations = bounds->total() / numPlanes;
  int64_t planes = strategy.getPlanes(), block = strategy.getBlock();
  int64_t tileOutputs = computeProduct(strategy.getThreadTile());

  SmallVector<StagedInput> staged;
  int64_t sharedBytes = 0;
  for (BlockArgument arg : func.getArguments()) {
    std::optional<StagedInput> input =
        matchStagedInput(arg, loop, leadingExtents, tileOutputs);
    if (!input)
      continue;
    auto type = cast<MemRefType>(arg.getType());
    int64_t bytes =
        planes * input->planeElements * type.getElementTypeBitWidth() / 8;
    if (sharedBytes + bytes > kMaxStaticSharedBytes)
      continue;
    sharedBytes += bytes;
    staged.push_back(std::move(*input));
  }

  b.setInsertionPoint(loop);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value firstPlane = arith::MulIOp::create(b, loc, bid, c(planes));
  SmallVector<Value> copies;
  for (StagedInput &input : staged) {
    auto type = cast<MemRefType>(input.buffer.getType());
    int64_t elements = planes * input.planeElements;
    Value copy = addSharedCopy(b, func, elements, type.getElementType(), loc);
    copies.push_back(copy);
    emitStagingCopy(b, loc, input.buffer, copy, tid,
                    arith::MulIOp::create(b, loc, firstPlane,
                                          c(input.planeElements)),
                    elements, numPlanes * input.planeElements, block);
  }
  if (!staged.empty())
    gpu::BarrierOp::create(b, loc);

  // A staged output: the iterations store into shared memory, then the
  // block stores its planes (below).
  BlockArgument output = func.getArgument(func.getNumArguments() - 1);
  auto outputType = cast<MemRefType>(output.getType());
  int64_t outputHeight = outputType.getShape().take_back(2)[0];
  int64_t outputWidth = outputType.getShape().back();
  int64_t outputPlane = outputHeight * outputWidth;
  std::optional<SmallVector<StagedStore>> outputStores;
  Value outputCopy;
  if (strategy.getStagedOutput()) {
    int64_t bytes =
        planes * outputPlane * outputType.getElementTypeBitWidth() / 8;
    outputStores = matchStagedOutput(output, loop);
    if (outputStores && sharedBytes + bytes <= kMaxStaticSharedBytes)
      outputCopy = addSharedCopy(b, func, planes * outputPlane,
                                 outputType.getElementType(), loc);
    else
      outputStores.reset();
  }

  // The block's iterations, a thread each in turn.
  auto computeLoop =
      scf::ForOp::create(b, loc, tid, c(planes * planeIterations), c(block));
  b.setInsertionPointToStart(computeLoop.getBody());
  Value t = computeLoop.getInductionVar();
  Value localPlane = arith::DivUIOp::create(b, loc, t, c(planeIterations));
  Value inPlane = arith::RemUIOp::create(b, loc, t, c(planeIterations));
  Value plane = arith::AddIOp::create(b, loc, firstPlane, localPlane);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        plane, c(numPlanes));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  // Row-major delinearization: the plane over the leading dims, the
  // position in it over the last two.
  SmallVector<Value> ivs(rank);
  delinearize(b, loc, plane, *bounds, 0, *leadingDims, ivs);
  delinearize(b, loc, inPlane, *bounds, *leadingDims, rank, ivs);

  // Staged loads read the block's copy: plane `localPlane`, same position,
  // at (localPlane * height + row) * width + col.
  for (auto [input, copy] : llvm::zip(staged, copies)) {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(input.buffer.getType()).getShape();
    int64_t height = shape[shape.size() - 2], width = shape.back();
    for (memref::LoadOp load : input.loads) {
      OpBuilder lb(load);
      Location l = load.getLoc();
      ValueRange indices = load.getIndices();
      Value offset =
          buildPlaneOffset(lb, l, localPlane, height, width,
                           indices[indices.size() - 2], indices.back());
      Value value = memref::LoadOp::create(lb, l, copy, offset);
      load.replaceAllUsesWith(value);
      load.erase();
    }
  }

  if (outputStores) {
    // Staged stores write the block's copy at the same place.
    int64_t rank = outputType.getRank();
    for (StagedStore &staged : *outputStores) {
      memref::StoreOp store = staged.store;
      OpBuilder sb(store);
      Location l = store.getLoc();
      // The element's row and column in its plane: a subview's offset
      // plus the store's index.
      auto at = [&](int64_t d) -> Value {
        Value index = store.getIndices()[d];
        if (staged.offsets.empty())
          return index;
        Value offset =
            getValueOrCreateConstantIndexOp(sb, l, staged.offsets[d]);
        return arith::AddIOp::create(sb, l, offset, index);
      };
      Value row = at(rank - 2);
      Value col = at(rank - 1);
      Value offset = buildPlaneOffset(sb, l, localPlane, outputHeight,
                                      outputWidth, row, col);
      memref::StoreOp::create(sb, l, store.getValueToStore(), outputCopy,
                              offset);
      store.erase();
    }
    // The subviews are unused now.
    for (Operation *user : llvm::make_early_inc_range(output.getUsers()))
      if (isa<memref::SubViewOp>(user) && user->use_empty())
        user->erase();
  }

  inlineLoopBody(loop, guard.thenBlock(), ivs);

  if (outputStores) {
    // Every plane of the block is in shared memory: store them, those of
    // planes past the loop's end (the last block) left out.
    b.setInsertionPointAfter(computeLoop);
    gpu::BarrierOp::create(b, loc);
    Value validPlanes = arith::MinUIOp::create(
        b, loc, c(planes), arith::SubIOp::create(b, loc, c(numPlanes),
                                                 firstPlane));
    emitStagedStores(
        b, loc, outputCopy, output, tid,
        arith::MulIOp::create(b, loc, firstPlane, c(outputPlane)),
        arith::MulIOp::create(b, loc, validPlanes, c(outputPlane)),
        planes * outputPlane, numPlanes * outputPlane, block);
  }
  return success();
}

/// Every buffer of a launch is its own region of the plan's arena, aligned
/// as the artifact format requires (the runtime refuses others), and the
/// plan never passes a kernel overlapping buffers where one is written:
/// LLVM may then keep loads across stores, read inputs through the
/// non-coherent cache and merge neighbouring accesses into 128-bit ones.
static void markBuffersDisjoint(OpBuilder &b, gpu::GPUFuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!isa<MemRefType>(func.getArgument(i).getType()))
      continue;
    func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                    b.getUnitAttr());
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(artifact::kAlignment));
  }
}

/// Runs the whole body in thread 0 of block 0.
static void guardSingleThread(OpBuilder &b, gpu::GPUFuncOp func) {
  Block &entry = func.getBody().front();
  Operation *terminator = entry.getTerminator();
  b.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
  auto guard = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  Block *target = guard.thenBlock();
  target->getOperations().splice(
      std::prev(target->end()), entry.getOperations(),
      std::next(Block::iterator(guard)), Block::iterator(terminator));
}

/// Kernels read small constants (e.g. Gather indices) through
/// memref.get_global; the gpu.module is its own symbol table, so each
/// global a kernel reads is copied into it. Host copies no host code reads
/// any more are erased.
static void moveGlobalsIntoGPUModule(ModuleOp module,
                                     gpu::GPUModuleOp gpuModule) {
  SymbolTable gpuSymbols(gpuModule);
  SetVector<StringAttr> read;
  gpuModule.walk(
      [&](memref::GetGlobalOp op) { read.insert(op.getNameAttr().getAttr()); });
  OpBuilder b(gpuModule.getBodyRegion());
  for (StringAttr name : read) {
    if (gpuSymbols.lookup(name))
      continue;
    if (auto global = module.lookupSymbol<memref::GlobalOp>(name))
      gpuSymbols.insert(b.clone(*global));
  }
  DenseSet<StringAttr> hostRead;
  for (auto func : module.getOps<func::FuncOp>())
    func.walk([&](memref::GetGlobalOp op) {
      hostRead.insert(op.getNameAttr().getAttr());
    });
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
    if (read.contains(global.getSymNameAttr()) &&
        !hostRead.contains(global.getSymNameAttr()))
      global.erase();
}

/// Whether every index value the kernels of `gpuModule` compute fits in
/// `bitwidth` bits (as a signed integer): each is a position in a buffer, a
/// loop iteration or a thread id, so it suffices that every memref, and
/// every launch (`launched`: the largest grid * block), has fewer elements.
static bool indicesFitIn(gpu::GPUModuleOp gpuModule, int64_t launched,
                         unsigned bitwidth) {
  if (bitwidth >= 64)
    return true;
  int64_t limit = int64_t(1) << (bitwidth - 1);
  if (launched >= limit)
    return false;
  auto fits = [&](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return !memref ||
           (memref.hasStaticShape() && memref.getNumElements() < limit);
  };
  WalkResult result = gpuModule.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!fits(arg.getType()))
            return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (!fits(type))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

namespace {
struct MapKernelsToGPUPass
    : public fuse::impl::MapKernelsToGPUBase<MapKernelsToGPUPass> {
  using MapKernelsToGPUBase::MapKernelsToGPUBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (indexBitwidth != 32 && indexBitwidth != 64)
      return emitError(UnknownLoc::get(context))
             << "fuse-map-kernels-to-gpu: index-bitwidth must be 32 or 64, "
                "not "
             << static_cast<unsigned>(indexBitwidth);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(&getContext());
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (isKernel(func))
        kernels.push_back(func);
    // The module is made even without kernels (a model whose outputs all
    // fold to constants): the artifact still carries a (empty) kernel image.
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kModuleName);
    if (!gpuModule) {
      b.setInsertionPointToEnd(module.getBody());
      gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kModuleName);
    }

    int64_t launched = 0;
    // The launch bounds of a mapped kernel; its function goes.
    auto finishKernel = [&](func::FuncOp kernel, gpu::GPUFuncOp gpuFunc,
                            KernelStrategyAttr strategy) {
      int32_t block = static_cast<int32_t>(strategy.getBlock());
      int32_t grid = static_cast<int32_t>(strategy.getGrid());
      gpuFunc.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({block, 1, 1}));
      gpuFunc.setKnownGridSizeAttr(b.getDenseI32ArrayAttr({grid, 1, 1}));
      // The blocks of an mma cluster: fixed in the kernel (PTX's
      // .reqnctapercluster), so that a plain launch forms them.
      if (strategy.getMapping() == Mapping::mma && strategy.getSplitK() > 1)
        gpuFunc.setKnownClusterSizeAttr(b.getDenseI32ArrayAttr(
            {static_cast<int32_t>(strategy.getSplitK()), 1, 1}));
      launched = std::max(launched, strategy.getGrid() * strategy.getBlock());
      kernel.erase();
    };
    for (func::FuncOp kernel : kernels) {
      for (Type type : kernel.getArgumentTypes())
        if (!isa<MemRefType>(type)) {
          kernel.emitOpError("must be bufferized before it is mapped to the "
                             "GPU (argument of type ")
              << type << ")";
          return signalPassFailure();
        }
      if (kernel.getNumResults() != 0) {
        kernel.emitOpError("must return its results through out-params");
        return signalPassFailure();
      }
      b.setInsertionPointToEnd(gpuModule.getBody());
      auto gpuFunc = gpu::GPUFuncOp::create(
          b, kernel.getLoc(), kernel.getName(), kernel.getFunctionType());
      gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                       b.getUnitAttr());
      markBuffersDisjoint(b, gpuFunc);
      // Move the body over; the entry block gpu.func made is replaced.
      Region &region = gpuFunc.getBody();
      region.getBlocks().clear();
      region.takeBody(kernel.getBody());
      Block &entry = region.front();
      auto ret = cast<func::ReturnOp>(entry.getTerminator());
      b.setInsertionPoint(ret);
      gpu::ReturnOp::create(b, ret.getLoc());
      ret.erase();

      KernelStrategyAttr strategy =
          kernel->getAttrOfType<KernelStrategyAttr>(kStrategyAttrName);
      if (!strategy) // Hand-written kernels (tests): the pass's default.
        strategy = KernelStrategyAttr::get(&getContext(), Mapping::flat, 1,
                                           blockSize, 1);
      if (strategy.getMapping() == Mapping::loop) {
        kernel.emitOpError("has the cpu strategy ")
            << strategy << "; it cannot run on the GPU";
        return signalPassFailure();
      }
      // fuse.attention's kernel is built from the op (AttentionTiles.cpp,
      // AttentionMmaTiles.cpp).
      if (isAttentionMapping(strategy.getMapping())) {
        auto attentions = llvm::to_vector(entry.getOps<AttentionOp>());
        if (attentions.size() != 1) {
          gpuFunc.emitOpError("strategy ")
              << strategy << " needs a kernel that is one fuse.attention";
          return signalPassFailure();
        }
        if (!attentions.front().hasBufferSemantics()) {
          attentions.front().emitOpError(
              "must be bufferized before it is mapped to the GPU");
          return signalPassFailure();
        }
        if (failed(strategy.getMapping() == Mapping::attention
                       ? mapAttentionTiles(b, gpuFunc, attentions.front(),
                                           strategy)
                       : mapAttentionMmaTiles(b, gpuFunc, attentions.front(),
                                              strategy)))
          return signalPassFailure();
        finishKernel(kernel, gpuFunc, strategy);
        continue;
      }
      SmallVector<scf::ParallelOp> loops;
      for (Operation &op : entry)
        if (auto loop = dyn_cast<scf::ParallelOp>(op))
          loops.push_back(loop);
      if (loops.size() > 1) {
        gpuFunc.emitOpError("has ")
            << loops.size() << " parallel loops; one was expected";
        return signalPassFailure();
      }
      int64_t iterations = 1;
      if (!loops.empty()) {
        FailureOr<LoopBounds> bounds = getLoopBounds(loops.front());
        if (failed(bounds)) {
          gpuFunc.emitOpError("parallel loop has non-constant bounds");
          return signalPassFailure();
        }
        iterations = bounds->total();
        // A `planes` grid covers planes, not iterations.
        if (strategy.getMapping() == Mapping::planes) {
          FailureOr<int64_t> leading =
              getLeadingPlaneDims(gpuFunc, bounds->extents);
          if (failed(leading)) {
            gpuFunc.emitOpError("strategy ")
                << strategy
                << " needs a loop whose leading dims are its output's "
                   "planes (an output of rank 3 or more)";
            return signalPassFailure();
          }
          iterations = computeProduct(
              ArrayRef<int64_t>(bounds->extents).take_front(*leading));
        }
      }
      // The grid the plan launches must cover the loop, with no block
      // beyond it (hand-written kernels get the grid they need).
      if (!kernel->hasAttr(kStrategyAttrName)) {
        int64_t grid = std::max<int64_t>(
            1, (iterations + blockSize - 1) / int64_t(blockSize));
        strategy = KernelStrategyAttr::get(&getContext(), Mapping::flat, grid,
                                           blockSize, 1);
      }
      int64_t perBlock = strategy.getCapacity() / strategy.getGrid();
      int64_t needed = std::max<int64_t>(
          1, (iterations + perBlock - 1) / perBlock);
      if (strategy.getMapping() == Mapping::tiles && !loops.empty()) {
        FailureOr<int64_t> tiles = getTileGridSize(loops.front(), strategy);
        if (failed(tiles))
          return signalPassFailure();
        needed = *tiles;
      }
      if (strategy.getMapping() == Mapping::transpose ||
          strategy.getMapping() == Mapping::mma) {
        if (loops.empty()) {
          gpuFunc.emitOpError("strategy ")
              << strategy << " needs a kernel with a parallel loop";
          return signalPassFailure();
        }
        FailureOr<int64_t> blocks =
            strategy.getMapping() == Mapping::mma
                ? getMmaGridSize(loops.front(), strategy)
                : getTransposeGridSize(loops.front(), strategy);
        if (failed(blocks))
          return signalPassFailure();
        needed = *blocks;
      }
      if (strategy.getGrid() != needed) {
        gpuFunc.emitOpError("strategy ")
            << strategy << " launches " << strategy.getGrid()
            << " blocks but its loop of " << iterations
            << (strategy.getMapping() == Mapping::planes ? " planes"
                                                         : " iterations")
            << " needs "
            << needed;
        return signalPassFailure();
      }
      // Rows of fewer lanes than a warp shuffle and synchronize across the
      // whole warp: no warp may hold rows both in and past the loop.
      if (strategy.getMapping() == Mapping::rows &&
          strategy.getRowThreads() < 32 &&
          iterations % (32 / strategy.getRowThreads()) != 0) {
        gpuFunc.emitOpError("strategy ")
            << strategy << " puts " << 32 / strategy.getRowThreads()
            << " rows in a warp, which do not divide its " << iterations
            << " rows";
        return signalPassFailure();
      }
      if (loops.empty()) {
        // A one-row kernel's lanes guard their own writes.
        if (!kernel->hasAttr(kOneRowAttrName))
          guardSingleThread(b, gpuFunc);
      } else if (strategy.getMapping() == Mapping::planes)
        (void)distributePlanes(b, gpuFunc, loops.front(), strategy);
      else if (strategy.getMapping() == Mapping::tiles) {
        if (failed(distributeTiles(b, gpuFunc, loops.front(), strategy)))
          return signalPassFailure();
      } else if (strategy.getMapping() == Mapping::transpose) {
        if (failed(
                distributeTransposeTiles(b, gpuFunc, loops.front(), strategy)))
          return signalPassFailure();
      } else if (strategy.getMapping() == Mapping::mma) {
        if (failed(distributeMmaTiles(b, gpuFunc, loops.front(), strategy)))
          return signalPassFailure();
      } else
        (void)distributeLoop(b, loops.front(), strategy);
      finishKernel(kernel, gpuFunc, strategy);
    }
    moveGlobalsIntoGPUModule(module, gpuModule);
    // convert-gpu-to-nvvm takes the index width from the module's layout.
    if (indexBitwidth == 32 && indicesFitIn(gpuModule, launched, 32)) {
      MLIRContext *ctx = &getContext();
      auto entry = DataLayoutEntryAttr::get(IndexType::get(ctx),
                                            b.getI64IntegerAttr(32));
      gpuModule->setAttr(DLTIDialect::kDataLayoutAttrName,
                         DataLayoutSpecAttr::get(ctx, {entry}));
    }
  }
};
} // namespace
