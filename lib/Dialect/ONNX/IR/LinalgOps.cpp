//===- LinalgOps.cpp - Result types of Gemm and MatMul --------------------===//

#include "InferenceUtils.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

static bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

LogicalResult ONNXGemmOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto operands =
      getTensorPair(loc, name, adaptor.getA(), adaptor.getB(), "A and B");
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  if (!a.hasRank() || !b.hasRank()) {
    types.push_back(RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, a.getElementType()));
    return success();
  }
  if (a.getRank() != 2 || b.getRank() != 2)
    return inferError(loc, name, "expects 2-D A and B, got ",
                      formatShape(a.getShape()), " and ",
                      formatShape(b.getShape()));
  bool transA = adaptor.getTransA() != 0, transB = adaptor.getTransB() != 0;
  int64_t m = a.getDimSize(transA ? 1 : 0), ka = a.getDimSize(transA ? 0 : 1);
  int64_t kb = b.getDimSize(transB ? 1 : 0), n = b.getDimSize(transB ? 0 : 1);
  if (dimsConflict(ka, kb))
    return inferError(loc, name, "inner dimensions differ: op(A) is ",
                      formatShape({m, ka}), ", op(B) is ",
                      formatShape({kb, n}));
  if (Value c = adaptor.getC()) {
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    if (ct && ct.getElementType() != a.getElementType())
      return inferError(loc, name, "C has element type ", ct.getElementType(),
                        ", expected ", a.getElementType());
    if (ct && !isUnidirectionallyBroadcastable(ct.getShape(), {m, n}))
      return inferError(loc, name, "C of shape ", formatShape(ct.getShape()),
                        " does not broadcast to ", formatShape({m, n}));
  }
  types.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult ONNXMatMulOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto operands =
      getTensorPair(loc, name, adaptor.getA(), adaptor.getB(), "A and B");
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  if (!a.hasRank() || !b.hasRank()) {
    types.push_back(unranked(a.getElementType()));
    return success();
  }
  if (a.getRank() == 0 || b.getRank() == 0)
    return inferError(loc, name, "operands must have rank >= 1");
  // numpy rules: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; the
  // added dim is dropped from the result.
  SmallVector<int64_t> sa(a.getShape()), sb(b.getShape());
  bool rowA = sa.size() == 1, colB = sb.size() == 1;
  if (rowA)
    sa.insert(sa.begin(), 1);
  if (colB)
    sb.push_back(1);
  int64_t m = sa[sa.size() - 2], ka = sa.back();
  int64_t kb = sb[sb.size() - 2], n = sb.back();
  if (dimsConflict(ka, kb))
    return inferError(loc, name, "inner dimensions differ: A is ",
                      formatShape(a.getShape()), ", B is ",
                      formatShape(b.getShape()));
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (failed(batch))
    return inferError(loc, name, "batch dimensions of ",
                      formatShape(a.getShape()), " and ",
                      formatShape(b.getShape()), " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  if (!rowA)
    shape.push_back(m);
  if (!colB)
    shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}
