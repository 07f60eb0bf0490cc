//===- Plan.cpp - Execution plans from host functions ---------------------===//

#include "fuse/Target/Plan.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <map>

using namespace mlir;
using namespace fuse;
using namespace fuse::target;
namespace art = fuse::artifact;

static uint64_t alignTo(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

uint32_t fuse::target::getDType(Type t) {
  if (t.isF32())
    return static_cast<uint32_t>(art::DType::Float32);
  if (t.isF64())
    return static_cast<uint32_t>(art::DType::Float64);
  if (t.isF16())
    return static_cast<uint32_t>(art::DType::Float16);
  if (t.isBF16())
    return static_cast<uint32_t>(art::DType::BFloat16);
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 1:
      return static_cast<uint32_t>(art::DType::Bool);
    case 8:
      return static_cast<uint32_t>(u ? art::DType::UInt8 : art::DType::Int8);
    case 16:
      return static_cast<uint32_t>(u ? art::DType::UInt16 : art::DType::Int16);
    case 32:
      return static_cast<uint32_t>(u ? art::DType::UInt32 : art::DType::Int32);
    case 64:
      return static_cast<uint32_t>(u ? art::DType::UInt64 : art::DType::Int64);
    }
  }
  return 0;
}

/// The descriptor of a statically shaped tensor value.
static FailureOr<TensorDesc> describe(Value value, StringRef name) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return emitError(value.getLoc())
           << "'" << name << "' needs a static shape to be compiled, got "
           << value.getType()
           << " (give the model's inputs shapes with --input-shape)";
  uint32_t dtype = getDType(type.getElementType());
  if (!dtype)
    return emitError(value.getLoc())
           << "'" << name << "' has element type " << type.getElementType()
           << ", which an artifact cannot hold";
  return TensorDesc{
      name.str(), dtype,
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end())};
}

static uint64_t byteSize(const TensorDesc &t) {
  uint64_t n = art::dtypeSize(t.dtype);
  for (int64_t d : t.dims)
    n *= static_cast<uint64_t>(d);
  return n;
}

FailureOr<uint64_t> WeightTable::add(ElementsAttr value) {
  auto it = offsets.find(value);
  if (it != offsets.end())
    return it->second;
  auto type = cast<ShapedType>(value.getType());
  Type element = type.getElementType();
  if (!getDType(element))
    return failure();
  // Raw little-endian bytes, one element after another (a splat is
  // expanded; bools take a byte each).
  std::vector<char> bytes;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return failure();
    ArrayRef<char> data = blob->getData();
    bytes.assign(data.begin(), data.end());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (element.isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        bytes.push_back(b ? 1 : 0);
    } else {
      ArrayRef<char> raw = dense.getRawData();
      size_t width = element.getIntOrFloatBitWidth() / 8;
      int64_t count = type.getNumElements();
      if (dense.isSplat()) {
        for (int64_t i = 0; i < count; ++i)
          bytes.insert(bytes.end(), raw.begin(), raw.begin() + width);
      } else {
        bytes.assign(raw.begin(), raw.end());
      }
    }
  } else {
    return failure();
  }
  uint64_t offset = alignTo(data.size(), kBufferAlignment);
  data.resize(offset, 0);
  data.insert(data.end(), bytes.begin(), bytes.end());
  offsets[value] = offset;
  return offset;
}

uint32_t KernelTable::add(StringRef name, uint32_t numArgs) {
  auto [it, inserted] =
      indices.try_emplace(name, static_cast<uint32_t>(table.size()));
  if (inserted) {
    KernelDesc kernel;
    kernel.name = name.str();
    kernel.numArgs = numArgs;
    table.push_back(kernel);
  }
  return it->second;
}

KernelDesc *KernelTable::lookup(StringRef name) {
  auto it = indices.find(name);
  return it == indices.end() ? nullptr : &table[it->second];
}

static std::string argName(func::FuncOp host, unsigned i) {
  if (auto name = host.getArgAttrOfType<StringAttr>(i, "onnx.name"))
    return name.str();
  return "input" + std::to_string(i);
}

static std::string resultName(func::FuncOp host, unsigned i) {
  if (auto name = host.getResultAttrOfType<StringAttr>(i, "onnx.name"))
    return name.str();
  return "output" + std::to_string(i);
}

LogicalResult fuse::target::getSignature(func::FuncOp host,
                                         std::vector<TensorDesc> &inputs,
                                         std::vector<TensorDesc> &outputs) {
  for (BlockArgument arg : host.getArguments()) {
    FailureOr<TensorDesc> d = describe(arg, argName(host, arg.getArgNumber()));
    if (failed(d))
      return failure();
    inputs.push_back(*d);
  }
  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    FailureOr<TensorDesc> d = describe(value, resultName(host, i));
    if (failed(d))
      return failure();
    outputs.push_back(*d);
  }
  return success();
}

namespace {
/// First-fit placement of intermediates in an arena whose start is taken
/// by the inputs and outputs (live the whole run).
class ArenaPlanner {
public:
  explicit ArenaPlanner(uint64_t reserved) : end(reserved), base(reserved) {}

  /// Places `bytes` for a value defined at launch `def` and last used at
  /// launch `lastUse`.
  uint64_t place(uint64_t bytes, size_t def, size_t lastUse) {
    // Values dead before `def` free their bytes. A value read at `def`
    // itself is still live: a kernel never writes over its own inputs.
    for (auto it = live.begin(); it != live.end();)
      it = it->second.lastUse < def ? live.erase(it) : std::next(it);
    uint64_t size = alignTo(bytes, kBufferAlignment);
    uint64_t candidate = base;
    for (auto &[offset, block] : live) {
      if (offset >= candidate + size)
        break;
      candidate =
          std::max(candidate, alignTo(offset + block.size, kBufferAlignment));
    }
    live[candidate] = Block{size, lastUse};
    end = std::max(end, candidate + size);
    return candidate;
  }
  uint64_t size() const { return end; }

private:
  struct Block {
    uint64_t size;
    size_t lastUse;
  };
  std::map<uint64_t, Block> live; // by offset
  uint64_t end, base;
};
} // namespace

FailureOr<PlanDesc> fuse::target::buildPlan(func::FuncOp host, StringRef name,
                                            WeightTable &weights,
                                            KernelTable &kernels) {
  PlanDesc plan;
  plan.name = name.str();
  llvm::DenseMap<Value, uint32_t> bufferOf;
  auto addBuffer = [&](Value v, const TensorDesc &d, art::BufferKind kind) {
    BufferDesc b;
    b.kind = kind;
    b.dtype = d.dtype;
    b.bytes = byteSize(d);
    b.dims = d.dims;
    plan.buffers.push_back(b);
    uint32_t index = plan.buffers.size() - 1;
    bufferOf[v] = index;
    return index;
  };

  // Inputs and outputs first: they hold the arena's first bytes.
  uint64_t reserved = 0;
  auto reserve = [&](BufferDesc &b) {
    b.offset = reserved;
    reserved = alignTo(reserved + b.bytes, kBufferAlignment);
  };
  for (BlockArgument arg : host.getArguments()) {
    FailureOr<TensorDesc> d = describe(arg, argName(host, arg.getArgNumber()));
    if (failed(d))
      return failure();
    uint32_t index = addBuffer(arg, *d, art::BufferKind::Input);
    reserve(plan.buffers[index]);
    plan.inputBuffers.push_back(index);
  }
  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  llvm::DenseSet<Value> returned(ret.getOperands().begin(),
                                 ret.getOperands().end());

  // Launches, in order; last uses for the intermediates.
  std::vector<func::CallOp> calls;
  llvm::DenseMap<Value, size_t> lastUse, defAt;
  for (Operation &op : host.getBody().front()) {
    if (auto constant = dyn_cast<ONNXConstantOp>(op)) {
      FailureOr<TensorDesc> d = describe(constant, "weight");
      FailureOr<uint64_t> offset = failed(d) ? FailureOr<uint64_t>(failure())
                                             : weights.add(constant.getValue());
      if (failed(offset))
        return constant.emitOpError("cannot be stored as a weight");
      uint32_t index = addBuffer(constant, *d, art::BufferKind::Weight);
      plan.buffers[index].offset = *offset;
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      size_t at = calls.size();
      calls.push_back(call);
      for (Value operand : call.getOperands())
        lastUse[operand] = at;
      for (Value result : call.getResults())
        defAt[result] = at;
      continue;
    }
    if (!isa<func::ReturnOp>(op))
      return op.emitOpError("cannot be part of an execution plan (only "
                            "weights and kernel calls can)");
  }

  // Results: outputs are reserved like inputs, intermediates placed by
  // liveness.
  for (func::CallOp call : calls)
    for (OpResult result : call.getResults()) {
      FailureOr<TensorDesc> d = describe(result, call.getCallee());
      if (failed(d))
        return failure();
      uint32_t index =
          addBuffer(result, *d,
                    returned.contains(result) ? art::BufferKind::Output
                                              : art::BufferKind::Intermediate);
      if (plan.buffers[index].kind == art::BufferKind::Output)
        reserve(plan.buffers[index]);
    }
  ArenaPlanner arena(reserved);
  for (func::CallOp call : calls)
    for (OpResult result : call.getResults()) {
      BufferDesc &b = plan.buffers[bufferOf[result]];
      if (b.kind != art::BufferKind::Intermediate)
        continue;
      size_t def = defAt[result];
      // A result nobody reads still needs its bytes during its launch.
      size_t last = lastUse.count(result) ? lastUse[result] : def;
      b.offset = arena.place(b.bytes, def, last);
    }
  plan.arenaBytes = std::max<uint64_t>(arena.size(), kBufferAlignment);

  for (func::CallOp call : calls) {
    LaunchDesc launch;
    for (Value v : llvm::concat<Value>(call.getOperands(), call.getResults()))
      launch.args.push_back(bufferOf.lookup(v));
    launch.kernel = kernels.add(call.getCallee(), launch.args.size());
    plan.launches.push_back(launch);
  }
  for (Value v : ret.getOperands())
    plan.outputBuffers.push_back(bufferOf.lookup(v));
  return plan;
}
