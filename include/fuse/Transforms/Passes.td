//===- Passes.td - fuse fusion passes ----------------------*- tablegen -*-===//

#ifndef FUSE_TRANSFORMS_PASSES_TD
#define FUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SimplifyGraph : Pass<"fuse-simplify-graph", "mlir::func::FuncOp"> {
  let summary = "Fold shape computations and constants, fold BatchNorm, "
                "drop dead ops";
  let description = [{
    Clean-up before fusion, in one walk over the function in op order:

    - each op's result type is re-inferred from its operands, so shapes
      that became static (a Reshape whose shape operand was just folded)
      propagate to every later op;
    - ops whose operands are all constants are evaluated at compile time
      (Shape, Gather, Unsqueeze, Concat, Slice, Cast, Range, arithmetic,
      ...; tensors up to 65536 elements), as are ops with folders (Shape
      of a static tensor);
    - BatchNormalization after a Conv whose only user it is folds into
      the Conv's filters and bias; elsewhere it becomes `X * a + b` with
      per-channel constants, which fuses like any elementwise op;
    - Identity (and Dropout, imported as Identity) is forwarded;
    - a scalar factor of an operand of a product of two activations moves
      after the product when that goes on into a Softmax or an
      elementwise op (PyTorch's sdpa export scales Q and K by
      sqrt(scale) each), which the moved Mul joins;
    - a Concat, Sum, Max, Min or Mean of more than 64 inputs becomes a
      tree of such ops of at most 64 inputs each (a Mean: its chunks'
      Means, each weighted by its share of the inputs, then Sums): a kernel's buffers are its parameters, which CUDA
      bounds, and compile time stays linear in the inputs;
    - dead ops are erased and the function's result types updated.

    ```mlir
    // before
    %s = onnx.Shape(%x) : (tensor<1x64x7x7xf32>) -> tensor<4xi64>
    %i = onnx.Constant dense<0> : tensor<i64>
    %n = onnx.Gather(%s, %i) : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    // after
    %n = onnx.Constant dense<1> : tensor<i64>
    ```
  }];
}

def InsertIndexChecks : Pass<"fuse-insert-index-checks",
                              "mlir::func::FuncOp"> {
  let summary = "Check at run time that each Gather's indices are in range";
  let description = [{
    ONNX calls an index out of range an error; the kernels clamp it into
    range so no read leaves the tensor, which alone would be a silent wrong
    answer. For each Gather, GatherElements and GatherND whose indices are
    not constants (constant ones are checked at import), this adds a result
    to the graph function, marked `fuse.index_check`: the largest
    out-of-range index as an f32 (clipped to [-2^24, 2^24], where f32 holds
    every integer), or -inf when there is none. The runtime reads it after
    each run and fails the run with the node's name and the index. The
    check is ordinary graph ops, fused into one reduction kernel per check
    (an f32 max, which the GPU's rows kernels split over their threads):

    ```mlir
    // before
    %y = onnx.Gather(%table, %ids) {axis = 0 : i64}
        : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    return %y : tensor<3x4xf32>
    // after
    %bad = onnx.Or(onnx.Less(%ids, -5), onnx.GreaterOrEqual(%ids, 5))
    %clipped = onnx.Min(onnx.Max(%ids, -16777216), 16777216)
    %key = onnx.Where(%bad, onnx.Cast(%clipped) {to = f32}, -inf)
    %check = onnx.ReduceMax(%key) {keepdims = 0 : i64}
        : (tensor<3xf32>) -> tensor<f32>
    return %y, %check : tensor<3x4xf32>, tensor<f32>
    // with the result attribute
    //   fuse.index_check = #fuse.index_check<node = "...", op = "Gather",
    //                                        range = "axis 0 of size 5">
    ```

    GatherND's indices address several dims, each with its own size: the
    bounds are a constant of the indices' last dim, broadcast.
  }];
  let dependentDialects = ["::fuse::ONNXDialect", "::fuse::FuseDialect"];
}

def RaiseAttention : Pass<"fuse-raise-attention", "mlir::func::FuncOp"> {
  let summary = "Raise each attention chain to one fuse.attention";
  let description = [{
    Finds MatMul(Softmax(scale * MatMul(Q, K^T) + mask), V), with PyTorch
    sdpa's IsNaN/Where guard after the Softmax when there is one, scale a
    product of scalar Muls and Divs and the mask an optional Add of a 4-D
    tensor, and replaces it by one `fuse.attention`. Its operands are the
    tensors before the head Transposes, [batch, sequence, heads, head
    size]: where Q, K^T or V is a chain of Reshapes and Transposes that is
    exactly such a tensor transposed ([0, 2, 1, 3], for K^T [0, 2, 3, 1]),
    the op reads that tensor, and a Transpose [0, 2, 1, 3] after the
    product is the op's result. A Q, V or K (through K^T) that is [B, H,
    S, D] is read as it is (`heads_first`), as is the result when no
    Transpose follows; key and value heads repeated for grouped-query
    attention (Unsqueeze, Expand, Reshape) are read unrepeated. Only a
    K^T that is no view of a K gets a Transpose. Static 4-D f32 tensors. fuse-compile runs it at the
    start of its fusion stage; the op is a kernel of its own
    (fuse-lower-attention, or the GPU's `attention` mapping).

    With `fuse-projections`, an op whose Q, K and V are Reshapes to [B,
    S, H, D] of three projections of one input, MatMul(x, W) with or
    without a bias Add, W and b constants, reads them from one projection
    instead: MatMul(x, [Wq | Wk | Wv]) + [bq | bk | bv] viewed as [B, S,
    Hq + 2 Hkv, D], the op's `head_offsets` [0, Hq, Hq + Hkv] (one
    library call instead of three; at batch 1 each is bound by its
    latency).

    ```mlir
    // before
    %q = onnx.Transpose(%qs) {perm = array<i64: 0, 2, 1, 3>} ...
    %kt = onnx.Transpose(%ks) {perm = array<i64: 0, 2, 3, 1>} ...
    %v = onnx.Transpose(%vs) {perm = array<i64: 0, 2, 1, 3>} ...
    %s = onnx.MatMul(%q, %kt) ...
    %d = onnx.Div(%s, %c8) ...
    %m = onnx.Add(%d, %mask) ...
    %p = onnx.Softmax(%m) ...
    %o = onnx.MatMul(%p, %v) ...
    %r = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} ...
    // after
    %r = fuse.attention %qs, %ks, %vs, %mask {scale = 0.125 : f32} ...
    ```
  }];
  let options = [
    Option<"fuseProjections", "fuse-projections", "bool", "true",
           "Compute Q, K and V projected from one input by one MatMul">,
  ];
  let dependentDialects = ["::fuse::FuseDialect"];
}

def ExpandAttention : Pass<"fuse-expand-attention", "mlir::func::FuncOp"> {
  let summary = "Each fuse.attention back as the ONNX ops it stands for";
  let description = [{
    The head Transposes, MatMul, the scale (a Mul), the mask (an Add),
    Softmax, the IsNaN/Where guard with `zero_nan_probabilities`, MatMul
    and the Transpose back; key and value heads repeated (Reshape, Expand,
    Reshape) for grouped-query attention. The op's meaning written as
    ops: the tests check fuse-raise-attention by compiling a model raised
    and expanded again against the model as exported.
  }];
}

def FuseChains : Pass<"fuse-chains", "mlir::func::FuncOp"> {
  let summary = "Wrap each chain of fusible onnx ops in one fuse.group";
  let description = [{
    Forms `fuse.group` ops by pattern rewriting, in four phases:

    1. Reductions. Each Softmax, LayerNormalization and Reduce* takes the
       elementwise DAG that computes its input (of the input's shape, used
       by nothing else) and the elementwise chain after it: `reduction`
       groups (scaled and masked Softmax, bias + residual + LayerNorm).
    2. Epilogues. From each pooling op (AveragePool, MaxPool,
       GlobalAveragePool) and each contraction (Conv, Gemm, MatMul), follow
       the chain of elementwise consumers forward: `pool_epilogue` and
       `contraction_epilogue` groups.
    3. Elementwise. Every remaining maximal DAG of elementwise ops with at
       least two ops becomes an `elementwise` group.
    4. Merges. An elementwise group that is the only user of a
       contraction's or pooling's result, over the same shape, joins its
       epilogue (MatMul + bias + GELU, where the bias add feeds two ops
       of the GELU and so ends the chain of phase 2).

    First, graph outputs that are parts of one value along one dim (a
    Split's) are made views of one copy of it: parts along its first dim of
    size above 1 are consecutive, and a graph input gets an `onnx.Identity`,
    a kernel of its own (the input itself cannot be viewed: a caller may set
    it again before reading the run's outputs); equal parts along another
    dim become Slices along the first dim of one transposed copy (an
    `onnx.Reshape` to `[A, K, s * B]` and an `onnx.Transpose` to `[K, A, s
    * B]`), each reshaped back. The plan makes each such Slice a view, with
    no launch, so a Split into 10,000 outputs is one or two kernels.

    No group takes more than `max-group-ops` compute ops: a chain of 20,000
    elementwise ops becomes groups of 256, each one kernel (one group of
    them took minutes to compile, its lowering growing faster than its
    length).

    A value is fused into its consumer only when that consumer is its only
    user (an intermediate with another user outside the chain is not
    swallowed) and the consumer's result has the value's (static) shape, so
    every op in a group iterates over the same space; operands from outside
    the group may broadcast into it. Scalar constants are cloned into the
    group; everything else it reads becomes an input.

    Before:
    ```mlir
    %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, ...}
        : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
    %1 = onnx.Relu(%0) : (tensor<1x1x16x387xf32>) -> tensor<1x1x16x387xf32>
    ```
    After:
    ```mlir
    %1 = fuse.group pool_epilogue ins(%x : tensor<1x1x128x3096xf32>)
        -> tensor<1x1x16x387xf32> {
    ^bb0(%in: tensor<1x1x128x3096xf32>):
      %p = onnx.AveragePool(%in) {...}
      %r = onnx.Relu(%p) : ...
      fuse.yield %r : tensor<1x1x16x387xf32>
    }
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
  let options = [
    Option<"poolEpilogues", "pool-epilogue", "bool", "true",
           "Fuse elementwise ops into the pooling op they follow">,
    Option<"contractionEpilogues", "contraction-epilogue", "bool", "true",
           "Fuse elementwise ops into the Conv/Gemm/MatMul they follow">,
    Option<"elementwise", "elementwise", "bool", "true",
           "Group chains of elementwise ops">,
    Option<"reductions", "reduction", "bool", "true",
           "Fuse elementwise ops around Softmax, LayerNormalization and "
           "Reduce*">,
    Option<"maxGroupOps", "max-group-ops", "int64_t", "256",
           "The most compute ops in a group: a longer chain becomes several "
           "groups (compile time stays linear in the chain's length)">,
  ];
}

def ApplyPrecision : Pass<"fuse-apply-precision", "mlir::func::FuncOp"> {
  let summary = "The precision policy: which groups run in half precision "
                "or on TF32, and in which type each value is stored";
  let description = [{
    Runs after fusion. Every kernel computes in f32 registers; what this
    pass decides is the type values are stored in between kernels and the
    type contractions multiply in, and it records the decision as each
    group's `precision` (`#fuse.precision<fp16>`).

    With `precision=fp16` or `bf16`:
    - every compute op left outside a group (but for the ops whose
      kernels read their input in the body: LRN, GroupNormalization,
      CumSum, ArgMax, ArgMin, which stay f32, and fuse.attention) becomes a
      group of its own;
    - every group gets that precision, but for a group holding a node
      whose name matches a `keep-fp32` pattern (`*` matches any run of
      characters), which stays fp32;
    - a group's result is stored in half precision when every op that
      reads it can take it so: a half-precision group (whose body widens
      it to f32 with an onnx.Cast after reading it), a data-movement op
      (Reshape, Transpose, Slice, Concat, Gather, Expand, ..., fuse.im2col:
      they copy elements whatever their type) whose own result is stored
      so, a fuse.attention whose query, key, value and result all are (it
      widens what it reads and computes in f32; its mask stays f32), or an
      onnx.Cast to that type (which then goes: the group rounds the same
      way). Values the function returns keep their type, as do
      the function's arguments;
    - weights that a half-precision group reads are converted when the
      model is compiled: a contraction's operands always, an epilogue's
      (a bias) when the group's result is stored in half precision (a
      library call takes its bias in its output's type); an fp16 weight
      with a value beyond fp16's range (65504) stays f32, with a warning
      naming it;
    - an onnx.Cast from a half-precision value to f32 (how
      fuse-widen-floats widens a model exported in half precision) is
      read by half-precision groups as its operand, widened inside them.

    With `model-types` (a model exported in half precision and widened by
    fuse-widen-floats to-f32, compiled with its own precision) the same
    holds, but only for what the model itself computes in half precision:
    groups holding ops marked `fuse.model_half`, and their results; a
    value the model computes in f32 stays f32.

    With `precision=tf32` each group with a contraction (a lone
    contraction becomes one first) gets `tf32`, but for `keep-fp32`
    matches; values stay f32. `fp32` changes nothing.

    ```mlir
    // before (precision=fp16)
    %y = fuse.group contraction_epilogue ins(%x, %w, %b : tensor<8x16xf32>,
        tensor<16x32xf32>, tensor<32xf32>) -> tensor<8x32xf32> {...}
    %z = fuse.group elementwise ins(%y : tensor<8x32xf32>) -> tensor<8x32xf32> {...}
    return %z
    // after
    %y = fuse.group contraction_epilogue ins(%x, %w16, %b16 : tensor<8x16xf32>,
        tensor<16x32xf16>, tensor<32xf16>) -> tensor<8x32xf16>
        {precision = #fuse.precision<fp16>} {
    ^bb0(%a: tensor<8x16xf32>, %w: tensor<16x32xf16>, %b: tensor<32xf16>):
      %w32 = onnx.Cast(%w) {to = 1 : i64} ...
      ...
      %r16 = onnx.Cast(%r) {to = 10 : i64} ...
      fuse.yield %r16 : tensor<8x32xf16>
    }
    %z = fuse.group elementwise ins(%y : tensor<8x32xf16>) -> tensor<8x32xf32>
        {precision = #fuse.precision<fp16>} {...}
    return %z
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
  let options = [
    Option<"precision", "precision", "::fuse::Precision",
           "::fuse::Precision::fp32",
           "The precision of the model's groups",
           [{::llvm::cl::values(
             clEnumValN(::fuse::Precision::fp32, "fp32",
                        "f32 values and products (no change)"),
             clEnumValN(::fuse::Precision::tf32, "tf32",
                        "contractions on TF32 tensor cores"),
             clEnumValN(::fuse::Precision::fp16, "fp16",
                        "fp16 values and contractions, f32 arithmetic"),
             clEnumValN(::fuse::Precision::bf16, "bf16",
                        "bf16 values and contractions, f32 arithmetic"))}]>,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "Node-name patterns ('*' for any characters) whose groups "
               "stay fp32">,
    Option<"modelTypes", "model-types", "bool", "false",
           "Keep the model's own types: only what it computes in half "
           "precision (ops fuse-widen-floats to-f32 marked fuse.model_half) "
           "is stored so, and only groups of such ops are half precision "
           "(fuse-compile's --precision=auto for a model exported in half "
           "precision)">,
  ];
}

def ConvsToMatmuls : Pass<"fuse-convs-to-matmuls", "mlir::func::FuncOp"> {
  let summary = "Run convolutions with few output positions as im2col and a "
                "matmul";
  let description = [{
    Rewrites a 2-D f32 Conv of one group with constant weights (and bias)
    into `fuse.im2col` of its input and an `onnx.MatMul` by the weights
    reshaped to [K, C * R * S] with the bias as one more column (it meets
    im2col's row of ones), then an `onnx.Reshape` back to NCHW. The residual
    Adds and the ReLU right after the Conv are rebuilt on the 3-D matmul
    result (the residual reshaped to match), so that they fuse into the
    matmul's epilogue. A convolution is rewritten when its product has at
    most `max-columns` columns (output positions, N * outH * outW; 0: any
    number), where cuDNN's fp32 kernels get few thread blocks and cuBLASLt
    is up to 7x faster on the H100, or when it has at least `min-filters`
    output channels (0: never on that account): the matmul does Cout / 2
    FLOPs per byte im2col writes, so with many filters the copy is paid
    back whatever the map size (docs/models.md has the per-convolution
    measurements these defaults come from). With `pointwise`, a 1x1
    convolution whose output positions per image are a multiple of
    `row-alignment` is rewritten too: in half precision cuDNN's NCHW
    kernels run such convolutions far below the tensor cores' rate, and
    im2col of a 1x1 window is one copy of the input. The weight matrix's
    rows are padded with zeros to a multiple of `row-alignment` elements:
    cuBLASLt's fast kernels want 16-byte leading dimensions (4 f32, 8 f16).

    With `channels-last`, every such convolution that neither reads nor
    feeds a grouped convolution (through ReLU or Clip), or has at most 196
    output positions per image, or (with `input-channels-last`) reads the
    model's input, is rewritten as a matmul over NHWC
    activations instead: `onnx.Transpose` of the input to
    NHWC, `fuse.im2col {channels_last}` ([N, outH * outW, rows], C
    consecutive entries a tap) viewed as [N * outH * outW, rows], times the
    weights as [rows, K]; a 1x1 window of stride 1 without pads reads the
    NHWC input as [N * H * W, C] directly and adds its bias after the
    matmul. The result is viewed as NHWC and transposed back to NCHW; that
    Transpose and the next convolution's Transpose to NHWC cancel, so
    activations stay NHWC between convolutions, and each matmul has the
    batch in its rows (one product, not one per image). What else sits
    between such convolutions computes on the NHWC data too: a MaxPool as
    a 3-D MaxPool of [N, 1, H, W, C] with a window of 1 along C, and an
    elementwise op whose operands are all NHWC results (or scalars), with
    the Transpose back after it. With `direct-windows` as well, a
    convolution that would need im2col (any window but 1x1 of stride 1
    without pads) becomes `onnx.NhwcConv` of the NHWC input instead, its
    filters stored [K, R, S, C] and read through a Transpose, which cuDNN's
    NHWC kernels run faster than im2col and a matmul (docs/models.md).

    ```mlir
    %cols = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, ...}
        : tensor<1x512x7x7xf32> -> tensor<1x4612x49xf32>
    %y3 = onnx.MatMul(%w, %cols)
        : (tensor<512x4612xf32>, tensor<1x4612x49xf32>) -> tensor<1x512x49xf32>
    %r3 = onnx.Relu(%y3) : (tensor<1x512x49xf32>) -> tensor<1x512x49xf32>
    %y = onnx.Reshape(%r3, %shape)
        : (tensor<1x512x49xf32>, tensor<4xi64>) -> tensor<1x512x7x7xf32>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
  let options = [
    Option<"maxColumns", "max-columns", "int64_t", "4096",
           "Rewrite convolutions with at most this many output positions "
           "(N * outH * outW); 0 rewrites all">,
    Option<"minFilters", "min-filters", "int64_t", "256",
           "Also rewrite convolutions with at least this many output "
           "channels, whatever their positions; 0 turns this off">,
    Option<"rowAlignment", "row-alignment", "int64_t", "4",
           "Pad the weight matrix's rows (and im2col's) to a multiple of "
           "this many elements: 16 bytes of the type the matmul reads "
           "(4 for f32, 8 for f16 and bf16)">,
    Option<"pointwise", "pointwise", "bool", "false",
           "Also rewrite 1x1 convolutions whose output positions per "
           "image are a multiple of row-alignment (for half precision)">,
    Option<"channelsLast", "channels-last", "bool", "false",
           "Rewrite every convolution of one group that neither reads nor "
           "feeds a grouped one, or has at most 196 output positions per "
           "image, as a matmul over NHWC activations, the layout kept from "
           "one convolution to the next (the other options then apply to "
           "the rest)">,
    Option<"directWindows", "direct-windows", "bool", "false",
           "With channels-last: convolutions that are not 1x1 of stride 1 "
           "without pads stay convolutions, onnx.NhwcConv over the NHWC "
           "activations (for cuDNN's NHWC kernels), instead of im2col and "
           "a matmul">,
    Option<"inputChannelsLast", "input-channels-last", "bool", "false",
           "With channels-last: a convolution of the model's input is "
           "rewritten NHWC even next to a grouped one (the input's "
           "Transpose runs in the kernel that converts the input)">,
    Option<"minChannels", "min-channels", "int64_t", "0",
           "With direct-windows: an NhwcConv of fewer input channels than "
           "this reads its input padded with zero channels up to this many "
           "(its filters padded with zeros too), for the cuDNN kernels of "
           "aligned channels; 0 turns this off">,
  ];
}

def SelectStrategies : Pass<"fuse-select-strategies", "mlir::func::FuncOp"> {
  let summary = "Choose how every fusion group, and every op outside one, "
                "runs";
  let description = [{
    Attaches a strategy, a typed attribute of the fuse dialect, to every
    `fuse.group` (its `strategy`) and to every onnx op left outside a group
    (`fuse.strategy`):

    - on cuda, a contraction that cuBLASLt (MatMul, Gemm) or cuDNN (2-D
      Conv, NCHW, symmetric pads, grouped and depthwise too) computes
      becomes a library call
      (`#fuse.cublaslt`, `#fuse.cudnn`) together with the chain after it
      that the library fuses: a bias Add, a residual Add, then a ReLU. A
      contraction outside any group is made a group first. The rest of the
      group's epilogue is split off into an `elementwise` group, which runs
      as a generated kernel right after the call;
    - everything else is a generated kernel (`#fuse.kernel`) with its
      launch configuration: on cuda `flat` (one thread per iteration of
      the kernel's parallel loop, 256-thread blocks) or, for Softmax,
      LayerNormalization, Reduce* and GlobalAveragePool reducing trailing
      dims of at least 32 elements, `rows` (a warp or a block per row), or,
      for a depthwise convolution or a pooling whose input planes fit in
      shared memory, `planes` (a block per group of output planes, its
      input planes staged in shared memory), or, for a MatMul or Gemm
      whose epilogue keeps its shape, `tiles` (a block per tile of the
      output, a thread per tile of that, the operands' tiles staged in
      shared memory); on cpu `loop`.

    ```mlir
    %y = fuse.group contraction_epilogue ins(%x, %w, %b : ...)
        {strategy = #fuse.cudnn<groups = 1, bias = true, residual = false,
                                activation = relu>} -> tensor<...> {...}
    %z = onnx.Transpose(%y) {fuse.strategy = #fuse.kernel<flat, grid = 98,
                                                          block = 256>, ...}
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
  let options = [
    Option<"target", "target", "::fuse::KernelTarget",
           "::fuse::KernelTarget::cuda", "What the kernels run on",
           [{::llvm::cl::values(
             clEnumValN(::fuse::KernelTarget::cuda, "cuda", "CUDA GPUs"),
             clEnumValN(::fuse::KernelTarget::cpu, "cpu", "the host"))}]>,
    Option<"strategy", "strategy", "::fuse::StrategyPreference",
           "::fuse::StrategyPreference::automatic",
           "Where contractions run when a library could take them",
           [{::llvm::cl::values(
             clEnumValN(::fuse::StrategyPreference::automatic, "auto",
                        "libraries where they apply and are faster"),
             clEnumValN(::fuse::StrategyPreference::generated, "generated",
                        "fuse's kernels only"),
             clEnumValN(::fuse::StrategyPreference::library, "library",
                        "libraries wherever they can"))}]>,
    Option<"depthwise", "depthwise", "::fuse::DepthwiseImpl",
           "::fuse::DepthwiseImpl::kernel",
           "Depthwise convolutions (one input channel per group)",
           [{::llvm::cl::values(
             clEnumValN(::fuse::DepthwiseImpl::kernel, "kernel",
                        "fuse's, with the whole epilogue fused"),
             clEnumValN(::fuse::DepthwiseImpl::library, "library",
                        "cuDNN"))}]>,
    Option<"cpuVectorRegisters", "cpu-vector-registers", "int64_t", "16",
           "Vector registers of the cpu's x86-64 level: 16 (up to "
           "x86-64-v3) or 32 (x86-64-v4: AVX-512), which holds a 16 x 8 "
           "contraction tile instead of 6 rows by two vectors">,
    Option<"cpuVectorWidth", "cpu-vector-width", "int64_t", "4",
           "f32 lanes of the cpu's vectors: 4 (SSE, up to x86-64-v2), 8 "
           "(AVX2, x86-64-v3) or 16 (x86-64-v4); with 16 registers a "
           "contraction tile is 6 rows by two vectors of columns">,
    ListOption<"gpuContractionTile", "gpu-contraction-tile", "int64_t",
               "Outputs per thread of a generated contraction on cuda, "
               "rows (output channels, a matmul's rows) and columns (the "
               "last dim), default 4,2: shrunk to divide the output and to "
               "keep two blocks per SM; 1,1 is one output per thread">,
    Option<"gpuTileContractions", "gpu-tile-contractions", "bool", "true",
           "On cuda, generated MatMul and Gemm kernels (with an epilogue "
           "that keeps their shape) use the `tiles` mapping: block and "
           "thread tiles of the output, operand tiles staged in shared "
           "memory; else `flat` with a thread tile">,
    Option<"gpuKTile", "gpu-k-tile", "int64_t", "16",
           "Iterations of the reduction loop a `tiles` block stages at a "
           "time (0: it stages nothing)">,
    Option<"gpuStages", "gpu-stages", "int64_t", "2",
           "Chunks of the reduction a staging `tiles` block has in flight: "
           "2 loads the next chunk into registers while it computes one, "
           "1 waits for each; with gpu-async-copy, 2 or 3 shared buffers">,
    Option<"gpuAsyncCopy", "gpu-async-copy", "bool", "false",
           "A staging `tiles` block copies its chunks with asynchronous "
           "copies (cp.async, sm_80 and later) into gpu-stages shared "
           "buffers instead of through registers">,
    Option<"gpuTensorCores", "gpu-tensor-cores", "bool", "false",
           "The GPU has mma.sync tensor cores (sm_80 and later): attention "
           "over f16 or bf16 tensors uses the `attention_mma` mapping (a "
           "module's fuse.target decides instead)">,
    Option<"gpuMmaContractions", "gpu-mma-contractions", "bool", "true",
           "With gpu-tensor-cores, MatMul and Gemm kernels of f16 or bf16 "
           "groups run on tensor cores (the `mma` mapping) where their "
           "operands allow it, instead of `tiles`; a candidate after the "
           "library call">,
    Option<"mmaOverLibrary", "mma-over-library", "bool", "false",
           "Select the `mma` kernel over the library call where both "
           "apply">,
    Option<"gpuClusters", "gpu-clusters", "bool", "false",
           "The GPU has thread block clusters (sm_90 and later): `mma` "
           "kernels of few output tiles split their reduction among the "
           "blocks of a cluster (a module's fuse.target decides instead)">,
    Option<"gpuMmaSplitK", "gpu-mma-split-k", "int64_t", "0",
           "Blocks of a cluster that share an `mma` kernel's block tile "
           "(1, 2, 4 or 8; 0: the heuristic's choice), with gpu-clusters; "
           "a split whose sums or chunks do not fit takes a smaller one">,
    Option<"candidates", "candidates", "bool", "false",
           "Contraction groups get every applicable way to run as "
           "candidates in a fuse.alternatives op (the library call, up to "
           "three tilings of the generated kernel), the heuristic's pick "
           "selected; fuse-tune measures them">,
    Option<"splitK", "split-k", "int64_t", "0",
           "Split-K of generated MatMul kernels (f32): 0, the heuristic (on "
           "cuda, when the best `tiles` strategy gives its threads at most 8 "
           "outputs or launches fewer blocks than the target has SMs, the "
           "reduction is cut into the 2 to 16 slices of at least 128 whose "
           "tiling gives the most outputs a thread at a block per SM: one "
           "kernel computes the slices' partial products, a "
           "second adds them and applies the epilogue; a candidate beside "
           "the library call, the pick without one); 1, never; 2 to 16 (a "
           "power of two), that many slices wherever they divide the "
           "reduction, on either target">,
    Option<"gpuStagePlanes", "gpu-stage-planes", "bool", "true",
           "On cuda, window kernels (depthwise convolutions, poolings) "
           "whose input planes fit stage them in shared memory, a block "
           "per group of whole output planes (the `planes` mapping)">,
    Option<"gpuTransposeTiles", "gpu-transpose-tiles", "bool", "true",
           "On cuda, kernels that read an input in another order than "
           "they write (Transposes and the elementwise ops around them) "
           "run in tiles whose input goes through shared memory (the "
           "`transpose` mapping), where both orders' runs are 16 "
           "iterations or longer">,
  ];
}

def FusionReport : Pass<"fusion-report", "mlir::ModuleOp"> {
  let summary = "Print each fusion group, the ops left outside groups and "
                "why, and the memory traffic fusion saves";
  let description = [{
    For every function, prints (to stderr, or the stream given to
    createFusionReport) each `fuse.group` in order: its kind and strategy,
    its ops, its intermediates (values produced and consumed inside the
    group, which a fused kernel never writes to memory) and the bytes of
    memory traffic that saves (each intermediate written once and read
    once by each op that uses it); the candidates of each choice; every
    compute op left outside the groups with the reason it did not join
    one; then the number of kernels before and after fusion. The IR is
    left unchanged.

    A reason names what stopped the op's result (or, for an elementwise op
    or a reduction, also its inputs) from fusing, judged by the predicates
    fuse-chains forms groups with:

    - `not_fusible`: the op's kind never joins a group (Transpose,
      Reshape, Gather, ...): a group is elementwise ops around at most one
      contraction, pooling or reduction;
    - `several_users`, `graph_output`, `user_not_elementwise`,
      `user_broadcasts`, `user_in_group`, `unused`, `other_block`: the op
      that reads its result reads it with others, is the graph's return, is
      not elementwise, broadcasts it, is in a group already;
    - `several_results`, `dynamic_shape`: a group's ops have one result; a
      reduction groups only over an input of static shape;
    - `fusion_off`: fusion did not run (`fused=false`, fuse-compile
      --no-fuse);
    - `not_formed`: nothing above holds, yet no group was formed
      (fuse-chains did not run, or `max-group-ops` cut the group).

    `format=json` writes the same as one JSON object (docs/design.md has
    its schema) and `format=dot` as a Graphviz graph: the ops as nodes,
    each group a cluster, the ops alone marked with their reason.

    ```
    fusion report for @avgpool_relu
      group 0 (pool_epilogue): onnx.AveragePool -> onnx.Relu
        intermediates: 1 (tensor<1x1x16x387xf32>)
        intermediate bytes saved: 49536 (24768 written + 24768 read)
      alone: onnx.Transpose 'tr', not_fusible: onnx.Transpose does not fuse:
        a group holds elementwise ops around at most one contraction,
        pooling or reduction
      kernels: 3 before fusion, 2 after (1 group, 1 unfused op)
    ```
  }];
  let options = [
    Option<"format", "format", "::fuse::ReportFormat",
           "::fuse::ReportFormat::text", "How the report is written",
           [{::llvm::cl::values(
             clEnumValN(::fuse::ReportFormat::text, "text", "lines of text"),
             clEnumValN(::fuse::ReportFormat::json, "json", "JSON"),
             clEnumValN(::fuse::ReportFormat::dot, "dot", "Graphviz"))}]>,
    Option<"fused", "fused", "bool", "true",
           "Whether fuse-chains ran: false gives every op outside a group "
           "the reason fusion_off">,
  ];
}

def OutlineKernels : Pass<"fuse-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Make each fuse.group, and each op outside a group, a kernel "
                "function";
  let description = [{
    Every `fuse.group` becomes a `func.func` marked `fuse.kernel` whose body
    is the group's body, and every onnx op left outside a group (other than
    `onnx.Constant`) becomes a kernel of its own. The group's `strategy`
    (or the op's `fuse.strategy`) goes to the kernel as `fuse.strategy`. The host function is left
    with `onnx.Constant` ops (the weights), calls to the kernels and its
    return: the execution plan, in order.

    Splat constants, and the `shape` operand of Reshape, are cloned into the
    kernel that uses them; every other value a kernel reads is a parameter.
    Kernels are named `<prefix>k<N>_<kind>`, numbered in host order, where
    `<kind>` is the group kind or the op name (`k0_pool_epilogue`,
    `k1_conv`).

    ```mlir
    // before
    %y = fuse.group pool_epilogue ins(%x : tensor<...>) -> tensor<...> {...}
    // after
    %y = call @k0_pool_epilogue(%x) : (tensor<...>) -> tensor<...>
    func.func private @k0_pool_epilogue(%arg0: tensor<...>) -> tensor<...>
        attributes {fuse.kernel} {...}
    ```
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", "\"\"",
           "Prefix of the kernel names (to keep two plans' kernels apart)">,
  ];
}

def SetTarget : Pass<"fuse-set-target", "mlir::ModuleOp"> {
  let summary = "Attach the GPU the strategies are chosen for";
  let description = [{
    Sets the module's `fuse.target` attribute (`#fuse.target<arch, sms>`)
    from `gpu-arch` and `gpu-sms`; without `gpu-sms`, the SM count of the
    architecture's usual data-center part: sm_70 80 (V100), sm_75 40 (T4),
    sm_80 108 (A100), sm_86 84 (A40), sm_89 58 (L4), sm_90 132 (H100,
    H200), sm_100 148 (B200); another architecture takes the count of the
    nearest one below it (sm_70's below sm_70). fuse-select-strategies
    reads it: the decision of how large the GPU is is made once, here.

    ```mlir
    // fuse-opt --fuse-set-target='gpu-arch=sm_80'
    module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 108>}
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
  let options = [
    Option<"gpuArch", "gpu-arch", "std::string", "\"sm_90\"",
           "The GPU architecture (sm_50 or later)">,
    Option<"gpuSms", "gpu-sms", "int64_t", "0",
           "Its streaming multiprocessors (0: the architecture's usual "
           "count)">,
  ];
}

def SetIOTypes : Pass<"fuse-set-io-types", "mlir::func::FuncOp"> {
  let summary = "Give the model's float inputs and outputs one float type";
  let description = [{
    fuse-compile's `--io-precision`: every float argument and result of the
    graph function takes the element type `type` says (f32, f16 or bf16).
    An argument whose type changes is cast to its old type where the
    function starts, a result is cast to the new type before the return,
    so the graph computes what it computed before; fusion then folds the
    casts into the first and last kernels (and a cast to a wider type and
    back cancels). Integer and boolean tensors keep their types.

    ```mlir
    // before (type=fp16)
    func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    }
    // after
    func.func @main_graph(%x: tensor<4xf16>) -> tensor<4xf16> {
      %x32 = onnx.Cast(%x) {to = 1 : i64} : (tensor<4xf16>) -> tensor<4xf32>
      %y = onnx.Relu(%x32) : (tensor<4xf32>) -> tensor<4xf32>
      %y16 = onnx.Cast(%y) {to = 10 : i64} : (tensor<4xf32>) -> tensor<4xf16>
      return %y16 : tensor<4xf16>
    }
    ```
  }];
  let dependentDialects = ["::fuse::ONNXDialect"];
  let options = [
    Option<"type", "type", "::fuse::Precision", "::fuse::Precision::fp32",
           "The element type of the float inputs and outputs",
           [{::llvm::cl::values(
             clEnumValN(::fuse::Precision::fp32, "fp32", "f32"),
             clEnumValN(::fuse::Precision::fp16, "fp16", "f16"),
             clEnumValN(::fuse::Precision::bf16, "bf16", "bf16"))}]>,
  ];
}

def WidenFloats : Pass<"fuse-widen-floats", "mlir::func::FuncOp"> {
  let summary = "Compute every float tensor in f64 (the reference plan)";
  let description = [{
    Makes the unfused reference plan that `fuse-run --check` compares with
    an independent measure of the main plan's rounding: every f16, bf16
    and f32 tensor of the function becomes f64, so a lowering that loses
    precision (a long serial sum, an f16 accumulator) shows as a difference
    from it instead of being shared by both plans.

    - the function's signature is kept: float arguments are cast to f64
      where the function starts, float results back to their type before
      the return;
    - float constants of up to 8192 elements become f64 constants; larger
      ones (weights) are cast when the plan runs, so the artifact holds
      them once;
    - each other op with a float operand gets f64 result types where it
      had float ones, if it still verifies (its result types are inferred
      from its operands); an op that does not (its result type is set by
      an attribute), an op without float operands (ConstantOfShape) and a
      Cast to a float type keep their result types, which are then cast to
      f64, so the rounding of a Cast to float16 stays in the reference.

    ```mlir
    // before
    %y = onnx.Add(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %y
    // after
    %x64 = onnx.Cast(%x) {to = 11 : i64} : (tensor<4xf32>) -> tensor<4xf64>
    %w = onnx.Constant dense<[...]> : tensor<4xf64>
    %y = onnx.Add(%x64, %w) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %y32 = onnx.Cast(%y) {to = 1 : i64} : (tensor<4xf64>) -> tensor<4xf32>
    return %y32
    ```
  }];
  let options = [
    Option<"maxConstantElements", "max-constant-elements", "int64_t", "8192",
           "Float constants of at most this many elements become f64 "
           "constants; larger ones are cast when the plan runs">,
    Option<"toF32", "to-f32", "bool", "false",
           "Widen only f16 and bf16 tensors, to f32 (a model exported in "
           "half precision, before the precision policy decides what is "
           "stored in half precision again)">,
  ];
}

#endif // FUSE_TRANSFORMS_PASSES_TD
