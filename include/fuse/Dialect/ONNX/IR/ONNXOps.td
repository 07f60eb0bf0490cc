//===- ONNXOps.td - onnx dialect operations ----------------*- tablegen -*-===//
//
// Ops are grouped by family as in the ONNX operator list: elementwise math,
// neural-network ops (pooling, convolution, normalization), linear algebra,
// and tensor ops. Names of ops, operands and attributes are the ONNX ones.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_ONNX_IR_ONNXOPS_TD
#define FUSE_DIALECT_ONNX_IR_ONNXOPS_TD

include "fuse/Dialect/ONNX/IR/ONNXBase.td"

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// A unary elementwise op `Y = f(X)`; `in`/`out` are the ONNX operand names.
class ONNX_UnaryOp<string mnemonic, TypeConstraint T, string inName = "X",
                   string outName = "Y", list<Trait> traits = []>
    : ONNX_Op<mnemonic, !listconcat(traits, [ONNX_Elementwise,
                                             SameOperandsAndResultElementType])> {
  let arguments = !dag(ins, [T], [inName]);
  let results = !dag(outs, [T], [outName]);
  let summary = "elementwise " # mnemonic;
  let description = "ONNX `" # mnemonic # "`, applied to every element:\n\n"
    "```mlir\n%y = onnx." # mnemonic #
    "(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>\n```";
}

def ONNXReluOp : ONNX_UnaryOp<"Relu", ONNX_NumericTensor>;
def ONNXReciprocalOp : ONNX_UnaryOp<"Reciprocal", ONNX_FloatTensor>;
def ONNXLogOp : ONNX_UnaryOp<"Log", ONNX_FloatTensor, "input", "output">;
def ONNXErfOp : ONNX_UnaryOp<"Erf", ONNX_FloatTensor, "input", "output">;
def ONNXHardSwishOp : ONNX_UnaryOp<"HardSwish", ONNX_FloatTensor>;
def ONNXSigmoidOp : ONNX_UnaryOp<"Sigmoid", ONNX_FloatTensor>;
def ONNXTanhOp : ONNX_UnaryOp<"Tanh", ONNX_FloatTensor, "input", "output">;
def ONNXExpOp : ONNX_UnaryOp<"Exp", ONNX_FloatTensor, "input", "output">;
def ONNXNegOp : ONNX_UnaryOp<"Neg", ONNX_NumericTensor>;
def ONNXAbsOp : ONNX_UnaryOp<"Abs", ONNX_NumericTensor>;
def ONNXSqrtOp : ONNX_UnaryOp<"Sqrt", ONNX_FloatTensor>;
def ONNXFloorOp : ONNX_UnaryOp<"Floor", ONNX_FloatTensor>;
def ONNXCeilOp : ONNX_UnaryOp<"Ceil", ONNX_FloatTensor>;
// Round: halves to even.
def ONNXRoundOp : ONNX_UnaryOp<"Round", ONNX_FloatTensor>;
// Sign: -1, 0 or 1; NaN for NaN.
def ONNXSignOp : ONNX_UnaryOp<"Sign", ONNX_NumericTensor, "input", "output">;
def ONNXSinOp : ONNX_UnaryOp<"Sin", ONNX_FloatTensor, "input", "output">;
def ONNXCosOp : ONNX_UnaryOp<"Cos", ONNX_FloatTensor, "input", "output">;
def ONNXTanOp : ONNX_UnaryOp<"Tan", ONNX_FloatTensor, "input", "output">;
def ONNXAsinOp : ONNX_UnaryOp<"Asin", ONNX_FloatTensor, "input", "output">;
def ONNXAcosOp : ONNX_UnaryOp<"Acos", ONNX_FloatTensor, "input", "output">;
def ONNXAtanOp : ONNX_UnaryOp<"Atan", ONNX_FloatTensor, "input", "output">;
def ONNXSinhOp : ONNX_UnaryOp<"Sinh", ONNX_FloatTensor, "input", "output">;
def ONNXCoshOp : ONNX_UnaryOp<"Cosh", ONNX_FloatTensor, "input", "output">;
def ONNXAsinhOp : ONNX_UnaryOp<"Asinh", ONNX_FloatTensor, "input", "output">;
def ONNXAcoshOp : ONNX_UnaryOp<"Acosh", ONNX_FloatTensor, "input", "output">;
def ONNXAtanhOp : ONNX_UnaryOp<"Atanh", ONNX_FloatTensor, "input", "output">;
// Softsign: X / (1 + |X|).
def ONNXSoftsignOp : ONNX_UnaryOp<"Softsign", ONNX_FloatTensor, "input",
                                  "output">;
// Softplus: log(1 + exp(X)).
def ONNXSoftplusOp : ONNX_UnaryOp<"Softplus", ONNX_FloatTensor>;
// Mish: X * tanh(softplus(X)).
def ONNXMishOp : ONNX_UnaryOp<"Mish", ONNX_FloatTensor>;

// An activation `Y = f(X)` with float attributes (`attrs`, ONNX defaults).
class ONNX_ActivationOp<string mnemonic, string formula, dag attrs>
    : ONNX_Op<mnemonic, [ONNX_Elementwise, SameOperandsAndResultElementType]> {
  let summary = "elementwise " # mnemonic # ": `" # formula # "`";
  let description = "ONNX `" # mnemonic # "`, applied to every element.";
  let arguments = !con((ins ONNX_FloatTensor:$X), attrs);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXEluOp : ONNX_ActivationOp<"Elu", "X < 0 ? alpha * (exp(X) - 1) : X",
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;
def ONNXSeluOp : ONNX_ActivationOp<"Selu",
    "gamma * (X <= 0 ? alpha * (exp(X) - 1) : X)",
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625f">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875f">:$gamma)>;
def ONNXCeluOp : ONNX_ActivationOp<"Celu",
    "max(0, X) + min(0, alpha * (exp(X / alpha) - 1))",
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;
def ONNXThresholdedReluOp : ONNX_ActivationOp<"ThresholdedRelu",
    "X > alpha ? X : 0", (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;

def ONNXShrinkOp : ONNX_Op<"Shrink", [ONNX_Elementwise,
                                      SameOperandsAndResultElementType]> {
  let summary = "elementwise `x < -lambd ? x + bias : x > lambd ? x - bias : 0`";
  let description = [{
    ```mlir
    %y = onnx.Shrink(%x) {lambd = 1.500000e+00 : f32}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0f">:$bias,
                       DefaultValuedAttr<F32Attr, "0.5f">:$lambd);
  let results = (outs ONNX_FloatTensor:$output);
}

def ONNXIsNaNOp : ONNX_Op<"IsNaN", [ONNX_Elementwise]> {
  let summary = "elementwise: is the element NaN";
  let description = [{
    ```mlir
    %y = onnx.IsNaN(%x) : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs ONNX_BoolTensor:$Y);
}

def ONNXIsInfOp : ONNX_Op<"IsInf", [ONNX_Elementwise]> {
  let summary = "elementwise: is the element an infinity of a chosen sign";
  let description = [{
    `detect_negative` and `detect_positive` (default 1) say which
    infinities count.

    ```mlir
    %y = onnx.IsInf(%x) {detect_negative = 0 : i64}
        : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<I64Attr, "1">:$detect_negative,
                       DefaultValuedAttr<I64Attr, "1">:$detect_positive);
  let results = (outs ONNX_BoolTensor:$Y);
}

def ONNXLeakyReluOp : ONNX_Op<"LeakyRelu", [ONNX_Elementwise,
                                           SameOperandsAndResultElementType]> {
  let summary = "elementwise leaky ReLU: `X < 0 ? alpha * X : X`";
  let description = [{
    ```mlir
    %y = onnx.LeakyRelu(%x) {alpha = 1.000000e-01 : f32}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "0.01f">:$alpha);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXHardSigmoidOp : ONNX_Op<"HardSigmoid", [ONNX_Elementwise,
                                               SameOperandsAndResultElementType]> {
  let summary = "elementwise `max(0, min(1, alpha * X + beta))`";
  let description = [{
    ```mlir
    %y = onnx.HardSigmoid(%x) {alpha = 1.666667e-01 : f32}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5f">:$beta);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXGeluOp : ONNX_Op<"Gelu", [ONNX_Elementwise,
                                  SameOperandsAndResultElementType]> {
  let summary = "elementwise GELU, exact (`erf`) or `tanh`-approximated";
  let description = [{
    `approximate = "none"`: `0.5 * X * (1 + erf(X / sqrt(2)))`;
    `"tanh"`: `0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X^3)))`.

    ```mlir
    %y = onnx.Gelu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXNotOp : ONNX_Op<"Not", [ONNX_Elementwise,
                                SameOperandsAndResultElementType]> {
  let summary = "elementwise logical not";
  let description = [{
    ```mlir
    %y = onnx.Not(%x) : (tensor<4xi1>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins ONNX_BoolTensor:$X);
  let results = (outs ONNX_BoolTensor:$Y);
}

def ONNXClipOp : ONNX_Op<"Clip", [ONNX_Elementwise, AttrSizedOperandSegments,
                                  SameOperandsAndResultElementType]> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    `min` and `max` are optional scalar (rank-0 or one-element) tensors; a
    missing bound does not clamp. Clip-6 models carry the bounds as
    attributes; the importer turns them into constant operands.

    ```mlir
    %y = onnx.Clip(%x) min(%lo) max(%hi)
        : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %z = onnx.Clip(%x) max(%hi) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let assemblyFormat = [{
    `(` $input `)` (`min` `(` $min^ `)`)? (`max` `(` $max^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let arguments = (ins ONNX_NumericTensor:$input,
                       Optional<ONNX_NumericTensor>:$min,
                       Optional<ONNX_NumericTensor>:$max);
  let results = (outs ONNX_NumericTensor:$output);
}

// A binary elementwise op with multidirectional (numpy) broadcasting.
class ONNX_BinaryOp<string mnemonic>
    : ONNX_Op<mnemonic, [ONNX_Elementwise, SameOperandsAndResultElementType]> {
  let summary = "elementwise " # mnemonic # " with numpy broadcasting";
  let description = "ONNX `" # mnemonic # "`; `A` and `B` broadcast to a "
    "common shape, which is the result shape:\n\n```mlir\n%c = onnx." #
    mnemonic # "(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> "
    "tensor<2x3xf32>\n```";
  let arguments = (ins ONNX_NumericTensor:$A, ONNX_NumericTensor:$B);
  let results = (outs ONNX_NumericTensor:$C);
}

def ONNXAddOp : ONNX_BinaryOp<"Add">;
def ONNXSubOp : ONNX_BinaryOp<"Sub">;
def ONNXMulOp : ONNX_BinaryOp<"Mul">;
def ONNXDivOp : ONNX_BinaryOp<"Div">;

def ONNXPowOp : ONNX_Op<"Pow", [ONNX_Elementwise]> {
  let summary = "elementwise `X ^ Y` with numpy broadcasting";
  let description = [{
    The exponent may have another numeric type than the base (ONNX's T1);
    the result has the base's type.

    ```mlir
    %z = onnx.Pow(%x, %two) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$X, ONNX_NumericTensor:$Y);
  let results = (outs ONNX_NumericTensor:$Z);
}

// A comparison with numpy broadcasting; the result is bool.
class ONNX_CompareOp<string mnemonic>
    : ONNX_Op<mnemonic, [ONNX_Elementwise]> {
  let summary = "elementwise comparison " # mnemonic # ", numpy broadcasting";
  let description = "```mlir\n%c = onnx." # mnemonic # "(%a, %b) : "
    "(tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>\n```";
  let arguments = (ins ONNX_AnyTensor:$A, ONNX_AnyTensor:$B);
  let results = (outs ONNX_BoolTensor:$C);
}

def ONNXEqualOp : ONNX_CompareOp<"Equal">;
def ONNXLessOp : ONNX_CompareOp<"Less">;
def ONNXLessOrEqualOp : ONNX_CompareOp<"LessOrEqual">;
def ONNXGreaterOp : ONNX_CompareOp<"Greater">;
def ONNXGreaterOrEqualOp : ONNX_CompareOp<"GreaterOrEqual">;

// A logical op on bools with numpy broadcasting.
class ONNX_LogicalOp<string mnemonic>
    : ONNX_Op<mnemonic, [ONNX_Elementwise, SameOperandsAndResultElementType]> {
  let summary = "elementwise logical " # mnemonic # ", numpy broadcasting";
  let description = "```mlir\n%c = onnx." # mnemonic # "(%a, %b) : "
    "(tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>\n```";
  let arguments = (ins ONNX_BoolTensor:$A, ONNX_BoolTensor:$B);
  let results = (outs ONNX_BoolTensor:$C);
}

def ONNXAndOp : ONNX_LogicalOp<"And">;
def ONNXOrOp : ONNX_LogicalOp<"Or">;
def ONNXXorOp : ONNX_LogicalOp<"Xor">;

// A variadic elementwise op over all its inputs, broadcast together.
class ONNX_VariadicOp<string mnemonic, string out>
    : ONNX_Op<mnemonic, [ONNX_Elementwise, SameOperandsAndResultElementType]> {
  let summary = "elementwise " # mnemonic # " of all inputs, broadcast";
  let description = "```mlir\n%r = onnx." # mnemonic # "(%a, %b, %c) : "
    "(tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>\n```";
  let arguments = (ins Variadic<ONNX_NumericTensor>:$data_0);
  let results = !dag(outs, [ONNX_NumericTensor], [out]);
}

def ONNXSumOp : ONNX_VariadicOp<"Sum", "sum">;
def ONNXMaxOp : ONNX_VariadicOp<"Max", "max">;
def ONNXMinOp : ONNX_VariadicOp<"Min", "min">;
def ONNXMeanOp : ONNX_VariadicOp<"Mean", "mean">;

def ONNXModOp : ONNX_Op<"Mod", [ONNX_Elementwise,
                                SameOperandsAndResultElementType]> {
  let summary = "elementwise remainder with numpy broadcasting";
  let description = [{
    `fmod = 0` (integers only): the remainder takes the divisor's sign, as
    Python's `%`; `fmod = 1`: it takes the dividend's sign, as C's `fmod`.
    Floats require `fmod = 1`.

    ```mlir
    %c = onnx.Mod(%a, %b) {fmod = 1 : i64}
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$A, ONNX_NumericTensor:$B,
                       DefaultValuedAttr<I64Attr, "0">:$fmod);
  let results = (outs ONNX_NumericTensor:$C);
}

def ONNXBitShiftOp : ONNX_Op<"BitShift", [ONNX_Elementwise,
                                          SameOperandsAndResultElementType]> {
  let summary = "elementwise `X << Y` or `X >> Y` of integers";
  let description = [{
    `direction` is `LEFT` or `RIGHT` (arithmetic for signed integers,
    BitShift-28); numpy broadcasting. A shift by a negative amount or by
    the width or more shifts every bit out: 0, or the sign for a signed
    right shift.

    ```mlir
    %z = onnx.BitShift(%x, %y) {direction = "RIGHT"}
        : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
  let arguments = (ins TensorOf<[ONNX_IntType]>:$X,
                       TensorOf<[ONNX_IntType]>:$Y,
                       StrAttr:$direction);
  let results = (outs TensorOf<[ONNX_IntType]>:$Z);
}

def ONNXPReluOp : ONNX_Op<"PRelu", [ONNX_Elementwise,
                                    SameOperandsAndResultElementType]> {
  let summary = "elementwise `X < 0 ? slope * X : X`";
  let description = [{
    `slope` broadcasts to `X` (unidirectionally); the result has `X`'s
    shape.

    ```mlir
    %y = onnx.PRelu(%x, %s)
        : (tensor<1x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$X, ONNX_NumericTensor:$slope);
  let results = (outs ONNX_NumericTensor:$Y);
}

def ONNXWhereOp : ONNX_Op<"Where", [ONNX_Elementwise]> {
  let summary = "elementwise `condition ? X : Y`, numpy broadcasting";
  let description = [{
    ```mlir
    %r = onnx.Where(%c, %x, %y)
        : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_BoolTensor:$condition, ONNX_AnyTensor:$X,
                       ONNX_AnyTensor:$Y);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXCastOp : ONNX_Op<"Cast", [ONNX_Elementwise]> {
  let summary = "elementwise conversion to the type `to` names";
  let description = [{
    `to` is an ONNX TensorProto data type number (1 float, 7 int64, 9 bool,
    ...). Float to integer truncates toward zero; to bool is `x != 0`.

    ```mlir
    %y = onnx.Cast(%x) {to = 7 : i64} : (tensor<4xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, I64Attr:$to,
                       DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs ONNX_AnyTensor:$output);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def ONNXAveragePoolOp : ONNX_Op<"AveragePool", [ONNX_Pooling]> {
  let summary = "average over sliding windows of the spatial dimensions";
  let description = [{
    `X` is `N x C x D1 x ... x Dn`. `kernel_shape`, `strides` and `dilations`
    have one entry per spatial dimension, `pads` two (all begins, then all
    ends). Absent `strides`/`dilations` mean 1, absent `pads` 0; the importer
    writes them out. `auto_pad` is `NOTSET`, `SAME_UPPER`, `SAME_LOWER` or
    `VALID`.

    ```mlir
    %y = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>,
                               strides = array<i64: 8, 8>}
        : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXMaxPoolOp : ONNX_Op<"MaxPool", [ONNX_Pooling]> {
  let summary = "maximum over sliding windows of the spatial dimensions";
  let description = [{
    Same window attributes as `onnx.AveragePool`. Only the `Y` output is
    represented; a model that uses the optional `Indices` output is rejected
    by the importer.

    ```mlir
    %y = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>,
                           strides = array<i64: 2, 2>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$X,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs ONNX_NumericTensor:$Y);
}

def ONNXGlobalAveragePoolOp : ONNX_Op<"GlobalAveragePool", [ONNX_Pooling,
    SameOperandsAndResultElementType]> {
  let summary = "average over all spatial dimensions";
  let description = [{
    ```mlir
    %y = onnx.GlobalAveragePool(%x)
        : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X);
  let results = (outs ONNX_FloatTensor:$Y);
}

//===----------------------------------------------------------------------===//
// Convolution, normalization, linear algebra
//===----------------------------------------------------------------------===//

def ONNXConvOp : ONNX_Op<"Conv", [ONNX_Contraction]> {
  let summary = "N-d convolution with optional bias";
  let description = [{
    `X` is `N x C x D1...Dn`, `W` is `M x C/group x k1...kn`, the optional
    bias `B` has `M` elements. `kernel_shape`, when present, must equal the
    spatial dims of `W`.

    ```mlir
    %y = onnx.Conv(%x, %w, %b) {pads = array<i64: 1, 1, 1, 1>,
                                strides = array<i64: 1, 1>}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
        -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W,
                       Optional<ONNX_FloatTensor>:$B,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXNhwcConvOp : ONNX_Op<"NhwcConv", [ONNX_Contraction]> {
  let summary = "2-D convolution over channels-last data";
  let description = [{
    onnxruntime's `com.microsoft.NhwcConv`: Conv whose input `X` and result
    are channels-last, `N x H x W x C` and `N x outH x outW x M`; `W` is
    Conv's `M x C/group x kH x kW`, the optional bias `B` has `M` elements,
    and the attributes are Conv's. fuse-convs-to-matmuls makes it for CNNs
    whose activations stay NHWC, with `W` a Transpose of `M x kH x kW x C`
    weights (a cuDNN call then reads them as NHWC filters).

    ```mlir
    %y = onnx.NhwcConv(%x, %w, %b) {pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x32x32x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
        -> tensor<1x32x32x16xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$W,
                       Optional<ONNX_FloatTensor>:$B,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs ONNX_FloatTensor:$Y);
  let extraClassDeclaration = [{
    /// The Transpose (perm [0, 3, 1, 2], read only here) through which `W`
    /// reads filters stored [M, kH, kW, C/group], the layout of cuDNN's
    /// NHWC filters; null when `W` is not one.
    ONNXTransposeOp getFiltersLastView();
  }];
}

def ONNXGemmOp : ONNX_Op<"Gemm", [ONNX_Contraction]> {
  let summary = "`alpha * op(A) * op(B) + beta * C`";
  let description = [{
    `op(A)` is `A` or its transpose (`transA`), likewise for `B`; the result
    is `M x N`. The optional `C` broadcasts to `M x N` (unidirectionally).

    ```mlir
    %y = onnx.Gemm(%a, %b, %c) {transB = 1 : i64}
        : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<32xf32>)
        -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$A, ONNX_NumericTensor:$B,
                       Optional<ONNX_NumericTensor>:$C,
                       DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs ONNX_NumericTensor:$Y);
}

def ONNXMatMulOp : ONNX_Op<"MatMul", [ONNX_Contraction,
                                      SameOperandsAndResultElementType]> {
  let summary = "numpy matmul: batched, with broadcasting of batch dims";
  let description = [{
    ```mlir
    %y = onnx.MatMul(%a, %b)
        : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$A, ONNX_NumericTensor:$B);
  let results = (outs ONNX_NumericTensor:$Y);
}

def ONNXBatchNormalizationOp : ONNX_Op<"BatchNormalization", [
    SameOperandsAndResultElementType]> {
  let summary = "batch normalization in inference mode";
  let description = [{
    `Y = scale * (X - input_mean) / sqrt(input_var + epsilon) + B`, with the
    per-channel vectors broadcast along dimension 1. Training mode is not
    represented.

    ```mlir
    %y = onnx.BatchNormalization(%x, %s, %b, %m, %v)
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>,
           tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$B, ONNX_FloatTensor:$input_mean,
                       ONNX_FloatTensor:$input_var,
                       DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.9f">:$momentum);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXLRNOp : ONNX_Op<"LRN", [SameOperandsAndResultElementType]> {
  let summary = "local response normalization across channels";
  let description = [{
    `Y = X / (bias + alpha / size * square_sum) ^ beta`, where `square_sum`
    sums `X^2` over the `size` channels around each channel (fewer at the
    edges): from `c - floor((size - 1) / 2)` to `c + ceil((size - 1) / 2)`.

    ```mlir
    %y = onnx.LRN(%x) {size = 5 : i64}
        : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X,
                       DefaultValuedAttr<F32Attr, "0.0001f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75f">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0f">:$bias,
                       I64Attr:$size);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXInstanceNormalizationOp : ONNX_Op<"InstanceNormalization", [
    ONNX_Reduction, SameOperandsAndResultElementType]> {
  let summary = "normalize each channel of each sample over the spatial dims";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale[c] + B[c]`, mean and variance
    over dims [2, rank) of `input` (`N x C x D1 ...`).

    ```mlir
    %y = onnx.InstanceNormalization(%x, %s, %b)
        : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>)
        -> tensor<2x3x4x5xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$input, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$B,
                       DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon);
  let results = (outs ONNX_FloatTensor:$output);
}

def ONNXGroupNormalizationOp : ONNX_Op<"GroupNormalization", [
    SameOperandsAndResultElementType]> {
  let summary = "normalize groups of channels of each sample, then scale "
                "and shift per channel";
  let description = [{
    The `C` channels of `X` (`N x C x D1 ...`) form `num_groups` groups of
    consecutive channels; each group of each sample is normalized over its
    channels and spatial dims, then `scale[c]` and `bias[c]` apply
    (GroupNormalization-21; the importer expands -18's per-group ones).

    ```mlir
    %y = onnx.GroupNormalization(%x, %s, %b) {num_groups = 2 : i64}
        : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
        -> tensor<2x4x3x3xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       ONNX_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
                       I64Attr:$num_groups,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs ONNX_FloatTensor:$Y);
}

def ONNXRMSNormalizationOp : ONNX_Op<"RMSNormalization", [
    ONNX_Reduction, SameOperandsAndResultElementType]> {
  let summary = "divide by the root mean square over dims [axis, rank), "
                "then scale";
  let description = [{
    `X / sqrt(mean(X^2) + epsilon) * scale`, the mean over the dims from
    `axis` on; `scale` broadcasts to those dims.

    ```mlir
    %y = onnx.RMSNormalization(%x, %g)
        : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$scale,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs ONNX_FloatTensor:$Y);
}

//===----------------------------------------------------------------------===//
// Tensor ops
//===----------------------------------------------------------------------===//

def ONNXFlattenOp : ONNX_Op<"Flatten", [SameOperandsAndResultElementType]> {
  let summary = "flatten to 2-D around `axis`";
  let description = [{
    The result is `(d0*...*d(axis-1)) x (d(axis)*...*dn)`; a negative `axis`
    counts from the back.

    ```mlir
    %y = onnx.Flatten(%x) : (tensor<1x64x1x1xf32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXReshapeOp : ONNX_Op<"Reshape", [ONNX_Layout]> {
  let summary = "reshape to the shape given by a 1-D i64 tensor";
  let description = [{
    In `shape`, `0` copies the input dimension at that index (unless
    `allowzero` is 1) and one `-1` is inferred. The result shape is static
    when `shape` is a constant and the element count is known.

    ```mlir
    %s = onnx.Constant dense<[1, -1]> : tensor<2xi64>
    %y = onnx.Reshape(%x, %s)
        : (tensor<1x64x1x1xf32>, tensor<2xi64>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs ONNX_AnyTensor:$reshaped);
}

def ONNXConstantOp : ONNX_Op<"Constant", [ConstantLike]> {
  let summary = "a constant tensor (graph initializers and Constant nodes)";
  let description = [{
    Large tensors (weights) are held as `dense_resource` blobs, so the IR
    stays readable; small ones as `dense` literals.

    ```mlir
    %w = onnx.Constant dense_resource<conv1_weight> : tensor<16x3x3x3xf32>
    %s = onnx.Constant dense<[1, -1]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs ONNX_AnyTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def ONNXTransposeOp : ONNX_Op<"Transpose", [ONNX_Layout,
                                            SameOperandsAndResultElementType]> {
  let summary = "permute the dims (`perm`; reversed when absent)";
  let description = [{
    ```mlir
    %y = onnx.Transpose(%x) {perm = array<i64: 0, 2, 1>}
        : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data,
                       OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs ONNX_AnyTensor:$transposed);
}

def ONNXSqueezeOp : ONNX_Op<"Squeeze"> {
  let summary = "drop size-1 dims (the constant `axes`, or all)";
  let description = [{
    Squeeze-1/11 carry `axes` as an attribute; the importer makes it a
    constant operand.

    ```mlir
    %y = onnx.Squeeze(%x, %axes) : (tensor<1x3x1xf32>, tensor<1xi64>)
        -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, Optional<ONNX_I64Tensor>:$axes);
  let results = (outs ONNX_AnyTensor:$squeezed);
}

def ONNXUnsqueezeOp : ONNX_Op<"Unsqueeze"> {
  let summary = "insert size-1 dims at the constant `axes`";
  let description = [{
    ```mlir
    %y = onnx.Unsqueeze(%x, %axes) : (tensor<3xf32>, tensor<2xi64>)
        -> tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_I64Tensor:$axes);
  let results = (outs ONNX_AnyTensor:$expanded);
}

def ONNXConcatOp : ONNX_Op<"Concat"> {
  let summary = "join tensors along `axis`";
  let description = [{
    ```mlir
    %y = onnx.Concat(%a, %b) {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<ONNX_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs ONNX_AnyTensor:$concat_result);
}

def ONNXSliceOp : ONNX_Op<"Slice", [AttrSizedOperandSegments]> {
  let summary = "a strided slice, starts/ends/axes/steps constant";
  let description = [{
    Out-of-range starts and ends are clamped as ONNX says; negative values
    count from the end; steps may be negative. Slice-1 attributes become
    constant operands at import; Split becomes one Slice per output.

    ```mlir
    %y = onnx.Slice(%x, %s, %e) axes(%a) steps(%t)
        : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>,
           tensor<1xi64>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_IndexTensor:$starts,
                       ONNX_IndexTensor:$ends,
                       Optional<ONNX_IndexTensor>:$axes,
                       Optional<ONNX_IndexTensor>:$steps);
  let results = (outs ONNX_AnyTensor:$output);
  let assemblyFormat = [{
    `(` $data `,` $starts `,` $ends `)` (`axes` `(` $axes^ `)`)?
    (`steps` `(` $steps^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// What it takes of each dim of `data`, when that is known at compile
    /// time (static shapes, constant bounds).
    std::optional<SliceParams> getStaticParams();
    /// The offset, in elements of `data`, from which the result's elements
    /// follow each other in `data`'s row-major order, when they do (static
    /// shapes, constant bounds): the result is then a view of `data`'s
    /// bytes. A Split's parts along its first dim of size above 1 are.
    std::optional<int64_t> getContiguousOffset();
  }];
}

def ONNXGatherOp : ONNX_Op<"Gather"> {
  let summary = "take entries of `data` along `axis` at `indices`";
  let description = [{
    The result shape is `data.shape[:axis] + indices.shape +
    data.shape[axis+1:]`; negative indices count from the end.

    ```mlir
    %y = onnx.Gather(%table, %ids) {axis = 0 : i64}
        : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXGatherElementsOp : ONNX_Op<"GatherElements"> {
  let summary = "take, for each index, the entry of `data` it names along "
                "`axis`";
  let description = [{
    `indices` has `data`'s rank and is the result shape:
    `out[i][j][k] = data[indices[i][j][k]][j][k]` for axis 0; negative
    indices count from the end.

    ```mlir
    %y = onnx.GatherElements(%d, %i) {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXGatherNDOp : ONNX_Op<"GatherND"> {
  let summary = "take the slices of `data` that the last dim of `indices` "
                "names";
  let description = [{
    With `k = indices.shape[-1]` and `b = batch_dims`, each k-tuple of
    `indices` names a slice of `data` after its first `b` dims, which
    `indices` shares; the result shape is
    `indices.shape[:-1] + data.shape[b + k:]`. Negative indices count from
    the end.

    ```mlir
    %y = onnx.GatherND(%d, %i)
        : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_I64Tensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXExpandOp : ONNX_Op<"Expand"> {
  let summary = "broadcast `input` to a constant `shape` (both ways)";
  let description = [{
    ```mlir
    %y = onnx.Expand(%x, %s) : (tensor<3x1xf32>, tensor<2xi64>)
        -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, ONNX_I64Tensor:$shape);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXPadOp : ONNX_Op<"Pad", [AttrSizedOperandSegments]> {
  let summary = "pad (or crop, with negative pads) each dim";
  let description = [{
    `pads` (constant) holds the begin counts of the padded axes, then their
    end counts; `axes` (constant, default all dims) names the axes.
    `mode`: `constant` (fill with `constant_value`, default 0), `reflect`
    (mirror without repeating the edge), `edge` (repeat the edge) or `wrap`
    (continue from the other side). Pad-2's attributes become operands at
    import.

    ```mlir
    %y = onnx.Pad(%x, %pads) constant_value(%v) {mode = "reflect"}
        : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<5x6xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data, ONNX_I64Tensor:$pads,
                       Optional<ONNX_AnyTensor>:$constant_value,
                       Optional<ONNX_IndexTensor>:$axes,
                       DefaultValuedStrAttr<StrAttr, "constant">:$mode);
  let results = (outs ONNX_AnyTensor:$output);
  let assemblyFormat = [{
    `(` $data `,` $pads `)` (`constant_value` `(` $constant_value^ `)`)?
    (`axes` `(` $axes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The begin and end pads of every dim (axes resolved), or failure
    /// when `pads` or `axes` is not a valid constant for `rank`.
    ::mlir::LogicalResult getDimPads(int64_t rank,
                                     ::llvm::SmallVectorImpl<int64_t> &begins,
                                     ::llvm::SmallVectorImpl<int64_t> &ends);
  }];
}

def ONNXTileOp : ONNX_Op<"Tile"> {
  let summary = "repeat the input `repeats[i]` times along each dim i";
  let description = [{
    ```mlir
    %y = onnx.Tile(%x, %r) : (tensor<2x3xf32>, tensor<2xi64>)
        -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, ONNX_I64Tensor:$repeats);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXTriluOp : ONNX_Op<"Trilu"> {
  let summary = "keep the upper or lower triangle of the last two dims";
  let description = [{
    `upper = 1` keeps the elements with `j - i >= k`, `upper = 0` those
    with `j - i <= k` (`k`, a constant scalar, default 0); the others are
    zero.

    ```mlir
    %y = onnx.Trilu(%x, %k) {upper = 0 : i64}
        : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, Optional<ONNX_I64Tensor>:$k,
                       DefaultValuedAttr<I64Attr, "1">:$upper);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXDepthToSpaceOp : ONNX_Op<"DepthToSpace", [
    SameOperandsAndResultElementType]> {
  let summary = "move blocks of channels into blocks of the spatial dims";
  let description = [{
    `N x C x H x W` becomes `N x C/(b*b) x H*b x W*b`; `mode` `DCR` takes
    the block offset from the channel's high part, `CRD` from its low part.

    ```mlir
    %y = onnx.DepthToSpace(%x) {blocksize = 2 : i64}
        : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXSpaceToDepthOp : ONNX_Op<"SpaceToDepth", [
    SameOperandsAndResultElementType]> {
  let summary = "move blocks of the spatial dims into channels";
  let description = [{
    `N x C x H x W` becomes `N x C*b*b x H/b x W/b`; `mode` (opset 28)
    `DCR` puts the block offset in the channel's high part, `CRD` in its
    low part (the inverse of DepthToSpace in the same mode).

    ```mlir
    %y = onnx.SpaceToDepth(%x) {blocksize = 2 : i64}
        : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs ONNX_AnyTensor:$output);
}

def ONNXShapeOp : ONNX_Op<"Shape"> {
  let summary = "the shape of `data`, as a 1-D i64 tensor";
  let description = [{
    `start` and `end` (opset 15) select a range of dims. Folds to a
    constant when the dims are static.

    ```mlir
    %s = onnx.Shape(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data,
                       DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs ONNX_I64Tensor:$shape);
  let hasFolder = 1;
}

def ONNXSizeOp : ONNX_Op<"Size"> {
  let summary = "the number of elements of `data`, as an i64 scalar";
  let description = [{
    Folds to a constant when the shape is static.

    ```mlir
    %n = onnx.Size(%x) : (tensor<2x3xf32>) -> tensor<i64>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$data);
  let results = (outs ONNX_I64Tensor:$size);
  let hasFolder = 1;
}

def ONNXConstantOfShapeOp : ONNX_Op<"ConstantOfShape"> {
  let summary = "a tensor of the constant shape `input` filled with `value`";
  let description = [{
    `value` is a one-element tensor (default: float 0). Folds to a splat
    constant.

    ```mlir
    %y = onnx.ConstantOfShape(%s) {value = dense<1> : tensor<1xi64>}
        : (tensor<2xi64>) -> tensor<2x3xi64>
    ```
  }];
  let arguments = (ins ONNX_I64Tensor:$input, OptionalAttr<ElementsAttr>:$value);
  let results = (outs ONNX_AnyTensor:$output);
  let hasFolder = 1;
}

def ONNXRangeOp : ONNX_Op<"Range"> {
  let summary = "`start, start + delta, ...` up to `limit` (constant scalars)";
  let description = [{
    ```mlir
    %y = onnx.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>)
        -> tensor<5xi64>
    ```
  }];
  let arguments = (ins ONNX_NumericTensor:$start, ONNX_NumericTensor:$limit,
                       ONNX_NumericTensor:$delta);
  let results = (outs ONNX_NumericTensor:$output);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def ONNXSoftmaxOp : ONNX_Op<"Softmax", [ONNX_Reduction,
                                        SameOperandsAndResultElementType]> {
  let summary = "softmax along `axis` (opset 13 semantics)";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis`. Softmax-1/11 (which
    flattens around `axis`) is rewritten at import.

    ```mlir
    %y = onnx.Softmax(%x) : (tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs ONNX_FloatTensor:$output);
}

def ONNXLayerNormalizationOp : ONNX_Op<"LayerNormalization", [
    ONNX_Reduction, SameOperandsAndResultElementType]> {
  let summary = "normalize over dims [axis, rank), then scale and shift";
  let description = [{
    `(X - mean) / sqrt(var + epsilon) * Scale + B`, mean and variance over
    the dims from `axis` on. Only the `Y` output is represented.

    ```mlir
    %y = onnx.LayerNormalization(%x, %g, %b)
        : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins ONNX_FloatTensor:$X, ONNX_FloatTensor:$Scale,
                       Optional<ONNX_FloatTensor>:$B,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs ONNX_FloatTensor:$Y);
}

// A reduction over the constant `axes` (all dims when absent, unless
// noop_with_empty_axes); Reduce*-1/11/13 carry `axes` as an attribute,
// which the importer makes an operand.
class ONNX_ReduceOp<string mnemonic, TypeConstraint T = ONNX_NumericTensor>
    : ONNX_Op<mnemonic, [ONNX_Reduction]> {
  let summary = mnemonic # " over the constant `axes`";
  let description = "```mlir\n%r = onnx." # mnemonic # "(%x, %axes) : "
    "(tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>\n```";
  let arguments = (ins T:$data,
                       Optional<ONNX_I64Tensor>:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs T:$reduced);
  let extraClassDeclaration = [{
    /// The reduced dims (sorted, non-negative), or failure when `axes` is
    /// not a constant or is out of range for `rank`.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>> getReducedDims(int64_t rank);
  }];
}

def ONNXReduceMeanOp : ONNX_ReduceOp<"ReduceMean">;
def ONNXReduceSumOp : ONNX_ReduceOp<"ReduceSum">;
// ReduceMax/Min-20 accept bool (`or` and `and`).
def ONNXReduceMaxOp : ONNX_ReduceOp<"ReduceMax", ONNX_AnyTensor>;
def ONNXReduceMinOp : ONNX_ReduceOp<"ReduceMin", ONNX_AnyTensor>;
// sum(|x|), sqrt(sum(x^2)), log(sum(x)), log(sum(exp(x))), sum(x^2),
// prod(x).
def ONNXReduceL1Op : ONNX_ReduceOp<"ReduceL1">;
def ONNXReduceL2Op : ONNX_ReduceOp<"ReduceL2">;
def ONNXReduceLogSumOp : ONNX_ReduceOp<"ReduceLogSum">;
def ONNXReduceLogSumExpOp : ONNX_ReduceOp<"ReduceLogSumExp">;
def ONNXReduceSumSquareOp : ONNX_ReduceOp<"ReduceSumSquare">;
def ONNXReduceProdOp : ONNX_ReduceOp<"ReduceProd">;

// A cumulative sum or product along the constant scalar `axis`:
// `exclusive = 1` leaves the element itself out, `reverse = 1` goes from
// the end.
class ONNX_CumulativeOp<string mnemonic, string what> : ONNX_Op<mnemonic> {
  let summary = "cumulative " # what # " along the constant scalar `axis`";
  let description = "`exclusive = 1` leaves the element itself out of its "
    # what # "; `reverse = 1` goes from the end.\n\n```mlir\n%y = onnx."
    # mnemonic # "(%x, %axis) : (tensor<2x3xf32>, tensor<i64>)\n"
    "    -> tensor<2x3xf32>\n```";
  let arguments = (ins ONNX_NumericTensor:$x, ONNX_IndexTensor:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$exclusive,
                       DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs ONNX_NumericTensor:$y);
}

def ONNXCumSumOp : ONNX_CumulativeOp<"CumSum", "sum">;
def ONNXCumProdOp : ONNX_CumulativeOp<"CumProd", "product">;

// The index of the largest (smallest) element along `axis`: the first one,
// or the last with select_last_index.
class ONNX_ArgReduceOp<string mnemonic> : ONNX_Op<mnemonic> {
  let summary = "indices of the " # mnemonic # " elements along `axis`";
  let description = "```mlir\n%i = onnx." # mnemonic # "(%x) {axis = 1 : "
    "i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>\n```";
  let arguments = (ins ONNX_NumericTensor:$data,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs ONNX_I64Tensor:$reduced);
}

def ONNXArgMaxOp : ONNX_ArgReduceOp<"ArgMax">;
def ONNXArgMinOp : ONNX_ArgReduceOp<"ArgMin">;

def ONNXIdentityOp : ONNX_Op<"Identity", [ONNX_Elementwise,
                                          SameOperandsAndResultElementType]> {
  let summary = "the input, unchanged";
  let description = [{
    ```mlir
    %y = onnx.Identity(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins ONNX_AnyTensor:$input);
  let results = (outs ONNX_AnyTensor:$output);
}

#endif // FUSE_DIALECT_ONNX_IR_ONNXOPS_TD
