//===- Artifact.h - The fuse artifact (.fbin) format ------------*- C++ -*-===//
//
// The schema of a compiled model, shared by the compiler (lib/Target writes
// it) and the runtime (reads it). It belongs to the runtime: the compiler
// includes this header, never the other way round. Plain C++17, no LLVM.
// docs/artifact-format.md describes the format in prose.
//
// All integers are little-endian. A file is:
//
//   Header            64 bytes, see FileHeader
//   SectionEntry[n]   n = header.numSections
//   section payloads  each at its entry's offset (64-byte aligned)
//
// The checksum (FNV-1a, 64-bit) covers every byte after the header, so a
// truncated or corrupted file is rejected before anything is parsed.
//
// The Plan, Metadata and Build sections and the parameter blobs of library
// launches are records (the structs below). Their encoding is written down
// once, in the transfer() functions: the writer runs them with an Encoder,
// the reader with a Decoder, so the two cannot disagree about the layout.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ARTIFACT_H
#define FUSE_RUNTIME_ARTIFACT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace fuse {
namespace artifact {

constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'B', 'I', 'N', '\0'};
constexpr uint32_t kFormatVersion = 8;
/// The oldest format the reader still takes: version 3 had one KernelImage
/// and `SectionEntry::variant` 0 (then `reserved`); version 4 had no Build
/// section; version 5's library parameters had no element types (every
/// operand float32, no TF32); version 6's convolutions were all NCHW;
/// version 7's plans had no index checks.
constexpr uint32_t kOldestFormatVersion = 3;
/// Alignment of every section payload in the file and of every buffer
/// offset in an arena or in the weights section.
constexpr uint64_t kAlignment = 64;
/// The largest tensor rank (the C API's FUSE_MAX_RANK).
constexpr uint32_t kMaxRank = 8;

enum class Target : uint32_t {
  /// x86-64 host code: the kernel image is an ELF shared object whose
  /// kernels are `void <name>_packed(void **args)`. There may be one image
  /// per x86-64 level (SectionEntry::variant); the runtime loads the
  /// highest one its host has.
  Cpu = 1,
  /// NVIDIA GPU: the kernel image is a cubin for `FileHeader::arch` and the
  /// PTX section holds the same kernels as PTX, for the driver to JIT on
  /// other architectures. Kernels take one device pointer per argument.
  Cuda = 2,
};

struct FileHeader {
  char magic[8];           // kMagic
  uint32_t formatVersion;  // kFormatVersion
  uint32_t target;         // Target
  uint64_t fileSize;       // total size of the file in bytes
  uint64_t checksum;       // FNV-1a 64 of bytes [64, fileSize)
  uint32_t numSections;
  uint32_t reserved;       // 0
  char arch[24];           // NUL-terminated: "sm_90", "x86-64"
};
static_assert(sizeof(FileHeader) == 64, "header is 64 bytes");

enum class SectionKind : uint32_t {
  /// The model signature and the execution plans (PlanSection).
  Plan = 1,
  /// Kernel code: cubin (Cuda) or ELF shared object (Cpu); a Cpu artifact
  /// may have several, one per x86-64 level (SectionEntry::variant).
  KernelImage = 2,
  /// PTX text of the kernels (Cuda only; optional).
  KernelPtx = 3,
  /// Weight bytes; BufferDesc::offset of a weight indexes into this section.
  Weights = 4,
  /// What each launch computes (MetadataSection; optional).
  Metadata = 5,
  /// The compiler that wrote the file and its options (BuildSection;
  /// optional, version 5).
  Build = 6,
};
constexpr uint32_t kNumSectionKinds = 6;

struct SectionEntry {
  uint32_t kind;      // SectionKind
  uint32_t variant;   // Cpu KernelImage: its x86-64 level (CpuLevel); else 0
  uint64_t offset;    // from the start of the file, kAlignment-aligned
  uint64_t size;      // bytes
};
static_assert(sizeof(SectionEntry) == 24, "section entry is 24 bytes");

/// The x86-64 microarchitecture levels of the psABI, as numbered in a Cpu
/// KernelImage's SectionEntry::variant.
enum class CpuLevel : uint32_t {
  X86_64 = 1,    // SSE2
  X86_64_V2 = 2, // SSE4.2, POPCNT, SSSE3
  X86_64_V3 = 3, // AVX2, FMA, BMI2
  X86_64_V4 = 4, // AVX-512 F/BW/DQ/VL/CD
};

/// The level's name ("x86-64-v3"), or nullptr for a number that is not one.
inline const char *cpuLevelName(uint32_t level) {
  switch (level) {
  case 1:
    return "x86-64";
  case 2:
    return "x86-64-v2";
  case 3:
    return "x86-64-v3";
  case 4:
    return "x86-64-v4";
  }
  return nullptr;
}

/// The number of the level named `name`, or 0 for a name that is not one.
inline uint32_t cpuLevelNumber(const std::string &name) {
  for (uint32_t level = 1; level <= 4; ++level)
    if (name == cpuLevelName(level))
      return level;
  return 0;
}

/// Element types, numbered as ONNX's TensorProto.DataType.
enum class DType : uint32_t {
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

/// Bytes per element, or 0 for a value that is not a DType.
inline uint32_t dtypeSize(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
  case DType::Int32:
  case DType::UInt32:
    return 4;
  case DType::UInt8:
  case DType::Int8:
  case DType::Bool:
    return 1;
  case DType::UInt16:
  case DType::Int16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int64:
  case DType::UInt64:
  case DType::Float64:
    return 8;
  }
  return 0;
}

/// The dtype's name as in numpy ("float32", "int64", "bool", ...), or
/// nullptr for a value that is not a DType.
inline const char *dtypeName(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
    return "float32";
  case DType::UInt8:
    return "uint8";
  case DType::Int8:
    return "int8";
  case DType::UInt16:
    return "uint16";
  case DType::Int16:
    return "int16";
  case DType::Int32:
    return "int32";
  case DType::Int64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::Float16:
    return "float16";
  case DType::Float64:
    return "float64";
  case DType::UInt32:
    return "uint32";
  case DType::UInt64:
    return "uint64";
  case DType::BFloat16:
    return "bfloat16";
  }
  return nullptr;
}

enum class BufferKind : uint32_t {
  /// A graph input; lives in the arena at `offset`.
  Input = 0,
  /// A graph output; lives in the arena at `offset`.
  Output = 1,
  /// A weight; its bytes are at `offset` in the Weights section and are
  /// placed in device (or host) memory once, at load.
  Weight = 2,
  /// An intermediate value; lives in the arena at `offset`. Intermediates
  /// whose lifetimes do not overlap may share bytes.
  Intermediate = 3,
  /// An index check (format 8): a scalar float32 in the arena at `offset`,
  /// written by a launch of the plan and read by the runtime after each
  /// run (CheckDesc).
  Check = 4,
};

/// How a launch computes: a kernel of the artifact's own code, or a call
/// into a vendor library whose arguments are described by its params.
enum class LaunchKind : uint32_t {
  /// A kernel of the KernelImage (generated by fuse).
  Kernel = 1,
  /// cuBLASLt matmul (Cuda only); params are MatmulParams.
  Matmul = 2,
  /// cuDNN convolution (Cuda only); params are ConvParams.
  Conv = 3,
};
constexpr uint32_t kMaxLaunchKind = 3;

/// "kernel", "cublaslt", "cudnn", or nullptr for a value that is not a
/// LaunchKind.
inline const char *launchKindName(uint32_t kind) {
  switch (static_cast<LaunchKind>(kind)) {
  case LaunchKind::Kernel:
    return "kernel";
  case LaunchKind::Matmul:
    return "cublaslt";
  case LaunchKind::Conv:
    return "cudnn";
  }
  return nullptr;
}

/// `LaunchDesc::kernel` of a library launch; `LaunchDesc::group` of a launch
/// that no metadata describes.
constexpr uint32_t kNone = 0xffffffffu;

/// 64-bit FNV-1a, the checksum of the file body.
inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t hash = 0xcbf29ce484222325ull) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

/// A graph input or output of the model's signature.
struct TensorDesc {
  std::string name; // unique among the inputs, and among the outputs
  uint32_t dtype = 0;
  std::vector<int64_t> dims; // at most kMaxRank; rank 0 is a scalar
};

/// An entry of the kernel table, shared by all plans.
struct KernelDesc {
  std::string name; // the symbol in the kernel image
  uint32_t numArgs = 0;
};

struct BufferDesc {
  uint32_t kind = 0; // BufferKind
  uint32_t dtype = 0;
  /// In the plan's arena, or in the Weights section for a weight.
  uint64_t offset = 0;
  uint64_t bytes = 0; // exactly product(dims) x dtype size
  std::vector<int64_t> dims;
};

struct LaunchDesc {
  uint32_t kind = static_cast<uint32_t>(LaunchKind::Kernel); // LaunchKind
  /// Index into the kernel table (Kernel launches), else kNone.
  uint32_t kernel = kNone;
  /// CUDA grid, block and dynamic shared memory of a Kernel launch; each
  /// grid and block dim >= 1 (the Cpu target writes 1s). 0s for a library.
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  /// Index into the Metadata section's groups, or kNone.
  uint32_t group = kNone;
  /// Scratch memory of a library call, in the plan's arena; (0, 0) for none.
  uint64_t workspaceOffset = 0;
  uint64_t workspaceBytes = 0;
  /// Buffer indices: the launch's inputs, then its outputs (Kernel: in the
  /// kernel's parameter order; libraries: the order their params define).
  std::vector<uint32_t> args;
  /// Library launches: the encoded MatmulParams or ConvParams. Empty for a
  /// Kernel launch.
  std::vector<uint8_t> params;
};

/// One way of computing what a choice computes: a run of consecutive
/// launches of the plan.
struct CandidateDesc {
  /// How it runs, for people and for timing caches: the strategies of its
  /// launches ("cublaslt 1x128x768x768 bias + kernel flat(1)").
  std::string label;
  uint32_t firstLaunch = 0;
  uint32_t numLaunches = 0; // >= 1
  /// Its median time when a tuner measured it, in milliseconds; 0 when not
  /// measured.
  float timeMs = 0;
};

/// A group the compiler gave several candidates: they read the same
/// buffers and write the same results, and only the selected one runs.
/// Launches of a plan that no choice covers always run.
struct ChoiceDesc {
  /// The group's signature (its ops, attributes and types; not its
  /// weights' values): equal keys have equal candidates, so a timing cache
  /// is keyed by it.
  std::string key;
  uint32_t selected = 0; // index into candidates
  /// 0: the compiler's heuristic picked `selected`; 1: a tuner did, by
  /// measuring.
  uint32_t tuned = 0;
  /// At least two, their launches consecutive and in order: candidate i + 1
  /// starts where candidate i ends.
  std::vector<CandidateDesc> candidates;
};

/// A run-time check that one op's indices were in range (format 8). Its
/// buffer holds, after a run, the largest index of the op that was out of
/// range, clipped to [-2^24, 2^24] (kExactCheckLimit), or -inf when none
/// was; the runtime fails the run with the node's name.
/// The largest magnitude an index check holds exactly; larger indices
/// read as this (or its negation).
constexpr float kExactCheckLimit = 16777216.0f; // 2^24

/// A plan's check buffers sit side by side, so that one copy reads them:
/// each starts at most this many bytes after the one before (the compiler
/// aligns buffers to 256 bytes).
constexpr uint64_t kMaxCheckStride = 256;

struct CheckDesc {
  uint32_t buffer = 0; // a Check buffer of the plan: float32, rank 0
  std::string node;    // the ONNX node's name
  std::string opType;  // "Gather", "GatherElements" or "GatherND"
  /// Which dims the indices address, for the message: "axis 0 of size 5".
  std::string range;
};

struct PlanDesc {
  std::string name; // "main" first; "reference": one kernel per op
  uint64_t arenaBytes = 0;
  std::vector<BufferDesc> buffers;
  std::vector<uint32_t> inputBuffers;  // one per signature input
  std::vector<uint32_t> outputBuffers; // one per signature output
  std::vector<LaunchDesc> launches;
  /// In launch order, not overlapping.
  std::vector<ChoiceDesc> choices;
  /// Format 8: the index checks, read after each run.
  std::vector<CheckDesc> checks;
};

/// The Plan section.
struct PlanSection {
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<KernelDesc> kernels;
  std::vector<PlanDesc> plans;
};

/// An ONNX node a group was made of.
struct NodeDesc {
  std::string name;   // the node's name (or its first output's)
  std::string opType; // "Conv", "Relu", ...
};

/// What one launch computes, for profiles and --info.
struct GroupDesc {
  /// How it runs, for people: "cudnn conv+bias+relu", "kernel rows(32)".
  std::string strategy;
  /// Floating-point operations, and the fewest bytes the launch must move
  /// (each input read once, each output written once).
  uint64_t flops = 0;
  uint64_t bytes = 0;
  std::vector<NodeDesc> nodes;
};

/// The Metadata section.
struct MetadataSection {
  std::vector<GroupDesc> groups;
};

/// The Build section: how the file was made, for people (fuse-run --info)
/// and for compiling it again.
struct BuildSection {
  /// "fuse 0.1.0, commit a8ef934, LLVM 22.1.2".
  std::string compiler;
  /// The options the compile was given, as fuse-compile's flags
  /// ("--target=cpu --input-shape=x=1x3x224x224"); the model's and the
  /// output's file names are left out: they do not change the file.
  std::string flags;
};

/// cuBLASLt matmul, in fuse's (row-major) terms, for each of `batch`
/// matrices:
///
///   D[M,N] = act(alpha * op(A) op(B) + beta * C + bias)
///
/// op(A) is M x K: A is stored M x K (K x M with transA), rows `lda`
/// elements apart; op(B) is K x N: B is stored K x N (N x K with transB),
/// rows `ldb` apart. Matrix i of a batch starts strideA (strideB) elements
/// after matrix i - 1; 0 repeats one matrix. C (the residual) and D are
/// contiguous [batch, M, N]; bias is [N].
///
/// Types (format 6; version 5 files are all float32, no TF32): A and B are
/// `inputType` (Float32, Float16 or BFloat16), C, D and the bias
/// `outputType` (Float32, or inputType); the sums are float32 always, on
/// tensor cores for half inputs, and with `tf32` (float32 inputs only) on
/// TF32 tensor cores, each input rounded to 10 mantissa bits.
///
/// args: A, B, bias (if the epilogue has one), C (if hasResidual), D.
enum class MatmulEpilogue : uint32_t { None = 0, Bias = 1, Relu = 2,
                                       BiasRelu = 3 };
struct MatmulParams {
  uint32_t transA = 0, transB = 0;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0;
  int64_t strideA = 0, strideB = 0;
  float alpha = 1, beta = 0;
  uint32_t epilogue = 0; // MatmulEpilogue
  uint32_t hasResidual = 0;
  uint32_t inputType = 1;  // DType::Float32
  uint32_t outputType = 1; // DType::Float32
  uint32_t tf32 = 0;
};

/// cuDNN 2-D convolution:
///
///   Y = act(alpha * conv(X, W) + Z + bias)
///
/// NCHW: X is [n, c, h, w], W [k, c / groups, r, s], Y [n, k, outH, outW];
/// NHWC (format 7, one group): X is [n, h, w, c], W [k, r, s, c], Y [n,
/// outH, outW, k]. Z (the residual) is Y's shape, bias is [k]. Pads are
/// symmetric.
///
/// Types (format 6; version 5 files are all float32, no TF32): every
/// operand is `dataType` (Float32, Float16 or BFloat16); float32 sums, on
/// tensor cores for half data, and with `tf32` (float32 only) on TF32
/// tensor cores; float32 without it: FMA math.
///
/// args: X, W, bias (if hasBias), Z (if hasResidual), Y.
enum class ConvActivation : uint32_t { Identity = 0, Relu = 1 };
enum class ConvLayout : uint32_t { Nchw = 0, Nhwc = 1 };
struct ConvParams {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t k = 0, r = 0, s = 0;
  int64_t outH = 0, outW = 0;
  int64_t padH = 0, padW = 0, strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1, groups = 1;
  float alpha = 1;
  uint32_t hasBias = 0, hasResidual = 0;
  uint32_t activation = 0; // ConvActivation
  uint32_t dataType = 1;   // DType::Float32
  uint32_t tf32 = 0;
  uint32_t layout = 0; // ConvLayout
};

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//
//
// Scalars are little-endian u32, u64, i64 or f32; a string is a u32 byte
// length and that many bytes (UTF-8, no NUL); a list is a u32 count and
// that many records. An IO type provides, for a field `v`:
//
//   u32(v, what)  u64(v, what)  i64(v, what)  f32(v, what)  str(v, what)
//   dims(v)                     u32 rank, i64 dims[rank]
//   list(v, what, minBytes, fn) u32 count, then fn(element) per element
//   fixed(v, n, what)           n u32s, n given by the caller
//   bytes(v, what)              u32 length, that many bytes
//   context(fn)                 names what is read now, for errors
//
// minBytes is the smallest encoding of one element, so that a reader can
// reject a count that cannot fit before it allocates for it.

constexpr uint64_t kMinTensorBytes = 4 + 4 + 4;       // name, dtype, rank
constexpr uint64_t kMinKernelBytes = 4 + 4;           // name, numArgs
constexpr uint64_t kMinBufferBytes = 4 + 4 + 8 + 8 + 4;
constexpr uint64_t kMinLaunchBytes = 4 * 10 + 8 + 8 + 4 + 4;
constexpr uint64_t kMinNodeBytes = 4 + 4;
constexpr uint64_t kMinGroupBytes = 4 + 8 + 8 + 4;
constexpr uint64_t kMinCandidateBytes = 4 + 4 + 4 + 4;
constexpr uint64_t kMinChoiceBytes = 4 + 4 + 4 + 4;
constexpr uint64_t kMinCheckBytes = 4 + 4 + 4 + 4; // buffer, three strings

/// "plan 'main' launch 3", for the reader's messages.
template <typename... Args>
std::string formatContext(const char *fmt, Args... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof(buffer), fmt, args...);
  return buffer;
}

template <class IO> void transfer(IO &io, TensorDesc &t) {
  io.str(t.name, "name");
  io.u32(t.dtype, "dtype");
  io.dims(t.dims);
}

template <class IO> void transfer(IO &io, KernelDesc &k) {
  io.str(k.name, "name");
  io.u32(k.numArgs, "numArgs");
}

template <class IO> void transfer(IO &io, BufferDesc &b) {
  io.u32(b.kind, "kind");
  io.u32(b.dtype, "dtype");
  io.u64(b.offset, "offset");
  io.u64(b.bytes, "bytes");
  io.dims(b.dims);
}

template <class IO> void transfer(IO &io, LaunchDesc &l) {
  io.u32(l.kind, "kind");
  io.u32(l.kernel, "kernel");
  for (uint32_t &g : l.grid)
    io.u32(g, "grid");
  for (uint32_t &b : l.block)
    io.u32(b, "block");
  io.u32(l.sharedBytes, "sharedBytes");
  io.u32(l.group, "group");
  io.u64(l.workspaceOffset, "workspaceOffset");
  io.u64(l.workspaceBytes, "workspaceBytes");
  io.list(l.args, "numArgs", 4, [&](uint32_t &a) { io.u32(a, "args"); });
  io.bytes(l.params, "params");
}

template <class IO> void transfer(IO &io, CandidateDesc &c) {
  io.str(c.label, "label");
  io.u32(c.firstLaunch, "firstLaunch");
  io.u32(c.numLaunches, "numLaunches");
  io.f32(c.timeMs, "timeMs");
}

template <class IO> void transfer(IO &io, ChoiceDesc &c) {
  io.str(c.key, "key");
  io.u32(c.selected, "selected");
  io.u32(c.tuned, "tuned");
  io.list(c.candidates, "numCandidates", kMinCandidateBytes,
          [&](CandidateDesc &d) { transfer(io, d); });
}

/// A plan; its input and output buffer lists have one entry per signature
/// input and output, so their lengths are not stored.
template <class IO> void transfer(IO &io, CheckDesc &c) {
  io.u32(c.buffer, "buffer");
  io.str(c.node, "node");
  io.str(c.opType, "opType");
  io.str(c.range, "range");
}

template <class IO>
void transfer(IO &io, PlanDesc &p, size_t numInputs, size_t numOutputs,
              uint32_t version) {
  io.str(p.name, "name");
  io.context([&] { return formatContext("plan '%s'", p.name.c_str()); });
  io.u64(p.arenaBytes, "arenaBytes");
  uint32_t index = 0;
  io.list(p.buffers, "numBuffers", kMinBufferBytes, [&](BufferDesc &b) {
    io.context([&] {
      return formatContext("plan '%s' buffer %u", p.name.c_str(), index++);
    });
    transfer(io, b);
  });
  io.context([&] { return formatContext("plan '%s'", p.name.c_str()); });
  io.fixed(p.inputBuffers, numInputs, "inputBuffers");
  io.fixed(p.outputBuffers, numOutputs, "outputBuffers");
  index = 0;
  io.list(p.launches, "numLaunches", kMinLaunchBytes, [&](LaunchDesc &l) {
    io.context([&] {
      return formatContext("plan '%s' launch %u", p.name.c_str(), index++);
    });
    transfer(io, l);
  });
  io.context([&] { return formatContext("plan '%s'", p.name.c_str()); });
  index = 0;
  io.list(p.choices, "numChoices", kMinChoiceBytes, [&](ChoiceDesc &c) {
    io.context([&] {
      return formatContext("plan '%s' choice %u", p.name.c_str(), index++);
    });
    transfer(io, c);
  });
  if (version < 8)
    return;
  io.context([&] { return formatContext("plan '%s'", p.name.c_str()); });
  index = 0;
  io.list(p.checks, "numChecks", kMinCheckBytes, [&](CheckDesc &c) {
    io.context([&] {
      return formatContext("plan '%s' check %u", p.name.c_str(), index++);
    });
    transfer(io, c);
  });
}

/// A reader passes the file's version (plans before version 8 end after
/// their choices).
template <class IO>
void transfer(IO &io, PlanSection &s, uint32_t version = kFormatVersion) {
  uint32_t index = 0;
  io.context([] { return std::string("signature"); });
  io.list(s.inputs, "numInputs", kMinTensorBytes, [&](TensorDesc &t) {
    io.context([&] { return formatContext("input %u", index++); });
    transfer(io, t);
  });
  io.context([] { return std::string("signature"); });
  index = 0;
  io.list(s.outputs, "numOutputs", kMinTensorBytes, [&](TensorDesc &t) {
    io.context([&] { return formatContext("output %u", index++); });
    transfer(io, t);
  });
  io.context([] { return std::string("kernel table"); });
  index = 0;
  io.list(s.kernels, "numKernels", kMinKernelBytes, [&](KernelDesc &k) {
    io.context([&] { return formatContext("kernel %u", index++); });
    transfer(io, k);
  });
  io.context([] { return std::string("plan table"); });
  index = 0;
  // name, arenaBytes, numBuffers, the input and output buffers, numLaunches,
  // numChoices (and numChecks).
  uint64_t minPlanBytes = 4 + 8 + 4 +
                          4 * uint64_t(s.inputs.size() + s.outputs.size()) + 4 +
                          4 + (version >= 8 ? 4 : 0);
  io.list(s.plans, "numPlans", minPlanBytes, [&](PlanDesc &p) {
    io.context([&] { return formatContext("plan %u", index++); });
    transfer(io, p, s.inputs.size(), s.outputs.size(), version);
  });
}

template <class IO> void transfer(IO &io, NodeDesc &n) {
  io.str(n.name, "name");
  io.str(n.opType, "opType");
}

template <class IO> void transfer(IO &io, GroupDesc &g) {
  io.str(g.strategy, "strategy");
  io.u64(g.flops, "flops");
  io.u64(g.bytes, "bytes");
  io.list(g.nodes, "numNodes", kMinNodeBytes,
          [&](NodeDesc &n) { transfer(io, n); });
}

template <class IO> void transfer(IO &io, MetadataSection &m) {
  uint32_t index = 0;
  io.context([] { return std::string("group table"); });
  io.list(m.groups, "numGroups", kMinGroupBytes, [&](GroupDesc &g) {
    io.context([&] { return formatContext("group %u", index++); });
    transfer(io, g);
  });
}

template <class IO> void transfer(IO &io, BuildSection &b) {
  io.context([] { return std::string("build"); });
  io.str(b.compiler, "compiler");
  io.str(b.flags, "flags");
}

/// Library parameters are written in the current format; a reader passes
/// the file's version (version 5's end before the element types).
template <class IO>
void transfer(IO &io, MatmulParams &p, uint32_t version = kFormatVersion) {
  io.u32(p.transA, "transA");
  io.u32(p.transB, "transB");
  io.i64(p.batch, "batch");
  io.i64(p.m, "m");
  io.i64(p.n, "n");
  io.i64(p.k, "k");
  io.i64(p.lda, "lda");
  io.i64(p.ldb, "ldb");
  io.i64(p.strideA, "strideA");
  io.i64(p.strideB, "strideB");
  io.f32(p.alpha, "alpha");
  io.f32(p.beta, "beta");
  io.u32(p.epilogue, "epilogue");
  io.u32(p.hasResidual, "hasResidual");
  if (version >= 6) {
    io.u32(p.inputType, "inputType");
    io.u32(p.outputType, "outputType");
    io.u32(p.tf32, "tf32");
  }
}

template <class IO>
void transfer(IO &io, ConvParams &p, uint32_t version = kFormatVersion) {
  for (int64_t *v : {&p.n, &p.c, &p.h, &p.w, &p.k, &p.r, &p.s, &p.outH,
                     &p.outW, &p.padH, &p.padW, &p.strideH, &p.strideW,
                     &p.dilationH, &p.dilationW, &p.groups})
    io.i64(*v, "dims");
  io.f32(p.alpha, "alpha");
  io.u32(p.hasBias, "hasBias");
  io.u32(p.hasResidual, "hasResidual");
  io.u32(p.activation, "activation");
  if (version >= 6) {
    io.u32(p.dataType, "dataType");
    io.u32(p.tf32, "tf32");
  }
  if (version >= 7)
    io.u32(p.layout, "layout");
}

/// The length of the valid UTF-8 sequence at `s[i]` (shortest form, no
/// surrogates, at most U+10FFFF), or 0 when there is none.
inline size_t utf8SequenceLength(const std::string &s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t lead = byte(i);
  if (lead < 0x80)
    return 1;
  size_t n = lead >= 0xc2 && lead <= 0xdf   ? 2
             : lead >= 0xe0 && lead <= 0xef ? 3
             : lead >= 0xf0 && lead <= 0xf4 ? 4
                                            : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
  uint8_t second = byte(i + 1);
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) ||
      (lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f))
    return 0;
  return n;
}

/// The offset of the first byte of `s` that is not valid UTF-8, or
/// s.size().
inline size_t findInvalidUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8SequenceLength(s, i);
    if (n == 0)
      return i;
    i += n;
  }
  return s.size();
}

/// `s` with each byte that starts no valid UTF-8 sequence replaced by
/// U+FFFD: every string the writer stores is UTF-8 (a model's names need
/// not be).
inline std::string toValidUtf8(const std::string &s) {
  if (findInvalidUtf8(s) == s.size())
    return s;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

/// Appends records to a byte vector (the writer's IO).
class Encoder {
public:
  std::vector<uint8_t> out;

  void u32(uint32_t v, const char *) { raw(&v, 4); }
  void u64(uint64_t v, const char *) { raw(&v, 8); }
  void i64(int64_t v, const char *) { raw(&v, 8); }
  void f32(float v, const char *) { raw(&v, 4); }
  void str(const std::string &s, const char *what) {
    if (findInvalidUtf8(s) != s.size())
      return str(toValidUtf8(s), what);
    u32(static_cast<uint32_t>(s.size()), what);
    raw(s.data(), s.size());
  }
  void dims(const std::vector<int64_t> &d) {
    u32(static_cast<uint32_t>(d.size()), "rank");
    for (int64_t x : d)
      i64(x, "dims");
  }
  template <class T, class Fn>
  void list(std::vector<T> &v, const char *what, uint64_t, Fn fn) {
    u32(static_cast<uint32_t>(v.size()), what);
    for (T &e : v)
      fn(e);
  }
  void fixed(const std::vector<uint32_t> &v, size_t, const char *what) {
    for (uint32_t x : v)
      u32(x, what);
  }
  void bytes(const std::vector<uint8_t> &b, const char *what) {
    u32(static_cast<uint32_t>(b.size()), what);
    raw(b.data(), b.size());
  }
  template <class Fn> void context(Fn) {}

private:
  // The hosts fuse runs on are little-endian, as the format is.
  void raw(const void *p, size_t n) {
    if (n == 0)
      return;
    const uint8_t *c = static_cast<const uint8_t *>(p);
    out.insert(out.end(), c, c + n);
  }
};

/// Reads records from bytes that may be truncated or corrupted (the
/// reader's IO): every read is bounded, every count is checked against the
/// bytes left before anything is allocated for it, and the first failure
/// stops all later reads and keeps its message ("plan 'main' buffer 3:
/// truncated: dims needs 8 bytes at offset 200, 4 left").
class Decoder {
public:
  Decoder(const uint8_t *data, uint64_t size) : data(data), size(size) {}

  bool failed() const { return hasFailed; }
  const std::string &message() const { return error; }
  uint64_t remaining() const { return size - pos; }

  void u32(uint32_t &v, const char *what) {
    const uint8_t *p = take(4, what);
    v = p ? le32(p) : 0;
  }
  void u64(uint64_t &v, const char *what) {
    const uint8_t *p = take(8, what);
    v = p ? uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32 : 0;
  }
  void i64(int64_t &v, const char *what) {
    uint64_t u;
    u64(u, what);
    v = static_cast<int64_t>(u);
  }
  void f32(float &v, const char *what) {
    uint32_t bits;
    u32(bits, what);
    std::memcpy(&v, &bits, 4);
  }
  void str(std::string &s, const char *what) {
    uint32_t length;
    u32(length, what);
    const uint8_t *p = take(length, what);
    s = p ? std::string(reinterpret_cast<const char *>(p), length)
          : std::string();
    if (s.find('\0') != std::string::npos)
      fail(std::string(what) + " contains a NUL byte");
    else if (size_t at = findInvalidUtf8(s); at != s.size())
      fail(std::string(what) + " is not UTF-8 (byte " + std::to_string(at) +
           ")");
  }
  void dims(std::vector<int64_t> &d) {
    uint32_t rank;
    u32(rank, "rank");
    if (!hasFailed && rank > kMaxRank)
      fail(formatContext("rank %u is more than FUSE_MAX_RANK (%u)", rank,
                         kMaxRank));
    d.assign(hasFailed ? 0 : rank, 0);
    for (int64_t &x : d)
      i64(x, "dims");
  }
  template <class T, class Fn>
  void list(std::vector<T> &v, const char *what, uint64_t minBytes, Fn fn) {
    uint32_t n = count(what, minBytes);
    v.assign(n, T());
    for (uint32_t i = 0; i < n && !hasFailed; ++i)
      fn(v[i]);
  }
  void fixed(std::vector<uint32_t> &v, size_t n, const char *what) {
    v.assign(hasFailed ? 0 : n, 0);
    for (uint32_t &x : v)
      u32(x, what);
  }
  void bytes(std::vector<uint8_t> &b, const char *what) {
    uint32_t length;
    u32(length, what);
    const uint8_t *p = take(length, what);
    b.assign(p, p ? p + length : p);
  }
  template <class Fn> void context(Fn fn) {
    if (!hasFailed)
      where = fn();
  }

  /// Records an error at the current context (the first one wins).
  void fail(const std::string &message) {
    if (hasFailed)
      return;
    hasFailed = true;
    error = where.empty() ? message : where + ": " + message;
  }

private:
  static uint32_t le32(const uint8_t *p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
           uint32_t(p[3]) << 24;
  }
  uint32_t count(const char *what, uint64_t minBytes) {
    uint32_t n;
    u32(n, what);
    if (!hasFailed && n > remaining() / minBytes)
      fail(formatContext("%s is %u but only %llu bytes are left", what, n,
                         static_cast<unsigned long long>(remaining())));
    return hasFailed ? 0 : n;
  }
  const uint8_t *take(uint64_t n, const char *what) {
    if (hasFailed)
      return nullptr;
    if (n > remaining()) {
      fail(formatContext("truncated: %s needs %llu bytes at offset %llu, "
                         "%llu left",
                         what, static_cast<unsigned long long>(n),
                         static_cast<unsigned long long>(pos),
                         static_cast<unsigned long long>(remaining())));
      return nullptr;
    }
    const uint8_t *p = data + pos;
    pos += n;
    return p;
  }

  const uint8_t *data;
  uint64_t size;
  uint64_t pos = 0;
  bool hasFailed = false;
  std::string where;
  std::string error;
};

/// The bytes of one record.
template <class T, class... Extra>
std::vector<uint8_t> encode(T &record, Extra... extra) {
  Encoder encoder;
  transfer(encoder, record, extra...);
  return std::move(encoder.out);
}

/// Reads one record that must fill `bytes` exactly; false (with `message`
/// set) when it does not. `extra` are transfer's arguments after the
/// record (a file's format version, for library parameters).
template <class T, class... Extra>
bool decode(const std::vector<uint8_t> &bytes, T &record, std::string &message,
            Extra... extra) {
  Decoder decoder(bytes.data(), bytes.size());
  transfer(decoder, record, extra...);
  if (!decoder.failed() && decoder.remaining() != 0)
    decoder.fail(formatContext("%llu bytes left after the record",
                               static_cast<unsigned long long>(
                                   decoder.remaining())));
  message = decoder.message();
  return !decoder.failed();
}

//===----------------------------------------------------------------------===//
// The whole file
//===----------------------------------------------------------------------===//

/// Bytes the writer reads from memory that a File does not own (weights
/// that the compiler holds until the file is written); null `data` stands
/// for `size` zero bytes.
struct ByteSpan {
  const uint8_t *data = nullptr;
  uint64_t size = 0;
};

/// A compiled model, as the compiler writes it.
struct File {
  Target target = Target::Cpu;
  std::string arch;
  PlanSection plan;
  /// Written when it has groups.
  MetadataSection metadata;
  /// Written when `compiler` is not empty.
  BuildSection build;
  std::vector<uint8_t> image;
  /// Cpu: the level `image` needs (its section's variant), `arch`'s.
  uint32_t imageLevel = 0;
  /// Cpu: images for higher levels, each a KernelImage section of its own.
  struct LevelImage {
    uint32_t level;
    std::vector<uint8_t> bytes;
  };
  std::vector<LevelImage> levelImages;
  std::vector<uint8_t> ptx; // written when not empty
  /// The Weights section, piece after piece (not copied: the memory must
  /// outlive writeFile).
  std::vector<ByteSpan> weights;
};

/// Writes the file through `write(const uint8_t *data, uint64_t size)`, in
/// order (null data: that many zero bytes): header, section table, then
/// Plan, KernelImage (a Cpu file's higher levels after it), KernelPtx (if
/// any), Weights, Metadata (if any) and Build (if any),
/// each section 64-byte aligned; the checksum covers all but the header.
/// Nothing is copied whole: the body is read twice, once for the checksum.
/// Returns the file's size.
template <class Write> uint64_t writeFile(File &file, Write &&write) {
  struct Section {
    SectionKind kind;
    std::vector<ByteSpan> pieces;
    uint32_t variant = 0;
  };
  auto span = [](const std::vector<uint8_t> &bytes) {
    return ByteSpan{bytes.data(), bytes.size()};
  };
  std::vector<uint8_t> plan = encode(file.plan);
  std::vector<uint8_t> metadata;
  std::vector<Section> sections;
  sections.push_back({SectionKind::Plan, {span(plan)}});
  sections.push_back(
      {SectionKind::KernelImage, {span(file.image)}, file.imageLevel});
  for (const File::LevelImage &image : file.levelImages)
    sections.push_back(
        {SectionKind::KernelImage, {span(image.bytes)}, image.level});
  if (!file.ptx.empty())
    sections.push_back({SectionKind::KernelPtx, {span(file.ptx)}});
  sections.push_back({SectionKind::Weights, file.weights});
  if (!file.metadata.groups.empty()) {
    metadata = encode(file.metadata);
    sections.push_back({SectionKind::Metadata, {span(metadata)}});
  }
  std::vector<uint8_t> build;
  if (!file.build.compiler.empty()) {
    build = encode(file.build);
    sections.push_back({SectionKind::Build, {span(build)}});
  }

  auto alignTo = [](uint64_t x) {
    return (x + kAlignment - 1) / kAlignment * kAlignment;
  };
  uint64_t tableEnd =
      sizeof(FileHeader) + sections.size() * sizeof(SectionEntry);
  uint64_t offset = alignTo(tableEnd);
  std::vector<SectionEntry> entries;
  for (const Section &section : sections) {
    SectionEntry entry{};
    entry.kind = static_cast<uint32_t>(section.kind);
    entry.variant = section.variant;
    entry.offset = offset;
    for (const ByteSpan &piece : section.pieces)
      entry.size += piece.size;
    entries.push_back(entry);
    offset = alignTo(offset + entry.size);
  }
  uint64_t fileSize = offset;

  // Everything after the header, in order, zero padding included.
  auto forEachBodyPiece = [&](auto &&fn) {
    fn(ByteSpan{reinterpret_cast<const uint8_t *>(entries.data()),
                entries.size() * sizeof(SectionEntry)});
    uint64_t at = tableEnd;
    for (size_t i = 0; i < sections.size(); ++i) {
      fn(ByteSpan{nullptr, entries[i].offset - at});
      for (const ByteSpan &piece : sections[i].pieces)
        fn(piece);
      at = entries[i].offset + entries[i].size;
    }
    fn(ByteSpan{nullptr, fileSize - at});
  };
  static const uint8_t zeros[4096] = {};
  // Zero pieces in chunks of `zeros`; empty pieces (whose data may be
  // null) not at all.
  auto eachChunk = [&](ByteSpan piece, auto &&fn) {
    if (piece.data) {
      if (piece.size)
        fn(piece.data, piece.size);
      return;
    }
    for (uint64_t left = piece.size; left > 0;) {
      uint64_t n = left < sizeof(zeros) ? left : sizeof(zeros);
      fn(zeros, n);
      left -= n;
    }
  };

  FileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(header.magic));
  header.formatVersion = kFormatVersion;
  header.target = static_cast<uint32_t>(file.target);
  header.fileSize = fileSize;
  header.numSections = static_cast<uint32_t>(sections.size());
  std::strncpy(header.arch, file.arch.c_str(), sizeof(header.arch) - 1);
  uint64_t checksum = fnv1a64(nullptr, 0); // the empty body's
  forEachBodyPiece([&](ByteSpan piece) {
    eachChunk(piece, [&](const uint8_t *data, uint64_t size) {
      checksum = fnv1a64(data, size, checksum);
    });
  });
  header.checksum = checksum;
  write(reinterpret_cast<const uint8_t *>(&header), uint64_t(sizeof(header)));
  forEachBodyPiece([&](ByteSpan piece) { eachChunk(piece, write); });
  return fileSize;
}

} // namespace artifact
} // namespace fuse

#endif // FUSE_RUNTIME_ARTIFACT_H
