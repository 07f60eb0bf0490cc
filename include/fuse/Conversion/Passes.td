//===- Passes.td - fuse lowering passes --------------------*- tablegen -*-===//
//
// The lowering of kernel functions (see fuse-outline-kernels): onnx ops to
// linalg on tensors, one loop nest per kernel, buffers, then GPU or CPU code.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_CONVERSION_PASSES_TD
#define FUSE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertONNXToLinalg : Pass<"convert-onnx-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower the onnx ops of kernel functions to linalg on tensors";
  let description = [{
    In functions marked `fuse.kernel`, rewrites every onnx op into linalg,
    tensor and arith ops on tensors:

    - elementwise ops: one `linalg.generic` each, broadcast operands read
      through indexing maps, splat constants folded into the body;
    - pooling: an optional `tensor.pad`, then a `linalg.generic` reducing
      over a window operand (any number of spatial dims), then the division
      for AveragePool;
    - Conv: `tensor.pad`, the bias (or zero) as init, then a `linalg.generic`
      with groups in its indexing map; Gemm and MatMul likewise;
    - Reshape/Flatten: views (`tensor.collapse_shape`/`expand_shape`) and a
      copy, so every kernel ends in a tileable op.

    Shapes must be static; anything else is an error naming the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
  ];
}

def FormKernelLoops : Pass<"fuse-form-kernel-loops", "mlir::func::FuncOp"> {
  let summary = "Turn each kernel function into exactly one parallel loop nest";
  let description = [{
    Tiles the op that produces a kernel's result with tile size 1 on every
    parallel dimension (an `scf.forall` over the output elements) and fuses
    every producer into the tile, so the whole kernel body computes one
    output element per iteration and intermediates never exist as whole
    tensors. Fails, naming the op, when something cannot be fused into the
    loop: a kernel is one loop nest or it is an error.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BufferizeKernels : Pass<"fuse-bufferize-kernels", "mlir::ModuleOp"> {
  let summary = "Bufferize kernel functions; results become out-params";
  let description = [{
    One-shot bufferization of the whole module (which must hold only
    kernels) with identity layouts at function boundaries (fuse.attention
    becomes its buffer form, writing a new buffer); each result
    becomes a trailing out-param and is written in place, and every copy is
    a `linalg.copy`, which lowers to loops: kernels must not call runtime
    library functions (there are none on the GPU).

    ```mlir
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32>
    // becomes
    func.func @k(%a: memref<4xf32>, %out: memref<4xf32>)
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
  ];
}

def LowerAttention : Pass<"fuse-lower-attention", "mlir::func::FuncOp"> {
  let summary = "Lower bufferized fuse.attention ops to loops, a query row "
                "per iteration";
  let description = [{
    Each buffer-form `fuse.attention` of a kernel becomes one `scf.parallel`
    over (batch, head, query row) whose iteration computes its row with an
    online softmax: one pass over the keys keeps the running maximum and
    sum of exponentials, and the row's outputs in a stack buffer, rescaled
    when the maximum grows; the scores are never stored. This is the
    kernel of the cpu target, and of GPU shapes the `attention` mapping
    does not take (`flat`, a thread per row). A kernel whose strategy is
    the `attention` mapping keeps its op: fuse-map-kernels-to-gpu builds
    its blocks from it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
  ];
}

def DistributeRows : Pass<"fuse-distribute-rows", "mlir::ModuleOp"> {
  let summary = "Split the work of each row of a `rows` kernel over the "
                "row's threads";
  let description = [{
    For kernels whose `fuse.strategy` is `#fuse.kernel<rows, ...>` (a warp
    or a block per iteration of the kernel's parallel loop), after
    bufferization: each linalg op in the row that writes global memory and
    has only parallel iterators is run by lane `l` for iterations `l`,
    `l + R`, ... of its linearized iteration space (by chunks of 16 bytes,
    lane `l` taking chunks `l`, `l + R`, ..., where every operand that
    varies along the innermost loop is contiguous and provably aligned in
    it: one `vector.load` or `vector.store` per operand and chunk); each op with only
    reduction iterators and an f32 combiner (add, mul, maximumf, minimumf,
    maxnumf, minnumf) folds a per-lane partial that is combined across the
    row with `gpu.shuffle` (xor butterfly) and, for a block-wide row,
    through shared memory (`__fuse_row_partials`) between `gpu.barrier`s;
    what else writes global memory runs in lane 0. The lanes of a row
    synchronize after each op that writes global memory. Ops that write
    only a thread's own stack buffers run in every lane. A kernel of one
    block whose row is the block and that has no row loop (a reduction to
    one value) is one row: its own body is split the same way, and the
    kernel is marked `fuse.one_row`, so that fuse-map-kernels-to-gpu runs
    it in every thread instead of thread 0 alone.

    ```mlir
    // one row of a Softmax: the max reduction, per lane
    scf.for %i = %lane to %c128 step %c32 { ... arith.maximumf ... }
    %s = gpu.shuffle xor %p, %c16, %c32 : f32  // ... 8, 4, 2, 1
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect", "::mlir::affine::AffineDialect",
  ];
}

def HoistStaticAllocas : Pass<"fuse-hoist-static-allocas",
                               "mlir::func::FuncOp"> {
  let summary = "Move fixed-size stack buffers out of loops, to the entry "
                "block";
  let description = [{
    Per-element temporaries (accumulators, row statistics) are promoted to
    `memref.alloca` where they were allocated: inside the kernel's loop.
    An alloca in a loop grows the stack on every iteration on the CPU (a
    large kernel overflows it) and is a dynamic alloca LLVM will not
    promote to registers. Every alloca of static size with no operands
    moves to the start of the function; each iteration still initializes
    it before use, and on the GPU the entry block is already per thread.

    ```mlir
    scf.for ... { %a = memref.alloca() : memref<1xf32> ... }
    // becomes
    %a = memref.alloca() : memref<1xf32>
    scf.for ... { ... }
    ```
  }];
}

def PromoteAccumulators : Pass<"fuse-promote-accumulators",
                                "mlir::func::FuncOp"> {
  let summary = "Carry loop accumulators in registers (scf.for iter_args) "
                "instead of memory";
  let description = [{
    A reduction lowered to loops accumulates in its output buffer: every
    iteration loads the element and stores it back. When that buffer is a
    kernel argument, LLVM cannot keep the element in a register (it cannot
    tell the argument from the other buffers the loop reads), so each tap
    of a pooling window waits for the store of the previous one. This pass
    rewrites each `scf.for` whose body loads and then stores one element
    at loop-invariant indices, and touches no other element of the same
    buffer, into a loop that carries the value: one load before the loop,
    one store after it. Innermost loops first, so a nest of window loops
    carries the value through all of them.

    Buffers are told apart by what they view (through subviews, casts and
    reshapes): distinct kernel arguments, allocations and globals. This
    relies on the execution plan never passing a kernel overlapping
    buffers where one is written (a kernel never writes over its inputs).
    A loop with an op of unknown memory effects is left alone.

    ```mlir
    scf.for %i = %c0 to %c3 step %c1 {
      %a = memref.load %out[%c0] : memref<1xf32>
      ... memref.store %s, %out[%c0] : memref<1xf32>
    }
    // becomes
    %init = memref.load %out[%c0] : memref<1xf32>
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %init) -> (f32) {
      ... scf.yield %s : f32
    }
    memref.store %r, %out[%c0] : memref<1xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
  ];
}

def JamThreadTiles : Pass<"fuse-jam-thread-tiles", "mlir::func::FuncOp"> {
  let summary = "Give each iteration of a kernel's parallel loop a tile of "
                "neighbouring outputs, jammed into its inner loops";
  let description = [{
    For a kernel whose strategy has a `thread_tile` (chosen by
    fuse-select-strategies), each dim of the top-level `scf.parallel` steps
    by its tile size, and the body is unrolled over the tile and jammed
    into the body's inner loops (a window's taps, a reduction): for a 3x3
    window and a tile of 4 along W, the taps loop once and each tap
    updates 4 accumulators. What the tile's outputs share (overlapping
    input columns, a weight, an index, the index arithmetic) is then
    computed once after CSE, and neighbouring loads and stores sit side by
    side, where LLVM can make them vector accesses.

    Iterations of a parallel loop are independent, so jamming them is
    legal, except through scratch buffers on the stack that every iteration
    reuses: each unrolled copy gets its own (allocas used only inside the
    loop move into it first). A body that shares an alloca with code
    outside the loop is unrolled without jamming. A tile size that does not
    divide its dim's iterations is an error: the launch grid was computed
    for the tiled loop.

    ```mlir
    // thread_tile = [1, 4]
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
      ... one output at (%i, %j)
    }
    // becomes
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c4) {
      ... outputs at (%i, %j), (%i, %j + 1), (%i, %j + 2), (%i, %j + 3)
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BlockAccumulations : Pass<"fuse-block-accumulations",
                               "mlir::func::FuncOp"> {
  let summary = "Sum long reductions in blocks (bounded rounding error)";
  let description = [{
    A reduction lowered to loops adds its elements one after another into
    one accumulator, and the rounding error of a chain of n float
    additions grows with n (2^25 float ones sum to 2^24, a mean of 0.5).
    This pass splits each `scf.for` that carries only sums and may add to
    them more than `block` times (its iterations times the additions one
    iteration makes, through inner loops too: a conv's channel loop around
    its 3x3 taps makes 9) into a loop over blocks of `block` additions'
    worth of iterations: each block sums from -0.0 (addf's identity) into
    a partial that is then added to the running value. The loop over
    blocks is split again while it may run more than `block` iterations,
    so no chain is longer than about `block` additions at any level (the
    error grows with `block` times the number of levels, not with n).
    Inner loops are split first.

    An iteration argument is a sum when the body only adds to it
    (`arith.addf`, in either operand order), directly or through an inner
    `scf.for` that takes it as the initial value of a sum; nothing else
    may read the running value. Loops carrying anything else (a maximum,
    a rescaled sum) are left alone, as are loops whose step or upper bound
    is not a constant. A lower bound that is not a constant (a thread's
    first element in a strided loop) is taken as 0 to bound the trip
    count, and each block's end is clamped to the upper bound.

    ```mlir
    %r = scf.for %k = %c0 to %c1024 step %c1 iter_args(%a = %init) -> (f32) {
      %s = arith.addf %a, %x : f32
      scf.yield %s : f32
    }
    // becomes, with block = 256
    %r = scf.for %kb = %c0 to %c1024 step %c256 iter_args(%a = %init) -> (f32) {
      %end = arith.addi %kb, %c256 : index
      %p = scf.for %k = %kb to %end step %c1 iter_args(%b = %minus_zero) -> (f32) {
        %s = arith.addf %b, %x : f32
        scf.yield %s : f32
      }
      %t = arith.addf %a, %p : f32
      scf.yield %t : f32
    }
    ```
  }];
  let options = [
    Option<"block", "block", "int64_t", /*default=*/"256",
           "Iterations summed into one partial (at least 2)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
  ];
}

def CacheTileContractions : Pass<"fuse-cache-tile-contractions",
                                  "mlir::func::FuncOp"> {
  let summary = "Run a cpu contraction's column tiles in blocks whose part "
                "of B fits a cache";
  let description = [{
    For a cpu kernel (`loop` mapping) with a register tile of two or more
    dims, after fuse-jam-thread-tiles: each top-level `scf.parallel` whose
    last two dims (rows, columns) have constant bounds and steps, at least
    two row tiles and a reduction (the first `scf.for` of the body that
    carries values, from 0 to a constant K) gets its column dim split into
    blocks of the most whole column tiles whose K x columns elements fit in
    `cache-bytes`. An outer `scf.parallel` runs the other dims and the
    blocks; an inner one the rows and the block's columns. The lowering
    runs a parallel loop's dims in order, so every row tile passes over one
    block of B (kept in L2) before the next block is read. Iterations and
    body are unchanged. A loop whose columns fit in one block is left
    alone.

    ```mlir
    // K = 580, cache-bytes = 65536: 28 columns of 4 bytes x 580, 3 tiles
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c3136) step (%c8, %c8) {...}
    // becomes
    scf.parallel (%jb) = (%c0) to (%c3136) step (%c24) {
      %end = arith.minsi(%jb + 24, 3136)
      scf.parallel (%i, %j) = (%c0, %jb) to (%c64, %end) step (%c8, %c8) {...}
    }
    ```
  }];
  let options = [
    Option<"cacheBytes", "cache-bytes", "int64_t", /*default=*/"131072",
           "Bytes of B a block of columns may read (an L2 share)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
  ];
}

def MapKernelsToGPU : Pass<"fuse-map-kernels-to-gpu", "mlir::ModuleOp"> {
  let summary = "Make each bufferized kernel a gpu.func, mapped as its "
                "strategy says";
  let description = [{
    Moves every kernel function (memref parameters, one top-level
    `scf.parallel`) into the `gpu.module @fuse_kernels` as a `gpu.func`
    kernel, with the launch configuration of its `fuse.strategy`
    (`#fuse.kernel<...>`, chosen by fuse-select-strategies; without one,
    `flat` with `block-size` threads):

    - `flat`: iteration `blockIdx.x * block + threadIdx.x` (row-major
      linear index of the parallel loop), if it is in range;
    - `rows`: row `blockIdx.x * (block / row_threads) + threadIdx.x /
      row_threads`, whose work fuse-distribute-rows already split over the
      row's threads.

    The strategy's grid must cover the loop exactly (an error otherwise:
    the plan launches what the strategy says). Known block and grid sizes
    are recorded on the gpu.func.

    When every buffer, every parallel loop and every launch of the module
    stays below 2^31 elements, the gpu.module gets a data layout with a
    32-bit `index` (`#dlti.dl_spec<index = 32>`), which convert-gpu-to-nvvm
    follows: index arithmetic (delinearization, addresses, bounds checks)
    is then native 32-bit integer arithmetic instead of emulated 64-bit.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::DLTIDialect",
    "::mlir::memref::MemRefDialect",
    // exp2 and fma of `attention` blocks.
    "::mlir::math::MathDialect",
    // cp.async of `tiles` blocks with async_copy; cp.async, ldmatrix and
    // mma.sync of `attention_mma` blocks, whose fragments are vectors; the
    // cluster barriers and distributed shared memory of split mma blocks.
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"blockSize", "block-size", "unsigned", "256",
           "Threads per block">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "32",
           "Index width of the kernels when their sizes fit in it (32 or "
           "64; 64 always)">,
  ];
}

def LowerNVGPU : Pass<"fuse-lower-nvgpu", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the kernels' nvgpu ops to NVVM, at the gpu.module's "
                "index width";
  let description = [{
    Upstream's nvgpu-to-NVVM patterns, for the nvgpu ops of the kernels
    (`nvgpu.device_async_copy` of `tiles` blocks with `async_copy` and of
    `attention_mma` blocks; the latter's `nvgpu.ldmatrix` and
    `nvgpu.mma.sync`): the copies become `nvvm.cp.async.shared.global`,
    their addresses computed at the index width of the gpu.module's data
    layout (32 bits where fuse-map-kernels-to-gpu chose it), as
    convert-gpu-to-nvvm then computes the rest; upstream's
    convert-nvgpu-to-nvvm always uses 64 bits, and the two descriptors of
    one memref would not meet.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
  ];
}

def AddKernelEntryPoints : Pass<"fuse-add-kernel-entry-points", "mlir::ModuleOp"> {
  let summary = "Add `<kernel>_packed(void **args)` entry points (CPU)";
  let description = [{
    For every kernel lowered to an LLVM function taking one pointer per
    buffer (bare-pointer calling convention), adds
    `void <kernel>_packed(void **args)` that loads `args[i]` and calls the
    kernel, so the runtime can call any kernel through one signature. The
    kernel's pointers are marked `llvm.noalias` and `llvm.align = 64` (each
    buffer is its own 64-byte-aligned region of the arena; the plan never
    passes overlapping buffers where one is written).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FUSE_CONVERSION_PASSES_TD
