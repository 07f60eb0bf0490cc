//===- Tensor.cpp - Data movement: reshapes, layout ops, constants -------===//
//
// Reshape and Flatten are views (collapse to 1-D, expand to the result)
// followed by a copy: the copy is the kernel's tileable loop, the views
// cost nothing. Constants inside a kernel become arith.constant.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::lowering;

/// `source` viewed with the shape of `resultType` (same element count),
/// then copied.
static Value buildReshape(OpBuilder &b, Location loc, Value source,
                          RankedTensorType resultType) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type elementType = sourceType.getElementType();
  auto flatType =
      RankedTensorType::get({sourceType.getNumElements()}, elementType);
  Value flat;
  if (sourceType.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, source,
                                         ArrayRef<ReassociationIndices>{});
  else if (sourceType.getRank() == 1)
    flat = source;
  else
    flat = tensor::CollapseShapeOp::create(
        b, loc, flatType, source,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, sourceType.getRank()))});
  Value view;
  if (resultType.getRank() == 0)
    view = tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  else if (resultType.getRank() == 1)
    view = flat;
  else
    view = tensor::ExpandShapeOp::create(
        b, loc, resultType, flat,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()))});
  return buildElementwise(
      b, loc, resultType, {view},
      [](OpBuilder &, Location, ArrayRef<Value> x) { return x[0]; });
}

/// The `type` result of a `linalg.generic` whose loops are all parallel and
/// run `body` once per element: it gets the elements of `inputs` (read
/// through `inputMaps`) and returns the result's element.
static Value buildParallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args.drop_back()));
      });
  return generic.getResult(0);
}

/// `linalg.index` of loops [from, to) of the enclosing generic.
static SmallVector<Value> buildLoopIndices(OpBuilder &b, Location l,
                                           int64_t from, int64_t to) {
  SmallVector<Value> indices;
  for (int64_t d = from; d < to; ++d)
    indices.push_back(linalg::IndexOp::create(b, l, d));
  return indices;
}

/// A copy of `source` to a tensor of `resultType`, reading the source
/// element that `map` (from output indices) names.
static Value buildCopy(OpBuilder &b, Location loc, Value source, AffineMap map,
                       RankedTensorType resultType) {
  return buildParallelGeneric(
      b, loc, resultType, source, map,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// An index read from an ONNX indices tensor, as an in-bounds `index` for
/// a dim of `size`: negative counts from the end, and out-of-range values
/// are clamped rather than read out of bounds.
static Value buildClampedIndex(OpBuilder &b, Location l, Value raw,
                               int64_t size) {
  Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value negative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(
      b, l, negative,
      arith::AddIOp::create(b, l, i,
                            arith::ConstantIndexOp::create(b, l, size)),
      i);
  i = arith::MaxSIOp::create(b, l, i, zero);
  return arith::MinSIOp::create(b, l, i,
                                arith::ConstantIndexOp::create(b, l, size - 1));
}

namespace {

struct ReshapeLowering : public OpConversionPattern<ONNXReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReshape(rewriter, op.getLoc(), adaptor.getData(),
                                    cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct FlattenLowering : public OpConversionPattern<ONNXFlattenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXFlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildReshape(rewriter, op.getLoc(), adaptor.getInput(),
                                    cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<ONNXConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "not a dense constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// Squeeze and Unsqueeze only change the shape: a reshape.
template <typename OpTy>
struct ReshapeLikeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildReshape(rewriter, op.getLoc(),
                                        adaptor.getData(),
                                        cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Expand is a broadcast copy.
struct ExpandLowering : public OpConversionPattern<ONNXExpandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
                {adaptor.getInput()},
                [](OpBuilder &, Location, ArrayRef<Value> x) { return x[0]; }));
    return success();
  }
};

/// Transpose reads its input through the inverse permutation.
struct TransposeLowering : public OpConversionPattern<ONNXTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> perm;
    if (std::optional<ArrayRef<int64_t>> p = op.getPerm())
      perm.assign(p->begin(), p->end());
    else
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    // Output dim i walks input dim perm[i].
    SmallVector<AffineExpr> exprs(rank);
    for (int64_t i = 0; i < rank; ++i)
      exprs[perm[i]] = rewriter.getAffineDimExpr(i);
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOp(op, buildCopy(rewriter, op.getLoc(), adaptor.getData(),
                                     AffineMap::get(rank, 0, exprs, ctx),
                                     type));
    return success();
  }
};

/// Slice takes the dims with positive steps as a strided extract_slice (a
/// view), then copies; dims with negative steps are read backwards through
/// the copy's indexing map (`start - i * |step|`).
struct SliceLowering : public OpConversionPattern<ONNXSliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto starts = getConstantIntValues(op.getStarts());
    auto ends = getConstantIntValues(op.getEnds());
    std::optional<SmallVector<int64_t>> axes, steps;
    if (op.getAxes())
      axes = getConstantIntValues(op.getAxes());
    if (op.getSteps())
      steps = getConstantIntValues(op.getSteps());
    if (!starts || !ends || (op.getAxes() && !axes) ||
        (op.getSteps() && !steps))
      return op.emitOpError("needs constant starts, ends, axes and steps");
    std::string error;
    FailureOr<SliceParams> params = resolveSlice(
        dataType.getShape(), *starts, *ends,
        axes.value_or(SmallVector<int64_t>()),
        steps.value_or(SmallVector<int64_t>()), error);
    if (failed(params))
      return op.emitOpError(error);
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<int64_t> offsets, sizes, strides, viewShape;
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t size = type.getDimSize(i);
      int64_t step = params->steps[i];
      if (step > 0 || size == 0) {
        offsets.push_back(size == 0 ? 0 : params->starts[i]);
        sizes.push_back(size);
        strides.push_back(step > 0 ? step : 1);
        exprs.push_back(getAffineDimExpr(i, ctx));
      } else {
        offsets.push_back(0);
        sizes.push_back(dataType.getDimSize(i));
        strides.push_back(1);
        exprs.push_back(getAffineConstantExpr(params->starts[i], ctx) +
                        getAffineDimExpr(i, ctx) * step);
      }
      viewShape.push_back(sizes.back());
    }
    Value view = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get(viewShape, dataType.getElementType()),
        adaptor.getData(), ValueRange{}, ValueRange{}, ValueRange{}, offsets,
        sizes, strides);
    rewriter.replaceOp(op, buildCopy(rewriter, loc, view,
                                     AffineMap::get(rank, 0, exprs, ctx),
                                     type));
    return success();
  }
};

/// Gather reads the index, normalizes it (negative counts from the end;
/// out-of-range indices are clamped rather than read out of bounds) and
/// extracts from `data`.
struct GatherLowering : public OpConversionPattern<ONNXGatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t axis = *normalizeAxis(op.getAxis(), dataType.getRank());
    int64_t rank = type.getRank();
    int64_t indexRank = indicesType.getRank();
    int64_t size = dataType.getDimSize(axis);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t i = 0; i < indexRank; ++i)
      indexExprs.push_back(getAffineDimExpr(axis + i, ctx));
    Value result = buildParallelGeneric(
        rewriter, loc, type, indices, AffineMap::get(rank, 0, indexExprs, ctx),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value i = buildClampedIndex(b, l, args[0], size);
          SmallVector<Value> coords = buildLoopIndices(b, l, 0, axis);
          coords.push_back(i);
          coords.append(buildLoopIndices(b, l, axis + indexRank, rank));
          return tensor::ExtractOp::create(b, l, data, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherElements reads the index at each output position and extracts
/// from `data` with that index along `axis` (clamped, like Gather).
struct GatherElementsLowering
    : public OpConversionPattern<ONNXGatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = type.getRank();
    int64_t axis = *normalizeAxis(op.getAxis(), rank);
    int64_t size = dataType.getDimSize(axis);
    Value result = buildParallelGeneric(
        rewriter, loc, type, adaptor.getIndices(),
        rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value i = buildClampedIndex(b, l, args[0], size);
          SmallVector<Value> coords = buildLoopIndices(b, l, 0, axis);
          coords.push_back(i);
          coords.append(buildLoopIndices(b, l, axis + 1, rank));
          return tensor::ExtractOp::create(b, l, data, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherND reads, at each output position, the index tuple of its
/// `indices` row and extracts from `data` there (each index clamped, like
/// Gather).
struct GatherNDLowering : public OpConversionPattern<ONNXGatherNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXGatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t rank = type.getRank();
    int64_t rows = indicesType.getRank() - 1;
    int64_t tuple = indicesType.getDimSize(rows);
    int64_t batchDims = op.getBatchDims();
    Value result = buildParallelGeneric(
        rewriter, loc, type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          // Output dims: the rows of `indices` (batch dims first), then the
          // slice's dims.
          SmallVector<Value> at = buildLoopIndices(b, l, 0, rows);
          SmallVector<Value> coords(at.begin(), at.begin() + batchDims);
          at.push_back(Value());
          for (int64_t m = 0; m < tuple; ++m) {
            at.back() = arith::ConstantIndexOp::create(b, l, m);
            Value raw = tensor::ExtractOp::create(b, l, indices, at);
            coords.push_back(buildClampedIndex(
                b, l, raw, dataType.getDimSize(batchDims + m)));
          }
          coords.append(buildLoopIndices(b, l, rows, rank));
          return tensor::ExtractOp::create(b, l, data, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Concat picks, per output element, the input whose range along `axis`
/// holds it; every input's index is clamped so the reads not taken stay
/// in bounds.
struct ConcatLowering : public OpConversionPattern<ONNXConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t axis = *normalizeAxis(op.getAxis(), rank);
    SmallVector<Value> inputs;
    SmallVector<int64_t> offsets, sizes;
    int64_t offset = 0;
    for (Value v : adaptor.getInputs()) {
      int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(axis);
      if (size == 0)
        continue;
      inputs.push_back(v);
      offsets.push_back(offset);
      sizes.push_back(size);
      offset += size;
    }
    Value result = buildParallelGeneric(
        rewriter, loc, type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> coords = buildLoopIndices(b, l, 0, rank);
          Value pos = coords[axis];
          Value picked;
          for (int64_t k = static_cast<int64_t>(inputs.size()) - 1; k >= 0;
               --k) {
            Value local = arith::SubIOp::create(
                b, l, pos, arith::ConstantIndexOp::create(b, l, offsets[k]));
            local = arith::MaxSIOp::create(
                b, l, local, arith::ConstantIndexOp::create(b, l, 0));
            local = arith::MinSIOp::create(
                b, l, local, arith::ConstantIndexOp::create(b, l, sizes[k] - 1));
            SmallVector<Value> at(coords);
            at[axis] = local;
            Value v = tensor::ExtractOp::create(b, l, inputs[k], at);
            if (!picked) {
              picked = v;
              continue;
            }
            Value inThis = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, pos,
                arith::ConstantIndexOp::create(b, l, offsets[k] + sizes[k]));
            picked = arith::SelectOp::create(b, l, inThis, v, picked);
          }
          return picked;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `linalg.index` of every loop of the enclosing generic of `rank` loops.
static SmallVector<Value> buildAllIndices(OpBuilder &b, Location l,
                                          int64_t rank) {
  return buildLoopIndices(b, l, 0, rank);
}

static Value constIndex(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

static Value clampIndex(OpBuilder &b, Location l, Value i, int64_t lo,
                        int64_t hi) {
  return arith::MinSIOp::create(
      b, l, arith::MaxSIOp::create(b, l, i, constIndex(b, l, lo)),
      constIndex(b, l, hi));
}

/// Pad: each output element reads the input at its position less the begin
/// pad, brought into the kept (uncropped) part of the dim as the mode says:
/// clamped (edge), mirrored (reflect) or modulo its length (wrap); constant
/// mode takes the fill value outside it instead.
struct PadLowering : public OpConversionPattern<ONNXPadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXPadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = type.getRank();
    Type elementType = type.getElementType();
    SmallVector<int64_t> begins, ends;
    if (failed(op.getDimPads(rank, begins, ends)))
      return op.emitOpError("needs constant, valid 'pads' and 'axes'");
    StringRef mode = op.getMode();
    bool isConstant = mode == "constant";
    SmallVector<int64_t> lo(rank), kept(rank), before(rank);
    bool empty = false;
    for (int64_t d = 0; d < rank; ++d) {
      lo[d] = std::max<int64_t>(0, -begins[d]);
      before[d] = std::max<int64_t>(0, begins[d]);
      kept[d] = dataType.getDimSize(d) - lo[d] - std::max<int64_t>(0, -ends[d]);
      empty |= kept[d] <= 0;
    }
    if (empty && !isConstant)
      return op.emitOpError("cannot pad a dim with no elements in '")
             << mode << "' mode";
    Value fillOperand = adaptor.getConstantValue();
    TypedAttr fillAttr =
        fillOperand ? getSplatScalar(fillOperand) : TypedAttr();
    Value result = buildParallelGeneric(
        rewriter, loc, type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value fill;
          if (!isConstant)
            fill = Value();
          else if (fillAttr)
            fill = arith::ConstantOp::create(b, l, fillAttr);
          else if (fillOperand)
            fill = tensor::ExtractOp::create(
                b, l, fillOperand,
                SmallVector<Value>(
                    cast<RankedTensorType>(fillOperand.getType()).getRank(),
                    constIndex(b, l, 0)));
          else
            fill = buildScalar(b, l, elementType, 0.0);
          // Everything is padding: no input element is read.
          if (empty)
            return fill;
          SmallVector<Value> at = buildAllIndices(b, l, rank);
          Value inside;
          for (int64_t d = 0; d < rank; ++d) {
            Value j =
                arith::SubIOp::create(b, l, at[d], constIndex(b, l, before[d]));
            bool padded = before[d] > 0 || type.getDimSize(d) > kept[d];
            Value pos = j;
            if (!padded) {
              // Kept as it is (cropped at most).
            } else if (isConstant || mode == "edge") {
              if (isConstant) {
                Value in = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, j,
                                          constIndex(b, l, 0)),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j,
                                          constIndex(b, l, kept[d])));
                inside =
                    inside ? arith::AndIOp::create(b, l, inside, in).getResult()
                           : in;
              }
              pos = clampIndex(b, l, j, 0, kept[d] - 1);
            } else if (mode == "reflect") {
              // Pads are shorter than the dim: one reflection suffices.
              Value negative = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, j, constIndex(b, l, 0));
              Value a = arith::SelectOp::create(
                  b, l, negative,
                  arith::SubIOp::create(b, l, constIndex(b, l, 0), j), j);
              Value past =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, a,
                                        constIndex(b, l, kept[d]));
              pos = arith::SelectOp::create(
                  b, l, past,
                  arith::SubIOp::create(b, l,
                                        constIndex(b, l, 2 * (kept[d] - 1)), a),
                  a);
            } else {
              // wrap: shift by whole periods so the remainder is of a
              // non-negative number.
              int64_t shift = (before[d] + kept[d] - 1) / kept[d] * kept[d];
              pos = arith::RemSIOp::create(
                  b, l, arith::AddIOp::create(b, l, j, constIndex(b, l, shift)),
                  constIndex(b, l, kept[d]));
            }
            at[d] = arith::AddIOp::create(b, l, pos, constIndex(b, l, lo[d]));
          }
          Value v = tensor::ExtractOp::create(b, l, data, at);
          return inside ? arith::SelectOp::create(b, l, inside, v, fill)
                              .getResult()
                        : v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Tile reads each output element at its position modulo the input's dims.
struct TileLowering : public OpConversionPattern<ONNXTileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at = buildAllIndices(b, l, rank);
          for (int64_t d = 0; d < rank; ++d)
            if (inputType.getDimSize(d) != type.getDimSize(d))
              at[d] = arith::RemUIOp::create(
                  b, l, at[d], constIndex(b, l, inputType.getDimSize(d)));
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Trilu keeps an element of row i and column j of the last two dims when
/// `j - i >= k` (upper) or `j - i <= k` (lower), else 0.
struct TriluLowering : public OpConversionPattern<ONNXTriluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXTriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t k = 0;
    if (op.getK()) {
      std::optional<SmallVector<int64_t>> values =
          getConstantIntValues(op.getK());
      if (!values || values->size() != 1)
        return op.emitOpError("needs a constant 'k' (an input can be fixed to "
                              "a value with --input-value)");
      k = (*values)[0];
    }
    bool upper = op.getUpper() != 0;
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value diagonal = arith::IndexCastOp::create(
              b, l, b.getI64Type(), arith::SubIOp::create(b, l, j, i));
          Value keep = arith::CmpIOp::create(
              b, l,
              upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diagonal,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(k)));
          return arith::SelectOp::create(
              b, l, keep, args[0],
              buildScalar(b, l, type.getElementType(), 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// DepthToSpace and SpaceToDepth move each b x b block of the spatial dims
/// of the tensor of C channels (the "space" one) to b*b channels of the
/// other: space (n, c, h*b + i, w*b + j) is depth (n, (i*b + j) * C + c,
/// h, w) in DCR mode and (n, c * b*b + i*b + j, h, w) in CRD mode. Each
/// output element reads the input element it is.
template <typename OpTy, bool ToSpace>
struct BlockMoveLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    auto space = ToSpace ? type : cast<RankedTensorType>(input.getType());
    int64_t bs = op.getBlocksize(), channels = space.getDimSize(1);
    bool dcr = op.getMode() == "DCR";
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at = buildAllIndices(b, l, 4);
          Value block = constIndex(b, l, bs);
          auto mul = [&](Value x, Value y) -> Value {
            return arith::MulIOp::create(b, l, x, y);
          };
          auto add = [&](Value x, Value y) -> Value {
            return arith::AddIOp::create(b, l, x, y);
          };
          SmallVector<Value> from;
          if constexpr (ToSpace) {
            Value offset =
                add(mul(arith::RemUIOp::create(b, l, at[2], block), block),
                    arith::RemUIOp::create(b, l, at[3], block));
            Value c = dcr ? add(mul(offset, constIndex(b, l, channels)), at[1])
                          : add(mul(at[1], constIndex(b, l, bs * bs)), offset);
            from = {at[0], c, arith::DivUIOp::create(b, l, at[2], block),
                    arith::DivUIOp::create(b, l, at[3], block)};
          } else {
            Value per = constIndex(b, l, dcr ? channels : bs * bs);
            Value quotient = arith::DivUIOp::create(b, l, at[1], per);
            Value remainder = arith::RemUIOp::create(b, l, at[1], per);
            Value offset = dcr ? quotient : remainder;
            from = {at[0], dcr ? remainder : quotient,
                    add(mul(at[2], block),
                        arith::DivUIOp::create(b, l, offset, block)),
                    add(mul(at[3], block),
                        arith::RemUIOp::create(b, l, offset, block))};
          }
          return tensor::ExtractOp::create(b, l, input, from);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Shape, Size, ConstantOfShape and Range of static shapes are constants; they
/// normally fold away before lowering, but a kernel may still hold one.
template <typename OpTy>
struct FoldToConstantLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> folded;
    if (failed(op->fold(folded)) || folded.size() != 1)
      return op.emitOpError("could not be evaluated at compile time");
    auto value = dyn_cast_or_null<DenseElementsAttr>(
        dyn_cast<Attribute>(folded.front()));
    if (!value)
      return op.emitOpError("could not be evaluated at compile time");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

} // namespace

void fuse::lowering::populateTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ReshapeLowering, FlattenLowering, ConstantLowering,
      ReshapeLikeLowering<ONNXSqueezeOp>, ReshapeLikeLowering<ONNXUnsqueezeOp>,
      ExpandLowering, TransposeLowering, SliceLowering, GatherLowering,
      GatherElementsLowering, GatherNDLowering, ConcatLowering, PadLowering,
      TileLowering, TriluLowering, BlockMoveLowering<ONNXDepthToSpaceOp, true>,
      BlockMoveLowering<ONNXSpaceToDepthOp, false>,
      FoldToConstantLowering<ONNXShapeOp>, FoldToConstantLowering<ONNXSizeOp>,
      FoldToConstantLowering<ONNXConstantOfShapeOp>,
      FoldToConstantLowering<ONNXRangeOp>>(patterns.getContext());
}
