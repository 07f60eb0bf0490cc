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
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ARTIFACT_H
#define FUSE_RUNTIME_ARTIFACT_H

#include <cstddef>
#include <cstdint>

namespace fuse {
namespace artifact {

constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'B', 'I', 'N', '\0'};
constexpr uint32_t kFormatVersion = 1;
/// Alignment of every section payload in the file and of every buffer
/// offset in an arena or in the weights section.
constexpr uint64_t kAlignment = 64;

enum class Target : uint32_t {
  /// x86-64 host code: the kernel image is an ELF shared object whose
  /// kernels are `void <name>_packed(void **args)`.
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
  /// The model signature and the execution plans (see Plan encoding below).
  Plan = 1,
  /// Kernel code: cubin (Cuda) or ELF shared object (Cpu).
  KernelImage = 2,
  /// PTX text of the kernels (Cuda only; optional).
  KernelPtx = 3,
  /// Weight bytes; Buffer::offset of a weight indexes into this section.
  Weights = 4,
};

struct SectionEntry {
  uint32_t kind;      // SectionKind
  uint32_t reserved;  // 0
  uint64_t offset;    // from the start of the file, kAlignment-aligned
  uint64_t size;      // bytes
};
static_assert(sizeof(SectionEntry) == 24, "section entry is 24 bytes");

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
  /// Graph input `index`; lives in the arena at `offset`.
  Input = 0,
  /// Graph output `index`; lives in the arena at `offset`.
  Output = 1,
  /// A weight; its bytes are at `offset` in the Weights section and are
  /// placed in device (or host) memory once, at load.
  Weight = 2,
  /// An intermediate value; lives in the arena at `offset`. Intermediates
  /// whose lifetimes do not overlap may share bytes.
  Intermediate = 3,
};

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

// Plan section encoding. Scalars are little-endian u32/u64/i64; a string
// is a u32 byte length followed by the bytes (no NUL).
//
//   u32 numInputs,  then numInputs  x TensorDesc
//   u32 numOutputs, then numOutputs x TensorDesc
//   u32 numKernels, then numKernels x Kernel
//   u32 numPlans,   then numPlans   x Plan
//
//   TensorDesc: string name; u32 dtype; u32 rank; i64 dims[rank]
//   Kernel:     string name (symbol in the kernel image);
//               u32 grid[3]; u32 block[3]; u32 sharedBytes;
//               u32 numArgs (each argument is one buffer pointer)
//   Plan:       string name ("main", or "reference": the same model with
//               one kernel per op, used by `fuse-run --check`);
//               u64 arenaBytes;
//               u32 numBuffers, then numBuffers x Buffer;
//               u32 inputBuffers[numInputs]; u32 outputBuffers[numOutputs];
//               u32 numLaunches, then numLaunches x Launch
//   Buffer:     u32 kind (BufferKind); u32 dtype; u64 offset; u64 bytes;
//               u32 rank; i64 dims[rank]
//   Launch:     u32 kernel (index into the kernel table); u32 numArgs;
//               u32 args[numArgs] (buffer indices: kernel inputs, then
//               outputs, in the kernel's parameter order)
//
// An output buffer may be of any kind (a graph output can be a graph
// input or a weight); the runtime copies outputs from whatever buffer
// `outputBuffers` names.

} // namespace artifact
} // namespace fuse

#endif // FUSE_RUNTIME_ARTIFACT_H
