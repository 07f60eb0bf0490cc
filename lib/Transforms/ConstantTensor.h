//===- ConstantTensor.h - Host-side values of constant tensors ---*- C++
//-*-===//
//
// Private to the graph simplification passes: reading the data of an
// `onnx.Constant` (dense or dense_resource), and building constants from
// computed data. Integer and bool elements are held as int64, floating
// point ones as double.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_TRANSFORMS_CONSTANTTENSOR_H
#define FUSE_LIB_TRANSFORMS_CONSTANTTENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <vector>

namespace fuse {

struct ConstantTensor {
  mlir::RankedTensorType type;
  /// One of these holds the elements, row-major: `floats` for floating
  /// point element types, `ints` otherwise.
  std::vector<double> floats;
  std::vector<int64_t> ints;

  bool isFloat() const { return llvm::isa<mlir::FloatType>(type.getElementType()); }
  int64_t size() const { return type.getNumElements(); }
  double getAsDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
};

/// The data of `value` when it is an `onnx.Constant` of a static shape with
/// at most `maxElements` elements.
std::optional<ConstantTensor> readConstant(mlir::Value value,
                                           int64_t maxElements);

/// An attribute holding `tensor`: `dense` when small or splat, else a
/// `dense_resource` blob named after `blobName`.
mlir::ElementsAttr buildConstantAttr(const ConstantTensor &tensor,
                                     llvm::StringRef blobName);

/// The start of a blob name for a constant made from `op`: its node name
/// (else `fallback`), with what a resource key cannot hold replaced by '_'.
std::string blobNameStem(mlir::Operation *op, llvm::StringRef fallback);

} // namespace fuse

#endif // FUSE_LIB_TRANSFORMS_CONSTANTTENSOR_H
