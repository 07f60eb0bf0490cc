// RUN: fuse-opt %s -split-input-file -verify-diagnostics
// Verifier errors of onnx ops, each with the message it must give.

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'onnx.Add' op cannot broadcast shapes 2x3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Add(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = onnx.Mul(%a, %b) : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = onnx.Sigmoid(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{'onnx.Relu' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %lo: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'onnx.Clip' op 'min' must be a scalar, got tensor of shape 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Clip(%a) min(%lo) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{requires attribute 'kernel_shape'}}
  %0 = onnx.AveragePool(%x) : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{'onnx.AveragePool' op 'kernel_shape' has 1 entries, expected 2 for 2 spatial dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{'onnx.MaxPool' op 'auto_pad' = "SAME" is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.MaxPool(%x) {auto_pad = "SAME", kernel_shape = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{'onnx.AveragePool' op 'strides' = [0, 1] must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{'onnx.AveragePool' op 'pads' has 2 entries, expected 4 for 2 spatial dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x1x8xf32> {
  // expected-error @+2 {{'onnx.AveragePool' op window of size 9 does not fit spatial dimension 0 of size 8 with pads [0, 0, 0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 9, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x1x8xf32>
  return %0 : tensor<1x1x1x8xf32>
}

// -----

func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{'onnx.GlobalAveragePool' op expects input of rank >= 3 (N x C x D1 ...), got 8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.GlobalAveragePool(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'onnx.Conv' op input has 3 channels but W expects 2 x group 1 = 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Conv(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  // expected-error @+2 {{'onnx.Conv' op W's 3 output channels are not divisible by group 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Conv(%x, %w) {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return %0 : tensor<1x3x6x6xf32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+2 {{'onnx.NhwcConv' op input has 3 channels but W expects 2 x group 1 = 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.NhwcConv(%x, %w) : (tensor<1x8x8x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @f(%x: tensor<1x8x8x8x3xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x6x6x6x4xf32> {
  // expected-error @+2 {{'onnx.NhwcConv' op expects an input of rank 4 (N x H x W x C), got 1x8x8x8x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.NhwcConv(%x, %w) : (tensor<1x8x8x8x3xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x6x6x6x4xf32>
  return %0 : tensor<1x6x6x6x4xf32>
}

// -----

func.func @f(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'onnx.NhwcConv' op inferred type(s) 'tensor<1x6x6x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x6x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.NhwcConv(%x, %w) : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'onnx.Conv' op bias B of shape 3 must be a vector of 4 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Conv(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{'onnx.Conv' op 'kernel_shape' does not match the spatial dims of W (3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Conv(%x, %w) {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @f(%a: tensor<4x16xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'onnx.Gemm' op inner dimensions differ: op(A) is 4x16, op(B) is 8x16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Gemm(%a, %b) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @f(%a: tensor<4x16xf32>, %b: tensor<8x16xf32>, %c: tensor<5xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{'onnx.Gemm' op C of shape 5 does not broadcast to 4x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Gemm(%a, %b, %c) {transB = 1 : i64} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<5xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @f(%a: tensor<4x16xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'onnx.MatMul' op inner dimensions differ: A is 4x16, B is 8x16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @f(%a: tensor<2x4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{'onnx.MatMul' op batch dimensions of 2x4x16 and 3x16x8 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.MatMul(%a, %b) : (tensor<2x4x16xf32>, tensor<3x16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @f(%x: tensor<1x4x8x8xf32>, %s: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{'onnx.BatchNormalization' op 'scale' of shape 3 must be a vector of 4 elements (the channel count)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.BatchNormalization(%x, %s, %v, %v, %v) : (tensor<1x4x8x8xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @+2 {{'onnx.Flatten' op 'axis' = 3 is out of range [-2, 2] for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Flatten(%x) {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = onnx.Constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Reshape' op 'shape' has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %s = onnx.Constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Reshape' op cannot reshape input of shape 2x3 (6 elements) into 4x2 (8 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<4x?xf32> {
  %s = onnx.Constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Reshape' op cannot reshape 6 elements into 4x? (the -1 cannot be inferred)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %s = onnx.Constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Reshape' op 'shape'[0] = -2 is negative (only -1 is allowed)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<1x2xi64>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'onnx.Reshape' op 'shape' must be a 1-D tensor, got shape 1x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @f() -> tensor<3xf32> {
  // expected-error @+2 {{'onnx.Constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "onnx.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Absurd sizes are errors, not wrapped arithmetic.
func.func @f(%x: tensor<1099511627776x1099511627776x1099511627776xf32>) -> tensor<?x1xf32> {
  // expected-error @+2 {{'onnx.Flatten' op input of shape 1099511627776x1099511627776x1099511627776 has more elements than int64 can count}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Flatten(%x) {axis = 3 : i64} : (tensor<1099511627776x1099511627776x1099511627776xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<?x4x?xf32> {
  %s = onnx.Constant dense<[4611686018427387904, 4, -1]> : tensor<3xi64>
  // expected-error @+2 {{'onnx.Reshape' op shapes with more elements than int64 can count are not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x?x?xf32> {
  // expected-error @+2 {{'onnx.AveragePool' op 'pads' = [9223372036854775807, 0, 0, 0] has a value larger than 2147483648}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, pads = array<i64: 9223372036854775807, 0, 0, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

func.func @f(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Transpose' op 'perm' has 2 entries for an input of rank 3}}
  // expected-error @+1 {{'onnx.Transpose' op failed to infer returned types}}
  %0 = onnx.Transpose(%x) {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Transpose' op 'perm' is not a permutation of [0, 3)}}
  // expected-error @+1 {{'onnx.Transpose' op failed to infer returned types}}
  %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A wrong result type shows the inferred one: perm swaps the last two dims.
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+2 {{'onnx.Transpose' op inferred type(s) 'tensor<2x4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4xf32>'}}
  // expected-error @+1 {{'onnx.Transpose' op failed to infer returned types}}
  %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Only size-1 dims can be squeezed.
func.func @f(%x: tensor<1x3x1xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[1]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Squeeze' op cannot squeeze dim 1 of size 3 (shape 1x3x1)}}
  // expected-error @+1 {{'onnx.Squeeze' op failed to infer returned types}}
  %0 = onnx.Squeeze(%x, %a) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x3x1xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[3]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Squeeze' op axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'onnx.Squeeze' op failed to infer returned types}}
  %0 = onnx.Squeeze(%x, %a) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x3x1xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[0, -3]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Squeeze' op axis -3 is repeated}}
  // expected-error @+1 {{'onnx.Squeeze' op failed to infer returned types}}
  %0 = onnx.Squeeze(%x, %a) : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Unsqueeze axes index the output (rank 3 here): -2 is 1 again.
func.func @f(%x: tensor<3xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[1, -2]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Unsqueeze' op axis -2 is repeated}}
  // expected-error @+1 {{'onnx.Unsqueeze' op failed to infer returned types}}
  %0 = onnx.Unsqueeze(%x, %a) : (tensor<3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[2]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Unsqueeze' op axis 2 is out of range for output rank 2}}
  // expected-error @+1 {{'onnx.Unsqueeze' op failed to infer returned types}}
  %0 = onnx.Unsqueeze(%x, %a) : (tensor<3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Concat' op inputs have different ranks (2 and 3)}}
  // expected-error @+1 {{'onnx.Concat' op failed to infer returned types}}
  %0 = onnx.Concat(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Concat' op inputs differ in dim 0 (2 and 3) off the concat axis}}
  // expected-error @+1 {{'onnx.Concat' op failed to infer returned types}}
  %0 = onnx.Concat(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Concat' op 'axis' = 2 is out of range for rank 2}}
  // expected-error @+1 {{'onnx.Concat' op failed to infer returned types}}
  %0 = onnx.Concat(%a, %b) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Concat' op inputs have different element types ('f32' and 'i64')}}
  // expected-error @+1 {{'onnx.Concat' op failed to infer returned types}}
  %0 = onnx.Concat(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Slice: a zero step, a repeated axis, lists of different lengths, an axis
// out of range.
func.func @f(%x: tensor<10xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[0]> : tensor<1xi64>
  %e = onnx.Constant dense<[5]> : tensor<1xi64>
  %z = onnx.Constant dense<[0]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Slice' op steps must not be 0}}
  // expected-error @+1 {{'onnx.Slice' op failed to infer returned types}}
  %0 = onnx.Slice(%x, %s, %e) axes(%s) steps(%z) : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<10x4xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[0, 0]> : tensor<2xi64>
  %e = onnx.Constant dense<[5, 5]> : tensor<2xi64>
  %a = onnx.Constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Slice' op axis -1 is repeated}}
  // expected-error @+1 {{'onnx.Slice' op failed to infer returned types}}
  %0 = onnx.Slice(%x, %s, %e) axes(%a) : (tensor<10x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<10x4xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[0, 0]> : tensor<2xi64>
  %e = onnx.Constant dense<[5]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Slice' op starts, ends, axes and steps must have the same length}}
  // expected-error @+1 {{'onnx.Slice' op failed to infer returned types}}
  %0 = onnx.Slice(%x, %s, %e) : (tensor<10x4xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<10x4xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[0]> : tensor<1xi64>
  %e = onnx.Constant dense<[5]> : tensor<1xi64>
  %a = onnx.Constant dense<[2]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Slice' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'onnx.Slice' op failed to infer returned types}}
  %0 = onnx.Slice(%x, %s, %e) axes(%a) : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Constant Gather indices must be in range (negative ones count from the end).
func.func @f(%x: tensor<5x4xf32>) -> tensor<*xf32> {
  %i = onnx.Constant dense<[0, 5]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Gather' op index 5 is out of range for dim 0 of size 5}}
  // expected-error @+1 {{'onnx.Gather' op failed to infer returned types}}
  %0 = onnx.Gather(%x, %i) : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<5x4xf32>) -> tensor<*xf32> {
  %i = onnx.Constant dense<-5> : tensor<i64>
  // expected-error @+2 {{'onnx.Gather' op index -5 is out of range for dim 1 of size 4}}
  // expected-error @+1 {{'onnx.Gather' op failed to infer returned types}}
  %0 = onnx.Gather(%x, %i) {axis = 1 : i64} : (tensor<5x4xf32>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<5x4xf32>, %i: tensor<3xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Gather' op 'axis' = 2 is out of range for rank 2}}
  // expected-error @+1 {{'onnx.Gather' op failed to infer returned types}}
  %0 = onnx.Gather(%x, %i) {axis = 2 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<f32>, %i: tensor<3xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Gather' op 'data' must have rank 1 or more}}
  // expected-error @+1 {{'onnx.Gather' op failed to infer returned types}}
  %0 = onnx.Gather(%x, %i) : (tensor<f32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<5x4xf32>, %i: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Gather' op operand #1 must be tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = onnx.Gather(%x, %i) : (tensor<5x4xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[4]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Expand' op cannot broadcast shape 3x2 to 4}}
  // expected-error @+1 {{'onnx.Expand' op failed to infer returned types}}
  %0 = onnx.Expand(%x, %s) : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x2xf32>) -> tensor<*xf32> {
  %s = onnx.Constant dense<[-1, 2]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.Expand' op 'shape' has a negative dim -1}}
  // expected-error @+1 {{'onnx.Expand' op failed to infer returned types}}
  %0 = onnx.Expand(%x, %s) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ConstantOfShape's `value` is one element; its type is the result's.
func.func @f() -> tensor<*xf32> {
  %s = onnx.Constant dense<[2, 3]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.ConstantOfShape' op 'value' must have exactly one element, has 2}}
  // expected-error @+1 {{'onnx.ConstantOfShape' op failed to infer returned types}}
  %0 = onnx.ConstantOfShape(%s) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f() -> tensor<*xf32> {
  %s = onnx.Constant dense<[2, -3]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.ConstantOfShape' op shape has a negative dim -3}}
  // expected-error @+1 {{'onnx.ConstantOfShape' op failed to infer returned types}}
  %0 = onnx.ConstantOfShape(%s) : (tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f() -> tensor<2x3xf32> {
  %s = onnx.Constant dense<[2, 3]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.ConstantOfShape' op inferred type(s) 'tensor<2x3xi64>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'onnx.ConstantOfShape' op failed to infer returned types}}
  %0 = onnx.ConstantOfShape(%s) {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Range with a zero delta has no element count.
func.func @f() -> tensor<?xi64> {
  %s = onnx.Constant dense<0> : tensor<i64>
  %l = onnx.Constant dense<10> : tensor<i64>
  %d = onnx.Constant dense<0> : tensor<i64>
  // expected-error @+2 {{'onnx.Range' op cannot count the elements of range(0.000000e+00, 1.000000e+01, 0.000000e+00)}}
  // expected-error @+1 {{'onnx.Range' op failed to infer returned types}}
  %0 = onnx.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @f(%s: tensor<i64>, %l: tensor<i32>) -> tensor<?xi64> {
  // expected-error @+2 {{'onnx.Range' op inputs have different element types}}
  // expected-error @+1 {{'onnx.Range' op failed to infer returned types}}
  %0 = onnx.Range(%s, %l, %s) : (tensor<i64>, tensor<i32>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Softmax' op 'axis' = 2 is out of range for rank 2}}
  // expected-error @+1 {{'onnx.Softmax' op failed to infer returned types}}
  %0 = onnx.Softmax(%x) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// LayerNormalization: Scale and B broadcast to the normalized dims X[axis:].
func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.LayerNormalization' op 'Scale' of shape 4 does not broadcast to the normalized dims 8}}
  // expected-error @+1 {{'onnx.LayerNormalization' op failed to infer returned types}}
  %0 = onnx.LayerNormalization(%x, %g) : (tensor<2x3x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<2x3x8xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.LayerNormalization' op 'B' of shape 2x3x8 does not broadcast to the normalized dims 3x8}}
  // expected-error @+1 {{'onnx.LayerNormalization' op failed to infer returned types}}
  %0 = onnx.LayerNormalization(%x, %g, %b) {axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.LayerNormalization' op 'axis' = 3 is out of range for rank 3}}
  // expected-error @+1 {{'onnx.LayerNormalization' op failed to infer returned types}}
  %0 = onnx.LayerNormalization(%x, %g) {axis = 3 : i64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<8xf16>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.LayerNormalization' op requires the same element type for all operands and results}}
  %0 = onnx.LayerNormalization(%x, %g) : (tensor<2x3x8xf32>, tensor<8xf16>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[3]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.ReduceMean' op axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'onnx.ReduceMean' op failed to infer returned types}}
  %0 = onnx.ReduceMean(%x, %a) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Reduce* axes: -1 is 2 again for rank 3.
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %a = onnx.Constant dense<[2, -1]> : tensor<2xi64>
  // expected-error @+2 {{'onnx.ReduceSum' op axis -1 is repeated}}
  // expected-error @+1 {{'onnx.ReduceSum' op failed to infer returned types}}
  %0 = onnx.ReduceSum(%x, %a) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// keepdims defaults to 1.
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %a = onnx.Constant dense<[2]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.ReduceMax' op inferred type(s) 'tensor<2x3x1xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'onnx.ReduceMax' op failed to infer returned types}}
  %0 = onnx.ReduceMax(%x, %a) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xi1>) -> tensor<*xi1> {
  // expected-error @+1 {{'onnx.ReduceSum' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<2x3xi1>'}}
  %0 = onnx.ReduceSum(%x) : (tensor<2x3xi1>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// Cast to STRING (8) is not supported.
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Cast' op 'to' = 8 names a data type that is not supported}}
  // expected-error @+1 {{'onnx.Cast' op failed to infer returned types}}
  %0 = onnx.Cast(%x) {to = 8 : i64} : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+2 {{'onnx.Cast' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'onnx.Cast' op failed to infer returned types}}
  %0 = onnx.Cast(%x) {to = 7 : i64} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// `to` is required.
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Cast' op requires attribute 'to'}}
  %0 = "onnx.Cast"(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<*xi1> {
  // expected-error @+2 {{'onnx.Less' op operands have different element types ('f32' and 'i64')}}
  // expected-error @+1 {{'onnx.Less' op failed to infer returned types}}
  %0 = onnx.Less(%a, %b) : (tensor<4xf32>, tensor<4xi64>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// Comparisons give bool.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'onnx.Equal' op result #0 must be tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = onnx.Equal(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<*xi1> {
  // expected-error @+2 {{'onnx.Greater' op cannot broadcast shapes 4, 3}}
  // expected-error @+1 {{'onnx.Greater' op failed to infer returned types}}
  %0 = onnx.Greater(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

func.func @f(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Where' op X and Y have different element types ('f32' and 'i64')}}
  // expected-error @+1 {{'onnx.Where' op failed to infer returned types}}
  %0 = onnx.Where(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Where' op operand #0 must be tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = onnx.Where(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Where' op cannot broadcast shapes 3, 4, 4}}
  // expected-error @+1 {{'onnx.Where' op failed to infer returned types}}
  %0 = onnx.Where(%c, %a, %a) : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<2x1xf32>, %c: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Sum' op cannot broadcast shapes 4, 2x1, 3}}
  // expected-error @+1 {{'onnx.Sum' op failed to infer returned types}}
  %0 = onnx.Sum(%a, %b, %c) : (tensor<4xf32>, tensor<2x1xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Max' op requires the same element type for all operands and results}}
  %0 = onnx.Max(%a, %b) : (tensor<4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f() -> tensor<*xf32> {
  // expected-error @+1 {{'onnx.Mean' op expected 1 or more operands, but found 0}}
  %0 = onnx.Mean() : () -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'onnx.Not' op operand #0 must be tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = onnx.Not(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Pow' op cannot broadcast shapes 4, 2}}
  // expected-error @+1 {{'onnx.Pow' op failed to infer returned types}}
  %0 = onnx.Pow(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Pow's result has the base's element type.
func.func @f(%a: tensor<4xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Pow' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<*xf32>'}}
  // expected-error @+1 {{'onnx.Pow' op failed to infer returned types}}
  %0 = onnx.Pow(%a, %a) : (tensor<4xi64>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f() -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Concat' op needs at least one input}}
  // expected-error @+1 {{'onnx.Concat' op failed to infer returned types}}
  %0 = onnx.Concat() {axis = 0 : i64} : () -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.GatherND' op the last dim of 'indices' is 3; it must be from 1 to the rank of 'data' less batch_dims (2)}}
  // expected-error @+1 {{'onnx.GatherND' op failed to infer returned types}}
  %0 = onnx.GatherND(%x, %i) : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.GatherND' op batch dim 0 is 3 in 'data' but 2 in 'indices'}}
  // expected-error @+1 {{'onnx.GatherND' op failed to infer returned types}}
  %0 = onnx.GatherND(%x, %i) {batch_dims = 1 : i64} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<3x1xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.GatherND' op batch_dims 2 must be at least 0 and less than the ranks of 'data' (2) and 'indices' (2)}}
  // expected-error @+1 {{'onnx.GatherND' op failed to infer returned types}}
  %0 = onnx.GatherND(%x, %i) {batch_dims = 2 : i64} : (tensor<3x4xf32>, tensor<3x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3xi32>) -> tensor<*xi32> {
  // expected-error @+2 {{'onnx.Mod' op 'fmod' = 2 is not 0 or 1}}
  // expected-error @+1 {{'onnx.Mod' op failed to infer returned types}}
  %0 = onnx.Mod(%a, %a) {fmod = 2 : i64} : (tensor<3xi32>, tensor<3xi32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.PRelu' op 'slope' of shape 2 does not broadcast to X's shape 2x3}}
  // expected-error @+1 {{'onnx.PRelu' op failed to infer returned types}}
  %0 = onnx.PRelu(%x, %s) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x4x5x5xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.LRN' op 'size' = 0 must be positive}}
  // expected-error @+1 {{'onnx.LRN' op failed to infer returned types}}
  %0 = onnx.LRN(%x) {size = 0 : i64} : (tensor<1x4x5x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x4x5x5xf32>, %s: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.InstanceNormalization' op 'scale' of shape 3 must be a vector of 4 elements (the channel count)}}
  // expected-error @+1 {{'onnx.InstanceNormalization' op failed to infer returned types}}
  %0 = onnx.InstanceNormalization(%x, %s, %s) : (tensor<1x4x5x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x4x5x5xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.GroupNormalization' op the 4 channels are not divisible by 'num_groups' = 3}}
  // expected-error @+1 {{'onnx.GroupNormalization' op failed to infer returned types}}
  %0 = onnx.GroupNormalization(%x, %s, %s) {num_groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.RMSNormalization' op 'scale' of shape 2 does not broadcast to the normalized dims 3}}
  // expected-error @+1 {{'onnx.RMSNormalization' op failed to infer returned types}}
  %0 = onnx.RMSNormalization(%x, %s) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<*xi64> {
  // expected-error @+2 {{'onnx.ArgMax' op 'axis' = 2 is out of range for rank 2}}
  // expected-error @+1 {{'onnx.ArgMax' op failed to infer returned types}}
  %0 = onnx.ArgMax(%x) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %a: tensor<2xi64>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.CumSum' op 'axis' must be a scalar, got shape 2}}
  // expected-error @+1 {{'onnx.CumSum' op failed to infer returned types}}
  %0 = onnx.CumSum(%x, %a) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %pads = onnx.Constant dense<[0, 4, 0, 0]> : tensor<4xi64>
  // expected-error @+2 {{'onnx.Pad' op reflect pads of dim 1 (4, 0) must be less than its size 4}}
  // expected-error @+1 {{'onnx.Pad' op failed to infer returned types}}
  %0 = onnx.Pad(%x, %pads) {mode = "reflect"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %pads = onnx.Constant dense<[0, 0, 0]> : tensor<3xi64>
  // expected-error @+2 {{'onnx.Pad' op 'pads' has 3 entries; it needs 2 per padded axis (4)}}
  // expected-error @+1 {{'onnx.Pad' op failed to infer returned types}}
  %0 = onnx.Pad(%x, %pads) : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %pads = onnx.Constant dense<[0, 0, 0, 0]> : tensor<4xi64>
  // expected-error @+2 {{'onnx.Pad' op 'mode' = "symmetric" is not constant, reflect, edge or wrap}}
  // expected-error @+1 {{'onnx.Pad' op failed to infer returned types}}
  %0 = onnx.Pad(%x, %pads) {mode = "symmetric"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %pads = onnx.Constant dense<[0, -3, 0, -2]> : tensor<4xi64>
  // expected-error @+2 {{'onnx.Pad' op pads of dim 1 (-3, -2) remove more than its 4 elements}}
  // expected-error @+1 {{'onnx.Pad' op failed to infer returned types}}
  %0 = onnx.Pad(%x, %pads) : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x9223372036854775807xf32>) -> tensor<*xf32> {
  %pads = onnx.Constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  // expected-error @+2 {{'onnx.Pad' op padding dim 1 of size 9223372036854775807 by (1, 1) overflows a 64-bit size}}
  // expected-error @+1 {{'onnx.Pad' op failed to infer returned types}}
  %0 = onnx.Pad(%x, %pads) : (tensor<3x9223372036854775807xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<*xf32> {
  %r = onnx.Constant dense<[2]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Tile' op 'repeats' has 1 entries for an input of rank 2}}
  // expected-error @+1 {{'onnx.Tile' op failed to infer returned types}}
  %0 = onnx.Tile(%x, %r) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.Trilu' op expects an input of rank >= 2, got shape 4}}
  // expected-error @+1 {{'onnx.Trilu' op failed to infer returned types}}
  %0 = onnx.Trilu(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x6x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.DepthToSpace' op dim 1 of size 6 is not divisible by 4}}
  // expected-error @+1 {{'onnx.DepthToSpace' op failed to infer returned types}}
  %0 = onnx.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<1x2x3x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{'onnx.SpaceToDepth' op dim 2 of size 3 is not divisible by 2}}
  // expected-error @+1 {{'onnx.SpaceToDepth' op failed to infer returned types}}
  %0 = onnx.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<1x2x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @f(%x: tensor<3xui8>) -> tensor<*xui8> {
  // expected-error @+2 {{'onnx.BitShift' op 'direction' = 'UP' is not 'LEFT' or 'RIGHT'}}
  // expected-error @+1 {{'onnx.BitShift' op failed to infer returned types}}
  %0 = onnx.BitShift(%x, %x) {direction = "UP"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<*xui8>
  return %0 : tensor<*xui8>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'onnx.BitShift' op operand #0 must be tensor of}}
  %0 = onnx.BitShift(%x, %x) {direction = "LEFT"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
