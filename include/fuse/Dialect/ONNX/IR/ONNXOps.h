//===- ONNXOps.h - onnx dialect operations -----------------------*- C++
//-*-===//
//
// Op classes of the `onnx` dialect (fuse::ONNX<Name>Op), generated from
// ONNXOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXOPS_H
#define FUSE_DIALECT_ONNX_IR_ONNXOPS_H

#include "fuse/Dialect/ONNX/IR/ONNXDialect.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fuse {
/// Result types `l` and `r` are compatible when they pair up with equal
/// element types and shapes that do not contradict each other (a `?` or an
/// unranked tensor matches anything). This lets IR declare a result type
/// more or less static than the inferred one.
bool areCompatibleResultTypes(mlir::TypeRange l, mlir::TypeRange r);

/// The ONNX node an op's location names (the importer names each op's
/// location after its node; a group's location fuses its ops'): the first
/// NameLoc in it, or "" if none.
std::string getNodeName(mlir::Location loc);
} // namespace fuse

#define GET_OP_CLASSES
#include "fuse/Dialect/ONNX/IR/ONNXOps.h.inc"

#endif // FUSE_DIALECT_ONNX_IR_ONNXOPS_H
