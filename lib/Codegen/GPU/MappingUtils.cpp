//===- MappingUtils.cpp - What the GPU mappings share ---------------------===//

#include "fuse/Codegen/GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

Value fuse::emitMma16816(OpBuilder &b, Location loc, Value a, Value bFragment,
                         Value acc) {
  Type element = cast<VectorType>(a.getType()).getElementType();
  if (element.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, acc,
                                    ArrayRef<int64_t>{16, 8, 16});
  // nvgpu's lowering deduces f16 operands only: bf16 goes to nvvm.mma.sync,
  // each pair of elements an i32 register.
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto pairs = [&](Value fragment, int64_t count) {
    SmallVector<Value> registers;
    for (int64_t i = 0; i < count; ++i) {
      Value pair = vector::ExtractOp::create(b, loc, fragment, i);
      registers.push_back(LLVM::BitcastOp::create(b, loc, i32, pair));
    }
    return registers;
  };
  SmallVector<Value> sums;
  for (int64_t i = 0; i < 4; ++i)
    sums.push_back(vector::ExtractOp::create(b, loc, acc,
                                             ArrayRef<int64_t>{i / 2, i % 2}));
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, f32));
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, pairs(a, 4), pairs(bFragment, 2), sums,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> values;
  for (int64_t i = 0; i < 4; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return vector::FromElementsOp::create(b, loc, VectorType::get({2, 2}, f32),
                                        values);
}
