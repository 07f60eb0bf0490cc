//===- ScatterImporter.cpp - Scatter of constant indices as gathers ------===//
//
// ScatterElements (and the older Scatter) and ScatterND with constant
// indices: which updates write each element of `data` is known at import.
// The updates, flattened, are gathered once per write an element receives
// (the d-th update that writes it, in update order), and each gathered
// value replaces the element (reduction none: the last write) or is
// combined with it (add, mul, max, min) where that element has a d-th
// write:
//
//   out = data
//   out = Where(has_write_d, combine(out, Gather(updates, write_d)), out)
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The elements of `data` this importer builds constants for, at most.
static constexpr int64_t kMaxScatterElements = int64_t(1) << 20;

/// The row-major linear index of `index` in `shape`.
static int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, size] : llvm::zip(index, shape))
    linear = linear * size + i;
  return linear;
}

/// `index` in [-size, size) made non-negative, or failure.
static FailureOr<int64_t> wrapIndex(int64_t index, int64_t size) {
  if (index < -size || index >= size)
    return failure();
  return index < 0 ? index + size : index;
}

LogicalResult fuse::detail::importScatter(NodeImporter &n) {
  Value data = n.input(0), updates = n.input(2);
  auto dataType = dyn_cast<RankedTensorType>(data.getType());
  auto updatesType = dyn_cast<RankedTensorType>(updates.getType());
  auto indicesType = dyn_cast<RankedTensorType>(n.input(1).getType());
  if (!dataType || !updatesType || !indicesType ||
      !dataType.hasStaticShape() || !updatesType.hasStaticShape() ||
      !indicesType.hasStaticShape())
    return n.emitError() << "inputs of dynamic shape are not supported";
  std::optional<SmallVector<int64_t>> indices =
      getConstantIntValues(n.input(1));
  if (!indices)
    return n.emitError() << "needs a constant 'indices'";
  int64_t numElements = dataType.getNumElements();
  if (numElements < 1 || numElements > kMaxScatterElements)
    return n.emitError() << "data of " << numElements
                         << " elements is not supported (1 to "
                         << kMaxScatterElements << ")";
  const auto *reductionAttr = n.findAttr("reduction");
  std::string reduction = reductionAttr ? reductionAttr->s() : "none";
  StringRef combine = llvm::StringSwitch<StringRef>(reduction)
                          .Case("add", "onnx.Add")
                          .Case("mul", "onnx.Mul")
                          .Case("max", "onnx.Max")
                          .Case("min", "onnx.Min")
                          .Default("");
  if (reduction != "none" && combine.empty())
    return n.emitError() << "reduction = '" << reduction
                         << "' is not supported";

  // For each element of data, the flat indices of the updates that write
  // it, in update order.
  ArrayRef<int64_t> shape = dataType.getShape();
  int64_t rank = dataType.getRank();
  std::vector<SmallVector<int64_t, 1>> writes(numElements);
  if (n.node.op_type() == "ScatterND") {
    int64_t k = indicesType.getRank() ? indicesType.getShape().back() : 0;
    if (indicesType.getRank() < 1 || k < 1 || k > rank)
      return n.emitError() << "indices must end in a dim of 1 to " << rank;
    int64_t slice = 1;
    for (int64_t d = k; d < rank; ++d)
      slice *= shape[d];
    int64_t tuples = static_cast<int64_t>(indices->size()) / k;
    if (updatesType.getNumElements() != tuples * slice)
      return n.emitError() << "updates must have " << tuples * slice
                           << " elements";
    for (int64_t t = 0; t < tuples; ++t) {
      SmallVector<int64_t> tuple;
      for (int64_t d = 0; d < k; ++d) {
        FailureOr<int64_t> i = wrapIndex((*indices)[t * k + d], shape[d]);
        if (failed(i))
          return n.emitError() << "index " << (*indices)[t * k + d]
                               << " is out of range for dim " << d;
        tuple.push_back(*i);
      }
      int64_t base = linearize(tuple, shape.take_front(k)) * slice;
      for (int64_t s = 0; s < slice; ++s)
        writes[base + s].push_back(t * slice + s);
    }
  } else {
    const auto *axisAttr = n.findAttr("axis");
    int64_t axisValue = axisAttr ? axisAttr->i() : 0;
    FailureOr<int64_t> axis = normalizeAxis(axisValue, rank);
    if (failed(axis))
      return n.emitError() << "axis " << axisValue
                           << " is out of range for rank " << rank;
    if (indicesType.getShape() != updatesType.getShape() ||
        indicesType.getRank() != rank)
      return n.emitError() << "indices and updates must have one shape, of "
                              "data's rank";
    ArrayRef<int64_t> updateShape = updatesType.getShape();
    SmallVector<int64_t> index(rank, 0);
    for (int64_t p = 0, e = updatesType.getNumElements(); p < e; ++p) {
      for (int64_t d = rank - 1, rest = p; d >= 0; --d) {
        index[d] = rest % updateShape[d];
        rest /= updateShape[d];
      }
      SmallVector<int64_t> target(index);
      FailureOr<int64_t> i = wrapIndex((*indices)[p], shape[*axis]);
      if (failed(i))
        return n.emitError() << "index " << (*indices)[p]
                             << " is out of range for dim " << *axis;
      target[*axis] = *i;
      for (int64_t d = 0; d < rank; ++d)
        if (target[d] >= shape[d])
          return n.emitError() << "updates do not fit data along dim " << d;
      writes[linearize(target, shape)].push_back(p);
    }
  }

  size_t rounds = 0;
  for (auto &w : writes) {
    if (reduction == "none" && w.size() > 1)
      w.erase(w.begin(), w.end() - 1); // the last write wins
    rounds = std::max(rounds, w.size());
  }

  NodeEmitter e(n);
  // No updates (an empty `updates`: no rounds) leaves data as it is; the
  // Reshape of an empty tensor to [0] would copy the dim instead.
  Value flat =
      rounds ? e.reshape(updates, {updatesType.getNumElements()}) : Value();
  Type i64 = IntegerType::get(n.getContext(), 64);
  Type i1 = IntegerType::get(n.getContext(), 1);
  Value out = data;
  for (size_t round = 0; round < rounds; ++round) {
    SmallVector<int64_t> source(numElements, 0);
    SmallVector<bool> written(numElements, false);
    for (int64_t i = 0; i < numElements; ++i)
      if (round < writes[i].size()) {
        source[i] = writes[i][round];
        written[i] = true;
      }
    Value sourceValue = e.constant(DenseElementsAttr::get(
        RankedTensorType::get(shape, i64), ArrayRef(source)));
    Value mask = e.constant(DenseElementsAttr::get(
        RankedTensorType::get(shape, i1), ArrayRef(written)));
    Value value = e.op("onnx.Gather", {flat, sourceValue});
    if (!combine.empty())
      value = e.op(combine, {out, value});
    out = e.op("onnx.Where", {mask, value, out});
  }
  if (out == data)
    out = e.op("onnx.Identity", {data});
  if (e.failed())
    return failure();
  n.results.push_back(out);
  return success();
}
