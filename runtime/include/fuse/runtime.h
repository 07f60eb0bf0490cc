/*===- runtime.h - The fuse runtime C API --------------------------*- C -*-===*
 *
 * Loads a compiled model (.fbin, see fuse/runtime/Artifact.h) and runs it.
 * The CUDA target runs on the CUDA driver API (libcuda is loaded at run
 * time: nothing links against CUDA), with one device allocation for
 * weights and activations and a CUDA Graph of each plan replayed on every
 * run. The CPU target runs the same plan through the same API.
 *
 * Every function returns FUSE_OK or an error status; fuse_last_error()
 * then says what went wrong (per thread). No function aborts on bad input.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FUSE_RUNTIME_RUNTIME_H
#define FUSE_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fuse_status {
  FUSE_OK = 0,
  FUSE_ERROR_IO = 1,       /* the file cannot be read */
  FUSE_ERROR_FORMAT = 2,   /* not a valid artifact (magic, version,
                              checksum, truncation, inconsistent plan) */
  FUSE_ERROR_TARGET = 3,   /* the artifact's target is not available here */
  FUSE_ERROR_DEVICE = 4,   /* a CUDA or dynamic-loader call failed */
  FUSE_ERROR_ARGUMENT = 5, /* bad index, size or pointer from the caller */
} fuse_status;

typedef enum fuse_target {
  FUSE_TARGET_CPU = 1,
  FUSE_TARGET_CUDA = 2,
} fuse_target;

typedef struct fuse_model fuse_model;

#define FUSE_MAX_RANK 8

typedef struct fuse_tensor_info {
  const char *name;          /* valid while the model is loaded */
  uint32_t dtype;            /* ONNX TensorProto.DataType numbering */
  uint32_t rank;
  int64_t dims[FUSE_MAX_RANK];
  uint64_t bytes;            /* element count x element size */
} fuse_tensor_info;

/* The message for the last error on this thread ("" if none). */
const char *fuse_last_error(void);

/* Reads, validates and loads an artifact: kernels are loaded, device (or
 * host) memory is allocated and the weights are placed in it. */
fuse_status fuse_model_load(const char *path, fuse_model **model);
fuse_status fuse_model_load_bytes(const void *data, size_t size,
                                  fuse_model **model);
/* Reads and validates an artifact without loading it: no kernels, no device
 * and no memory, so it works for any target on any machine. The model can
 * be described (info, plans, launches) but not run. */
fuse_status fuse_model_inspect(const char *path, fuse_model **model);
fuse_status fuse_model_inspect_bytes(const void *data, size_t size,
                                     fuse_model **model);
void fuse_model_free(fuse_model *model);

fuse_target fuse_model_target(const fuse_model *model);
/* "sm_90", "x86-64", ... */
const char *fuse_model_arch(const fuse_model *model);

size_t fuse_model_num_inputs(const fuse_model *model);
size_t fuse_model_num_outputs(const fuse_model *model);
fuse_status fuse_model_input_info(const fuse_model *model, size_t index,
                                  fuse_tensor_info *info);
fuse_status fuse_model_output_info(const fuse_model *model, size_t index,
                                   fuse_tensor_info *info);

/* Plans: 0 is "main"; an artifact compiled with a reference has plan 1,
 * "reference" (one kernel per op, for checking). */
size_t fuse_model_num_plans(const fuse_model *model);
const char *fuse_model_plan_name(const fuse_model *model, size_t plan);
/* Number of kernel launches in a plan. */
size_t fuse_model_plan_num_launches(const fuse_model *model, size_t plan);
/* Bytes of the plan's arena (inputs, outputs and intermediates). */
uint64_t fuse_model_plan_arena_bytes(const fuse_model *model, size_t plan);

typedef struct fuse_launch_info {
  const char *kernel;        /* valid while the model is loaded */
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  uint32_t num_args;         /* buffers the kernel takes */
  const uint32_t *args;      /* their buffer indices: inputs, then outputs */
} fuse_launch_info;

typedef enum fuse_buffer_kind {
  FUSE_BUFFER_INPUT = 0,
  FUSE_BUFFER_OUTPUT = 1,
  FUSE_BUFFER_WEIGHT = 2,
  FUSE_BUFFER_INTERMEDIATE = 3,
} fuse_buffer_kind;

typedef struct fuse_buffer_info {
  fuse_buffer_kind kind;
  uint32_t dtype;
  /* In the plan's arena; for weights, in the artifact's weights. */
  uint64_t offset;
  uint64_t bytes;
  uint32_t rank;
  int64_t dims[FUSE_MAX_RANK];
} fuse_buffer_info;

size_t fuse_model_plan_num_buffers(const fuse_model *model, size_t plan);
/* Buffer `index` of a plan: where the buffer planner put it. */
fuse_status fuse_model_plan_buffer(const fuse_model *model, size_t plan,
                                   size_t index, fuse_buffer_info *info);

/* Launch `index` of a plan, in execution order. */
fuse_status fuse_model_plan_launch(const fuse_model *model, size_t plan,
                                   size_t index, fuse_launch_info *info);

/* Bytes the plan's kernels must move at least: the sum, over launches, of
 * the sizes of the buffers each launch takes (read or written). Divided by
 * a run's time, this is the achieved bandwidth `fuse-run --bench` reports. */
uint64_t fuse_model_plan_bytes(const fuse_model *model, size_t plan);

/* Copies `bytes` (must equal the input's size) from host memory into the
 * input. Inputs stay set across runs. */
fuse_status fuse_model_set_input(fuse_model *model, size_t index,
                                 const void *data, size_t bytes);
/* Runs a plan to completion (inputs must have been set). */
fuse_status fuse_model_run(fuse_model *model, size_t plan);
/* Copies output `index` of the last run into host memory. */
fuse_status fuse_model_get_output(fuse_model *model, size_t index,
                                  void *data, size_t bytes);

/* Times `iterations` runs of a plan after `warmup` untimed ones, with the
 * inputs already on the device: CUDA events around each graph launch
 * (CUDA), a steady clock (CPU). Writes one time in milliseconds per
 * iteration to `times_ms`. */
fuse_status fuse_model_benchmark(fuse_model *model, size_t plan,
                                 int warmup, int iterations,
                                 double *times_ms);

#ifdef __cplusplus
}
#endif

#endif /* FUSE_RUNTIME_RUNTIME_H */
