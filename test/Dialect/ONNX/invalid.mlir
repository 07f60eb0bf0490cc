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
