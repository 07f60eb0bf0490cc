//===- Artifact.h - The compiler's view of an artifact -----------*- C++
//-*-===//
//
// What fuse-compile knows about a compiled model before it writes the file:
// signature, kernels, plans, code and weights. serializeArtifact() turns it
// into the bytes of the format the runtime reads (runtime/include/fuse/
// runtime/Artifact.h, the schema both sides share).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TARGET_ARTIFACT_H
#define FUSE_TARGET_ARTIFACT_H

#include "fuse/runtime/Artifact.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fuse {
namespace target {

struct TensorDesc {
  std::string name;
  uint32_t dtype = 0;
  std::vector<int64_t> dims;
};

struct KernelDesc {
  std::string name;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  uint32_t numArgs = 0;
};

struct BufferDesc {
  artifact::BufferKind kind = artifact::BufferKind::Intermediate;
  uint32_t dtype = 0;
  /// In the arena (inputs, outputs, intermediates) or in the weights
  /// section (weights).
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> dims;
};

struct LaunchDesc {
  uint32_t kernel = 0;
  /// Buffer indices: the kernel's inputs, then its outputs.
  std::vector<uint32_t> args;
};

struct PlanDesc {
  std::string name;
  uint64_t arenaBytes = 0;
  std::vector<BufferDesc> buffers;
  std::vector<uint32_t> inputBuffers;
  std::vector<uint32_t> outputBuffers;
  std::vector<LaunchDesc> launches;
};

struct ArtifactDesc {
  artifact::Target target = artifact::Target::Cpu;
  std::string arch;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<KernelDesc> kernels;
  std::vector<PlanDesc> plans;
  std::vector<char> image;
  std::vector<char> ptx;
  std::vector<char> weights;
};

/// The file: header, section table, Plan, KernelImage, KernelPtx (if any),
/// Weights; every section 64-byte aligned; checksum over all but the header.
std::vector<char> serializeArtifact(const ArtifactDesc &artifact);

} // namespace target
} // namespace fuse

#endif // FUSE_TARGET_ARTIFACT_H
