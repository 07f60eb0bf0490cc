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
