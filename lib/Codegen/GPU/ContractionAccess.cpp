//===- ContractionAccess.cpp - How a contraction's loop reads its operands ===//
//
// Indices are decomposed into sums of multiples of induction variables
// through arith's index ops and the offsets of subviews.
//
//===----------------------------------------------------------------------===//

#include "ContractionAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace fuse::contraction;

static std::optional<IndexExpr> decompose(Value v, ArrayRef<Value> symbols) {
  IndexExpr expr;
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    expr.constant = *c;
    return expr;
  }
  if (llvm::is_contained(symbols, v)) {
    expr.terms[v] = 1;
    return expr;
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<IndexExpr> lhs = decompose(op->getOperand(0), symbols);
  std::optional<IndexExpr> rhs = decompose(op->getOperand(1), symbols);
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(op)) {
    lhs->add(*rhs);
    return lhs;
  }
  if (isa<arith::SubIOp>(op)) {
    lhs->add(*rhs, -1);
    return lhs;
  }
  if (isa<arith::MulIOp>(op)) {
    if (lhs->nonZeroTerms().empty()) {
      IndexExpr product;
      product.add(*rhs, lhs->constant);
      return product;
    }
    if (rhs->nonZeroTerms().empty()) {
      IndexExpr product;
      product.add(*lhs, rhs->constant);
      return product;
    }
  }
  return std::nullopt;
}

static std::optional<IndexExpr> decompose(OpFoldResult value,
                                          ArrayRef<Value> symbols) {
  if (std::optional<int64_t> c = getConstantIntValue(value)) {
    IndexExpr expr;
    expr.constant = *c;
    return expr;
  }
  if (auto v = dyn_cast<Value>(value))
    return decompose(v, symbols);
  return std::nullopt;
}

/// How `expr` indexes a dim: by one of the loop's induction variables
/// `ivs` plus a constant within its step (a thread tile's offset), by the
/// reduction's `k`, or by a constant.
static std::optional<DimUse> classify(const IndexExpr &expr,
                                      ArrayRef<Value> ivs, Value k,
                                      ArrayRef<int64_t> steps) {
  SmallVector<std::pair<Value, int64_t>> terms = expr.nonZeroTerms();
  if (terms.empty())
    return DimUse{DimKind::Fixed, -1, expr.constant};
  if (terms.size() != 1 || terms.front().second != 1)
    return std::nullopt;
  Value symbol = terms.front().first;
  if (symbol == k)
    return expr.constant == 0
               ? std::optional<DimUse>(DimUse{DimKind::Reduction})
               : std::nullopt;
  for (auto [d, iv] : llvm::enumerate(ivs))
    if (iv == symbol && expr.constant >= 0 && expr.constant < steps[d])
      return DimUse{DimKind::Loop, int64_t(d), expr.constant};
  return std::nullopt;
}

BlockArgument fuse::contraction::getReshapedArgument(Value memref) {
  while (Operation *op = memref.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
      return nullptr;
    memref = op->getOperand(0);
  }
  auto argument = dyn_cast<BlockArgument>(memref);
  if (!argument || !isa<gpu::GPUFuncOp>(argument.getOwner()->getParentOp()))
    return nullptr;
  return argument;
}

std::optional<Access> fuse::contraction::getAccess(memref::LoadOp load,
                                                   ArrayRef<Value> ivs, Value k,
                                                   ArrayRef<int64_t> steps) {
  SmallVector<Value> symbols(ivs);
  symbols.push_back(k);
  SmallVector<IndexExpr> indices;
  for (Value index : load.getIndices()) {
    std::optional<IndexExpr> expr = decompose(index, symbols);
    if (!expr)
      return std::nullopt;
    indices.push_back(*expr);
  }
  Value buffer = load.getMemRef();
  while (auto subview = buffer.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getSourceType().getRank() != subview.getType().getRank() ||
        !llvm::all_of(subview.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return std::nullopt;
    for (auto [d, offset] : llvm::enumerate(subview.getMixedOffsets())) {
      std::optional<IndexExpr> expr = decompose(offset, symbols);
      if (!expr)
        return std::nullopt;
      indices[d].add(*expr);
    }
    buffer = subview.getSource();
  }
  if (!getReshapedArgument(buffer))
    return std::nullopt;
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  Access access{load, buffer, {}};
  for (const IndexExpr &expr : indices) {
    std::optional<DimUse> use = classify(expr, ivs, k, steps);
    if (!use)
      return std::nullopt;
    access.dims.push_back(*use);
  }
  return access;
}

bool fuse::contraction::isOnlyRead(Value memref) {
  return llvm::all_of(memref.getUsers(), [](Operation *user) {
    if (isa<memref::LoadOp>(user))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    return view && isOnlyRead(view->getResult(0));
  });
}

BlockArgument fuse::contraction::getRootArgument(Value memref,
                                                 gpu::GPUFuncOp func) {
  while (Operation *op = memref.getDefiningOp()) {
    if (!isa<ViewLikeOpInterface>(op))
      return nullptr;
    memref = cast<ViewLikeOpInterface>(op).getViewSource();
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner() != &func.getBody().front() ||
      arg.getArgNumber() >= func.getNumArguments())
    return nullptr;
  return arg;
}
