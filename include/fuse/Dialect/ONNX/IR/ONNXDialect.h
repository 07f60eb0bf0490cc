//===- ONNXDialect.h - onnx dialect ------------------------------*- C++
//-*-===//
//
// The `onnx` dialect: ONNX operators as imported from a model.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXDIALECT_H
#define FUSE_DIALECT_ONNX_IR_ONNXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fuse/Dialect/ONNX/IR/ONNXDialect.h.inc"

#endif // FUSE_DIALECT_ONNX_IR_ONNXDIALECT_H
