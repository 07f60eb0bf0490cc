//===- InsertIndexChecks.cpp - Run-time checks of gathered indices --------===//
//
// Each Gather, GatherElements and GatherND that reads indices computed at
// run time gets a result of the graph function that says whether one was
// out of range: the kernels clamp such an index (no read leaves the
// tensor), and the runtime turns the check into an error naming the node.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

namespace fuse {
#define GEN_PASS_DEF_INSERTINDEXCHECKS
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// The largest magnitude a check reports exactly: f32 holds every integer
/// up to 2^24.
constexpr int64_t kExactIndexLimit = int64_t(1) << 24;

/// What one op's indices address: the data dims they index and their
/// sizes, in the order of the indices' last dim (GatherND) or one dim.
struct IndexedDims {
  SmallVector<int64_t> dims, sizes;
  /// GatherND: the sizes run along the indices' last dim.
  bool perTuple = false;
};

/// The dims `op`'s indices address, or nothing when the op needs no check
/// (constant or empty indices, shapes not static).
std::optional<std::pair<Value, IndexedDims>> getIndexedDims(Operation *op) {
  Value data, indices;
  IndexedDims indexed;
  if (auto gather = dyn_cast<ONNXGatherOp>(op)) {
    data = gather.getData();
    indices = gather.getIndices();
    indexed.dims.push_back(gather.getAxis());
  } else if (auto gather = dyn_cast<ONNXGatherElementsOp>(op)) {
    data = gather.getData();
    indices = gather.getIndices();
    indexed.dims.push_back(gather.getAxis());
  } else if (auto gather = dyn_cast<ONNXGatherNDOp>(op)) {
    data = gather.getData();
    indices = gather.getIndices();
    auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
    if (!indicesType || indicesType.getRank() < 1 ||
        ShapedType::isDynamic(indicesType.getShape().back()))
      return std::nullopt;
    int64_t batch = gather.getBatchDims();
    for (int64_t k = 0; k < indicesType.getShape().back(); ++k)
      indexed.dims.push_back(batch + k);
    indexed.perTuple = true;
  } else {
    return std::nullopt;
  }
  if (indices.getDefiningOp<ONNXConstantOp>())
    return std::nullopt;
  auto dataType = dyn_cast<RankedTensorType>(data.getType());
  auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
  if (!dataType || !indicesType || !dataType.hasStaticShape() ||
      !indicesType.hasStaticShape() || indicesType.getNumElements() == 0 ||
      indexed.dims.empty())
    return std::nullopt;
  int64_t rank = dataType.getRank();
  for (int64_t &dim : indexed.dims) {
    if (dim < 0)
      dim += rank;
    if (dim < 0 || dim >= rank)
      return std::nullopt; // The lowering reports the bad axis.
    indexed.sizes.push_back(dataType.getDimSize(dim));
  }
  return std::make_pair(indices, indexed);
}

/// "axis 0 of size 5", "dims 0 and 1 of sizes 5 and 3": for the message.
std::string describeRange(const IndexedDims &indexed) {
  auto list = [](ArrayRef<int64_t> values) {
    std::string text;
    for (auto [i, v] : llvm::enumerate(values)) {
      if (i)
        text += i + 1 == values.size() ? " and " : ", ";
      text += std::to_string(v);
    }
    return text;
  };
  if (!indexed.perTuple)
    return "axis " + std::to_string(indexed.dims.front()) + " of size " +
           std::to_string(indexed.sizes.front());
  if (indexed.dims.size() == 1)
    return "dim " + std::to_string(indexed.dims.front()) + " of size " +
           std::to_string(indexed.sizes.front());
  return "dims " + list(indexed.dims) + " of sizes " + list(indexed.sizes);
}

/// The check of `indices` against `indexed`: a tensor<f32>, the largest
/// out-of-range index clipped to [-2^24, 2^24] (where f32 holds every
/// integer), or -inf when there is none. An f32 max is a reduction the GPU
/// rows kernels split over their threads.
Value buildCheck(OpBuilder &b, Location loc, Value indices,
                 const IndexedDims &indexed) {
  auto type = cast<RankedTensorType>(indices.getType());
  Type element = type.getElementType();
  Type f32 = b.getF32Type();
  auto bools = type.clone(b.getI1Type());
  // The sizes broadcast along the last dim (GatherND) or as a scalar.
  RankedTensorType boundsType =
      indexed.perTuple
          ? RankedTensorType::get({int64_t(indexed.sizes.size())}, element)
          : RankedTensorType::get({}, element);
  auto scalar = RankedTensorType::get({}, element);
  auto constant = [&](RankedTensorType t, ArrayRef<int64_t> values) -> Value {
    SmallVector<APInt> bits;
    for (int64_t v : values)
      bits.push_back(APInt(element.getIntOrFloatBitWidth(), v,
                           /*isSigned=*/true));
    return ONNXConstantOp::create(b, loc, t, DenseElementsAttr::get(t, bits));
  };
  SmallVector<int64_t> negated;
  for (int64_t size : indexed.sizes)
    negated.push_back(-size);
  Value upper = constant(boundsType, indexed.sizes);
  Value lower = constant(boundsType, negated);
  Value below = ONNXLessOp::create(b, loc, bools, indices, lower);
  Value above = ONNXGreaterOrEqualOp::create(b, loc, bools, indices, upper);
  Value bad = ONNXOrOp::create(b, loc, bools, below, above);
  Value clipped = ONNXMinOp::create(
      b, loc, type,
      ValueRange{
          ONNXMaxOp::create(
              b, loc, type,
              ValueRange{indices, constant(scalar, {-kExactIndexLimit})}),
          constant(scalar, {kExactIndexLimit})});
  auto floats = type.clone(f32);
  Value asFloat = ONNXCastOp::create(b, loc, floats, clipped,
                                     b.getI64IntegerAttr(*getONNXDataType(f32)),
                                     b.getI64IntegerAttr(1));
  auto f32Scalar = RankedTensorType::get({}, f32);
  Value none = ONNXConstantOp::create(
      b, loc, f32Scalar,
      DenseElementsAttr::get(f32Scalar,
                             -std::numeric_limits<float>::infinity()));
  Value key = ONNXWhereOp::create(b, loc, floats, bad, asFloat, none);
  return ONNXReduceMaxOp::create(b, loc, f32Scalar, key, Value(),
                                 b.getI64IntegerAttr(0),
                                 b.getI64IntegerAttr(0));
}

class InsertIndexChecksPass
    : public fuse::impl::InsertIndexChecksBase<InsertIndexChecksPass> {
public:
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.isPublic() ||
        !func.getBody().hasOneBlock() || func->hasAttr("fuse.kernel"))
      return;
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return;
    // Checks already there (the pass ran before) are not added again.
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (func.getResultAttr(i, kIndexCheckAttrName))
        return;
    MLIRContext *ctx = func.getContext();
    SmallVector<std::pair<Value, IndexCheckAttr>> checks;
    OpBuilder b(ctx);
    for (Operation &op : llvm::make_early_inc_range(body)) {
      std::optional<std::pair<Value, IndexedDims>> indexed =
          getIndexedDims(&op);
      if (!indexed)
        continue;
      std::string node = getNodeName(op.getLoc());
      Location loc = NameLoc::get(
          b.getStringAttr((node.empty() ? "" : node + " ") + "index check"),
          op.getLoc());
      b.setInsertionPointAfter(&op);
      Value check = buildCheck(b, loc, indexed->first, indexed->second);
      checks.push_back(
          {check, IndexCheckAttr::get(ctx, node, op.getName().stripDialect(),
                                      describeRange(indexed->second))});
    }
    for (auto &[check, attr] : checks) {
      unsigned index = func.getNumResults();
      if (failed(func.insertResult(
              index, check.getType(),
              DictionaryAttr::get(
                  ctx, {NamedAttribute(
                           StringAttr::get(ctx, kIndexCheckAttrName), attr)}))))
        return signalPassFailure();
      ret->insertOperands(ret->getNumOperands(), check);
    }
  }
};

} // namespace
