//===- ONNXTraits.h - Fusion classes of onnx ops -----------------*- C++
//-*-===//
//
// Marker traits that say which fusion role an op can play. They verify
// nothing; the fusion pass and the `fuse.group` verifier query them with
// `op->hasTrait<...>()`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXTRAITS_H
#define FUSE_DIALECT_ONNX_IR_ONNXTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace fuse {
namespace ONNXTrait {

/// Each output element depends only on the input elements at the same
/// (broadcast) index.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};

/// Windowed or global pooling over the spatial dimensions.
template <typename ConcreteType>
class Pooling : public mlir::OpTrait::TraitBase<ConcreteType, Pooling> {};

/// A contraction (Conv, Gemm, MatMul) that can anchor an epilogue.
template <typename ConcreteType>
class Contraction : public mlir::OpTrait::TraitBase<ConcreteType, Contraction> {
};

/// A reduction (Softmax, LayerNormalization, Reduce*) that can anchor a
/// group with elementwise ops before and after it.
template <typename ConcreteType>
class Reduction : public mlir::OpTrait::TraitBase<ConcreteType, Reduction> {};

/// Moves elements without computing them (Reshape, Transpose).
template <typename ConcreteType>
class Layout : public mlir::OpTrait::TraitBase<ConcreteType, Layout> {};

} // namespace ONNXTrait

inline bool isElementwiseOp(mlir::Operation *op) {
  return op->hasTrait<ONNXTrait::Elementwise>();
}
inline bool isPoolingOp(mlir::Operation *op) {
  return op->hasTrait<ONNXTrait::Pooling>();
}
inline bool isContractionOp(mlir::Operation *op) {
  return op->hasTrait<ONNXTrait::Contraction>();
}
inline bool isReductionOp(mlir::Operation *op) {
  return op->hasTrait<ONNXTrait::Reduction>();
}
inline bool isLayoutOp(mlir::Operation *op) {
  return op->hasTrait<ONNXTrait::Layout>();
}

} // namespace fuse

#endif // FUSE_DIALECT_ONNX_IR_ONNXTRAITS_H
