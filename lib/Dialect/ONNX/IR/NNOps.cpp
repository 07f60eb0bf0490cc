//===- NNOps.cpp - Result types of pooling, Conv, normalizations ---------===//

#include "InferenceUtils.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

static SmallVector<int64_t> toVector(std::optional<ArrayRef<int64_t>> a) {
  if (!a)
    return {};
  return SmallVector<int64_t>(a->begin(), a->end());
}

/// Shape of a windowed op's result: `N x channels x out...`. `kernel` gives
/// the window; the rest of `params` comes from the op's attributes.
static LogicalResult inferWindowed(std::optional<Location> loc,
                                   StringRef opName, RankedTensorType input,
                                   int64_t channels, WindowParams params,
                                   SmallVectorImpl<Type> &types) {
  size_t spatialRank = input.getRank() - 2;
  std::string error;
  if (failed(normalizeWindowParams(params, spatialRank, error)))
    return inferError(loc, opName, error);
  FailureOr<SmallVector<int64_t>> spatial =
      inferWindowOutputDims(input.getShape().drop_front(2), params, error);
  if (failed(spatial))
    return inferError(loc, opName, error);
  SmallVector<int64_t> shape{input.getDimSize(0), channels};
  shape.append(spatial->begin(), spatial->end());
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// The data operand of a pooling or conv op: a tensor of rank >= 3
/// (N x C x spatial...). Returns null after reporting when it is not; an
/// unranked operand yields an unranked result and a null return with
/// `handled` set.
static FailureOr<RankedTensorType> getSpatialInput(std::optional<Location> loc,
                                                   StringRef opName, Value x,
                                                   SmallVectorImpl<Type> &types,
                                                   bool &handled) {
  handled = false;
  TensorType type = getTensorType(x);
  if (!type)
    return inferError(loc, opName, "expects a tensor operand");
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked) {
    types.push_back(unranked(type.getElementType()));
    handled = true;
    return RankedTensorType();
  }
  if (ranked.getRank() < 3)
    return inferError(loc, opName, "expects input of rank >= 3 (N x C x D1 ",
                      "...), got ", formatShape(ranked.getShape()));
  return ranked;
}

template <typename PoolOp>
static LogicalResult inferPool(std::optional<Location> loc,
                               typename PoolOp::Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  StringRef name = PoolOp::getOperationName();
  bool handled;
  FailureOr<RankedTensorType> input =
      getSpatialInput(loc, name, adaptor.getX(), types, handled);
  if (failed(input) || handled)
    return failure(failed(input));
  if (!adaptor.getKernelShapeAttr())
    return inferError(loc, name, "requires attribute 'kernel_shape'");
  WindowParams params;
  params.kernel = toVector(adaptor.getKernelShape());
  params.strides = toVector(adaptor.getStrides());
  params.dilations = toVector(adaptor.getDilations());
  params.pads = toVector(adaptor.getPads());
  params.autoPad = adaptor.getAutoPad().str();
  params.ceilMode = adaptor.getCeilMode() != 0;
  return inferWindowed(loc, name, *input, input->getDimSize(1), params, types);
}

LogicalResult
ONNXAveragePoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  return inferPool<ONNXAveragePoolOp>(loc, adaptor, types);
}

LogicalResult ONNXMaxPoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferPool<ONNXMaxPoolOp>(loc, adaptor, types);
}

LogicalResult ONNXGlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  bool handled;
  FailureOr<RankedTensorType> input =
      getSpatialInput(loc, getOperationName(), adaptor.getX(), types, handled);
  if (failed(input) || handled)
    return failure(failed(input));
  SmallVector<int64_t> shape(input->getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  types.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

/// Conv's result type (NhwcConv's too, on the channels-first view of its
/// input): `x` is `N x C x spatial...`, `w` `M x C/group x kernel...`.
template <class Adaptor>
static LogicalResult inferConv(std::optional<Location> loc, StringRef name,
                               RankedTensorType x, TensorType w,
                               Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (w.getRank() != x.getRank())
    return inferError(loc, name, "weight W of shape ",
                      formatShape(w.getShape()),
                      " must have the rank of input X (", x.getRank(), ")");
  if (w.getElementType() != x.getElementType())
    return inferError(loc, name, "W has element type ", w.getElementType(),
                      ", expected ", x.getElementType());
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return inferError(loc, name, "'group' = ", group, " must be positive");
  int64_t c = x.getDimSize(1), m = w.getDimSize(0), wc = w.getDimSize(1);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(wc) &&
      c != wc * group)
    return inferError(loc, name, "input has ", c, " channels but W expects ",
                      wc, " x group ", group, " = ", wc * group);
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return inferError(loc, name, "W's ", m,
                      " output channels are not divisible by group ", group);
  if (Value b = adaptor.getB()) {
    auto bt = dyn_cast<RankedTensorType>(b.getType());
    if (bt &&
        (bt.getRank() != 1 || (!ShapedType::isDynamic(m) &&
                               !bt.isDynamicDim(0) && bt.getDimSize(0) != m)))
      return inferError(loc, name, "bias B of shape ",
                        formatShape(bt.getShape()), " must be a vector of ", m,
                        " elements");
  }
  WindowParams params;
  ArrayRef<int64_t> wSpatial = w.getShape().drop_front(2);
  if (auto kernel = adaptor.getKernelShape()) {
    for (auto [k, wk] : llvm::zip(*kernel, wSpatial))
      if (!ShapedType::isDynamic(wk) && k != wk)
        return inferError(loc, name, "'kernel_shape' does not match the ",
                          "spatial dims of W (", formatShape(wSpatial), ")");
    params.kernel = toVector(kernel);
  } else {
    params.kernel.assign(wSpatial.begin(), wSpatial.end());
  }
  params.strides = toVector(adaptor.getStrides());
  params.dilations = toVector(adaptor.getDilations());
  params.pads = toVector(adaptor.getPads());
  params.autoPad = adaptor.getAutoPad().str();
  return inferWindowed(loc, name, x, m, params, types);
}

LogicalResult ONNXConvOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  bool handled;
  FailureOr<RankedTensorType> input =
      getSpatialInput(loc, name, adaptor.getX(), types, handled);
  if (failed(input))
    return failure();
  TensorType w = getTensorType(adaptor.getW());
  if (!w)
    return inferError(loc, name, "expects a tensor weight operand");
  if (handled || !w.hasRank()) {
    if (!handled)
      types.push_back(unranked(input->getElementType()));
    return success();
  }
  return inferConv(loc, name, *input, w, adaptor, types);
}

LogicalResult ONNXNhwcConvOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType x = getTensorType(adaptor.getX());
  TensorType w = getTensorType(adaptor.getW());
  if (!x || !w)
    return inferError(loc, name, "expects tensor operands");
  if (!x.hasRank() || !w.hasRank()) {
    types.push_back(unranked(x.getElementType()));
    return success();
  }
  if (x.getRank() != 4)
    return inferError(loc, name, "expects an input of rank 4 (N x H x W x ",
                      "C), got ", formatShape(x.getShape()));
  // The channels-first view of X, and the result back to channels-last.
  ArrayRef<int64_t> d = x.getShape();
  auto view =
      RankedTensorType::get({d[0], d[3], d[1], d[2]}, x.getElementType());
  SmallVector<Type, 1> nchw;
  if (failed(inferConv(loc, name, view, w, adaptor, nchw)))
    return failure();
  auto y = cast<RankedTensorType>(nchw.front());
  ArrayRef<int64_t> o = y.getShape();
  types.push_back(y.clone({o[0], o[2], o[3], o[1]}));
  return success();
}

ONNXTransposeOp ONNXNhwcConvOp::getFiltersLastView() {
  auto transpose = getW().getDefiningOp<ONNXTransposeOp>();
  if (!transpose || !transpose->hasOneUse() || !transpose.getPerm() ||
      *transpose.getPerm() != ArrayRef<int64_t>{0, 3, 1, 2})
    return ONNXTransposeOp();
  return transpose;
}

LogicalResult ONNXBatchNormalizationOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType x = getTensorType(adaptor.getX());
  if (!x)
    return inferError(loc, name, "expects a tensor operand");
  if (x.hasRank() && x.getRank() < 2)
    return inferError(loc, name, "expects input of rank >= 2, got ",
                      formatShape(x.getShape()));
  int64_t c = x.hasRank() ? x.getDimSize(1) : ShapedType::kDynamic;
  for (auto [v, what] :
       {std::pair{adaptor.getScale(), "scale"}, std::pair{adaptor.getB(), "B"},
        std::pair{adaptor.getInputMean(), "input_mean"},
        std::pair{adaptor.getInputVar(), "input_var"}}) {
    auto t = dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
    if (!t)
      continue;
    if (t.getRank() != 1 || (!ShapedType::isDynamic(c) && !t.isDynamicDim(0) &&
                             t.getDimSize(0) != c))
      return inferError(loc, name, "'", what, "' of shape ",
                        formatShape(t.getShape()), " must be a vector of ", c,
                        " elements (the channel count)");
  }
  types.push_back(x);
  return success();
}

LogicalResult ONNXLRNOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  TensorType x = getTensorType(adaptor.getX());
  if (!x)
    return inferError(loc, name, "expects a tensor operand");
  if (!adaptor.getSizeAttr())
    return inferError(loc, name, "requires attribute 'size'");
  if (adaptor.getSize() < 1)
    return inferError(loc, name, "'size' = ", adaptor.getSize(),
                      " must be positive");
  if (x.hasRank() && x.getRank() < 3)
    return inferError(loc, name, "expects input of rank >= 3 (N x C x D1 ",
                      "...), got ", formatShape(x.getShape()));
  types.push_back(x);
  return success();
}

/// InstanceNormalization and GroupNormalization: `x` is N x C x ... of at
/// least `minRank` dims, its C channels split into `groups` (when given)
/// groups, and `params` (named) are vectors of C elements of x's type.
static LogicalResult
inferChannelNorm(std::optional<Location> loc, StringRef name, Value input,
                 int64_t minRank, std::optional<int64_t> groups,
                 ArrayRef<std::pair<Value, const char *>> params,
                 SmallVectorImpl<Type> &types) {
  TensorType x = getTensorType(input);
  if (!x)
    return inferError(loc, name, "expects a tensor operand");
  if (groups && *groups < 1)
    return inferError(loc, name, "'num_groups' = ", *groups,
                      " must be positive");
  if (x.hasRank() && x.getRank() < minRank)
    return inferError(loc, name, "expects input of rank >= ", minRank,
                      " (N x C x ...), got ", formatShape(x.getShape()));
  int64_t channels = x.hasRank() ? x.getDimSize(1) : ShapedType::kDynamic;
  if (groups && !ShapedType::isDynamic(channels) && channels % *groups != 0)
    return inferError(
        loc, name, "the ", channels,
        " channels are not divisible by 'num_groups' = ", *groups);
  for (auto [v, what] : params) {
    auto t = dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
    if (!t)
      continue;
    if (t.getElementType() != x.getElementType())
      return inferError(loc, name, "'", what, "' has element type ",
                        t.getElementType(), ", expected ", x.getElementType());
    if (t.getRank() != 1 || (!ShapedType::isDynamic(channels) &&
                             !t.isDynamicDim(0) && t.getDimSize(0) != channels))
      return inferError(loc, name, "'", what, "' of shape ",
                        formatShape(t.getShape()), " must be a vector of ",
                        channels, " elements (the channel count)");
  }
  types.push_back(x);
  return success();
}

LogicalResult ONNXInstanceNormalizationOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  // Rank 2 would normalize over no dims at all.
  return inferChannelNorm(
      loc, getOperationName(), adaptor.getInput(), /*minRank=*/3, std::nullopt,
      {{adaptor.getScale(), "scale"}, {adaptor.getB(), "B"}}, types);
}

LogicalResult ONNXGroupNormalizationOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (!adaptor.getNumGroupsAttr())
    return inferError(loc, getOperationName(),
                      "requires attribute 'num_groups'");
  return inferChannelNorm(
      loc, getOperationName(), adaptor.getX(), /*minRank=*/2,
      adaptor.getNumGroups(),
      {{adaptor.getScale(), "scale"}, {adaptor.getBias(), "bias"}}, types);
}
