//===- InferenceUtils.h - Helpers for onnx result inference ------*- C++
//-*-===//
//
// Private to the onnx dialect library. Result type inference runs both when
// the importer creates an op (before the op is verified, so it must not
// assume verified operands or attributes) and in the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_DIALECT_ONNX_IR_INFERENCEUTILS_H
#define FUSE_LIB_DIALECT_ONNX_IR_INFERENCEUTILS_H

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/Diagnostics.h"

namespace fuse {
namespace detail {

/// Reports an inference error for op `opName` at `loc` (when there is a
/// location to report at) and returns failure.
template <typename... Args>
mlir::LogicalResult inferError(std::optional<mlir::Location> loc,
                               llvm::StringRef opName, Args &&...args) {
  return mlir::emitOptionalError(loc, "'", opName, "' op ",
                                 std::forward<Args>(args)...);
}

/// The tensor type of `v`, or null when `v` is missing or not a tensor.
inline mlir::TensorType getTensorType(mlir::Value v) {
  if (!v)
    return nullptr;
  return llvm::dyn_cast<mlir::TensorType>(v.getType());
}

/// The tensor types of operands `a` and `b` (named `what` in messages),
/// which must share an element type. Reports and fails otherwise.
inline mlir::FailureOr<std::pair<mlir::TensorType, mlir::TensorType>>
getTensorPair(std::optional<mlir::Location> loc, llvm::StringRef opName,
              mlir::Value a, mlir::Value b, llvm::StringRef what) {
  mlir::TensorType ta = getTensorType(a), tb = getTensorType(b);
  if (!ta || !tb)
    return inferError(loc, opName, "expects tensor operands");
  if (ta.getElementType() != tb.getElementType())
    return inferError(loc, opName, what, " have different element types (",
                      ta.getElementType(), " and ", tb.getElementType(), ")");
  return std::make_pair(ta, tb);
}

/// The op's 'axis' attribute `axis` normalized to [0, rank); reports
/// "'axis' = A is out of range for rank R" and fails otherwise.
inline mlir::FailureOr<int64_t>
normalizeAxisAttr(std::optional<mlir::Location> loc, llvm::StringRef opName,
                  int64_t axis, int64_t rank) {
  mlir::FailureOr<int64_t> dim = normalizeAxis(axis, rank);
  if (mlir::failed(dim))
    return inferError(loc, opName, "'axis' = ", axis,
                      " is out of range for rank ", rank);
  return dim;
}

/// An unranked tensor of `elementType`: the answer when an input's rank is
/// unknown.
inline mlir::Type unranked(mlir::Type elementType) {
  return mlir::UnrankedTensorType::get(elementType);
}

/// The largest rank inferred from the length of a non-constant shape
/// operand: a longer one is an error, not a type with that many dims.
constexpr int64_t kMaxInferredRank = 64;

/// The result of an op whose output shape is the value of the 1-D operand
/// `shape` (Reshape, ConstantOfShape) when that value is not constant: all
/// dims dynamic, the rank from `shape`'s static length; unranked when the
/// length is unknown. A length above kMaxInferredRank is reported.
inline mlir::LogicalResult
inferFromShapeOperandLength(std::optional<mlir::Location> loc,
                            llvm::StringRef opName, mlir::TensorType shape,
                            mlir::Type elementType,
                            llvm::SmallVectorImpl<mlir::Type> &types) {
  if (!shape.hasStaticShape() || shape.getRank() != 1) {
    types.push_back(unranked(elementType));
    return mlir::success();
  }
  int64_t rank = shape.getDimSize(0);
  if (rank > kMaxInferredRank)
    return inferError(loc, opName, "'shape' has ", rank,
                      " elements: a rank above ", kMaxInferredRank,
                      " is not supported");
  types.push_back(mlir::RankedTensorType::get(
      llvm::SmallVector<int64_t>(rank, mlir::ShapedType::kDynamic),
      elementType));
  return mlir::success();
}

/// For ops whose result keeps the element type of operand `v` and is
/// unranked when `v` is: `v`'s ranked type; or null after pushing the
/// unranked result; or failure (reported) when `v` is not a tensor.
inline mlir::FailureOr<mlir::RankedTensorType>
getRankedOrInferUnranked(std::optional<mlir::Location> loc,
                         llvm::StringRef opName, mlir::Value v,
                         llvm::SmallVectorImpl<mlir::Type> &types) {
  mlir::TensorType type = getTensorType(v);
  if (!type)
    return inferError(loc, opName, "expects a tensor operand");
  if (auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(type))
    return ranked;
  types.push_back(unranked(type.getElementType()));
  return mlir::RankedTensorType();
}

/// For ops that read `data` at `indices` and whose result is unranked when
/// either is: both ranked types; or null types after pushing the unranked
/// result (of `data`'s element type); or failure (reported) when either is
/// not a tensor.
inline mlir::FailureOr<
    std::pair<mlir::RankedTensorType, mlir::RankedTensorType>>
getRankedDataAndIndices(std::optional<mlir::Location> loc,
                        llvm::StringRef opName, mlir::Value data,
                        mlir::Value indices,
                        llvm::SmallVectorImpl<mlir::Type> &types) {
  mlir::TensorType dataType = getTensorType(data);
  mlir::TensorType indicesType = getTensorType(indices);
  if (!dataType || !indicesType)
    return inferError(loc, opName, "expects tensor operands");
  auto rankedData = llvm::dyn_cast<mlir::RankedTensorType>(dataType);
  auto rankedIndices = llvm::dyn_cast<mlir::RankedTensorType>(indicesType);
  if (!rankedData || !rankedIndices) {
    types.push_back(unranked(dataType.getElementType()));
    return std::make_pair(mlir::RankedTensorType(), mlir::RankedTensorType());
  }
  return std::make_pair(rankedData, rankedIndices);
}

} // namespace detail
} // namespace fuse

#endif // FUSE_LIB_DIALECT_ONNX_IR_INFERENCEUTILS_H
