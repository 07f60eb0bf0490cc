//===- ArtifactWriter.cpp - ArtifactDesc to .fbin bytes -------------------===//

#include "fuse/Target/Artifact.h"

#include <cstring>

using namespace fuse;
using namespace fuse::target;

namespace {
/// Little-endian encoder of the Plan section.
class Encoder {
public:
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void str(const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void dims(const std::vector<int64_t> &d) {
    u32(static_cast<uint32_t>(d.size()));
    for (int64_t x : d)
      i64(x);
  }
  std::vector<char> bytes;

private:
  // The host is little-endian (x86-64), as the format is.
  void raw(const void *p, size_t n) {
    const char *c = static_cast<const char *>(p);
    bytes.insert(bytes.end(), c, c + n);
  }
};
} // namespace

static std::vector<char> encodePlans(const ArtifactDesc &a) {
  Encoder e;
  for (const auto *list : {&a.inputs, &a.outputs}) {
    e.u32(static_cast<uint32_t>(list->size()));
    for (const TensorDesc &t : *list) {
      e.str(t.name);
      e.u32(t.dtype);
      e.dims(t.dims);
    }
  }
  e.u32(static_cast<uint32_t>(a.kernels.size()));
  for (const KernelDesc &k : a.kernels) {
    e.str(k.name);
    for (uint32_t g : k.grid)
      e.u32(g);
    for (uint32_t b : k.block)
      e.u32(b);
    e.u32(k.sharedBytes);
    e.u32(k.numArgs);
  }
  e.u32(static_cast<uint32_t>(a.plans.size()));
  for (const PlanDesc &p : a.plans) {
    e.str(p.name);
    e.u64(p.arenaBytes);
    e.u32(static_cast<uint32_t>(p.buffers.size()));
    for (const BufferDesc &b : p.buffers) {
      e.u32(static_cast<uint32_t>(b.kind));
      e.u32(b.dtype);
      e.u64(b.offset);
      e.u64(b.bytes);
      e.dims(b.dims);
    }
    for (uint32_t i : p.inputBuffers)
      e.u32(i);
    for (uint32_t i : p.outputBuffers)
      e.u32(i);
    e.u32(static_cast<uint32_t>(p.launches.size()));
    for (const LaunchDesc &l : p.launches) {
      e.u32(l.kernel);
      e.u32(static_cast<uint32_t>(l.args.size()));
      for (uint32_t arg : l.args)
        e.u32(arg);
    }
  }
  return e.bytes;
}

static uint64_t alignTo(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

std::vector<char> fuse::target::serializeArtifact(const ArtifactDesc &a) {
  std::vector<std::pair<artifact::SectionKind, std::vector<char>>> sections;
  sections.emplace_back(artifact::SectionKind::Plan, encodePlans(a));
  sections.emplace_back(artifact::SectionKind::KernelImage, a.image);
  if (!a.ptx.empty())
    sections.emplace_back(artifact::SectionKind::KernelPtx, a.ptx);
  sections.emplace_back(artifact::SectionKind::Weights, a.weights);

  uint64_t offset =
      alignTo(sizeof(artifact::FileHeader) +
                  sections.size() * sizeof(artifact::SectionEntry),
              artifact::kAlignment);
  std::vector<artifact::SectionEntry> entries;
  for (auto &[kind, payload] : sections) {
    artifact::SectionEntry entry{};
    entry.kind = static_cast<uint32_t>(kind);
    entry.offset = offset;
    entry.size = payload.size();
    entries.push_back(entry);
    offset = alignTo(offset + payload.size(), artifact::kAlignment);
  }
  std::vector<char> file(offset, 0);
  std::memcpy(file.data() + sizeof(artifact::FileHeader), entries.data(),
              entries.size() * sizeof(artifact::SectionEntry));
  for (size_t i = 0; i < sections.size(); ++i)
    if (!sections[i].second.empty()) // An empty payload's data() may be null.
      std::memcpy(file.data() + entries[i].offset, sections[i].second.data(),
                  sections[i].second.size());

  artifact::FileHeader header{};
  std::memcpy(header.magic, artifact::kMagic, sizeof(header.magic));
  header.formatVersion = artifact::kFormatVersion;
  header.target = static_cast<uint32_t>(a.target);
  header.fileSize = file.size();
  header.numSections = static_cast<uint32_t>(sections.size());
  std::strncpy(header.arch, a.arch.c_str(), sizeof(header.arch) - 1);
  header.checksum = artifact::fnv1a64(file.data() + sizeof(header),
                                      file.size() - sizeof(header));
  std::memcpy(file.data(), &header, sizeof(header));
  return file;
}
