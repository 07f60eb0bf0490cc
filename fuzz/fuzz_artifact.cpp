//===- fuzz_artifact.cpp - Bytes -> artifact loader and plan validation ---===//
//
// Each input is an artifact (.fbin). The target
//
//  1. inspects the bytes as they are (fuse_model_inspect_bytes): header,
//     size and checksum checks;
//  2. inspects them again with the header's fileSize and checksum made to
//     fit, since a mutated file would otherwise almost never get past the
//     checksum: the section table, the plan section's parser and every
//     plan check. An artifact that passes is described through every
//     getter of the C API (what `fuse-run --info` prints);
//  3. loads it (fuse_model_load_bytes) when it targets the CPU and its
//     kernel image is byte-for-byte one of the trusted images, and sets
//     every input: the CPU backend's ELF checks, symbol lookup, the one
//     mapping, weight placement and buffer addressing.
//
// Why only trusted images are loaded: loading a CPU artifact dlopens its
// kernel image, and glibc's dynamic loader trusts the ELF file it maps (a
// malformed one can crash it or run arbitrary constructors); a mutated
// image is code from nowhere. The runtime checks what it can before dlopen
// (ELF header, machine, program headers and segments in bounds), but an
// artifact is trusted like an executable (docs/artifact-format.md). So the
// plan, weights and header are mutated freely, the code never. The trusted
// images are the kernel images of the CPU artifacts in the directory
// FUSE_FUZZ_TRUSTED_IMAGES (default: fuzz/corpus/artifact of the source
// tree), read once at start-up. Kernels are never run: they trust the
// buffer sizes they were compiled for, which a mutated plan breaks.
//
//===----------------------------------------------------------------------===//

#include "fuse/runtime.h"
#include "fuse/runtime/Artifact.h"

#include "ArtifactReader.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <set>
#include <string>
#include <utility>
#include <vector>

#ifndef FUSE_FUZZ_TRUSTED_DIR
#define FUSE_FUZZ_TRUSTED_DIR ""
#endif

namespace {

using fuse::artifact::fnv1a64;
using fuse::artifact::Target;

/// (size, FNV-1a) of each trusted CPU kernel image.
std::set<std::pair<uint64_t, uint64_t>> &trustedImages() {
  static std::set<std::pair<uint64_t, uint64_t>> images;
  return images;
}

std::pair<uint64_t, uint64_t> imageKey(const fuse::runtime::Blob &image) {
  return {image.size, fnv1a64(image.data, image.size)};
}

void readTrustedImages(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    std::fprintf(stderr, "fuzz-artifact: no trusted images (cannot open '%s'):"
                         " loading is not fuzzed\n", dir);
    return;
  }
  while (struct dirent *entry = readdir(d)) {
    std::string path = std::string(dir) + "/" + entry->d_name;
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file)
      continue;
    std::vector<uint8_t> bytes;
    uint8_t buffer[65536];
    while (size_t n = std::fread(buffer, 1, sizeof(buffer), file))
      bytes.insert(bytes.end(), buffer, buffer + n);
    std::fclose(file);
    fuse::runtime::Artifact artifact;
    if (fuse::runtime::readArtifact(bytes.data(), bytes.size(), artifact) ==
            FUSE_OK &&
        artifact.target == Target::Cpu && artifact.kernelImage.size)
      trustedImages().insert(imageKey(artifact.kernelImage));
  }
  closedir(d);
  std::fprintf(stderr, "fuzz-artifact: %zu trusted CPU kernel images from %s\n",
               trustedImages().size(), dir);
}

/// Every describing call of the C API, as `fuse-run --info` makes them.
void describe(const fuse_model *model) {
  volatile uint64_t sink = 0;
  sink += fuse_model_target(model);
  sink += std::strlen(fuse_model_arch(model));
  fuse_tensor_info tensor;
  for (size_t i = 0; i < fuse_model_num_inputs(model); ++i)
    if (fuse_model_input_info(model, i, &tensor) == FUSE_OK)
      sink += std::strlen(tensor.name) + tensor.bytes;
  for (size_t i = 0; i < fuse_model_num_outputs(model); ++i)
    if (fuse_model_output_info(model, i, &tensor) == FUSE_OK)
      sink += std::strlen(tensor.name) + tensor.bytes;
  for (size_t p = 0; p < fuse_model_num_plans(model); ++p) {
    sink += std::strlen(fuse_model_plan_name(model, p));
    sink += fuse_model_plan_arena_bytes(model, p) +
            fuse_model_plan_bytes(model, p);
    for (size_t b = 0; b < fuse_model_plan_num_buffers(model, p); ++b) {
      fuse_buffer_info buffer;
      if (fuse_model_plan_buffer(model, p, b, &buffer) == FUSE_OK)
        sink += buffer.offset + buffer.bytes;
    }
    for (size_t l = 0; l < fuse_model_plan_num_launches(model, p); ++l) {
      fuse_launch_info launch;
      if (fuse_model_plan_launch(model, p, l, &launch) == FUSE_OK) {
        sink += std::strlen(launch.kernel) + launch.kind + launch.group +
                launch.workspace_offset + launch.workspace_bytes;
        for (uint32_t a = 0; a < launch.num_args; ++a)
          sink += launch.args[a];
      }
    }
  }
  // The metadata: every group and its nodes.
  for (size_t g = 0; g < fuse_model_num_groups(model); ++g) {
    fuse_group_info group;
    if (fuse_model_group_info(model, g, &group) != FUSE_OK)
      continue;
    sink += std::strlen(group.strategy) + group.flops + group.bytes;
    for (size_t n = 0; n < group.num_nodes; ++n) {
      const char *name = nullptr, *opType = nullptr;
      if (fuse_model_group_node(model, g, n, &name, &opType) == FUSE_OK)
        sink += std::strlen(name) + std::strlen(opType);
    }
  }
  (void)sink;
}

/// Loads a CPU artifact with a trusted image and sets every input.
void load(const std::vector<uint8_t> &bytes) {
  fuse::runtime::Artifact artifact;
  if (fuse::runtime::readArtifact(bytes.data(), bytes.size(), artifact) !=
          FUSE_OK ||
      artifact.target != Target::Cpu ||
      (artifact.kernelImage.size &&
       !trustedImages().count(imageKey(artifact.kernelImage))))
    return;
  fuse_model *model = nullptr;
  if (fuse_model_load_bytes(bytes.data(), bytes.size(), &model) != FUSE_OK)
    return;
  describe(model);
  for (size_t i = 0; i < fuse_model_num_inputs(model); ++i) {
    fuse_tensor_info info;
    if (fuse_model_input_info(model, i, &info) != FUSE_OK ||
        info.bytes > (64u << 20))
      continue;
    std::vector<uint8_t> zeros(info.bytes);
    fuse_model_set_input(model, i, zeros.data(), zeros.size());
  }
  fuse_model_free(model);
}

void inspect(const uint8_t *data, size_t size) {
  fuse_model *model = nullptr;
  if (fuse_model_inspect_bytes(data, size, &model) != FUSE_OK)
    return;
  describe(model);
  fuse_model_free(model);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *dir = std::getenv("FUSE_FUZZ_TRUSTED_IMAGES");
  readTrustedImages(dir && *dir ? dir : FUSE_FUZZ_TRUSTED_DIR);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  inspect(data, size);

  using fuse::artifact::FileHeader;
  if (size < sizeof(FileHeader) ||
      std::memcmp(data, fuse::artifact::kMagic, sizeof(fuse::artifact::kMagic)))
    return 0;
  // The same bytes with a header that fits them.
  std::vector<uint8_t> fixed(data, data + size);
  FileHeader header;
  std::memcpy(&header, fixed.data(), sizeof(header));
  header.fileSize = size;
  header.checksum = fnv1a64(fixed.data() + sizeof(header), size - sizeof(header));
  std::memcpy(fixed.data(), &header, sizeof(header));
  inspect(fixed.data(), fixed.size());
  load(fixed);
  return 0;
}
