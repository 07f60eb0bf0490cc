//===- LoweringUtils.h - Builders shared by the onnx lowerings ---*- C++
//-*-===//
//
// Private to the ONNXToLinalg library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_CONVERSION_ONNXTOLINALG_LOWERINGUTILS_H
#define FUSE_LIB_CONVERSION_ONNXTOLINALG_LOWERINGUTILS_H

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace fuse {
namespace lowering {

/// Builds the scalar result of an elementwise op from its operands'
/// scalars (in operand order).
using ScalarFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>;

/// The splat value of a constant tensor `value`, or null.
mlir::TypedAttr getSplatScalar(mlir::Value value);

/// The map from an iteration space of `numDims` dims, whose dims
/// [firstDim, firstDim + outputShape.size()) walk `outputShape`, to the
/// elements of an operand of `operandShape` broadcast (numpy rules, aligned
/// at the back) to `outputShape`.
mlir::AffineMap getBroadcastMap(mlir::MLIRContext *ctx,
                                llvm::ArrayRef<int64_t> operandShape,
                                llvm::ArrayRef<int64_t> outputShape,
                                unsigned numDims, unsigned firstDim = 0);

/// A `linalg.generic` computing `resultType` elementwise from `operands`
/// (broadcast as needed); splat constant operands become scalars in the
/// body instead of inputs. Null operands are skipped (absent optional
/// operands): `fn` gets only the present ones.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange operands, ScalarFn fn);

/// A tensor of `type` filled with `value`.
mlir::Value buildFilled(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type, mlir::TypedAttr value);

/// A scalar constant of `type` with `value` (float or integer).
mlir::Value buildScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                        double value);

/// Float scalar `v` converted to the integer type `to` (signless; read as
/// unsigned when `isUnsigned`), truncated toward zero and saturated: a value
/// beyond the type's range gives its lowest or highest value and NaN gives
/// 0, whatever lowering computes it (ONNX leaves these undefined;
/// docs/robustness.md says what fuse gives).
mlir::Value buildFloatToInt(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value v, mlir::Type to, bool isUnsigned);

/// The lowest value of `type` (-inf for floats), the identity of max.
mlir::TypedAttr getLowestAttr(mlir::Type type);

/// `a + b`, `a * b`, `max(a, b)` for float or signless integer scalars.
mlir::Value buildAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value y);
mlir::Value buildMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value y);
/// `acc + x * y`; for floats the two may contract to one fused multiply-add
/// (one rounding: what cuBLAS, cuDNN and onnxruntime's kernels compute).
mlir::Value buildMulAdd(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value acc, mlir::Value x, mlir::Value y);
mlir::Value buildMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value y);
mlir::Value buildMin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value y);

/// Pads `source` with `padValue`, `low`/`high` elements per dim; returns
/// `source` itself when no padding is needed.
mlir::Value buildPad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                     llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                     mlir::TypedAttr padValue);

/// A per-channel vector `v` ([C]) viewed as [C, 1, ..., 1] (`rank` - 1
/// dims), so that it broadcasts along dim 1 of a tensor of `rank`.
mlir::Value buildChannelVector(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value v, int64_t rank);

/// The geometry of a sliding window over the trailing spatial dims.
struct WindowGeometry {
  llvm::ArrayRef<int64_t> strides, dilations, padLow, spatialIn;
};

/// Reads `input` at one window tap inside a `linalg.generic` body: the
/// leading coordinates `leading`, then for each spatial dim i the position
/// out[i] * stride + tap[i] * dilation - padLow, clamped into the image,
/// then the coordinates `trailing` (a channels-last layout's channel);
/// `padValue` where a position falls outside the image. Reading in the body
/// keeps a padded copy of the input from being made per output element.
mlir::Value buildPaddedTap(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input,
                           llvm::ArrayRef<mlir::Value> leading,
                           llvm::ArrayRef<mlir::Value> out,
                           llvm::ArrayRef<mlir::Value> tap,
                           const WindowGeometry &window, mlir::Value padValue,
                           llvm::ArrayRef<mlir::Value> trailing = {});

/// An optional array attribute's values; empty when absent.
inline llvm::SmallVector<int64_t>
toVector(std::optional<llvm::ArrayRef<int64_t>> values) {
  return values ? llvm::SmallVector<int64_t>(values->begin(), values->end())
                : llvm::SmallVector<int64_t>();
}

/// An op of f16 or bf16 results computed in f32: its narrow operands cast
/// up, the op on f32, its result cast back (onnx.Casts, lowered by their
/// own pattern). For contractions and reductions, whose sums lose a bit
/// per term in the narrow type; cuBLAS, cuDNN and onnxruntime accumulate
/// in f32 too. Tried before the op's own pattern (benefit 2).
template <typename OpTy>
struct WidenedToF32 : public mlir::OpConversionPattern<OpTy> {
  WidenedToF32(mlir::MLIRContext *ctx)
      : mlir::OpConversionPattern<OpTy>(ctx, /*benefit=*/2) {}
  using OpAdaptor = typename OpTy::Adaptor;

  mlir::LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    auto resultType =
        llvm::cast<mlir::RankedTensorType>(op->getResult(0).getType());
    mlir::Type narrow = resultType.getElementType();
    if (!narrow.isF16() && !narrow.isBF16())
      return rewriter.notifyMatchFailure(op, "not a narrow float");
    mlir::Location loc = op.getLoc();
    mlir::Type f32 = rewriter.getF32Type();
    auto castTo = [&](mlir::Value v, mlir::Type to) -> mlir::Value {
      auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
      return ONNXCastOp::create(
          rewriter, loc, type.clone(to), v,
          rewriter.getI64IntegerAttr(*getONNXDataType(to)),
          rewriter.getI64IntegerAttr(1));
    };
    llvm::SmallVector<mlir::Value> operands;
    for (mlir::Value v : adaptor.getOperands())
      operands.push_back(
          llvm::cast<mlir::RankedTensorType>(v.getType()).getElementType() ==
                  narrow
              ? castTo(v, f32)
              : v);
    mlir::OperationState state(loc, op->getName(), operands,
                               mlir::TypeRange{resultType.clone(f32)},
                               op->getAttrDictionary().getValue());
    mlir::Operation *wide = rewriter.create(state);
    rewriter.replaceOp(op, castTo(wide->getResult(0), narrow));
    return mlir::success();
  }
};

void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
void populateContractionPatterns(mlir::RewritePatternSet &patterns);
void populateTensorPatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateIntegerPatterns(mlir::RewritePatternSet &patterns);

/// Makes the unsigned element types of kernel `func` signless, having
/// marked the ops that need unsigned semantics (Integers.cpp); refuses,
/// with an error at the op, those that have none in the lowering.
mlir::LogicalResult eraseUnsignedTypes(mlir::func::FuncOp func);

} // namespace lowering
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_ONNXTOLINALG_LOWERINGUTILS_H
