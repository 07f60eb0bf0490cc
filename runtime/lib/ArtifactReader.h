//===- ArtifactReader.h - Parse and validate a .fbin artifact ---*- C++ -*-===//
//
// readArtifact() checks a whole artifact (header, checksum, section table,
// plan and metadata sections, the parameters of every library launch) and
// returns it as the schema's records (fuse/runtime/Artifact.h) plus what
// the runtime derives from them. Nothing past this point re-checks the
// file: every index, offset and size in an Artifact has been proved in
// range here, so the backends can use them directly.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_ARTIFACTREADER_H
#define FUSE_RUNTIME_LIB_ARTIFACTREADER_H

#include "fuse/runtime.h"
#include "fuse/runtime/Artifact.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuse {
namespace runtime {

using artifact::BufferDesc;
using artifact::CandidateDesc;
using artifact::CheckDesc;
using artifact::ChoiceDesc;
using artifact::KernelDesc;
using artifact::LaunchDesc;
using artifact::TensorDesc;

/// A launch with its library parameters decoded (the one that matches its
/// kind is set).
struct Launch : LaunchDesc {
  artifact::MatmulParams matmul;
  artifact::ConvParams conv;
  /// A launch of a library, not of the artifact's own kernels.
  bool isLibrary() const {
    return kind != static_cast<uint32_t>(artifact::LaunchKind::Kernel);
  }
};

struct Plan {
  std::string name;
  uint64_t arenaBytes = 0;
  std::vector<BufferDesc> buffers;
  std::vector<uint32_t> inputBuffers;
  std::vector<uint32_t> outputBuffers;
  std::vector<Launch> launches;
  /// Groups with several candidates; `selected` and `tuned` are what
  /// fuse_model_save writes.
  std::vector<ChoiceDesc> choices;
  /// Index checks, read after each run (format 8).
  std::vector<CheckDesc> checks;
  /// Per choice: the candidate that runs, or kAllCandidates (a tuner timing
  /// them all); starts as the artifact's `selected`.
  std::vector<uint32_t> running;
  /// Per launch: 1 when it runs under `running` (see updateRuns).
  std::vector<uint8_t> runs;
  /// Per launch: the bytes of its distinct buffers (fuse_model_plan_bytes
  /// sums those of the launches that run).
  std::vector<uint64_t> launchBytes;
  /// Where the arena starts in the model's one allocation.
  uint64_t arenaOffset = 0;
};

/// A section's bytes inside the caller's copy of the file (not owned).
struct Blob {
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  bool present = false;
};

/// A cpu kernel image and the x86-64 level it needs (artifact::CpuLevel;
/// 0 for a version-3 file's unknown level).
struct CpuImage {
  uint32_t level;
  Blob image;
};

struct Artifact {
  artifact::Target target = artifact::Target::Cpu;
  /// The file's format version (what its library parameters hold).
  uint32_t formatVersion = artifact::kFormatVersion;
  std::string arch;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  /// Byte sizes of the inputs and outputs.
  std::vector<uint64_t> inputBytes;
  std::vector<uint64_t> outputBytes;
  std::vector<KernelDesc> kernels;
  std::vector<Plan> plans;
  /// Empty when the artifact has no Metadata section.
  artifact::MetadataSection metadata;
  /// Empty strings when the artifact has no Build section (version 4).
  artifact::BuildSection build;
  /// The kernel image; for cpu, the lowest level's (the header's arch).
  Blob kernelImage;
  /// Cpu: every level's image, lowest first.
  std::vector<CpuImage> cpuImages;
  Blob kernelPtx;
  Blob weights;
  /// Bytes of the one allocation: the weights at offset 0, then each plan's
  /// arena at its arenaOffset, every region starting kRegionAlignment-aligned.
  uint64_t memoryBytes = 0;
  /// Where the arenas start: the weights are [0, arenasOffset), which
  /// sessions of a model share (fuse_model_new_session), the arenas
  /// [arenasOffset, memoryBytes), which each session has its own of.
  uint64_t arenasOffset = 0;
  /// Launches of each library, over all plans (the backend loads a library
  /// only when it is used).
  size_t matmulLaunches = 0;
  size_t convLaunches = 0;
  /// Where the Plan section is in the file and the header's checksum, for
  /// fuse_model_save to find the section again in the same file.
  uint64_t planSectionOffset = 0;
  uint64_t planSectionSize = 0;
  uint64_t checksum = 0;
};

/// Plan::running of a choice whose candidates all run, one after another.
constexpr uint32_t kAllCandidates = 0xffffffffu;

/// Recomputes `plan.runs` from `plan.running`: launches outside every
/// choice run, and of a choice's candidates only the running one(s).
void updateRuns(Plan &plan);

/// fuse_model_plan_bytes: the bytes the launches that run move.
uint64_t bytesMoved(const Plan &plan);

/// Alignment of each region (weights, arenas) in the allocation; more than
/// the artifact's 64 so that every region starts on a GPU memory
/// transaction boundary.
constexpr uint64_t kRegionAlignment = 256;

/// Offset of a buffer in the model's allocation.
inline uint64_t bufferOffset(const Plan &plan, const BufferDesc &buffer) {
  if (buffer.kind == static_cast<uint32_t>(artifact::BufferKind::Weight))
    return buffer.offset;
  return plan.arenaOffset + buffer.offset;
}

/// The bytes of the model's allocation that hold `plan`'s index checks,
/// [first, end): the compiler puts them side by side, so one copy reads
/// them all. {0, 0} for a plan without checks.
inline std::pair<uint64_t, uint64_t> checkSpan(const Plan &plan) {
  uint64_t first = UINT64_MAX, end = 0;
  for (const CheckDesc &check : plan.checks) {
    uint64_t offset = bufferOffset(plan, plan.buffers[check.buffer]);
    first = std::min(first, offset);
    end = std::max<uint64_t>(end, offset + sizeof(float));
  }
  return plan.checks.empty() ? std::make_pair(uint64_t(0), uint64_t(0))
                             : std::make_pair(first, end);
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
std::string typeString(uint32_t dtype, const std::vector<int64_t> &dims);

/// What a launch runs, in a few words: the kernel's name, or the library
/// call ("cublaslt matmul 128x768x768 bias+relu", "cudnn conv 3x3 ...").
std::string describeLaunch(const Artifact &artifact, const Launch &launch);

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_ARTIFACTREADER_H
