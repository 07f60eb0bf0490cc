//===- EdgeCasts.cpp - Casts at the edges of a graph ----------------------===//

#include "EdgeCasts.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace fuse;

Value fuse::createEdgeCast(OpBuilder &b, Value value, Type to) {
  // No elements, nothing to convert: an empty constant launches nothing.
  auto toTensor = cast<RankedTensorType>(to);
  if (toTensor.hasStaticShape() && toTensor.getNumElements() == 0)
    return ONNXConstantOp::create(
        b, value.getLoc(), toTensor,
        DenseElementsAttr::get(toTensor, ArrayRef<Attribute>()));
  std::string node = getNodeName(value.getLoc());
  std::string typeName;
  llvm::raw_string_ostream os(typeName);
  os << getElementTypeOrSelf(to);
  Location loc = NameLoc::get(
      b.getStringAttr((node.empty() ? "" : node + " ") + "as " + typeName),
      value.getLoc());
  return ONNXCastOp::create(
      b, loc, to, value,
      b.getI64IntegerAttr(*getONNXDataType(getElementTypeOrSelf(to))),
      b.getI64IntegerAttr(1));
}
