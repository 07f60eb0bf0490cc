//===- MapKernelsToGPU.cpp - Kernels as gpu.func, mapped by strategy ----===//
//
// A bufferized kernel is a function of memrefs whose work is one top-level
// scf.parallel. It becomes a gpu.func in `gpu.module @fuse_kernels`; the
// loop's iteration space is flattened to one dimension and mapped as the
// kernel's strategy says: `flat`, each thread runs the iteration with its
// linear id, so adjacent threads touch adjacent output elements (coalesced
// stores, and coalesced loads for elementwise and pooling kernels); `rows`,
// the threads of a warp or block share an iteration (a row), whose work
// fuse-distribute-rows split over them. A kernel with no parallel loop runs
// in one thread (or one row).
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/runtime/Artifact.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

/// The constant value of an index operand, or nullopt.
static std::optional<int64_t> getConstantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// The constant bounds of a parallel loop, per dim: lower bound, step and
/// number of iterations.
struct LoopBounds {
  SmallVector<int64_t> lbs, steps, extents;

  int64_t total() const {
    int64_t total = 1;
    for (int64_t e : extents)
      total *= e;
    return total;
  }
};

/// The bounds of `loop`, or failure for non-constant bounds.
static FailureOr<LoopBounds> getLoopBounds(scf::ParallelOp loop) {
  LoopBounds bounds;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIndex(lb), u = getConstantIndex(ub),
                           s = getConstantIndex(step);
    if (!l || !u || !s || *s <= 0)
      return failure();
    bounds.lbs.push_back(*l);
    bounds.steps.push_back(*s);
    bounds.extents.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
  }
  return bounds;
}

/// Replaces the top-level `loop` by the iteration of the calling thread (or
/// row of threads).
static FailureOr<int64_t> distributeLoop(OpBuilder &b, scf::ParallelOp loop,
                                         KernelStrategyAttr strategy) {
  Location loc = loop.getLoc();
  FailureOr<LoopBounds> bounds = getLoopBounds(loop);
  if (failed(bounds))
    return failure();
  ArrayRef<int64_t> lbs = bounds->lbs, steps = bounds->steps,
                    extents = bounds->extents;
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
  // Row-major delinearization: the last dim varies fastest.
  SmallVector<Value> ivs(extents.size());
  Value rest = linear;
  for (int i = static_cast<int>(extents.size()) - 1; i >= 0; --i) {
    Value idx = arith::RemUIOp::create(b, loc, rest, c(extents[i]));
    rest = arith::DivUIOp::create(b, loc, rest, c(extents[i]));
    ivs[i] = arith::AddIOp::create(
        b, loc, c(lbs[i]), arith::MulIOp::create(b, loc, idx, c(steps[i])));
  }
  Block *body = loop.getBody();
  body->getTerminator()->erase(); // scf.reduce, with no operands here
  Block *target = guard.thenBlock();
  target->getOperations().splice(std::prev(target->end()),
                                 body->getOperations());
  for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
    arg.replaceAllUsesWith(iv);
  loop.erase();
  return total;
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
      if (strategy.getGrid() != needed) {
        gpuFunc.emitOpError("strategy ")
            << strategy << " launches " << strategy.getGrid()
            << " blocks but its loop of " << iterations << " iterations needs "
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
      if (loops.empty())
        guardSingleThread(b, gpuFunc);
      else
        (void)distributeLoop(b, loops.front(), strategy);
      int32_t block = static_cast<int32_t>(strategy.getBlock());
      int32_t grid = static_cast<int32_t>(strategy.getGrid());
      gpuFunc.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({block, 1, 1}));
      gpuFunc.setKnownGridSizeAttr(b.getDenseI32ArrayAttr({grid, 1, 1}));
      launched = std::max(launched, strategy.getGrid() * strategy.getBlock());
      kernel.erase();
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
