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
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

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

  /// Broadcasts unit dims to `shape` (an Expand): each becomes a new atom
  /// that repeats what is inside it; false when the shapes do not match.
  bool expand(ArrayRef<int64_t> from, ArrayRef<int64_t> shape) {
    if (from.size() != shape.size() || shape.size() != dims.size())
      return false;
    for (auto [d, pair] : llvm::enumerate(llvm::zip(from, shape))) {
      auto [in, out] = pair;
      if (in == out)
        continue;
      if (in != 1)
        return false;
      dims[d] = {newAtom(out)};
      repeats.push_back(dims[d].front());
    }
    return true;
  }

  /// Whether the view is X transposed by `perm`, except that X's dim
  /// `heads` may be followed by a repeat (grouped-query heads: each of X's
  /// heads `groups` times in a row), whose size `groups` is set to (1 when
  /// none).
  bool isTransposeOfSource(ArrayRef<int64_t> perm, int64_t heads,
                           int64_t &groups) const {
    groups = 1;
    if (dims.size() != perm.size())
      return false;
    for (size_t d = 0; d < dims.size(); ++d) {
      const SmallVector<int> &expected = source[perm[d]];
      if (dims[d] == expected)
        continue;
      if (perm[d] != heads || dims[d].size() != expected.size() + 1 ||
          !llvm::equal(ArrayRef<int>(dims[d]).drop_back(), expected) ||
          !llvm::is_contained(repeats, dims[d].back()))
        return false;
      groups = sizes[dims[d].back()];
    }
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
  /// Atoms an Expand made: repeats of what is inside them.
  SmallVector<int> repeats;
};

/// A rank-4 tensor that a view of it stands for: `value` is X transposed,
/// its heads (dim `heads` of X) each repeated `groups` times.
struct HeadSource {
  Value tensor;
  int64_t groups = 1;
};

/// The earliest rank-4 tensor X before `value`, through Reshapes,
/// Unsqueezes, Expands of a unit dim and Transposes, such that `value` is
/// exactly Transpose(X, perm), X's dim `heads` perhaps repeated
/// (grouped-query attention: Unsqueeze, Expand, Reshape); null when there
/// is none.
HeadSource findTransposedSource(Value value, ArrayRef<int64_t> perm,
                                int64_t heads) {
  // The view ops from `value` back, nearest first.
  SmallVector<Operation *> chain;
  Value source = value;
  while (Operation *def = source.getDefiningOp()) {
    if (!isa<ONNXReshapeOp, ONNXTransposeOp, ONNXUnsqueezeOp, ONNXExpandOp>(
            def))
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
      auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      if (!resultType || !resultType.hasStaticShape() || !inputType ||
          !inputType.hasStaticShape()) {
        ok = false;
      } else if (auto transpose = dyn_cast<ONNXTransposeOp>(op)) {
        SmallVector<int64_t> order;
        if (std::optional<ArrayRef<int64_t>> p = transpose.getPerm())
          order.assign(p->begin(), p->end());
        else
          for (int64_t d = resultType.getRank() - 1; d >= 0; --d)
            order.push_back(d);
        view.transpose(order);
      } else if (isa<ONNXExpandOp>(op)) {
        ok = view.expand(inputType.getShape(), resultType.getShape());
      } else {
        // Reshape, Unsqueeze: the same elements in the same order.
        ok = view.reshape(resultType.getShape());
      }
    }
    int64_t groups = 1;
    if (ok && view.isTransposeOfSource(perm, heads, groups))
      return {candidate, groups};
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

/// A head operand as the op reads it.
struct HeadOperand {
  Value tensor;
  bool headsFirst = false;
  int64_t groups = 1;
};

/// Q or V ([B, H, S, D], `key` false) or K^T ([B, H, D, S]) as the op
/// reads it: the tensor X it is a view of, [B, S, H, D] or [B, H, S, D]
/// (the heads perhaps repeated, with `repeats`), found before it; else
/// Q or V itself, heads first; else K^T transposed back to [B, S, H, D].
HeadOperand getHeadOperand(PatternRewriter &rewriter, Location loc, Value value,
                           bool key, bool repeats) {
  static constexpr int64_t kKeySequenceFirst[] = {0, 2, 3, 1},
                           kSequenceFirst[] = {0, 2, 1, 3},
                           kKeyHeadsFirst[] = {0, 1, 3, 2},
                           kHeadsFirst[] = {0, 1, 2, 3};
  ArrayRef<int64_t> sequenceFirst = key ? kKeySequenceFirst : kSequenceFirst;
  ArrayRef<int64_t> headsFirst = key ? kKeyHeadsFirst : kHeadsFirst;
  for (auto [perm, heads, first] :
       {std::tuple{sequenceFirst, int64_t(2), false},
        std::tuple{headsFirst, int64_t(1), true}}) {
    HeadSource found = findTransposedSource(value, perm, heads);
    if (found.tensor && (repeats || found.groups == 1))
      return {found.tensor, first, found.groups};
  }
  if (!key)
    return {value, /*headsFirst=*/true, 1};
  SmallVector<int64_t> inverse(sequenceFirst.size());
  for (auto [d, p] : llvm::enumerate(sequenceFirst))
    inverse[p] = d;
  return {createTranspose(rewriter, loc, value, inverse), false, 1};
}

/// Whether `value`, broadcast against [B, H, S, D] tensors, can be read in
/// [B, S, H, D] order through a Reshape (one of its dims 1 and 2, right
/// aligned, is a unit dim), the shape it then has set in `permuted`.
bool isPermutedByReshape(Value value, SmallVectorImpl<int64_t> &permuted) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > 4)
    return false;
  SmallVector<int64_t> shape(4 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  if (shape[1] != 1 && shape[2] != 1)
    return false;
  permuted.assign({shape[0], shape[2], shape[1], shape[3]});
  return true;
}

/// Whether `op` computes each element of a rank-4 result from the same
/// position of its operands, or slices or concatenates along the last
/// dim: then it commutes with swapping dims 1 and 2.
bool commutesWithHeadSwap(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getRank() != 4)
    return false;
  auto isLastDim = [](int64_t axis) { return axis == 3 || axis == -1; };
  if (auto slice = dyn_cast<ONNXSliceOp>(op)) {
    std::optional<SmallVector<int64_t>> axes =
        slice.getAxes() ? getConstantIntValues(slice.getAxes()) : std::nullopt;
    return axes && llvm::all_of(*axes, isLastDim);
  }
  if (auto concat = dyn_cast<ONNXConcatOp>(op))
    return isLastDim(int64_t(concat.getAxis()));
  return isElementwiseOp(op);
}

/// `root` ([B, H, S, D], read by nothing but the attention chain being
/// raised) as a [B, S, H, D] tensor, when it is computed from Transposes
/// [0, 2, 1, 3] of [B, S, H, D] tensors by ops that commute with that
/// swap (a decoder's rotary embedding: Mul, Slice and Concat of the last
/// dim, Neg, Add) and that nothing else reads: the ops are made again on
/// the Transposes' inputs (the other operands, e.g. the rotary's cos and
/// sin, reshaped), so that no Transpose is left. Null otherwise.
Value sinkHeadTransposes(PatternRewriter &rewriter, Value root) {
  Operation *rootOp = root.getDefiningOp();
  if (!rootOp || !root.hasOneUse() || !commutesWithHeadSwap(rootOp))
    return {};
  llvm::SetVector<Operation *> region;
  llvm::SetVector<Operation *> transposes;
  // The other operands, with the shape each is read in.
  llvm::MapVector<Value, SmallVector<int64_t>> others;
  SmallVector<Operation *> worklist = {rootOp};
  constexpr size_t kMaxOps = 64;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (region.contains(op))
      continue;
    if (!commutesWithHeadSwap(op) || region.size() >= kMaxOps)
      return {};
    region.insert(op);
    // A Slice's starts, ends, axes and steps stay as they are.
    unsigned data = isa<ONNXSliceOp>(op) ? 1 : op->getNumOperands();
    for (Value operand : op->getOperands().take_front(data)) {
      Operation *def = operand.getDefiningOp();
      if (auto transpose = dyn_cast_or_null<ONNXTransposeOp>(def)) {
        std::optional<ArrayRef<int64_t>> perm = transpose.getPerm();
        if (perm && llvm::equal(*perm, ArrayRef<int64_t>{0, 2, 1, 3})) {
          transposes.insert(def);
          continue;
        }
      }
      SmallVector<int64_t> permuted;
      if (isPermutedByReshape(operand, permuted)) {
        others.try_emplace(operand, permuted);
        continue;
      }
      if (!def || !isa<ONNXDialect>(def->getDialect()))
        return {};
      worklist.push_back(def);
    }
  }
  // Nothing outside reads what the region computes or the Transposes.
  for (Operation *op : llvm::concat<Operation *const>(region, transposes))
    for (Operation *user : op->getUsers())
      if (op != rootOp && !region.contains(user))
        return {};
  if (transposes.empty())
    return {};

  SmallVector<Operation *> order(region.begin(), region.end());
  llvm::sort(order,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(rootOp);
  Location loc = rootOp->getLoc();
  IRMapping mapping;
  for (Operation *transpose : transposes)
    mapping.map(transpose->getResult(0), transpose->getOperand(0));
  for (auto &entry : others) {
    Value other = entry.first;
    ArrayRef<int64_t> permuted = entry.second;
    auto type = cast<RankedTensorType>(other.getType());
    if (type.getNumElements() == 1)
      continue;
    // One Reshape of each: a rotary's cos and sin serve every layer's Q
    // and K.
    auto earlier = llvm::find_if(other.getUsers(), [&](Operation *user) {
      auto reshape = dyn_cast<ONNXReshapeOp>(user);
      return reshape && reshape->getBlock() == rootOp->getBlock() &&
             reshape->isBeforeInBlock(rootOp) &&
             reshape.getType() == type.clone(permuted);
    });
    if (earlier != other.getUsers().end()) {
      mapping.map(other, (*earlier)->getResult(0));
      continue;
    }
    // Right after the value: where every later layer can reuse it.
    OpBuilder::InsertionGuard atValue(rewriter);
    if (Operation *def = other.getDefiningOp())
      rewriter.setInsertionPointAfter(def);
    else
      rewriter.setInsertionPointToStart(other.getParentBlock());
    Value shape = createI64Constant(rewriter, loc, permuted);
    mapping.map(other, ONNXReshapeOp::create(rewriter, loc,
                                             type.clone(permuted), other, shape)
                           .getResult());
  }
  for (Operation *op : order) {
    Operation *clone = rewriter.clone(*op, mapping);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> s = type.getShape();
    clone->getResult(0).setType(type.clone({s[0], s[2], s[1], s[3]}));
  }
  return mapping.lookup(root);
}

/// Where a [B, S, H, D] head operand's heads are in a larger tensor: the
/// heads [offset, offset + H) of `source`, [B, S, N] viewed as [B, S, N /
/// D, D].
struct HeadWindow {
  Value source;
  int64_t offset = 0;
};

/// `tensor` as a window of heads, when it is a Reshape of a Slice of the
/// last dim of a computed [B, S, N] tensor, starting at a multiple of the
/// head size D (GPT-2's Q, K and V, split off one fused projection): then
/// the op can read the heads where the projection wrote them, and the
/// Slice's copy goes. A view of a graph input or a weight would be a copy
/// itself (of all of it), so those keep their Slice.
std::optional<HeadWindow> findHeadWindow(Value tensor) {
  auto reshape = tensor.getDefiningOp<ONNXReshapeOp>();
  auto slice =
      reshape ? reshape.getData().getDefiningOp<ONNXSliceOp>() : nullptr;
  if (!slice)
    return std::nullopt;
  auto type = cast<RankedTensorType>(tensor.getType());
  auto whole = dyn_cast<RankedTensorType>(slice.getData().getType());
  auto sliced = dyn_cast<RankedTensorType>(slice.getType());
  if (!whole || !whole.hasStaticShape() || whole.getRank() != 3 || !sliced ||
      !sliced.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> t = type.getShape(), w = whole.getShape();
  int64_t size = t[3], length = t[2] * t[3];
  if (size < 1 || w[0] != t[0] || w[1] != t[1] || w[2] % size != 0 ||
      sliced.getShape() != ArrayRef<int64_t>{t[0], t[1], length})
    return std::nullopt;
  std::optional<SmallVector<int64_t>> axes =
      slice.getAxes() ? getConstantIntValues(slice.getAxes()) : std::nullopt;
  std::optional<SmallVector<int64_t>> starts =
      getConstantIntValues(slice.getStarts());
  if (!axes || axes->size() != 1 || ((*axes)[0] != 2 && (*axes)[0] != -1) ||
      !starts || starts->size() != 1)
    return std::nullopt;
  if (slice.getSteps()) {
    std::optional<SmallVector<int64_t>> steps =
        getConstantIntValues(slice.getSteps());
    if (!steps || steps->size() != 1 || (*steps)[0] != 1)
      return std::nullopt;
  }
  // With step 1 the Slice is [start, start + length): its type says how
  // long.
  int64_t start = (*starts)[0];
  if (start < 0)
    start = std::max<int64_t>(start + w[2], 0);
  if (start % size != 0 || start > w[2] - length)
    return std::nullopt;
  Operation *def = slice.getData().getDefiningOp();
  if (!def || def->hasTrait<OpTrait::ConstantLike>())
    return std::nullopt;
  return HeadWindow{slice.getData(), start / size};
}

/// `source` [B, S, N] as [B, S, N / D, D]: a Reshape of it to that type
/// before `user`, else a new one right after it.
Value viewAsHeads(PatternRewriter &rewriter, Value source, int64_t size,
                  Operation *user) {
  auto type = cast<RankedTensorType>(source.getType());
  ArrayRef<int64_t> w = type.getShape();
  auto headsType = type.clone({w[0], w[1], w[2] / size, size});
  for (Operation *other : source.getUsers())
    if (auto reshape = dyn_cast<ONNXReshapeOp>(other);
        reshape && reshape.getType() == headsType &&
        reshape->getBlock() == user->getBlock() &&
        reshape->isBeforeInBlock(user))
      return reshape;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(source);
  Value shape =
      createI64Constant(rewriter, source.getLoc(), headsType.getShape());
  return ONNXReshapeOp::create(rewriter, source.getLoc(), headsType, source,
                               shape);
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
    HeadOperand query = getHeadOperand(rewriter, loc, product.getA(),
                                       /*key=*/false, /*repeats=*/false);
    HeadOperand key = getHeadOperand(rewriter, loc, product.getB(),
                                     /*key=*/true, /*repeats=*/true);
    HeadOperand value = getHeadOperand(rewriter, loc, valueHeads,
                                       /*key=*/false, /*repeats=*/true);
    // Key and value heads repeated alike, or read as repeated.
    if (key.groups != value.groups) {
      key = getHeadOperand(rewriter, loc, product.getB(), true, false);
      value = getHeadOperand(rewriter, loc, valueHeads, false, false);
    }
    // Heads first only because of a Transpose before a rotary embedding:
    // the embedding is computed on the Transpose's input instead.
    for (HeadOperand *operand : {&query, &key, &value})
      if (operand->headsFirst)
        if (Value sunk = sinkHeadTransposes(rewriter, operand->tensor))
          *operand = {sunk, /*headsFirst=*/false, operand->groups};
    // Heads split off one fused projection by Slices: read in place.
    auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
    int64_t keyValueHeads =
        typeOf(key.tensor).getDimSize(key.headsFirst ? 1 : 2);
    SmallVector<int64_t, 3> offsets(3, 0);
    bool windows = false;
    for (auto [which, operand] :
         llvm::enumerate(std::array<HeadOperand *, 3>{&query, &key, &value})) {
      if (operand->headsFirst)
        continue;
      if (std::optional<HeadWindow> window = findHeadWindow(operand->tensor)) {
        int64_t size = typeOf(operand->tensor).getDimSize(3);
        operand->tensor = viewAsHeads(rewriter, window->source, size, output);
        offsets[which] = window->offset;
        windows = true;
      }
    }
    // The heads merged back: a Transpose [0, 2, 1, 3] after the product is
    // the op's result itself; else the op's result is the product's, heads
    // first.
    ONNXTransposeOp merge;
    if (output->hasOneUse())
      if (auto user = dyn_cast<ONNXTransposeOp>(*output->getUsers().begin()))
        if (user.getPerm() &&
            llvm::equal(*user.getPerm(), ArrayRef<int64_t>{0, 2, 1, 3}))
          merge = user;
    auto resultType = cast<RankedTensorType>(output.getType());
    ArrayRef<int64_t> o = resultType.getShape();
    auto opType =
        merge ? resultType.clone({o[0], o[2], o[1], o[3]}) : resultType;
    auto attention = AttentionOp::create(
        rewriter, loc, opType, query.tensor, key.tensor, value.tensor, mask,
        rewriter.getF32FloatAttr(float(scale)), static_cast<bool>(guard),
        {query.headsFirst, key.headsFirst, value.headsFirst, !merge});
    if (windows) {
      attention.setHeadOffsets(offsets);
      attention.setKeyValueHeads(uint64_t(keyValueHeads));
    }
    // The chain the op replaces goes with the product: the rewrite driver
    // erases each of its ops once nothing uses it.
    if (merge) {
      rewriter.replaceOp(merge, attention.getResult());
      rewriter.eraseOp(output);
      return success();
    }
    rewriter.replaceOp(output, attention.getResult());
    return success();
  }
};

/// Weights larger than this are not concatenated (the host copy is made in
/// doubles).
static constexpr int64_t kMaxProjectionWeightElements = int64_t(1) << 24;

/// One of attention's Q, K, V as a projection of the layer's input:
/// Reshape(MatMul(x, W) [+ b]) from [B, S, H * D] to [B, S, H, D], W and b
/// constants, each op read once.
struct Projection {
  Value input;
  ONNXMatMulOp matmul;
  ConstantTensor weight;
  std::optional<ConstantTensor> bias;
  int64_t heads = 0, headSize = 0;
};

static std::optional<Projection> matchProjection(Value operand) {
  auto view = operand.getDefiningOp<ONNXReshapeOp>();
  if (!view || !operand.hasOneUse())
    return std::nullopt;
  auto viewType = dyn_cast<RankedTensorType>(view.getType());
  Value flat = view.getData();
  auto flatType = dyn_cast<RankedTensorType>(flat.getType());
  if (!viewType || !flatType || !viewType.hasStaticShape() ||
      !flatType.hasStaticShape() || viewType.getRank() != 4 ||
      flatType.getRank() != 3 || !flat.hasOneUse() ||
      viewType.getShape().take_front(2) != flatType.getShape().take_front(2))
    return std::nullopt;
  Projection projection;
  Value product = flat;
  if (auto add = flat.getDefiningOp<ONNXAddOp>()) {
    bool matmulFirst = add.getA().getDefiningOp<ONNXMatMulOp>() != nullptr;
    product = matmulFirst ? add.getA() : add.getB();
    Value bias = matmulFirst ? add.getB() : add.getA();
    // A full-width bias: a broadcast one-element bias has no columns to
    // put side by side.
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (!biasType || biasType.getRank() != 1 ||
        biasType.getDimSize(0) != flatType.getDimSize(2) ||
        !product.hasOneUse())
      return std::nullopt;
    projection.bias = readConstant(bias, kMaxProjectionWeightElements);
    if (!projection.bias)
      return std::nullopt;
  }
  projection.matmul = product.getDefiningOp<ONNXMatMulOp>();
  if (!projection.matmul || product.getType() != flat.getType())
    return std::nullopt;
  std::optional<ConstantTensor> weight =
      readConstant(projection.matmul.getB(), kMaxProjectionWeightElements);
  if (!weight || weight->type.getRank() != 2 || !weight->isFloat())
    return std::nullopt;
  projection.weight = std::move(*weight);
  projection.input = projection.matmul.getA();
  projection.heads = viewType.getDimSize(2);
  projection.headSize = viewType.getDimSize(3);
  return projection;
}

/// Attention whose Q, K and V are three projections of one input (BERT's
/// query, key and value Linears): one MatMul by the three weights side by
/// side (and one bias Add) computes them, and the op reads Q, K and V as
/// head windows of its [B, S, Hq + 2 Hkv, D] result, as it reads GPT-2's
/// fused projection. One library call instead of three: at batch 1 each
/// call is bound by its latency, not by its work.
struct FuseAttentionProjections : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getResult() || op.getHeadsFirst() || op.getHeadOffsets())
      return rewriter.notifyMatchFailure(op, "not plain [B, S, H, D] operands");
    std::array<std::optional<Projection>, 3> projections = {
        matchProjection(op.getQuery()), matchProjection(op.getKey()),
        matchProjection(op.getValue())};
    for (const std::optional<Projection> &p : projections)
      if (!p || p->input != projections[0]->input ||
          p->headSize != projections[0]->headSize ||
          p->bias.has_value() != projections[0]->bias.has_value() ||
          p->weight.type.getDimSize(0) !=
              projections[0]->weight.type.getDimSize(0))
        return rewriter.notifyMatchFailure(
            op, "Q, K and V are not projections of one input");
    if (projections[1]->heads != projections[2]->heads)
      return rewriter.notifyMatchFailure(op, "K and V heads differ");

    int64_t rows = projections[0]->weight.type.getDimSize(0), columns = 0;
    for (const std::optional<Projection> &p : projections)
      columns += p->weight.type.getDimSize(1);
    Type f32 = rewriter.getF32Type();
    ConstantTensor weight, bias;
    weight.type = RankedTensorType::get({rows, columns}, f32);
    weight.floats.resize(rows * columns);
    bias.type = RankedTensorType::get({columns}, f32);
    int64_t first = 0;
    for (const std::optional<Projection> &p : projections) {
      int64_t width = p->weight.type.getDimSize(1);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < width; ++c)
          weight.floats[r * columns + first + c] =
              p->weight.getAsDouble(r * width + c);
      if (p->bias)
        for (int64_t c = 0; c < width; ++c)
          bias.floats.push_back(p->bias->getAsDouble(c));
      first += width;
    }

    Location loc = op.getLoc();
    Value input = projections[0]->input;
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    ArrayRef<int64_t> q = queryType.getShape();
    int64_t heads = projections[0]->heads, kvHeads = projections[1]->heads;
    std::string stem = blobNameStem(projections[0]->matmul, "attention");
    Value weights = ONNXConstantOp::create(
        rewriter, loc, weight.type, buildConstantAttr(weight, stem + "_qkv_W"));
    auto flatType = RankedTensorType::get({q[0], q[1], columns}, f32);
    Value flat = ONNXMatMulOp::create(rewriter, loc, flatType, input, weights);
    if (projections[0]->bias) {
      Value biases = ONNXConstantOp::create(
          rewriter, loc, bias.type, buildConstantAttr(bias, stem + "_qkv_b"));
      flat = ONNXAddOp::create(rewriter, loc, flatType, flat, biases);
    }
    SmallVector<int64_t> headShape{q[0], q[1], heads + 2 * kvHeads, q[3]};
    Value packed =
        ONNXReshapeOp::create(rewriter, loc, queryType.clone(headShape), flat,
                              createI64Constant(rewriter, loc, headShape));
    auto attention = AttentionOp::create(
        rewriter, loc, op.getResult().getType(), packed, packed, packed,
        op.getMask(), op.getScaleAttr(), op.getZeroNanProbabilities());
    attention.setHeadOffsets(ArrayRef<int64_t>{0, heads, heads + kvHeads});
    attention.setKeyValueHeads(uint64_t(kvHeads));
    rewriter.replaceOp(op, attention.getResult());
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
    SmallVector<int64_t, 4> q = op.getLogicalShape(AttentionOp::kQuery);
    SmallVector<int64_t, 4> k = op.getLogicalShape(AttentionOp::kKey);
    SmallVector<int64_t, 4> v = op.getLogicalShape(AttentionOp::kValue);
    // Every operand as [B, S, H, D] first, its own heads only.
    auto sequenceFirst = [&](Value x, unsigned which) {
      if (op.getHeadOffsets()) {
        RankedTensorType type = typeOf(x);
        unsigned dim = op.getHeadDim(which);
        int64_t offset = op.getHeadOffset(which);
        int64_t heads = op.getLogicalShape(which)[2];
        if (offset != 0 || heads != type.getDimSize(dim)) {
          auto index = [&](int64_t v) {
            return createI64Constant(rewriter, loc, {v});
          };
          SmallVector<int64_t> shape(type.getShape());
          shape[dim] = heads;
          x = ONNXSliceOp::create(rewriter, loc, type.clone(shape), x,
                                  index(offset), index(offset + heads),
                                  index(int64_t(dim)), /*steps=*/Value());
        }
      }
      return op.isHeadsFirst(which) ? transpose(x, {0, 2, 1, 3}) : x;
    };
    // Key/value head h / g for query head h: each repeated g times.
    auto heads = [&](Value x) -> Value {
      int64_t groups = q[2] / k[2];
      if (groups == 1)
        return x;
      RankedTensorType type = typeOf(x);
      ArrayRef<int64_t> s = type.getShape();
      SmallVector<int64_t> five = {s[0], s[1], s[2], 1, s[3]};
      Value split =
          ONNXReshapeOp::create(rewriter, loc, type.clone(five), x,
                                createI64Constant(rewriter, loc, five));
      SmallVector<int64_t> wide = {s[0], s[1], s[2], groups, s[3]};
      Value expanded =
          ONNXExpandOp::create(rewriter, loc, type.clone(wide), split,
                               createI64Constant(rewriter, loc, wide));
      SmallVector<int64_t> merged = {s[0], s[1], s[2] * groups, s[3]};
      return ONNXReshapeOp::create(rewriter, loc, type.clone(merged), expanded,
                                   createI64Constant(rewriter, loc, merged));
    };
    Type f32 = rewriter.getF32Type();
    Value query = transpose(sequenceFirst(op.getQuery(), AttentionOp::kQuery),
                            {0, 2, 1, 3});
    Value keyT = transpose(heads(sequenceFirst(op.getKey(), AttentionOp::kKey)),
                           {0, 2, 3, 1});
    Value value = transpose(
        heads(sequenceFirst(op.getValue(), AttentionOp::kValue)), {0, 2, 1, 3});
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
    rewriter.replaceOp(op, op.isHeadsFirst(AttentionOp::kResult)
                               ? output
                               : transpose(output, {0, 2, 1, 3}));
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
  using RaiseAttentionBase::RaiseAttentionBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseAttentionChain>(&getContext());
    if (fuseProjections)
      patterns.add<FuseAttentionProjections>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
