//===- ONNXShapeHelpers.h - Shape rules shared by onnx ops -------*- C++
//-*-===//
//
// Shape arithmetic for ONNX semantics (broadcasting, pooling/convolution
// windows, constant shape operands), used by result type inference and,
// later, by the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXSHAPEHELPERS_H
#define FUSE_DIALECT_ONNX_IR_ONNXSHAPEHELPERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fuse {

/// Broadcasts two shapes with ONNX multidirectional (numpy) rules. Dynamic
/// dims (`ShapedType::kDynamic`) broadcast with 1 to dynamic and with a
/// static N > 1 to N. Returns failure when two static dims differ and
/// neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Whether `from` broadcasts unidirectionally to `to` (ONNX Gemm's C).
bool isUnidirectionallyBroadcastable(llvm::ArrayRef<int64_t> from,
                                     llvm::ArrayRef<int64_t> to);

/// The window of a pooling or convolution op, with ONNX defaults filled in.
struct WindowParams {
  llvm::SmallVector<int64_t> kernel;
  llvm::SmallVector<int64_t> strides;   // 1 when absent
  llvm::SmallVector<int64_t> dilations; // 1 when absent
  llvm::SmallVector<int64_t> pads;      // begins then ends; 0 when absent
  std::string autoPad = "NOTSET";
  bool ceilMode = false;
};

/// Checks the window attributes against `spatialRank` and fills defaults.
/// On failure, `error` says what is wrong.
mlir::LogicalResult normalizeWindowParams(WindowParams &params,
                                          size_t spatialRank,
                                          std::string &error);

/// Output size of each spatial dim (dynamic in, dynamic out). For `auto_pad`
/// SAME_* and VALID the explicit pads are ignored, as ONNX says.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferWindowOutputDims(llvm::ArrayRef<int64_t> spatialDims,
                      const WindowParams &params, std::string &error);

/// The explicit begin/end pads that `auto_pad` implies for static input
/// dims (for NOTSET, `params.pads`).
llvm::SmallVector<int64_t>
resolveWindowPads(llvm::ArrayRef<int64_t> spatialDims,
                  const WindowParams &params);

/// The integer values of `v` when it is produced by a constant op holding
/// an integer tensor (dense or dense_resource).
std::optional<llvm::SmallVector<int64_t>> getConstantIntValues(mlir::Value v);

/// A 1-D i64 `onnx.Constant` holding `values` (a shape, axes, starts...):
/// what getConstantIntValues reads back.
mlir::Value createI64Constant(mlir::OpBuilder &builder, mlir::Location loc,
                              llvm::ArrayRef<int64_t> values);

/// Product of the dims, or kDynamic when any is dynamic. Fails when the
/// product of the static dims does not fit in int64_t.
mlir::FailureOr<int64_t> getNumElementsOrDynamic(llvm::ArrayRef<int64_t> shape);

/// Largest value accepted for a window attribute (kernel, stride, dilation,
/// pad), so that window arithmetic on any tensor dim cannot overflow.
constexpr int64_t kMaxWindowValue = int64_t(1) << 31;

/// The MLIR element type of ONNX data type `dataType` (TensorProto's
/// numbering), or null for types fuse does not support.
mlir::Type getElementTypeForONNX(int64_t dataType, mlir::MLIRContext *ctx);

/// The ONNX data type number (TensorProto's) of `elementType`, when fuse
/// supports it: the inverse of getElementTypeForONNX.
std::optional<int64_t> getONNXDataType(mlir::Type elementType);

/// Broadcasts any number of shapes (numpy rules); failure when two static
/// dims clash.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastAllShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// `axis` normalized into [0, rank) (negative counts from the back), or
/// failure.
mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// A Slice resolved for a static input: per dim of the input, the first
/// element taken, the step between elements, and how many are taken.
struct SliceParams {
  llvm::SmallVector<int64_t> starts, steps, sizes;
};

/// ONNX Slice semantics (negative indices count from the end, starts and
/// ends clamp, steps may be negative; `axes` defaults to 0, 1, ...,
/// `steps` to 1s). Failure, with `error` set, for invalid axes or a zero
/// step.
mlir::FailureOr<SliceParams> resolveSlice(llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<int64_t> starts,
                                          llvm::ArrayRef<int64_t> ends,
                                          llvm::ArrayRef<int64_t> axes,
                                          llvm::ArrayRef<int64_t> steps,
                                          std::string &error);

/// Whether `v` is a small integer constant (at most 64 elements, inline
/// `dense`): shapes, axes, slice bounds. Ops read these at compile time,
/// so kernels and fusion groups hold a copy rather than take them as
/// inputs.
bool isShapeLikeConstant(mlir::Value v);

/// `[2, ?, 3]` -> "2x?x3".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace fuse

#endif // FUSE_DIALECT_ONNX_IR_ONNXSHAPEHELPERS_H
