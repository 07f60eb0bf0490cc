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

#include <limits>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

/// The node's inputs, padded with nulls (omitted) to the operator's full
/// input list, as ops with several optional operands need.
static SmallVector<Value> allInputs(NodeImporter &n) {
  SmallVector<Value> operands(n.inputs);
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
    value = convertTensor(attr.t(), n.node.output(0), ctx, error);
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

  static const llvm::StringMap<OpImportInfo> table = {
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
  };
  return table;
}

const OpImportInfo *fuse::detail::lookupOpImporter(StringRef opType) {
  const auto &table = getOpImporters();
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}
