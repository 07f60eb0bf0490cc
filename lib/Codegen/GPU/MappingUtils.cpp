//===- MappingUtils.cpp - What the GPU mappings share ---------------------===//

#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace fuse {

FailureOr<LoopBounds> getLoopBounds(scf::ParallelOp loop) {
  LoopBounds bounds;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return failure();
    bounds.lbs.push_back(*l);
    bounds.steps.push_back(*s);
    bounds.extents.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
  }
  return bounds;
}

void delinearize(OpBuilder &b, Location loc, Value linear,
                 const LoopBounds &bounds, int64_t from, int64_t to,
                 MutableArrayRef<Value> ivs) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value rest = linear;
  for (int64_t i = to - 1; i >= from; --i) {
    Value idx = arith::RemUIOp::create(b, loc, rest, c(bounds.extents[i]));
    rest = arith::DivUIOp::create(b, loc, rest, c(bounds.extents[i]));
    ivs[i] = arith::AddIOp::create(
        b, loc, c(bounds.lbs[i]),
        arith::MulIOp::create(b, loc, idx, c(bounds.steps[i])));
  }
}

void inlineLoopBody(scf::ParallelOp loop, Block *target, ArrayRef<Value> ivs) {
  Block *body = loop.getBody();
  body->getTerminator()->erase(); // scf.reduce, with no operands here
  target->getOperations().splice(std::prev(target->end()),
                                 body->getOperations());
  for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
    arg.replaceAllUsesWith(iv);
  loop.erase();
}

Value addSharedCopy(OpBuilder &b, gpu::GPUFuncOp func, int64_t elements,
                    Type elementType, Location loc) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  Value copy = func.addWorkgroupAttribution(
      MemRefType::get({elements}, elementType, AffineMap(), workgroup), loc);
  func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1,
                                   LLVM::LLVMDialect::getAlignAttrName(),
                                   b.getI64IntegerAttr(16));
  return copy;
}

Value combineAcrossLanes(OpBuilder &b, Location loc, Value x, int64_t lanes,
                         bool max) {
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  for (int64_t offset = 1; offset < lanes; offset *= 2) {
    Value shift = arith::ConstantIntOp::create(b, loc, offset, 32);
    Value other =
        gpu::ShuffleOp::create(b, loc, x, shift, width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    x = max ? Value(arith::MaximumFOp::create(b, loc, x, other))
            : Value(arith::AddFOp::create(b, loc, x, other));
  }
  return x;
}

Value emitRoundElement(OpBuilder &b, Location loc, Value first, int64_t r,
                       int64_t threads, Value tid, int64_t vector) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // One op at a time, so that the IR does not depend on the order in
  // which the C++ compiler evaluates arguments.
  Value round = arith::AddIOp::create(b, loc, first, c(r));
  Value roundStart = arith::MulIOp::create(b, loc, round, c(threads));
  Value thread = arith::AddIOp::create(b, loc, roundStart, tid);
  return arith::MulIOp::create(b, loc, thread, c(vector));
}

void emitRoundGroups(OpBuilder &b, Location loc, int64_t rounds,
                     function_ref<void(Value, int64_t)> emitRounds) {
  constexpr int64_t kRounds = 4;
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  if (rounds <= kRounds) {
    emitRounds(c(0), rounds);
    return;
  }
  auto groups = scf::ForOp::create(b, loc, c(0), c(rounds), c(kRounds));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(groups.getBody());
  emitRounds(groups.getInductionVar(), kRounds);
}

Value collapseToFlat(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

} // namespace fuse
