// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls=max-columns=16 | FileCheck %s --check-prefix=LIMIT
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="max-columns=16 min-filters=1" | FileCheck %s --check-prefix=FILTERS
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="max-columns=16 row-alignment=8 pointwise=true" | FileCheck %s --check-prefix=HALF
// RUN: not fuse-opt %s -split-input-file -fuse-convs-to-matmuls="row-alignment=0" 2>&1 | FileCheck %s --check-prefix=BADALIGN
// BADALIGN: fuse-convs-to-matmuls: row-alignment must be from 1 to 64, not 0

// Conv + bias, then a residual Add (the Conv second) and a ReLU: im2col of
// the input, the weights as [K, rows] with the bias in the column after the
// taps (rows aligned to 4), the Add and ReLU on the 3-D matmul result (the
// residual reshaped to it), one Reshape back to NCHW at the end.
// CHECK-LABEL: func.func @residual_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x4x4xf32>, %[[Z:.*]]: tensor<2x1x4x4xf32>)
// CHECK: %[[COLS:.*]] = fuse.im2col %[[X]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x1x4x4xf32> -> tensor<2x4x16xf32>
// CHECK: %[[W:.*]] = onnx.Constant dense<{{\[\[}}2.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>
// CHECK: %[[MM:.*]] = onnx.MatMul(%[[W]], %[[COLS]]) : (tensor<1x4xf32>, tensor<2x4x16xf32>) -> tensor<2x1x16xf32>
// CHECK: %[[S3:.*]] = onnx.Constant dense<[2, 1, 16]> : tensor<3xi64>
// CHECK: %[[ZF:.*]] = onnx.Reshape(%[[Z]], %[[S3]]) : (tensor<2x1x4x4xf32>, tensor<3xi64>) -> tensor<2x1x16xf32>
// CHECK: %[[ADD:.*]] = onnx.Add(%[[ZF]], %[[MM]]) : (tensor<2x1x16xf32>, tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
// CHECK: %[[RELU:.*]] = onnx.Relu(%[[ADD]])
// CHECK: %[[S4:.*]] = onnx.Constant dense<[2, 1, 4, 4]> : tensor<4xi64>
// CHECK: %[[Y:.*]] = onnx.Reshape(%[[RELU]], %[[S4]]) : (tensor<2x1x16xf32>, tensor<4xi64>) -> tensor<2x1x4x4xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: onnx.Conv
// 32 output positions: over a limit of 16, the Conv stays.
// LIMIT-LABEL: func.func @residual_relu
// LIMIT: onnx.Conv
// LIMIT-NOT: fuse.im2col
// With min-filters=1 its one filter is enough, whatever its positions.
// FILTERS-LABEL: func.func @residual_relu
// FILTERS: fuse.im2col
// FILTERS-NOT: onnx.Conv
func.func @residual_relu(%x: tensor<2x1x4x4xf32>, %z: tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32> {
  %w = onnx.Constant dense<2.0> : tensor<1x1x1x1xf32>
  %b = onnx.Constant dense<5.0> : tensor<1xf32>
  %y = onnx.Conv(%x, %w, %b) : (tensor<2x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<2x1x4x4xf32>
  %s = onnx.Add(%z, %y) : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32>
  %r = onnx.Relu(%s) : (tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32>
  return %r : tensor<2x1x4x4xf32>
}

// -----

// Strides, dilations and resolved pads (SAME_UPPER: 0 before, 1 after) go
// to im2col; 2 * 3 * 3 taps and the ones row make 19 rows, aligned to 20.
// Without a bias the column after the taps is zero. The Conv's result has
// two users: nothing after it moves.
// CHECK-LABEL: func.func @strided_same
// CHECK: fuse.im2col %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x6x6xf32> -> tensor<1x20x9xf32>
// CHECK: onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<3x20xf32>, tensor<1x20x9xf32>) -> tensor<1x3x9xf32>
// CHECK: %[[Y:.*]] = onnx.Reshape(%{{.*}}, %{{.*}}) : (tensor<1x3x9xf32>, tensor<4xi64>) -> tensor<1x3x3x3xf32>
// CHECK: %[[R:.*]] = onnx.Relu(%[[Y]]) : (tensor<1x3x3x3xf32>)
// CHECK: onnx.Add(%[[Y]], %[[R]])
// 9 output positions: within a limit of 16.
// LIMIT-LABEL: func.func @strided_same
// FILTERS-LABEL: func.func @strided_same
// LIMIT: fuse.im2col
func.func @strided_same(%x: tensor<1x2x6x6xf32>) -> tensor<1x3x3x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x3x3xf32>
  %y = onnx.Conv(%x, %w) {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %r = onnx.Relu(%y) : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %s = onnx.Add(%y, %r) : (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %s : tensor<1x3x3x3xf32>
}

// -----

// Not rewritten: grouped convolutions, weights that are not constants.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: fuse.im2col
// CHECK: onnx.Conv
// CHECK: onnx.Conv
// CHECK-NOT: fuse.im2col
func.func @kept(%x: tensor<1x4x5x5xf32>, %wv: tensor<2x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x2x3x3xf32>) {
  %wg = onnx.Constant dense<1.0> : tensor<4x2x3x3xf32>
  %g = onnx.Conv(%x, %wg) {group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %v = onnx.Conv(%x, %wv) : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %g, %v : tensor<1x4x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// The residual is computed after the Conv (a downsample branch): the Add
// is rebuilt where it was, after it.
// CHECK-LABEL: func.func @late_residual
// CHECK: %[[MM:.*]] = onnx.MatMul
// CHECK: %[[RES:.*]] = onnx.Relu(%{{.*}}) : (tensor<1x1x2x2xf32>)
// CHECK: %[[RF:.*]] = onnx.Reshape(%[[RES]], %{{.*}})
// CHECK: onnx.Add(%[[MM]], %[[RF]])
func.func @late_residual(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %w = onnx.Constant dense<2.0> : tensor<1x1x1x1xf32>
  %y = onnx.Conv(%x, %w) : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  %r = onnx.Relu(%x) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %s = onnx.Add(%y, %r) : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %s : tensor<1x1x2x2xf32>
}

// -----

// For half precision (row-alignment=8 pointwise): rows of 8 elements (3
// channels, a 1x1 window and the bias: 4 -> 8), and a 1x1 convolution
// over many positions is rewritten when its positions per image (64) are
// a multiple of 8; one over 36 positions, or a 3x3 one, is not. Without
// those options the weight rows align to 4 and the wide 1x1 stays a Conv.
// HALF-LABEL: func.func @pointwise
// HALF: fuse.im2col %{{.*}} : tensor<2x3x8x8xf32> -> tensor<2x8x64xf32>
// HALF: onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<2x8x64xf32>) -> tensor<2x4x64xf32>
// HALF: onnx.Conv
// HALF: onnx.Conv
// HALF-NOT: fuse.im2col
// LIMIT-LABEL: func.func @pointwise
// LIMIT-NOT: fuse.im2col
// CHECK-LABEL: func.func @pointwise
// CHECK: fuse.im2col %{{.*}} : tensor<2x3x8x8xf32> -> tensor<2x4x64xf32>
func.func @pointwise(%x: tensor<2x3x8x8xf32>, %z: tensor<2x3x6x6xf32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) {
  %w = onnx.Constant dense<0.5> : tensor<4x3x1x1xf32>
  %w3 = onnx.Constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = onnx.Constant dense<1.0> : tensor<4xf32>
  %y = onnx.Conv(%x, %w, %b) : (tensor<2x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %y36 = onnx.Conv(%z, %w, %b) : (tensor<2x3x6x6xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  %y3 = onnx.Conv(%x, %w3, %b) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  return %y, %y36, %y3 : tensor<2x4x8x8xf32>, tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
}
