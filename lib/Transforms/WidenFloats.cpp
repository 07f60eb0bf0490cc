//===- WidenFloats.cpp - The reference plan in f64 ------------------------===//
//
// `fuse-run --check` compares the main plan with the unfused reference
// plan. When both compute in the model's float type they share its
// rounding, so a lowering that loses precision (a serial sum of 2^25
// elements, an f16 accumulator) passes the check; computed in f64, the
// reference measures the main plan's error instead.
//
// With `to-f32`, the same rewrite makes a model exported in half precision
// an f32 model with casts at its edges, so that fusion and the precision
// policy (fuse-apply-precision) see it as they see an f32 model.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensor.h"
#include "EdgeCasts.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace fuse {
#define GEN_PASS_DEF_WIDENFLOATS
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// A tensor of floats narrower than `wide`: one the pass widens.
bool isNarrowFloatTensor(Type type, FloatType wide) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto element =
      tensor ? dyn_cast<FloatType>(tensor.getElementType()) : FloatType();
  return element && element.getWidth() < wide.getWidth();
}

class WidenFloatsPass : public fuse::impl::WidenFloatsBase<WidenFloatsPass> {
public:
  using WidenFloatsBase::WidenFloatsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The graph is one block of onnx ops.
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    originalTypes.clear();
    wide = toF32 ? FloatType(Float32Type::get(func.getContext()))
                 : FloatType(Float64Type::get(func.getContext()));
    Block &body = func.getBody().front();
    OpBuilder builder(func.getContext());

    builder.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments())
      castUsesToWide(builder, arg);

    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto castOp = dyn_cast<ONNXCastOp>(op)) {
        widenCast(builder, castOp);
      } else if (auto constant = dyn_cast<ONNXConstantOp>(op)) {
        widenConstant(builder, constant);
      } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        builder.setInsertionPoint(ret);
        for (OpOperand &operand : ret->getOpOperands()) {
          Type want =
              func.getFunctionType().getResult(operand.getOperandNumber());
          if (operand.get().getType() != want &&
              isNarrowFloatTensor(want, wide))
            operand.set(createEdgeCast(builder, operand.get(), want));
        }
      } else if (isa_and_nonnull<ONNXDialect>(op.getDialect())) {
        widenOp(builder, op);
      }
    }
  }

private:
  bool isNarrow(Type type) const { return isNarrowFloatTensor(type, wide); }

  Type widen(Type type) const { return cast<TensorType>(type).clone(wide); }

  /// Redirects the uses of a narrow float `value` to its cast to the wide
  /// type, created at the builder's insertion point.
  void castUsesToWide(OpBuilder &b, Value value) {
    if (!isNarrow(value.getType()) || value.use_empty())
      return;
    Value wide = createEdgeCast(b, value, widen(value.getType()));
    originalTypes[wide] = value.getType();
    value.replaceAllUsesExcept(wide, wide.getDefiningOp());
  }

  /// A Cast to f32 becomes one to f64, like every f32 tensor. A Cast to
  /// float16 or bfloat16 rounds on purpose (a model's mixed precision):
  /// it stays, then its result is widened. Its operand may be anything.
  void widenCast(OpBuilder &b, ONNXCastOp castOp) {
    Value result = castOp.getResult();
    if (!isNarrow(result.getType()))
      return;
    if (!toF32 && getElementTypeOrSelf(result.getType()).isF32()) {
      originalTypes[result] = result.getType();
      result.setType(widen(result.getType()));
      castOp.setTo(*getONNXDataType(b.getF64Type()));
      return;
    }
    b.setInsertionPointAfter(castOp);
    castUsesToWide(b, result);
  }

  void widenConstant(OpBuilder &b, ONNXConstantOp constant) {
    Value value = constant.getResult();
    if (!isNarrow(value.getType()))
      return;
    // Small constants (scales, biases, the scalars of elementwise ops)
    // become f64 constants: lowerings may need their values.
    if (std::optional<ConstantTensor> data =
            readConstant(value, maxConstantElements)) {
      data->type = cast<RankedTensorType>(widen(data->type));
      b.setInsertionPoint(constant);
      auto wide = ONNXConstantOp::create(
          b, constant.getLoc(), data->type,
          buildConstantAttr(*data, blobNameStem(constant, "constant") +
                                       (toF32 ? "_f32" : "_f64")));
      if (toF32)
        wide->setAttr(kModelHalfAttrName, b.getUnitAttr());
      originalTypes[wide.getResult()] = value.getType();
      value.replaceAllUsesWith(wide.getResult());
      constant.erase();
      return;
    }
    // Weights are cast when the plan runs: the artifact holds them once.
    b.setInsertionPointAfter(constant);
    castUsesToWide(b, value);
  }

  /// Gives `op` f64 results in place of narrow float ones if it still
  /// verifies; otherwise casts its widened operands back and its results
  /// up.
  void widenOp(OpBuilder &b, Operation &op) {
    bool floatOperand = llvm::any_of(op.getOperandTypes(), [](Type t) {
      auto tensor = dyn_cast<TensorType>(t);
      return tensor && isa<FloatType>(tensor.getElementType());
    });
    SmallVector<Type> original(op.getResultTypes());
    if (floatOperand) {
      for (OpResult result : op.getResults())
        if (isNarrow(result.getType()))
          result.setType(widen(result.getType()));
      // The op's own verifier and result inference decide; the
      // diagnostics of a refusal are nobody's business.
      ScopedDiagnosticHandler quiet(op.getContext(),
                                    [](Diagnostic &) { return success(); });
      if (succeeded(verify(&op, /*verifyRecursively=*/false))) {
        bool widened = false;
        for (auto [result, type] : llvm::zip(op.getResults(), original))
          if (result.getType() != type) {
            originalTypes[result] = type;
            widened = true;
          }
        // For the precision policy: the model stores this in half
        // precision.
        if (toF32 && widened)
          op.setAttr(kModelHalfAttrName, b.getUnitAttr());
        return;
      }
      for (auto [result, type] : llvm::zip(op.getResults(), original))
        result.setType(type);
    }
    // Kept at its types: widened operands are cast back to theirs, results
    // up.
    b.setInsertionPoint(&op);
    for (OpOperand &operand : op.getOpOperands()) {
      auto it = originalTypes.find(operand.get());
      if (it != originalTypes.end())
        operand.set(createEdgeCast(b, operand.get(), it->second));
    }
    b.setInsertionPointAfter(&op);
    for (OpResult result : op.getResults())
      castUsesToWide(b, result);
  }

  /// The type each wide value the pass made had in the model.
  DenseMap<Value, Type> originalTypes;
  /// f64, or f32 with `to-f32`.
  FloatType wide;
};

} // namespace
