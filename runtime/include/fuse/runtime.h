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

/* The C API is what libfuse_runtime.so exports; nothing else is. */
#if defined(FUSE_BUILDING_SHARED) && defined(__GNUC__)
#pragma GCC visibility push(default)
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

/* The runtime's version and the commit it was built from: "0.1.0, commit
 * 95b10d9". */
const char *fuse_runtime_version(void);

/* Reads, validates and loads an artifact: kernels are loaded, device (or
 * host) memory is allocated and the weights are placed in it. */
fuse_status fuse_model_load(const char *path, fuse_model **model);
fuse_status fuse_model_load_bytes(const void *data, size_t size,
                                  fuse_model **model);

/* How a model is loaded; fuse_load_options_init sets the defaults. */
typedef struct fuse_load_options {
  /* The CUDA device (ordinal, as cuDeviceGet numbers them) the model runs
   * on: its primary context, memory and streams. Default 0. The cpu
   * target takes 0 only. */
  int device;
} fuse_load_options;
void fuse_load_options_init(fuse_load_options *options);
/* fuse_model_load(_bytes) with options (NULL: the defaults). */
fuse_status fuse_model_load_with(const char *path,
                                 const fuse_load_options *options,
                                 fuse_model **model);
fuse_status fuse_model_load_bytes_with(const void *data, size_t size,
                                       const fuse_load_options *options,
                                       fuse_model **model);

/* A second session of a loaded model: the same artifact on the same
 * device, sharing its kernels and its weights (neither loaded nor copied
 * again), with memory for activations, inputs, outputs, plan selections
 * and CUDA Graphs of its own, so that sessions may run at the same time
 * (from several threads, on several streams). The shared part lives until
 * the last session of it is freed; any session may be freed first. */
fuse_status fuse_model_new_session(const fuse_model *model,
                                   fuse_model **session);
/* The CUDA device a loaded model runs on (0 for the cpu target and for an
 * inspected model). */
int fuse_model_device(const fuse_model *model);
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
/* The compiler that wrote the artifact ("fuse 0.1.0, commit a8ef934, LLVM
 * 22.1.2") and the options it was given, as fuse-compile's flags
 * ("--target=cpu --input-shape=x=1x3x224x224"; the model's and the
 * output's file names and the options that only print left out); "" for
 * artifacts older than format version 5, which did not record them. */
const char *fuse_model_compiler(const fuse_model *model);
const char *fuse_model_compile_flags(const fuse_model *model);

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
/* Number of launches (kernels and library calls) in a plan. */
size_t fuse_model_plan_num_launches(const fuse_model *model, size_t plan);
/* Bytes of the plan's arena (inputs, outputs and intermediates). */
uint64_t fuse_model_plan_arena_bytes(const fuse_model *model, size_t plan);

typedef enum fuse_launch_kind {
  FUSE_LAUNCH_KERNEL = 1,   /* a kernel of the artifact's own code */
  FUSE_LAUNCH_CUBLASLT = 2, /* a cuBLASLt matmul (cuda) */
  FUSE_LAUNCH_CUDNN = 3,    /* a cuDNN convolution (cuda) */
} fuse_launch_kind;

/* How a launch multiplies, for the rate it is judged against: a library
 * call's math (cuBLASLt and cuDNN: f32 FMAs, TF32, fp16 or bf16 tensor
 * cores, f32 sums always); FUSE_MATH_FP32 for kernels. */
typedef enum fuse_math {
  FUSE_MATH_FP32 = 0,
  FUSE_MATH_TF32 = 1,
  FUSE_MATH_FP16 = 2,
  FUSE_MATH_BF16 = 3,
} fuse_math;

/* "fp32", "tf32", "fp16" or "bf16"; "" for a value that is not a
 * fuse_math. */
const char *fuse_math_name(fuse_math math);

/* fuse_launch_info.group of a launch that no metadata describes. */
#define FUSE_NO_GROUP 0xffffffffu

typedef struct fuse_launch_info {
  fuse_launch_kind kind;
  /* The kernel's name, or what the library call computes ("cublaslt
   * matmul 128x768x768 bias"); valid while the model is loaded. */
  const char *kernel;
  uint32_t grid[3];          /* kernel launches; 0 for library calls */
  uint32_t block[3];
  uint32_t shared_bytes;
  uint32_t num_args;         /* buffers the launch takes */
  const uint32_t *args;      /* their buffer indices: inputs, then outputs */
  uint32_t group;            /* its group (fuse_model_group_info) or
                                FUSE_NO_GROUP */
  uint64_t workspace_offset; /* a library call's scratch memory, in the */
  uint64_t workspace_bytes;  /* plan's arena (0 bytes: none) */
  fuse_math math;            /* how it multiplies */
} fuse_launch_info;

typedef enum fuse_buffer_kind {
  FUSE_BUFFER_INPUT = 0,
  FUSE_BUFFER_OUTPUT = 1,
  FUSE_BUFFER_WEIGHT = 2,
  FUSE_BUFFER_INTERMEDIATE = 3,
  /* An index check: one float32 the runtime reads after each run (see
   * fuse_model_run). */
  FUSE_BUFFER_CHECK = 4,
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

/* Bytes the plan's kernels must move at least: the sum, over the launches
 * that run (see choices), of the sizes of the buffers each launch takes
 * (read or written). Divided by
 * a run's time, this is the achieved bandwidth `fuse-run --bench` reports. */
uint64_t fuse_model_plan_bytes(const fuse_model *model, size_t plan);

/* Groups: what each launch computes, from the artifact's metadata (an
 * artifact without metadata has none). A group is the ONNX nodes one
 * launch computes, how it runs, its floating-point operations and the
 * fewest bytes it must move (each input read once, each output written
 * once). */
size_t fuse_model_num_groups(const fuse_model *model);

typedef struct fuse_group_info {
  const char *strategy; /* "cudnn conv+bias+relu", "kernel rows(32)", ... */
  uint64_t flops;
  uint64_t bytes;
  size_t num_nodes;
} fuse_group_info;

fuse_status fuse_model_group_info(const fuse_model *model, size_t group,
                                  fuse_group_info *info);
/* Node `node` of a group: its name and ONNX op type (valid while the model
 * is loaded). */
fuse_status fuse_model_group_node(const fuse_model *model, size_t group,
                                  size_t node, const char **name,
                                  const char **op_type);

/* Index checks: the Gather, GatherElements and GatherND nodes whose
 * indices each run checks (see fuse_model_run); 0 for a model compiled
 * with --no-index-checks, and for an out-of-range plan. */
size_t fuse_model_plan_num_checks(const fuse_model *model, size_t plan);

typedef struct fuse_check_info {
  const char *node;    /* the ONNX node's name; valid while the model is
                          loaded, like the strings below */
  const char *op_type; /* "Gather", "GatherElements" or "GatherND" */
  const char *range;   /* the dims its indices address: "axis 0 of size 5" */
  uint32_t buffer;     /* the plan's buffer that holds the check */
} fuse_check_info;

fuse_status fuse_model_plan_check(const fuse_model *model, size_t plan,
                                  size_t check, fuse_check_info *info);

/* Choices: groups the compiler gave several candidates, each a run of
 * consecutive launches of the plan that computes the same results (a
 * cuBLASLt call, generated kernels of different tiles). Only the selected
 * candidate's launches run; launches outside every choice always run.
 * fuse-tune times the candidates and saves the fastest as the selection
 * (docs/tuning.md). A plan has 0 choices when the compiler gave none; an
 * out-of-range plan has 0. */
size_t fuse_model_plan_num_choices(const fuse_model *model, size_t plan);

typedef struct fuse_choice_info {
  const char *key;         /* the group's signature, the key of timing
                              caches; valid while the model is loaded */
  uint32_t selected;       /* the candidate that runs, or
                              FUSE_ALL_CANDIDATES */
  uint32_t tuned;          /* 1: a tuner picked it by measuring; 0: the
                              compiler's heuristic (or a caller) did */
  uint32_t num_candidates; /* at least 2 */
} fuse_choice_info;

fuse_status fuse_model_plan_choice(const fuse_model *model, size_t plan,
                                   size_t choice, fuse_choice_info *info);

typedef struct fuse_candidate_info {
  const char *label;     /* how it runs ("cublaslt 1x128x768x768 bias");
                            valid while the model is loaded */
  uint32_t first_launch; /* its launches: [first_launch, */
  uint32_t num_launches; /*   first_launch + num_launches) */
  double time_ms;        /* its measured median time; 0 if not measured */
} fuse_candidate_info;

fuse_status fuse_model_plan_candidate(const fuse_model *model, size_t plan,
                                      size_t choice, size_t candidate,
                                      fuse_candidate_info *info);

/* fuse_model_plan_select's candidate that runs them all. */
#define FUSE_ALL_CANDIDATES 0xffffffffu

/* Which candidate of a choice runs from now on (CUDA graphs are captured
 * again before the next run). FUSE_ALL_CANDIDATES runs all of them, one
 * after another, each writing the same results: how a tuner times them in
 * one fuse_model_profile. Selecting another candidate clears the choice's
 * tuned flag; fuse_model_save writes the last candidate selected (never
 * FUSE_ALL_CANDIDATES). Works on an inspected model too. */
fuse_status fuse_model_plan_select(fuse_model *model, size_t plan,
                                   size_t choice, uint32_t candidate);

/* Stores measured times (num_candidates of them, in ms: finite, not
 * negative), selects the fastest (ties: the lower index) and marks the
 * choice tuned. */
fuse_status fuse_model_plan_record_times(fuse_model *model, size_t plan,
                                         size_t choice,
                                         const double *times_ms);

/* Writes the artifact with the current selections, times and tuned flags
 * to `path`; every other byte is the loaded file's (read again: the
 * runtime keeps no copy of the weights, so a model loaded from bytes
 * cannot be saved, and the file must not have changed since it was
 * loaded), the checksum recomputed. The bytes go to a temporary file
 * beside `path`, renamed over it once complete, so that a failure never
 * leaves a half-written file. `path` may be the file the model was loaded
 * from. */
fuse_status fuse_model_save(const fuse_model *model, const char *path);

/* Copies `bytes` (must equal the input's size) from host memory into the
 * input. Inputs stay set across runs. */
fuse_status fuse_model_set_input(fuse_model *model, size_t index,
                                 const void *data, size_t bytes);
/* Runs a plan to completion (inputs must have been set or bound), on the
 * model's own stream. A Gather, GatherElements or GatherND that was given
 * an index out of range makes the run fail with FUSE_ERROR_ARGUMENT and a
 * message naming the node and the index (unless the model was compiled
 * with --no-index-checks; its outputs are then what clamped indices give). */
fuse_status fuse_model_run(fuse_model *model, size_t plan);
/* Copies output `index` of the last run into host memory. */
fuse_status fuse_model_get_output(fuse_model *model, size_t index,
                                  void *data, size_t bytes);

/* Binds input `index` to the caller's memory: a device pointer (a
 * CUdeviceptr on the model's device, cast to void *) on the CUDA target,
 * host memory on the cpu target; `bytes` must be the input's size. Each
 * run then reads the input from there: a device-to-device copy into the
 * plan's memory, ordered on the run's stream before the plan's graph (the
 * graph itself is not changed), so there is no host round trip. The
 * memory must hold the input when the run executes on the stream. NULL
 * unbinds the input, which must then be set or bound again;
 * fuse_model_set_input unbinds it too. */
fuse_status fuse_model_bind_input(fuse_model *model, size_t index,
                                  const void *data, size_t bytes);
/* Binds output `index` to the caller's memory (device memory on the CUDA
 * target, host memory on the cpu target): each run then also writes the
 * output there, on the run's stream after its graph. NULL unbinds it.
 * fuse_model_get_output still reads the last run's output. */
fuse_status fuse_model_bind_output(fuse_model *model, size_t index, void *data,
                                   size_t bytes);
/* Runs a plan on the caller's stream (a CUstream of the model's device,
 * cast to void *; NULL is the model's own stream) and returns without
 * waiting for it: bound inputs are copied in, the plan's CUDA Graph
 * launched and bound outputs copied out, all in the stream's order. The
 * caller synchronizes the stream before it reads bound outputs. The
 * model's later calls wait for the run where they must (get_output,
 * set_input, a run on another stream, benchmark, profile). One model runs
 * one plan at a time: runs on two streams are ordered (the second waits
 * for the first); for concurrent runs, use sessions
 * (fuse_model_new_session). On the cpu target the stream must be NULL and
 * the run completes before the call returns. An index out of range (see
 * fuse_model_run) is reported by the model's next call that runs or reads
 * outputs (fuse_model_get_output, a run, benchmark, profile), which waits
 * for the async run first when the model has index checks
 * (fuse_model_plan_num_checks): a model compiled with --no-index-checks
 * queues runs back to back without waiting. */
fuse_status fuse_model_run_async(fuse_model *model, size_t plan, void *stream);

/* Times `iterations` runs of a plan after `warmup` untimed ones, with the
 * inputs already on the device: CUDA events around each graph launch
 * (CUDA), a steady clock (CPU). Writes one time in milliseconds per
 * iteration to `times_ms`. */
fuse_status fuse_model_benchmark(fuse_model *model, size_t plan,
                                 int warmup, int iterations,
                                 double *times_ms);

/* Times each launch of a plan: `warmup` untimed runs, then `iterations`
 * runs of the plan in which every launch that runs is timed on its own (CUDA events
 * recorded between the launches of one graph on the GPU, a steady clock
 * on the CPU). Writes iterations x num_launches times in milliseconds to
 * `times_ms`, one row per iteration (0 for a launch that does not run:
 * a candidate not selected). On the GPU each time has what timing
 * a launch adds subtracted, measured in the same runs: an empty kernel
 * timed the same way, less what one costs in a graph of empty kernels
 * alone (the gap between launches that a graph replay pays too), so that
 * the times add up to the replay's; where the driver cannot JIT the empty
 * kernel, the gap between events recorded back to back. `overhead_ms`, if
 * not NULL, receives that cost (its median over the iterations; 0 on the
 * CPU). */
fuse_status fuse_model_profile(fuse_model *model, size_t plan, int warmup,
                               int iterations, double *times_ms,
                               double *overhead_ms);

/* The vendor libraries a loaded model uses, with their versions and where
 * they were loaded from: "cuBLASLt 130100 (/usr/local/cuda/lib64/
 * libcublasLt.so.13); cuDNN 91400 (/usr/lib/x86_64-linux-gnu/
 * libcudnn.so.9)", or "" when it uses none. */
const char *fuse_model_libraries(const fuse_model *model);

/* Measures the limits a launch's speed is judged against: the device's
 * copy bandwidth (GB/s, bytes read plus bytes written, a large device to
 * device copy) and its fp32 matrix multiply rate (GFLOP/s, a 4096^3 SGEMM
 * through cuBLASLt, no TF32; 0 where it cannot be measured: on the CPU, or
 * when cuBLASLt is missing). Takes about a second. */
fuse_status fuse_model_measure_limits(fuse_model *model, double *copy_gbps,
                                      double *fp32_gflops);

/* Measures the matrix multiply rate of `math` (GFLOP/s): a 4096^3 cuBLASLt
 * matmul with f32 sums, of float32 matrices for FUSE_MATH_FP32 (no TF32)
 * and FUSE_MATH_TF32, of float16 or bfloat16 ones (output too) for
 * FUSE_MATH_FP16 and FUSE_MATH_BF16; 0 where it cannot be measured (on the
 * CPU, or when cuBLASLt is missing). Takes under a second. */
fuse_status fuse_model_measure_matmul_rate(fuse_model *model, fuse_math math,
                                           double *gflops);

/* The architectures the artifact has kernels for, comma-separated: for
 * cpu its x86-64 levels, lowest first ("x86-64,x86-64-v3"), for cuda its
 * arch ("sm_90"). */
const char *fuse_model_kernel_archs(const fuse_model *model);
/* The kernels a loaded model runs: for cpu the highest x86-64 level of the
 * artifact that this host has (at most $FUSE_CPU_LEVEL's), for cuda the
 * artifact's arch; "" for an inspected model. */
const char *fuse_model_loaded_arch(const fuse_model *model);

/* The device a loaded model runs on ("NVIDIA H100 80GB HBM3", "cpu"). */
const char *fuse_model_device_name(const fuse_model *model);
/* The driver a loaded model runs on, for timing caches: "CUDA driver
 * 13000" (cuDriverGetVersion); on the CPU "cpu" and the x86-64 level of
 * the kernels loaded ("cpu x86-64-v3"; "cpu" without kernels); "" for an
 * inspected model. */
const char *fuse_model_device_driver(const fuse_model *model);

#if defined(FUSE_BUILDING_SHARED) && defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* FUSE_RUNTIME_RUNTIME_H */
