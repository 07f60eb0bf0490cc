// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// Every onnx op parses, verifies and prints back in its assembly format.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x3xf32> {
  // CHECK: onnx.Relu(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = onnx.Relu(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.LeakyRelu(%{{.*}}) {alpha = 2.000000e-01 : f32}
  %1 = onnx.LeakyRelu(%0) {alpha = 0.2 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Clip(%{{.*}}) min(%{{.*}}) max(%{{.*}}) : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = onnx.Clip(%1) min(%lo) max(%hi) : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: onnx.Clip(%{{.*}}) max(%{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = onnx.Clip(%2) max(%hi) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = onnx.Sigmoid(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = onnx.Tanh(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = onnx.Exp(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = onnx.Neg(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = onnx.Abs(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = onnx.Sqrt(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Add(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %10 = onnx.Add(%9, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %11 = onnx.Sub(%b, %10) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = onnx.Mul(%11, %11) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = onnx.Div(%12, %lo) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: onnx.Identity
  %14 = onnx.Identity(%13) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %14 : tensor<2x3xf32>
}

// Integer types are accepted where ONNX accepts them.
// CHECK-LABEL: func @integers
func.func @integers(%a: tensor<4xi64>, %b: tensor<4xui8>) -> (tensor<4xi64>, tensor<4xui8>) {
  // CHECK: onnx.Add(%{{.*}}, %{{.*}}) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %0 = onnx.Add(%a, %a) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = onnx.Relu(%b) : (tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xi64>, tensor<4xui8>
}

// CHECK-LABEL: func @nn
func.func @nn(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> {
  // CHECK: onnx.Conv(%{{.*}}, %{{.*}}, %{{.*}}) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>
  %0 = onnx.Conv(%x, %w, %b) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: onnx.Conv(%{{.*}}, %{{.*}}) {auto_pad = "VALID", strides = array<i64: 2, 2>}
  %1 = onnx.Conv(%x, %w) {auto_pad = "VALID", strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x15x15xf32>
  // CHECK: onnx.NhwcConv(%{{.*}}, %{{.*}}, %{{.*}}) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x32x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x16x8xf32>
  %xl = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x32x32x3xf32>
  %nhwc = onnx.NhwcConv(%xl, %w, %b) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x32x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x16x8xf32>
  %2 = onnx.BatchNormalization(%0, %b, %b, %b, %b) {epsilon = 1.0e-3 : f32} : (tensor<1x8x32x32xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: onnx.MaxPool(%{{.*}}) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %3 = onnx.MaxPool(%2) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  // CHECK: onnx.AveragePool(%{{.*}}) {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32>
  %4 = onnx.AveragePool(%3) {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: onnx.GlobalAveragePool(%{{.*}}) : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  %5 = onnx.GlobalAveragePool(%4) : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  // CHECK: onnx.Flatten(%{{.*}}) : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  %6 = onnx.Flatten(%5) : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  return %6 : tensor<1x8xf32>
}

// CHECK-LABEL: func @linalg
func.func @linalg(%a: tensor<4x16xf32>, %b: tensor<8x16xf32>, %c: tensor<8xf32>, %d: tensor<2x16x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK: onnx.Gemm(%{{.*}}, %{{.*}}, %{{.*}}) {alpha = 5.000000e-01 : f32, transB = 1 : i64} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = onnx.Gemm(%a, %b, %c) {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  %1 = onnx.MatMul(%a, %d) : (tensor<4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<2x4x8xf32>
}

// CHECK-LABEL: func @tensor
func.func @tensor(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // CHECK: onnx.Constant dense<[-1, 4]> : tensor<2xi64>
  %s = onnx.Constant dense<[-1, 4]> : tensor<2xi64>
  // CHECK: onnx.Reshape(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// Result types may be less static than what is inferred.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x?x?xf32> {
  // CHECK: onnx.AveragePool(%{{.*}}) {kernel_shape = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x?x?xf32>
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// The static result types from here on are what each op infers: a static
// result type other than the inferred one does not verify (invalid.mlir),
// and infer.mlir shows inference filling in dynamic results.

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  // CHECK: onnx.Reciprocal(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = onnx.Reciprocal(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Log
  %1 = onnx.Log(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Erf
  %2 = onnx.Erf(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.HardSwish
  %3 = onnx.HardSwish(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.HardSigmoid(%{{.*}}) {alpha = 1.000000e-01 : f32, beta = 2.500000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = onnx.HardSigmoid(%3) {alpha = 0.1 : f32, beta = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Gelu(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = onnx.Gelu(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Gelu(%{{.*}}) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = onnx.Gelu(%5) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Not(%{{.*}}) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %7 = onnx.Not(%m) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return %6, %7 : tensor<2x3xf32>, tensor<2x3xi1>
}

// CHECK-LABEL: func @binary
func.func @binary(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %e: tensor<i64>, %i: tensor<2x1xi64>, %j: tensor<3xi64>, %c: tensor<2x1xi1>) -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi64>) {
  // The exponent may have another element type; the result has the base's.
  // CHECK: onnx.Pow(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %0 = onnx.Pow(%x, %e) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  // Comparisons broadcast and give i1.
  // CHECK: onnx.Equal(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = onnx.Equal(%0, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: onnx.Less(%{{.*}}, %{{.*}}) : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %2 = onnx.Less(%i, %j) : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: onnx.LessOrEqual
  %3 = onnx.LessOrEqual(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: onnx.Greater
  %4 = onnx.Greater(%b, %x) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: onnx.GreaterOrEqual(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %5 = onnx.GreaterOrEqual(%4, %c) : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  // Variadic ops broadcast all their inputs together.
  // CHECK: onnx.Sum(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = onnx.Sum(%x, %b, %0) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Max(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = onnx.Max(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Min(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = onnx.Min(%b, %7) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Mean(%{{.*}}, %{{.*}}) : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %9 = onnx.Mean(%i, %j) : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: onnx.Where(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = onnx.Where(%c, %b, %8) : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %10, %1, %2, %6, %9 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi64>
}

// Cast's result element type is the ONNX data type `to` names.
// CHECK-LABEL: func @cast
func.func @cast(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xi64>, tensor<2x3xi1>, tensor<2x3xf16>, tensor<4xf64>, tensor<4xi32>, tensor<4xbf16>, tensor<4xi8>, tensor<4xui8>) {
  // CHECK: onnx.Cast(%{{.*}}) {to = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %0 = onnx.Cast(%x) {to = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  // CHECK: onnx.Cast(%{{.*}}) {to = 9 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = onnx.Cast(%x) {to = 9 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: onnx.Cast(%{{.*}}) {to = 10 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %2 = onnx.Cast(%x) {to = 10 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // CHECK: onnx.Cast(%{{.*}}) {to = 11 : i64} : (tensor<4xi64>) -> tensor<4xf64>
  %3 = onnx.Cast(%i) {to = 11 : i64} : (tensor<4xi64>) -> tensor<4xf64>
  // CHECK: onnx.Cast(%{{.*}}) {saturate = 0 : i64, to = 6 : i64} : (tensor<4xi64>) -> tensor<4xi32>
  %4 = onnx.Cast(%i) {to = 6 : i64, saturate = 0 : i64} : (tensor<4xi64>) -> tensor<4xi32>
  // CHECK: onnx.Cast(%{{.*}}) {to = 16 : i64} : (tensor<4xi64>) -> tensor<4xbf16>
  %5 = onnx.Cast(%i) {to = 16 : i64} : (tensor<4xi64>) -> tensor<4xbf16>
  // CHECK: onnx.Cast(%{{.*}}) {to = 3 : i64} : (tensor<4xi64>) -> tensor<4xi8>
  %6 = onnx.Cast(%i) {to = 3 : i64} : (tensor<4xi64>) -> tensor<4xi8>
  // CHECK: onnx.Cast(%{{.*}}) {to = 2 : i64} : (tensor<4xi64>) -> tensor<4xui8>
  %7 = onnx.Cast(%i) {to = 2 : i64} : (tensor<4xi64>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xi64>, tensor<2x3xi1>, tensor<2x3xf16>, tensor<4xf64>, tensor<4xi32>, tensor<4xbf16>, tensor<4xi8>, tensor<4xui8>
}

// CHECK-LABEL: func @layout
func.func @layout(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %s: tensor<1x3x1xf32>) -> (tensor<2x4x3xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<1x2x3x1x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  // CHECK: onnx.Transpose(%{{.*}}) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // Without perm the dims are reversed.
  // CHECK: onnx.Transpose(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = onnx.Transpose(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // Without axes every size-1 dim goes.
  // CHECK: onnx.Squeeze(%{{.*}}) : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %2 = onnx.Squeeze(%s) : (tensor<1x3x1xf32>) -> tensor<3xf32>
  // CHECK: %[[A0:.*]] = onnx.Constant dense<0> : tensor<1xi64>
  %a0 = onnx.Constant dense<0> : tensor<1xi64>
  // CHECK: onnx.Squeeze(%{{.*}}, %[[A0]]) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %3 = onnx.Squeeze(%s, %a0) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  // Unsqueeze axes are positions in the output; negative ones count from its end.
  %a1 = onnx.Constant dense<[0, -2]> : tensor<2xi64>
  // CHECK: onnx.Unsqueeze(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x1x4xf32>
  %4 = onnx.Unsqueeze(%x, %a1) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x1x4xf32>
  // CHECK: onnx.Concat(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %5 = onnx.Concat(%x, %y) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  // CHECK: onnx.Concat(%{{.*}}, %{{.*}}) {axis = -2 : i64}
  %6 = onnx.Concat(%y, %x) {axis = -2 : i64} : (tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x4x3xf32>, tensor<4x3x2xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<1x2x3x1x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}

// Slice: negative bounds count from the end, out-of-range ones clamp, steps
// may be negative; axes and steps default to all dims and 1s.
// CHECK-LABEL: func @slice
func.func @slice(%x: tensor<10x6xf32>) -> (tensor<4x6xf32>, tensor<10x3xf32>, tensor<10x6xf32>, tensor<3x6xf32>, tensor<0x6xf32>, tensor<2x4xf32>) {
  %c2 = onnx.Constant dense<[2]> : tensor<1xi64>
  %cm4 = onnx.Constant dense<[-4]> : tensor<1xi64>
  %big = onnx.Constant dense<[1000]> : tensor<1xi64>
  %small = onnx.Constant dense<[-1000]> : tensor<1xi64>
  %last = onnx.Constant dense<[-1]> : tensor<1xi64>
  %first = onnx.Constant dense<[0]> : tensor<1xi64>
  %c8 = onnx.Constant dense<[8]> : tensor<1xi64>
  %cm3 = onnx.Constant dense<[-3]> : tensor<1xi64>
  // [2, 10 - 4) of dim 0.
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x6xf32>
  %0 = onnx.Slice(%x, %c2, %cm4) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x6xf32>
  // All of the last dim, every second element: [-1000, 1000) clamps to [0, 6).
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) axes(%{{.*}}) steps(%{{.*}}) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<10x3xf32>
  %1 = onnx.Slice(%x, %small, %big) axes(%last) steps(%c2) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<10x3xf32>
  // Reversed: start 1000 clamps to 9, end -1000 to before the first element.
  // CHECK: onnx.Slice({{.*}}) -> tensor<10x6xf32>
  %2 = onnx.Slice(%x, %big, %small) axes(%first) steps(%last) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<10x6xf32>
  // Rows 8, 5, 2.
  // CHECK: onnx.Slice({{.*}}) -> tensor<3x6xf32>
  %3 = onnx.Slice(%x, %c8, %first) axes(%first) steps(%cm3) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x6xf32>
  // An empty range.
  // CHECK: onnx.Slice({{.*}}) -> tensor<0x6xf32>
  %4 = onnx.Slice(%x, %c8, %c2) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<0x6xf32>
  // Two axes, given out of order, with i32 bounds.
  %s2 = onnx.Constant dense<[1, 3]> : tensor<2xi32>
  %e2 = onnx.Constant dense<[5, 5]> : tensor<2xi32>
  %a2 = onnx.Constant dense<[1, 0]> : tensor<2xi32>
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) axes(%{{.*}}) : (tensor<10x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
  %5 = onnx.Slice(%x, %s2, %e2) axes(%a2) : (tensor<10x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<10x3xf32>, tensor<10x6xf32>, tensor<3x6xf32>, tensor<0x6xf32>, tensor<2x4xf32>
}

// Gather: data.shape[:axis] + indices.shape + data.shape[axis+1:].
// CHECK-LABEL: func @gather
func.func @gather(%t: tensor<30x8xf32>, %ids: tensor<1x5xi64>, %x: tensor<2x3x4xf32>) -> (tensor<1x5x8xf32>, tensor<2x4xf32>, tensor<2x3x2xf32>) {
  // CHECK: onnx.Gather(%{{.*}}, %{{.*}}) : (tensor<30x8xf32>, tensor<1x5xi64>) -> tensor<1x5x8xf32>
  %0 = onnx.Gather(%t, %ids) : (tensor<30x8xf32>, tensor<1x5xi64>) -> tensor<1x5x8xf32>
  // A scalar index drops the dim; -1 is the last entry.
  %last = onnx.Constant dense<-1> : tensor<i64>
  // CHECK: onnx.Gather(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %1 = onnx.Gather(%x, %last) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %two = onnx.Constant dense<[3, -4]> : tensor<2xi32>
  // CHECK: onnx.Gather(%{{.*}}, %{{.*}}) {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x3x2xf32>
  %2 = onnx.Gather(%x, %two) {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x3x2xf32>
  return %0, %1, %2 : tensor<1x5x8xf32>, tensor<2x4xf32>, tensor<2x3x2xf32>
}

// Expand broadcasts both ways (the shape may be smaller than the input's).
// CHECK-LABEL: func @expand
func.func @expand(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<3x1xf32>) {
  %s = onnx.Constant dense<[2, 1, 4]> : tensor<3xi64>
  // CHECK: onnx.Expand(%{{.*}}, %{{.*}}) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %0 = onnx.Expand(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %one = onnx.Constant dense<1> : tensor<1xi64>
  // CHECK: onnx.Expand(%{{.*}}, %{{.*}}) : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %1 = onnx.Expand(%x, %one) : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<3x1xf32>
}

// Shape: `start` and `end` select dims (negative from the back, clamped).
// CHECK-LABEL: func @shape
func.func @shape(%x: tensor<2x?x4x5xf32>) -> (tensor<4xi64>, tensor<2xi64>, tensor<1xi64>, tensor<0xi64>, tensor<3xi64>) {
  // CHECK: onnx.Shape(%{{.*}}) : (tensor<2x?x4x5xf32>) -> tensor<4xi64>
  %0 = onnx.Shape(%x) : (tensor<2x?x4x5xf32>) -> tensor<4xi64>
  // CHECK: onnx.Shape(%{{.*}}) {end = 3 : i64, start = 1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<2xi64>
  %1 = onnx.Shape(%x) {start = 1 : i64, end = 3 : i64} : (tensor<2x?x4x5xf32>) -> tensor<2xi64>
  // CHECK: onnx.Shape(%{{.*}}) {start = -1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<1xi64>
  %2 = onnx.Shape(%x) {start = -1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<1xi64>
  // end before start: empty.
  // CHECK: onnx.Shape(%{{.*}}) {end = 1 : i64, start = 3 : i64} : (tensor<2x?x4x5xf32>) -> tensor<0xi64>
  %3 = onnx.Shape(%x) {start = 3 : i64, end = 1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<0xi64>
  // CHECK: onnx.Shape(%{{.*}}) {end = 100 : i64, start = -100 : i64} : (tensor<2x?x4x5xf32>) -> tensor<4xi64>
  %4 = onnx.Shape(%x) {start = -100 : i64, end = 100 : i64} : (tensor<2x?x4x5xf32>) -> tensor<4xi64>
  // CHECK: onnx.Shape(%{{.*}}) {end = -1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<3xi64>
  %5 = onnx.Shape(%x) {end = -1 : i64} : (tensor<2x?x4x5xf32>) -> tensor<3xi64>
  return %0, %1, %2, %3, %5 : tensor<4xi64>, tensor<2xi64>, tensor<1xi64>, tensor<0xi64>, tensor<3xi64>
}

// ConstantOfShape: the shape operand's values are the result's dims; the
// element type is `value`'s (f32 without it).
// CHECK-LABEL: func @constant_of_shape
func.func @constant_of_shape(%d: tensor<3xi64>) -> (tensor<2x3xi64>, tensor<4xf32>, tensor<?x?x?xi1>) {
  %s = onnx.Constant dense<[2, 3]> : tensor<2xi64>
  // CHECK: onnx.ConstantOfShape(%{{.*}}) {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
  %0 = onnx.ConstantOfShape(%s) {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
  %n = onnx.Constant dense<4> : tensor<1xi64>
  // CHECK: onnx.ConstantOfShape(%{{.*}}) : (tensor<1xi64>) -> tensor<4xf32>
  %1 = onnx.ConstantOfShape(%n) : (tensor<1xi64>) -> tensor<4xf32>
  // A shape that is not constant: only the rank is known.
  // CHECK: onnx.ConstantOfShape(%{{.*}}) {value = dense<true> : tensor<1xi1>} : (tensor<3xi64>) -> tensor<?x?x?xi1>
  %2 = onnx.ConstantOfShape(%d) {value = dense<true> : tensor<1xi1>} : (tensor<3xi64>) -> tensor<?x?x?xi1>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<4xf32>, tensor<?x?x?xi1>
}

// Range: max(ceil((limit - start) / delta), 0) elements.
// CHECK-LABEL: func @range
func.func @range(%a: tensor<i64>) -> (tensor<5xi64>, tensor<3xf32>, tensor<0xi64>, tensor<?xi64>) {
  %s = onnx.Constant dense<1> : tensor<i64>
  %l = onnx.Constant dense<10> : tensor<i64>
  %d = onnx.Constant dense<2> : tensor<i64>
  // CHECK: onnx.Range(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  %0 = onnx.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  %fs = onnx.Constant dense<1.0> : tensor<f32>
  %fl = onnx.Constant dense<-0.5> : tensor<f32>
  %fd = onnx.Constant dense<-0.5> : tensor<f32>
  // CHECK: onnx.Range(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  %1 = onnx.Range(%fs, %fl, %fd) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  // CHECK: onnx.Range({{.*}}) -> tensor<0xi64>
  %2 = onnx.Range(%l, %s, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<0xi64>
  // CHECK: onnx.Range({{.*}}) -> tensor<?xi64>
  %3 = onnx.Range(%s, %a, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0, %1, %2, %3 : tensor<5xi64>, tensor<3xf32>, tensor<0xi64>, tensor<?xi64>
}

// CHECK-LABEL: func @softmax_layernorm
func.func @softmax_layernorm(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %g2: tensor<3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: onnx.Softmax(%{{.*}}) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %0 = onnx.Softmax(%x) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: onnx.Softmax(%{{.*}}) {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = onnx.Softmax(%x) {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: onnx.LayerNormalization(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %2 = onnx.LayerNormalization(%x, %g, %b) : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // Over the last two dims, without B; Scale broadcasts to them.
  // CHECK: onnx.LayerNormalization(%{{.*}}, %{{.*}}) {axis = -2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  %3 = onnx.LayerNormalization(%x, %g2) {axis = -2 : i64, epsilon = 1.0e-12 : f32} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0, %1, %2, %3 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// Reduce*: the constant `axes` (all dims when absent), kept as size 1 with
// keepdims (the default).
// CHECK-LABEL: func @reduce
func.func @reduce(%x: tensor<2x3x4xf32>, %m: tensor<2x3xi1>, %i: tensor<2x3xi64>, %axes: tensor<1xi64>) -> (tensor<2x3x1xf32>, tensor<3xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x4xf32>, tensor<2x1xi1>, tensor<3xi64>, tensor<1x3x4xf32>) {
  %last = onnx.Constant dense<-1> : tensor<1xi64>
  %outer = onnx.Constant dense<[2, 0]> : tensor<2xi64>
  // CHECK: onnx.ReduceMean(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %0 = onnx.ReduceMean(%x, %last) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: onnx.ReduceSum(%{{.*}}, %{{.*}}) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  %1 = onnx.ReduceSum(%x, %outer) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  // CHECK: onnx.ReduceMax(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = onnx.ReduceMax(%x) : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: onnx.ReduceMin(%{{.*}}) {keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = onnx.ReduceMin(%x) {keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<f32>
  // noop_with_empty_axes: no axes reduces nothing.
  // CHECK: onnx.ReduceSum(%{{.*}}) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = onnx.ReduceSum(%x) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // ReduceMax/Min accept bool.
  %one = onnx.Constant dense<1> : tensor<1xi64>
  // CHECK: onnx.ReduceMax(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<1xi64>) -> tensor<2x1xi1>
  %5 = onnx.ReduceMax(%m, %one) : (tensor<2x3xi1>, tensor<1xi64>) -> tensor<2x1xi1>
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  // CHECK: onnx.ReduceSum(%{{.*}}, %{{.*}}) {keepdims = 0 : i64} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<3xi64>
  %6 = onnx.ReduceSum(%i, %zero) {keepdims = 0 : i64} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<3xi64>
  // An empty axes tensor reduces all dims, or none with noop_with_empty_axes.
  %none = onnx.Constant dense<> : tensor<0xi64>
  // CHECK: onnx.ReduceSum(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<1x1x1xf32>
  %9 = onnx.ReduceSum(%x, %none) : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<1x1x1xf32>
  // CHECK: onnx.ReduceMean(%{{.*}}, %{{.*}}) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<2x3x4xf32>
  %7 = onnx.ReduceMean(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<0xi64>) -> tensor<2x3x4xf32>
  // CHECK: onnx.ReduceMean(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<1x3x4xf32>
  %8 = onnx.ReduceMean(%x, %zero) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<1x3x4xf32>
  // Axes that are not constant: with keepdims, the rank is still known.
  // CHECK: onnx.ReduceMax(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %10 = onnx.ReduceMax(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0, %1, %2, %3, %7, %5, %6, %8 : tensor<2x3x1xf32>, tensor<3xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x4xf32>, tensor<2x1xi1>, tensor<3xi64>, tensor<1x3x4xf32>
}

// Large weights live in resource blobs.
// CHECK-LABEL: func @resource
func.func @resource() -> tensor<4xf32> {
  // CHECK: onnx.Constant dense_resource<w> : tensor<4xf32>
  %0 = onnx.Constant dense_resource<w> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
