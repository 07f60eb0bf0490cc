//===- FusionReport.cpp - Print what fusion did ---------------------------===//

#include "FusionUtils.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace fuse {
#define GEN_PASS_DEF_FUSIONREPORT
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

/// Bytes of a statically shaped tensor, or nullopt.
static std::optional<int64_t> getByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
  FailureOr<int64_t> count = getNumElementsOrDynamic(tensor.getShape());
  int64_t bytes;
  if (failed(count) || llvm::MulOverflow(*count, (bits + 7) / 8, bytes))
    return std::nullopt;
  return bytes;
}

static bool isKernelOp(Operation &op) { return isComputeOp(&op); }

/// Whether `group` is the rest of the epilogue of the library call right
/// before it (fuse-select-strategies split it off): its input is that
/// group's result, used by nothing else.
static bool isSplitEpilogue(GroupOp group) {
  auto previous = dyn_cast_or_null<GroupOp>(group->getPrevNode());
  if (!previous || !previous.getStrategy() ||
      isa<KernelStrategyAttr>(*previous.getStrategy()) ||
      group.getKind() != GroupKind::elementwise)
    return false;
  Value result = previous->getResult(0);
  return result.hasOneUse() && *result.getUsers().begin() == group;
}

static void reportGroup(GroupOp group, unsigned index, raw_ostream &os) {
  os << "  group " << index << " (" << stringifyGroupKind(group.getKind());
  if (std::optional<Attribute> strategy = group.getStrategy())
    os << ", " << describeStrategy(*strategy);
  os << "): ";
  SmallVector<Operation *> ops;
  for (Operation &op : group.getBodyBlock().without_terminator())
    if (isKernelOp(op))
      ops.push_back(&op);
  llvm::interleave(
      ops, os, [&](Operation *op) { os << op->getName(); }, " -> ");
  os << "\n";
  if (isSplitEpilogue(group))
    os << "    the rest of group " << index - 1
       << "'s epilogue, which its library call cannot fuse: a generated "
          "kernel right after it\n";

  // Intermediates: results consumed inside the group and not yielded.
  int64_t written = 0, read = 0;
  unsigned count = 0;
  bool unknown = false;
  std::string types;
  llvm::raw_string_ostream typesOS(types);
  Operation *yield = group.getBodyBlock().getTerminator();
  for (Operation *op : ops) {
    for (Value result : op->getResults()) {
      llvm::SmallPtrSet<Operation *, 4> readers;
      bool yielded = false;
      for (Operation *user : result.getUsers()) {
        if (user == yield)
          yielded = true;
        else
          readers.insert(user);
      }
      if (yielded || readers.empty())
        continue;
      typesOS << (count ? ", " : "") << result.getType();
      ++count;
      std::optional<int64_t> bytes = getByteSize(result.getType());
      if (!bytes) {
        unknown = true;
        continue;
      }
      written += *bytes;
      read += *bytes * static_cast<int64_t>(readers.size());
    }
  }
  os << "    intermediates: " << count;
  if (count)
    os << " (" << types << ")";
  os << "\n    intermediate bytes saved: ";
  if (unknown)
    os << "unknown (dynamic shapes)\n";
  else
    os << written + read << " (" << written << " written + " << read
       << " read)\n";
}

/// The candidates of `alternatives`, whose selected one is reported next
/// as group `index` on.
static void reportAlternatives(AlternativesOp alternatives, unsigned index,
                               raw_ostream &os) {
  os << "  group " << index << " has " << alternatives.getCandidates().size()
     << " candidates, the heuristic's pick selected (fuse-tune measures "
        "them):\n";
  for (auto [i, region] : llvm::enumerate(alternatives.getCandidates())) {
    os << "    " << (uint64_t(i) == alternatives.getSelected() ? "* " : "  ")
       << i << ": ";
    SmallVector<std::string> strategies;
    for (auto group : region.getOps<GroupOp>())
      if (std::optional<Attribute> strategy = group.getStrategy())
        strategies.push_back(describeStrategy(*strategy));
    llvm::interleave(strategies, os, " + ");
    os << "\n";
  }
}

namespace {
struct FusionReportPass
    : public fuse::impl::FusionReportBase<FusionReportPass> {
  void runOnOperation() override {
    raw_ostream &os = llvm::errs();
    getOperation().walk([&](func::FuncOp func) {
      os << "fusion report for @" << func.getSymName() << "\n";
      unsigned groups = 0, unfused = 0, before = 0;
      // The selected candidate of a fuse.alternatives stands for it; its
      // candidates are listed before its first group.
      for (Operation *opPtr : getOpsThroughAlternatives(
               func.getBody().front(), /*selectedOnly=*/true)) {
        Operation &op = *opPtr;
        auto alternatives = dyn_cast<AlternativesOp>(op.getParentOp());
        if (alternatives && isa<GroupOp>(op) &&
            *op.getBlock()->getOps<GroupOp>().begin() == &op)
          reportAlternatives(alternatives, groups, os);
        if (auto group = dyn_cast<GroupOp>(op)) {
          reportGroup(group, groups++, os);
          for (Operation &inner : group.getBodyBlock())
            before += isKernelOp(inner);
        } else if (isKernelOp(op)) {
          ++unfused;
          ++before;
        }
      }
      if (groups == 0)
        os << "  no fusion groups\n";
      os << "  kernels: " << before << " before fusion, " << groups + unfused
         << " after (" << groups << " group" << (groups == 1 ? "" : "s") << ", "
         << unfused << " unfused op" << (unfused == 1 ? "" : "s") << ")\n";
    });
    markAllAnalysesPreserved();
  }
};

} // namespace
