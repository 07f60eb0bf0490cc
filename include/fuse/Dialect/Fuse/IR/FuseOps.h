//===- FuseOps.h - fuse dialect operations -----------------------*- C++
//-*-===//
//
// fuse::GroupOp (`fuse.group`) and fuse::YieldOp (`fuse.yield`).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEOPS_H
#define FUSE_DIALECT_FUSE_IR_FUSEOPS_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fuse/Dialect/Fuse/IR/FuseEnums.h.inc"

namespace fuse {
class YieldOp;
} // namespace fuse

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.h.inc"

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_H
