//===- ConstantEvaluator.h - Evaluate onnx ops on constants ------*- C++
//-*-===//

#ifndef FUSE_LIB_TRANSFORMS_CONSTANTEVALUATOR_H
#define FUSE_LIB_TRANSFORMS_CONSTANTEVALUATOR_H

#include "ConstantTensor.h"

#include "mlir/IR/Operation.h"

namespace fuse {

/// The constant data of a value, or null when it is not a (small enough)
/// constant.
using ConstantLookup =
    llvm::function_ref<const ConstantTensor *(mlir::Value)>;

/// Computes the single result of `op` from the constant data of its
/// operands, when `op` is an op the evaluator knows, all its operands are
/// constants and its result type is static. The shape and data-movement
/// ops that exporters emit around Reshape are covered, and small
/// elementwise math.
std::optional<ConstantTensor> evaluateConstantOp(mlir::Operation *op,
                                                 ConstantLookup lookup);

} // namespace fuse

#endif // FUSE_LIB_TRANSFORMS_CONSTANTEVALUATOR_H
