//===- Plan.cpp - Execution plans from host functions ---------------------===//

#include "fuse/Target/Plan.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXOps.h"
#include "fuse/Dialect/ONNX/IR/ONNXTraits.h"
#include "fuse/Transforms/LibraryCalls.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace fuse;
using namespace fuse::target;
namespace art = fuse::artifact;
using art::BufferDesc;
using art::LaunchDesc;
using art::PlanDesc;
using art::TensorDesc;

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
  artifact::ByteSpan piece;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return failure();
    ArrayRef<char> data = blob->getData();
    piece = {reinterpret_cast<const uint8_t *>(data.data()), data.size()};
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    std::vector<uint8_t> &bytes = owned.emplace_back();
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
    piece = {bytes.data(), bytes.size()};
  } else {
    return failure();
  }
  uint64_t offset = alignTo(size, kBufferAlignment);
  if (offset > size)
    spans.push_back({nullptr, offset - size});
  spans.push_back(piece);
  size = offset + piece.size;
  offsets[value] = offset;
  return offset;
}

uint32_t KernelTable::add(func::FuncOp kernel, uint32_t numArgs) {
  std::string body;
  llvm::raw_string_ostream os(body);
  // Local scope: values numbered from the kernel, not the module.
  kernel.print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  // The name is printed once, as the symbol: blank it.
  std::string name = "\"" + kernel.getSymName().str() + "\"";
  if (size_t at = body.find(name); at != std::string::npos)
    body.replace(at, name.size(), "\"\"");
  auto [it, inserted] =
      byBody.try_emplace(body, static_cast<uint32_t>(table.size()));
  if (inserted) {
    names.insert(kernel.getSymName());
    table.push_back({kernel.getSymName().str(), numArgs});
  }
  entryOf[kernel.getSymName()] = it->second;
  return it->second;
}

std::optional<uint32_t> KernelTable::lookup(StringRef name) const {
  auto it = entryOf.find(name);
  if (it == entryOf.end())
    return std::nullopt;
  return it->second;
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

IndexCheckAttr fuse::target::getIndexCheck(func::FuncOp host, unsigned result) {
  return host.getResultAttrOfType<IndexCheckAttr>(result, kIndexCheckAttrName);
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
    if (getIndexCheck(host, i))
      continue;
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

bool fuse::target::isLibraryKernel(func::FuncOp kernel) {
  Attribute strategy = kernel->getAttr(kStrategyAttrName);
  return isa_and_nonnull<CublasLtStrategyAttr, CudnnStrategyAttr>(strategy);
}

std::string fuse::target::describeCandidate(AlternativesOp alternatives,
                                            unsigned index) {
  // Every call of a candidate is a launch (none is a view).
  std::string label;
  for (auto call : alternatives.getCandidates()[index].getOps<func::CallOp>()) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    label += (label.empty() ? "" : " + ") +
             describeStrategy(kernel ? kernel->getAttr(kStrategyAttrName)
                                     : Attribute());
  }
  return label;
}

static uint64_t elementCount(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  uint64_t n = 1;
  for (int64_t d : tensor.getShape())
    n *= uint64_t(d);
  return n;
}

/// Floating-point operations of one onnx op (multiply-adds count two; an
/// elementwise op one per element, whatever it computes).
static uint64_t estimateFlops(Operation *op) {
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    // Two products: Q K^T (D per score) and P V (Dv per score).
    SmallVector<int64_t, 4> q = attention.getLogicalShape(AttentionOp::kQuery),
                            k = attention.getLogicalShape(AttentionOp::kKey),
                            o = attention.getLogicalShape(AttentionOp::kResult);
    uint64_t scores = uint64_t(q[0]) * q[2] * q[1] * k[1];
    return 2 * scores * uint64_t(q[3] + o[3]);
  }
  if (op->getNumResults() != 1 || op->getNumOperands() == 0)
    return 0;
  uint64_t out = elementCount(op->getResult(0).getType());
  uint64_t in = elementCount(op->getOperand(0).getType());
  if (isa<ONNXConvOp, ONNXNhwcConvOp>(op)) {
    // W is [M, C/group, kernel...] in either layout; a bias is operand 2.
    auto w = cast<RankedTensorType>(op->getOperand(1).getType());
    uint64_t perOutput = 1;
    for (int64_t d : w.getShape().drop_front())
      perOutput *= uint64_t(d);
    return 2 * out * perOutput + (op->getNumOperands() > 2 ? out : 0);
  }
  if (isa<ONNXMatMulOp, ONNXGemmOp>(op)) {
    auto a = cast<RankedTensorType>(op->getOperand(0).getType());
    uint64_t k = uint64_t(a.getShape().back());
    if (auto gemm = dyn_cast<ONNXGemmOp>(op); gemm && gemm.getTransA())
      k = uint64_t(a.getShape().front());
    return 2 * out * k + (op->getNumOperands() > 2 ? out : 0);
  }
  if (isPoolingOp(op))
    return std::max(in, out);
  if (isa<ONNXSoftmaxOp>(op))
    return 5 * in;
  if (isa<ONNXLayerNormalizationOp>(op))
    return 8 * in;
  if (isReductionOp(op))
    return in;
  if (isElementwiseOp(op))
    return out;
  return 0; // Data movement.
}

static uint64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return elementCount(type) *
         std::max<uint64_t>(1, tensor.getElementType().getIntOrFloatBitWidth() /
                                   8);
}

/// The metadata of one launch of `kernel`.
static art::GroupDesc describeKernel(func::FuncOp kernel) {
  art::GroupDesc group;
  group.strategy = describeStrategy(kernel->getAttr(kStrategyAttrName));
  kernel.walk([&](Operation *op) {
    // fuse.im2col is the copy half of a convolution rewritten as a matmul;
    // it keeps the Conv's location, so the profile names the Conv.
    // fuse.attention keeps the location of the chain it was raised from.
    if ((!isa<ONNXDialect>(op->getDialect()) && !isFuseComputeOp(op)) ||
        op->hasTrait<OpTrait::ConstantLike>())
      return;
    group.flops += estimateFlops(op);
    group.nodes.push_back(
        {getNodeName(op->getLoc()), op->getName().stripDialect().str()});
  });
  // Each distinct input read once, each output written once.
  for (Type type : kernel.getFunctionType().getInputs())
    group.bytes += bytesOf(type);
  for (Type type : kernel.getFunctionType().getResults())
    group.bytes += bytesOf(type);
  return group;
}

/// Scratch memory of a library call: cuBLASLt's recommended 32 MiB for
/// Hopper; for cuDNN room for its faster algorithms (FFT, Winograd), about
/// twice the data the convolution touches, capped.
static uint64_t workspaceBytes(const LibraryCall &call) {
  const uint64_t mib = 1 << 20;
  if (call.library == Library::CublasLt)
    return 32 * mib;
  const art::ConvParams &p = call.conv;
  uint64_t touched = 4 * uint64_t(p.n) *
                     uint64_t(p.c * p.h * p.w + p.k * p.outH * p.outW);
  return std::clamp<uint64_t>(alignTo(2 * touched, mib), 32 * mib, 512 * mib);
}

/// Where `kernel`'s result lies in its first argument's bytes, in bytes
/// from their start, when the kernel only relabels a part of them: one
/// Reshape, Flatten, Squeeze or Unsqueeze (row-major data does not move:
/// offset 0), or one Slice of consecutive elements, which it returns.
static std::optional<uint64_t> getViewOffset(func::FuncOp kernel) {
  Operation *view = nullptr;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (view || !isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp,
                     ONNXUnsqueezeOp, ONNXSliceOp>(op))
      return std::nullopt;
    view = &op;
  }
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  if (!view || kernel.getNumArguments() < 1 ||
      view->getOperand(0) != kernel.getArgument(0) ||
      ret.getNumOperands() != 1 || ret.getOperand(0) != view->getResult(0))
    return std::nullopt;
  auto slice = dyn_cast<ONNXSliceOp>(view);
  if (!slice)
    return 0;
  std::optional<int64_t> offset = slice.getContiguousOffset();
  auto type = cast<RankedTensorType>(slice.getData().getType());
  uint32_t dtype = getDType(type.getElementType());
  if (!offset || !dtype)
    return std::nullopt;
  return static_cast<uint64_t>(*offset) * art::dtypeSize(dtype);
}

/// Whether `value` is read by nothing but the graph's return and view
/// kernels whose results are likewise: no launch reads it, so its bytes
/// need no alignment and may be a graph input's.
static bool isOnlyReturned(Value value, SymbolTable &symbols) {
  for (Operation *user : value.getUsers()) {
    if (isa<func::ReturnOp>(user))
      continue;
    auto call = dyn_cast<func::CallOp>(user);
    if (call && !isa<func::FuncOp>(call->getParentOp()))
      return false; // In a candidate: a launch.
    auto kernel =
        call ? symbols.lookup<func::FuncOp>(call.getCallee()) : func::FuncOp();
    if (!kernel || call.getOperand(0) != value ||
        llvm::count(call.getOperands(), value) != 1 || !getViewOffset(kernel) ||
        !isOnlyReturned(call.getResult(0), symbols))
      return false;
  }
  return true;
}

namespace {
/// What a call of the plan launches.
struct PlannedCall {
  func::CallOp call;
  func::FuncOp kernel;
  std::optional<LibraryCall> library;
};
} // namespace

/// The library call a kernel function makes, checked against its body: the
/// call must compute every op of the kernel and return its result.
static FailureOr<LibraryCall> matchKernelCall(func::FuncOp kernel) {
  Operation *contraction = nullptr;
  SmallVector<Operation *> computeOps;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    computeOps.push_back(&op);
    if (isContractionOp(&op) && !contraction)
      contraction = &op;
  }
  Attribute strategy = kernel->getAttr(kStrategyAttrName);
  Precision precision = Precision::fp32;
  if (auto lt = dyn_cast<CublasLtStrategyAttr>(strategy))
    precision = lt.getPrecision();
  else if (auto dnn = dyn_cast<CudnnStrategyAttr>(strategy))
    precision = dnn.getPrecision();
  LibraryOptions options;
  options.depthwiseConv = true; // The strategy pass decided already.
  options.tf32 = precision == Precision::tf32;
  std::optional<LibraryCall> call =
      contraction ? matchLibraryCall(contraction, options) : std::nullopt;
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  if (!call || ret.getNumOperands() != 1 || call->result != ret.getOperand(0) ||
      call->ops.size() != computeOps.size())
    return kernel.emitOpError("has strategy ")
           << strategy << " but its body is not one library call";
  if (getLibraryPrecision(*call) != precision)
    return kernel.emitOpError("has strategy ")
           << strategy << " but its body's call multiplies in "
           << stringifyPrecision(getLibraryPrecision(*call));
  if (auto dnn = dyn_cast<CudnnStrategyAttr>(strategy);
      dnn && dnn.getChannelsLast() !=
                 (call->conv.layout == uint32_t(art::ConvLayout::Nhwc)))
    return kernel.emitOpError("has strategy ")
           << strategy << " but its body's convolution is "
           << (dnn.getChannelsLast() ? "NCHW" : "NHWC");
  return *call;
}

FailureOr<PlanDesc> fuse::target::buildPlan(func::FuncOp host, StringRef name,
                                            WeightTable &weights,
                                            KernelTable &kernels,
                                            art::MetadataSection &metadata) {
  PlanDesc plan;
  plan.name = name.str();
  // One table: a lookup without it scans the module's kernels.
  SymbolTable symbols(SymbolTable::getNearestSymbolTable(host));
  llvm::DenseMap<Value, uint32_t> bufferOf;
  auto addBuffer = [&](Value v, const TensorDesc &d, uint32_t kind) {
    BufferDesc b;
    b.kind = kind;
    b.dtype = d.dtype;
    b.bytes = byteSize(d);
    b.dims = d.dims;
    plan.buffers.push_back(b);
    uint32_t index = plan.buffers.size() - 1;
    if (v)
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
    uint32_t index = addBuffer(arg, *d, uint32_t(art::BufferKind::Input));
    reserve(plan.buffers[index]);
    plan.inputBuffers.push_back(index);
  }
  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  // Outputs of the model, and index checks (results that are no output).
  llvm::DenseSet<Value> returned, checked;
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    (getIndexCheck(host, i) ? checked : returned).insert(value);

  // Launches, in order; last uses for the intermediates. A view of a value
  // a launch computes (a Reshape: the same bytes under other dims; a Slice
  // of consecutive elements: some of them) is no launch: its result aliases
  // the bytes of the value it views (its storage), which then live until
  // the view's last use too, or to the end when the view is an output.
  std::vector<PlannedCall> calls;
  llvm::DenseMap<Value, size_t> lastUse, defAt;
  llvm::DenseMap<Value, Value> storageOf;
  llvm::DenseMap<Value, uint64_t> viewOffset; // in its storage's bytes
  SmallVector<Value> views; // In plan order, for deterministic buffers.
  auto storage = [&](Value v) { return storageOf.lookup(v) ? storageOf[v] : v; };
  // A candidate's result is the fuse.alternatives' result it yields: one
  // buffer for all candidates, live from the first candidate's launches to
  // the last's, at least.
  llvm::DenseMap<Value, Value> resultOf;
  llvm::DenseMap<Value, size_t> choiceEnd;
  auto canonical = [&](Value v) { return resultOf.lookup(v) ? resultOf[v] : v; };
  struct PlannedChoice {
    AlternativesOp op;
    SmallVector<std::pair<size_t, size_t>> candidates; // first call, count
  };
  std::vector<PlannedChoice> choices;

  std::function<LogicalResult(Operation &, bool)> planOp =
      [&](Operation &op, bool inCandidate) -> LogicalResult {
    if (auto constant = dyn_cast<ONNXConstantOp>(op)) {
      FailureOr<TensorDesc> d = describe(constant, "weight");
      FailureOr<uint64_t> offset = failed(d) ? FailureOr<uint64_t>(failure())
                                             : weights.add(constant.getValue());
      if (failed(offset))
        return constant.emitOpError("cannot be stored as a weight");
      uint32_t index =
          addBuffer(constant, *d, uint32_t(art::BufferKind::Weight));
      plan.buffers[index].offset = *offset;
      return success();
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!kernel)
        return call.emitOpError("calls @")
               << call.getCallee() << ", which is not a kernel function";
      // (A candidate's launches are all real: the choice counts them.) A
      // view that a launch reads starts where a buffer may: aligned.
      std::optional<uint64_t> offset =
          inCandidate ? std::nullopt : getViewOffset(kernel);
      if (offset && defAt.count(storage(call.getOperand(0))) &&
          !checked.contains(call.getResult(0))) {
        uint64_t at = viewOffset.lookup(call.getOperand(0)) + *offset;
        if (at % kBufferAlignment == 0 ||
            isOnlyReturned(call.getResult(0), symbols)) {
          storageOf[call.getResult(0)] = storage(call.getOperand(0));
          viewOffset[call.getResult(0)] = at;
          views.push_back(call.getResult(0));
          return success();
        }
      }
      Attribute strategy = kernel->getAttr(kStrategyAttrName);
      if (!isa_and_nonnull<KernelStrategyAttr, CublasLtStrategyAttr,
                           CudnnStrategyAttr>(strategy))
        return kernel.emitOpError("has no strategy (run "
                                  "fuse-select-strategies before outlining)");
      PlannedCall planned{call, kernel, std::nullopt};
      if (isLibraryKernel(kernel)) {
        FailureOr<LibraryCall> library = matchKernelCall(kernel);
        if (failed(library))
          return failure();
        planned.library = *library;
      }
      size_t at = calls.size();
      calls.push_back(planned);
      for (Value operand : call.getOperands())
        lastUse[storage(operand)] = at;
      for (Value result : call.getResults())
        defAt[result] = at;
      return success();
    }
    if (auto alternatives = dyn_cast<AlternativesOp>(op)) {
      if (inCandidate)
        return op.emitOpError("cannot be nested in a candidate");
      PlannedChoice choice{alternatives, {}};
      for (auto [i, region] : llvm::enumerate(alternatives.getCandidates())) {
        size_t first = calls.size();
        for (Operation &inner : region.front().without_terminator())
          if (failed(planOp(inner, /*inCandidate=*/true)))
            return failure();
        for (auto [value, result] :
             llvm::zip(alternatives.getCandidateYield(i).getValues(),
                       alternatives.getResults())) {
          auto defining = value.getDefiningOp<func::CallOp>();
          if (!defining || defining->getParentRegion() != &region ||
              resultOf.count(value))
            return alternatives.emitOpError("candidate ")
                   << i << " must yield results of its own kernel launches";
          resultOf[value] = result;
        }
        if (calls.size() == first)
          return alternatives.emitOpError("candidate ")
                 << i << " launches nothing";
        choice.candidates.push_back({first, calls.size() - first});
      }
      // Defined where the first candidate starts (so a view of it is a
      // view, not a copy), live until the last candidate ends.
      for (Value result : alternatives.getResults()) {
        defAt[result] = choice.candidates.front().first;
        choiceEnd[result] = calls.size() - 1;
      }
      choices.push_back(choice);
      return success();
    }
    if (!isa<func::ReturnOp>(op))
      return op.emitOpError("cannot be part of an execution plan (only "
                            "weights, kernel calls and their alternatives "
                            "can)");
    return success();
  };
  for (Operation &op : host.getBody().front())
    if (failed(planOp(op, /*inCandidate=*/false)))
      return failure();
  for (Value v : ret.getOperands()) {
    // An output is read after the run: its storage lives to the end.
    if (storageOf.count(v) && !calls.empty())
      lastUse[storageOf[v]] = calls.size() - 1;
    if (checked.contains(v) && (!defAt.count(v) || returned.contains(v)))
      return emitError(v.getLoc(), "an index check must be computed by a "
                                   "kernel of the plan, and be no output of "
                                   "the model (compile with "
                                   "--no-index-checks)");
  }

  // Results: outputs are reserved like inputs, intermediates placed by
  // liveness.
  SmallVector<uint32_t> checkBuffers;
  for (PlannedCall &planned : calls)
    for (OpResult result : planned.call.getResults()) {
      Value value = canonical(result);
      if (auto it = bufferOf.find(value); it != bufferOf.end()) {
        bufferOf[result] = it->second; // Another candidate's.
        continue;
      }
      FailureOr<TensorDesc> d = describe(result, planned.call.getCallee());
      if (failed(d))
        return failure();
      art::BufferKind kind = returned.contains(value) ? art::BufferKind::Output
                             : checked.contains(value)
                                 ? art::BufferKind::Check
                                 : art::BufferKind::Intermediate;
      uint32_t index = addBuffer(value, *d, uint32_t(kind));
      bufferOf[result] = index;
      // Outputs and checks are read after the run: never shared.
      if (kind == art::BufferKind::Output)
        reserve(plan.buffers[index]);
      else if (kind == art::BufferKind::Check)
        checkBuffers.push_back(index);
    }
  // The checks side by side: the runtime reads them in one copy.
  for (uint32_t index : checkBuffers)
    reserve(plan.buffers[index]);
  ArenaPlanner arena(reserved);
  std::vector<std::pair<uint64_t, uint64_t>> workspaces(calls.size(), {0, 0});
  llvm::DenseSet<Value> placed;
  for (size_t at = 0; at < calls.size(); ++at) {
    PlannedCall &planned = calls[at];
    for (OpResult result : planned.call.getResults()) {
      Value value = canonical(result);
      BufferDesc &b = plan.buffers[bufferOf[result]];
      if (b.kind != uint32_t(art::BufferKind::Intermediate) ||
          !placed.insert(value).second)
        continue;
      // A result nobody reads still needs its bytes during its launch, and
      // a choice's result until its last candidate has run.
      size_t last = lastUse.count(value) ? lastUse[value] : at;
      if (auto it = choiceEnd.find(value); it != choiceEnd.end())
        last = std::max(last, it->second);
      b.offset = arena.place(b.bytes, at, last);
    }
    // A library's workspace lives during its launch only, beside the
    // launch's own buffers.
    if (planned.library) {
      uint64_t bytes = workspaceBytes(*planned.library);
      workspaces[at] = {arena.place(bytes, at, at), bytes};
    }
  }
  // Views: their own dims, their storage's bytes.
  for (Value view : views) {
    FailureOr<TensorDesc> d = describe(view, "view");
    if (failed(d))
      return failure();
    art::BufferKind kind = returned.contains(view)
                               ? art::BufferKind::Output
                               : art::BufferKind::Intermediate;
    uint32_t index = addBuffer(view, *d, uint32_t(kind));
    plan.buffers[index].offset =
        plan.buffers[bufferOf[storageOf[view]]].offset + viewOffset[view];
  }
  plan.arenaBytes = std::max<uint64_t>(arena.size(), kBufferAlignment);

  for (size_t at = 0; at < calls.size(); ++at) {
    PlannedCall &planned = calls[at];
    func::CallOp call = planned.call;
    LaunchDesc launch;
    launch.group = static_cast<uint32_t>(metadata.groups.size());
    metadata.groups.push_back(describeKernel(planned.kernel));
    Attribute strategy = planned.kernel->getAttr(kStrategyAttrName);
    if (auto kernel = dyn_cast<KernelStrategyAttr>(strategy)) {
      for (Value v : llvm::concat<Value>(call.getOperands(), call.getResults()))
        launch.args.push_back(bufferOf.lookup(v));
      launch.kind = uint32_t(art::LaunchKind::Kernel);
      launch.kernel = kernels.add(planned.kernel, launch.args.size());
      launch.grid[0] = static_cast<uint32_t>(kernel.getGrid());
      launch.block[0] = static_cast<uint32_t>(kernel.getBlock());
      plan.launches.push_back(launch);
      continue;
    }
    // A library call: its operands are kernel parameters, i.e. the call's
    // operands at the same positions.
    LibraryCall &library = *planned.library;
    for (Value operand : library.operands) {
      if (!operand) {
        // cuDNN's fused call needs a bias; the conv has none: zeros, in
        // the call's type.
        MLIRContext *ctx = call.getContext();
        uint32_t dtype = library.conv.dataType;
        Type element = dtype == uint32_t(art::DType::Float16)
                           ? Type(Float16Type::get(ctx))
                       : dtype == uint32_t(art::DType::BFloat16)
                           ? Type(BFloat16Type::get(ctx))
                           : Type(Float32Type::get(ctx));
        auto type = RankedTensorType::get({library.conv.k}, element);
        auto zeros = DenseElementsAttr::get(
            type, FloatAttr::get(element, 0.0).getValue());
        FailureOr<uint64_t> offset = weights.add(zeros);
        if (failed(offset))
          return call.emitOpError("cannot store a zero bias");
        TensorDesc d{"bias", dtype, {library.conv.k}};
        uint32_t index =
            addBuffer(Value(), d, uint32_t(art::BufferKind::Weight));
        plan.buffers[index].offset = *offset;
        launch.args.push_back(index);
        continue;
      }
      auto arg = cast<BlockArgument>(operand);
      launch.args.push_back(
          bufferOf.lookup(call.getOperand(arg.getArgNumber())));
    }
    launch.args.push_back(bufferOf.lookup(call.getResult(0)));
    launch.kernel = art::kNone;
    for (int i = 0; i < 3; ++i)
      launch.grid[i] = launch.block[i] = 0;
    std::tie(launch.workspaceOffset, launch.workspaceBytes) = workspaces[at];
    if (library.library == Library::CublasLt) {
      launch.kind = uint32_t(art::LaunchKind::Matmul);
      launch.params = art::encode(library.matmul);
    } else {
      launch.kind = uint32_t(art::LaunchKind::Conv);
      launch.params = art::encode(library.conv);
    }
    plan.launches.push_back(launch);
  }
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    IndexCheckAttr check = getIndexCheck(host, i);
    if (!check) {
      plan.outputBuffers.push_back(bufferOf.lookup(v));
      continue;
    }
    plan.checks.push_back({bufferOf.lookup(v), check.getNode().str(),
                           check.getOp().str(), check.getRange().str()});
  }

  for (PlannedChoice &choice : choices) {
    art::ChoiceDesc desc;
    desc.key = choice.op.getKey().str();
    desc.selected = static_cast<uint32_t>(choice.op.getSelected());
    for (auto [i, range] : llvm::enumerate(choice.candidates)) {
      art::CandidateDesc candidate;
      candidate.firstLaunch = static_cast<uint32_t>(range.first);
      candidate.numLaunches = static_cast<uint32_t>(range.second);
      candidate.label = describeCandidate(choice.op, i);
      desc.candidates.push_back(candidate);
    }
    plan.choices.push_back(desc);
  }
  return plan;
}
