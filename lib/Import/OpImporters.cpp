//===- OpImporters.cpp - One importer per ONNX operator ------------------===//
//
// The table at the bottom lists, per operator, the opset versions at which
// its schema changed (from onnx.defs, onnx 1.23, opset 28), the attributes
// it may carry and its input/output counts. Most operators map one to one
// onto an `onnx` op (importGeneric); the others rewrite older signatures
// into the dialect's single form or reject what fuse does not implement.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The node's inputs, padded with nulls (omitted) to the operator's full
/// input list, as ops with several optional operands need.
static SmallVector<Value> allInputs(NodeImporter &n) {
  SmallVector<Value> operands(n.inputs);
  // Variadic operators (Concat, Sum) have no optional inputs to pad.
  constexpr unsigned kMaxFixedInputs = 16;
  if (n.info.maxInputs <= kMaxFixedInputs)
    operands.resize(std::max<size_t>(operands.size(), n.info.maxInputs));
  return operands;
}

/// Attributes as they are, operands as they are, one result.
static LogicalResult importGeneric(NodeImporter &n) {
  FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes();
  if (failed(attrs))
    return failure();
  FailureOr<Operation *> op = n.createOp(n.info.opName, allInputs(n), *attrs);
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

/// Pooling and convolution: writes out the ONNX defaults of `strides`,
/// `dilations` and (without auto_pad) `pads`, so the IR is explicit.
static LogicalResult importWindowed(NodeImporter &n,
                                    std::optional<int64_t> spatialRank) {
  FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes();
  if (failed(attrs))
    return failure();
  if (const auto *kernel = n.findAttr("kernel_shape"))
    spatialRank = kernel->ints_size();
  if (spatialRank) {
    const auto *autoPad = n.findAttr("auto_pad");
    bool explicitPads = !autoPad || autoPad->s() == "NOTSET";
    auto addDefault = [&](StringRef name, int64_t count, int64_t value) {
      if (!n.findAttr(name))
        attrs->push_back(n.builder.getNamedAttr(
            name, n.builder.getDenseI64ArrayAttr(
                      SmallVector<int64_t>(count, value))));
    };
    addDefault("strides", *spatialRank, 1);
    addDefault("dilations", *spatialRank, 1);
    if (explicitPads)
      addDefault("pads", 2 * *spatialRank, 0);
  }
  FailureOr<Operation *> op = n.createOp(n.info.opName, allInputs(n), *attrs);
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

static LogicalResult importPool(NodeImporter &n) {
  if (n.outputUsed(1))
    return n.emitError() << "the Indices output is not supported";
  return importWindowed(n, std::nullopt);
}

static LogicalResult importConv(NodeImporter &n) {
  std::optional<int64_t> spatialRank;
  if (auto w = dyn_cast<RankedTensorType>(n.input(1).getType()))
    if (w.getRank() >= 2)
      spatialRank = w.getRank() - 2;
  return importWindowed(n, spatialRank);
}

/// Clip-6 has its bounds as attributes; Clip-11 as optional inputs.
static LogicalResult importClip(NodeImporter &n) {
  if (n.version >= 11)
    return importGeneric(n);
  Value input = n.input(0);
  Type elementType = cast<TensorType>(input.getType()).getElementType();
  if (!isa<FloatType>(elementType))
    return n.emitError() << "Clip-6 requires a float input, got "
                         << elementType;
  Value lo, hi;
  if (const auto *min = n.findAttr("min"))
    lo = n.createScalarConstant(elementType, min->f());
  if (const auto *max = n.findAttr("max"))
    hi = n.createScalarConstant(elementType, max->f());
  FailureOr<Operation *> op = n.createOp("onnx.Clip", {input, lo, hi}, {});
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

/// Inference-mode BatchNormalization only.
static LogicalResult importBatchNorm(NodeImporter &n) {
  if (const auto *mode = n.findAttr("training_mode"); mode && mode->i() != 0)
    return n.emitError() << "training_mode = " << mode->i()
                         << " is not supported (inference only)";
  if (const auto *spatial = n.findAttr("spatial"); spatial && spatial->i() != 1)
    return n.emitError() << "spatial = " << spatial->i()
                         << " (per-element statistics) is not supported";
  for (int i = 1; i < 5; ++i)
    if (n.outputUsed(i))
      return n.emitError() << "output #" << i << " ('" << n.node.output(i)
                           << "') exists only in training mode, which is "
                              "not supported";
  FailureOr<SmallVector<NamedAttribute>> attrs =
      n.convertAttributes({"training_mode", "spatial", "is_test"});
  if (failed(attrs))
    return failure();
  FailureOr<Operation *> op = n.createOp(n.info.opName, allInputs(n), *attrs);
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

/// Constant: `value` or one of the `value_*` shorthands (opset 12).
static LogicalResult importConstant(NodeImporter &n) {
  if (n.node.attribute_size() != 1)
    return n.emitError() << "must have exactly one value attribute, has "
                         << n.node.attribute_size();
  const ::onnx::AttributeProto &attr = n.node.attribute(0);
  MLIRContext *ctx = n.getContext();
  Builder &b = n.builder;
  ElementsAttr value;
  if (attr.name() == "value") {
    std::string error;
    value =
        convertTensor(attr.t(), n.node.output(0), ctx, error, n.externalData);
    if (!value)
      return n.emitError() << "tensor " << error;
  } else if (attr.name() == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   attr.f());
  } else if (attr.name() == "value_floats") {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  } else if (attr.name() == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   int64_t(attr.i()));
  } else {
    assert(attr.name() == "value_ints");
    SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  }
  FailureOr<Operation *> op =
      n.createOp("onnx.Constant", {}, {b.getNamedAttr("value", value)});
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

/// A 1-D i64 `onnx.Constant` holding `values` (attributes that later
/// opsets turned into inputs).
Value fuse::detail::createI64Constant(NodeImporter &n,
                                     ArrayRef<int64_t> values) {
  return fuse::createI64Constant(n.builder, n.loc, values);
}

static SmallVector<int64_t> getInts(const ::onnx::AttributeProto &attr) {
  return SmallVector<int64_t>(attr.ints().begin(), attr.ints().end());
}

/// Creates `opName` and records its single result.
static LogicalResult createSingle(NodeImporter &n, StringRef opName,
                                  ArrayRef<Value> operands,
                                  ArrayRef<NamedAttribute> attrs) {
  FailureOr<Operation *> op = n.createOp(opName, operands, attrs);
  if (failed(op))
    return failure();
  n.results.push_back((*op)->getResult(0));
  return success();
}

/// Ops whose `attrName` attribute (ints) became input #`index` at opset
/// `sinceVersion` (Squeeze/Unsqueeze axes at 13, Reduce* axes at 13 or 18).
static LogicalResult importAttrAsInput(NodeImporter &n, StringRef attrName,
                                       unsigned index, int sinceVersion) {
  if (n.version >= sinceVersion)
    return importGeneric(n);
  FailureOr<SmallVector<NamedAttribute>> attrs =
      n.convertAttributes({attrName});
  if (failed(attrs))
    return failure();
  SmallVector<Value> operands = allInputs(n);
  if (const auto *attr = n.findAttr(attrName)) {
    operands.resize(std::max<size_t>(operands.size(), index + 1));
    operands[index] = createI64Constant(n, getInts(*attr));
  }
  return createSingle(n, n.info.opName, operands, *attrs);
}

static LogicalResult importSqueezeLike(NodeImporter &n) {
  if (n.info.opName == StringRef("onnx.Unsqueeze")) {
    if (n.version < 13 && !n.findAttr("axes"))
      return n.emitError() << "requires attribute 'axes'";
    if (n.version >= 13 && !n.input(1))
      return n.emitError() << "requires input 'axes'";
  }
  return importAttrAsInput(n, "axes", 1, 13);
}

static LogicalResult importReduceSum(NodeImporter &n) {
  return importAttrAsInput(n, "axes", 1, 13);
}

static LogicalResult importReduce(NodeImporter &n) {
  return importAttrAsInput(n, "axes", 1, 18);
}

/// Slice-1 has starts/ends/axes attributes; Slice-10 on has inputs.
static LogicalResult importSlice(NodeImporter &n) {
  if (n.version >= 10) {
    if (n.inputs.size() < 3)
      return n.emitError() << "requires inputs 'starts' and 'ends'";
    return importGeneric(n);
  }
  const auto *starts = n.findAttr("starts");
  const auto *ends = n.findAttr("ends");
  if (!starts || !ends)
    return n.emitError() << "requires attributes 'starts' and 'ends'";
  Value axes;
  if (const auto *a = n.findAttr("axes"))
    axes = createI64Constant(n, getInts(*a));
  return createSingle(n, "onnx.Slice",
                      {n.input(0), createI64Constant(n, getInts(*starts)),
                       createI64Constant(n, getInts(*ends)), axes, Value()},
                      {});
}

/// Split becomes one Slice per output, along a dim of static size.
static LogicalResult importSplit(NodeImporter &n) {
  Value input = n.input(0);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return n.emitError() << "requires an input of known rank";
  int64_t axisAttr = 0;
  if (const auto *a = n.findAttr("axis"))
    axisAttr = a->i();
  FailureOr<int64_t> axis = normalizeAxis(axisAttr, type.getRank());
  if (failed(axis))
    return n.emitError() << "axis " << axisAttr << " is out of range for rank "
                         << type.getRank();
  int64_t size = type.getDimSize(*axis);
  if (ShapedType::isDynamic(size))
    return n.emitError() << "splitting dim " << *axis
                         << " of dynamic size is not supported";
  int64_t numOutputs = n.node.output_size();
  SmallVector<int64_t> sizes;
  if (Value split = n.input(1)) {
    std::optional<SmallVector<int64_t>> values = getConstantIntValues(split);
    if (!values)
      return n.emitError() << "a 'split' input that is not a constant is "
                              "not supported";
    sizes = *values;
  } else if (const auto *attr = n.findAttr("split")) {
    sizes = getInts(*attr);
  } else {
    if (const auto *attr = n.findAttr("num_outputs")) {
      if (attr->i() != numOutputs)
        return n.emitError() << "num_outputs = " << attr->i() << " but the "
                             << "node has " << numOutputs << " outputs";
    }
    // Equal parts, the last one smaller when the size does not divide.
    int64_t chunk = (size + numOutputs - 1) / numOutputs;
    for (int64_t i = 0, left = size; i < numOutputs; ++i) {
      sizes.push_back(std::min(chunk, left));
      left -= sizes.back();
    }
  }
  if (static_cast<int64_t>(sizes.size()) != numOutputs)
    return n.emitError() << "'split' has " << sizes.size()
                         << " entries for " << numOutputs << " outputs";
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || llvm::AddOverflow(total, s, total))
      return n.emitError() << "'split' has an invalid entry " << s;
  }
  if (total != size)
    return n.emitError() << "'split' sums to " << total << ", but dim "
                         << *axis << " has size " << size;
  Value axes = createI64Constant(n, {*axis});
  int64_t begin = 0;
  for (int64_t s : sizes) {
    FailureOr<Operation *> op = n.createOp(
        "onnx.Slice",
        {input, createI64Constant(n, {begin}),
         createI64Constant(n, {begin + s}), axes, Value()},
        {});
    if (failed(op))
      return failure();
    n.results.push_back((*op)->getResult(0));
    begin += s;
  }
  return success();
}

FailureOr<std::pair<int64_t, int64_t>>
fuse::detail::getSizesAroundAxis(NodeImporter &n, ArrayRef<int64_t> shape,
                                 int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (auto [i, size] : llvm::enumerate(shape)) {
    int64_t &part = static_cast<int64_t>(i) < axis ? outer : inner;
    if (llvm::MulOverflow(part, size, part))
      return n.emitError() << "the input's dims "
                           << (static_cast<int64_t>(i) < axis ? "before"
                                                              : "from")
                           << " axis " << axis
                           << " hold more than 2^63 elements";
  }
  return std::make_pair(outer, inner);
}

/// Softmax-1/11 flattens the input to 2-D around `axis` and normalizes each
/// row; that is Softmax-13 over the last dim when `axis` is the last dim,
/// and otherwise Reshape -> Softmax -> Reshape.
static LogicalResult importSoftmax(NodeImporter &n) {
  if (n.version >= 13)
    return importGeneric(n);
  Value input = n.input(0);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return n.emitError() << "requires an input of known rank";
  int64_t rank = type.getRank();
  int64_t axisAttr = 1;
  if (const auto *a = n.findAttr("axis"))
    axisAttr = a->i();
  int64_t axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  if (axis < 0 || axis > rank || (rank > 0 && axis == rank))
    return n.emitError() << "axis " << axisAttr << " is out of range for rank "
                         << rank;
  NamedAttribute lastAxis =
      n.builder.getNamedAttr("axis", n.builder.getI64IntegerAttr(-1));
  if (axis == rank - 1)
    return createSingle(n, "onnx.Softmax", {input}, {lastAxis});
  if (!type.hasStaticShape())
    return n.emitError() << "Softmax-" << n.version << " over axis " << axis
                         << " of a dynamic shape is not supported";
  FailureOr<std::pair<int64_t, int64_t>> sizes =
      getSizesAroundAxis(n, type.getShape(), axis);
  if (failed(sizes))
    return failure();
  auto [outer, inner] = *sizes;
  FailureOr<Operation *> flat = n.createOp(
      "onnx.Reshape", {input, createI64Constant(n, {outer, inner})}, {});
  if (failed(flat))
    return failure();
  FailureOr<Operation *> softmax =
      n.createOp("onnx.Softmax", {(*flat)->getResult(0)}, {lastAxis});
  if (failed(softmax))
    return failure();
  return createSingle(n, "onnx.Reshape",
                      {(*softmax)->getResult(0),
                       createI64Constant(n, type.getShape())},
                      {});
}

/// Dropout in inference is the identity and its mask all true; training
/// mode is not supported.
static LogicalResult importDropout(NodeImporter &n) {
  if (const auto *isTest = n.findAttr("is_test"); isTest && isTest->i() == 0)
    return n.emitError() << "is_test = 0 (training) is not supported";
  if (Value training = n.input(2)) {
    std::optional<SmallVector<int64_t>> mode;
    Attribute attr;
    if (matchPattern(training, m_Constant(&attr)))
      if (auto dense = dyn_cast<DenseIntElementsAttr>(attr);
          dense && dense.getNumElements() == 1)
        mode = SmallVector<int64_t>{(*dense.begin()).getZExtValue() != 0};
    if (!mode || (*mode)[0] != 0)
      return n.emitError() << "training_mode must be a constant false "
                              "(training is not supported)";
  }
  if (failed(createSingle(n, "onnx.Identity", {n.input(0)}, {})))
    return failure();
  if (n.outputUsed(1)) {
    auto type = dyn_cast<RankedTensorType>(n.input(0).getType());
    if (!type || !type.hasStaticShape())
      return n.emitError() << "the mask output ('" << n.node.output(1)
                           << "') of an input of dynamic shape is not "
                              "supported";
    auto maskType = RankedTensorType::get(type.getShape(), n.builder.getI1Type());
    n.results.push_back(ONNXConstantOp::create(
        n.builder, n.loc, maskType,
        DenseElementsAttr::get(maskType, n.builder.getBoolAttr(true))));
  }
  return success();
}

/// Cast: `to` only; saturate and round_mode matter for float8 types, which
/// fuse does not support.
static LogicalResult importCast(NodeImporter &n) {
  const auto *to = n.findAttr("to");
  if (!to)
    return n.emitError() << "requires attribute 'to'";
  if (!getElementTypeForONNX(to->i(), n.getContext()))
    return n.emitError() << "casting to " << dataTypeName(to->i())
                         << " is not supported";
  FailureOr<SmallVector<NamedAttribute>> attrs =
      n.convertAttributes({"saturate", "round_mode"});
  if (failed(attrs))
    return failure();
  return createSingle(n, "onnx.Cast", {n.input(0)}, *attrs);
}

/// CastLike is Cast to the element type of `target_type` (whose values are
/// not read).
static LogicalResult importCastLike(NodeImporter &n) {
  auto target = dyn_cast<TensorType>(n.input(1).getType());
  if (!target)
    return n.emitError() << "requires a tensor 'target_type'";
  Type elementType = target.getElementType();
  std::optional<int64_t> to = getONNXDataType(elementType);
  if (!to)
    return n.emitError() << "casting to " << elementType << " is not supported";
  return createSingle(
      n, "onnx.Cast", {n.input(0)},
      {n.builder.getNamedAttr("to", n.builder.getI64IntegerAttr(*to))});
}

/// Range-27's stash_type only changes how float accumulation is done.
static LogicalResult importRange(NodeImporter &n) {
  FailureOr<SmallVector<NamedAttribute>> attrs =
      n.convertAttributes({"stash_type"});
  if (failed(attrs))
    return failure();
  return createSingle(n, "onnx.Range", allInputs(n), *attrs);
}

/// Pad-2 has `pads` and `value` attributes; Pad-11 on has inputs.
static LogicalResult importPad(NodeImporter &n) {
  if (n.version >= 11) {
    if (n.inputs.size() < 2 || !n.input(1))
      return n.emitError() << "requires input 'pads'";
    FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes();
    if (failed(attrs))
      return failure();
    return createSingle(n, "onnx.Pad", allInputs(n), *attrs);
  }
  const auto *pads = n.findAttr("pads");
  if (!pads)
    return n.emitError() << "requires attribute 'pads'";
  FailureOr<SmallVector<NamedAttribute>> attrs =
      n.convertAttributes({"pads", "value"});
  if (failed(attrs))
    return failure();
  Type elementType = cast<TensorType>(n.input(0).getType()).getElementType();
  Value value;
  if (const auto *v = n.findAttr("value"))
    value = n.createScalarConstant(elementType, v->f());
  return createSingle(
      n, "onnx.Pad",
      {n.input(0), createI64Constant(n, getInts(*pads)), value, Value()},
      *attrs);
}

/// GroupNormalization-18 scales and shifts per group; -21 per channel. The
/// per-group vectors are repeated for each channel of their group.
static LogicalResult importGroupNorm(NodeImporter &n) {
  FailureOr<SmallVector<NamedAttribute>> attrs = n.convertAttributes();
  if (failed(attrs))
    return failure();
  if (n.version >= 21)
    return createSingle(n, "onnx.GroupNormalization", allInputs(n), *attrs);
  const auto *groupsAttr = n.findAttr("num_groups");
  auto x = dyn_cast<RankedTensorType>(n.input(0).getType());
  if (!groupsAttr || groupsAttr->i() < 1)
    return n.emitError() << "requires a positive attribute 'num_groups'";
  int64_t groups = groupsAttr->i();
  if (!x || x.getRank() < 2 || x.isDynamicDim(1) ||
      x.getDimSize(1) % groups != 0)
    return n.emitError() << "GroupNormalization-18 needs an input whose "
                            "channel count is static and divisible by "
                            "num_groups";
  int64_t channels = x.getDimSize(1);
  SmallVector<Value> operands{n.input(0)};
  for (Value v : {n.input(1), n.input(2)}) {
    // [G] -> [G, 1] -> [G, C/G] -> [C].
    FailureOr<Operation *> column =
        n.createOp("onnx.Reshape", {v, createI64Constant(n, {groups, 1})}, {});
    if (failed(column))
      return failure();
    FailureOr<Operation *> repeated =
        n.createOp("onnx.Expand",
                   {(*column)->getResult(0),
                    createI64Constant(n, {groups, channels / groups})},
                   {});
    if (failed(repeated))
      return failure();
    FailureOr<Operation *> flat = n.createOp(
        "onnx.Reshape",
        {(*repeated)->getResult(0), createI64Constant(n, {channels})}, {});
    if (failed(flat))
      return failure();
    operands.push_back((*flat)->getResult(0));
  }
  return createSingle(n, "onnx.GroupNormalization", operands, *attrs);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static const llvm::StringMap<OpImportInfo> &getOpImporters() {
  using K = AttrKind;
  const std::vector<AttrSpec> window = {{"auto_pad", K::String},
                                        {"dilations", K::Ints},
                                        {"kernel_shape", K::Ints},
                                        {"pads", K::Ints},
                                        {"strides", K::Ints}};
  auto withWindow = [&](std::vector<AttrSpec> extra) {
    extra.insert(extra.end(), window.begin(), window.end());
    return extra;
  };
  // Unary elementwise ops share their history (1, 6, 13; Relu adds 14).
  auto unary = [](const char *name, std::vector<int> versions) {
    return OpImportInfo{name, std::move(versions), {}, 1, 1, 1, importGeneric};
  };
  auto binary = [](const char *name) {
    return OpImportInfo{name, {1, 6, 7, 13, 14}, {}, 2, 2, 1, importGeneric};
  };
  auto compare = [](const char *name, std::vector<int> versions) {
    return OpImportInfo{name, std::move(versions), {}, 2, 2, 1, importGeneric};
  };
  auto activation = [](const char *name, std::vector<int> versions,
                       std::vector<AttrSpec> attrs) {
    return OpImportInfo{name, std::move(versions), std::move(attrs), 1, 1, 1,
                        importGeneric};
  };
  // Softmax, LogSoftmax, Hardmax: one input, an axis, changed at 11 and
  // 13 (from flattening around axis to working along it).
  auto alongAxis = [](ImportFn import) {
    return OpImportInfo{
        "onnx.Softmax", {1, 11, 13}, {{"axis", AttrKind::Int}}, 1, 1, 1,
        import};
  };
  constexpr unsigned kVariadic = std::numeric_limits<int>::max();
  auto variadic = [](const char *name, std::vector<int> versions) {
    return OpImportInfo{
        name, std::move(versions), {}, 1, kVariadic, 1, importGeneric};
  };
  const std::vector<AttrSpec> reduce = {{"axes", K::Ints},
                                        {"keepdims", K::Int},
                                        {"noop_with_empty_axes", K::Int}};
  const std::vector<int> reduceMaxVersions = {1, 11, 12, 13, 18, 20};
  const std::vector<int> dataMovement = {1, 11, 13, 21, 23, 24, 25};

  static const llvm::StringMap<OpImportInfo> table = {
      {"And", compare("onnx.And", {1, 7})},
      {"Attention",
       {"onnx.MatMul",
        {23, 24, 25},
        {{"is_causal", K::Int},
         {"kv_num_heads", K::Int},
         {"left_window_size", K::Int},
         {"q_num_heads", K::Int},
         {"qk_matmul_output_mode", K::Int},
         {"right_window_size", K::Int},
         {"scale", K::Float},
         {"softcap", K::Float},
         {"softmax_precision", K::Int}},
        3,
        7,
        4,
        importAttention}},
      {"BitShift",
       {"onnx.BitShift",
        {11, 28},
        {{"direction", K::String}},
        2,
        2,
        1,
        importGeneric}},
      {"Ceil", unary("onnx.Ceil", {1, 6, 13})},
      {"Cast",
       {"onnx.Cast",
        {1, 6, 9, 13, 19, 21, 23, 24, 25, 28},
        {{"to", K::Int}, {"saturate", K::Int}, {"round_mode", K::String}},
        1,
        1,
        1,
        importCast}},
      {"CastLike",
       {"onnx.Cast",
        {15, 19, 21, 23, 24, 25},
        {{"saturate", K::Int}, {"round_mode", K::String}},
        2,
        2,
        1,
        importCastLike}},
      {"Concat",
       {"onnx.Concat",
        {1, 4, 11, 13},
        {{"axis", K::Int}},
        1,
        kVariadic,
        1,
        importGeneric}},
      {"ConstantOfShape",
       {"onnx.ConstantOfShape",
        {9, 20, 21, 23, 24, 25},
        {{"value", K::Tensor}},
        1,
        1,
        1,
        importGeneric}},
      {"Dropout",
       {"onnx.Identity",
        {1, 6, 7, 10, 12, 13, 22},
        {{"ratio", K::Float}, {"seed", K::Int}, {"is_test", K::Int}},
        1,
        3,
        2,
        importDropout}},
      {"Einsum",
       {"onnx.Mul",
        {12, 28},
        {{"equation", K::String}},
        1,
        kVariadic,
        1,
        importEinsum}},
      {"Equal", compare("onnx.Equal", {1, 7, 11, 13, 19})},
      {"Erf", unary("onnx.Erf", {9, 13})},
      {"Expand", {"onnx.Expand", {8, 13}, {}, 2, 2, 1, importGeneric}},
      {"Floor", unary("onnx.Floor", {1, 6, 13})},
      {"Gather",
       {"onnx.Gather",
        {1, 11, 13},
        {{"axis", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"GatherElements",
       {"onnx.GatherElements",
        {11, 13},
        {{"axis", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"GatherND",
       {"onnx.GatherND",
        {11, 12, 13},
        {{"batch_dims", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"Gelu",
       {"onnx.Gelu",
        {20},
        {{"approximate", K::String}},
        1,
        1,
        1,
        importGeneric}},
      {"Greater", compare("onnx.Greater", {1, 7, 9, 13})},
      {"GreaterOrEqual", compare("onnx.GreaterOrEqual", {12, 16})},
      {"HardSigmoid",
       {"onnx.HardSigmoid",
        {1, 6, 22},
        {{"alpha", K::Float}, {"beta", K::Float}},
        1,
        1,
        1,
        importGeneric}},
      {"HardSwish", unary("onnx.HardSwish", {14, 22})},
      {"LayerNormalization",
       {"onnx.LayerNormalization",
        {17},
        {{"axis", K::Int}, {"epsilon", K::Float}, {"stash_type", K::Int}},
        2,
        3,
        3,
        importLayerNorm}},
      {"Hardmax", alongAxis(importHardmax)},
      {"Less", compare("onnx.Less", {1, 7, 9, 13})},
      {"LogSoftmax", alongAxis(importLogSoftmax)},
      {"LpNormalization",
       {"onnx.ReduceL2",
        {1, 22},
        {{"axis", K::Int}, {"p", K::Int}},
        1,
        1,
        1,
        importLpNormalization}},
      {"LpPool",
       {"onnx.AveragePool",
        {1, 2, 11, 18, 22},
        withWindow({{"ceil_mode", K::Int}, {"p", K::Int}}),
        1,
        1,
        1,
        importLpPool}},
      {"NegativeLogLikelihoodLoss",
       {"onnx.GatherElements",
        {12, 13, 22},
        {{"ignore_index", K::Int}, {"reduction", K::String}},
        2,
        3,
        1,
        importNLLLoss}},
      {"LessOrEqual", compare("onnx.LessOrEqual", {12, 16})},
      {"Log", unary("onnx.Log", {1, 6, 13})},
      {"Max", variadic("onnx.Max", {1, 6, 8, 12, 13})},
      {"Mean", variadic("onnx.Mean", {1, 6, 8, 13})},
      {"Min", variadic("onnx.Min", {1, 6, 8, 12, 13})},
      {"Not", unary("onnx.Not", {1})},
      {"OneHot",
       {"onnx.Where", {9, 11, 28}, {{"axis", K::Int}}, 3, 3, 1, importOneHot}},
      {"Or", compare("onnx.Or", {1, 7})},
      {"Pow", {"onnx.Pow", {1, 7, 12, 13, 15}, {}, 2, 2, 1, importGeneric}},
      {"QuantizeLinear",
       {"onnx.Cast",
        {10, 13, 19, 21, 23, 24, 25},
        {{"axis", K::Int},
         {"block_size", K::Int},
         {"output_dtype", K::Int},
         {"precision", K::Int},
         {"saturate", K::Int}},
        2,
        3,
        1,
        importQuantizeLinear}},
      {"Range",
       {"onnx.Range",
        {11, 27},
        {{"stash_type", K::Int}},
        3,
        3,
        1,
        importRange}},
      {"Reciprocal", unary("onnx.Reciprocal", {1, 6, 13})},
      {"ReduceMax",
       {"onnx.ReduceMax", reduceMaxVersions, reduce, 1, 2, 1, importReduce}},
      {"ReduceMean",
       {"onnx.ReduceMean", {1, 11, 13, 18}, reduce, 1, 2, 1, importReduce}},
      {"ReduceMin",
       {"onnx.ReduceMin", reduceMaxVersions, reduce, 1, 2, 1, importReduce}},
      {"ReduceSum",
       {"onnx.ReduceSum", {1, 11, 13}, reduce, 1, 2, 1, importReduceSum}},
      {"ReduceL1",
       {"onnx.ReduceL1", {1, 11, 13, 18}, reduce, 1, 2, 1, importReduce}},
      {"ReduceL2",
       {"onnx.ReduceL2", {1, 11, 13, 18}, reduce, 1, 2, 1, importReduce}},
      {"ReduceLogSum",
       {"onnx.ReduceLogSum", {1, 11, 13, 18}, reduce, 1, 2, 1, importReduce}},
      {"ReduceLogSumExp",
       {"onnx.ReduceLogSumExp",
        {1, 11, 13, 18},
        reduce,
        1,
        2,
        1,
        importReduce}},
      {"ReduceProd",
       {"onnx.ReduceProd", {1, 11, 13, 18}, reduce, 1, 2, 1, importReduce}},
      {"ReduceSumSquare",
       {"onnx.ReduceSumSquare",
        {1, 11, 13, 18},
        reduce,
        1,
        2,
        1,
        importReduce}},
      {"Resize",
       {"onnx.Gather",
        {10, 11, 13, 18, 19},
        {{"antialias", K::Int},
         {"axes", K::Ints},
         {"coordinate_transformation_mode", K::String},
         {"cubic_coeff_a", K::Float},
         {"exclude_outside", K::Int},
         {"extrapolation_value", K::Float},
         {"keep_aspect_ratio_policy", K::String},
         {"mode", K::String},
         {"nearest_mode", K::String}},
        1,
        4,
        1,
        importResize}},
      {"Scatter",
       {"onnx.Gather", {9, 11}, {{"axis", K::Int}}, 3, 3, 1, importScatter}},
      {"ScatterElements",
       {"onnx.Gather",
        {11, 13, 16, 18},
        {{"axis", K::Int}, {"reduction", K::String}},
        3,
        3,
        1,
        importScatter}},
      {"ScatterND",
       {"onnx.Gather",
        {11, 13, 16, 18},
        {{"reduction", K::String}},
        3,
        3,
        1,
        importScatter}},
      {"Shape",
       {"onnx.Shape",
        {1, 13, 15, 19, 21, 23, 24, 25},
        {{"start", K::Int}, {"end", K::Int}},
        1,
        1,
        1,
        importGeneric}},
      {"Size",
       {"onnx.Size", {1, 13, 19, 21, 23, 24, 25}, {}, 1, 1, 1, importGeneric}},
      {"Slice",
       {"onnx.Slice",
        {1, 10, 11, 13},
        {{"starts", K::Ints}, {"ends", K::Ints}, {"axes", K::Ints}},
        1,
        5,
        1,
        importSlice}},
      {"Softmax", alongAxis(importSoftmax)},
      {"SoftmaxCrossEntropyLoss",
       {"onnx.GatherElements",
        {12, 13},
        {{"ignore_index", K::Int}, {"reduction", K::String}},
        2,
        3,
        2,
        importSoftmaxCrossEntropyLoss}},
      {"Split",
       {"onnx.Slice",
        {1, 2, 11, 13, 18},
        {{"axis", K::Int}, {"split", K::Ints}, {"num_outputs", K::Int}},
        1,
        2,
        kVariadic,
        importSplit}},
      {"Squeeze",
       {"onnx.Squeeze",
        dataMovement,
        {{"axes", K::Ints}},
        1,
        2,
        1,
        importSqueezeLike}},
      {"Sum", variadic("onnx.Sum", {1, 6, 8, 13})},
      {"Swish",
       {"onnx.Sigmoid", {24}, {{"alpha", K::Float}}, 1, 1, 1, importSwish}},
      {"TopK",
       {"onnx.ArgMax",
        {1, 10, 11, 24},
        {{"axis", K::Int},
         {"k", K::Int},
         {"largest", K::Int},
         {"sorted", K::Int}},
        1,
        2,
        2,
        importTopK}},
      {"Transpose",
       {"onnx.Transpose",
        {1, 13, 21, 23, 24, 25},
        {{"perm", K::Ints}},
        1,
        1,
        1,
        importGeneric}},
      {"Unsqueeze",
       {"onnx.Unsqueeze",
        dataMovement,
        {{"axes", K::Ints}},
        1,
        2,
        1,
        importSqueezeLike}},
      {"Upsample",
       {"onnx.Gather",
        {7, 9},
        {{"mode", K::String}, {"scales", K::Floats}},
        1,
        2,
        1,
        importResize}},
      {"Where", {"onnx.Where", {9, 16}, {}, 3, 3, 1, importGeneric}},
      {"Xor", compare("onnx.Xor", {1, 7})},
      {"Abs", unary("onnx.Abs", {1, 6, 13})},
      {"Add", binary("onnx.Add")},
      {"AveragePool",
       {"onnx.AveragePool",
        {1, 7, 10, 11, 19, 22},
        withWindow({{"ceil_mode", K::Int}, {"count_include_pad", K::Int}}),
        1,
        1,
        1,
        importPool}},
      {"BatchNormalization",
       {"onnx.BatchNormalization",
        {1, 6, 7, 9, 14, 15},
        {{"epsilon", K::Float},
         {"momentum", K::Float},
         {"spatial", K::Int},
         {"is_test", K::Int},
         {"training_mode", K::Int}},
        5,
        5,
        5,
        importBatchNorm}},
      {"Clip",
       {"onnx.Clip",
        {1, 6, 11, 12, 13},
        {{"min", K::Float}, {"max", K::Float}},
        1,
        3,
        1,
        importClip}},
      {"Constant",
       {"onnx.Constant",
        {1, 9, 11, 12, 13, 19, 21, 23, 24, 25},
        {{"value", K::Tensor},
         {"value_float", K::Float},
         {"value_floats", K::Floats},
         {"value_int", K::Int},
         {"value_ints", K::Ints}},
        0,
        0,
        1,
        importConstant}},
      {"Conv",
       {"onnx.Conv",
        {1, 11, 22},
        withWindow({{"group", K::Int}}),
        2,
        3,
        1,
        importConv}},
      {"ConvTranspose",
       {"onnx.Conv",
        {1, 11, 22},
        withWindow({{"group", K::Int},
                    {"output_padding", K::Ints},
                    {"output_shape", K::Ints}}),
        2,
        3,
        1,
        importConvTranspose}},
      {"Div", binary("onnx.Div")},
      {"Exp", unary("onnx.Exp", {1, 6, 13})},
      {"Flatten",
       {"onnx.Flatten",
        {1, 9, 11, 13, 21, 23, 24, 25},
        {{"axis", K::Int}},
        1,
        1,
        1,
        importGeneric}},
      {"Gemm",
       {"onnx.Gemm",
        {1, 6, 7, 9, 11, 13},
        {{"alpha", K::Float},
         {"beta", K::Float},
         {"transA", K::Int},
         {"transB", K::Int}},
        2,
        3,
        1,
        importGeneric}},
      {"GlobalAveragePool",
       {"onnx.GlobalAveragePool", {1, 22}, {}, 1, 1, 1, importGeneric}},
      {"Identity", unary("onnx.Identity", {1, 13, 14, 16, 19, 21, 23, 24, 25})},
      {"LeakyRelu",
       {"onnx.LeakyRelu",
        {1, 6, 16},
        {{"alpha", K::Float}},
        1,
        1,
        1,
        importGeneric}},
      {"MatMul", {"onnx.MatMul", {1, 9, 13}, {}, 2, 2, 1, importGeneric}},
      {"MaxPool",
       {"onnx.MaxPool",
        {1, 8, 10, 11, 12, 22},
        withWindow({{"ceil_mode", K::Int}, {"storage_order", K::Int}}),
        1,
        1,
        2,
        importPool}},
      {"Mul", binary("onnx.Mul")},
      {"Neg", unary("onnx.Neg", {1, 6, 13})},
      {"Relu", unary("onnx.Relu", {1, 6, 13, 14})},
      {"Reshape",
       {"onnx.Reshape",
        {1, 5, 13, 14, 19, 21, 23, 24, 25},
        {{"allowzero", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"Sigmoid", unary("onnx.Sigmoid", {1, 6, 13})},
      {"Sqrt", unary("onnx.Sqrt", {1, 6, 13})},
      {"Sub", binary("onnx.Sub")},
      {"Tanh", unary("onnx.Tanh", {1, 6, 13})},
      // Elementwise math and activations.
      {"Acos", unary("onnx.Acos", {7, 22})},
      {"Acosh", unary("onnx.Acosh", {9, 22})},
      {"Asin", unary("onnx.Asin", {7, 22})},
      {"Asinh", unary("onnx.Asinh", {9, 22})},
      {"Atan", unary("onnx.Atan", {7, 22})},
      {"Atanh", unary("onnx.Atanh", {9, 22})},
      {"Celu", activation("onnx.Celu", {12}, {{"alpha", K::Float}})},
      {"Cos", unary("onnx.Cos", {7, 22})},
      {"Cosh", unary("onnx.Cosh", {9, 22})},
      {"Elu", activation("onnx.Elu", {6, 22}, {{"alpha", K::Float}})},
      {"IsInf",
       activation("onnx.IsInf", {10, 20},
                  {{"detect_negative", K::Int}, {"detect_positive", K::Int}})},
      {"IsNaN", unary("onnx.IsNaN", {9, 13, 20})},
      {"Mish", unary("onnx.Mish", {18, 22})},
      {"Round", unary("onnx.Round", {11, 22})},
      {"Selu", activation("onnx.Selu", {6, 22},
                          {{"alpha", K::Float}, {"gamma", K::Float}})},
      {"Shrink", activation("onnx.Shrink", {9},
                            {{"bias", K::Float}, {"lambd", K::Float}})},
      {"Sign", unary("onnx.Sign", {9, 13})},
      {"Sin", unary("onnx.Sin", {7, 22})},
      {"Sinh", unary("onnx.Sinh", {9, 22})},
      {"Softplus", unary("onnx.Softplus", {1, 22})},
      {"Softsign", unary("onnx.Softsign", {1, 22})},
      {"Tan", unary("onnx.Tan", {7, 22})},
      {"ThresholdedRelu",
       activation("onnx.ThresholdedRelu", {10, 22}, {{"alpha", K::Float}})},
      {"Mod",
       {"onnx.Mod", {10, 13, 28}, {{"fmod", K::Int}}, 2, 2, 1, importGeneric}},
      {"PRelu", {"onnx.PRelu", {1, 6, 7, 9, 16}, {}, 2, 2, 1, importGeneric}},
      // Normalizations.
      {"LRN",
       {"onnx.LRN",
        {1, 13},
        {{"alpha", K::Float},
         {"beta", K::Float},
         {"bias", K::Float},
         {"size", K::Int}},
        1,
        1,
        1,
        importGeneric}},
      {"InstanceNormalization",
       {"onnx.InstanceNormalization",
        {1, 6, 22},
        {{"epsilon", K::Float}},
        3,
        3,
        1,
        importGeneric}},
      {"GroupNormalization",
       {"onnx.GroupNormalization",
        {18, 21},
        {{"epsilon", K::Float}, {"num_groups", K::Int}, {"stash_type", K::Int}},
        3,
        3,
        1,
        importGroupNorm}},
      {"RMSNormalization",
       {"onnx.RMSNormalization",
        {23},
        {{"axis", K::Int}, {"epsilon", K::Float}, {"stash_type", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      // onnxruntime's, in the default domain: RMSNormalization (its second
      // output, inv_std_var, is refused where it is read).
      {"SimplifiedLayerNormalization",
       {"onnx.RMSNormalization",
        {1},
        {{"axis", K::Int}, {"epsilon", K::Float}, {"stash_type", K::Int}},
        2,
        2,
        2,
        importGeneric}},
      // Data movement, scans and index reductions.
      {"Pad",
       {"onnx.Pad",
        {1, 2, 11, 13, 18, 19, 21, 23, 24, 25},
        {{"mode", K::String}, {"pads", K::Ints}, {"value", K::Float}},
        1,
        4,
        1,
        importPad}},
      {"Tile", {"onnx.Tile", {1, 6, 13}, {}, 2, 2, 1, importGeneric}},
      {"Trilu",
       {"onnx.Trilu", {14}, {{"upper", K::Int}}, 1, 2, 1, importGeneric}},
      {"DequantizeLinear",
       {"onnx.Cast",
        {10, 13, 19, 21, 23, 24, 25},
        {{"axis", K::Int}, {"block_size", K::Int}, {"output_dtype", K::Int}},
        2,
        3,
        1,
        importDequantizeLinear}},
      {"DynamicQuantizeLinear",
       {"onnx.Cast", {11}, {}, 1, 1, 3, importDynamicQuantizeLinear}},
      {"DepthToSpace",
       {"onnx.DepthToSpace",
        {1, 11, 13, 28},
        {{"blocksize", K::Int}, {"mode", K::String}},
        1,
        1,
        1,
        importGeneric}},
      {"SpaceToDepth",
       {"onnx.SpaceToDepth",
        {1, 13, 28},
        {{"blocksize", K::Int}, {"mode", K::String}},
        1,
        1,
        1,
        importGeneric}},
      {"CumProd",
       {"onnx.CumProd",
        {26},
        {{"exclusive", K::Int}, {"reverse", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"CumSum",
       {"onnx.CumSum",
        {11, 14},
        {{"exclusive", K::Int}, {"reverse", K::Int}},
        2,
        2,
        1,
        importGeneric}},
      {"ArgMax",
       {"onnx.ArgMax",
        {1, 11, 12, 13},
        {{"axis", K::Int}, {"keepdims", K::Int}, {"select_last_index", K::Int}},
        1,
        1,
        1,
        importGeneric}},
      {"ArgMin",
       {"onnx.ArgMin",
        {1, 11, 12, 13},
        {{"axis", K::Int}, {"keepdims", K::Int}, {"select_last_index", K::Int}},
        1,
        1,
        1,
        importGeneric}},
  };
  return table;
}

const OpImportInfo *fuse::detail::lookupOpImporter(StringRef opType) {
  const auto &table = getOpImporters();
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}
