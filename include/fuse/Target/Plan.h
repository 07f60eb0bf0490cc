//===- Plan.h - Execution plans from host functions --------------*- C++ -*-===//
//
// After fuse-outline-kernels a host function is the plan: its arguments are
// the inputs, its onnx.Constants the weights, its calls the launches in
// order, its return the outputs. buildPlan() turns that into the
// artifact's PlanDesc with every buffer placed (inputs and outputs for the
// whole run, intermediates and library workspaces only while they are
// live, reusing the bytes of dead ones), each launch made from its
// kernel's strategy (a generated kernel with its launch dimensions, or a
// cuBLASLt or cuDNN call with its parameters), and one metadata group per
// launch (ONNX nodes, strategy, FLOPs, bytes).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TARGET_PLAN_H
#define FUSE_TARGET_PLAN_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <optional>

namespace fuse {
namespace target {

using fuse::kBufferAlignment;
static_assert(kBufferAlignment <= artifact::kMaxCheckStride,
              "the plan's check buffers must stay side by side");

/// The weights of all plans, each stored once. The bytes of `dense_resource`
/// weights are referenced, not copied (their blobs live as long as the
/// context, e.g. mapped from an external data file); others are converted
/// into storage the table owns.
class WeightTable {
public:
  /// The offset of `value`'s bytes in the weights section, adding them the
  /// first time. Fails for element types the format cannot hold.
  mlir::FailureOr<uint64_t> add(mlir::ElementsAttr value);
  /// The weights section, piece after piece; valid while the table and the
  /// context live.
  const std::vector<artifact::ByteSpan> &pieces() const { return spans; }

private:
  llvm::DenseMap<mlir::Attribute, uint64_t> offsets;
  std::vector<artifact::ByteSpan> spans;
  uint64_t size = 0;
  /// Converted weights; a deque so that spans into them stay valid.
  std::deque<std::vector<uint8_t>> owned;
};

/// The kernels of all plans, indexed by name.
class KernelTable {
public:
  /// The index of `kernel` (taking `numArgs` buffers), or of the first
  /// kernel added whose function is the same but for its name (BERT-base's
  /// twelve equal layers: one kernel each, compiled once).
  uint32_t add(mlir::func::FuncOp kernel, uint32_t numArgs);
  std::vector<artifact::KernelDesc> &kernels() { return table; }
  const std::vector<artifact::KernelDesc> &kernels() const { return table; }
  /// Whether kernel function `name` is an entry of the table (the first of
  /// its body), and so is compiled.
  bool contains(llvm::StringRef name) const { return names.contains(name); }
  /// The entry that kernel function `name` launches, if it was added.
  std::optional<uint32_t> lookup(llvm::StringRef name) const;

private:
  /// The kernels in the table, by name.
  llvm::StringSet<> names;
  /// The entry of every kernel function added, by name.
  llvm::StringMap<uint32_t> entryOf;
  /// Kernel functions as printed without their names or locations.
  llvm::StringMap<uint32_t> byBody;
  std::vector<artifact::KernelDesc> table;
};

/// The ONNX data type number of an MLIR element type, or 0.
uint32_t getDType(mlir::Type elementType);

/// The index check result `result` of `host` is, or null for an output.
IndexCheckAttr getIndexCheck(mlir::func::FuncOp host, unsigned result);

/// The inputs and outputs of host function `host` (its index checks are
/// no outputs).
mlir::LogicalResult getSignature(mlir::func::FuncOp host,
                                 std::vector<artifact::TensorDesc> &inputs,
                                 std::vector<artifact::TensorDesc> &outputs);

/// Builds plan `name` from `host`, whose calls name kernel functions with a
/// `fuse.strategy`; adds a group to `metadata` for each launch.
mlir::FailureOr<artifact::PlanDesc>
buildPlan(mlir::func::FuncOp host, llvm::StringRef name, WeightTable &weights,
          KernelTable &kernels, artifact::MetadataSection &metadata);

/// Whether kernel function `kernel` runs as a library call (it has no code
/// of its own to compile).
bool isLibraryKernel(mlir::func::FuncOp kernel);

/// The label of candidate `index` of `alternatives` (after outlining): the
/// strategies of the kernels it launches, as the artifact's Candidate
/// record, `fuse-run --info` and `fuse-tune` name it.
std::string describeCandidate(AlternativesOp alternatives, unsigned index);

} // namespace target
} // namespace fuse

#endif // FUSE_TARGET_PLAN_H
