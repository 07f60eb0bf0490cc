//===- ArtifactReader.cpp - Parse and validate a .fbin artifact -----------===//
//
// The artifact comes from disk or from a caller's buffer and may be
// truncated, corrupted or written by a buggy compiler. The records are
// decoded by the schema's Decoder (bounded reads, counts checked before
// they drive an allocation); here every index, offset and size is proved
// in range, once, and a library launch's parameters are checked against
// the buffers it is given, so that no call reads or writes outside them.
// Each error says what is wrong and where.
//
//===----------------------------------------------------------------------===//

#include "ArtifactReader.h"
#include "Error.h"

#include <algorithm>
#include <cmath>
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
  case SectionKind::Metadata:
    return "Metadata";
  case SectionKind::Build:
    return "Build";
  }
  return "unknown";
}

const char *kindName(uint32_t kind) {
  switch (static_cast<BufferKind>(kind)) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Weight:
    return "weight";
  case BufferKind::Intermediate:
    return "intermediate";
  case BufferKind::Check:
    return "check";
  }
  return "unknown";
}

bool isKind(uint32_t kind, BufferKind expected) {
  return kind == static_cast<uint32_t>(expected);
}

/// Checks the dtype and dims of `where` and computes its byte size.
fuse_status shapeBytes(const std::string &where, uint32_t dtype,
                       const std::vector<int64_t> &dims, uint64_t &bytes) {
  uint32_t elementSize = dtypeSize(dtype);
  if (elementSize == 0)
    return fail(FUSE_ERROR_FORMAT, "artifact: %s has unknown dtype %u",
                where.c_str(), dtype);
  bytes = elementSize;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      return fail(FUSE_ERROR_FORMAT, "artifact: %s has dim %zu = %lld",
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

fuse_status checkSignature(const std::vector<TensorDesc> &tensors,
                           const char *role, std::vector<uint64_t> &bytes) {
  bytes.assign(tensors.size(), 0);
  for (size_t i = 0; i < tensors.size(); ++i)
    if (fuse_status s = shapeBytes(
            format("%s %zu '%s'", role, i, tensors[i].name.c_str()),
            tensors[i].dtype, tensors[i].dims, bytes[i]))
      return s;
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
                  "artifact: %ss %zu and %zu are both named '%s'", role,
                  order[i - 1], order[i], tensors[order[i]].name.c_str());
  return FUSE_OK;
}

fuse_status checkSignatureBuffer(const Plan &plan, const TensorDesc &tensor,
                                 const char *role, size_t index,
                                 uint32_t bufferIndex) {
  if (bufferIndex >= plan.buffers.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' %s %zu '%s' names buffer %u but the plan "
                "has %zu buffers",
                plan.name.c_str(), role, index, tensor.name.c_str(),
                bufferIndex, plan.buffers.size());
  const BufferDesc &buffer = plan.buffers[bufferIndex];
  if (buffer.dtype != tensor.dtype || buffer.dims != tensor.dims)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' %s %zu '%s' is %s in the signature but "
                "its buffer %u is %s",
                plan.name.c_str(), role, index, tensor.name.c_str(),
                typeString(tensor.dtype, tensor.dims).c_str(), bufferIndex,
                typeString(buffer.dtype, buffer.dims).c_str());
  return FUSE_OK;
}

/// Checks that every buffer of `kind` (Input or Output) is named by
/// `named` (inputBuffers or outputBuffers), and that the inputs name
/// distinct input buffers (outputs may name any buffer, even one twice).
fuse_status checkNamedBuffers(const Plan &plan,
                              const std::vector<uint32_t> &named,
                              BufferKind kind) {
  const char *role = kindName(static_cast<uint32_t>(kind));
  std::vector<int64_t> namedBy(plan.buffers.size(), -1);
  for (size_t i = 0; i < named.size(); ++i) {
    uint32_t b = named[i];
    if (kind == BufferKind::Input && namedBy[b] >= 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' inputs %lld and %zu both name buffer "
                  "%u",
                  plan.name.c_str(), static_cast<long long>(namedBy[b]), i, b);
    if (kind == BufferKind::Input && !isKind(plan.buffers[b].kind, kind))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' input %zu names buffer %u, which is "
                  "not an input buffer (its kind is %s)",
                  plan.name.c_str(), i, b, kindName(plan.buffers[b].kind));
    namedBy[b] = static_cast<int64_t>(i);
  }
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    if (isKind(plan.buffers[b].kind, kind) && namedBy[b] < 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' buffer %zu is an %s buffer but no %s "
                  "names it",
                  plan.name.c_str(), b, role, role);
  return FUSE_OK;
}

bool inArena(uint32_t kind) { return !isKind(kind, BufferKind::Weight); }

bool overlaps(uint64_t offset, uint64_t bytes, uint64_t otherOffset,
              uint64_t otherBytes) {
  return bytes != 0 && otherBytes != 0 && offset < otherOffset + otherBytes &&
         otherOffset < offset + bytes;
}

/// a * b, or false when it overflows or either is negative.
bool mul(int64_t a, int64_t b, int64_t &result) {
  return a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &result);
}

/// What a library launch's operand must be: a buffer of `dtype` with at
/// least (exactly, if `exact`) `elements` elements.
struct Operand {
  const char *name;
  int64_t elements;
  bool exact;
  uint32_t dtype;
};

/// Whether `dtype` is one a library call computes on: float32, float16 or
/// bfloat16.
bool isLibraryFloat(uint32_t dtype) {
  return dtype == uint32_t(DType::Float32) ||
         dtype == uint32_t(DType::Float16) ||
         dtype == uint32_t(DType::BFloat16);
}

const char *libraryTypeName(uint32_t dtype) {
  const char *name = dtypeName(dtype);
  return name ? name : "an unknown type";
}

/// The operands of a matmul, in args order; false if the parameters are
/// out of range (message in `problem`).
bool matmulOperands(const MatmulParams &p, std::vector<Operand> &operands,
                    std::string &problem) {
  if (p.batch < 1 || p.m < 1 || p.n < 1 || p.k < 1) {
    problem = format("batch %lld, m %lld, n %lld and k %lld must be at least "
                     "1",
                     (long long)p.batch, (long long)p.m, (long long)p.n,
                     (long long)p.k);
    return false;
  }
  if (p.transA > 1 || p.transB > 1 || p.hasResidual > 1 || p.epilogue > 3 ||
      p.tf32 > 1) {
    problem = format("transA %u, transB %u, hasResidual %u and tf32 %u must "
                     "be 0 or 1, epilogue %u at most 3",
                     p.transA, p.transB, p.hasResidual, p.tf32, p.epilogue);
    return false;
  }
  uint32_t f32 = uint32_t(DType::Float32);
  if (!isLibraryFloat(p.inputType) ||
      (p.outputType != f32 && p.outputType != p.inputType) ||
      (p.tf32 && p.inputType != f32)) {
    problem = format("inputs of %s and outputs of %s%s: the inputs must be "
                     "float32, float16 or bfloat16, the outputs float32 or "
                     "the inputs' type, and tf32 takes float32 inputs",
                     libraryTypeName(p.inputType),
                     libraryTypeName(p.outputType), p.tf32 ? " with tf32" : "");
    return false;
  }
  // A is rowsA x colsA with rows lda apart; likewise B.
  int64_t rowsA = p.transA ? p.k : p.m, colsA = p.transA ? p.m : p.k;
  int64_t rowsB = p.transB ? p.n : p.k, colsB = p.transB ? p.k : p.n;
  if (p.lda < colsA || p.ldb < colsB || p.strideA < 0 || p.strideB < 0) {
    problem = format("lda %lld (at least %lld), ldb %lld (at least %lld) or "
                     "a batch stride (%lld, %lld) is out of range",
                     (long long)p.lda, (long long)colsA, (long long)p.ldb,
                     (long long)colsB, (long long)p.strideA,
                     (long long)p.strideB);
    return false;
  }
  // The last element a matrix operand touches, plus one.
  auto extent = [](int64_t batch, int64_t stride, int64_t rows, int64_t ld,
                   int64_t cols, int64_t &result) {
    int64_t last, rowEnd;
    return mul(batch - 1, stride, last) && mul(rows - 1, ld, rowEnd) &&
           !__builtin_add_overflow(last, rowEnd, &last) &&
           !__builtin_add_overflow(last, cols, &result);
  };
  int64_t a, b, d;
  if (!extent(p.batch, p.strideA, rowsA, p.lda, colsA, a) ||
      !extent(p.batch, p.strideB, rowsB, p.ldb, colsB, b) ||
      !mul(p.batch, p.m, d) || !mul(d, p.n, d)) {
    problem = "its operands' sizes overflow 64 bits";
    return false;
  }
  operands = {{"A", a, false, p.inputType}, {"B", b, false, p.inputType}};
  if (p.epilogue == uint32_t(MatmulEpilogue::Bias) ||
      p.epilogue == uint32_t(MatmulEpilogue::BiasRelu))
    operands.push_back({"bias", p.n, true, p.outputType});
  if (p.hasResidual)
    operands.push_back({"C", d, true, p.outputType});
  operands.push_back({"D", d, true, p.outputType});
  return true;
}

/// The operands of a convolution, in args order.
bool convOperands(const ConvParams &p, std::vector<Operand> &operands,
                  std::string &problem) {
  const int64_t limit = int64_t(1) << 31;
  const std::pair<const char *, int64_t> positive[] = {
      {"n", p.n},           {"c", p.c},           {"h", p.h},
      {"w", p.w},           {"k", p.k},           {"r", p.r},
      {"s", p.s},           {"outH", p.outH},     {"outW", p.outW},
      {"strideH", p.strideH}, {"strideW", p.strideW},
      {"dilationH", p.dilationH}, {"dilationW", p.dilationW},
      {"groups", p.groups}};
  for (auto [field, v] : positive)
    if (v < 1 || v > limit) {
      problem = format("%s is %lld; it must be in [1, 2^31]", field,
                       (long long)v);
      return false;
    }
  if (p.padH < 0 || p.padW < 0 || p.padH > limit || p.padW > limit) {
    problem = format("pads (%lld, %lld) must be in [0, 2^31]",
                     (long long)p.padH, (long long)p.padW);
    return false;
  }
  if (p.hasBias > 1 || p.hasResidual > 1 || p.activation > 1 || p.tf32 > 1) {
    problem = format("hasBias %u, hasResidual %u and tf32 %u must be 0 or 1, "
                     "activation %u at most 1",
                     p.hasBias, p.hasResidual, p.tf32, p.activation);
    return false;
  }
  if (p.layout > uint32_t(ConvLayout::Nhwc) ||
      (p.layout == uint32_t(ConvLayout::Nhwc) && p.groups != 1)) {
    problem = format("layout %u with %lld groups: it must be 0 (NCHW) or 1 "
                     "(NHWC, of one group)",
                     p.layout, (long long)p.groups);
    return false;
  }
  if (!isLibraryFloat(p.dataType) ||
      (p.tf32 && p.dataType != uint32_t(DType::Float32))) {
    problem = format("data of %s%s: it must be float32, float16 or "
                     "bfloat16, and tf32 takes float32",
                     libraryTypeName(p.dataType), p.tf32 ? " with tf32" : "");
    return false;
  }
  if (p.c % p.groups != 0 || p.k % p.groups != 0) {
    problem = format("%lld groups do not divide %lld input and %lld output "
                     "channels",
                     (long long)p.groups, (long long)p.c, (long long)p.k);
    return false;
  }
  int64_t spanH = p.dilationH * (p.r - 1) + 1,
          spanW = p.dilationW * (p.s - 1) + 1;
  if (p.h + 2 * p.padH < spanH || p.w + 2 * p.padW < spanW) {
    problem = format("its %lldx%lld window (dilated) is larger than the "
                     "padded %lldx%lld input",
                     (long long)spanH, (long long)spanW,
                     (long long)(p.h + 2 * p.padH),
                     (long long)(p.w + 2 * p.padW));
    return false;
  }
  int64_t outH = (p.h + 2 * p.padH - spanH) / p.strideH + 1,
          outW = (p.w + 2 * p.padW - spanW) / p.strideW + 1;
  if (p.outH != outH || p.outW != outW) {
    problem = format("its output is %lldx%lld but its input, window, pads "
                     "and strides give %lldx%lld",
                     (long long)p.outH, (long long)p.outW, (long long)outH,
                     (long long)outW);
    return false;
  }
  int64_t x, w, y;
  if (!mul(p.n, p.c, x) || !mul(x, p.h, x) || !mul(x, p.w, x) ||
      !mul(p.k, p.c / p.groups, w) || !mul(w, p.r, w) || !mul(w, p.s, w) ||
      !mul(p.n, p.k, y) || !mul(y, p.outH, y) || !mul(y, p.outW, y)) {
    problem = "its operands' sizes overflow 64 bits";
    return false;
  }
  uint32_t t = p.dataType;
  operands = {{"X", x, true, t}, {"W", w, true, t}};
  if (p.hasBias)
    operands.push_back({"bias", p.k, true, t});
  if (p.hasResidual)
    operands.push_back({"Z", y, true, t});
  operands.push_back({"Y", y, true, t});
  return true;
}

fuse_status validateLaunch(const Artifact &a, Plan &plan, size_t index) {
  Launch &launch = plan.launches[index];
  const char *name = plan.name.c_str();
  if (launch.kind < 1 || launch.kind > kMaxLaunchKind)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu has unknown kind %u", name,
                index, launch.kind);
  if (launch.group != kNone && launch.group >= a.metadata.groups.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu names group %u but the "
                "metadata has %zu groups",
                name, index, launch.group, a.metadata.groups.size());
  for (uint32_t arg : launch.args) {
    if (arg >= plan.buffers.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu names buffer %u but the "
                  "plan has %zu buffers",
                  name, index, arg, plan.buffers.size());
    // Kernels and libraries load whole vectors from their operands.
    if (plan.buffers[arg].offset % kAlignment != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu passes buffer %u, whose "
                  "offset %llu is not %llu-byte aligned",
                  name, index, arg, ull(plan.buffers[arg].offset),
                  ull(kAlignment));
  }

  if (!launch.isLibrary()) {
    if (launch.kernel >= a.kernels.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu calls kernel %u but the "
                  "kernel table has %zu kernels",
                  name, index, launch.kernel, a.kernels.size());
    const KernelDesc &kernel = a.kernels[launch.kernel];
    if (launch.args.size() != kernel.numArgs)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu passes %zu arguments to "
                  "kernel %u '%s', which takes %u",
                  name, index, launch.args.size(), launch.kernel,
                  kernel.name.c_str(), kernel.numArgs);
    for (int i = 0; i < 3; ++i)
      if (launch.grid[i] == 0 || launch.block[i] == 0)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: plan '%s' launch %zu of kernel '%s' has grid "
                    "%ux%ux%u and block %ux%ux%u (every dimension must be at "
                    "least 1)",
                    name, index, kernel.name.c_str(), launch.grid[0],
                    launch.grid[1], launch.grid[2], launch.block[0],
                    launch.block[1], launch.block[2]);
    if (!launch.params.empty() || launch.workspaceBytes != 0 ||
        launch.workspaceOffset != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu of kernel '%s' has library "
                  "parameters or a workspace",
                  name, index, kernel.name.c_str());
    return FUSE_OK;
  }

  const char *library = launchKindName(launch.kind);
  if (a.target != Target::Cuda)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu calls %s, which a cpu "
                "artifact cannot",
                name, index, library);
  if (launch.kernel != kNone)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu calls %s but names kernel %u",
                name, index, library, launch.kernel);
  std::string problem;
  std::vector<Operand> operands;
  bool decoded =
      launch.kind == uint32_t(LaunchKind::Matmul)
          ? decode(launch.params, launch.matmul, problem, a.formatVersion)
          : decode(launch.params, launch.conv, problem, a.formatVersion);
  if (!decoded)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu: %s parameters: %s", name,
                index, library, problem.c_str());
  bool valid = launch.kind == uint32_t(LaunchKind::Matmul)
                   ? matmulOperands(launch.matmul, operands, problem)
                   : convOperands(launch.conv, operands, problem);
  if (!valid)
    return fail(FUSE_ERROR_FORMAT, "artifact: plan '%s' launch %zu (%s): %s",
                name, index, library, problem.c_str());
  if (launch.args.size() != operands.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu (%s) passes %zu buffers; its "
                "parameters take %zu",
                name, index, library, launch.args.size(), operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    const BufferDesc &buffer = plan.buffers[launch.args[i]];
    uint64_t need =
        uint64_t(operands[i].elements) * dtypeSize(operands[i].dtype);
    bool fits = operands[i].exact ? buffer.bytes == need : buffer.bytes >= need;
    if (buffer.dtype != operands[i].dtype || !fits)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu (%s): operand %s is buffer "
                  "%u, %s, but the call needs %s%llu %s elements",
                  name, index, library, operands[i].name, launch.args[i],
                  typeString(buffer.dtype, buffer.dims).c_str(),
                  operands[i].exact ? "" : "at least ",
                  ull(operands[i].elements), dtypeName(operands[i].dtype));
  }
  // The output is written, so it must not be a weight or an input.
  const BufferDesc &out = plan.buffers[launch.args.back()];
  if (!isKind(out.kind, BufferKind::Output) &&
      !isKind(out.kind, BufferKind::Intermediate))
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu (%s) writes buffer %u, which "
                "is the plan's %s (only outputs and intermediates can be "
                "written)",
                name, index, library, launch.args.back(), kindName(out.kind));
  if (launch.workspaceOffset % kAlignment != 0 ||
      launch.workspaceOffset > plan.arenaBytes ||
      launch.workspaceBytes > plan.arenaBytes - launch.workspaceOffset)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' launch %zu (%s) has a workspace of %llu "
                "bytes at offset %llu, which is not 64-byte aligned or ends "
                "past the plan's arena (%llu bytes)",
                name, index, library, ull(launch.workspaceBytes),
                ull(launch.workspaceOffset), ull(plan.arenaBytes));
  for (uint32_t in : plan.inputBuffers)
    if (overlaps(launch.workspaceOffset, launch.workspaceBytes,
                 plan.buffers[in].offset, plan.buffers[in].bytes))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu (%s) has its workspace on "
                  "input buffer %u",
                  name, index, library, in);
  // The libraries read their inputs while they write the output (and
  // cuDNN's unfused path adds into it): no input may share its bytes, nor
  // the workspace any operand's.
  for (size_t i = 0; i + 1 < launch.args.size(); ++i) {
    const BufferDesc &in = plan.buffers[launch.args[i]];
    if (inArena(in.kind) &&
        overlaps(in.offset, in.bytes, out.offset, out.bytes))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu (%s) writes buffer %u, "
                  "which shares bytes with its operand %s (buffer %u)",
                  name, index, library, launch.args.back(), operands[i].name,
                  launch.args[i]);
  }
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const BufferDesc &operand = plan.buffers[launch.args[i]];
    if (inArena(operand.kind) &&
        overlaps(launch.workspaceOffset, launch.workspaceBytes,
                 operand.offset, operand.bytes))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' launch %zu (%s) has its workspace on "
                  "its operand %s (buffer %u)",
                  name, index, library, operands[i].name, launch.args[i]);
  }
  return FUSE_OK;
}

uint64_t addSaturating(uint64_t a, uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/// A plan's choices: at least two candidates each, every candidate a
/// non-empty run of launches starting where the one before it ends, the
/// choices in launch order without overlapping, inside the plan; a
/// selection in range, a tuned flag of 0 or 1, times finite and not
/// negative.
fuse_status validateChoices(const Plan &plan) {
  const char *name = plan.name.c_str();
  // Where the previous choice ends (its last candidate's end).
  uint64_t previousEnd = 0;
  for (size_t c = 0; c < plan.choices.size(); ++c) {
    const ChoiceDesc &choice = plan.choices[c];
    const std::vector<CandidateDesc> &candidates = choice.candidates;
    if (candidates.size() < 2)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' choice %zu '%s' has %zu candidate%s; "
                  "a choice has at least 2",
                  name, c, choice.key.c_str(), candidates.size(),
                  candidates.size() == 1 ? "" : "s");
    if (choice.selected >= candidates.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' choice %zu '%s' selects candidate %u "
                  "but has %zu candidates",
                  name, c, choice.key.c_str(), choice.selected,
                  candidates.size());
    if (choice.tuned > 1)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' choice %zu '%s' has tuned flag %u, "
                  "not 0 or 1",
                  name, c, choice.key.c_str(), choice.tuned);
    if (c > 0 && candidates[0].firstLaunch < previousEnd)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' choice %zu '%s' starts at launch %u, "
                  "before choice %zu ends (launch %llu): choices are in "
                  "launch order and do not overlap",
                  name, c, choice.key.c_str(), candidates[0].firstLaunch,
                  c - 1, ull(previousEnd));
    for (size_t i = 0; i < candidates.size(); ++i) {
      const CandidateDesc &candidate = candidates[i];
      std::string where =
          format("plan '%s' choice %zu candidate %zu '%s'", name, c, i,
                 candidate.label.c_str());
      uint64_t end = uint64_t(candidate.firstLaunch) + candidate.numLaunches;
      if (candidate.numLaunches == 0)
        return fail(FUSE_ERROR_FORMAT, "artifact: %s has no launches",
                    where.c_str());
      if (i > 0 && candidate.firstLaunch != previousEnd)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: %s starts at launch %u, not where candidate "
                    "%zu ends (launch %llu)",
                    where.c_str(), candidate.firstLaunch, i - 1,
                    ull(previousEnd));
      if (end > plan.launches.size())
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: %s has launches [%u, %llu), past the plan's "
                    "%zu launches",
                    where.c_str(), candidate.firstLaunch, ull(end),
                    plan.launches.size());
      if (!std::isfinite(candidate.timeMs) || candidate.timeMs < 0)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: %s has time %g ms; a time is finite and not "
                    "negative (0: not measured)",
                    where.c_str(), double(candidate.timeMs));
      previousEnd = end;
    }
  }
  return FUSE_OK;
}

/// Checks that each index check names a Check buffer (float32, rank 0) and
/// says what it checks, that each Check buffer is some check's, and that
/// they sit side by side.
fuse_status validateChecks(const Plan &plan) {
  const char *name = plan.name.c_str();
  std::vector<bool> named(plan.buffers.size(), false);
  for (size_t i = 0; i < plan.checks.size(); ++i) {
    const CheckDesc &check = plan.checks[i];
    if (check.buffer >= plan.buffers.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' check %zu names buffer %u, past the "
                  "plan's %zu buffers",
                  name, i, check.buffer, plan.buffers.size());
    const BufferDesc &buffer = plan.buffers[check.buffer];
    if (!isKind(buffer.kind, BufferKind::Check) ||
        buffer.dtype != uint32_t(DType::Float32) || !buffer.dims.empty())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' check %zu names buffer %u (%s, %s); "
                  "a check's buffer is a check buffer of one float32",
                  name, i, check.buffer, kindName(buffer.kind),
                  typeString(buffer.dtype, buffer.dims).c_str());
    if (check.opType.empty() || check.range.empty())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' check %zu has an empty op type or "
                  "range",
                  name, i);
    named[check.buffer] = true;
  }
  uint64_t checkBuffers = 0;
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    if (!isKind(plan.buffers[b].kind, BufferKind::Check))
      continue;
    if (!named[b])
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' buffer %zu is a check buffer but no "
                  "check names it",
                  name, b);
    ++checkBuffers;
  }
  // Side by side: the runtime reads them in one copy (checkSpan).
  auto [first, end] = checkSpan(plan);
  if (checkBuffers && end - first > checkBuffers * kMaxCheckStride)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: plan '%s' has %llu check buffers spread over %llu "
                "bytes of its arena; they must be side by side (%llu bytes "
                "at most)",
                name, ull(checkBuffers), ull(end - first),
                ull(checkBuffers * kMaxCheckStride));
  return FUSE_OK;
}

fuse_status validatePlan(Artifact &a, Plan &plan) {
  const char *name = plan.name.c_str();
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    BufferDesc &buffer = plan.buffers[i];
    std::string where = format("plan '%s' buffer %zu", name, i);
    if (buffer.kind > static_cast<uint32_t>(BufferKind::Check))
      return fail(FUSE_ERROR_FORMAT, "artifact: %s has unknown kind %u",
                  where.c_str(), buffer.kind);
    uint64_t bytes = 0;
    if (fuse_status s = shapeBytes(where, buffer.dtype, buffer.dims, bytes))
      return s;
    if (bytes != buffer.bytes)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: %s is %s (%llu bytes) but says %llu bytes",
                  where.c_str(), typeString(buffer.dtype, buffer.dims).c_str(),
                  ull(bytes), ull(buffer.bytes));
    // Outputs and intermediates may be views of a value's bytes at any
    // offset, as long as no launch passes them (validateLaunch).
    if (buffer.offset % kAlignment != 0 &&
        !isKind(buffer.kind, BufferKind::Output) &&
        !isKind(buffer.kind, BufferKind::Intermediate))
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

  if (fuse_status s = validateChecks(plan))
    return s;

  // Inputs are set once and read by every run, so no other arena buffer may
  // share their bytes.
  for (uint32_t in : plan.inputBuffers) {
    const BufferDesc &input = plan.buffers[in];
    for (size_t j = 0; j < plan.buffers.size(); ++j) {
      const BufferDesc &other = plan.buffers[j];
      if (j == in || !inArena(other.kind))
        continue;
      if (overlaps(input.offset, input.bytes, other.offset, other.bytes))
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: plan '%s' input buffer %u [%llu, %llu) "
                    "overlaps buffer %zu [%llu, %llu); an input keeps its "
                    "value across runs and cannot share bytes",
                    name, in, ull(input.offset),
                    ull(input.offset + input.bytes), j, ull(other.offset),
                    ull(other.offset + other.bytes));
    }
  }

  plan.launchBytes.assign(plan.launches.size(), 0);
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    if (fuse_status s = validateLaunch(a, plan, i))
      return s;
    const Launch &launch = plan.launches[i];
    a.matmulLaunches += launch.kind == uint32_t(LaunchKind::Matmul);
    a.convLaunches += launch.kind == uint32_t(LaunchKind::Conv);
    // A buffer passed twice (in place) is still one buffer's traffic.
    std::vector<uint32_t> distinct = launch.args;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()),
                   distinct.end());
    for (uint32_t arg : distinct)
      plan.launchBytes[i] = addSaturating(plan.launchBytes[i],
                                          plan.buffers[arg].bytes);
  }
  if (fuse_status s = validateChoices(plan))
    return s;
  plan.running.clear();
  for (const ChoiceDesc &choice : plan.choices)
    plan.running.push_back(choice.selected);
  updateRuns(plan);
  return FUSE_OK;
}

/// Decodes the whole of `section` (named `title`, whose records end with
/// a `last`) into `record`.
template <typename Record, typename... Extra>
fuse_status decodeSection(const Blob &section, const char *title,
                          const char *last, Record &record, Extra... extra) {
  Decoder decoder(section.data, section.size);
  transfer(decoder, record, extra...);
  if (decoder.failed())
    return fail(FUSE_ERROR_FORMAT, "artifact: %s section: %s", title,
                decoder.message().c_str());
  if (decoder.remaining() != 0)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: %s section has %llu bytes left after the last %s",
                title, ull(decoder.remaining()), last);
  return FUSE_OK;
}

fuse_status readPlanSection(const Blob &section, Artifact &a) {
  PlanSection decoded;
  if (fuse_status s =
          decodeSection(section, "Plan", "plan", decoded, a.formatVersion))
    return s;
  a.inputs = std::move(decoded.inputs);
  a.outputs = std::move(decoded.outputs);
  a.kernels = std::move(decoded.kernels);
  if (fuse_status s = checkSignature(a.inputs, "input", a.inputBytes))
    return s;
  if (fuse_status s = checkSignature(a.outputs, "output", a.outputBytes))
    return s;
  for (size_t i = 0; i < a.kernels.size(); ++i)
    if (a.kernels[i].name.empty())
      return fail(FUSE_ERROR_FORMAT, "artifact: kernel %zu has an empty name",
                  i);

  if (decoded.plans.empty())
    return fail(FUSE_ERROR_FORMAT, "artifact: the artifact has no plans");
  for (size_t i = 0; i < decoded.plans.size(); ++i) {
    PlanDesc &from = decoded.plans[i];
    a.plans.emplace_back();
    Plan &plan = a.plans.back();
    plan.name = std::move(from.name);
    plan.arenaBytes = from.arenaBytes;
    plan.buffers = std::move(from.buffers);
    plan.inputBuffers = std::move(from.inputBuffers);
    plan.outputBuffers = std::move(from.outputBuffers);
    for (LaunchDesc &launch : from.launches) {
      plan.launches.emplace_back();
      static_cast<LaunchDesc &>(plan.launches.back()) = std::move(launch);
    }
    plan.choices = std::move(from.choices);
    plan.checks = std::move(from.checks);
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
  if (a.plans[0].name != "main")
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the first plan is '%s'; it must be 'main'",
                a.plans[0].name.c_str());
  return FUSE_OK;
}

fuse_status readMetadataSection(const Blob &section, Artifact &a) {
  return decodeSection(section, "Metadata", "group", a.metadata);
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
  a.arenasOffset = total;
  for (Plan &plan : a.plans)
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
  Blob plan, metadata, build;
  Blob *blobs[kNumSectionKinds + 1] = {nullptr,      &plan,      &a.kernelImage,
                                       &a.kernelPtx, &a.weights, &metadata,
                                       &build};
  for (uint32_t i = 0; i < header.numSections; ++i) {
    const uint8_t *p = bytes + sizeof(FileHeader) + i * sizeof(SectionEntry);
    SectionEntry &e = entries[i];
    e.kind = le32(p);
    e.variant = le32(p + 4);
    e.offset = le64(p + 8);
    e.size = le64(p + 16);
    const char *name = sectionName(e.kind);
    if (e.kind < 1 || e.kind > kNumSectionKinds)
      return fail(FUSE_ERROR_FORMAT, "artifact: section %u has unknown kind %u",
                  i, e.kind);
    if (e.kind == uint32_t(SectionKind::Build) && header.formatVersion < 5)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u is a Build section, which format "
                  "version %u does not have (version 5 added it)",
                  i, header.formatVersion);
    // A cpu KernelImage names its x86-64 level (version 4); every other
    // section has variant 0.
    bool levelImage = e.kind == uint32_t(SectionKind::KernelImage) &&
                      a.target == Target::Cpu && header.formatVersion >= 4;
    if (levelImage && !cpuLevelName(e.variant))
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) has variant %u, not an x86-64 "
                  "level (1 to 4)",
                  i, name, e.variant);
    if (!levelImage && e.variant != 0)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: section %u (%s) has variant %u, not 0", i, name,
                  e.variant);
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
      if (o.kind == e.kind && o.variant == e.variant)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: sections %u and %u are both %s sections%s%s", j,
                    i, name, levelImage ? " for " : "",
                    levelImage ? cpuLevelName(e.variant) : "");
      if (e.offset < o.offset + o.size && o.offset < e.offset + e.size)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: section %u (%s) overlaps section %u (%s)", i,
                    name, j, sectionName(o.kind));
    }
    Blob blob{bytes + e.offset, e.size, true};
    if (levelImage)
      a.cpuImages.push_back({e.variant, blob});
    else
      *blobs[e.kind] = blob;
  }
  // The header's arch is the lowest level of a cpu artifact's images: the
  // one every host it runs on has.
  if (!a.cpuImages.empty()) {
    std::sort(
        a.cpuImages.begin(), a.cpuImages.end(),
        [](const CpuImage &x, const CpuImage &y) { return x.level < y.level; });
    if (cpuLevelNumber(a.arch) != a.cpuImages.front().level)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: the header's arch is '%s', but the lowest "
                  "level of its kernel images is %s",
                  a.arch.c_str(), cpuLevelName(a.cpuImages.front().level));
    a.kernelImage = a.cpuImages.front().image;
  } else if (a.target == Target::Cpu && a.kernelImage.present) {
    // Version 3: one image, for the header's level.
    a.cpuImages.push_back({cpuLevelNumber(a.arch), a.kernelImage});
  }
  if (!plan.present)
    return fail(FUSE_ERROR_FORMAT, "artifact: no Plan section");
  // The metadata first: launches name its groups.
  if (metadata.present)
    if (fuse_status s = readMetadataSection(metadata, a))
      return s;
  if (fuse_status s = readPlanSection(plan, a))
    return s;
  if (build.present)
    if (fuse_status s = decodeSection(build, "Build", "field", a.build))
      return s;
  a.planSectionOffset = uint64_t(plan.data - bytes);
  a.planSectionSize = plan.size;

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

std::string typeString(uint32_t dtype, const std::vector<int64_t> &dims) {
  const char *name = dtypeName(dtype);
  std::string result = name ? name : format("dtype(%u)", dtype);
  result += '[';
  for (size_t i = 0; i < dims.size(); ++i)
    result += format(i ? ",%lld" : "%lld", static_cast<long long>(dims[i]));
  return result + ']';
}

std::string describeMemory(const Artifact &a) {
  std::string result = format("weights %llu", ull(a.weights.size));
  for (const Plan &plan : a.plans)
    result += format(" + plan '%s' arena %llu", plan.name.c_str(),
                     ull(plan.arenaBytes));
  return result + format(", each rounded up to a multiple of %llu",
                         ull(kRegionAlignment));
}

/// "" for float32, " tf32", " float16", " bfloat16->float32" (inputs,
/// then outputs where they differ).
static std::string describeLibraryTypes(uint32_t input, uint32_t output,
                                        uint32_t tf32) {
  if (tf32)
    return " tf32";
  if (input == uint32_t(DType::Float32) && output == input)
    return "";
  std::string text = std::string(" ") + libraryTypeName(input);
  if (output != input)
    text += std::string("->") + libraryTypeName(output);
  return text;
}

std::string describeLaunch(const Artifact &a, const Launch &launch) {
  if (launch.kind == uint32_t(LaunchKind::Matmul)) {
    const MatmulParams &p = launch.matmul;
    static const char *const epilogues[] = {"", " bias", " relu",
                                            " bias+relu"};
    std::string batch =
        p.batch > 1 ? format("%lld x ", (long long)p.batch) : std::string();
    return format(
        "cublaslt matmul %s%lldx%lldx%lld%s%s%s%s%s", batch.c_str(),
        (long long)p.m, (long long)p.n, (long long)p.k, p.transA ? " A^T" : "",
        p.transB ? " B^T" : "", epilogues[p.epilogue & 3],
        p.hasResidual ? " +C" : "",
        describeLibraryTypes(p.inputType, p.outputType, p.tf32).c_str());
  }
  if (launch.kind == uint32_t(LaunchKind::Conv)) {
    const ConvParams &p = launch.conv;
    std::string groups =
        p.groups > 1 ? format(" groups %lld", (long long)p.groups)
                     : std::string();
    return format("cudnn conv%s %lldx%lld/%lld %lld->%lld%s%s%s%s%s",
                  p.layout == uint32_t(ConvLayout::Nhwc) ? " nhwc" : "",
                  (long long)p.r, (long long)p.s, (long long)p.strideH,
                  (long long)p.c, (long long)p.k, groups.c_str(),
                  p.hasBias ? " bias" : "", p.hasResidual ? " +Z" : "",
                  p.activation ? " relu" : "",
                  describeLibraryTypes(p.dataType, p.dataType, p.tf32).c_str());
  }
  return a.kernels[launch.kernel].name;
}

void updateRuns(Plan &plan) {
  plan.runs.assign(plan.launches.size(), 1);
  for (size_t c = 0; c < plan.choices.size(); ++c) {
    const ChoiceDesc &choice = plan.choices[c];
    for (size_t i = 0; i < choice.candidates.size(); ++i) {
      const CandidateDesc &candidate = choice.candidates[i];
      uint8_t runs = plan.running[c] == kAllCandidates || plan.running[c] == i;
      std::fill_n(plan.runs.begin() + candidate.firstLaunch,
                  candidate.numLaunches, runs);
    }
  }
}

uint64_t bytesMoved(const Plan &plan) {
  uint64_t total = 0;
  for (size_t i = 0; i < plan.launches.size(); ++i)
    if (plan.runs[i])
      total = addSaturating(total, plan.launchBytes[i]);
  return total;
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

  if (header.formatVersion < kOldestFormatVersion ||
      header.formatVersion > kFormatVersion)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: format version %u, this runtime reads versions "
                "%u to %u%s",
                header.formatVersion, kOldestFormatVersion, kFormatVersion,
                header.formatVersion < kFormatVersion
                    ? " (compile the model again with this fuse-compile)"
                    : " (use a newer runtime)");
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
  a.checksum = header.checksum;
  a.formatVersion = header.formatVersion;
  a.target = static_cast<Target>(header.target);
  a.arch.assign(header.arch, size_t(archEnd - header.arch));
  return readSections(bytes, size, header, a);
}

} // namespace runtime
} // namespace fuse
