//===- FuseAttrs.td - fuse dialect attributes --------------*- tablegen -*-===//
//
// Strategies: how a fusion group (one launch) is implemented. The strategy
// pass (fuse-select-strategies) attaches one to every group and to every op
// left outside a group; the lowering and the plan builder follow it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEATTRS_TD
#define FUSE_DIALECT_FUSE_IR_FUSEATTRS_TD

include "fuse/Dialect/Fuse/IR/FuseBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuse_Mapping : I32EnumAttr<"Mapping", "how a generated kernel's loop "
                                "maps to threads", [
  I32EnumAttrCase<"loop", 0>,
  I32EnumAttrCase<"flat", 1>,
  I32EnumAttrCase<"rows", 2>,
  I32EnumAttrCase<"planes", 3>,
  I32EnumAttrCase<"tiles", 4>,
  I32EnumAttrCase<"attention", 5>,
  I32EnumAttrCase<"attention_mma", 6>,
  I32EnumAttrCase<"transpose", 7>,
  I32EnumAttrCase<"mma", 8>
]> {
  // - loop: the whole loop nest on the calling thread (the cpu target);
  // - flat: one GPU thread per iteration of the kernel's parallel loop, in
  //   1-D blocks;
  // - rows: each iteration of the parallel loop (a row) is run by
  //   `row_threads` threads, which split the loops inside it and combine
  //   their partial reductions with shuffles (and shared memory when a row
  //   spans several warps);
  // - planes: each block computes `planes` consecutive planes (the loop's
  //   last two dims, whole) of the output: it first copies the planes of
  //   each input that the loop reads a window of into shared memory, then
  //   its threads run the planes' iterations in turn;
  // - tiles: each block computes a `block_tile` of the loop's iterations
  //   (a contraction's output), each thread a `thread_tile` of it; the
  //   block stages the operand tiles its reduction loop reads, `k_tile`
  //   iterations of it at a time, in shared memory;
  // - attention: the kernel's fuse.attention, a block per `block_tile[0]`
  //   query rows of one (batch, head), walking the keys `block_tile[1]` at
  //   a time through shared memory with an online softmax;
  // - attention_mma: the same on tensor cores (f16 and bf16 tensors, sm_80
  //   and later), a warp per 16 query rows;
  // - transpose: each block computes a `block_tile` of a transposing
  //   loop's iterations, its transposed input's tile copied through shared
  //   memory so that both the loads and the stores of a warp are adjacent;
  // - mma: a generated contraction on tensor cores (f16 and bf16 operands,
  //   sm_80 and later): each block computes a `block_tile` of the product's
  //   rows and columns, its warps `mma.sync` tiles of it, from operand
  //   tiles that `cp.async` copies `k_tile` reduction steps at a time into
  //   `stages` shared buffers; the epilogue runs on the f32 sums.
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_MatmulEpilogue : I32EnumAttr<"MatmulEpilogue", "what cuBLASLt "
                                       "applies after the product", [
  I32EnumAttrCase<"none", 0>,
  I32EnumAttrCase<"bias", 1>,
  I32EnumAttrCase<"relu", 2>,
  I32EnumAttrCase<"bias_relu", 3>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_ConvActivation : I32EnumAttr<"ConvActivation", "the activation "
                                       "cuDNN applies", [
  I32EnumAttrCase<"identity", 0>,
  I32EnumAttrCase<"relu", 1>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Compile options with a closed set of values: the pass options and
// fuse::CompileOptions take them typed, and fuse-compile and the Python
// package parse their spellings with the generated symbolize functions.
//===----------------------------------------------------------------------===//

def Fuse_KernelTarget : I32EnumAttr<"KernelTarget", "what the kernels run "
                                    "on", [
  I32EnumAttrCase<"cuda", 0>,
  I32EnumAttrCase<"cpu", 1>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_StrategyPreference : I32EnumAttr<"StrategyPreference",
    "where a contraction runs when a library could take it", [
  // libraries where they apply and are faster
  I32EnumAttrCase<"automatic", 0, "auto">,
  // fuse's kernels only
  I32EnumAttrCase<"generated", 1>,
  // libraries wherever they can
  I32EnumAttrCase<"library", 2>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_DepthwiseImpl : I32EnumAttr<"DepthwiseImpl", "what computes a "
                                     "depthwise convolution", [
  // fuse's kernel, with the whole epilogue fused
  I32EnumAttrCase<"kernel", 0>,
  // cuDNN
  I32EnumAttrCase<"library", 1>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_ConvMode : I32EnumAttr<"ConvMode", "which convolutions "
                                    "become im2col and a matmul, over which "
                                    "layout", [
  I32EnumAttrCase<"automatic", 0, "auto">,
  I32EnumAttrCase<"direct", 1>,
  I32EnumAttrCase<"gemm", 2>,
  I32EnumAttrCase<"nhwc", 3>,
  I32EnumAttrCase<"nhwc_direct", 4, "nhwc-direct">
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_ReportFormat : I32EnumAttr<"ReportFormat", "how the fusion report "
                                    "is written", [
  I32EnumAttrCase<"text", 0>,
  I32EnumAttrCase<"json", 1>,
  I32EnumAttrCase<"dot", 2>
]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_Precision : I32EnumAttr<"Precision", "the precision a group's "
                                  "values and products are in", [
  I32EnumAttrCase<"fp32", 0>,
  I32EnumAttrCase<"tf32", 1>,
  I32EnumAttrCase<"fp16", 2>,
  I32EnumAttrCase<"bf16", 3>
]> {
  // What the precision policy (fuse-apply-precision) decided for a group.
  // Every kernel computes in f32 registers; the precision says in which
  // type the group's values are stored between kernels and its
  // contraction's operands are multiplied:
  // - fp32: f32 values, f32 products (no tensor cores);
  // - tf32: f32 values, the contraction on TF32 tensor cores (its operands
  //   rounded to 10 mantissa bits, f32 accumulation);
  // - fp16, bf16: values stored in that type (loads widen to f32, stores
  //   narrow), the contraction's operands in that type on tensor cores,
  //   accumulated in f32.
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_PrecisionAttr : EnumAttr<Fuse_Dialect, Fuse_Precision, "precision"> {
  let summary = "the precision policy's decision for a group";
  let assemblyFormat = "`<` $value `>`";
}

class Fuse_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Fuse_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Fuse_KernelStrategyAttr : Fuse_Attr<"KernelStrategy", "kernel"> {
  let summary = "a kernel generated by fuse, and its launch configuration";
  let description = [{
    The group is lowered to one kernel. `grid` and `block` are its 1-D
    launch dimensions (1 and 1 for the `loop` mapping); with the `rows`
    mapping each row of the kernel's parallel loop is run by `row_threads`
    threads (a warp, or the whole block).

    With the `planes` mapping each block computes `planes` consecutive
    planes of the output (the loop's last two dims whole; the leading dims
    counted row-major) from a copy of each windowed input's planes in
    shared memory; `grid` covers the planes. With `staged_output` the
    block also writes its output planes into shared memory and stores them
    from there, adjacent threads to adjacent (16-byte) addresses, instead
    of each thread storing its own tile: a thread's row of 7 outputs makes
    every store of a warp touch 7 cache lines.

    With a `thread_tile` (`flat`, `planes` and `loop` mappings), each
    iteration of the parallel loop computes a tile of neighbouring outputs,
    one size per dim of the loop (fuse-jam-thread-tiles), so what they
    share is loaded once and neighbouring accesses can be vector accesses;
    `grid` covers the loop's iterations after tiling.

    With the `tiles` mapping (generated contractions) the loop is split
    into tiles of `block_tile` iterations per dim, one per block (`grid`
    counts them; tiles at the loop's end may be partial), and each block
    into `thread_tile`s, one per thread (`block` is how many a block
    has). The block copies what its reduction loop reads of each operand,
    `k_tile` iterations of that loop at a time, into shared memory, and
    its threads then read the operands from there: each element of an
    operand tile is loaded from global memory once per block instead of
    once per thread tile that needs it. `k_tile = 0` stages nothing.
    With `stages = 2` the block loads the next chunk of the operands into
    registers while it computes the current one (the loads are issued
    before the chunk's barriers and stored to shared memory at the start
    of the next chunk), so their latency hides behind the arithmetic;
    `stages = 1` loads each chunk and waits for it.

    With `async_copy` (sm_80 and later) the chunks go from global to shared
    memory through asynchronous copies (`cp.async`), which hold no
    registers and zero-fill what lies past an operand's end; the block then
    has `stages` shared buffers of each operand (2 or 3) and keeps the
    copies of the next `stages - 1` chunks in flight while it computes one.

    `split_k = S` (with `tiles`) marks the first half of a split-K
    contraction: the reduction is cut into S slices, the loop's first dim
    (of extent S) walks them, and each iteration writes its slice's partial
    sums; the group after it adds the S partial results and applies the
    epilogue. It gives shapes with few output tiles S times the blocks.

    The `attention` mapping is for a kernel that is one fuse.attention
    (fuse-map-kernels-to-gpu builds its body, Codegen/GPU/AttentionTiles):
    `block_tile = [BR, BC]`, each block of 256 threads computes BR query
    rows of one (batch, head), `grid` = ceil(Sq / BR) * B * Hq; it keeps
    its rows of Q (pre-scaled) in shared memory and walks the keys BC at
    a time: K^T and V tiles in shared memory, the BR x BC scores in
    registers (a 16 x 16 grid of threads), the online softmax's row
    maxima and sums by shuffles, the probabilities through shared memory
    (in K^T's place) into the BR x Dv output, which stays in registers
    until the end. The score matrix never reaches global memory.

    The `attention_mma` mapping is the same kernel on tensor cores, for
    f16 and bf16 tensors on sm_80 and later (FlashAttention-2's schedule,
    Codegen/GPU/AttentionMmaTiles): `block_tile = [BR, BC]`, BR / 16 warps
    a block (`block` = 2 BR threads), each warp 16 query rows; Q K^T and
    P V are `mma.sync` m16n8k16 products with f32 sums, their operands
    read from shared memory by `ldmatrix`; the scores, the online softmax
    and the probabilities stay in the warps' registers. K and V tiles are
    copied by `cp.async`; with `stages = 2` the next tile's copies are in
    flight while the block computes one.

    The `transpose` mapping is for a loop that reads an input in another
    order than it writes its output (a Transpose, and the elementwise ops
    around it): `block_tile = [TA, TB]`, where A is the run of the loop's
    last dims that the input holds in the same order (the output's
    innermost elements, whose stores a warp wants adjacent) and B the run
    of loop dims that is the input's innermost (whose loads it wants
    adjacent); the other dims are outer. Each block covers TA x TB
    iterations of one outer index (`grid` = outer iterations x
    ceil(A / TA) x ceil(B / TB), with A and B the runs' iterations): its
    threads first copy the input's tile into shared memory, adjacent
    threads reading adjacent input elements, then compute the tile's
    iterations, adjacent threads writing adjacent output elements and
    reading the input from the copy (rows of an odd number of elements,
    so that the column a warp reads is spread over the banks).

    The `mma` mapping is a contraction (MatMul, Gemm, with its epilogue)
    on tensor cores, for f16 and bf16 operands on sm_80 and later
    (Codegen/GPU/ContractionMmaTiles): `block_tile = [BM, BN]` over the
    loop's last two dims (the product's rows and columns; any dims before
    them take one block per index), `block` / 32 warps laid out over the
    block tile as getMmaWarpGrid says, each computing its part of the
    tile in m16n8k16 `mma.sync` products with f32 sums; the block copies
    `k_tile` steps of the reduction of both operands into shared memory
    with `cp.async`, `stages` buffers deep (the next `stages - 1` chunks
    in flight while it computes one), and the warps read them by
    `ldmatrix`. Each sum then goes through the group's epilogue as it is
    and is stored. With `split_k = S` (2, 4 or 8; sm_90 and later) the S
    blocks of a thread block cluster share one block tile, each running
    1/S of the reduction's chunks (`grid` counts them all): each writes its
    sums into its shared memory, and after the cluster's barrier each
    block adds up 1/S of the tile's sums from the S blocks' shared memory
    (distributed shared memory, `mapa`) and applies the epilogue to them.
    It gives products with few output tiles (short M) S times the blocks
    and S times fewer chunks a block to wait for.

    ```mlir
    #fuse.kernel<flat, grid = 392, block = 256>
    #fuse.kernel<flat, grid = 98, block = 256, thread_tile = [1, 1, 4]>
    #fuse.kernel<rows, grid = 16, block = 256, row_threads = 32>
    #fuse.kernel<planes, grid = 854, block = 256, planes = 36,
                 thread_tile = [1, 1, 1, 7]>
    #fuse.kernel<planes, grid = 1920, block = 128, planes = 16,
                 staged_output, thread_tile = [1, 1, 1, 7]>
    #fuse.kernel<tiles, grid = 96, block = 256, thread_tile = [4, 4],
                 block_tile = [64, 64], k_tile = 16>
    #fuse.kernel<tiles, grid = 96, block = 256, thread_tile = [8, 8],
                 block_tile = [128, 128], k_tile = 16, stages = 2>
    #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [1, 4, 4],
                 block_tile = [1, 64, 64], k_tile = 16, stages = 2,
                 split_k = 8>
    #fuse.kernel<tiles, grid = 96, block = 256, thread_tile = [8, 8],
                 block_tile = [128, 128], k_tile = 16, stages = 3,
                 async_copy>
    #fuse.kernel<attention, grid = 768, block = 256, block_tile = [64, 32]>
    #fuse.kernel<attention_mma, grid = 768, block = 128,
                 block_tile = [64, 64], stages = 2>
    #fuse.kernel<transpose, grid = 1152, block = 256, block_tile = [64, 49]>
    #fuse.kernel<mma, grid = 144, block = 128, block_tile = [64, 32],
                 k_tile = 64, stages = 3>
    #fuse.kernel<mma, grid = 576, block = 128, block_tile = [64, 32],
                 k_tile = 64, stages = 4, split_k = 4>
    ```
  }];
  let parameters = (ins
    EnumParameter<Fuse_Mapping>:$mapping,
    "int64_t":$grid,
    "int64_t":$block,
    DefaultValuedParameter<"int64_t", "1">:$rowThreads,
    OptionalArrayRefParameter<"int64_t">:$threadTile,
    DefaultValuedParameter<"int64_t", "1">:$planes,
    DefaultValuedParameter<"bool", "false">:$stagedOutput,
    OptionalArrayRefParameter<"int64_t">:$blockTile,
    DefaultValuedParameter<"int64_t", "0">:$kTile,
    DefaultValuedParameter<"int64_t", "1">:$stages,
    DefaultValuedParameter<"int64_t", "1">:$splitK,
    DefaultValuedParameter<"bool", "false">:$asyncCopy
  );
  // The optional parameters start with a comma: a declarative format
  // could not tell them apart.
  let hasCustomAssemblyFormat = 1;
  let builders = [
    AttrBuilder<(ins "Mapping":$mapping, "int64_t":$grid, "int64_t":$block,
                     CArg<"int64_t", "1">:$rowThreads), [{
      return $_get($_ctxt, mapping, grid, block, rowThreads,
                   ::llvm::ArrayRef<int64_t>(), 1, false,
                   ::llvm::ArrayRef<int64_t>(), 0, 1, 1, false);
    }]>,
    AttrBuilder<(ins "Mapping":$mapping, "int64_t":$grid, "int64_t":$block,
                     "int64_t":$rowThreads,
                     "::llvm::ArrayRef<int64_t>":$threadTile), [{
      return $_get($_ctxt, mapping, grid, block, rowThreads, threadTile, 1,
                   false, ::llvm::ArrayRef<int64_t>(), 0, 1, 1, false);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Iterations of the kernel's parallel loop the configuration covers:
    /// rows for `rows`, elements (thread tiles) for `flat`, planes for
    /// `planes`, thread tiles for `tiles`.
    int64_t getCapacity() const;
  }];
}

def Fuse_CublasLtStrategyAttr : Fuse_Attr<"CublasLtStrategy", "cublaslt"> {
  let summary = "a cuBLASLt matmul with a fused epilogue";
  let description = [{
    The group's MatMul or Gemm (`batch` products of `m` x `k` by `k` x `n`)
    and the start of its epilogue run as one cuBLASLt call: a bias along
    the last dim and ReLU in cuBLASLt's epilogue, a residual Add as its C
    operand (beta 1). `precision` is how its A and B are multiplied: fp32
    (f32 FMAs, no TF32), tf32 (f32 operands on TF32 tensor cores), fp16 or
    bf16 (operands stored in that type, on tensor cores); the sums are f32
    in every case. The output, bias and C are in the type the group stores
    its result in (f32, or the operands' half type).

    ```mlir
    #fuse.cublaslt<batch = 1, m = 128, n = 768, k = 768, epilogue = bias,
                   residual = false>
    #fuse.cublaslt<batch = 1, m = 128, n = 768, k = 768, epilogue = bias,
                   residual = false, precision = fp16>
    ```
  }];
  let parameters = (ins
    "int64_t":$batch, "int64_t":$m, "int64_t":$n, "int64_t":$k,
    EnumParameter<Fuse_MatmulEpilogue>:$epilogue,
    "bool":$residual,
    DefaultValuedParameter<"::fuse::Precision", "::fuse::Precision::fp32">:$precision
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Fuse_CudnnStrategyAttr : Fuse_Attr<"CudnnStrategy", "cudnn"> {
  let summary = "a cuDNN convolution with a fused epilogue";
  let description = [{
    The group's 2-D Conv and the start of its epilogue run as one cuDNN
    call (cudnnConvolutionBiasActivationForward): the bias, a residual Add
    and ReLU. `precision`: fp32 (f32 data, FMA math, no TF32), tf32 (f32
    data on TF32 tensor cores), fp16 or bf16 (every operand and the output
    in that type, tensor cores, f32 accumulation); the algorithm is chosen
    by timing when the model loads. `channels_last`: the group's
    onnx.NhwcConv, NHWC data and [K, R, S, C] filters (an onnx.Conv's
    call is NCHW).

    ```mlir
    #fuse.cudnn<groups = 1, bias = true, residual = true, activation = relu>
    #fuse.cudnn<groups = 1, bias = true, residual = false, activation = relu,
                precision = fp16>
    #fuse.cudnn<groups = 1, bias = true, residual = true, activation = relu,
                precision = fp16, channels_last = true>
    ```
  }];
  let parameters = (ins
    "int64_t":$groups, "bool":$bias, "bool":$residual,
    EnumParameter<Fuse_ConvActivation>:$activation,
    DefaultValuedParameter<"::fuse::Precision", "::fuse::Precision::fp32">:$precision,
    DefaultValuedParameter<"bool", "false">:$channels_last
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

def Fuse_IndexCheckAttr : Fuse_Attr<"IndexCheck", "index_check"> {
  let summary = "a graph result that says whether an op's indices were in "
                "range";
  let description = [{
    Marks a result of the graph function that fuse-insert-index-checks
    added: a scalar f32, the largest index of `node` (an onnx `op`, Gather,
    GatherElements or GatherND) that was out of range in a run, clipped to
    [-2^24, 2^24], or -inf when every index was in range. `range` says, for the error
    the runtime gives, which dims the indices address and their sizes. The
    result is no output of the model: the plan keeps it in a check buffer,
    which the runtime reads after each run.

    ```mlir
    func.func @main_graph(...) -> (..., tensor<f32> {fuse.index_check =
        #fuse.index_check<node = "emb", op = "Gather",
                          range = "axis 0 of size 30522">})
    ```
  }];
  let parameters = (ins StringRefParameter<>:$node, StringRefParameter<>:$op,
                        StringRefParameter<>:$range);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Fuse_TargetAttr : Fuse_Attr<"Target", "target"> {
  let summary = "the GPU the kernels are compiled for, and its size";
  let description = [{
    The module attribute `fuse.target`, which fuse-set-target attaches for
    the cuda target: the architecture (`sm_80` and later: tensor cores;
    `sm_90` and later: thread block clusters) and its number of streaming
    multiprocessors, by which fuse-select-strategies sizes its grids (a
    block per SM for contraction tiles, two for the flat, planes,
    transpose and attention kernels), and whether it has tensor cores and
    clusters. In a module without it grids are sized for 132 SMs (an
    H100's), and tensor cores and clusters are as fuse-select-strategies'
    options say.

    ```mlir
    module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 108>}
    ```
  }];
  let parameters = (ins StringRefParameter<>:$arch, "int64_t":$sms);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Fuse_StrategyAttr : AnyAttrOf<[Fuse_KernelStrategyAttr,
                                   Fuse_CublasLtStrategyAttr,
                                   Fuse_CudnnStrategyAttr]>;

#endif // FUSE_DIALECT_FUSE_IR_FUSEATTRS_TD
