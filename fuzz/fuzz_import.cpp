//===- fuzz_import.cpp - ONNX protobuf -> importer -> fuse-chains ---------===//
//
// Inputs are binary ONNX models (ModelProto). Random bytes rarely survive
// protobuf parsing, so this target has a structure-aware mutator: it parses
// the input as a ModelProto, changes the model the way a careless exporter
// or a hostile file would (drops or duplicates inputs, nodes, initializers
// and outputs; changes shapes, element types, attribute values and types,
// opset versions, op types among those fuse supports, the names that wire
// nodes together) and serializes it again. Inputs that do not parse, and
// one mutation in ten, get libFuzzer's byte mutations instead, so the
// protobuf reader's error paths stay covered. The crossover splices nodes,
// inputs and initializers of one model into another.
//
//===----------------------------------------------------------------------===//

#include "ImportHarness.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

using Rng = std::minstd_rand;

/// The operators the importer supports (lib/Import/OpImporters.cpp), and a
/// few it does not, so that both paths are taken. A new supported operator
/// is worth adding here.
const char *const kOpTypes[] = {
    "Abs",       "Add",  "AveragePool", "BatchNormalization",
    "Clip",      "Constant", "Conv",    "Div",
    "Exp",       "Flatten",  "Gemm",    "GlobalAveragePool",
    "Identity",  "LeakyRelu", "MatMul", "MaxPool",
    "Mul",       "Neg",  "Relu",        "Reshape",
    "Sigmoid",   "Sqrt", "Sub",         "Tanh",
    // Not supported (today): the unsupported-operator error.
    "Softmax",   "Concat", "Transpose", "Hardmax",
};

/// Every attribute name the supported operators take, and a stranger.
const char *const kAttrNames[] = {
    "auto_pad",   "dilations",     "kernel_shape",      "pads",
    "strides",    "ceil_mode",     "count_include_pad", "storage_order",
    "epsilon",    "momentum",      "spatial",           "is_test",
    "training_mode", "min",        "max",               "value",
    "value_float", "value_floats", "value_int",         "value_ints",
    "group",      "axis",          "alpha",             "beta",
    "transA",     "transB",        "allowzero",         "no_such_attr",
};

const char *const kStrings[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER",
                                "VALID",  "",           "same_upper",
                                "x"};

const char *const kDomains[] = {"", "ai.onnx", "com.microsoft",
                                "ai.onnx.ml"};

size_t pick(Rng &rng, size_t n) {
  if (n == 0)
    return 0;
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}

template <typename T, size_t N> const T &pickFrom(Rng &rng, T const (&a)[N]) {
  return a[pick(rng, N)];
}

bool oneIn(Rng &rng, size_t n) { return pick(rng, n) == 0; }

/// Mostly small values (shapes, axes, flags), sometimes extremes.
int64_t interestingInt(Rng &rng) {
  static const int64_t kExtremes[] = {
      0,
      -1,
      255,
      256,
      65536,
      std::numeric_limits<int32_t>::max(),
      int64_t(std::numeric_limits<int32_t>::max()) + 1,
      std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min(),
      int64_t(1) << 40};
  if (oneIn(rng, 4))
    return pickFrom(rng, kExtremes);
  return int64_t(pick(rng, 12)) - 2; // -2 .. 9
}

float interestingFloat(Rng &rng) {
  static const float kValues[] = {0.0f,     -0.0f,    1.0f,       -1.0f,
                                  0.5f,     1e-5f,    6.0f,       -6.0f,
                                  NAN,      INFINITY, -INFINITY,  FLT_MAX,
                                  FLT_MIN,  1e-45f,   16777217.0f};
  if (oneIn(rng, 4))
    return std::uniform_real_distribution<float>(-10, 10)(rng);
  return pickFrom(rng, kValues);
}

/// ONNX element types: the supported ones more often, then any number
/// (strings, complex, float8, and values that are not types at all).
int32_t interestingElemType(Rng &rng) {
  static const int32_t kSupported[] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12,
                                       13, 16};
  if (oneIn(rng, 3))
    return int32_t(pick(rng, 26)) - 1; // -1 .. 24
  return pickFrom(rng, kSupported);
}

/// Removes element `i` of a repeated field, keeping the order.
template <typename Field> void removeAt(Field *field, int i) {
  for (int j = i; j + 1 < field->size(); ++j)
    field->SwapElements(j, j + 1);
  field->RemoveLast();
}

/// Appends a copy of element `i` (and moves it next to the original).
template <typename Field> void duplicateAt(Field *field, int i) {
  auto copy = field->Get(i);
  *field->Add() = copy;
  for (int j = field->size() - 1; j > i + 1; --j)
    field->SwapElements(j, j - 1);
}

template <typename Field> void swapTwo(Field *field, Rng &rng) {
  if (field->size() >= 2)
    field->SwapElements(int(pick(rng, field->size())),
                        int(pick(rng, field->size())));
}

/// Applies one of remove / duplicate / swap to a repeated field; returns
/// false (leaving it alone) when the dice chose none of them.
template <typename Field> bool reshuffle(Field *field, Rng &rng) {
  if (field->empty())
    return false;
  int i = int(pick(rng, field->size()));
  switch (pick(rng, 6)) {
  case 0:
    removeAt(field, i);
    return true;
  case 1:
    duplicateAt(field, i);
    return true;
  case 2:
    swapTwo(field, rng);
    return true;
  default:
    return false;
  }
}

template <typename Field> void mutateInts(Field *ints, Rng &rng) {
  switch (pick(rng, 4)) {
  case 0:
    ints->Add(interestingInt(rng));
    break;
  case 1:
    if (!ints->empty())
      ints->RemoveLast();
    break;
  case 2:
    ints->Clear();
    break;
  default:
    if (!ints->empty())
      ints->Set(int(pick(rng, ints->size())), interestingInt(rng));
    else
      ints->Add(interestingInt(rng));
  }
}

/// Names of every value in the graph: inputs, initializers, node outputs.
std::vector<std::string> valueNames(const onnx::GraphProto &graph) {
  std::vector<std::string> names;
  for (const auto &input : graph.input())
    names.push_back(input.name());
  for (const auto &init : graph.initializer())
    names.push_back(init.name());
  for (const auto &node : graph.node())
    for (const auto &output : node.output())
      names.push_back(output);
  return names;
}

/// An existing value's name mostly; sometimes "" (an omitted optional
/// input) or a name nothing defines.
std::string someValueName(const onnx::GraphProto &graph, Rng &rng) {
  std::vector<std::string> names = valueNames(graph);
  if (names.empty() || oneIn(rng, 8))
    return oneIn(rng, 2) ? "" : "undefined_" + std::to_string(pick(rng, 4));
  return names[pick(rng, names.size())];
}

std::string freshName(Rng &rng) { return "v" + std::to_string(pick(rng, 1000)); }

void mutateShape(onnx::TensorShapeProto *shape, Rng &rng) {
  auto *dims = shape->mutable_dim();
  switch (pick(rng, 6)) {
  case 0:
    dims->Add()->set_dim_value(interestingInt(rng));
    break;
  case 1:
    if (!dims->empty())
      removeAt(dims, int(pick(rng, dims->size())));
    break;
  case 2:
    if (!dims->empty())
      dims->Mutable(int(pick(rng, dims->size())))
          ->set_dim_param(oneIn(rng, 2) ? "N" : "batch");
    break;
  case 3:
    if (!dims->empty())
      dims->Mutable(int(pick(rng, dims->size())))->Clear();
    break;
  default:
    if (!dims->empty())
      dims->Mutable(int(pick(rng, dims->size())))
          ->set_dim_value(interestingInt(rng));
    else
      dims->Add()->set_dim_value(interestingInt(rng));
  }
}

void mutateValueInfo(onnx::ValueInfoProto *info,
                     const onnx::GraphProto &graph, Rng &rng) {
  auto *tensor = info->mutable_type()->mutable_tensor_type();
  switch (pick(rng, 8)) {
  case 0:
    tensor->set_elem_type(interestingElemType(rng));
    break;
  case 1:
    tensor->clear_shape();
    break;
  case 2:
    info->set_name(someValueName(graph, rng));
    break;
  case 3:
    if (oneIn(rng, 2))
      info->clear_type();
    else // A sequence type, which fuse does not take.
      *info->mutable_type()->mutable_sequence_type()->mutable_elem_type() =
          onnx::TypeProto(info->type());
    break;
  default:
    mutateShape(tensor->mutable_shape(), rng);
  }
}

void mutateTensor(onnx::TensorProto *tensor, Rng &rng) {
  switch (pick(rng, 10)) {
  case 0:
    tensor->set_data_type(interestingElemType(rng));
    break;
  case 1:
    mutateInts(tensor->mutable_dims(), rng);
    break;
  case 2: { // Shorter or longer raw data.
    std::string *raw = tensor->mutable_raw_data();
    if (oneIn(rng, 2) && !raw->empty())
      raw->resize(pick(rng, raw->size()));
    else
      raw->append(size_t(1) << pick(rng, 6), '\x01');
    break;
  }
  case 3:
    tensor->add_float_data(interestingFloat(rng));
    break;
  case 4:
    tensor->add_int64_data(interestingInt(rng));
    break;
  case 5:
    tensor->add_int32_data(int32_t(interestingInt(rng)));
    break;
  case 6:
    if (oneIn(rng, 2))
      tensor->clear_raw_data();
    else
      tensor->clear_float_data();
    break;
  case 7:
    tensor->set_data_location(oneIn(rng, 2) ? onnx::TensorProto::EXTERNAL
                                            : onnx::TensorProto::DEFAULT);
    if (oneIn(rng, 2)) {
      auto *entry = tensor->add_external_data();
      entry->set_key("location");
      entry->set_value("weights.bin");
    }
    break;
  case 8:
    tensor->add_double_data(interestingFloat(rng));
    break;
  default:
    tensor->set_name(tensor->name() + "_");
  }
}

void mutateAttribute(onnx::AttributeProto *attr, Rng &rng) {
  switch (pick(rng, 10)) {
  case 0: { // Another type, with a value of that type. (The setter takes
            // valid enum values only; the byte mutations make the others.)
    auto type = onnx::AttributeProto::AttributeType(
        pick(rng, onnx::AttributeProto::AttributeType_MAX + 1));
    attr->set_type(type);
    if (type == onnx::AttributeProto::INT)
      attr->set_i(interestingInt(rng));
    else if (type == onnx::AttributeProto::FLOAT)
      attr->set_f(interestingFloat(rng));
    else if (type == onnx::AttributeProto::INTS)
      attr->add_ints(interestingInt(rng));
    else if (type == onnx::AttributeProto::FLOATS)
      attr->add_floats(interestingFloat(rng));
    else if (type == onnx::AttributeProto::STRING)
      attr->set_s(pickFrom(rng, kStrings));
    else if (type == onnx::AttributeProto::TENSOR)
      attr->mutable_t()->set_data_type(1);
    break;
  }
  case 1:
    attr->set_name(pickFrom(rng, kAttrNames));
    break;
  case 2:
    attr->set_s(pickFrom(rng, kStrings));
    break;
  case 3:
    attr->set_f(interestingFloat(rng));
    break;
  case 4:
    if (oneIn(rng, 2))
      attr->add_floats(interestingFloat(rng));
    else if (!attr->floats().empty())
      attr->mutable_floats()->RemoveLast();
    break;
  case 5:
    mutateTensor(attr->mutable_t(), rng);
    break;
  case 6:
    attr->set_ref_attr_name(oneIn(rng, 2) ? "" : "outer");
    break;
  case 7:
    attr->set_i(interestingInt(rng));
    break;
  default:
    mutateInts(attr->mutable_ints(), rng);
  }
}

/// A new attribute of a known name with a plausible value.
void addAttribute(onnx::NodeProto *node, Rng &rng) {
  onnx::AttributeProto *attr = node->add_attribute();
  attr->set_name(pickFrom(rng, kAttrNames));
  switch (pick(rng, 4)) {
  case 0:
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(interestingInt(rng));
    break;
  case 1:
    attr->set_type(onnx::AttributeProto::FLOAT);
    attr->set_f(interestingFloat(rng));
    break;
  case 2:
    attr->set_type(onnx::AttributeProto::STRING);
    attr->set_s(pickFrom(rng, kStrings));
    break;
  default:
    attr->set_type(onnx::AttributeProto::INTS);
    for (size_t i = 0, n = pick(rng, 5); i < n; ++i)
      attr->add_ints(interestingInt(rng));
  }
}

void mutateNode(onnx::NodeProto *node, const onnx::GraphProto &graph,
                Rng &rng) {
  switch (pick(rng, 12)) {
  case 0:
    node->set_op_type(pickFrom(rng, kOpTypes));
    break;
  case 1:
    if (!node->input().empty())
      node->set_input(int(pick(rng, node->input_size())),
                      someValueName(graph, rng));
    break;
  case 2:
    if (oneIn(rng, 2))
      node->add_input(someValueName(graph, rng));
    else if (!node->input().empty())
      node->mutable_input()->RemoveLast();
    break;
  case 3:
    if (oneIn(rng, 3))
      node->add_output(oneIn(rng, 2) ? "" : freshName(rng));
    else if (!node->output().empty())
      node->set_output(int(pick(rng, node->output_size())),
                       oneIn(rng, 2) ? someValueName(graph, rng)
                                     : freshName(rng));
    break;
  case 4:
    if (!reshuffle(node->mutable_attribute(), rng))
      addAttribute(node, rng);
    break;
  case 5:
    node->set_domain(pickFrom(rng, kDomains));
    break;
  case 6:
    node->set_name(oneIn(rng, 2) ? "" : freshName(rng));
    break;
  case 7:
    addAttribute(node, rng);
    break;
  default:
    if (!node->attribute().empty())
      mutateAttribute(
          node->mutable_attribute(int(pick(rng, node->attribute_size()))),
          rng);
    else
      addAttribute(node, rng);
  }
}

/// A new node of a random operator on existing values, often made a graph
/// output so that it is not dead.
void insertNode(onnx::GraphProto *graph, Rng &rng) {
  onnx::NodeProto node;
  node.set_op_type(pickFrom(rng, kOpTypes));
  for (size_t i = 0, n = 1 + pick(rng, 3); i < n; ++i)
    node.add_input(someValueName(*graph, rng));
  std::string output = freshName(rng);
  node.add_output(output);
  if (oneIn(rng, 2))
    addAttribute(&node, rng);
  int position = int(pick(rng, graph->node_size() + 1));
  *graph->add_node() = node;
  for (int j = graph->node_size() - 1; j > position; --j)
    graph->mutable_node()->SwapElements(j, j - 1);
  if (oneIn(rng, 2))
    graph->add_output()->set_name(output);
}

void mutateGraph(onnx::GraphProto *graph, Rng &rng) {
  switch (pick(rng, 16)) {
  case 0:
  case 1:
    if (!reshuffle(graph->mutable_node(), rng))
      insertNode(graph, rng);
    break;
  case 2:
    insertNode(graph, rng);
    break;
  case 3:
    if (!reshuffle(graph->mutable_input(), rng) && !graph->input().empty())
      mutateValueInfo(
          graph->mutable_input(int(pick(rng, graph->input_size()))), *graph,
          rng);
    break;
  case 4:
  case 5:
    if (!graph->input().empty())
      mutateValueInfo(
          graph->mutable_input(int(pick(rng, graph->input_size()))), *graph,
          rng);
    break;
  case 6:
    if (!reshuffle(graph->mutable_initializer(), rng) &&
        !graph->initializer().empty())
      mutateTensor(graph->mutable_initializer(
                       int(pick(rng, graph->initializer_size()))),
                   rng);
    break;
  case 7:
    if (!graph->initializer().empty())
      mutateTensor(graph->mutable_initializer(
                       int(pick(rng, graph->initializer_size()))),
                   rng);
    break;
  case 8:
    if (!reshuffle(graph->mutable_output(), rng)) {
      if (oneIn(rng, 2) || graph->output().empty())
        graph->add_output()->set_name(someValueName(*graph, rng));
      else
        mutateValueInfo(
            graph->mutable_output(int(pick(rng, graph->output_size()))),
            *graph, rng);
    }
    break;
  case 9:
    graph->set_name(oneIn(rng, 2) ? "" : "1 bad name");
    break;
  default:
    if (!graph->node().empty())
      mutateNode(graph->mutable_node(int(pick(rng, graph->node_size()))),
                 *graph, rng);
    else
      insertNode(graph, rng);
  }
}

void mutateModel(onnx::ModelProto *model, Rng &rng) {
  switch (pick(rng, 12)) {
  case 0: { // The opset: around the supported range, sometimes far off.
    auto *opsets = model->mutable_opset_import();
    onnx::OperatorSetIdProto *entry =
        opsets->empty() ? opsets->Add()
                        : opsets->Mutable(int(pick(rng, opsets->size())));
    entry->set_version(oneIn(rng, 4) ? interestingInt(rng)
                                     : int64_t(5 + pick(rng, 26)));
    break;
  }
  case 1: {
    auto *opsets = model->mutable_opset_import();
    if (!reshuffle(opsets, rng)) {
      onnx::OperatorSetIdProto *entry = opsets->Add();
      entry->set_domain(pickFrom(rng, kDomains));
      entry->set_version(int64_t(1 + pick(rng, 28)));
    }
    break;
  }
  case 2:
    model->set_ir_version(interestingInt(rng));
    break;
  default:
    mutateGraph(model->mutable_graph(), rng);
  }
}

size_t writeModel(const onnx::ModelProto &model, uint8_t *data,
                  size_t maxSize) {
  std::string bytes;
  if (!model.SerializeToString(&bytes) || bytes.size() > maxSize)
    return 0;
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

bool parse(const uint8_t *data, size_t size, onnx::ModelProto &model) {
  return size > 0 && size < size_t(std::numeric_limits<int>::max()) &&
         model.ParseFromArray(data, int(size)) && model.has_graph();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuse::fuzz::runImportPipeline(data, size,
                                       fuse::ImportOptions::Format::Binary);
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  Rng rng(seed);
  onnx::ModelProto model;
  if (oneIn(rng, 10) || !parse(data, size, model))
    return LLVMFuzzerMutate(data, size, maxSize);
  // Mostly one change, so that the fuzzer can tell which one helped.
  for (size_t i = 0, n = oneIn(rng, 4) ? 2 + pick(rng, 3) : 1; i < n; ++i)
    mutateModel(&model, rng);
  if (size_t written = writeModel(model, data, maxSize))
    return written;
  return LLVMFuzzerMutate(data, size, maxSize);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1,
                                            size_t size1,
                                            const uint8_t *data2,
                                            size_t size2, uint8_t *out,
                                            size_t maxOutSize,
                                            unsigned seed) {
  Rng rng(seed);
  onnx::ModelProto first, second;
  if (!parse(data1, size1, first) || !parse(data2, size2, second)) {
    // Byte splice: the head of one, the tail of the other.
    size_t head = std::min(pick(rng, size1 + 1), maxOutSize);
    size_t from = pick(rng, size2 + 1);
    size_t tail = std::min(size2 - from, maxOutSize - head);
    std::memcpy(out, data1, head);
    std::memcpy(out + head, data2 + from, tail);
    return head + tail;
  }
  onnx::GraphProto *graph = first.mutable_graph();
  const onnx::GraphProto &other = second.graph();
  switch (pick(rng, 3)) {
  case 0: // A run of the other model's nodes, at the end.
    if (!other.node().empty()) {
      int begin = int(pick(rng, other.node_size()));
      int end = std::min(other.node_size(), begin + 1 + int(pick(rng, 4)));
      for (int i = begin; i < end; ++i)
        *graph->add_node() = other.node(i);
    }
    break;
  case 1:
    for (const auto &input : other.input())
      if (oneIn(rng, 2))
        *graph->add_input() = input;
    break;
  default:
    for (const auto &init : other.initializer())
      if (oneIn(rng, 2))
        *graph->add_initializer() = init;
  }
  if (size_t written = writeModel(first, out, maxOutSize))
    return written;
  size_t n = std::min(size1, maxOutSize);
  std::memcpy(out, data1, n);
  return n;
}
