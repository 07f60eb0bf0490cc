//===- ArtifactReader.h - Parse and validate a .fbin artifact ---*- C++ -*-===//
//
// readArtifact() checks a whole artifact (header, checksum, section table,
// plan section) and returns it as plain structs. Nothing past this point
// re-checks the file: every index, offset and size in an Artifact has been
// proved in range, so the backends can use them directly.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_ARTIFACTREADER_H
#define FUSE_RUNTIME_LIB_ARTIFACTREADER_H

#include "fuse/runtime.h"
#include "fuse/runtime/Artifact.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuse {
namespace runtime {

/// A graph input or output of the model's signature.
struct TensorDesc {
  std::string name;
  uint32_t dtype = 0;
  uint32_t rank = 0;
  int64_t dims[FUSE_MAX_RANK] = {};
  uint64_t bytes = 0;
};

struct KernelDesc {
  std::string name;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  uint32_t sharedBytes = 0;
  uint32_t numArgs = 0;
};

struct BufferDesc {
  artifact::BufferKind kind = artifact::BufferKind::Intermediate;
  uint32_t dtype = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t rank = 0;
  int64_t dims[FUSE_MAX_RANK] = {};
};

struct LaunchDesc {
  uint32_t kernel = 0;
  std::vector<uint32_t> args;
};

struct PlanDesc {
  std::string name;
  uint64_t arenaBytes = 0;
  std::vector<BufferDesc> buffers;
  std::vector<uint32_t> inputBuffers;
  std::vector<uint32_t> outputBuffers;
  std::vector<LaunchDesc> launches;
  /// fuse_model_plan_bytes: per launch, the bytes of its distinct buffers.
  uint64_t bytesMoved = 0;
  /// Where the arena starts in the model's one allocation.
  uint64_t arenaOffset = 0;
};

/// A section's bytes inside the caller's copy of the file (not owned).
struct Blob {
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  bool present = false;
};

struct Artifact {
  artifact::Target target = artifact::Target::Cpu;
  std::string arch;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<KernelDesc> kernels;
  std::vector<PlanDesc> plans;
  Blob kernelImage;
  Blob kernelPtx;
  Blob weights;
  /// Bytes of the one allocation: the weights at offset 0, then each plan's
  /// arena at its arenaOffset, every region starting kRegionAlignment-aligned.
  uint64_t memoryBytes = 0;
};

/// Alignment of each region (weights, arenas) in the allocation; more than
/// the artifact's 64 so that every region starts on a GPU memory
/// transaction boundary.
constexpr uint64_t kRegionAlignment = 256;

/// Offset of a buffer in the model's allocation.
inline uint64_t bufferOffset(const PlanDesc &plan, const BufferDesc &buffer) {
  if (buffer.kind == artifact::BufferKind::Weight)
    return buffer.offset;
  return plan.arenaOffset + buffer.offset;
}

/// Parses and validates `size` bytes of an artifact into `result`. On
/// failure returns FUSE_ERROR_FORMAT with the message set (fuse_last_error).
/// The Blobs in `result` point into `data`.
fuse_status readArtifact(const void *data, size_t size, Artifact &result);

/// What the model's one allocation holds, for out-of-memory errors:
/// "weights 4096 + plan 'main' arena 1024 + plan 'reference' arena 2048,
/// each rounded up to a multiple of 256".
std::string describeMemory(const Artifact &artifact);

/// "float32[1,3,224,224]"; "dtype(N)" names a value that is not a DType.
std::string typeString(uint32_t dtype, uint32_t rank, const int64_t *dims);

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_ARTIFACTREADER_H
