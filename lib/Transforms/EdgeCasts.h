//===- EdgeCasts.h - Casts at the edges of a graph --------------*- C++ -*-===//
//
// Private to the passes that change the float types a graph computes in or
// exchanges (fuse-widen-floats, fuse-set-io-types).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_TRANSFORMS_EDGECASTS_H
#define FUSE_LIB_TRANSFORMS_EDGECASTS_H

#include "mlir/IR/Builders.h"

namespace fuse {

/// An onnx.Cast of `value` to the ranked tensor type `to`, named after the
/// value's node and the type (the profile and the launch metadata name
/// kernels by node); an empty constant when `to` has no elements.
mlir::Value createEdgeCast(mlir::OpBuilder &b, mlir::Value value,
                           mlir::Type to);

} // namespace fuse

#endif // FUSE_LIB_TRANSFORMS_EDGECASTS_H
