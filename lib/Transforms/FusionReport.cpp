//===- FusionReport.cpp - Print what fusion did ---------------------------===//
//
// The report is computed once per function (FunctionReport: the groups in
// order, the choices, the ops left alone and why) and then written as text,
// JSON or a Graphviz graph. Why an op stayed alone is judged with the
// predicates fuse-chains forms groups with (getConsumerBlocker,
// isReductionPrologue), on the IR as it is after fusion.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"
#include "fuse/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/JSON.h"
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

static std::string toString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

namespace {
/// A choice: a fuse.alternatives and its candidates' strategies.
struct ChoiceReport {
  AlternativesOp op;
  unsigned id;
  /// Its key and the candidate it selects.
  std::string key;
  uint64_t selected;
  /// Per candidate, the strategies of its groups.
  std::vector<std::vector<std::string>> candidates;
};

struct GroupReport {
  GroupOp op;
  unsigned id;
  StringRef kind;
  /// Its compute ops, in order.
  SmallVector<Operation *> ops;
  /// The strategy in words; "" before strategy selection.
  std::string strategy;
  /// The precision policy's decision ("fp16"); "" when it made none.
  std::string precision;
  /// The group whose library call this one finishes the epilogue of.
  std::optional<unsigned> epilogueOf;
  /// The choice (index in FunctionReport::choices) it is (part of) the
  /// selected candidate of.
  std::optional<unsigned> choice;
  /// Types of the intermediates, and the bytes they would have moved
  /// (nullopt: some are of dynamic shape).
  std::vector<std::string> intermediates;
  std::optional<int64_t> written, read;
};

/// A compute op outside every group, and why.
struct AloneReport {
  Operation *op;
  std::string strategy;
  StringRef reason;
  std::string detail;
  /// A view the plan aliases to its input's bytes: no kernel.
  bool view = false;
};

struct FunctionReport {
  std::string name;
  std::vector<ChoiceReport> choices;
  std::vector<GroupReport> groups;
  std::vector<AloneReport> alone;
  /// Kernels without fusion: every compute op but the views.
  int64_t kernelsBefore = 0;

  /// Alone ops that are views (no kernel).
  int64_t views() const {
    return llvm::count_if(alone, [](const AloneReport &a) { return a.view; });
  }
  /// Kernels with fusion: groups, attention ops and the other ops alone.
  int64_t kernelsAfter() const {
    return int64_t(groups.size() + alone.size()) - views();
  }
};
} // namespace

/// A group's precision for people: "fp16: fp16 values, f32 arithmetic".
static std::string describePrecision(StringRef precision) {
  if (precision == "fp32")
    return "fp32 (a node matches --keep-fp32)";
  if (precision == "tf32")
    return "tf32: its contraction on TF32 tensor cores";
  return (precision + ": " + precision + " values, f32 arithmetic").str();
}

/// "onnx.Add 'name'", or "onnx.Add" for an op without a node name.
static std::string describeOp(Operation *op) {
  std::string name = getNodeName(op->getLoc());
  std::string text = op->getName().getStringRef().str();
  return name.empty() ? text : text + " '" + name + "'";
}

/// Whether `group` is the rest of the epilogue of the library call or the
/// split-K partial products right before it (fuse-select-strategies split
/// it off): its input is that group's result, used by nothing else.
static bool isSplitEpilogue(GroupOp group) {
  auto previous = dyn_cast_or_null<GroupOp>(group->getPrevNode());
  if (!previous || !previous.getStrategy())
    return false;
  // After a library call, an elementwise group; after split-K partial
  // products, the reduction group that adds them up.
  bool addsPartials = llvm::any_of(
      group.getBodyBlock().without_terminator(),
      [](Operation &op) { return op.hasAttr(kSplitKOpAttrName); });
  // A group of gathers (a Transpose after the call) is none of its
  // epilogue.
  if (addsPartials ? group.getKind() != GroupKind::reduction
                   : isa<KernelStrategyAttr>(*previous.getStrategy()) ||
                         group.getKind() != GroupKind::elementwise ||
                         !holdsOnlyElementwiseOps(group))
    return false;
  Value result = previous->getResult(0);
  return result.hasOneUse() && *result.getUsers().begin() == group;
}

/// The intermediates of `group`: results consumed inside the group and not
/// yielded.
static void addIntermediates(GroupReport &group) {
  int64_t written = 0, read = 0;
  bool unknown = false;
  Operation *yield = group.op.getBodyBlock().getTerminator();
  for (Operation *op : group.ops) {
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
      group.intermediates.push_back(toString(result.getType()));
      std::optional<int64_t> bytes = getByteSize(result.getType());
      if (!bytes) {
        unknown = true;
        continue;
      }
      written += *bytes;
      read += *bytes * static_cast<int64_t>(readers.size());
    }
  }
  if (!unknown) {
    group.written = written;
    group.read = read;
  }
}

/// The reason code of a blocker, and its words (`user` reads the value).
static std::pair<StringRef, std::string>
describeBlocker(FusionBlocker blocker, Operation *user,
                const llvm::DenseMap<Operation *, unsigned> &groupIds) {
  switch (blocker) {
  case FusionBlocker::None:
    break;
  case FusionBlocker::Unused:
    return {"unused", "nothing reads its result"};
  case FusionBlocker::SeveralUsers:
    return {"several_users", "several ops read its result, so it is "
                             "written to memory anyway"};
  case FusionBlocker::OtherBlock:
    return {"other_block", "the op that reads its result is in another block"};
  case FusionBlocker::GraphOutput:
    return {"graph_output", "its result is an output of the graph"};
  case FusionBlocker::NotElementwise:
    return {"user_not_elementwise",
            describeOp(user) + ", which reads its result, is not elementwise"};
  case FusionBlocker::Broadcast:
    return {"user_broadcasts",
            describeOp(user) + ", which reads its result, broadcasts it to " +
                toString(user->getResult(0).getType())};
  case FusionBlocker::Grouped: {
    auto group = user->getParentOfType<GroupOp>();
    auto id = group ? groupIds.find(group) : groupIds.end();
    return {"user_in_group",
            describeOp(user) + ", which reads its result, is in " +
                (id != groupIds.end() ? "group " + std::to_string(id->second)
                                      : std::string("a group")) +
                " already"};
  }
  }
  llvm_unreachable("a blocker to describe");
}

/// Whether only graph outputs read `op`'s result, directly or through
/// Reshapes (Flatten, Squeeze, Unsqueeze).
static bool isReadByOutputsOnly(Operation *op) {
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    return isa<func::ReturnOp>(user) ||
           (isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp, ONNXUnsqueezeOp>(
                user) &&
            isReadByOutputsOnly(user));
  });
}

/// Whether the execution plan runs `op` as a view rather than a kernel: a
/// Reshape (Flatten, Squeeze, Unsqueeze), or a Slice of consecutive
/// elements, outside every group and candidate, of a value some kernel
/// computes, is some of the same bytes under other dims
/// (lib/Target/Plan.cpp gives it no launch; a view of an input or a weight
/// is a copy). A Slice starting off a buffer's alignment stays a kernel
/// unless only the graph's outputs read it.
static bool isPlannedView(Operation *op) {
  if (!isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp, ONNXUnsqueezeOp,
           ONNXSliceOp>(op) ||
      !isa<func::FuncOp>(op->getParentOp()))
    return false;
  Operation *source = op->getOperand(0).getDefiningOp();
  if (!source || source->hasTrait<OpTrait::ConstantLike>())
    return false;
  auto slice = dyn_cast<ONNXSliceOp>(op);
  if (!slice)
    return true;
  std::optional<int64_t> offset = slice.getContiguousOffset();
  if (!offset)
    return false;
  Type element = getElementTypeOrSelf(slice.getData().getType());
  int64_t bytes =
      *offset * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return bytes % kBufferAlignment == 0 || isReadByOutputsOnly(op);
}

/// Why compute op `op`, outside every group, did not join one. `fused`:
/// whether fuse-chains ran.
static AloneReport
explainAlone(Operation *op, bool fused,
             const llvm::DenseMap<Operation *, unsigned> &groupIds) {
  AloneReport report{op, "", "", ""};
  if (auto strategy = op->getAttr(kStrategyAttrName))
    report.strategy = describeStrategy(strategy);
  auto set = [&](StringRef reason, std::string detail) {
    report.reason = reason;
    report.detail = std::move(detail);
    return report;
  };
  std::string name = op->getName().getStringRef().str();
  if (isPlannedView(op)) {
    report.view = true;
    report.strategy = "view, no kernel";
    if (isa<ONNXSliceOp>(op))
      return set("view", name + " of consecutive elements of a result the "
                                "plan computes: some of its bytes, so no "
                                "kernel runs it");
    return set("view", name + " of a result the plan computes: the same "
                              "bytes under other dims, so no kernel runs "
                              "it");
  }
  if (isa<AttentionOp>(op))
    return set("attention",
               "an attention chain (the product of Q and K^T, scale, mask, "
               "Softmax, the product with V, the head Transposes) raised to "
               "one kernel by fuse-raise-attention: the scores are never "
               "stored");
  if (!fused)
    return set("fusion_off", "fusion is off: every op is a kernel of its own");
  // A Slice, Concat, Transpose or Pad joins as a gather of the elementwise
  // group that reads it (what computes its operands is not asked about).
  bool gather = isFusibleGather(op);
  if (!gather && isa<ONNXSliceOp, ONNXConcatOp, ONNXTransposeOp>(op))
    return set("not_fusible",
               name + " joins a group only with static shapes (and a "
                      "Slice with constant bounds and positive steps)");
  if (!gather && isa<ONNXPadOp>(op))
    return set("not_fusible",
               name + " joins a group only in constant mode, with static "
                      "shapes and constant pads and fill");
  bool elementwise = isElementwiseOp(op), reduction = isReductionOp(op);
  if (!gather && !elementwise && !reduction && !isContractionOp(op) &&
      !isPoolingOp(op))
    return set("not_fusible",
               name + " does not fuse: a group holds elementwise ops around "
                      "at most one contraction, pooling or reduction");
  if (op->getNumResults() != 1)
    return set("several_results",
               "it has " + std::to_string(op->getNumResults()) +
                   " results; the ops of a group have one");
  if (reduction) {
    auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!input || !input.hasStaticShape())
      return set("dynamic_shape",
                 "a reduction groups only over an input of static shape, "
                 "not " +
                     toString(op->getOperand(0).getType()));
  }

  // The inputs: an elementwise op joins the group of the op computing its
  // input as its epilogue, or grows its own back over elementwise
  // producers that only it reads; a reduction grows back over those of the
  // input it reduces.
  std::string inputs;
  // A Transpose or Pad also roots a group of the elementwise ops before it.
  bool rootGather = isGatherRoot(op);
  if (elementwise || reduction || rootGather) {
    ValueRange operands = op->getOperands();
    for (Value operand : reduction ? operands.take_front() : operands) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || producer->hasTrait<OpTrait::ConstantLike>())
        continue;
      std::string what = isa<GroupOp>(producer)
                             ? "group " + std::to_string(groupIds.lookup(
                                              producer))
                             : describeOp(producer);
      Operation *user = nullptr;
      FusionBlocker blocker = getConsumerBlocker(operand, &user);
      auto producerGroup = dyn_cast<GroupOp>(producer);
      bool fusible =
          rootGather ? isElementwiseOp(producer) || isFusibleGather(producer) ||
                           (producerGroup &&
                            producerGroup.getKind() == GroupKind::elementwise)
                     : isa<GroupOp>(producer) || isElementwiseOp(producer) ||
                           isContractionOp(producer) || isPoolingOp(producer) ||
                           isReductionOp(producer);
      bool joins =
          reduction    ? isReductionPrologue(operand, op,
                                             [&](Operation *o) { return o == op; })
          : rootGather ? fusible && !producerGroup && operand.hasOneUse()
                       : fusible && producer->getNumResults() == 1 &&
                             blocker == FusionBlocker::None;
      if (joins)
        return set("not_formed",
                   "it could fuse with " + what +
                       ", which computes its input, yet no group was "
                       "formed (fuse-chains did not run, or max-group-ops "
                       "cut the group)");
      std::string why;
      if (rootGather && !fusible)
        why = " is not elementwise: " + name +
              " groups with elementwise ops only";
      else if (rootGather && !operand.hasOneUse())
        why = ": its result has other readers";
      else if (rootGather)
        why = ": a group of its own already";
      else if (!fusible)
        why = " does not fuse";
      else if (reduction && isElementwiseOp(producer) &&
               blocker != FusionBlocker::SeveralUsers)
        why = ": its result's shape is not the reduced input's";
      else if (reduction && !isElementwiseOp(producer))
        why = ": a reduction's group takes elementwise ops before it";
      else
        why = ": " + describeBlocker(blocker, user, groupIds).second;
      inputs += (inputs.empty() ? "" : "; ") + what + why;
    }
  }

  Operation *user = nullptr;
  FusionBlocker blocker = getConsumerBlocker(op->getResult(0), &user);
  if (blocker == FusionBlocker::None)
    return set("not_formed",
               "it could fuse into " + describeOp(user) +
                   ", which reads its result, yet no group was formed "
                   "(fuse-chains did not run, or max-group-ops cut the "
                   "group)");
  auto [reason, detail] = describeBlocker(blocker, user, groupIds);
  if (rootGather)
    detail = name +
             " groups only with elementwise ops that compute its input or "
             "read its result, and " +
             detail;
  else if (gather)
    detail = name +
             " joins only an elementwise group that reads its "
             "result, and " +
             detail;
  if (elementwise || reduction || rootGather)
    detail += inputs.empty() ? "; its inputs come from outside the graph or "
                               "are constants"
                             : "; and its inputs: " + inputs;
  return set(reason, detail);
}

/// The report of `func`.
static FunctionReport analyze(func::FuncOp func, bool fused) {
  FunctionReport report;
  report.name = func.getSymName().str();
  llvm::DenseMap<Operation *, unsigned> groupIds;
  SmallVector<Operation *> alone;
  // The selected candidate of a fuse.alternatives stands for it.
  for (Operation *op : getOpsThroughAlternatives(func.getBody().front(),
                                                 /*selectedOnly=*/true)) {
    auto alternatives = dyn_cast<AlternativesOp>(op->getParentOp());
    if (alternatives &&
        (report.choices.empty() || report.choices.back().op != alternatives)) {
      ChoiceReport &choice = report.choices.emplace_back();
      choice.op = alternatives;
      choice.id = report.choices.size() - 1;
      choice.key = alternatives.getKey().str();
      choice.selected = alternatives.getSelected();
      for (Region &region : alternatives.getCandidates()) {
        std::vector<std::string> &strategies = choice.candidates.emplace_back();
        for (auto group : region.getOps<GroupOp>())
          if (std::optional<Attribute> strategy = group.getStrategy())
            strategies.push_back(describeStrategy(*strategy));
      }
    }
    if (auto group = dyn_cast<GroupOp>(op)) {
      GroupReport &entry = report.groups.emplace_back();
      entry.op = group;
      entry.id = report.groups.size() - 1;
      entry.kind = stringifyGroupKind(group.getKind());
      groupIds[group] = entry.id;
      for (Operation &inner : group.getBodyBlock().without_terminator())
        if (isComputeOp(&inner) && !inner.hasAttr(kSplitKOpAttrName) &&
            !inner.hasAttr(kPrecisionCastAttrName))
          entry.ops.push_back(&inner);
      report.kernelsBefore += entry.ops.size();
      if (std::optional<Attribute> strategy = group.getStrategy())
        entry.strategy = describeStrategy(*strategy);
      if (std::optional<Precision> precision = group.getPrecision())
        entry.precision = stringifyPrecision(*precision).str();
      if (isSplitEpilogue(group))
        entry.epilogueOf = entry.id - 1;
      if (alternatives)
        entry.choice = report.choices.back().id;
      addIntermediates(entry);
    } else if (isComputeOp(op)) {
      alone.push_back(op);
      ++report.kernelsBefore;
    }
  }
  // Once every group has its number.
  for (Operation *op : alone) {
    report.alone.push_back(explainAlone(op, fused, groupIds));
    if (report.alone.back().view)
      --report.kernelsBefore;
  }
  return report;
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

static void printText(const FunctionReport &report, raw_ostream &os) {
  os << "fusion report for @" << report.name << "\n";
  std::optional<unsigned> shown;
  for (const GroupReport &group : report.groups) {
    // A choice's candidates, before its first group.
    if (group.choice && group.choice != shown) {
      shown = group.choice;
      const ChoiceReport *choice = &report.choices[*group.choice];
      os << "  group " << group.id << " has " << choice->candidates.size()
         << " candidates, the heuristic's pick selected (fuse-tune measures "
            "them):\n";
      for (auto [i, strategies] : llvm::enumerate(choice->candidates)) {
        os << "    " << (uint64_t(i) == choice->selected ? "* " : "  ")
           << i << ": ";
        llvm::interleave(strategies, os, " + ");
        os << "\n";
      }
    }
    os << "  group " << group.id << " ("
       << group.kind;
    if (!group.strategy.empty())
      os << ", " << group.strategy;
    if (!group.precision.empty())
      os << ", " << describePrecision(group.precision);
    os << "): ";
    llvm::interleave(
        group.ops, os, [&](Operation *op) { os << op->getName(); }, " -> ");
    if (group.ops.empty() && !group.precision.empty())
      os << "converts its input to " << group.precision
         << " for the contraction that reads it (the precision policy)";
    os << "\n";
    if (group.epilogueOf && group.kind == "reduction")
      os << "    adds up group " << *group.epilogueOf
         << "'s split-K partial products, then applies its epilogue\n";
    else if (group.epilogueOf)
      os << "    the rest of group " << *group.epilogueOf
         << "'s epilogue, which its library call cannot fuse: a generated "
            "kernel right after it\n";
    os << "    intermediates: " << group.intermediates.size();
    if (!group.intermediates.empty()) {
      os << " (";
      llvm::interleave(group.intermediates, os, ", ");
      os << ")";
    }
    os << "\n    intermediate bytes saved: ";
    if (!group.written)
      os << "unknown (dynamic shapes)\n";
    else
      os << *group.written + *group.read << " (" << *group.written
         << " written + " << *group.read << " read)\n";
  }
  if (report.groups.empty())
    os << "  no fusion groups\n";
  for (const AloneReport &alone : report.alone) {
    os << "  alone: " << describeOp(alone.op);
    if (!alone.strategy.empty())
      os << " (" << alone.strategy << ")";
    os << ", " << alone.reason << ": " << alone.detail << "\n";
  }
  size_t groups = report.groups.size(), unfused = report.alone.size();
  size_t attention = llvm::count_if(report.alone, [](const AloneReport &a) {
    return isa<AttentionOp>(a.op);
  });
  size_t views = report.views();
  unfused -= attention + views;
  os << "  kernels: " << report.kernelsBefore << " before fusion, "
     << report.kernelsAfter() << " after (" << groups << " group"
     << (groups == 1 ? "" : "s") << ", ";
  if (attention)
    os << attention << " attention, ";
  os << unfused << " unfused op" << (unfused == 1 ? "" : "s") << ")";
  if (views)
    os << "; " << views << " view" << (views == 1 ? "" : "s") << ", no kernel";
  os << "\n";
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// A string, or null when empty.
static llvm::json::Value orNull(StringRef text) {
  return text.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(text);
}

static void printJson(ArrayRef<FunctionReport> reports, raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("format", "fuse-fusion-report");
    json.attribute("version", 1);
    json.attributeArray("functions", [&] {
      for (const FunctionReport &report : reports)
        json.object([&] {
          json.attribute("name", report.name);
          json.attribute("kernels_before", report.kernelsBefore);
          json.attribute("kernels_after", report.kernelsAfter());
          json.attribute("views", report.views());
          json.attributeArray("groups", [&] {
            for (const GroupReport &group : report.groups)
              json.object([&] {
                json.attribute("id", group.id);
                json.attribute("kind",
                               group.kind);
                json.attribute("strategy", orNull(group.strategy));
                json.attribute("precision", orNull(group.precision));
                json.attributeArray("ops", [&] {
                  for (Operation *op : group.ops)
                    json.value(op->getName().getStringRef());
                });
                json.attributeArray("nodes", [&] {
                  for (Operation *op : group.ops)
                    json.value(getNodeName(op->getLoc()));
                });
                json.attributeArray("intermediates", [&] {
                  for (const std::string &type : group.intermediates)
                    json.value(type);
                });
                if (group.written)
                  json.attribute("bytes_saved", *group.written + *group.read);
                else
                  json.attribute("bytes_saved", nullptr);
                if (group.epilogueOf)
                  json.attribute("epilogue_of", int64_t(*group.epilogueOf));
                else
                  json.attribute("epilogue_of", nullptr);
                if (!group.choice) {
                  json.attribute("choice", nullptr);
                  return;
                }
                const ChoiceReport &choice = report.choices[*group.choice];
                json.attributeObject("choice", [&] {
                  json.attribute("id", choice.id);
                  json.attribute("key", choice.key);
                  json.attribute("selected", int64_t(choice.selected));
                  json.attributeArray("candidates", [&] {
                    for (const auto &strategies : choice.candidates)
                      json.array([&] {
                        for (const std::string &strategy : strategies)
                          json.value(strategy);
                      });
                  });
                });
              });
          });
          json.attributeArray("alone", [&] {
            for (const AloneReport &alone : report.alone)
              json.object([&] {
                json.attribute("op", alone.op->getName().getStringRef());
                json.attribute("node", getNodeName(alone.op->getLoc()));
                json.attribute("strategy", orNull(alone.strategy));
                json.attribute("reason", alone.reason);
                json.attribute("detail", alone.detail);
              });
          });
        });
    });
  });
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Graphviz
//===----------------------------------------------------------------------===//

/// Text for a double-quoted Graphviz string.
static std::string escapeDot(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\')
      escaped += '\\';
    escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return escaped;
}

/// What `value` is, seen through groups and candidates: the compute op
/// that makes it, else the function argument or constant it is.
static Value getSource(Value value) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto group = dyn_cast<GroupOp>(arg.getOwner()->getParentOp());
      if (!group)
        return value;
      value = group.getInputs()[arg.getArgNumber()];
      continue;
    }
    auto result = cast<OpResult>(value);
    if (auto group = dyn_cast<GroupOp>(result.getOwner()))
      value = group.getYield().getValues()[result.getResultNumber()];
    else if (auto alternatives = dyn_cast<AlternativesOp>(result.getOwner()))
      value = alternatives.getCandidateYield(alternatives.getSelected())
                  .getValues()[result.getResultNumber()];
    else
      return value;
  }
}

static void printDot(const FunctionReport &report, func::FuncOp func,
                     raw_ostream &os) {
  os << "digraph \"fusion @" << escapeDot(report.name) << "\" {\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
        "fontname=Helvetica];\n";
  llvm::DenseMap<Operation *, std::string> ids;
  auto label = [](Operation *op) {
    std::string name = getNodeName(op->getLoc());
    StringRef type = op->getName().stripDialect();
    return escapeDot(name.empty() ? type.str() : name + "\n" + type.str());
  };
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  "onnx.name");
    os << "  in" << arg.getArgNumber() << " [shape=ellipse, label=\""
       << escapeDot(name ? name.getValue()
                         : "input " + std::to_string(arg.getArgNumber()))
       << "\"];\n";
  }
  for (const GroupReport &group : report.groups) {
    os << "  subgraph cluster_g" << group.id << " {\n    label=\"group "
       << group.id << ": " << group.kind;
    if (!group.strategy.empty())
      os << "\\n" << escapeDot(group.strategy);
    os << "\";\n    style=filled; fillcolor=\"#e8f0fe\";\n";
    for (Operation *op : group.ops) {
      std::string id = "n" + std::to_string(ids.size());
      ids[op] = id;
      os << "    " << id << " [label=\"" << label(op) << "\"];\n";
    }
    os << "  }\n";
  }
  for (const AloneReport &alone : report.alone) {
    std::string id = "n" + std::to_string(ids.size());
    ids[alone.op] = id;
    os << "  " << id << " [label=\"" << label(alone.op) << "\\n("
       << alone.reason << ")\", fillcolor=\""
       << (alone.view ? "#eeeeee" : "#fde8e8") << "\", tooltip=\""
       << escapeDot(alone.detail) << "\"];\n";
  }
  // Data flow from op to op, through groups and candidates; constants left
  // out.
  auto edgeFrom = [&](Value value) -> std::string {
    Value source = getSource(value);
    if (auto arg = dyn_cast<BlockArgument>(source))
      return "in" + std::to_string(arg.getArgNumber());
    auto id = ids.find(source.getDefiningOp());
    return id == ids.end() ? "" : id->second;
  };
  SmallVector<Operation *> ops;
  for (const GroupReport &group : report.groups)
    llvm::append_range(ops, group.ops);
  for (const AloneReport &alone : report.alone)
    ops.push_back(alone.op);
  for (Operation *op : ops) {
    SmallVector<std::string> sources;
    for (Value operand : op->getOperands())
      if (std::string from = edgeFrom(operand);
          !from.empty() && !llvm::is_contained(sources, from))
        sources.push_back(from);
    for (const std::string &from : sources)
      os << "  " << from << " -> " << ids.lookup(op) << ";\n";
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "onnx.name");
    auto check =
        func.getResultAttrOfType<IndexCheckAttr>(i, kIndexCheckAttrName);
    std::string label = check  ? "index check of " + check.getNode().str()
                        : name ? name.getValue().str()
                               : "output " + std::to_string(i);
    os << "  out" << i << " [shape=ellipse, label=\"" << escapeDot(label)
       << "\"];\n";
    if (std::string from = edgeFrom(value); !from.empty())
      os << "  " << from << " -> out" << i << ";\n";
  }
  os << "}\n";
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct FusionReportPass
    : public fuse::impl::FusionReportBase<FusionReportPass> {
  using FusionReportBase::FusionReportBase;

  void runOnOperation() override {
    raw_ostream &out = os ? *os : llvm::errs();
    std::vector<FunctionReport> reports;
    SmallVector<func::FuncOp> funcs;
    getOperation().walk([&](func::FuncOp func) {
      // Kernel functions (after outlining) are not the model's graph.
      if (func->hasAttr("fuse.kernel") || func.isExternal())
        return;
      reports.push_back(analyze(func, fused));
      funcs.push_back(func);
    });
    if (format == ReportFormat::json)
      printJson(reports, out);
    for (auto [report, func] : llvm::zip(reports, funcs)) {
      if (format == ReportFormat::text)
        printText(report, out);
      else if (format == ReportFormat::dot)
        printDot(report, func, out);
    }
    out.flush();
    markAllAnalysesPreserved();
  }

  /// Where the report goes; null: stderr.
  raw_ostream *os = nullptr;
};
} // namespace

std::unique_ptr<Pass>
fuse::createFusionReport(raw_ostream &os, const FusionReportOptions &options) {
  auto pass = std::make_unique<FusionReportPass>(options);
  pass->os = &os;
  return pass;
}
