//===- ONNXImporter.cpp - ONNX graph to a func.func of onnx ops ----------===//
//
// One pass over the graph in its (required) topological order: graph inputs
// become function arguments, initializers `onnx.Constant`s, each node one or
// more ops created by its op importer (OpImporters.cpp), graph outputs the
// returned values. Every op infers its result types as it is created, so
// shapes flow through the graph and a node whose inputs do not fit is
// reported at that node. Nothing from the model is trusted: each problem is
// an error at the node or value concerned, and the import stops.
//
//===----------------------------------------------------------------------===//

#include "fuse/Import/ONNXImporter.h"

#include "ImporterImpl.h"
#include "ModelReader.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

InFlightDiagnostic NodeImporter::emitError() {
  InFlightDiagnostic diag = mlir::emitError(loc);
  diag << description << ": ";
  return diag;
}

const ::onnx::AttributeProto *NodeImporter::findAttr(StringRef name) const {
  for (const auto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

FailureOr<SmallVector<NamedAttribute>>
NodeImporter::convertAttributes(ArrayRef<StringRef> skip) {
  SmallVector<NamedAttribute> result;
  MLIRContext *ctx = getContext();
  for (const auto &attr : node.attribute()) {
    if (llvm::is_contained(skip, attr.name()))
      continue;
    const AttrSpec *spec = nullptr;
    for (const AttrSpec &s : info.attrs)
      if (attr.name() == s.name)
        spec = &s;
    assert(spec && "attributes are checked against the spec before import");
    Attribute value;
    switch (spec->kind) {
    case AttrKind::Int:
      value = builder.getI64IntegerAttr(attr.i());
      break;
    case AttrKind::Float:
      value = builder.getF32FloatAttr(attr.f());
      break;
    case AttrKind::Ints:
      value = DenseI64ArrayAttr::get(
          ctx, SmallVector<int64_t>(attr.ints().begin(), attr.ints().end()));
      break;
    case AttrKind::Floats:
      value = DenseF32ArrayAttr::get(
          ctx, SmallVector<float>(attr.floats().begin(), attr.floats().end()));
      break;
    case AttrKind::String:
      value = builder.getStringAttr(attr.s());
      break;
    case AttrKind::Tensor: {
      std::string error;
      value = convertTensor(attr.t(), node.name() + "_" + attr.name(), ctx,
                            error, externalData);
      if (!value)
        return emitError() << "tensor attribute '" << attr.name() << "' "
                           << error;
      break;
    }
    }
    result.push_back(builder.getNamedAttr(attr.name(), value));
  }
  return result;
}

FailureOr<Operation *> NodeImporter::createOp(StringRef opName,
                                              ArrayRef<Value> operands,
                                              ArrayRef<NamedAttribute> attrs) {
  MLIRContext *ctx = getContext();
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, ctx);
  assert(name && "op importer names an op that is not registered");
  OperationState state(loc, *name);

  // Omitted optional operands: segment sizes where the op has them,
  // otherwise only trailing operands may be omitted.
  bool segmented = name->hasTrait<mlir::OpTrait::AttrSizedOperandSegments>();
  SmallVector<int32_t> segments;
  size_t used = operands.size();
  while (!segmented && used > 0 && !operands[used - 1])
    --used;
  for (size_t i = 0; i < used; ++i) {
    segments.push_back(operands[i] ? 1 : 0);
    if (operands[i]) {
      state.addOperands(operands[i]);
    } else if (!segmented) {
      return emitError() << "omitting input #" << i
                         << " while later inputs are given is not supported";
    }
  }
  state.addAttributes(attrs);
  if (segmented) {
    segments.resize(operands.size(), 0);
    state.addAttribute("operandSegmentSizes",
                       DenseI32ArrayAttr::get(ctx, segments));
  }
  // Result types are set below, once the op can infer them.
  state.addTypes(UnrankedTensorType::get(builder.getF32Type()));
  Operation *op = builder.create(state);

  auto infer = dyn_cast<InferTypeOpInterface>(op);
  assert(infer && "every onnx op infers its result types");
  SmallVector<Type> types;
  if (failed(infer.inferReturnTypes(
          ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
          op->getPropertiesStorage(), op->getRegions(), types))) {
    op->erase();
    return failure();
  }
  assert(types.size() == op->getNumResults());
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  return op;
}

Value NodeImporter::createScalarConstant(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute scalar;
  if (isa<FloatType>(elementType))
    scalar = builder.getFloatAttr(elementType, value);
  else
    scalar = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return ONNXConstantOp::create(builder, loc, type,
                                DenseElementsAttr::get(type, scalar));
}

//===----------------------------------------------------------------------===//
// NodeEmitter
//===----------------------------------------------------------------------===//

Value NodeEmitter::op(StringRef opName, ArrayRef<Value> operands,
                      ArrayRef<NamedAttribute> attrs) {
  if (hasFailed)
    return Value();
  FailureOr<Operation *> created = n.createOp(opName, operands, attrs);
  if (mlir::failed(created)) {
    hasFailed = true;
    return Value();
  }
  return (*created)->getResult(0);
}

Value NodeEmitter::constant(ElementsAttr value) {
  return ONNXConstantOp::create(n.builder, n.loc, value.getType(), value);
}

NamedAttribute NodeEmitter::intAttr(StringRef name, int64_t value) {
  return n.builder.getNamedAttr(name, n.builder.getI64IntegerAttr(value));
}

NamedAttribute NodeEmitter::floatAttr(StringRef name, double value) {
  return n.builder.getNamedAttr(name, n.builder.getF32FloatAttr(value));
}

NamedAttribute NodeEmitter::intsAttr(StringRef name, ArrayRef<int64_t> values) {
  return n.builder.getNamedAttr(name, n.builder.getDenseI64ArrayAttr(values));
}

Value NodeEmitter::cast(Value x, Type elementType) {
  if (!x || llvm::cast<TensorType>(x.getType()).getElementType() == elementType)
    return x;
  std::optional<int64_t> to = getONNXDataType(elementType);
  assert(to && "casting to a type fuse has no ONNX number for");
  return op("onnx.Cast", {x}, {intAttr("to", *to)});
}

//===----------------------------------------------------------------------===//
// ModelImporter
//===----------------------------------------------------------------------===//

/// External data is read from the folder of the model's file.
static ExternalData makeExternalData(StringRef sourceName,
                                     const ImportOptions &options) {
  if (!options.readExternalData)
    return ExternalData(std::nullopt, "which this tool does not read");
  if (sourceName == "-" || sourceName == "<stdin>")
    return ExternalData(std::nullopt,
                        "but the model was read from standard input, so "
                        "there is no folder to find it in (give the model "
                        "as a file)");
  // A model in memory (the Python package's fuse.compile of bytes).
  if (sourceName == "<bytes>")
    return ExternalData(std::nullopt,
                        "but the model was given as bytes, so there is no "
                        "folder to find it in (give the model as a file)");
  StringRef folder = llvm::sys::path::parent_path(sourceName);
  return ExternalData(folder.empty() ? std::string(".") : folder.str(), "",
                      options.filesRead);
}

namespace {

/// Imports one model into one module.
class ModelImporter {
public:
  ModelImporter(MLIRContext *ctx, StringRef sourceName,
                const ImportOptions &options)
      : ctx(ctx), builder(ctx), options(options),
        fileLoc(FileLineColLoc::get(ctx, sourceName, 0, 0)),
        externalData(makeExternalData(sourceName, options)) {}

  /// `text` is the model's ONNX text syntax, if that is what it was read
  /// from (for the line numbers of nodes). The initializers' raw data is
  /// moved out of `model` into the module.
  OwningOpRef<ModuleOp> run(::onnx::ModelProto &model, StringRef text);

private:
  LogicalResult readOpset(const ::onnx::ModelProto &model);
  FailureOr<Type> importValueType(const ::onnx::ValueInfoProto &info,
                                  StringRef what);
  LogicalResult bindInputShapes(const ::onnx::GraphProto &graph);
  LogicalResult readInputValues(const ::onnx::GraphProto &graph,
                                const llvm::StringSet<> &initializers,
                                llvm::StringMap<ElementsAttr> &values);
  LogicalResult define(StringRef name, Value value, Location loc);
  Location nodeLocation(const ::onnx::NodeProto &node, unsigned index,
                        std::pair<unsigned, unsigned> pos);
  std::string describeUnsupported(const ::onnx::NodeProto &node);
  /// The importer of `node`'s operator in its domain (the default one, or
  /// com.microsoft when the model imports it), or null.
  const OpImportInfo *lookupImporter(const ::onnx::NodeProto &node) const;
  LogicalResult
  checkOperators(const ::onnx::GraphProto &graph,
                 ArrayRef<std::pair<unsigned, unsigned>> lines);
  LogicalResult importNode(const ::onnx::NodeProto &node, unsigned index,
                           std::pair<unsigned, unsigned> pos);
  LogicalResult checkOutput(const ::onnx::ValueInfoProto &info, Value value);

  MLIRContext *ctx;
  OpBuilder builder;
  const ImportOptions &options;
  FileLineColLoc fileLoc;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  llvm::StringSet<> usedNames;
  /// Shapes for graph inputs: `--input-shape`, then dim_params bound by it.
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  llvm::StringMap<int64_t> boundDimParams;
  /// Opsets of the other domains the model imports, for error messages.
  llvm::StringMap<int64_t> domainOpsets;
  ExternalData externalData;
};

} // namespace

static std::string funcNameForGraph(StringRef graphName) {
  bool valid = !graphName.empty() && !llvm::isDigit(graphName[0]);
  for (char c : graphName)
    valid &= llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
  return valid ? graphName.str() : "main_graph";
}

LogicalResult ModelImporter::readOpset(const ::onnx::ModelProto &model) {
  bool found = false;
  for (const auto &entry : model.opset_import()) {
    if (entry.domain().empty() || entry.domain() == "ai.onnx") {
      opset = entry.version();
      found = true;
    } else {
      domainOpsets[entry.domain()] = entry.version();
    }
  }
  if (!found)
    return mlir::emitError(fileLoc)
           << "the model imports no opset of the default ONNX domain "
              "(ai.onnx)";
  if (opset < kMinSupportedOpset)
    return mlir::emitError(fileLoc) << "the model's ai.onnx opset " << opset
                                    << " is older than the oldest supported ("
                                    << kMinSupportedOpset << ")";
  if (opset > kMaxSupportedOpset)
    return mlir::emitError(fileLoc) << "the model's ai.onnx opset " << opset
                                    << " is newer than the newest supported ("
                                    << kMaxSupportedOpset << ")";
  return success();
}

/// A graph input/output type: a tensor of a supported element type, with
/// `?` for symbolic or unknown dims.
FailureOr<Type>
ModelImporter::importValueType(const ::onnx::ValueInfoProto &info,
                               StringRef what) {
  Location loc = NameLoc::get(builder.getStringAttr(info.name()), fileLoc);
  // Users bind inputs and read outputs by these names, and an artifact
  // stores them as UTF-8.
  if (size_t at; !llvm::json::isUTF8(info.name(), &at))
    return mlir::emitError(loc)
           << what << " '" << llvm::json::fixUTF8(info.name())
           << "' has a name that is not UTF-8 (byte " << at << ")";
  if (!info.has_type() || !info.type().has_tensor_type())
    return mlir::emitError(loc)
           << what << " '" << info.name() << "' has no tensor type"
           << (info.has_type() ? " (sequence, map and optional types are "
                                 "not supported)"
                               : "");
  const auto &tensorType = info.type().tensor_type();
  Type elementType = convertElementType(tensorType.elem_type(), ctx);
  if (!elementType)
    return mlir::emitError(loc)
           << what << " '" << info.name() << "' has unsupported element type "
           << dataTypeName(tensorType.elem_type());
  if (!tensorType.has_shape())
    return Type(UnrankedTensorType::get(elementType));
  SmallVector<int64_t> shape;
  for (const auto &dim : tensorType.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return mlir::emitError(loc)
               << what << " '" << info.name() << "' has negative dimension "
               << dim.dim_value();
      shape.push_back(dim.dim_value());
    } else if (dim.has_dim_param() && boundDimParams.count(dim.dim_param())) {
      shape.push_back(boundDimParams.lookup(dim.dim_param()));
    } else {
      shape.push_back(ShapedType::kDynamic);
    }
  }
  return Type(RankedTensorType::get(shape, elementType));
}

/// Applies `--input-shape`: checks each given shape against what the model
/// declares and binds the symbolic dims (dim_param) it fixes, so other
/// inputs sharing them get the same sizes.
/// The values `--input-value` gives graph inputs, read and checked against
/// the inputs' declared types.
LogicalResult ModelImporter::readInputValues(
    const ::onnx::GraphProto &graph, const llvm::StringSet<> &initializers,
    llvm::StringMap<ElementsAttr> &values) {
  for (const auto &[name, path] : options.inputValues) {
    const ::onnx::ValueInfoProto *info = nullptr;
    for (const auto &input : graph.input())
      if (input.name() == name && !initializers.contains(name))
        info = &input;
    if (!info)
      return mlir::emitError(fileLoc) << "--input-value names '" << name
                                      << "', which is not a graph input";
    if (std::string why = checkModelFile(path); !why.empty())
      return mlir::emitError(fileLoc) << "--input-value " << name << ": "
                                      << why;
    if (options.filesRead)
      options.filesRead->push_back(path);
    auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes)
      return mlir::emitError(fileLoc)
             << "--input-value " << name << ": cannot read '" << path
             << "': " << bytes.getError().message();
    ::onnx::TensorProto tensor;
    if (!tensor.ParseFromArray((*bytes)->getBufferStart(),
                               static_cast<int>((*bytes)->getBufferSize())))
      return mlir::emitError(fileLoc)
             << "--input-value " << name << ": '" << path
             << "' is not an ONNX TensorProto";
    std::string error;
    ElementsAttr value = convertTensor(tensor, name, ctx, error);
    if (!value)
      return mlir::emitError(fileLoc)
             << "--input-value " << name << ": the tensor in '" << path
             << "' " << error;
    FailureOr<Type> declared = importValueType(*info, "graph input");
    if (failed(declared))
      return failure();
    auto declaredType = cast<TensorType>(*declared);
    ShapedType type = value.getShapedType();
    bool shapeFits = !declaredType.hasRank() ||
                     (declaredType.getRank() == type.getRank() &&
                      llvm::all_of(llvm::zip(declaredType.getShape(),
                                             type.getShape()),
                                   [](auto dims) {
                                     auto [want, have] = dims;
                                     return ShapedType::isDynamic(want) ||
                                            want == have;
                                   }));
    if (declaredType.getElementType() != type.getElementType() || !shapeFits)
      return mlir::emitError(fileLoc)
             << "--input-value " << name << ": the value is a " << type
             << ", but the input is declared as " << declaredType;
    values[name] = value;
  }
  return success();
}

LogicalResult ModelImporter::bindInputShapes(const ::onnx::GraphProto &graph) {
  llvm::StringMap<const ::onnx::ValueInfoProto *> inputs;
  std::string names;
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    inputs[input.name()] = &input;
    names += (names.empty() ? "'" : ", '") + input.name() + "'";
  }
  for (const auto &[name, shape] : options.inputShapes) {
    auto it = inputs.find(name);
    if (it == inputs.end())
      return mlir::emitError(fileLoc)
             << "--input-shape names '" << name
             << "', which is not a graph input (inputs: "
             << (names.empty() ? "none" : names) << ")";
    inputShapes[name] = shape;
    const ::onnx::ValueInfoProto &info = *it->second;
    if (!info.type().tensor_type().has_shape())
      continue;
    const auto &dims = info.type().tensor_type().shape().dim();
    if (dims.size() != static_cast<int>(shape.size()))
      return mlir::emitError(fileLoc)
             << "--input-shape " << name << "=" << formatShape(shape)
             << " has rank " << shape.size() << " but the model declares '"
             << name << "' with rank " << dims.size();
    for (int i = 0; i < dims.size(); ++i) {
      const auto &dim = dims[i];
      if (ShapedType::isDynamic(shape[i]))
        continue;
      if (dim.has_dim_value() && dim.dim_value() != shape[i])
        return mlir::emitError(fileLoc)
               << "--input-shape " << name << "=" << formatShape(shape)
               << " conflicts with the model, which declares dimension " << i
               << " of '" << name << "' as " << dim.dim_value();
      if (dim.has_dim_param()) {
        auto [bound, inserted] =
            boundDimParams.try_emplace(dim.dim_param(), shape[i]);
        if (!inserted && bound->second != shape[i])
          return mlir::emitError(fileLoc)
                 << "--input-shape binds symbolic dimension '"
                 << dim.dim_param() << "' to both " << bound->second << " and "
                 << shape[i];
      }
    }
  }
  return success();
}

LogicalResult ModelImporter::define(StringRef name, Value value, Location loc) {
  if (name.empty())
    return success();
  if (!values.try_emplace(name, value).second)
    return mlir::emitError(loc)
           << "value '" << name
           << "' is defined more than once (ONNX graphs are in SSA form)";
  return success();
}

/// "node 'conv1'" or, for unnamed nodes, "node #3 (output 'y')".
static std::string nameNode(const ::onnx::NodeProto &node, unsigned index) {
  if (!node.name().empty())
    return "node '" + node.name() + "'";
  std::string s = "node #" + std::to_string(index);
  if (node.output_size() > 0)
    s += " (output '" + node.output(0) + "')";
  return s;
}

/// "node 'conv1' (Conv, opset 13)".
static std::string describeNode(const ::onnx::NodeProto &node, unsigned index,
                                int64_t version) {
  std::string s = "node ";
  s += node.name().empty() ? "#" + std::to_string(index)
                           : "'" + node.name() + "'";
  s += " (" + node.op_type() + ", opset " + std::to_string(version);
  if (node.name().empty() && node.output_size() > 0)
    s += ", output '" + node.output(0) + "'";
  return s + ")";
}

/// For a model in ONNX text syntax, the 1-based line and column of each
/// node's statement (`outs = [domain.]OpType ...`), found in order; {0, 0}
/// where none is found. Binary models have no lines: all {0, 0}.
static std::vector<std::pair<unsigned, unsigned>>
findNodeLines(StringRef text, const ::onnx::GraphProto &graph) {
  std::vector<std::pair<unsigned, unsigned>> lines(graph.node_size(), {0, 0});
  SmallVector<StringRef> textLines;
  text.split(textLines, '\n');
  size_t next = 0;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &node = graph.node(i);
    for (size_t l = next; l < textLines.size(); ++l) {
      StringRef line = textLines[l].trim();
      if (line.starts_with("#") || !line.contains('='))
        continue;
      auto [outs, rest] = line.split('=');
      rest = rest.ltrim();
      if (!node.domain().empty() && rest.consume_front(node.domain()))
        rest.consume_front(".");
      if (!rest.consume_front(node.op_type()) ||
          (!rest.empty() && (llvm::isAlnum(rest[0]) || rest[0] == '_')))
        continue;
      if (node.output_size() > 0 && !outs.contains(node.output(0)))
        continue;
      size_t indent = textLines[l].size() - textLines[l].ltrim().size();
      lines[i] = {l + 1, indent + 1};
      next = l + 1;
      break;
    }
  }
  return lines;
}

Location ModelImporter::nodeLocation(const ::onnx::NodeProto &node,
                                     unsigned index,
                                     std::pair<unsigned, unsigned> pos) {
  // The node's name (else its first output) as the location name, inside
  // the file location: diagnostics show the file, IR dumps the name.
  std::string label = !node.name().empty() ? node.name()
                      : node.output_size() > 0 && !node.output(0).empty()
                          ? node.output(0)
                          : "#" + std::to_string(index);
  return NameLoc::get(
      builder.getStringAttr(label),
      FileLineColLoc::get(fileLoc.getFilename(), pos.first, pos.second));
}

static bool isDefaultDomain(const ::onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

/// onnxruntime's contrib operators' domain.
static constexpr llvm::StringLiteral kContribDomain = "com.microsoft";

const OpImportInfo *
ModelImporter::lookupImporter(const ::onnx::NodeProto &node) const {
  if (isDefaultDomain(node))
    return lookupOpImporter(node.op_type());
  if (node.domain() == kContribDomain && domainOpsets.count(kContribDomain))
    return lookupContribOpImporter(node.op_type());
  return nullptr;
}

/// "unsupported operator 'LRN' (domain 'ai.onnx', opset 17)".
std::string
ModelImporter::describeUnsupported(const ::onnx::NodeProto &node) {
  bool defaultDomain = isDefaultDomain(node);
  std::string s = "unsupported operator '" + node.op_type() + "' (domain '" +
                  (defaultDomain ? "ai.onnx" : node.domain()) + "', ";
  if (defaultDomain)
    s += "opset " + std::to_string(opset) + ")";
  else if (domainOpsets.count(node.domain()))
    s += "opset " + std::to_string(domainOpsets.lookup(node.domain())) + ")";
  else
    s += "a domain the model does not import)";
  return s;
}

/// Every operator the graph uses that fuse cannot import, in one error, so
/// that a user learns the whole list from one compile: each operator once,
/// with how many nodes use it and the first of them.
LogicalResult ModelImporter::checkOperators(
    const ::onnx::GraphProto &graph,
    ArrayRef<std::pair<unsigned, unsigned>> lines) {
  struct Missing {
    std::string description;
    unsigned firstNode;
    unsigned nodes = 0;
  };
  SmallVector<Missing> missing;
  llvm::StringMap<size_t> byOperator;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    if (lookupImporter(node))
      continue;
    std::string key = node.domain() + "\n" + node.op_type();
    auto [it, inserted] = byOperator.try_emplace(key, missing.size());
    if (inserted)
      missing.push_back({describeUnsupported(node), unsigned(index)});
    ++missing[it->second].nodes;
  }
  if (missing.empty())
    return success();
  auto first = [&](const Missing &m) {
    return nameNode(graph.node(m.firstNode), m.firstNode);
  };
  const Missing &head = missing.front();
  InFlightDiagnostic diag = mlir::emitError(
      nodeLocation(graph.node(head.firstNode), head.firstNode,
                   lines[head.firstNode]));
  if (missing.size() == 1) {
    diag << first(head) << ": " << head.description;
    if (head.nodes > 1)
      diag << "; " << head.nodes - 1 << " more node"
           << (head.nodes > 2 ? "s use" : " uses") << " it";
    return diag;
  }
  unsigned nodes = 0;
  for (const Missing &m : missing)
    nodes += m.nodes;
  diag << missing.size() << " operators in " << nodes
       << " nodes are not supported:";
  for (const Missing &m : missing)
    diag << "\n  " << m.description << ": " << m.nodes << " node"
         << (m.nodes > 1 ? "s, the first " : ", ") << first(m);
  return diag;
}

LogicalResult ModelImporter::importNode(const ::onnx::NodeProto &node,
                                        unsigned index,
                                        std::pair<unsigned, unsigned> pos) {
  Location loc = nodeLocation(node, index, pos);
  const OpImportInfo *info = lookupImporter(node);
  if (!info) // checkOperators reported it.
    return mlir::emitError(loc) << nameNode(node, index) << ": "
                                << describeUnsupported(node);

  // The schema version in effect: the newest change not after the opset
  // of the node's domain.
  int64_t domainOpset =
      isDefaultDomain(node) ? opset : domainOpsets.lookup(node.domain());
  int version = 0;
  for (int v : info->versions)
    if (v <= domainOpset)
      version = v;
  std::string description = describeNode(node, index, version);
  if (version == 0)
    return mlir::emitError(loc)
           << description << ": operator '" << node.op_type()
           << "' does not exist in opset " << domainOpset
           << " (it was added in opset " << info->versions.front() << ")";

  NodeImporter importer(node, *info, version, opset, builder, loc, description);
  importer.usedNames = &usedNames;
  importer.externalData = &externalData;
  if (node.input_size() < static_cast<int>(info->minInputs) ||
      node.input_size() > static_cast<int>(info->maxInputs))
    return importer.emitError()
           << "has " << node.input_size() << " inputs, expected "
           << (info->minInputs == info->maxInputs
                   ? std::to_string(info->minInputs)
                   : std::to_string(info->minInputs) + " to " +
                         std::to_string(info->maxInputs));
  if (node.output_size() < 1 ||
      node.output_size() > static_cast<int>(info->maxOutputs))
    return importer.emitError()
           << "has " << node.output_size() << " outputs, expected 1 to "
           << info->maxOutputs;
  for (const auto &[i, name] : llvm::enumerate(node.input())) {
    if (name.empty()) {
      if (i < info->minInputs)
        return importer.emitError()
               << "required input #" << i << " has no name";
      importer.inputs.push_back(Value());
      continue;
    }
    Value value = values.lookup(name);
    if (!value)
      return importer.emitError()
             << "input '" << name
             << "' is not a graph input, an initializer or the output of an "
                "earlier node";
    importer.inputs.push_back(value);
  }
  for (const auto &attr : node.attribute()) {
    const AttrSpec *spec = nullptr;
    for (const AttrSpec &s : info->attrs)
      if (attr.name() == s.name)
        spec = &s;
    if (!spec)
      return importer.emitError()
             << "attribute '" << attr.name() << "' is not supported";
    if (!attr.ref_attr_name().empty())
      return importer.emitError()
             << "attribute '" << attr.name()
             << "' refers to a function attribute, which is not supported";
    static const ::onnx::AttributeProto::AttributeType expected[] = {
        ::onnx::AttributeProto::INT,    ::onnx::AttributeProto::FLOAT,
        ::onnx::AttributeProto::INTS,   ::onnx::AttributeProto::FLOATS,
        ::onnx::AttributeProto::STRING, ::onnx::AttributeProto::TENSOR};
    auto want = expected[static_cast<int>(spec->kind)];
    if (attr.type() != want)
      return importer.emitError()
             << "attribute '" << attr.name() << "' must be of type "
             << ::onnx::AttributeProto::AttributeType_Name(want) << ", not "
             << (::onnx::AttributeProto::AttributeType_IsValid(attr.type())
                     ? ::onnx::AttributeProto::AttributeType_Name(attr.type())
                     : std::to_string(attr.type()));
  }

  // Errors that ops report while they infer their types or verify get the
  // node's description as a note.
  ScopedDiagnosticHandler addNodeNote(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error &&
        diag.getLocation() == loc &&
        !StringRef(diag.str()).starts_with(description))
      diag.attachNote(loc) << "while importing " << description;
    return failure(); // Let the diagnostic go on to the next handler.
  });
  if (failed(info->import(importer)))
    return failure();

  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    Value result = i < static_cast<int>(importer.results.size())
                       ? importer.results[i]
                       : Value();
    if (!result) {
      if (!importer.outputUsed(i))
        continue; // named, but nothing reads it
      return importer.emitError() << "output #" << i << " ('" << node.output(i)
                                  << "') is not supported";
    }
    if (values.count(node.output(i)))
      return importer.emitError()
             << "output '" << node.output(i)
             << "' is already defined (ONNX graphs are in SSA form)";
    values[node.output(i)] = result;
  }
  return success();
}

/// A graph output's declared type must agree with the inferred one.
LogicalResult ModelImporter::checkOutput(const ::onnx::ValueInfoProto &info,
                                         Value value) {
  Location loc = NameLoc::get(builder.getStringAttr(info.name()), fileLoc);
  if (!info.has_type())
    return success();
  FailureOr<Type> declared = importValueType(info, "graph output");
  if (failed(declared))
    return failure();
  auto actual = cast<TensorType>(value.getType());
  auto expected = cast<TensorType>(*declared);
  if (actual.getElementType() != expected.getElementType() ||
      failed(verifyCompatibleShape(actual, expected)))
    return mlir::emitError(loc)
           << "graph output '" << info.name() << "' is declared as " << expected
           << " but the graph computes " << actual;
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(::onnx::ModelProto &model,
                                         StringRef text) {
  if (failed(readOpset(model)))
    return nullptr;
  const ::onnx::GraphProto &graph = model.graph();
  if (failed(bindInputShapes(graph)))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr(
      "onnx.ir_version", builder.getI64IntegerAttr(model.ir_version()));
  module->getOperation()->setAttr("onnx.opset",
                                  builder.getI64IntegerAttr(opset));
  if (!model.producer_name().empty())
    module->getOperation()->setAttr(
        "onnx.producer",
        builder.getStringAttr(model.producer_name() +
                              (model.producer_version().empty()
                                   ? ""
                                   : " " + model.producer_version())));

  // Before IR version 4, initializers were also listed as graph inputs.
  llvm::StringSet<> initializerNames;
  for (const auto &init : graph.initializer())
    initializerNames.insert(init.name());

  llvm::StringMap<ElementsAttr> fixedValues;
  if (failed(readInputValues(graph, initializerNames, fixedValues)))
    return nullptr;

  SmallVector<Type> argTypes;
  SmallVector<const ::onnx::ValueInfoProto *> args;
  for (const auto &input : graph.input()) {
    if (initializerNames.contains(input.name()) ||
        fixedValues.contains(input.name()))
      continue;
    FailureOr<Type> type = importValueType(input, "graph input");
    if (failed(type))
      return nullptr;
    auto it = inputShapes.find(input.name());
    if (it != inputShapes.end())
      type = Type(RankedTensorType::get(
          it->second, cast<TensorType>(*type).getElementType()));
    if (!cast<TensorType>(*type).hasRank())
      return mlir::emitError(
                 NameLoc::get(builder.getStringAttr(input.name()), fileLoc))
                 << "graph input '" << input.name()
                 << "' has no shape; give one with --input-shape "
                 << input.name() << "=DIMSxDIMS...",
             nullptr;
    argTypes.push_back(*type);
    args.push_back(&input);
  }

  builder.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(builder, fileLoc, funcNameForGraph(graph.name()),
                           builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  // All names at once: setArgAttr rebuilds the whole list each time.
  SmallVector<DictionaryAttr> argAttrs;
  for (auto [i, info] : llvm::enumerate(args)) {
    Location loc = NameLoc::get(builder.getStringAttr(info->name()), fileLoc);
    entry->getArgument(i).setLoc(loc);
    argAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        "onnx.name", builder.getStringAttr(info->name()))));
    if (failed(define(info->name(), entry->getArgument(i), loc)))
      return nullptr;
  }
  func.setAllArgAttrs(argAttrs);

  builder.setInsertionPointToStart(entry);
  for (const auto &input : graph.input()) {
    auto it = fixedValues.find(input.name());
    if (it == fixedValues.end())
      continue;
    Location loc = NameLoc::get(builder.getStringAttr(input.name()), fileLoc);
    auto constant = ONNXConstantOp::create(
        builder, loc, it->second.getShapedType(), it->second);
    if (failed(define(input.name(), constant, loc)))
      return nullptr;
  }
  for (::onnx::TensorProto &init :
       *model.mutable_graph()->mutable_initializer()) {
    Location loc = NameLoc::get(builder.getStringAttr(init.name()), fileLoc);
    std::string error;
    // The weights' bytes move from the protobuf to their blobs.
    ElementsAttr value =
        convertTensor(init, init.name(), ctx, error, &externalData,
                      init.has_raw_data() ? init.mutable_raw_data() : nullptr);
    if (!value)
      return mlir::emitError(loc)
                 << "initializer '" << init.name() << "' " << error,
             nullptr;
    auto constant =
        ONNXConstantOp::create(builder, loc, value.getShapedType(), value);
    if (failed(define(init.name(), constant, loc)))
      return nullptr;
  }
  if (graph.sparse_initializer_size() > 0)
    return mlir::emitError(fileLoc) << "sparse initializers are not supported",
           nullptr;

  std::vector<std::pair<unsigned, unsigned>> lines = findNodeLines(text, graph);
  // Names some node or the graph reads: an optional output outside this
  // set (e.g. Dropout's mask) may be produced by nobody.
  for (const auto &node : graph.node())
    for (const auto &name : node.input())
      usedNames.insert(name);
  for (const auto &output : graph.output())
    usedNames.insert(output.name());
  if (failed(checkOperators(graph, lines)))
    return nullptr;
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index, lines[index])))
      return nullptr;

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  llvm::StringSet<> outputNames;
  for (const auto &output : graph.output()) {
    // The artifact's outputs are found by name: two of one name would be
    // one output the runtime cannot tell apart (it refuses such a file).
    if (!outputNames.insert(output.name()).second)
      return mlir::emitError(
                 NameLoc::get(builder.getStringAttr(output.name()), fileLoc))
                 << "graph output '" << output.name()
                 << "' is listed twice; output names must be unique",
             nullptr;
    Value value = values.lookup(output.name());
    if (!value)
      return mlir::emitError(
                 NameLoc::get(builder.getStringAttr(output.name()), fileLoc))
                 << "graph output '" << output.name()
                 << "' is not computed by any node, input or initializer",
             nullptr;
    if (failed(checkOutput(output, value)))
      return nullptr;
    results.push_back(value);
    resultTypes.push_back(value.getType());
  }
  if (results.empty())
    return mlir::emitError(fileLoc) << "the graph has no outputs", nullptr;
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &output : graph.output())
    resultAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        "onnx.name", builder.getStringAttr(output.name()))));
  func.setAllResultAttrs(resultAttrs);

  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> fuse::importONNXModel(StringRef bytes,
                                            StringRef sourceName,
                                            MLIRContext *context,
                                            const ImportOptions &options) {
  context->loadDialect<ONNXDialect, func::FuncDialect>();
  ::onnx::ModelProto model;
  bool isText = false;
  detail::ReadPosition position;
  std::string error = detail::readModelProto(bytes, sourceName, options.format,
                                             model, isText, position);
  if (!error.empty()) {
    mlir::emitError(FileLineColLoc::get(context, sourceName, position.line,
                                        position.column))
        << error;
    return nullptr;
  }
  return ModelImporter(context, sourceName, options)
      .run(model, isText ? bytes : StringRef());
}

std::string fuse::checkModelFile(StringRef path, uint64_t maxBytes) {
  if (path == "-")
    return "";
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return "cannot open '" + path.str() + "': " + ec.message();
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return "cannot read '" + path.str() + "': it is a directory";
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return "cannot read '" + path.str() + "': it is not a regular file";
  if (status.getSize() > maxBytes)
    return "cannot read '" + path.str() + "': it is " +
           std::to_string(status.getSize()) + " bytes, more than the " +
           std::to_string(maxBytes) +
           " of one protobuf message (keep weights in external data)";
  return "";
}
