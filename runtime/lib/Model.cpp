//===- Model.cpp - The fuse runtime C API ---------------------------------===//
//
// The C entry points: argument checks and the state both targets share
// (which inputs are set, which plan ran last); the target's work is done
// by its Backend. No entry point trusts its arguments: a bad index, size
// or null pointer is FUSE_ERROR_ARGUMENT, never a crash.
//
//===----------------------------------------------------------------------===//

#include "fuse/runtime.h"

#include "ArtifactFile.h"
#include "ArtifactReader.h"
#include "Backend.h"
#include "Error.h"

#include "fuse/Version.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace fuse::runtime;
using fuse::artifact::Target;

struct fuse_model {
  // Declared before the backend, so that it outlives it.
  Artifact artifact;
  std::unique_ptr<Backend> backend;
  std::vector<bool> inputSet;
  /// The caller's memory bound to each input and output, or NULL.
  std::vector<const void *> inputBound;
  std::vector<void *> outputBound;
  /// fuse_launch_info.kernel of each plan's launches.
  std::vector<std::vector<std::string>> launchNames;
  /// The plan whose outputs get_output returns; -1 before the first run.
  long lastPlan = -1;
  /// The plan of an async run whose index checks were not read yet, or -1.
  long uncheckedPlan = -1;
  /// The file the model was read from (absolute where it can be), which
  /// fuse_model_save reads again; empty for a model from bytes.
  std::string sourcePath;
  /// The header checksum that file has; fuse_model_save, which takes a
  /// const model, updates it when it rewrites the file.
  mutable uint64_t sourceChecksum = 0;
  /// fuse_model_kernel_archs' string.
  std::string kernelArchs;
};

namespace {

using ull = unsigned long long;

fuse_status checkModel(const fuse_model *model) {
  if (!model)
    return fail(FUSE_ERROR_ARGUMENT, "the model is NULL");
  return FUSE_OK;
}

/// A plan index that names a plan, for describing it.
fuse_status checkPlanIndex(const fuse_model *model, size_t plan) {
  if (fuse_status s = checkModel(model))
    return s;
  if (plan >= model->artifact.plans.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "plan %zu is out of range (the model has %zu plans)", plan,
                model->artifact.plans.size());
  return FUSE_OK;
}

/// A model that was loaded, not only inspected.
fuse_status checkRunnable(const fuse_model *model) {
  if (fuse_status s = checkModel(model))
    return s;
  if (!model->backend)
    return fail(FUSE_ERROR_ARGUMENT,
                "the model was opened with fuse_model_inspect: it can be "
                "described but not run (load it with fuse_model_load)");
  return FUSE_OK;
}

fuse_status checkGroup(const fuse_model *model, size_t group) {
  if (fuse_status s = checkModel(model))
    return s;
  if (group >= model->artifact.metadata.groups.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "group %zu is out of range (the model has %zu groups)", group,
                model->artifact.metadata.groups.size());
  return FUSE_OK;
}

/// Names every launch once, for fuse_launch_info.
void nameLaunches(fuse_model *model) {
  for (const Plan &plan : model->artifact.plans) {
    model->launchNames.emplace_back();
    for (const Launch &launch : plan.launches)
      model->launchNames.back().push_back(
          describeLaunch(model->artifact, launch));
  }
}

fuse_status checkPlan(const fuse_model *model, size_t plan) {
  if (fuse_status s = checkRunnable(model))
    return s;
  if (plan >= model->artifact.plans.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "plan %zu is out of range (the model has "
                "%zu plans)",
                plan, model->artifact.plans.size());
  for (size_t i = 0; i < model->inputSet.size(); ++i)
    if (!model->inputSet[i])
      return fail(FUSE_ERROR_ARGUMENT,
                  "input %zu '%s' has not been set (or bound)", i,
                  model->artifact.inputs[i].name.c_str());
  return FUSE_OK;
}

/// Tensor `index` of the model's inputs or outputs, range-checked.
fuse_status tensorAt(const fuse_model *model, bool output, size_t index,
                     const TensorDesc *&tensor) {
  if (fuse_status s = checkModel(model))
    return s;
  const std::vector<TensorDesc> &tensors =
      output ? model->artifact.outputs : model->artifact.inputs;
  const char *role = output ? "output" : "input";
  if (index >= tensors.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "%s %zu is out of range (the model has %zu %ss)", role, index,
                tensors.size(), role);
  tensor = &tensors[index];
  return FUSE_OK;
}

uint64_t tensorBytes(const fuse_model *model, bool output, size_t index) {
  return output ? model->artifact.outputBytes[index]
                : model->artifact.inputBytes[index];
}

/// Checks a caller's host buffer for input or output `index`.
fuse_status checkTransfer(const fuse_model *model, bool output, size_t index,
                          const void *data, size_t bytes) {
  if (fuse_status s = checkRunnable(model))
    return s;
  const TensorDesc *tensor = nullptr;
  if (fuse_status s = tensorAt(model, output, index, tensor))
    return s;
  const char *role = output ? "output" : "input";
  uint64_t expected = tensorBytes(model, output, index);
  if (bytes != expected)
    return fail(FUSE_ERROR_ARGUMENT, "%s %zu '%s' is %llu bytes (%s), not %zu",
                role, index, tensor->name.c_str(), ull(expected),
                typeString(tensor->dtype, tensor->dims).c_str(), bytes);
  if (!data && bytes != 0)
    return fail(FUSE_ERROR_ARGUMENT, "the %s data pointer is NULL", role);
  return FUSE_OK;
}

fuse_status tensorInfo(const fuse_model *model, bool output, size_t index,
                       fuse_tensor_info *info) {
  const TensorDesc *tensor = nullptr;
  if (fuse_status s = tensorAt(model, output, index, tensor))
    return s;
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "the fuse_tensor_info pointer is NULL");
  *info = fuse_tensor_info();
  info->name = tensor->name.c_str();
  info->dtype = tensor->dtype;
  info->rank = static_cast<uint32_t>(tensor->dims.size());
  for (size_t i = 0; i < tensor->dims.size(); ++i)
    info->dims[i] = tensor->dims[i];
  info->bytes = tensorBytes(model, output, index);
  return FUSE_OK;
}

/// `path` made absolute, so that a later chdir does not lose the file
/// fuse_model_save reads again.
std::string absolutePath(const char *path) {
  char resolved[PATH_MAX];
  return realpath(path, resolved) ? std::string(resolved) : std::string(path);
}

fuse_status checkChoice(const fuse_model *model, size_t plan, size_t choice) {
  if (fuse_status s = checkPlanIndex(model, plan))
    return s;
  const Plan &p = model->artifact.plans[plan];
  if (choice >= p.choices.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "choice %zu is out of range (plan '%s' has %zu choices)",
                choice, p.name.c_str(), p.choices.size());
  return FUSE_OK;
}

/// Makes `candidate` (or kAllCandidates) run for the choice.
fuse_status runCandidate(fuse_model *model, size_t plan, size_t choice,
                         uint32_t candidate) {
  Plan &p = model->artifact.plans[plan];
  if (p.running[choice] == candidate)
    return FUSE_OK;
  p.running[choice] = candidate;
  updateRuns(p);
  return model->backend ? model->backend->selectionChanged(plan) : FUSE_OK;
}

} // namespace

extern "C" {

const char *fuse_runtime_version(void) {
  static const std::string version =
      std::string(fuse::getVersion()) + ", commit " + fuse::getCommit();
  return version.c_str();
}

void fuse_load_options_init(fuse_load_options *options) {
  if (options)
    *options = fuse_load_options();
}

fuse_status fuse_model_load(const char *path, fuse_model **model) {
  return fuse_model_load_with(path, nullptr, model);
}

fuse_status fuse_model_load_with(const char *path,
                                 const fuse_load_options *options,
                                 fuse_model **model) {
  if (!path || !model)
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_load: path and model must "
                                     "not be NULL");
  *model = nullptr;
  std::vector<uint8_t> bytes;
  if (fuse_status s = readFile(path, bytes))
    return s;
  if (fuse_status s = fuse_model_load_bytes_with(bytes.data(), bytes.size(),
                                                 options, model))
    return s;
  (*model)->sourcePath = absolutePath(path);
  (*model)->sourceChecksum = (*model)->artifact.checksum;
  return FUSE_OK;
}

/// The sections were the caller's bytes; nothing reads them after load.
/// The cpu images keep their levels and sizes.
static void dropSectionBytes(Artifact &a) {
  a.kernelImage = a.kernelPtx = a.weights = Blob();
  for (CpuImage &image : a.cpuImages)
    image.image.data = nullptr;
}

/// fuse_model_kernel_archs' string, made at load (getters may run on
/// several threads): the cpu levels, comma-separated, or the cuda arch.
static std::string describeKernelArchs(const Artifact &a) {
  if (a.target != Target::Cpu)
    return a.arch;
  std::string archs;
  for (const CpuImage &image : a.cpuImages) {
    const char *name = fuse::artifact::cpuLevelName(image.level);
    archs += archs.empty() ? "" : ",";
    archs += name ? name : a.arch.c_str();
  }
  return archs;
}

fuse_status fuse_model_load_bytes(const void *data, size_t size,
                                  fuse_model **model) {
  return fuse_model_load_bytes_with(data, size, nullptr, model);
}

/// The per-session state of a loaded model: nothing set or bound yet.
static void resetTensors(fuse_model *m) {
  m->inputSet.assign(m->artifact.inputs.size(), false);
  m->inputBound.assign(m->artifact.inputs.size(), nullptr);
  m->outputBound.assign(m->artifact.outputs.size(), nullptr);
}

fuse_status fuse_model_load_bytes_with(const void *data, size_t size,
                                       const fuse_load_options *options,
                                       fuse_model **model) {
  if (!model || (!data && size != 0))
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_load_bytes: data and model "
                                     "must not be NULL");
  *model = nullptr;
  std::unique_ptr<fuse_model> m(new fuse_model());
  if (fuse_status s = readArtifact(data, size, m->artifact))
    return s;
  m->backend = m->artifact.target == Target::Cuda ? createCudaBackend()
                                                  : createCpuBackend();
  fuse_load_options defaults;
  fuse_load_options_init(&defaults);
  if (fuse_status s =
          m->backend->load(m->artifact, (options ? *options : defaults).device))
    return s;
  m->kernelArchs = describeKernelArchs(m->artifact);
  dropSectionBytes(m->artifact);
  resetTensors(m.get());
  nameLaunches(m.get());
  *model = m.release();
  return FUSE_OK;
}

fuse_status fuse_model_new_session(const fuse_model *model,
                                   fuse_model **session) {
  if (!session)
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_new_session: session must "
                                     "not be NULL");
  *session = nullptr;
  if (fuse_status s = checkRunnable(model))
    return s;
  std::unique_ptr<fuse_model> m(new fuse_model());
  // The plans as the model has them now (its selections); the sections'
  // bytes were dropped at load: the backend shares what was made of them.
  m->artifact = model->artifact;
  m->launchNames = model->launchNames;
  m->sourcePath = model->sourcePath;
  m->sourceChecksum = model->sourceChecksum;
  m->kernelArchs = model->kernelArchs;
  if (fuse_status s = model->backend->newSession(m->artifact, m->backend))
    return s;
  resetTensors(m.get());
  *session = m.release();
  return FUSE_OK;
}

int fuse_model_device(const fuse_model *model) {
  return model && model->backend ? model->backend->device() : 0;
}

fuse_status fuse_model_inspect(const char *path, fuse_model **model) {
  if (!path || !model)
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_inspect: path and model "
                                     "must not be NULL");
  *model = nullptr;
  std::vector<uint8_t> bytes;
  if (fuse_status s = readFile(path, bytes))
    return s;
  if (fuse_status s =
          fuse_model_inspect_bytes(bytes.data(), bytes.size(), model))
    return s;
  (*model)->sourcePath = absolutePath(path);
  (*model)->sourceChecksum = (*model)->artifact.checksum;
  return FUSE_OK;
}

fuse_status fuse_model_inspect_bytes(const void *data, size_t size,
                                     fuse_model **model) {
  if (!model || (!data && size != 0))
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_inspect_bytes: data and "
                                     "model must not be NULL");
  *model = nullptr;
  std::unique_ptr<fuse_model> m(new fuse_model());
  if (fuse_status s = readArtifact(data, size, m->artifact))
    return s;
  m->kernelArchs = describeKernelArchs(m->artifact);
  dropSectionBytes(m->artifact);
  resetTensors(m.get());
  nameLaunches(m.get());
  *model = m.release();
  return FUSE_OK;
}

void fuse_model_free(fuse_model *model) { delete model; }

fuse_target fuse_model_target(const fuse_model *model) {
  if (model && model->artifact.target == Target::Cuda)
    return FUSE_TARGET_CUDA;
  return FUSE_TARGET_CPU;
}

const char *fuse_model_arch(const fuse_model *model) {
  return model ? model->artifact.arch.c_str() : "";
}

const char *fuse_model_compiler(const fuse_model *model) {
  return model ? model->artifact.build.compiler.c_str() : "";
}

const char *fuse_model_compile_flags(const fuse_model *model) {
  return model ? model->artifact.build.flags.c_str() : "";
}

size_t fuse_model_num_inputs(const fuse_model *model) {
  return model ? model->artifact.inputs.size() : 0;
}

size_t fuse_model_num_outputs(const fuse_model *model) {
  return model ? model->artifact.outputs.size() : 0;
}

fuse_status fuse_model_input_info(const fuse_model *model, size_t index,
                                  fuse_tensor_info *info) {
  return tensorInfo(model, /*output=*/false, index, info);
}

fuse_status fuse_model_output_info(const fuse_model *model, size_t index,
                                   fuse_tensor_info *info) {
  return tensorInfo(model, /*output=*/true, index, info);
}

size_t fuse_model_num_plans(const fuse_model *model) {
  return model ? model->artifact.plans.size() : 0;
}

const char *fuse_model_plan_name(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return nullptr;
  return model->artifact.plans[plan].name.c_str();
}

size_t fuse_model_plan_num_launches(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return model->artifact.plans[plan].launches.size();
}

uint64_t fuse_model_plan_arena_bytes(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return model->artifact.plans[plan].arenaBytes;
}

/// How `launch` multiplies: a library call's math from its parameters
/// (half inputs on tensor cores, TF32 if asked, else f32 FMAs); kernels
/// are fp32.
static fuse_math getLaunchMath(const Launch &launch) {
  using fuse::artifact::DType;
  using fuse::artifact::LaunchKind;
  uint32_t type = uint32_t(DType::Float32), tf32 = 0;
  if (launch.kind == uint32_t(LaunchKind::Matmul)) {
    type = launch.matmul.inputType;
    tf32 = launch.matmul.tf32;
  } else if (launch.kind == uint32_t(LaunchKind::Conv)) {
    type = launch.conv.dataType;
    tf32 = launch.conv.tf32;
  }
  if (type == uint32_t(DType::Float16))
    return FUSE_MATH_FP16;
  if (type == uint32_t(DType::BFloat16))
    return FUSE_MATH_BF16;
  return tf32 ? FUSE_MATH_TF32 : FUSE_MATH_FP32;
}

fuse_status fuse_model_plan_launch(const fuse_model *model, size_t plan,
                                   size_t index, fuse_launch_info *info) {
  if (fuse_status s = checkPlanIndex(model, plan))
    return s;
  const Plan &p = model->artifact.plans[plan];
  if (index >= p.launches.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "launch %zu is out of range (plan '%s' has %zu launches)",
                index, p.name.c_str(), p.launches.size());
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const Launch &launch = p.launches[index];
  *info = fuse_launch_info();
  info->kind = static_cast<fuse_launch_kind>(launch.kind);
  info->kernel = model->launchNames[plan][index].c_str();
  for (int i = 0; i < 3; ++i) {
    info->grid[i] = launch.isLibrary() ? 0 : launch.grid[i];
    info->block[i] = launch.isLibrary() ? 0 : launch.block[i];
  }
  info->shared_bytes = launch.sharedBytes;
  info->num_args = static_cast<uint32_t>(launch.args.size());
  info->args = launch.args.data();
  info->group = launch.group;
  info->workspace_offset = launch.workspaceOffset;
  info->workspace_bytes = launch.workspaceBytes;
  info->math = getLaunchMath(launch);
  return FUSE_OK;
}

size_t fuse_model_num_groups(const fuse_model *model) {
  return model ? model->artifact.metadata.groups.size() : 0;
}

fuse_status fuse_model_group_info(const fuse_model *model, size_t group,
                                  fuse_group_info *info) {
  if (fuse_status s = checkGroup(model, group))
    return s;
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const fuse::artifact::GroupDesc &g = model->artifact.metadata.groups[group];
  info->strategy = g.strategy.c_str();
  info->flops = g.flops;
  info->bytes = g.bytes;
  info->num_nodes = g.nodes.size();
  return FUSE_OK;
}

fuse_status fuse_model_group_node(const fuse_model *model, size_t group,
                                  size_t node, const char **name,
                                  const char **op_type) {
  if (fuse_status s = checkGroup(model, group))
    return s;
  const fuse::artifact::GroupDesc &g = model->artifact.metadata.groups[group];
  if (node >= g.nodes.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "node %zu is out of range (group %zu has %zu nodes)", node,
                group, g.nodes.size());
  if (!name || !op_type)
    return fail(FUSE_ERROR_ARGUMENT, "name and op_type must not be NULL");
  *name = g.nodes[node].name.c_str();
  *op_type = g.nodes[node].opType.c_str();
  return FUSE_OK;
}

size_t fuse_model_plan_num_buffers(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return model->artifact.plans[plan].buffers.size();
}

fuse_status fuse_model_plan_buffer(const fuse_model *model, size_t plan,
                                   size_t index, fuse_buffer_info *info) {
  if (fuse_status s = checkPlanIndex(model, plan))
    return s;
  const Plan &p = model->artifact.plans[plan];
  if (index >= p.buffers.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "buffer %zu is out of range (plan '%s' has %zu buffers)", index,
                p.name.c_str(), p.buffers.size());
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const BufferDesc &b = p.buffers[index];
  info->kind = static_cast<fuse_buffer_kind>(b.kind);
  info->dtype = b.dtype;
  info->offset = b.offset;
  info->bytes = b.bytes;
  info->rank = static_cast<uint32_t>(b.dims.size());
  for (size_t i = 0; i < FUSE_MAX_RANK; ++i)
    info->dims[i] = i < b.dims.size() ? b.dims[i] : 0;
  return FUSE_OK;
}

uint64_t fuse_model_plan_bytes(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return bytesMoved(model->artifact.plans[plan]);
}

fuse_status fuse_model_set_input(fuse_model *model, size_t index,
                                 const void *data, size_t bytes) {
  if (fuse_status s =
          checkTransfer(model, /*output=*/false, index, data, bytes))
    return s;
  // Each plan has its own copy of the inputs, in its own arena.
  for (const Plan &plan : model->artifact.plans) {
    const BufferDesc &buffer = plan.buffers[plan.inputBuffers[index]];
    if (fuse_status s =
            model->backend->copyIn(bufferOffset(plan, buffer), data, bytes))
      return s;
  }
  model->inputSet[index] = true;
  model->inputBound[index] = nullptr;
  return FUSE_OK;
}

/// The checks of a binding: a loaded model and an index in range; and,
/// unless `data` is NULL (which unbinds), the tensor's byte size.
static fuse_status checkBinding(const fuse_model *model, bool output,
                                size_t index, const void *data, size_t bytes) {
  if (data)
    return checkTransfer(model, output, index, data, bytes);
  if (fuse_status s = checkRunnable(model))
    return s;
  const TensorDesc *tensor = nullptr;
  return tensorAt(model, output, index, tensor);
}

fuse_status fuse_model_bind_input(fuse_model *model, size_t index,
                                  const void *data, size_t bytes) {
  if (fuse_status s = checkBinding(model, /*output=*/false, index, data, bytes))
    return s;
  model->inputBound[index] = data;
  model->inputSet[index] = data != nullptr;
  return FUSE_OK;
}

fuse_status fuse_model_bind_output(fuse_model *model, size_t index, void *data,
                                   size_t bytes) {
  if (fuse_status s = checkBinding(model, /*output=*/true, index, data, bytes))
    return s;
  model->outputBound[index] = data;
  return FUSE_OK;
}

/// Reads the index checks of the last run of `plan` (waiting for it) and
/// fails, naming the node, when one saw an index out of range.
static fuse_status readIndexChecks(fuse_model *model, size_t plan) {
  const Plan &p = model->artifact.plans[plan];
  if (p.checks.empty())
    return FUSE_OK;
  auto [first, end] = checkSpan(p);
  std::vector<uint8_t> bytes(end - first);
  if (fuse_status s = model->backend->readChecks(p, plan, bytes.data()))
    return s;
  for (const CheckDesc &check : p.checks) {
    float index;
    std::memcpy(&index,
                bytes.data() +
                    (bufferOffset(p, p.buffers[check.buffer]) - first),
                sizeof(index));
    if (index == -std::numeric_limits<float>::infinity())
      continue;
    const char *beyond = index >= fuse::artifact::kExactCheckLimit ? " or more"
                         : index <= -fuse::artifact::kExactCheckLimit
                             ? " or less"
                             : "";
    return fail(FUSE_ERROR_ARGUMENT,
                "%s node '%s': index %.0f%s is out of range for %s; ONNX "
                "makes that an error (compiled with --no-index-checks, such "
                "an index is clamped into range instead)",
                check.opType.c_str(), check.node.c_str(), double(index), beyond,
                check.range.c_str());
  }
  return FUSE_OK;
}

/// The index checks of the last async run, if nobody read them yet.
static fuse_status readUncheckedRun(fuse_model *model) {
  if (model->uncheckedPlan < 0)
    return FUSE_OK;
  size_t unchecked = size_t(model->uncheckedPlan);
  model->uncheckedPlan = -1;
  return readIndexChecks(model, unchecked);
}

/// Runs `plan` with the model's bindings: on `stream`, waiting for the run
/// when `wait` is set.
static fuse_status runBound(fuse_model *model, size_t plan, void *stream,
                            bool wait) {
  if (fuse_status s = checkPlan(model, plan))
    return s;
  // An earlier async run's checks, read before this run's may replace
  // them (waiting for that run if it has not finished).
  if (fuse_status s = readUncheckedRun(model))
    return s;
  const Plan &p = model->artifact.plans[plan];
  std::vector<Binding> inputs, outputs;
  for (size_t i = 0; i < model->inputBound.size(); ++i)
    if (model->inputBound[i])
      inputs.push_back(Binding{bufferOffset(p, p.buffers[p.inputBuffers[i]]),
                               const_cast<void *>(model->inputBound[i]),
                               tensorBytes(model, false, i)});
  for (size_t i = 0; i < model->outputBound.size(); ++i)
    if (model->outputBound[i])
      outputs.push_back(Binding{bufferOffset(p, p.buffers[p.outputBuffers[i]]),
                                model->outputBound[i],
                                tensorBytes(model, true, i)});
  if (fuse_status s = model->backend->run(plan, stream, inputs, outputs, wait))
    return s;
  model->lastPlan = static_cast<long>(plan);
  if (!wait) {
    model->uncheckedPlan = static_cast<long>(plan);
    return FUSE_OK;
  }
  return readIndexChecks(model, plan);
}

fuse_status fuse_model_run(fuse_model *model, size_t plan) {
  return runBound(model, plan, nullptr, /*wait=*/true);
}

fuse_status fuse_model_run_async(fuse_model *model, size_t plan, void *stream) {
  return runBound(model, plan, stream, /*wait=*/false);
}

fuse_status fuse_model_get_output(fuse_model *model, size_t index, void *data,
                                  size_t bytes) {
  if (fuse_status s = checkTransfer(model, /*output=*/true, index, data, bytes))
    return s;
  if (model->lastPlan < 0)
    return fail(FUSE_ERROR_ARGUMENT,
                "no plan has run yet, so there are no outputs");
  // An async run's outputs are good only if its indices were.
  if (fuse_status s = readUncheckedRun(model))
    return s;
  const Plan &plan = model->artifact.plans[model->lastPlan];
  const BufferDesc &buffer = plan.buffers[plan.outputBuffers[index]];
  return model->backend->copyOut(bufferOffset(plan, buffer), data, bytes);
}

/// The checks the timing calls share: a plan that exists, counts that are
/// not negative.
static fuse_status checkRunCounts(fuse_model *model, size_t plan, int warmup,
                                  int iterations) {
  if (fuse_status s = checkPlan(model, plan))
    return s;
  if (warmup < 0 || iterations < 0)
    return fail(FUSE_ERROR_ARGUMENT,
                "warmup (%d) and iterations (%d) must not be negative", warmup,
                iterations);
  return FUSE_OK;
}

fuse_status fuse_model_benchmark(fuse_model *model, size_t plan, int warmup,
                                 int iterations, double *times_ms) {
  if (fuse_status s = checkRunCounts(model, plan, warmup, iterations))
    return s;
  if (!times_ms && iterations > 0)
    return fail(FUSE_ERROR_ARGUMENT, "times_ms is NULL");
  // Timed runs write the checks too: an async run's are read first.
  if (fuse_status s = readUncheckedRun(model))
    return s;
  if (fuse_status s =
          model->backend->benchmark(plan, warmup, iterations, times_ms))
    return s;
  if (warmup + iterations > 0)
    model->lastPlan = static_cast<long>(plan);
  return FUSE_OK;
}

fuse_status fuse_model_profile(fuse_model *model, size_t plan, int warmup,
                               int iterations, double *times_ms,
                               double *overhead_ms) {
  if (fuse_status s = checkRunCounts(model, plan, warmup, iterations))
    return s;
  if (!times_ms && iterations > 0 &&
      !model->artifact.plans[plan].launches.empty())
    return fail(FUSE_ERROR_ARGUMENT, "times_ms is NULL");
  if (fuse_status s = readUncheckedRun(model))
    return s;
  if (fuse_status s = model->backend->profile(plan, warmup, iterations,
                                              times_ms, overhead_ms))
    return s;
  if (warmup + iterations > 0)
    model->lastPlan = static_cast<long>(plan);
  return FUSE_OK;
}

fuse_status fuse_model_measure_limits(fuse_model *model, double *copy_gbps,
                                      double *fp32_gflops) {
  if (fuse_status s = checkRunnable(model))
    return s;
  if (!copy_gbps || !fp32_gflops)
    return fail(FUSE_ERROR_ARGUMENT,
                "copy_gbps and fp32_gflops must not be NULL");
  return model->backend->measureLimits(copy_gbps, fp32_gflops);
}

const char *fuse_math_name(fuse_math math) {
  switch (math) {
  case FUSE_MATH_FP32:
    return "fp32";
  case FUSE_MATH_TF32:
    return "tf32";
  case FUSE_MATH_FP16:
    return "fp16";
  case FUSE_MATH_BF16:
    return "bf16";
  }
  return "";
}

fuse_status fuse_model_measure_matmul_rate(fuse_model *model, fuse_math math,
                                           double *gflops) {
  if (fuse_status s = checkRunnable(model))
    return s;
  if (!gflops)
    return fail(FUSE_ERROR_ARGUMENT, "gflops must not be NULL");
  if (math < FUSE_MATH_FP32 || math > FUSE_MATH_BF16)
    return fail(FUSE_ERROR_ARGUMENT, "math %d is not a fuse_math",
                static_cast<int>(math));
  return model->backend->measureMatmulRate(math, gflops);
}

const char *fuse_model_libraries(const fuse_model *model) {
  if (!model || !model->backend)
    return "";
  return model->backend->libraries();
}

const char *fuse_model_kernel_archs(const fuse_model *model) {
  return model ? model->kernelArchs.c_str() : "";
}

const char *fuse_model_loaded_arch(const fuse_model *model) {
  if (!model || !model->backend)
    return "";
  const char *loaded = model->backend->kernelArch();
  return *loaded ? loaded : model->artifact.arch.c_str();
}

const char *fuse_model_device_name(const fuse_model *model) {
  if (!model || !model->backend)
    return "";
  return model->backend->deviceName();
}

const char *fuse_model_device_driver(const fuse_model *model) {
  if (!model || !model->backend)
    return "";
  return model->backend->driver();
}

size_t fuse_model_plan_num_checks(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return model->artifact.plans[plan].checks.size();
}

fuse_status fuse_model_plan_check(const fuse_model *model, size_t plan,
                                  size_t check, fuse_check_info *info) {
  if (fuse_status s = checkPlanIndex(model, plan))
    return s;
  const Plan &p = model->artifact.plans[plan];
  if (check >= p.checks.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "check %zu is out of range (plan '%s' has %zu checks)", check,
                p.name.c_str(), p.checks.size());
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const CheckDesc &c = p.checks[check];
  info->node = c.node.c_str();
  info->op_type = c.opType.c_str();
  info->range = c.range.c_str();
  info->buffer = c.buffer;
  return FUSE_OK;
}

size_t fuse_model_plan_num_choices(const fuse_model *model, size_t plan) {
  if (!model || plan >= model->artifact.plans.size())
    return 0;
  return model->artifact.plans[plan].choices.size();
}

fuse_status fuse_model_plan_choice(const fuse_model *model, size_t plan,
                                   size_t choice, fuse_choice_info *info) {
  if (fuse_status s = checkChoice(model, plan, choice))
    return s;
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const Plan &p = model->artifact.plans[plan];
  const ChoiceDesc &c = p.choices[choice];
  info->key = c.key.c_str();
  info->selected = p.running[choice];
  info->tuned = c.tuned;
  info->num_candidates = static_cast<uint32_t>(c.candidates.size());
  return FUSE_OK;
}

fuse_status fuse_model_plan_candidate(const fuse_model *model, size_t plan,
                                      size_t choice, size_t candidate,
                                      fuse_candidate_info *info) {
  if (fuse_status s = checkChoice(model, plan, choice))
    return s;
  const ChoiceDesc &c = model->artifact.plans[plan].choices[choice];
  if (candidate >= c.candidates.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "candidate %zu is out of range (choice %zu has %zu "
                "candidates)",
                candidate, choice, c.candidates.size());
  if (!info)
    return fail(FUSE_ERROR_ARGUMENT, "info is NULL");
  const CandidateDesc &d = c.candidates[candidate];
  info->label = d.label.c_str();
  info->first_launch = d.firstLaunch;
  info->num_launches = d.numLaunches;
  info->time_ms = d.timeMs;
  return FUSE_OK;
}

fuse_status fuse_model_plan_select(fuse_model *model, size_t plan,
                                   size_t choice, uint32_t candidate) {
  if (fuse_status s = checkChoice(model, plan, choice))
    return s;
  ChoiceDesc &c = model->artifact.plans[plan].choices[choice];
  if (candidate != FUSE_ALL_CANDIDATES && candidate >= c.candidates.size())
    return fail(FUSE_ERROR_ARGUMENT,
                "candidate %u is out of range (choice %zu has %zu "
                "candidates)",
                candidate, choice, c.candidates.size());
  if (candidate != FUSE_ALL_CANDIDATES && candidate != c.selected) {
    // No longer the tuner's pick.
    c.selected = candidate;
    c.tuned = 0;
  }
  return runCandidate(model, plan, choice, candidate);
}

fuse_status fuse_model_plan_record_times(fuse_model *model, size_t plan,
                                         size_t choice,
                                         const double *times_ms) {
  if (fuse_status s = checkChoice(model, plan, choice))
    return s;
  if (!times_ms)
    return fail(FUSE_ERROR_ARGUMENT, "times_ms is NULL");
  ChoiceDesc &c = model->artifact.plans[plan].choices[choice];
  uint32_t fastest = 0;
  for (uint32_t i = 0; i < c.candidates.size(); ++i) {
    // Stored as float: a time must fit one.
    if (!(times_ms[i] >= 0) || !std::isfinite(float(times_ms[i])))
      return fail(FUSE_ERROR_ARGUMENT,
                  "time %g ms of candidate %u is not a finite, non-negative "
                  "float",
                  times_ms[i], i);
    if (times_ms[i] < times_ms[fastest])
      fastest = i;
  }
  for (size_t i = 0; i < c.candidates.size(); ++i)
    c.candidates[i].timeMs = float(times_ms[i]);
  c.selected = fastest;
  c.tuned = 1;
  return runCandidate(model, plan, choice, fastest);
}

fuse_status fuse_model_save(const fuse_model *model, const char *path) {
  if (fuse_status s = checkModel(model))
    return s;
  if (!path)
    return fail(FUSE_ERROR_ARGUMENT, "fuse_model_save: path is NULL");
  if (model->sourcePath.empty())
    return fail(FUSE_ERROR_ARGUMENT,
                "fuse_model_save: the model was loaded from bytes; only a "
                "model loaded from a file can be saved (the runtime keeps "
                "no copy of the weights)");
  return saveArtifact(model->artifact, model->sourcePath,
                      model->sourceChecksum, path);
}

} // extern "C"
