//===- RaiseAttention.cpp - The attention chain as one fuse.attention ----===//
//
// Exporters write a transformer's attention as ops: the heads split off
// the projections (Reshape, Transpose), the scores (MatMul of Q and K
// transposed), a scale (Div or Mul by a scalar; PyTorch's sdpa export
// scales Q and K by sqrt(scale) each, which fuse-simplify-graph has moved
// after the product by now), a mask (Add), Softmax over the keys,
// PyTorch sdpa's IsNaN/Where guard, the product with V, and the heads
// merged back (Transpose, Reshape). This pass raises each such chain to
// one fuse.attention whose operands are the tensors before the head
// Transposes ([batch, sequence, heads, head size]): the Transposes are
// folded into how the op reads them (issue 11, parts 3 and 4).
//
// A head operand is folded when the chain of Reshapes and Transposes
// that makes it is exactly an earlier rank-4 tensor transposed as the op
// needs it (AtomView follows the pieces of that tensor's dims through the
// chain); otherwise the op reads it through a Transpose of its own.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensor.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_EXPANDATTENTION
#define GEN_PASS_DEF_RAISEATTENTION
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// How a chain of Reshapes and Transposes rearranges a tensor X: each
/// dim of the result is a run of "atoms", pieces of X's dims (a Reshape
/// that splits a dim splits its atom in two; one that merges dims makes a
/// run of several). Reshapes read their input in logical (row-major)
/// order, which is the atoms of its dims in order, so following the atoms
/// through the chain is exact, whatever the intermediate views' strides.
/// Unit dims have no atoms.
class AtomView {
public:
  explicit AtomView(ArrayRef<int64_t> shape) {
    for (int64_t size : shape) {
      source.emplace_back();
      dims.emplace_back();
      if (size != 1) {
        source.back().push_back(newAtom(size));
        dims.back().push_back(source.back().back());
      }
    }
  }

  void transpose(ArrayRef<int64_t> perm) {
    SmallVector<SmallVector<int>> permuted;
    for (int64_t d : perm)
      permuted.push_back(dims[d]);
    dims = std::move(permuted);
  }

  /// Regroups the atoms into `shape`, splitting atoms where a new dim ends
  /// inside one; false when the sizes do not line up.
  bool reshape(ArrayRef<int64_t> shape) {
    if (llvm::is_contained(shape, 0))
      return false;
    SmallVector<int> order;
    for (const SmallVector<int> &dim : dims)
      llvm::append_range(order, dim);
    SmallVector<SmallVector<int>> result;
    size_t next = 0;
    for (int64_t size : shape) {
      result.emplace_back();
      int64_t left = size;
      while (left > 1) {
        if (next >= order.size())
          return false;
        int atom = order[next];
        if (sizes[atom] <= left) {
          if (left % sizes[atom] != 0)
            return false;
          left /= sizes[atom];
          result.back().push_back(atom);
          ++next;
          continue;
        }
        if (sizes[atom] % left != 0)
          return false;
        // The new dim ends inside `atom`: its outer part goes here.
        auto [outer, inner] = split(atom, left);
        order[next] = inner;
        result.back().push_back(outer);
        left = 1;
      }
    }
    if (next != order.size())
      return false;
    dims = std::move(result);
    return true;
  }

  /// Whether the view is X transposed by `perm`.
  bool isTransposeOfSource(ArrayRef<int64_t> perm) const {
    if (dims.size() != perm.size())
      return false;
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d] != source[perm[d]])
        return false;
    return true;
  }

private:
  int newAtom(int64_t size) {
    sizes.push_back(size);
    return int(sizes.size()) - 1;
  }

  /// Splits `atom` into an outer atom of `outer` and the inner rest,
  /// wherever it appears.
  std::pair<int, int> split(int atom, int64_t outer) {
    int first = newAtom(outer), second = newAtom(sizes[atom] / outer);
    for (SmallVector<SmallVector<int>> *lists : {&source, &dims})
      for (SmallVector<int> &list : *lists)
        for (size_t i = 0; i < list.size(); ++i)
          if (list[i] == atom) {
            list[i] = second;
            list.insert(list.begin() + i, first);
            break;
          }
    return {first, second};
  }

  SmallVector<int64_t> sizes;
  /// X's dims and the current view's, as runs of atoms.
  SmallVector<SmallVector<int>> source, dims;
};

/// The earliest rank-4 tensor X before `value`, through Reshapes and
/// Transposes, such that `value` is exactly Transpose(X, perm); null when
/// there is none.
Value findTransposedSource(Value value, ArrayRef<int64_t> perm) {
  // The view ops from `value` back, nearest first.
  SmallVector<Operation *> chain;
  Value source = value;
  while (Operation *def = source.getDefiningOp()) {
    if (!isa<ONNXReshapeOp, ONNXTransposeOp>(def))
      break;
    chain.push_back(def);
    source = def->getOperand(0);
  }
  // Each tensor along the chain, earliest first.
  for (size_t start = chain.size(); start > 0; --start) {
    Value candidate = chain[start - 1]->getOperand(0);
    auto candidateType = dyn_cast<RankedTensorType>(candidate.getType());
    if (!candidateType || !candidateType.hasStaticShape() ||
        candidateType.getRank() != 4 || candidateType.getNumElements() == 0)
      continue;
    AtomView view(candidateType.getShape());
    bool ok = true;
    for (size_t i = start; i-- > 0 && ok;) {
      Operation *op = chain[i];
      auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!resultType || !resultType.hasStaticShape()) {
        ok = false;
      } else if (auto transpose = dyn_cast<ONNXTransposeOp>(op)) {
        SmallVector<int64_t> order;
        if (std::optional<ArrayRef<int64_t>> p = transpose.getPerm())
          order.assign(p->begin(), p->end());
        else
          for (int64_t d = resultType.getRank() - 1; d >= 0; --d)
            order.push_back(d);
        view.transpose(order);
      } else {
        ok = view.reshape(resultType.getShape());
      }
    }
    if (ok && view.isTransposeOfSource(perm))
      return candidate;
  }
  return {};
}

/// Transpose(value, perm).
Value createTranspose(OpBuilder &builder, Location loc, Value value,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  return ONNXTransposeOp::create(builder, loc, type.clone(shape), value,
                                 builder.getDenseI64ArrayAttr(perm));
}

/// `value` as the op reads it: the tensor X with value = Transpose(X,
/// perm), found before it, or else a new Transpose of `value` by perm's
/// inverse.
Value getHeadOperand(PatternRewriter &rewriter, Location loc, Value value,
                     ArrayRef<int64_t> perm) {
  if (Value source = findTransposedSource(value, perm))
    return source;
  SmallVector<int64_t> inverse(perm.size());
  for (auto [d, p] : llvm::enumerate(perm))
    inverse[p] = d;
  return createTranspose(rewriter, loc, value, inverse);
}

/// The value of a one-element float constant.
std::optional<double> getScalar(Value value) {
  std::optional<ConstantTensor> constant = readConstant(value, 1);
  if (!constant || !constant->isFloat())
    return std::nullopt;
  return constant->floats[0];
}

bool isStatic4D(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getRank() == 4 &&
         type.getElementType().isF32();
}

/// Raises MatMul(Softmax(scale * MatMul(Q, K^T) + mask), V), anchored at
/// the last MatMul.
struct RaiseAttentionChain : public OpRewritePattern<ONNXMatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXMatMulOp output,
                                PatternRewriter &rewriter) const override {
    Value probabilities = output.getA(), valueHeads = output.getB();
    if (!isStatic4D(output.getResult()) || !isStatic4D(probabilities) ||
        !isStatic4D(valueHeads))
      return rewriter.notifyMatchFailure(output,
                                         "not a static 4-D f32 product");
    // sdpa's guard: Where(IsNaN(p), 0, p).
    ONNXWhereOp guard;
    ONNXIsNaNOp guardIsNaN;
    if (auto where = probabilities.getDefiningOp<ONNXWhereOp>()) {
      auto isNaN = where.getCondition().getDefiningOp<ONNXIsNaNOp>();
      std::optional<double> zero = getScalar(where.getX());
      if (!isNaN || isNaN.getX() != where.getY() || !zero || *zero != 0 ||
          !where->hasOneUse() || !isNaN->hasOneUse() ||
          where.getType() != where.getY().getType())
        return rewriter.notifyMatchFailure(output, "not a guarded Softmax");
      probabilities = where.getY();
      guard = where;
      guardIsNaN = isNaN;
    }
    auto softmax = probabilities.getDefiningOp<ONNXSoftmaxOp>();
    int64_t axis = softmax ? int64_t(softmax.getAxis()) : 0;
    if (!softmax || (axis != -1 && axis != 3))
      return rewriter.notifyMatchFailure(output, "no Softmax over the keys");
    // Its result read by the guard (its IsNaN and Where) or the product
    // only.
    bool used = softmax->hasOneUse();
    if (guard)
      used = llvm::all_of(softmax->getUsers(), [&](Operation *u) {
        return u == guardIsNaN.getOperation() || u == guard.getOperation();
      });
    if (!used)
      return rewriter.notifyMatchFailure(output, "the Softmax has other users");

    // Back from the Softmax: an optional mask Add, then scalar factors.
    Value scores = softmax.getInput();
    Value mask;
    double scale = 1;
    auto singleUse = [](Value v) { return v.hasOneUse(); };
    if (auto add = scores.getDefiningOp<ONNXAddOp>();
        add && singleUse(scores)) {
      for (unsigned i : {0u, 1u}) {
        Value other = add->getOperand(1 - i);
        auto maskType = dyn_cast<RankedTensorType>(other.getType());
        Operation *def = add->getOperand(i).getDefiningOp();
        if (isa_and_present<ONNXMatMulOp, ONNXMulOp, ONNXDivOp>(def) &&
            add->getOperand(i).getType() == add.getType() && maskType &&
            maskType.getRank() == 4 && maskType.getElementType().isF32() &&
            maskType.hasStaticShape()) {
          mask = other;
          scores = add->getOperand(i);
          break;
        }
      }
      if (!mask)
        return rewriter.notifyMatchFailure(output, "not a mask Add");
    }
    while (Operation *def = scores.getDefiningOp()) {
      if (!isa<ONNXMulOp, ONNXDivOp>(def) || !singleUse(scores))
        break;
      std::optional<double> factor = getScalar(def->getOperand(1));
      unsigned scaled = 0;
      if (!factor && isa<ONNXMulOp>(def)) {
        factor = getScalar(def->getOperand(0));
        scaled = 1;
      }
      if (!factor || *factor == 0 ||
          def->getOperand(scaled).getType() != def->getResult(0).getType())
        break;
      scale *= isa<ONNXDivOp>(def) ? 1 / *factor : *factor;
      scores = def->getOperand(scaled);
    }
    auto product = scores.getDefiningOp<ONNXMatMulOp>();
    if (!product || !singleUse(scores) || !isStatic4D(product.getA()) ||
        !isStatic4D(product.getB()) || !isStatic4D(product.getResult()))
      return rewriter.notifyMatchFailure(output, "no MatMul of Q and K^T");

    // [B, H, Sq, D] x [B, H, D, Skv] -> [B, H, Sq, Skv]; V [B, H, Skv, Dv]:
    // equal batch and heads (no broadcast).
    auto shape = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    ArrayRef<int64_t> q = shape(product.getA()), kT = shape(product.getB()),
                      v = shape(valueHeads);
    if (kT[0] != q[0] || kT[1] != q[1] || v[0] != q[0] || v[1] != q[1] ||
        v[2] != kT[3])
      return rewriter.notifyMatchFailure(output, "heads that broadcast");

    Location loc = output.getLoc();
    Value query = getHeadOperand(rewriter, loc, product.getA(), {0, 2, 1, 3});
    Value key = getHeadOperand(rewriter, loc, product.getB(), {0, 2, 3, 1});
    Value value = getHeadOperand(rewriter, loc, valueHeads, {0, 2, 1, 3});
    auto resultType = cast<RankedTensorType>(output.getType());
    ArrayRef<int64_t> o = resultType.getShape();
    auto opType = resultType.clone({o[0], o[2], o[1], o[3]});
    auto attention = AttentionOp::create(
        rewriter, loc, opType, query, key, value, mask,
        rewriter.getF32FloatAttr(float(scale)), static_cast<bool>(guard));
    // The chain the op replaces goes with the product: the rewrite driver
    // erases each of its ops once nothing uses it.
    // The heads merged back: a Transpose [0, 2, 1, 3] after the product is
    // the op's result itself.
    if (output->hasOneUse())
      if (auto merge = dyn_cast<ONNXTransposeOp>(*output->getUsers().begin()))
        if (merge.getPerm() &&
            llvm::equal(*merge.getPerm(), ArrayRef<int64_t>{0, 2, 1, 3})) {
          rewriter.replaceOp(merge, attention.getResult());
          rewriter.eraseOp(output);
          return success();
        }
    rewriter.replaceOp(
        output,
        createTranspose(rewriter, loc, attention.getResult(), {0, 2, 1, 3}));
    return success();
  }
};

/// fuse.attention as the ONNX ops it stands for: the heads transposed
/// to [B, H, S, D] (key and value heads repeated for grouped-query
/// attention), MatMul, scale, mask, Softmax, the guard, MatMul, and the
/// heads transposed back.
struct ExpandAttention : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasBufferSemantics())
      return rewriter.notifyMatchFailure(op, "the buffer form");
    Location loc = op.getLoc();
    auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
    auto transpose = [&](Value v, ArrayRef<int64_t> perm) {
      return createTranspose(rewriter, loc, v, perm);
    };
    ArrayRef<int64_t> q = typeOf(op.getQuery()).getShape();
    ArrayRef<int64_t> k = typeOf(op.getKey()).getShape();
    ArrayRef<int64_t> v = typeOf(op.getValue()).getShape();
    // Key/value head h / g for query head h: each repeated g times.
    auto heads = [&](Value x) -> Value {
      int64_t groups = q[2] / k[2];
      if (groups == 1)
        return x;
      RankedTensorType type = typeOf(x);
      ArrayRef<int64_t> s = type.getShape();
      auto shapeConstant = [&](ArrayRef<int64_t> values) -> Value {
        auto t = RankedTensorType::get({int64_t(values.size())},
                                       rewriter.getI64Type());
        return ONNXConstantOp::create(rewriter, loc, t,
                                      DenseIntElementsAttr::get(t, values));
      };
      SmallVector<int64_t> five = {s[0], s[1], s[2], 1, s[3]};
      Value split = ONNXReshapeOp::create(rewriter, loc, type.clone(five), x,
                                          shapeConstant(five));
      SmallVector<int64_t> wide = {s[0], s[1], s[2], groups, s[3]};
      Value expanded = ONNXExpandOp::create(rewriter, loc, type.clone(wide),
                                            split, shapeConstant(wide));
      SmallVector<int64_t> merged = {s[0], s[1], s[2] * groups, s[3]};
      return ONNXReshapeOp::create(rewriter, loc, type.clone(merged), expanded,
                                   shapeConstant(merged));
    };
    Type f32 = rewriter.getF32Type();
    Value query = transpose(op.getQuery(), {0, 2, 1, 3});
    Value keyT = transpose(heads(op.getKey()), {0, 2, 3, 1});
    Value value = transpose(heads(op.getValue()), {0, 2, 1, 3});
    auto scoresType = RankedTensorType::get({q[0], q[2], q[1], k[1]}, f32);
    Value scores = ONNXMatMulOp::create(rewriter, loc, scoresType, query, keyT);
    auto scalarType = RankedTensorType::get({}, f32);
    Value scale = ONNXConstantOp::create(
        rewriter, loc, scalarType,
        DenseElementsAttr::get(scalarType, op.getScale()));
    scores = ONNXMulOp::create(rewriter, loc, scoresType, scores, scale);
    if (Value mask = op.getMask())
      scores = ONNXAddOp::create(rewriter, loc, scoresType, scores, mask);
    Value probabilities =
        ONNXSoftmaxOp::create(rewriter, loc, scoresType, scores, /*axis=*/-1);
    if (op.getZeroNanProbabilities()) {
      Value isNaN = ONNXIsNaNOp::create(
          rewriter, loc, scoresType.clone(rewriter.getI1Type()), probabilities);
      Value zero = ONNXConstantOp::create(
          rewriter, loc, scalarType,
          DenseElementsAttr::get(scalarType, rewriter.getF32FloatAttr(0)));
      probabilities = ONNXWhereOp::create(rewriter, loc, scoresType, isNaN,
                                          zero, probabilities);
    }
    auto outputType = RankedTensorType::get({q[0], q[2], q[1], v[3]}, f32);
    Value output =
        ONNXMatMulOp::create(rewriter, loc, outputType, probabilities, value);
    rewriter.replaceOp(op, transpose(output, {0, 2, 1, 3}));
    return success();
  }
};

struct ExpandAttentionPass
    : public fuse::impl::ExpandAttentionBase<ExpandAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

struct RaiseAttentionPass
    : public fuse::impl::RaiseAttentionBase<RaiseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseAttentionChain>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
