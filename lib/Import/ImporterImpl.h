//===- ImporterImpl.h - Importer internals -----------------------*- C++
//-*-===//
//
// Private to the importer: conversion of ONNX types and tensors, and the
// per-node context that op importers work with.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_IMPORT_IMPORTERIMPL_H
#define FUSE_LIB_IMPORT_IMPORTERIMPL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace fuse {
namespace detail {

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

/// The MLIR element type of ONNX data type `dataType`, or null when fuse
/// does not support it.
mlir::Type convertElementType(int32_t dataType, mlir::MLIRContext *context);

/// "FLOAT", "STRING", ... (or the number, for an unknown value).
std::string dataTypeName(int32_t dataType);

/// The files that tensors stored as ONNX external data point into, each
/// opened and memory-mapped once per import. Locations are relative to the
/// model's folder and may not leave it.
class ExternalData {
public:
  /// `folder`: the model's folder; none when external data cannot be read,
  /// and `whyNot` then ends the error message ("but the model was read
  /// from standard input, ...").
  ExternalData(std::optional<std::string> folder, std::string whyNot = "",
               std::vector<std::string> *filesRead = nullptr)
      : folder(std::move(folder)), whyNot(std::move(whyNot)),
        filesRead(filesRead) {}

  /// The `size` bytes of `tensor`'s data, and the buffer that holds them.
  /// On failure returns false and says why in `error`.
  bool read(const ::onnx::TensorProto &tensor, uint64_t size,
            std::shared_ptr<llvm::MemoryBuffer> &file,
            llvm::ArrayRef<char> &bytes, std::string &error);

private:
  std::optional<std::string> folder;
  std::string whyNot;
  /// Where each file opened is recorded (ImportOptions::filesRead).
  std::vector<std::string> *filesRead;
  llvm::StringMap<std::shared_ptr<llvm::MemoryBuffer>> files;
};

/// Converts `tensor` to an attribute: small or splat tensors as `dense`,
/// others as a `dense_resource` blob keyed by `blobName`. External data is
/// read through `external` (an error when null); a blob of it refers to
/// the mapped file instead of a copy where the data is aligned. `rawData`,
/// when given, is `tensor`'s own raw_data, which a blob may take instead of
/// copying it (it is left empty then). On failure returns null and says
/// why in `error`.
mlir::ElementsAttr convertTensor(const ::onnx::TensorProto &tensor,
                                 llvm::StringRef blobName,
                                 mlir::MLIRContext *context, std::string &error,
                                 ExternalData *external = nullptr,
                                 std::string *rawData = nullptr);

//===----------------------------------------------------------------------===//
// Op importers
//===----------------------------------------------------------------------===//

enum class AttrKind { Int, Float, Ints, Floats, String, Tensor };

/// An ONNX attribute an op importer accepts, and its expected kind.
struct AttrSpec {
  const char *name;
  AttrKind kind;
};

class NodeImporter;
using ImportFn = mlir::LogicalResult (*)(NodeImporter &);

/// How one ONNX operator is imported.
struct OpImportInfo {
  /// The `onnx` dialect op, e.g. "onnx.Relu".
  const char *opName;
  /// Opset versions at which the ONNX schema changed (`since_version`s, as
  /// listed by onnx.defs); the node's version is the newest one not newer
  /// than the model's opset.
  std::vector<int> versions;
  /// Every attribute the operator may carry in any of those versions.
  std::vector<AttrSpec> attrs;
  unsigned minInputs, maxInputs, maxOutputs;
  ImportFn import;
};

/// The sizes of a static `shape` flattened to 2-D around `axis` (opset 1
/// to 12's Softmax, LogSoftmax and Hardmax): the dims before it, the dims
/// from it on. An error on `n` when either overflows 64 bits.
mlir::FailureOr<std::pair<int64_t, int64_t>>
getSizesAroundAxis(NodeImporter &n, llvm::ArrayRef<int64_t> shape,
                   int64_t axis);

/// Importers of operators that become several ops, each in its own file.
mlir::LogicalResult importAttention(NodeImporter &n);
mlir::LogicalResult importConvTranspose(NodeImporter &n);
mlir::LogicalResult importDequantizeLinear(NodeImporter &n);
mlir::LogicalResult importDynamicQuantizeLinear(NodeImporter &n);
mlir::LogicalResult importEinsum(NodeImporter &n);
mlir::LogicalResult importHardmax(NodeImporter &n);
mlir::LogicalResult importLayerNorm(NodeImporter &n);
mlir::LogicalResult importLogSoftmax(NodeImporter &n);
mlir::LogicalResult importLpNormalization(NodeImporter &n);
mlir::LogicalResult importLpPool(NodeImporter &n);
mlir::LogicalResult importSwish(NodeImporter &n);
mlir::LogicalResult importTopK(NodeImporter &n);
mlir::LogicalResult importNLLLoss(NodeImporter &n);
mlir::LogicalResult importOneHot(NodeImporter &n);
mlir::LogicalResult importQuantizeLinear(NodeImporter &n);
mlir::LogicalResult importResize(NodeImporter &n);
mlir::LogicalResult importScatter(NodeImporter &n);
mlir::LogicalResult importSoftmaxCrossEntropyLoss(NodeImporter &n);

/// The importer for `opType` in the default domain, or null.
const OpImportInfo *lookupOpImporter(llvm::StringRef opType);

/// The importer for `opType` in onnxruntime's contrib domain
/// (`com.microsoft`, ContribImporters.cpp), or null.
const OpImportInfo *lookupContribOpImporter(llvm::StringRef opType);

/// The context of one node while it is imported.
class NodeImporter {
public:
  NodeImporter(const ::onnx::NodeProto &node, const OpImportInfo &info,
               int version, int64_t opset, mlir::OpBuilder &builder,
               mlir::Location loc, std::string description)
      : node(node), info(info), version(version), opset(opset),
        builder(builder), loc(loc), description(std::move(description)) {}

  const ::onnx::NodeProto &node;
  const OpImportInfo &info;
  /// The op version in effect (see OpImportInfo::versions).
  int version;
  /// The model's ai.onnx opset.
  int64_t opset;
  mlir::OpBuilder &builder;
  mlir::Location loc;
  /// "node 'conv1' (Conv, opset 13)"
  std::string description;
  /// Node inputs; null where an optional input is omitted.
  llvm::SmallVector<mlir::Value> inputs;
  /// What the handler produced for each node output; null for outputs it
  /// does not produce.
  llvm::SmallVector<mlir::Value> results;

  mlir::MLIRContext *getContext() { return builder.getContext(); }
  mlir::Value input(unsigned i) const {
    return i < inputs.size() ? inputs[i] : mlir::Value();
  }
  /// Names that some node or the graph output reads (null: all names).
  const llvm::StringSet<> *usedNames = nullptr;
  /// Where tensor attributes stored as external data are read from.
  ExternalData *externalData = nullptr;

  /// Whether output `i` exists and is read by a later node or is a graph
  /// output.
  bool outputUsed(int i) const {
    return i < node.output_size() && !node.output(i).empty() &&
           (!usedNames || usedNames->contains(node.output(i)));
  }

  /// An error at the node, prefixed with its description.
  mlir::InFlightDiagnostic emitError();

  const ::onnx::AttributeProto *findAttr(llvm::StringRef name) const;
  /// The node's int (float) attribute `name`, or `otherwise` without one.
  int64_t intAttrOr(llvm::StringRef name, int64_t otherwise) const {
    const auto *attr = findAttr(name);
    return attr ? attr->i() : otherwise;
  }
  float floatAttrOr(llvm::StringRef name, float otherwise) const {
    const auto *attr = findAttr(name);
    return attr ? attr->f() : otherwise;
  }

  /// Converts the node's attributes (all of which were checked against
  /// `info.attrs`) to MLIR attributes, leaving out those in `skip`.
  mlir::FailureOr<llvm::SmallVector<mlir::NamedAttribute>>
  convertAttributes(llvm::ArrayRef<llvm::StringRef> skip = {});

  /// Creates `opName` on `operands` (null entries are omitted optional
  /// operands; for ops with several optional operands, one entry per ODS
  /// operand), infers its result types and verifies it.
  mlir::FailureOr<mlir::Operation *>
  createOp(llvm::StringRef opName, llvm::ArrayRef<mlir::Value> operands,
           llvm::ArrayRef<mlir::NamedAttribute> attrs);

  /// A rank-0 `onnx.Constant` of `elementType` holding `value`.
  mlir::Value createScalarConstant(mlir::Type elementType, double value);
};

/// A 1-D i64 `onnx.Constant` holding `values`, at the node.
mlir::Value createI64Constant(NodeImporter &n, llvm::ArrayRef<int64_t> values);

/// Builds the ops that a node decomposes into. Each `op` infers its result
/// types and verifies; after the first failure (reported at the node, as
/// NodeImporter::createOp does) every later call returns null, so a
/// decomposition checks `failed()` once at its end.
class NodeEmitter {
public:
  explicit NodeEmitter(NodeImporter &n) : n(n) {}

  /// `opName` on `operands` (null entries: omitted optional operands), its
  /// first result.
  mlir::Value op(llvm::StringRef opName, llvm::ArrayRef<mlir::Value> operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// An `onnx.Constant` of `value`.
  mlir::Value constant(mlir::ElementsAttr value);
  /// A 1-D i64 constant.
  mlir::Value i64s(llvm::ArrayRef<int64_t> values) {
    return createI64Constant(n, values);
  }
  /// A rank-0 constant of `elementType`.
  mlir::Value scalar(mlir::Type elementType, double value) {
    return n.createScalarConstant(elementType, value);
  }
  /// An i64 (f32) attribute named `name`.
  mlir::NamedAttribute intAttr(llvm::StringRef name, int64_t value);
  mlir::NamedAttribute floatAttr(llvm::StringRef name, double value);
  /// A DenseI64ArrayAttr named `name`.
  mlir::NamedAttribute intsAttr(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> values);

  /// Common ops.
  /// To exactly `shape`: a 0 in it is a dim of 0 (allowzero), not a copy
  /// of the input's dim, as importers that reshape empty tensors mean.
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape) {
    if (llvm::is_contained(shape, 0))
      return op("onnx.Reshape", {x, i64s(shape)}, {intAttr("allowzero", 1)});
    return op("onnx.Reshape", {x, i64s(shape)});
  }
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm) {
    return op("onnx.Transpose", {x}, {intsAttr("perm", perm)});
  }
  mlir::Value cast(mlir::Value x, mlir::Type elementType);

  bool failed() const { return hasFailed; }

private:
  NodeImporter &n;
  bool hasFailed = false;
};

} // namespace detail
} // namespace fuse

#endif // FUSE_LIB_IMPORT_IMPORTERIMPL_H
