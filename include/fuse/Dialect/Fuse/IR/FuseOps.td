//===- FuseOps.td - fuse dialect operations ----------------*- tablegen -*-===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEOPS_TD
#define FUSE_DIALECT_FUSE_IR_FUSEOPS_TD

include "fuse/Dialect/Fuse/IR/FuseAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Fuse_GroupOp : Fuse_Op<"group", [
    IsolatedFromAbove, RecursiveMemoryEffects, RecursivelySpeculatable,
    SingleBlock]> {
  let summary = "a chain of ops that runs as one kernel";
  let description = [{
    The body is one block whose arguments are the group's `inputs`, in
    order; it ends in `fuse.yield` with the group's results. Ops in the body
    are `onnx` ops. The verifier checks that the body fits `kind`:

    - `elementwise`: only elementwise ops;
    - `pool_epilogue`: exactly one pooling op, the rest elementwise;
    - `contraction_epilogue`: exactly one Conv, Gemm or MatMul, the rest
      elementwise;
    - `reduction`: exactly one Softmax, LayerNormalization or Reduce* op,
      the rest elementwise.

    Scalar constants (e.g. Clip bounds) may be cloned into the body.

    `strategy`, set by fuse-select-strategies, says how the group runs: a
    generated kernel (`#fuse.kernel`), or a cuBLASLt or cuDNN call
    (`#fuse.cublaslt`, `#fuse.cudnn`, for `contraction_epilogue` groups
    only).

    `precision`, set by the precision policy (fuse-apply-precision), says
    how the group computes: always in f32 registers; with fp16 or bf16 its
    operands and results between kernels are in that type (the body widens
    them with onnx.Cast after reading and narrows its results before the
    yield) and its contraction multiplies half-precision operands on tensor
    cores; with tf32 its contraction runs on TF32 tensor cores. Absent:
    fp32.

    ```mlir
    %y = fuse.group pool_epilogue ins(%x : tensor<1x1x128x3096xf32>)
        -> tensor<1x1x16x387xf32> {
    ^bb0(%in: tensor<1x1x128x3096xf32>):
      %p = onnx.AveragePool(%in) {kernel_shape = array<i64: 8, 8>,
                                  strides = array<i64: 8, 8>}
          : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
      %r = onnx.Relu(%p) : (tensor<1x1x16x387xf32>) -> tensor<1x1x16x387xf32>
      fuse.yield %r : tensor<1x1x16x387xf32>
    }
    ```
  }];
  let arguments = (ins Fuse_GroupKind:$kind, Variadic<AnyType>:$inputs,
                       OptionalAttr<Fuse_StrategyAttr>:$strategy,
                       OptionalAttr<Fuse_PrecisionAttr>:$precision);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind (`ins` `(` $inputs^ `:` type($inputs) `)`)? attr-dict
    `->` type($results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the group with an entry block whose arguments mirror `inputs`
    // and no terminator; the caller fills the body.
    OpBuilder<(ins "::fuse::GroupKind":$kind, "::mlir::TypeRange":$results,
                   "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    YieldOp getYield();
  }];
}

def Fuse_AlternativesOp : Fuse_Op<"alternatives", [
    RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "candidate ways of computing the same values, one of which runs";
  let description = [{
    Each region is one candidate: a block without arguments (it reads values
    from above) that computes the op's results and ends in `fuse.yield`.
    Before outlining a candidate holds `fuse.group`s with their strategies
    (a cuBLASLt call and the kernel of the rest of its epilogue, or a
    generated kernel with one tiling); after it, the calls of their kernels.
    The plan builder turns the op into a choice of the artifact: every
    candidate is compiled in, `selected` is the one that runs until a tuner
    (`fuse-tune`) measures them. `key` is the group's signature (its ops,
    attributes and types), so that equal groups share timings.

    ```mlir
    %y = fuse.alternatives selected = 0 key = "MatMul 128x768 ..."
        -> tensor<128x768xf32> {
      %a = fuse.group contraction_epilogue ins(...) {strategy = #fuse.cublaslt<...>} ...
      fuse.yield %a : tensor<128x768xf32>
    }, {
      %b = fuse.group contraction_epilogue ins(...) {strategy = #fuse.kernel<tiles, ...>} ...
      fuse.yield %b : tensor<128x768xf32>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$selected,
                       StrAttr:$key);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$candidates);
  let assemblyFormat = [{
    `selected` `=` $selected `key` `=` $key attr-dict `->` type($results)
    $candidates
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The `fuse.yield` of candidate `index`.
    YieldOp getCandidateYield(unsigned index);
  }];
}

def Fuse_YieldOp : Fuse_Op<"yield", [Pure, ReturnLike, Terminator,
    ParentOneOf<["GroupOp", "AlternativesOp"]>]> {
  let summary = "returns the results of a fusion group or of a candidate";
  let description = [{
    ```mlir
    fuse.yield %r : tensor<1x1x16x387xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Fuse_Im2ColOp : Fuse_Op<"im2col", [Pure]> {
  let summary = "the columns of a convolution as a matrix";
  let description = [{
    Lays out the input windows of a 2-D convolution over `input` (NCHW) so
    that the convolution is a matmul: for image n, row `(c * R + kh) * S +
    kw` and column `oh * outW + ow` hold input[n, c, oh * stride_h + kh *
    dilation_h - pad_top, ow * stride_w + kw * dilation_w - pad_left], zero
    outside the image. The row after those C * R * S rows is all ones, so a
    bias can be one more column of the weights; the rows after it (up to
    the result's row count, for aligned rows) are zeros. The result is
    [N, rows, outH * outW] with rows > C * R * S.

    With `channels_last` the input is NHWC and the result is its transpose
    per image, [N, outH * outW, rows]: a row of the result is one output
    position, and its entry `(kh * S + kw) * C + c` holds input[n, oh *
    stride_h + kh * dilation_h - pad_top, ow * stride_w + kw * dilation_w -
    pad_left, c], so that C consecutive entries read C consecutive
    elements; then a one and zeros as above.

    `kernel_shape` is [R, S], `pads` [top, left, bottom, right]; `strides`
    and `dilations` are two values each.

    ```mlir
    %cols = fuse.im2col %x {kernel_shape = array<i64: 3, 3>,
        pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>,
        dilations = array<i64: 1, 1>}
        : tensor<1x8x7x7xf32> -> tensor<1x76x49xf32>
    %rows = fuse.im2col %y {channels_last, kernel_shape = array<i64: 3, 3>,
        pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>,
        dilations = array<i64: 1, 1>}
        : tensor<1x7x7x8xf16> -> tensor<1x49x80xf16>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, BF16]>:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       UnitAttr:$channels_last);
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$columns);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($columns)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The input's channel count C.
    int64_t getNumChannels();
    /// C * R * S: the rows (columns with `channels_last`) that hold input
    /// values.
    int64_t getNumTapRows();
    /// The input's spatial size [H, W].
    std::array<int64_t, 2> getInputSize();
    /// The output's spatial size [outH, outW] the attributes give.
    std::array<int64_t, 2> getOutputSize();
  }];
}

def Fuse_AttentionOp : Fuse_Op<"attention", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "scaled dot-product attention over the heads of Q, K and V";
  let description = [{
    What a transformer's attention computes from its projections, raised
    from the MatMul, scale, mask, Softmax, MatMul chain of an export by
    fuse-raise-attention. The operands are in the layout the projections
    leave them, heads next to the head size, so that no Transpose of the
    heads is needed before or after:

    - `query` [B, Sq, Hq, D], `key` [B, Skv, Hkv, D], `value` [B, Skv,
      Hkv, Dv], the result [B, Sq, Hq, Dv]; Hkv divides Hq (grouped-query
      attention: query head h reads key/value head h / (Hq / Hkv));
    - `mask`, optional: added to the scores, a float tensor of rank 4
      that broadcasts to the scores' [B, Hq, Sq, Skv] (e.g. [B, 1, 1, Skv]
      for padding, [1, 1, Sq, Skv] for a causal mask);
    - `scale` multiplies the scores before the mask is added;
    - `heads_first`, optional, four flags (query, key, value, result): a
      flagged tensor has its heads before its sequence, [B, H, S, D] (how
      a decoder's rotary embedding leaves Q and K, say), so that no
      Transpose is needed to give it to the op either;
    - `head_offsets`, optional, three offsets (query, key, value) with
      `key_value_heads`: each of those tensors holds its heads at
      [offset, offset + heads) of its head dim, which may hold more (Q, K
      and V as views of one fused projection, [B, S, 3 H, D], how GPT-2
      computes them: no Slice copies them apart). The query's heads are
      the result's, the key's and value's `key_value_heads`.

    For each b, h, i: s_j = scale * sum_d query[b, i, h, d] * key[b, j,
    h / g, d] + mask[b, h, i, j], p = softmax(s) over j, and result[b, i,
    h, :] = sum_j p_j * value[b, j, h / g, :]. Query, key, value and the
    result are of one element type: f32, or f16 or bf16 (values stored in
    half precision, fuse-apply-precision), which the kernel widens when it
    reads them and narrows when it writes the result; it computes in f32.
    The mask is f32. With `zero_nan_probabilities`
    every probability that is NaN counts as 0 (the IsNaN/Where guard of
    PyTorch's sdpa export): a row whose scores are all -inf gives 0
    instead of NaN.

    The op has two forms. On tensors (the graph and kernel stages) it has
    a result. On buffers (after a kernel is bufferized) it writes the
    result into `into`'s memref and has no result; fuse-lower-attention or
    the GPU's `attention` mapping then make its loops.

    ```mlir
    %o = fuse.attention %q, %k, %v, %mask {scale = 0.125 : f32}
        : tensor<2x128x12x64xf32>, tensor<2x128x12x64xf32>,
          tensor<2x128x12x64xf32>, tensor<2x1x1x128xf32>
        -> tensor<2x128x12x64xf32>
    fuse.attention %q, %k, %v into %o {scale = 0.125 : f32}
        : memref<2x128x12x64xf32>, memref<2x128x12x64xf32>,
          memref<2x128x12x64xf32> into memref<2x128x12x64xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[RankedTensorOf<[F32, F16, BF16]>,
                                 MemRefOf<[F32, F16, BF16]>]>:$query,
                       AnyTypeOf<[RankedTensorOf<[F32, F16, BF16]>,
                                  MemRefOf<[F32, F16, BF16]>]>:$key,
                       AnyTypeOf<[RankedTensorOf<[F32, F16, BF16]>,
                                  MemRefOf<[F32, F16, BF16]>]>:$value,
                       Optional<AnyTypeOf<[RankedTensorOf<[F32]>,
                                           MemRefOf<[F32]>]>>:$mask,
                       Optional<MemRefOf<[F32, F16, BF16]>>:$into,
                       F32Attr:$scale, UnitAttr:$zero_nan_probabilities,
                       OptionalAttr<DenseBoolArrayAttr>:$heads_first,
                       OptionalAttr<DenseI64ArrayAttr>:$head_offsets,
                       OptionalAttr<I64Attr>:$key_value_heads);
  let results = (outs Optional<RankedTensorOf<[F32, F16, BF16]>>:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? (`into` $into^)? attr-dict `:`
    type($query) `,` type($key) `,` type($value) (`,` type($mask)^)?
    (`into` type($into)^)? (`->` type($result)^)?
  }];
  let builders = [
    // The tensor form.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$query,
                   "::mlir::Value":$key, "::mlir::Value":$value,
                   "::mlir::Value":$mask, "::mlir::FloatAttr":$scale,
                   "bool":$zeroNanProbabilities,
                   CArg<"::llvm::ArrayRef<bool>", "{}">:$headsFirst)>,
    // The buffer form.
    OpBuilder<(ins "::mlir::Value":$query, "::mlir::Value":$key,
                   "::mlir::Value":$value, "::mlir::Value":$mask,
                   "::mlir::Value":$into, "::mlir::FloatAttr":$scale,
                   "bool":$zeroNanProbabilities,
                   CArg<"::llvm::ArrayRef<bool>", "{}">:$headsFirst)>
  ];
  let extraClassDeclaration = [{
    /// Which of the op's tensors `kQuery`... `kResult` name.
    static constexpr unsigned kQuery = 0, kKey = 1, kValue = 2, kResult = 3;
    /// Whether tensor `which` is [B, H, S, D] rather than [B, S, H, D].
    bool isHeadsFirst(unsigned which) {
      auto flags = getHeadsFirst();
      return flags && which < flags->size() && (*flags)[which];
    }
    /// Tensor `which` (query, key, value, result): its shape's dims in the
    /// order [B, S, H, D] whatever its layout, H the heads the op reads.
    ::llvm::SmallVector<int64_t, 4> getLogicalShape(unsigned which);
    /// Where tensor `which`'s heads start in its head dim (0 but with
    /// `head_offsets`).
    int64_t getHeadOffset(unsigned which) {
      auto offsets = getHeadOffsets();
      return offsets && which < offsets->size() ? (*offsets)[which] : 0;
    }
    /// The dim of tensor `which` that holds its sequence (1, or 2 when
    /// heads come first) and its heads (2 or 1).
    unsigned getSequenceDim(unsigned which) {
      return isHeadsFirst(which) ? 2 : 1;
    }
    unsigned getHeadDim(unsigned which) { return isHeadsFirst(which) ? 1 : 2; }
    /// Whether the op is the buffer form (it writes `into`).
    bool hasBufferSemantics() { return getInto() != nullptr; }
    /// The result's type, tensor or memref: [B, Sq, Hq, Dv].
    ::mlir::ShapedType getOutputType() {
      if (hasBufferSemantics())
        return ::llvm::cast<::mlir::ShapedType>(getInto().getType());
      return ::llvm::cast<::mlir::ShapedType>(getResult().getType());
    }
  }];
  let hasVerifier = 1;
}

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_TD
