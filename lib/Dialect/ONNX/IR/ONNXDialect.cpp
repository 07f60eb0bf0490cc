//===- ONNXDialect.cpp - onnx dialect registration -----------------------===//
//
// Registers the dialect and its ops, and holds the rules shared by every op:
// constant materialization, result type compatibility and node names.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace fuse;

#include "fuse/Dialect/ONNX/IR/ONNXDialect.cpp.inc"

void ONNXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuse/Dialect/ONNX/IR/ONNXOps.cpp.inc"
      >();
}

Operation *ONNXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ONNXConstantOp::create(builder, loc, type, elements);
}

bool fuse::areCompatibleResultTypes(TypeRange l, TypeRange r) {
  if (l.size() != r.size())
    return false;
  for (auto [a, b] : llvm::zip(l, r)) {
    auto ta = dyn_cast<TensorType>(a);
    auto tb = dyn_cast<TensorType>(b);
    if (!ta || !tb) {
      if (a != b)
        return false;
      continue;
    }
    if (ta.getElementType() != tb.getElementType() ||
        failed(verifyCompatibleShape(ta, tb)))
      return false;
  }
  return true;
}

std::string fuse::getNodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = getNodeName(inner); !name.empty())
        return name;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getNodeName(callSite.getCallee());
  return "";
}

#define GET_OP_CLASSES
#include "fuse/Dialect/ONNX/IR/ONNXOps.cpp.inc"
