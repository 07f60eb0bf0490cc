//===- ApplyPrecision.cpp - The precision policy --------------------------===//
//
// Decides, after fusion, in which type each value between kernels is stored
// and in which type each group's contraction multiplies, and rewrites the
// function so: half-precision values are the groups' results and inputs
// (each group widens what it reads to f32 and narrows what it yields), and
// its weights are converted once, here. Kernels keep computing in f32.
//
// The decision, for precision fp16 or bf16, is a fixed point over the
// function's top-level values: a group result or a data-movement result is
// stored in half precision unless an op reading it cannot take it so.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensor.h"
#include "FusionUtils.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/GlobPattern.h"

#include <cmath>
#include <cstring>

namespace fuse {
#define GEN_PASS_DEF_APPLYPRECISION
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// The largest finite fp16 value; f32 values of at least 65520 round to
/// infinity.
constexpr float kMaxHalf = 65504.0f;
constexpr uint32_t kHalfOverflowBits = 0x477ff000; // 65520.0f

/// `value` rounded to fp16 (to nearest, ties to even), as its bits.
uint16_t toHalfBits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t magnitude = x & 0x7fffffff;
  if (magnitude >= 0x7f800000) // Inf or NaN (kept quiet, payload's top)
    return sign | 0x7c00 |
           (magnitude > 0x7f800000 ? 0x200 | ((magnitude >> 13) & 0x3ff) : 0);
  if (magnitude >= kHalfOverflowBits)
    return sign | 0x7c00;
  if (magnitude < 0x38800000) { // under 2^-14: a subnormal half or zero
    float f;
    std::memcpy(&f, &magnitude, 4);
    // f * 2^24 < 1024 is exact; the default rounding mode is to nearest
    // even, and 1024 is the smallest normal's bits.
    return sign | static_cast<uint16_t>(std::nearbyint(f * 16777216.0f));
  }
  // Round the 13 dropped bits to nearest even, then rebias 127 -> 15.
  magnitude += 0xfff + ((magnitude >> 13) & 1);
  magnitude -= 112u << 23;
  return sign | static_cast<uint16_t>(magnitude >> 13);
}

/// `value` rounded to bf16 (to nearest, ties to even), as its bits.
uint16_t toBFloat16Bits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: keep it a quiet NaN
    return static_cast<uint16_t>((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

/// The f32 data of an onnx.Constant, or an empty array (splat constants
/// come back as one element).
ArrayRef<float> getFloatData(ONNXConstantOp constant, bool &splat) {
  splat = false;
  Attribute attr = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    splat = dense.isSplat();
    return ArrayRef<float>(reinterpret_cast<const float *>(raw.data()),
                           raw.size() / sizeof(float));
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !resource.getRawHandle().getBlob())
    return {};
  ArrayRef<char> raw = resource.getRawHandle().getBlob()->getData();
  if (reinterpret_cast<uintptr_t>(raw.data()) % alignof(float) != 0)
    return {};
  return ArrayRef<float>(reinterpret_cast<const float *>(raw.data()),
                         raw.size() / sizeof(float));
}

/// Whether `type` is a ranked tensor of f32.
bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

/// Ops that copy elements without computing them: their float operands of
/// the result's element type are stored as the result is.
bool isDataMovementOp(Operation *op) {
  return isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp, ONNXUnsqueezeOp,
             ONNXTransposeOp, ONNXSliceOp, ONNXConcatOp, ONNXGatherOp,
             ONNXGatherElementsOp, ONNXGatherNDOp, ONNXExpandOp, ONNXPadOp,
             ONNXTileOp, ONNXDepthToSpaceOp, ONNXSpaceToDepthOp, ONNXIdentityOp,
             Im2ColOp>(op);
}

/// Ops whose result is stored in half precision exactly when the operands
/// getDataOperands gives are: data-movement ops, and fuse.attention (its
/// query, key, value and result share one type; it computes in f32).
bool isHalfCarrier(Operation *op) {
  return isDataMovementOp(op) || isa<AttentionOp>(op);
}

/// The operands of a half carrier that are stored as its result is: a
/// data-movement op's of its result's (float) element type, attention's
/// query, key and value (not its f32 mask).
SmallVector<OpOperand *> getDataOperands(Operation *op) {
  SmallVector<OpOperand *> data;
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get() == attention.getQuery() ||
          operand.get() == attention.getKey() ||
          operand.get() == attention.getValue())
        data.push_back(&operand);
    return data;
  }
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  for (OpOperand &operand : op->getOpOperands())
    if (isa<FloatType>(element) &&
        getElementTypeOrSelf(operand.get().getType()) == element)
      data.push_back(&operand);
  return data;
}

/// The group kind a lone compute op becomes, or nullopt for an op that
/// stays alone (its kernel reads its input in the body: LRN,
/// GroupNormalization, CumSum, ArgMax, ArgMin; attention).
std::optional<GroupKind> getLoneGroupKind(Operation *op) {
  if (!isa<ONNXDialect>(op->getDialect()) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return std::nullopt;
  if (isContractionOp(op))
    return GroupKind::contraction_epilogue;
  if (isPoolingOp(op))
    return GroupKind::pool_epilogue;
  if (isReductionOp(op))
    return GroupKind::reduction;
  if (isElementwiseOp(op))
    return GroupKind::elementwise;
  return std::nullopt;
}

Operation *getContraction(GroupOp group) {
  for (Operation &op : group.getBodyBlock().without_terminator())
    if (isContractionOp(&op))
      return &op;
  return nullptr;
}

/// Whether `arg` is multiplied by `contraction`: its A or B (X or W), not
/// a Gemm's C or a Conv's bias, which are its epilogue's.
bool isProductOperand(BlockArgument arg, Operation *contraction) {
  return llvm::any_of(arg.getUses(), [&](OpOperand &use) {
    return use.getOwner() == contraction && use.getOperandNumber() < 2;
  });
}

/// A Cast the policy adds (marked, so that the fusion report does not
/// count it as the model's).
ONNXCastOp createCast(OpBuilder &b, Location loc, Value value, Type to) {
  auto castOp = ONNXCastOp::create(
      b, loc, to, value,
      b.getI64IntegerAttr(*getONNXDataType(getElementTypeOrSelf(to))),
      b.getI64IntegerAttr(1));
  castOp->setAttr(kPrecisionCastAttrName, b.getUnitAttr());
  return castOp;
}

class ApplyPrecisionPass
    : public fuse::impl::ApplyPrecisionBase<ApplyPrecisionPass> {
public:
  using ApplyPrecisionBase::ApplyPrecisionBase;

  LogicalResult initialize(MLIRContext *context) override {
    patterns.clear();
    for (const std::string &text : keepFp32) {
      llvm::Expected<llvm::GlobPattern> pattern =
          llvm::GlobPattern::create(text);
      if (!pattern)
        return emitError(UnknownLoc::get(context))
               << "fuse-apply-precision: keep-fp32 pattern '" << text
               << "': " << llvm::toString(pattern.takeError());
      patterns.push_back(std::move(*pattern));
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock() ||
        precision == Precision::fp32)
      return;
    MLIRContext *ctx = &getContext();
    half = precision == Precision::fp16 ? Type(Float16Type::get(ctx))
                                        : Type(BFloat16Type::get(ctx));
    Block &body = func.getBody().front();
    IRRewriter rewriter(ctx);

    // Lone compute ops become groups, so that each has a body to cast in
    // (tf32: only contractions need one). Casts between float types stay:
    // they are what the policy narrows or removes. With model-types, what
    // the model computes in half precision: ops the widening marked, and
    // ops whose first float operand is such a value (passes after the
    // widening make ops of their own, which it did not mark).
    halfOrigin.clear();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      Operation *current = &op;
      std::optional<GroupKind> kind = getLoneGroupKind(&op);
      auto castOp = dyn_cast<ONNXCastOp>(op);
      bool floatCast =
          castOp &&
          isa<FloatType>(getElementTypeOrSelf(castOp.getInput().getType())) &&
          isa<FloatType>(getElementTypeOrSelf(castOp.getType()));
      if (kind && !floatCast && !isKept(&op) &&
          (!modelTypes || computesModelHalf(&op)) &&
          (precision != Precision::tf32 || isContractionOp(&op)) &&
          llvm::any_of(op.getResultTypes(), isF32Tensor)) {
        FailureOr<GroupOp> group = formGroup(rewriter, *kind, {&op});
        if (failed(group)) {
          op.emitOpError("could not be made a group of its own for the "
                         "precision policy");
          return signalPassFailure();
        }
        current = *group;
      }
      if (modelTypes)
        markHalfResults(current);
    }

    for (auto group : body.getOps<GroupOp>()) {
      Precision p = precision;
      if (llvm::any_of(group.getBodyBlock(),
                       [&](Operation &op) { return isKept(&op); }))
        p = Precision::fp32;
      else if (precision == Precision::tf32 && !getContraction(group))
        continue;
      else if (modelTypes && !halfOrigin.contains(group->getResult(0)))
        continue;
      group.setPrecisionAttr(PrecisionAttr::get(ctx, p));
    }
    if (precision == Precision::tf32)
      return;

    conversions.clear();
    halfConstants.clear();
    fits.clear();
    decideStorage(body);
    if (failed(narrowContractionOperands(rewriter, body)))
      return signalPassFailure();
    rewrite(rewriter, body);
  }

private:
  /// Whether `op` was named by a keep-fp32 pattern.
  bool isKept(Operation *op) const {
    if (patterns.empty())
      return false;
    std::string name = getNodeName(op->getLoc());
    return llvm::any_of(patterns, [&](const llvm::GlobPattern &pattern) {
      return pattern.match(name);
    });
  }

  static bool isModelHalf(Operation *op) {
    return op->hasAttr(kModelHalfAttrName);
  }

  /// With model-types: whether `value`, outside any group, is what the
  /// model computes in half precision (or a widened half-precision input or
  /// weight).
  bool isHalfValue(Value value) {
    return halfOrigin.contains(value) || getWidenedHalf(value);
  }

  /// Whether op `op` computes its results in half precision in the model,
  /// `isHalf` telling which of its operands hold such values: the widening
  /// marked it, or (an op made after the widening, which it did not mark)
  /// its first float operand, the one of its type T, is half. A Where's
  /// condition or a Gather's indices decide nothing, nor does the input of
  /// a Cast, whose result type is its own.
  static bool computesHalf(Operation *op, function_ref<bool(Value)> isHalf) {
    if (isModelHalf(op))
      return true;
    if (isa<ONNXCastOp>(op))
      return false;
    for (Value operand : op->getOperands())
      if (isa<FloatType>(getElementTypeOrSelf(operand.getType())))
        return isHalf(operand);
    return false;
  }

  /// With model-types: whether `op`, an op at the top level (no group),
  /// computes its results in half precision in the model.
  bool computesModelHalf(Operation *op) {
    return computesHalf(op, [&](Value v) { return isHalfValue(v); });
  }

  /// For each result of `group`, whether the model computes it in half
  /// precision: its body followed from the group's operands, op by op. A
  /// group may hold ops of both kinds (a comparison of half-precision
  /// values choosing between float32 ones).
  SmallVector<bool> halfResults(GroupOp group) {
    llvm::DenseSet<Value> half;
    Block &body = group.getBodyBlock();
    for (auto [arg, operand] :
         llvm::zip(body.getArguments(), group->getOperands()))
      if (isHalfValue(operand))
        half.insert(arg);
    auto isHalf = [&](Value v) { return half.contains(v) || isHalfValue(v); };
    for (Operation &op : body.without_terminator())
      if (computesHalf(&op, isHalf))
        half.insert(op.result_begin(), op.result_end());
    SmallVector<bool> results;
    for (Value yielded : body.getTerminator()->getOperands())
      results.push_back(half.contains(yielded));
    return results;
  }

  /// Adds `op`'s results that the model computes in half precision to
  /// halfOrigin.
  void markHalfResults(Operation *op) {
    auto group = dyn_cast<GroupOp>(op);
    if (!group) {
      if (computesModelHalf(op))
        halfOrigin.insert(op->result_begin(), op->result_end());
      return;
    }
    for (auto [result, half] :
         llvm::zip(group->getResults(), halfResults(group)))
      if (half)
        halfOrigin.insert(result);
  }

  /// Whether `value` (a candidate) may be stored in half precision at all:
  /// with model-types, only what the model computes in half precision.
  bool mayStoreHalf(Value value) const {
    return !modelTypes || halfOrigin.contains(value);
  }

  static bool isHalfGroup(Operation *op) {
    auto group = dyn_cast<GroupOp>(op);
    if (!group || !group.getPrecision())
      return false;
    Precision p = *group.getPrecision();
    return p == Precision::fp16 || p == Precision::bf16;
  }

  /// The half-precision value that stands for `value` where it is
  /// decided, at no cost: `value` itself if it is to be stored so, the
  /// operand of a Cast from half precision, a constant that converts.
  bool hasHalfVersion(Value value) {
    if (narrow.contains(value))
      return true;
    if (getWidenedHalf(value))
      return true;
    if (auto constant = value.getDefiningOp<ONNXConstantOp>())
      return isF32Tensor(value.getType()) && convertible(constant);
    return false;
  }

  /// The operand of `value`'s top-level Cast from this precision's half
  /// type to f32 (a widened half-precision input or weight), or null.
  Value getWidenedHalf(Value value) {
    auto castOp = value.getDefiningOp<ONNXCastOp>();
    if (!castOp || castOp->getParentOfType<GroupOp>() ||
        !isF32Tensor(value.getType()))
      return Value();
    Value input = castOp.getInput();
    return getElementTypeOrSelf(input.getType()) == half ? input : Value();
  }

  /// Whether `use` can read its value in half precision.
  bool acceptsHalf(OpOperand &use) {
    Operation *user = use.getOwner();
    if (isHalfGroup(user))
      return true;
    if (isHalfCarrier(user))
      return narrow.contains(user->getResult(0)) &&
             llvm::is_contained(getDataOperands(user), &use);
    if (auto castOp = dyn_cast<ONNXCastOp>(user))
      return !castOp->getParentOfType<GroupOp>() &&
             getElementTypeOrSelf(castOp.getType()) == half;
    return false;
  }

  /// Whether `constant`'s values fit the half type (with a warning, once,
  /// when they do not).
  bool convertible(ONNXConstantOp constant) {
    auto [it, inserted] = fits.try_emplace(constant, true);
    if (!inserted)
      return it->second;
    bool splat;
    ArrayRef<float> data = getFloatData(constant, splat);
    auto type = cast<RankedTensorType>(constant.getType());
    if (data.empty() || !type.hasStaticShape() ||
        (!splat && int64_t(data.size()) != type.getNumElements()))
      return it->second = false;
    if (!half.isF16())
      return true;
    float largest = 0;
    for (float v : data)
      if (std::isfinite(v))
        largest = std::max(largest, std::fabs(v));
    uint32_t bits;
    std::memcpy(&bits, &largest, 4);
    if (bits < kHalfOverflowBits)
      return true;
    constant.emitWarning()
        << "weight '" << getNodeName(constant.getLoc())
        << "' holds values beyond fp16's range (largest magnitude " << largest
        << ", fp16's is " << kMaxHalf << "): it stays f32";
    return it->second = false;
  }

  /// Whether `value` is a reduction group's result smaller than what the
  /// group reads (a row's max, sum or log-sum) and no graph output: its
  /// readers subtract it or divide by it, so stored in half precision it
  /// would be rounded twice (LogSoftmax's log-sum, 1.17 ulps); it is small,
  /// and stays f32.
  static bool isRowStatistic(Value value) {
    auto group = value.getDefiningOp<GroupOp>();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!group || group.getKind() != GroupKind::reduction || !type ||
        !type.hasStaticShape())
      return false;
    if (llvm::any_of(value.getUsers(),
                     [](Operation *user) { return isa<func::ReturnOp>(user); }))
      return false;
    return llvm::any_of(group.getInputs(), [&](Value input) {
      auto inputType = dyn_cast<RankedTensorType>(input.getType());
      return inputType && inputType.hasStaticShape() &&
             inputType.getNumElements() > type.getNumElements();
    });
  }

  /// Decides `narrow`: the group and data-movement results stored in half
  /// precision.
  void decideStorage(Block &body) {
    narrow.clear();
    SmallVector<Value> candidates;
    for (Operation &op : body) {
      if (isHalfGroup(&op) || isHalfCarrier(&op))
        for (Value result : op.getResults())
          if (isF32Tensor(result.getType()) && mayStoreHalf(result) &&
              !isRowStatistic(result))
            candidates.push_back(result);
    }
    for (Value value : candidates)
      narrow.insert(value);
    // Take out what cannot be stored so, until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (Value value : candidates) {
        if (!narrow.contains(value))
          continue;
        Operation *def = value.getDefiningOp();
        bool ok = llvm::all_of(
            value.getUses(), [&](OpOperand &use) { return acceptsHalf(use); });
        if (ok && isHalfCarrier(def))
          ok = llvm::all_of(getDataOperands(def), [&](OpOperand *operand) {
            return hasHalfVersion(operand->get());
          });
        if (!ok) {
          narrow.erase(value);
          changed = true;
        }
      }
    }
  }

  /// A half-precision group's contraction multiplies half-precision
  /// operands: an activation operand with no half version (a function
  /// argument, the result of an op that writes f32) gets a kernel of its
  /// own converting it, which is cheaper than the product in f32. The
  /// kernel converts the data before the data-movement ops that lead to
  /// the product where those have no other reader and do not shrink it
  /// (the Transpose and im2col of a model input in NHWC): they then move
  /// half the bytes, and no more elements are converted.
  LogicalResult narrowContractionOperands(RewriterBase &rewriter, Block &body) {
    SmallVector<GroupOp> groups(body.getOps<GroupOp>());
    for (GroupOp group : groups) {
      Operation *contraction = getContraction(group);
      if (!isHalfGroup(group) || !contraction)
        continue;
      // A weight that stays f32 keeps the product in f32.
      bool weightsFit = llvm::all_of(group->getOpOperands(), [&](OpOperand &o) {
        auto constant = o.get().getDefiningOp<ONNXConstantOp>();
        BlockArgument arg =
            group.getBodyBlock().getArgument(o.getOperandNumber());
        return !constant || !isProductOperand(arg, contraction) ||
               (isF32Tensor(o.get().getType()) && convertible(constant));
      });
      if (!weightsFit)
        continue;
      for (OpOperand &operand : group->getOpOperands()) {
        Value value = operand.get();
        BlockArgument arg =
            group.getBodyBlock().getArgument(operand.getOperandNumber());
        if (!isProductOperand(arg, contraction) ||
            !isF32Tensor(value.getType()) || hasHalfVersion(value) ||
            value.getDefiningOp<ONNXConstantOp>())
          continue;
        OpOperand *convertAt = &operand;
        SmallVector<Operation *> moves;
        while (Operation *def = convertAt->get().getDefiningOp()) {
          SmallVector<OpOperand *> data;
          if (isDataMovementOp(def) && def->getNumResults() == 1 &&
              convertAt->get().hasOneUse())
            data = getDataOperands(def);
          if (data.size() != 1 || !isF32Tensor(data[0]->get().getType()) ||
              hasHalfVersion(data[0]->get()))
            break;
          auto from = cast<RankedTensorType>(data[0]->get().getType());
          auto to = cast<RankedTensorType>(convertAt->get().getType());
          if (!from.hasStaticShape() || !to.hasStaticShape() ||
              from.getNumElements() > to.getNumElements())
            break;
          moves.push_back(def);
          convertAt = data[0];
        }
        // Transposes and Pads only: one kernel moves, pads and converts.
        if (!moves.empty() && llvm::all_of(moves, isGatherRoot)) {
          if (failed(convertInGroup(rewriter, group, body, operand, moves)))
            return failure();
          continue;
        }
        // Stored as the half-precision data they move.
        for (Operation *op : moves)
          narrow.insert(op->getResult(0));
        value = convertAt->get();
        if (Value converted = conversions.lookup(value)) {
          convertAt->set(converted);
          continue;
        }
        FailureOr<Value> converted =
            convertInGroup(rewriter, group, body, *convertAt, {});
        if (failed(converted))
          return failure();
        conversions[value] = *converted;
      }
    }
    return success();
  }

  /// Converts the f32 value `use` reads, for the contraction group `group`,
  /// to half precision in a group of its own, which `use` then reads: the
  /// single-use Transposes and Pads `moves` that compute the value (last
  /// first; the kernel then reads their f32 input once), then the Cast.
  FailureOr<Value> convertInGroup(RewriterBase &rewriter, GroupOp group,
                                  Block &body, OpOperand &use,
                                  ArrayRef<Operation *> moves) {
    Value value = use.get();
    if (Operation *def = value.getDefiningOp())
      rewriter.setInsertionPointAfter(def);
    else
      rewriter.setInsertionPointToStart(&body);
    std::string node = getNodeName(value.getLoc());
    Location loc =
        NameLoc::get(rewriter.getStringAttr((node.empty() ? "" : node + " ") +
                                            "as " + describeHalf()),
                     value.getLoc());
    auto type = cast<RankedTensorType>(value.getType()).clone(half);
    ONNXCastOp castOp = createCast(rewriter, loc, value, type);
    use.set(castOp.getResult());
    SmallVector<Operation *> ops(llvm::reverse(moves));
    ops.push_back(castOp);
    FailureOr<GroupOp> convert =
        formGroup(rewriter, GroupKind::elementwise, ops);
    if (failed(convert))
      return group.emitOpError("could not convert an operand of its "
                               "contraction to ")
             << describeHalf();
    convert->setPrecisionAttr(
        PrecisionAttr::get(group.getContext(), precision));
    narrow.insert(convert->getResult(0));
    return convert->getResult(0);
  }

  StringRef describeHalf() const { return half.isF16() ? "fp16" : "bf16"; }

  /// The half-precision copy of an f32 weight (one per weight).
  Value getHalfConstant(RewriterBase &rewriter, ONNXConstantOp constant) {
    auto it = halfConstants.find(constant);
    if (it != halfConstants.end())
      return it->second;
    bool splat;
    ArrayRef<float> data = getFloatData(constant, splat);
    auto type = cast<RankedTensorType>(constant.getType()).clone(half);
    bool f16 = half.isF16();
    auto convert = [&](float v) {
      return f16 ? toHalfBits(v) : toBFloat16Bits(v);
    };
    ElementsAttr attr;
    if (splat) {
      uint16_t bits = convert(data.front());
      attr = DenseElementsAttr::get(
          type,
          APFloat(cast<FloatType>(half).getFloatSemantics(), APInt(16, bits)));
    } else {
      std::vector<uint16_t> bits(data.size());
      for (size_t i = 0; i < data.size(); ++i)
        bits[i] = convert(data[i]);
      ArrayRef<char> bytes(reinterpret_cast<const char *>(bits.data()),
                           bits.size() * 2);
      if (bits.size() <= 8) {
        attr = DenseElementsAttr::getFromRawBuffer(type, bytes);
      } else {
        auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
            bytes, alignof(uint64_t));
        attr = DenseResourceElementsAttr::get(
            type, blobNameStem(constant, "weight") + "_" + describeHalf().str(),
            std::move(blob));
      }
    }
    rewriter.setInsertionPointAfter(constant);
    Value result =
        ONNXConstantOp::create(rewriter, constant.getLoc(), type, attr);
    halfConstants[constant] = result;
    return result;
  }

  /// Whether group `group` (half precision) reads the constant at operand
  /// `index` in half precision: as A or B of its contraction whose other
  /// product operand is half precision too, or (a bias, a Gemm's C, a
  /// norm's scale) when its results are stored so.
  bool readsConstantInHalf(GroupOp group, unsigned index) {
    Operation *contraction = getContraction(group);
    BlockArgument arg = group.getBodyBlock().getArgument(index);
    if (contraction && isProductOperand(arg, contraction)) {
      for (OpOperand &other : group->getOpOperands()) {
        BlockArgument otherArg =
            group.getBodyBlock().getArgument(other.getOperandNumber());
        if (other.getOperandNumber() != index &&
            isProductOperand(otherArg, contraction) &&
            !hasHalfVersion(other.get()))
          return false;
      }
      return true;
    }
    return llvm::any_of(group.getResults(),
                        [&](Value r) { return narrow.contains(r); });
  }

  /// A Slice in an elementwise group reads a view of its data, which must
  /// be the group's input: Slices of `widen`'s result slice its operand
  /// (the half-precision input) instead, and are widened after.
  void widenAfterSlices(RewriterBase &rewriter, ONNXCastOp widen) {
    Value input = widen.getInput();
    for (Operation *user : llvm::make_early_inc_range(widen->getUsers())) {
      auto slice = dyn_cast<ONNXSliceOp>(user);
      if (!slice || slice.getData() != widen.getResult())
        continue;
      rewriter.setInsertionPoint(slice);
      Operation *narrowSlice = rewriter.clone(*slice);
      narrowSlice->setOperand(0, input);
      Value result = narrowSlice->getResult(0);
      result.setType(cast<RankedTensorType>(result.getType())
                         .clone(getElementTypeOrSelf(input.getType())));
      ONNXCastOp wide =
          createCast(rewriter, slice.getLoc(), result, slice.getType());
      rewriter.replaceOp(slice, wide.getResult());
    }
    if (widen->use_empty())
      rewriter.eraseOp(widen);
  }

  void rewrite(RewriterBase &rewriter, Block &body) {
    // Results first: every reader of a narrowed value is rewritten below.
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto group = dyn_cast<GroupOp>(op)) {
        YieldOp yield = group.getYield();
        for (OpResult result : group->getResults()) {
          if (!narrow.contains(result))
            continue;
          auto type = cast<RankedTensorType>(result.getType()).clone(half);
          Value yielded = yield.getOperand(result.getResultNumber());
          if (yielded.getType() != type) {
            rewriter.setInsertionPoint(yield);
            Value narrowed =
                createCast(rewriter, yielded.getLoc(), yielded, type);
            yield->setOperand(result.getResultNumber(), narrowed);
          }
          result.setType(type);
        }
      } else if (isHalfCarrier(&op) && op.getNumResults() == 1 &&
                 narrow.contains(op.getResult(0))) {
        for (OpOperand *operand : getDataOperands(&op)) {
          Value value = operand->get();
          if (Value widened = getWidenedHalf(value))
            operand->set(widened);
          else if (auto constant = value.getDefiningOp<ONNXConstantOp>())
            operand->set(getHalfConstant(rewriter, constant));
        }
        Value result = op.getResult(0);
        result.setType(cast<RankedTensorType>(result.getType()).clone(half));
      }
    }

    // Each half-precision group reads its inputs as they are now stored,
    // widened in its body.
    for (GroupOp group : body.getOps<GroupOp>()) {
      if (!isHalfGroup(group))
        continue;
      Block &groupBody = group.getBodyBlock();
      for (OpOperand &operand : group->getOpOperands()) {
        Value value = operand.get();
        if (Value widened = getWidenedHalf(value)) {
          operand.set(widened);
        } else if (auto constant = value.getDefiningOp<ONNXConstantOp>()) {
          if (isF32Tensor(value.getType()) && convertible(constant) &&
              readsConstantInHalf(group, operand.getOperandNumber()))
            operand.set(getHalfConstant(rewriter, constant));
        }
        BlockArgument arg = groupBody.getArgument(operand.getOperandNumber());
        Type type = operand.get().getType();
        if (arg.getType() == type)
          continue;
        Type wide = arg.getType();
        arg.setType(type);
        rewriter.setInsertionPointToStart(&groupBody);
        ONNXCastOp widen = createCast(rewriter, group.getLoc(), arg, wide);
        arg.replaceAllUsesExcept(widen.getResult(), widen);
        widenAfterSlices(rewriter, widen);
      }
    }

    // A Cast of a narrowed value to its own type is the value.
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto castOp = dyn_cast<ONNXCastOp>(op);
      if (castOp && castOp.getInput().getType() == castOp.getType()) {
        rewriter.replaceOp(castOp, castOp.getInput());
      }
    }
    // What the rewrite left unread: widening casts and f32 weights.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isa<ONNXCastOp, ONNXConstantOp>(op) && op.use_empty())
        rewriter.eraseOp(&op);
  }

  SmallVector<llvm::GlobPattern> patterns;
  Type half;
  llvm::DenseSet<Value> narrow;
  /// With model-types: the top-level values the model computes in half
  /// precision.
  llvm::DenseSet<Value> halfOrigin;
  llvm::DenseMap<Operation *, bool> fits;
  llvm::DenseMap<Operation *, Value> halfConstants;
  /// The kernel converting an f32 activation for half-precision products.
  llvm::DenseMap<Value, Value> conversions;
};

} // namespace
