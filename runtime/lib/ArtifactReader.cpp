//===- ArtifactReader.cpp - Parse and validate a .fbin artifact -----------===//
//
// The artifact comes from disk or from a caller's buffer and may be
// truncated, corrupted or written by a buggy compiler: every read is bounded
// by its section, every count is checked against the bytes left before it
// drives a loop or an allocation, and every index, offset and size is
// proved in range here, once. Each error says what is wrong and where.
//
//===----------------------------------------------------------------------===//

#include "ArtifactReader.h"
#include "Error.h"

#include <algorithm>
#include <cstring>

using namespace fuse::artifact;

namespace fuse {
namespace runtime {

namespace {

using ull = unsigned long long;

uint32_t le32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

uint64_t le64(const uint8_t *p) {
  return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32;
}

const char *sectionName(uint32_t kind) {
  switch (static_cast<SectionKind>(kind)) {
  case SectionKind::Plan:
    return "Plan";
  case SectionKind::KernelImage:
    return "KernelImage";
  case SectionKind::KernelPtx:
    return "KernelPtx";
  case SectionKind::Weights:
    return "Weights";
  }
  return "unknown";
}

const char *kindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Weight:
    return "weight";
  case BufferKind::Intermediate:
    return "intermediate";
  }
  return "unknown";
}

/// Little-endian reads bounded by the Plan section. The first failed read
/// records the error and makes every later one fail too, so that a parser
/// checks failed() once per record rather than after every field.
class Cursor {
public:
  Cursor(const uint8_t *data, uint64_t size) : data(data), size(size) {}

  bool failed() const { return hasFailed; }
  uint64_t remaining() const { return size - pos; }
  /// Names the record being read, for error messages.
  void setContext(std::string context) { this->context = std::move(context); }

  uint32_t u32(const char *what) {
    const uint8_t *p = take(4, what);
    return p ? le32(p) : 0;
  }
  uint64_t u64(const char *what) {
    const uint8_t *p = take(8, what);
    return p ? le64(p) : 0;
  }
  int64_t i64(const char *what) { return static_cast<int64_t>(u64(what)); }

  std::string str(const char *what) {
    uint32_t length = u32(what);
    const uint8_t *p = take(length, what);
    if (!p)
      return std::string();
    std::string result(reinterpret_cast<const char *>(p), length);
    if (result.find('\0') != std::string::npos)
      error(format("%s contains a NUL byte", what));
    return result;
  }

  /// Reads the count of a list of records of at least `minBytes` each; a
  /// count that cannot fit in the bytes left is an error, so a corrupted
  /// count never drives a huge allocation or loop.
  uint32_t count(const char *what, uint64_t minBytes) {
    uint32_t n = u32(what);
    if (!hasFailed && n > remaining() / minBytes)
      error(format("%s is %u but only %llu bytes are left", what, n,
                   ull(remaining())));
    return hasFailed ? 0 : n;
  }

  void error(const std::string &message) {
    if (hasFailed)
      return;
    hasFailed = true;
    fail(FUSE_ERROR_FORMAT, "artifact: Plan section: %s: %s", context.c_str(),
         message.c_str());
  }

private:
  const uint8_t *take(uint64_t n, const char *what) {
    if (hasFailed)
      return nullptr;
    if (n > remaining()) {
      error(format("truncated: %s needs %llu bytes at offset %llu, %llu left",
                   what, ull(n), ull(pos), ull(remaining())));
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
  std::string context;
};

/// Reads `u32 rank; i64 dims[rank]`.
bool readDims(Cursor &cursor, uint32_t &rank, int64_t *dims) {
  rank = cursor.u32("rank");
  if (cursor.failed())
    return false;
  if (rank > FUSE_MAX_RANK) {
    cursor.error(
        format("rank %u is more than FUSE_MAX_RANK (%d)", rank, FUSE_MAX_RANK));
    return false;
  }
  for (uint32_t i = 0; i < rank; ++i)
    dims[i] = cursor.i64("dims");
  return !cursor.failed();
}

/// Checks the dtype and dims of `where` and computes its byte size.
fuse_status shapeBytes(const std::string &where, uint32_t dtype, uint32_t rank,
                       const int64_t *dims, uint64_t &bytes) {
  uint32_t elementSize = dtypeSize(dtype);
  if (elementSize == 0)
    return fail(FUSE_ERROR_FORMAT, "artifact: %s has unknown dtype %u",
                where.c_str(), dtype);
  bytes = elementSize;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return fail(FUSE_ERROR_FORMAT, "artifact: %s has dim %u = %lld",
                  where.c_str(), i, static_cast<long long>(dims[i]));
    uint64_t dim = static_cast<uint64_t>(dims[i]);
    if (dim != 0 && bytes > UINT64_MAX / dim)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %s is too large (its byte size overflows 64 bits)",
                  where.c_str());
    bytes *= dim;
  }
  return FUSE_OK;
}

fuse_status readTensorDesc(Cursor &cursor, const char *role, size_t index,
                           TensorDesc &tensor) {
  cursor.setContext(format("%s %zu", role, index));
  tensor.name = cursor.str("name");
  tensor.dtype = cursor.u32("dtype");
  if (!readDims(cursor, tensor.rank, tensor.dims))
    return FUSE_ERROR_FORMAT;
  return shapeBytes(format("%s %zu '%s'", role, index, tensor.name.c_str()),
                    tensor.dtype, tensor.rank, tensor.dims, tensor.bytes);
}

fuse_status checkUniqueNames(const std::vector<TensorDesc> &tensors,
                             const char *role) {
  // Sorted, so that a file with many inputs is not quadratic.
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return tensors[x].name < tensors[y].name ||
           (tensors[x].name == tensors[y].name && x < y);
  });
  for (size_t i = 1; i < order.size(); ++i)
    if (tensors[order[i]].name == tensors[order[i - 1]].name)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %ss %zu and %zu are both named "
                  "'%s'",
                  role, order[i - 1], order[i], tensors[order[i]].name.c_str());
  return FUSE_OK;
}

fuse_status readKernel(Cursor &cursor, size_t index, KernelDesc &kernel) {
  cursor.setContext(format("kernel %zu", index));
  kernel.name = cursor.str("name");
  for (uint32_t &g : kernel.grid)
    g = cursor.u32("grid");
  for (uint32_t &b : kernel.block)
    b = cursor.u32("block");
  kernel.sharedBytes = cursor.u32("sharedBytes");
  kernel.numArgs = cursor.u32("numArgs");
  if (cursor.failed())
    return FUSE_ERROR_FORMAT;
  if (kernel.name.empty())
    return fail(FUSE_ERROR_FORMAT, "artifact: kernel %zu has an empty name",
                index);
  for (int i = 0; i < 3; ++i)
    if (kernel.grid[i] == 0 || kernel.block[i] == 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: kernel %zu '%s' has grid %ux%ux%u and block "
                  "%ux%ux%u (every dimension must be at least 1)",
                  index, kernel.name.c_str(), kernel.grid[0], kernel.grid[1],
                  kernel.grid[2], kernel.block[0], kernel.block[1],
                  kernel.block[2]);
  return FUSE_OK;
}

/// Reads one plan's fields; validatePlan checks them.
fuse_status readPlan(Cursor &cursor, size_t index, size_t numInputs,
                     size_t numOutputs, PlanDesc &plan) {
  cursor.setContext(format("plan %zu", index));
  plan.name = cursor.str("name");
  if (cursor.failed())
    return FUSE_ERROR_FORMAT;
  cursor.setContext(format("plan '%s'", plan.name.c_str()));
  plan.arenaBytes = cursor.u64("arenaBytes");
  // kind, dtype, offset, bytes, rank.
  uint32_t numBuffers = cursor.count("numBuffers", 28);
  plan.buffers.resize(numBuffers);
  for (uint32_t i = 0; i < numBuffers && !cursor.failed(); ++i) {
    BufferDesc &buffer = plan.buffers[i];
    cursor.setContext(format("plan '%s' buffer %u", plan.name.c_str(), i));
    uint32_t kind = cursor.u32("kind");
    buffer.dtype = cursor.u32("dtype");
    buffer.offset = cursor.u64("offset");
    buffer.bytes = cursor.u64("bytes");
    if (!readDims(cursor, buffer.rank, buffer.dims))
      return FUSE_ERROR_FORMAT;
    if (kind > static_cast<uint32_t>(BufferKind::Intermediate))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' buffer %u has unknown kind %u",
                  plan.name.c_str(), i, kind);
    buffer.kind = static_cast<BufferKind>(kind);
  }
  cursor.setContext(format("plan '%s'", plan.name.c_str()));
  plan.inputBuffers.resize(numInputs);
  for (uint32_t &b : plan.inputBuffers)
    b = cursor.u32("inputBuffers");
  plan.outputBuffers.resize(numOutputs);
  for (uint32_t &b : plan.outputBuffers)
    b = cursor.u32("outputBuffers");
  // kernel, numArgs.
  uint32_t numLaunches = cursor.count("numLaunches", 8);
  plan.launches.resize(numLaunches);
  for (uint32_t i = 0; i < numLaunches && !cursor.failed(); ++i) {
    cursor.setContext(format("plan '%s' launch %u", plan.name.c_str(), i));
    LaunchDesc &launch = plan.launches[i];
    launch.kernel = cursor.u32("kernel");
    launch.args.resize(cursor.count("numArgs", 4));
    for (uint32_t &arg : launch.args)
      arg = cursor.u32("args");
  }
  return cursor.failed() ? FUSE_ERROR_FORMAT : FUSE_OK;
}

fuse_status checkSignatureBuffer(const PlanDesc &plan, const TensorDesc &tensor,
                                 const char *role, size_t index,
                                 uint32_t bufferIndex) {
  if (bufferIndex >= plan.buffers.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' %s %zu '%s' names buffer %u but the plan "
                "has %zu buffers",
                plan.name.c_str(), role, index, tensor.name.c_str(),
                bufferIndex, plan.buffers.size());
  const BufferDesc &buffer = plan.buffers[bufferIndex];
  bool same = buffer.dtype == tensor.dtype && buffer.rank == tensor.rank &&
              std::equal(buffer.dims, buffer.dims + buffer.rank, tensor.dims);
  if (!same)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' %s %zu '%s' is %s in the signature but "
                "its buffer %u is %s",
                plan.name.c_str(), role, index, tensor.name.c_str(),
                typeString(tensor.dtype, tensor.rank, tensor.dims).c_str(),
                bufferIndex,
                typeString(buffer.dtype, buffer.rank, buffer.dims).c_str());
  return FUSE_OK;
}

/// Checks that every buffer of `kind` (Input or Output) is named by
/// `named` (inputBuffers or outputBuffers), and that the inputs name
/// distinct input buffers (outputs may name any buffer, even one twice).
fuse_status checkNamedBuffers(const PlanDesc &plan,
                              const std::vector<uint32_t> &named,
                              BufferKind kind) {
  const char *role = kindName(kind);
  std::vector<int64_t> namedBy(plan.buffers.size(), -1);
  for (size_t i = 0; i < named.size(); ++i) {
    uint32_t b = named[i];
    if (kind == BufferKind::Input && namedBy[b] >= 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' inputs %lld and %zu both name buffer "
                  "%u",
                  plan.name.c_str(), static_cast<long long>(namedBy[b]), i, b);
    if (kind == BufferKind::Input && plan.buffers[b].kind != kind)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' input %zu names buffer %u, which is "
                  "not an input buffer (its kind is %s)",
                  plan.name.c_str(), i, b, kindName(plan.buffers[b].kind));
    namedBy[b] = static_cast<int64_t>(i);
  }
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    if (plan.buffers[b].kind == kind && namedBy[b] < 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' buffer %zu is an %s buffer but no %s "
                  "names it",
                  plan.name.c_str(), b, role, role);
  return FUSE_OK;
}

bool inArena(BufferKind kind) { return kind != BufferKind::Weight; }

fuse_status validatePlan(const Artifact &a, PlanDesc &plan) {
  const char *name = plan.name.c_str();
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    BufferDesc &buffer = plan.buffers[i];
    std::string where = format("plan '%s' buffer %zu", name, i);
    uint64_t bytes = 0;
    if (fuse_status s =
            shapeBytes(where, buffer.dtype, buffer.rank, buffer.dims, bytes))
      return s;
    if (bytes != buffer.bytes)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %s is %s (%llu bytes) but says %llu bytes",
                  where.c_str(),
                  typeString(buffer.dtype, buffer.rank, buffer.dims).c_str(),
                  ull(bytes), ull(buffer.bytes));
    if (buffer.offset % kAlignment != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %s offset %llu is not %llu-byte aligned",
                  where.c_str(), ull(buffer.offset), ull(kAlignment));
    bool arena = inArena(buffer.kind);
    uint64_t limit = arena ? plan.arenaBytes : a.weights.size;
    if (buffer.offset > limit || buffer.bytes > limit - buffer.offset)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %s (%s, %llu bytes at offset %llu) ends past "
                  "the %s (%llu bytes)",
                  where.c_str(), kindName(buffer.kind), ull(buffer.bytes),
                  ull(buffer.offset),
                  arena ? "plan's arena" : "Weights section", ull(limit));
  }

  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (fuse_status s = checkSignatureBuffer(plan, a.inputs[i], "input", i,
                                             plan.inputBuffers[i]))
      return s;
  for (size_t i = 0; i < a.outputs.size(); ++i)
    if (fuse_status s = checkSignatureBuffer(plan, a.outputs[i], "output", i,
                                             plan.outputBuffers[i]))
      return s;
  if (fuse_status s =
          checkNamedBuffers(plan, plan.inputBuffers, BufferKind::Input))
    return s;
  if (fuse_status s =
          checkNamedBuffers(plan, plan.outputBuffers, BufferKind::Output))
    return s;

  // Inputs are set once and read by every run, so no other arena buffer may
  // share their bytes.
  for (uint32_t in : plan.inputBuffers) {
    const BufferDesc &input = plan.buffers[in];
    for (size_t j = 0; j < plan.buffers.size(); ++j) {
      const BufferDesc &other = plan.buffers[j];
      if (j == in || !inArena(other.kind) || input.bytes == 0 ||
          other.bytes == 0)
        continue;
      if (input.offset < other.offset + other.bytes &&
          other.offset < input.offset + input.bytes)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: plan '%s' input buffer %u [%llu, %llu) "
                    "overlaps buffer %zu [%llu, %llu); an input keeps its "
                    "value across runs and cannot share bytes",
                    name, in, ull(input.offset),
                    ull(input.offset + input.bytes), j, ull(other.offset),
                    ull(other.offset + other.bytes));
    }
  }

  plan.bytesMoved = 0;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchDesc &launch = plan.launches[i];
    if (launch.kernel >= a.kernels.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu calls kernel %u but the "
                  "kernel table has %zu kernels",
                  name, i, launch.kernel, a.kernels.size());
    const KernelDesc &kernel = a.kernels[launch.kernel];
    if (launch.args.size() != kernel.numArgs)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu passes %zu arguments to "
                  "kernel %u '%s', which takes %u",
                  name, i, launch.args.size(), launch.kernel,
                  kernel.name.c_str(), kernel.numArgs);
    for (uint32_t arg : launch.args)
      if (arg >= plan.buffers.size())
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: plan '%s' launch %zu names buffer %u but the "
                    "plan has %zu buffers",
                    name, i, arg, plan.buffers.size());
    // A buffer passed twice (in place) is still one buffer's traffic.
    std::vector<uint32_t> distinct = launch.args;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()),
                   distinct.end());
    for (uint32_t arg : distinct) {
      uint64_t bytes = plan.buffers[arg].bytes;
      plan.bytesMoved = bytes > UINT64_MAX - plan.bytesMoved
                            ? UINT64_MAX
                            : plan.bytesMoved + bytes;
    }
  }
  return FUSE_OK;
}

fuse_status readPlanSection(const Blob &section, Artifact &a) {
  Cursor cursor(section.data, section.size);
  cursor.setContext("signature");
  // name length, dtype, rank.
  a.inputs.resize(cursor.count("numInputs", 12));
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (fuse_status s = readTensorDesc(cursor, "input", i, a.inputs[i]))
      return s;
  cursor.setContext("signature");
  a.outputs.resize(cursor.count("numOutputs", 12));
  for (size_t i = 0; i < a.outputs.size(); ++i)
    if (fuse_status s = readTensorDesc(cursor, "output", i, a.outputs[i]))
      return s;
  if (cursor.failed())
    return FUSE_ERROR_FORMAT;
  if (fuse_status s = checkUniqueNames(a.inputs, "input"))
    return s;
  if (fuse_status s = checkUniqueNames(a.outputs, "output"))
    return s;

  cursor.setContext("kernel table");
  // name length, grid, block, sharedBytes, numArgs.
  a.kernels.resize(cursor.count("numKernels", 4 + 12 + 12 + 4 + 4));
  for (size_t i = 0; i < a.kernels.size(); ++i)
    if (fuse_status s = readKernel(cursor, i, a.kernels[i]))
      return s;

  cursor.setContext("plan table");
  // name length, arenaBytes, numBuffers, input and output buffers,
  // numLaunches.
  uint64_t minPlanBytes =
      4 + 8 + 4 + 4 * uint64_t(a.inputs.size() + a.outputs.size()) + 4;
  a.plans.resize(cursor.count("numPlans", minPlanBytes));
  if (cursor.failed())
    return FUSE_ERROR_FORMAT;
  for (size_t i = 0; i < a.plans.size(); ++i) {
    PlanDesc &plan = a.plans[i];
    if (fuse_status s =
            readPlan(cursor, i, a.inputs.size(), a.outputs.size(), plan))
      return s;
    if (plan.name.empty())
      return fail(FUSE_ERROR_FORMAT, "artifact: plan %zu has an empty name", i);
    for (size_t j = 0; j < i; ++j)
      if (a.plans[j].name == plan.name)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: plans %zu and %zu are both named '%s'", j, i,
                    plan.name.c_str());
    if (fuse_status s = validatePlan(a, plan))
      return s;
  }
  if (cursor.remaining() != 0)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: Plan section has %llu bytes left after the last "
                "plan",
                ull(cursor.remaining()));
  if (a.plans.empty())
    return fail(FUSE_ERROR_FORMAT, "artifact: the artifact has no plans");
  if (a.plans[0].name != "main")
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the first plan is '%s'; it must be 'main'",
                a.plans[0].name.c_str());
  return FUSE_OK;
}

uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// Places the weights and then each plan's arena in one allocation.
fuse_status layOutMemory(Artifact &a) {
  // Each region is below 2^64 - kRegionAlignment, so rounding it up cannot
  // wrap; the running total is checked against the same bound.
  const uint64_t limit = UINT64_MAX - kRegionAlignment;
  uint64_t total = 0;
  auto place = [&](uint64_t bytes, uint64_t &offset) {
    if (bytes > limit || total > limit - alignTo(bytes, kRegionAlignment))
      return false;
    offset = total;
    total += alignTo(bytes, kRegionAlignment);
    return true;
  };
  uint64_t weightsOffset = 0;
  bool ok = place(a.weights.size, weightsOffset);
  for (PlanDesc &plan : a.plans)
    ok = ok && place(plan.arenaBytes, plan.arenaOffset);
  if (!ok)
    return fail(FUSE_ERROR_FORMAT, "artifact: the weights and plan arenas "
                                   "together need more than 2^64 bytes");
  a.memoryBytes = total;
  return FUSE_OK;
}

fuse_status readSections(const uint8_t *bytes, uint64_t size,
                         const FileHeader &header, Artifact &a) {
  uint64_t tableEnd =
      sizeof(FileHeader) + uint64_t(header.numSections) * sizeof(SectionEntry);
  if (tableEnd > size)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the section table (%u entries) ends at byte %llu, "
                "past the end of the file (%llu bytes)",
                header.numSections, ull(tableEnd), ull(size));
  std::vector<SectionEntry> entries(header.numSections);
  Blob *blobs[5] = {nullptr, nullptr, &a.kernelImage, &a.kernelPtx, &a.weights};
  Blob plan;
  blobs[static_cast<uint32_t>(SectionKind::Plan)] = &plan;
  for (uint32_t i = 0; i < header.numSections; ++i) {
    const uint8_t *p = bytes + sizeof(FileHeader) + i * sizeof(SectionEntry);
    SectionEntry &e = entries[i];
    e.kind = le32(p);
    e.reserved = le32(p + 4);
    e.offset = le64(p + 8);
    e.size = le64(p + 16);
    const char *name = sectionName(e.kind);
    if (e.kind < 1 || e.kind > 4)
      return fail(FUSE_ERROR_FORMAT, "artifact: section %u has unknown kind %u",
                  i, e.kind);
    if (e.reserved != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) has reserved field %u, not 0", i,
                  name, e.reserved);
    if (e.offset % kAlignment != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) offset %llu is not %llu-byte "
                  "aligned",
                  i, name, ull(e.offset), ull(kAlignment));
    if (e.offset < tableEnd)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) at offset %llu overlaps the "
                  "header and section table (bytes [0, %llu))",
                  i, name, ull(e.offset), ull(tableEnd));
    if (e.offset > size || e.size > size - e.offset)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) [%llu, +%llu) runs past the end "
                  "of the file (%llu bytes)",
                  i, name, ull(e.offset), ull(e.size), ull(size));
    for (uint32_t j = 0; j < i; ++j) {
      const SectionEntry &o = entries[j];
      if (o.kind == e.kind)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: sections %u and %u are both %s sections", j, i,
                    name);
      if (e.offset < o.offset + o.size && o.offset < e.offset + e.size)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: section %u (%s) overlaps section %u (%s)", i,
                    name, j, sectionName(o.kind));
    }
    *blobs[e.kind] = Blob{bytes + e.offset, e.size, true};
  }
  if (!plan.present)
    return fail(FUSE_ERROR_FORMAT, "artifact: no Plan section");
  if (fuse_status s = readPlanSection(plan, a))
    return s;

  const char *target = a.target == Target::Cpu ? "cpu" : "cuda";
  if (!a.kernelImage.present)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: a %s artifact needs a KernelImage section", target);
  if (a.target == Target::Cpu && a.kernelPtx.present)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: a cpu artifact cannot have a KernelPtx section");
  // A Cuda artifact may carry PTX alone (an empty image): the driver JITs it.
  bool haveCode = a.kernelImage.size != 0 ||
                  (a.target == Target::Cuda && a.kernelPtx.size != 0);
  if (!a.kernels.empty() && !haveCode)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the kernel table has %zu kernels but the "
                "KernelImage section is empty%s",
                a.kernels.size(),
                a.target == Target::Cuda ? " and there is no KernelPtx" : "");
  return layOutMemory(a);
}

} // namespace

std::string typeString(uint32_t dtype, uint32_t rank, const int64_t *dims) {
  const char *name = dtypeName(dtype);
  std::string result = name ? name : format("dtype(%u)", dtype);
  result += '[';
  for (uint32_t i = 0; i < rank; ++i)
    result += format(i ? ",%lld" : "%lld", static_cast<long long>(dims[i]));
  return result + ']';
}

std::string describeMemory(const Artifact &a) {
  std::string result = format("weights %llu", ull(a.weights.size));
  for (const PlanDesc &plan : a.plans)
    result += format(" + plan '%s' arena %llu", plan.name.c_str(),
                     ull(plan.arenaBytes));
  return result + format(", each rounded up to a multiple of %llu",
                         ull(kRegionAlignment));
}

fuse_status readArtifact(const void *data, size_t size, Artifact &a) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (size == 0 ||
      std::memcmp(bytes, kMagic, std::min(size, sizeof(kMagic))) != 0)
    return fail(FUSE_ERROR_FORMAT, "artifact: not a fuse artifact (bad magic)");
  if (size < sizeof(FileHeader))
    return fail(FUSE_ERROR_FORMAT,
                "artifact: truncated: the file has %zu bytes, less than the "
                "%zu-byte header",
                size, sizeof(FileHeader));
  FileHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  header.formatVersion = le32(bytes + 8);
  header.target = le32(bytes + 12);
  header.fileSize = le64(bytes + 16);
  header.checksum = le64(bytes + 24);
  header.numSections = le32(bytes + 32);
  header.reserved = le32(bytes + 36);

  if (header.formatVersion != kFormatVersion)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: format version %u, this runtime reads version %u",
                header.formatVersion, kFormatVersion);
  if (header.fileSize > size)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: truncated: header says %llu bytes, file has %zu",
                ull(header.fileSize), size);
  if (header.fileSize < size)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: header says %llu bytes, file has %zu (trailing "
                "bytes)",
                ull(header.fileSize), size);
  if (fnv1a64(bytes + sizeof(header), size - sizeof(header)) != header.checksum)
    return fail(FUSE_ERROR_FORMAT, "artifact: checksum mismatch (file "
                                   "corrupted)");
  if (header.target != static_cast<uint32_t>(Target::Cpu) &&
      header.target != static_cast<uint32_t>(Target::Cuda))
    return fail(FUSE_ERROR_FORMAT,
                "artifact: unknown target %u (1 is cpu, 2 is cuda)",
                header.target);
  if (header.reserved != 0)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: header reserved field is %u, not 0",
                header.reserved);
  const char *archEnd = static_cast<const char *>(
      std::memchr(header.arch, '\0', sizeof(header.arch)));
  if (!archEnd)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the header's arch string is not NUL-terminated");
  a.target = static_cast<Target>(header.target);
  a.arch.assign(header.arch, size_t(archEnd - header.arch));
  return readSections(bytes, size, header, a);
}

} // namespace runtime
} // namespace fuse
