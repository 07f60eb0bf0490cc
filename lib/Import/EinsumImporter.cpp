//===- EinsumImporter.cpp - Einsum as a broadcast product and a sum ------===//
//
// Einsum is imported as elementwise ops: each operand is transposed into
// one order of all the equation's labels (the output's first, then the
// summed ones) and reshaped with 1s for the labels it lacks; the operands'
// broadcast product is then summed over the labels the output lacks.
// `...` stands for the same broadcast dims in every operand (aligned at
// the back, as numpy does); without `->`, the output is the `...` dims,
// then the labels that appear once, in alphabetical order. A label
// repeated within one operand (a diagonal) is refused.
//
// The product is as large as all the labels' dims together: what small
// contractions need, not a substitute for MatMul on large ones.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// Labels: letters are their characters; the dims of `...` are
/// kEllipsis + their position among the broadcast dims.
static constexpr int kEllipsis = 1000;

/// The labels of one term (`ij`, `...ii`, ``), with `...` standing for
/// `ellipsisRank` dims of the `maxEllipsisRank` broadcast ones; failure for
/// characters that are no labels.
static FailureOr<SmallVector<int>> parseTerm(StringRef term,
                                             int64_t ellipsisRank,
                                             int64_t maxEllipsisRank) {
  SmallVector<int> labels;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.substr(i).starts_with("...")) {
      for (int64_t j = 0; j < ellipsisRank; ++j)
        labels.push_back(kEllipsis + maxEllipsisRank - ellipsisRank + j);
      i += 2;
      continue;
    }
    if (!llvm::isAlpha(term[i]))
      return failure();
    labels.push_back(term[i]);
  }
  return labels;
}

/// The number of explicit labels of `term`, and whether it has `...`.
static std::pair<int64_t, bool> countLabels(StringRef term) {
  bool ellipsis = term.contains("...");
  return {static_cast<int64_t>(term.size()) - (ellipsis ? 3 : 0), ellipsis};
}

LogicalResult fuse::detail::importEinsum(NodeImporter &n) {
  const auto *equationAttr = n.findAttr("equation");
  if (!equationAttr)
    return n.emitError() << "requires attribute 'equation'";
  std::string equation;
  for (char c : equationAttr->s())
    if (c != ' ')
      equation.push_back(c);
  StringRef lhs = equation, rhs;
  bool explicitOutput = StringRef(equation).contains("->");
  if (explicitOutput)
    std::tie(lhs, rhs) = StringRef(equation).split("->");
  // Every operand is required: an empty input name (an absent optional
  // input elsewhere) is not one.
  for (auto [i, input] : llvm::enumerate(n.inputs))
    if (!input)
      return n.emitError() << "required input #" << i << " has no name";
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.inputs.size())
    return n.emitError() << "equation '" << equationAttr->s() << "' has "
                         << terms.size() << " operands, the node "
                         << n.inputs.size();

  // Ranks, and the broadcast dims of `...`.
  SmallVector<RankedTensorType> types;
  int64_t maxEllipsisRank = 0;
  SmallVector<int64_t> ellipsisRanks;
  for (auto [term, input] : llvm::zip(terms, n.inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape())
      return n.emitError() << "inputs of dynamic shape are not supported";
    auto [explicitCount, ellipsis] = countLabels(term);
    int64_t rest = type.getRank() - explicitCount;
    if (rest < 0 || (!ellipsis && rest != 0))
      return n.emitError() << "term '" << term << "' does not fit an input of "
                           << "rank " << type.getRank();
    types.push_back(type);
    ellipsisRanks.push_back(rest);
    maxEllipsisRank = std::max(maxEllipsisRank, rest);
  }

  // Each label's size (broadcasting 1s), and where it first appears.
  SmallVector<SmallVector<int>> operandLabels;
  llvm::DenseMap<int, int64_t> sizes;
  llvm::DenseMap<int, int> uses;
  SmallVector<int> firstSeen;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<SmallVector<int>> labels =
        parseTerm(term, ellipsisRanks[i], maxEllipsisRank);
    if (failed(labels))
      return n.emitError() << "equation '" << equationAttr->s()
                           << "' is not valid";
    for (auto [d, label] : llvm::enumerate(*labels)) {
      if (llvm::count(*labels, label) > 1)
        return n.emitError() << "a label repeated within one operand (a "
                                "diagonal) is not supported";
      int64_t size = types[i].getDimSize(d);
      auto [it, inserted] = sizes.try_emplace(label, size);
      if (inserted)
        firstSeen.push_back(label);
      else if (it->second == 1)
        it->second = size;
      else if (size != 1 && size != it->second)
        return n.emitError() << "label '" << char(label < kEllipsis ? label : '.')
                             << "' has sizes " << it->second << " and " << size;
      ++uses[label];
    }
    operandLabels.push_back(std::move(*labels));
  }

  // The output's labels, then the summed ones.
  SmallVector<int> order;
  if (explicitOutput) {
    FailureOr<SmallVector<int>> out =
        parseTerm(rhs, maxEllipsisRank, maxEllipsisRank);
    if (failed(out))
      return n.emitError() << "equation '" << equationAttr->s()
                           << "' is not valid";
    for (int label : *out)
      if (!sizes.count(label) || llvm::is_contained(order, label))
        return n.emitError() << "output label '" << char(label)
                             << "' is not a label of one input";
      else
        order.push_back(label);
  } else {
    for (int64_t j = 0; j < maxEllipsisRank; ++j)
      order.push_back(kEllipsis + j);
    SmallVector<int> once;
    for (int label : firstSeen)
      if (label < kEllipsis && uses[label] == 1)
        once.push_back(label);
    llvm::sort(once);
    order.append(once);
  }
  int64_t outputRank = order.size();
  for (int label : firstSeen)
    if (!llvm::is_contained(order, label))
      order.push_back(label);

  NodeEmitter e(n);
  Value product;
  for (auto [input, labels] : llvm::zip(n.inputs, operandLabels)) {
    // Transpose into `order`, then reshape to all of its labels.
    SmallVector<int64_t> perm(labels.size());
    for (size_t d = 0; d < labels.size(); ++d)
      perm[d] = d;
    llvm::sort(perm, [&](int64_t a, int64_t b) {
      return llvm::find(order, labels[a]) < llvm::find(order, labels[b]);
    });
    Value operand = input;
    if (!llvm::is_sorted(perm))
      operand = e.transpose(operand, perm);
    SmallVector<int64_t> shape;
    for (int label : order) {
      auto it = llvm::find(labels, label);
      shape.push_back(it == labels.end()
                          ? 1
                          : cast<RankedTensorType>(input.getType())
                                .getDimSize(it - labels.begin()));
    }
    if (static_cast<int64_t>(shape.size()) !=
        cast<RankedTensorType>(input.getType()).getRank())
      operand = e.reshape(operand, shape);
    product = product ? e.op("onnx.Mul", {product, operand}) : operand;
  }
  Value result = product;
  if (static_cast<int64_t>(order.size()) > outputRank) {
    SmallVector<int64_t> summed;
    for (int64_t d = outputRank; d < static_cast<int64_t>(order.size()); ++d)
      summed.push_back(d);
    result = e.op("onnx.ReduceSum", {product, e.i64s(summed)},
                  {e.intAttr("keepdims", 0)});
  }
  // A graph output needs a value of its own ('->' of a scalar).
  if (result == n.input(0))
    result = e.op("onnx.Identity", {result});
  if (e.failed())
    return failure();
  n.results.push_back(result);
  return success();
}
