// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls=max-columns=16 | FileCheck %s --check-prefix=LIMIT
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="max-columns=16 min-filters=1" | FileCheck %s --check-prefix=FILTERS
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="max-columns=16 row-alignment=8 pointwise=true" | FileCheck %s --check-prefix=HALF
// RUN: not fuse-opt %s -split-input-file -fuse-convs-to-matmuls="row-alignment=0" 2>&1 | FileCheck %s --check-prefix=BADALIGN
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="channels-last=true" | FileCheck %s --check-prefix=NHWC
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="channels-last=true input-channels-last=true" | FileCheck %s --check-prefix=INPUT
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="channels-last=true direct-windows=true" | FileCheck %s --check-prefix=DIRECT
// RUN: fuse-opt %s -split-input-file -fuse-convs-to-matmuls="channels-last=true direct-windows=true min-channels=4" | FileCheck %s --check-prefix=PAD4
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

// -----

// NHWC (channels-last): a 1x1 Conv with bias reads the input's NHWC view
// as [N * H * W, C] and adds the bias after its matmul; the 3x3 Conv after
// it takes an NHWC im2col ([N, positions, rows], the bias in the weights'
// row after the taps, 73 rows aligned to 76) of that result directly: the
// Transpose back to NCHW and the next Transpose to NHWC cancel. The
// residual (the block's input, also the first Conv's input) shares its
// Transpose to NHWC.
// NHWC-LABEL: func.func @block
// CHECK-LABEL: func.func @block
// LIMIT-LABEL: func.func @block
// FILTERS-LABEL: func.func @block
// HALF-LABEL: func.func @block
// NHWC-SAME: (%[[X:.*]]: tensor<2x8x4x4xf32>)
// NHWC: %[[XL:.*]] = onnx.Transpose(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x8x4x4xf32>) -> tensor<2x4x4x8xf32>
// NHWC: %[[A:.*]] = onnx.Reshape(%[[XL]], %{{.*}}) : (tensor<2x4x4x8xf32>, tensor<2xi64>) -> tensor<32x8xf32>
// NHWC: %[[W1:.*]] = onnx.Constant dense<5.000000e-01> : tensor<8x8xf32>
// NHWC: %[[M1:.*]] = onnx.MatMul(%[[A]], %[[W1]]) : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
// NHWC: %[[B1:.*]] = onnx.Add(%[[M1]], %{{.*}}) : (tensor<32x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
// NHWC: %[[R1:.*]] = onnx.Relu(%[[B1]]) : (tensor<32x8xf32>) -> tensor<32x8xf32>
// NHWC: %[[Y1:.*]] = onnx.Reshape(%[[R1]], %{{.*}}) : (tensor<32x8xf32>, tensor<4xi64>) -> tensor<2x4x4x8xf32>
// NHWC: %[[COLS:.*]] = fuse.im2col %[[Y1]] {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x4x4x8xf32> -> tensor<2x16x76xf32>
// NHWC: %[[A2:.*]] = onnx.Reshape(%[[COLS]], %{{.*}}) : (tensor<2x16x76xf32>, tensor<2xi64>) -> tensor<32x76xf32>
// NHWC: %[[W2:.*]] = onnx.Constant dense_resource<{{.*}}> : tensor<76x8xf32>
// NHWC: %[[M2:.*]] = onnx.MatMul(%[[A2]], %[[W2]]) : (tensor<32x76xf32>, tensor<76x8xf32>) -> tensor<32x8xf32>
// NHWC: %[[RES:.*]] = onnx.Reshape(%[[XL]], %{{.*}}) : (tensor<2x4x4x8xf32>, tensor<2xi64>) -> tensor<32x8xf32>
// NHWC: %[[S:.*]] = onnx.Add(%[[M2]], %[[RES]]) : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<32x8xf32>
// NHWC: %[[R2:.*]] = onnx.Relu(%[[S]])
// NHWC: %[[Y2:.*]] = onnx.Reshape(%[[R2]], %{{.*}}) : (tensor<32x8xf32>, tensor<4xi64>) -> tensor<2x4x4x8xf32>
// NHWC: %[[OUT:.*]] = onnx.Transpose(%[[Y2]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x8xf32>) -> tensor<2x8x4x4xf32>
// NHWC: return %[[OUT]]
// NHWC-NOT: onnx.Conv
// With direct-windows the 1x1 Conv is the same matmul; the 3x3 Conv is an
// onnx.NhwcConv of that result's NHWC view, its filters stored [K, R, S,
// C] and read through a Transpose to [K, C, R, S]; the residual Add and
// ReLU run on its NHWC result.
// DIRECT-LABEL: func.func @block
// DIRECT-SAME: (%[[X:.*]]: tensor<2x8x4x4xf32>)
// DIRECT: %[[XL:.*]] = onnx.Transpose(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x8x4x4xf32>) -> tensor<2x4x4x8xf32>
// DIRECT: onnx.MatMul(%{{.*}}, %{{.*}}) : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
// DIRECT: %[[Y1:.*]] = onnx.Reshape(%{{.*}}, %{{.*}}) : (tensor<32x8xf32>, tensor<4xi64>) -> tensor<2x4x4x8xf32>
// DIRECT: %[[F:.*]] = onnx.Constant dense<2.500000e-01> : tensor<8x3x3x8xf32>
// DIRECT: %[[W:.*]] = onnx.Transpose(%[[F]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<8x3x3x8xf32>) -> tensor<8x8x3x3xf32>
// DIRECT: %[[C:.*]] = onnx.NhwcConv(%[[Y1]], %[[W]]) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x4x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x4x4x8xf32>
// DIRECT: %[[S:.*]] = onnx.Add(%[[C]], %[[XL]]) : (tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
// DIRECT: %[[R2:.*]] = onnx.Relu(%[[S]]) : (tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
// DIRECT: %[[OUT:.*]] = onnx.Transpose(%[[R2]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x8xf32>) -> tensor<2x8x4x4xf32>
// DIRECT: return %[[OUT]]
// DIRECT-NOT: fuse.im2col
func.func @block(%x: tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %w1 = onnx.Constant dense<0.5> : tensor<8x8x1x1xf32>
  %b1 = onnx.Constant dense<1.0> : tensor<8xf32>
  %w2 = onnx.Constant dense<0.25> : tensor<8x8x3x3xf32>
  %y1 = onnx.Conv(%x, %w1, %b1) : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %r1 = onnx.Relu(%y1) : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %y2 = onnx.Conv(%r1, %w2) {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32>
  %s = onnx.Add(%y2, %x) : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %r2 = onnx.Relu(%s) : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %r2 : tensor<2x8x4x4xf32>
}

// -----

// The weights as [rows, K]: row (kh * S + kw) * C + c holds W[k, c, kh,
// kw]; the bias row follows the 2 * 1 * 2 taps, then zeros to 8 rows.
// NHWC-LABEL: func.func @weight_order
// NHWC: fuse.im2col %{{.*}} {channels_last, {{.*}}} : tensor<1x3x3x2xf32> -> tensor<1x4x8xf32>
// NHWC: onnx.Constant dense<{{\[\[}}1.000000e+00], [3.000000e+00], [2.000000e+00], [4.000000e+00], [5.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<8x1xf32>
// As NHWC filters: [K, R, S, C], W[k, c, r, s] at (k, r, s, c); the bias
// stays the NhwcConv's.
// DIRECT-LABEL: func.func @weight_order
// DIRECT: %[[F:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// DIRECT: %[[W:.*]] = onnx.Transpose(%[[F]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x2x1x2xf32>
// DIRECT: onnx.NhwcConv(%{{.*}}, %[[W]], %{{.*}}) {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<1x3x3x2xf32>, tensor<1x2x1x2xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
// With min-channels=4 the 2 input channels get 2 zero channels, in the
// NHWC input (a Pad) and in the filters alike.
// PAD4-LABEL: func.func @weight_order
// PAD4: %[[XL:.*]] = onnx.Transpose(%arg0) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x3x3x2xf32>
// PAD4: %[[PADS:.*]] = onnx.Constant dense<[0, 0, 0, 0, 0, 0, 0, 2]> : tensor<8xi64>
// PAD4: %[[XP:.*]] = onnx.Pad(%[[XL]], %[[PADS]]) : (tensor<1x3x3x2xf32>, tensor<8xi64>) -> tensor<1x3x3x4xf32>
// PAD4: %[[F:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<1x1x2x4xf32>
// PAD4: %[[W:.*]] = onnx.Transpose(%[[F]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x2x4xf32>) -> tensor<1x4x1x2xf32>
// PAD4: onnx.NhwcConv(%[[XP]], %[[W]], %{{.*}}) {{.*}} : (tensor<1x3x3x4xf32>, tensor<1x4x1x2xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
func.func @weight_order(%x: tensor<1x2x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]]]> : tensor<1x2x1x2xf32>
  %b = onnx.Constant dense<5.0> : tensor<1xf32>
  %y = onnx.Conv(%x, %w, %b) {kernel_shape = array<i64: 1, 2>, strides = array<i64: 2, 1>} : (tensor<1x2x3x3xf32>, tensor<1x2x1x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// A MaxPool between two NHWC Convs pools the NHWC data as a 3-D MaxPool
// of [N, 1, H, W, C] with a window of 1 along C; a residual Sum of two
// NHWC results computes on them too. No Transpose is left between the
// first Conv and the last.
// NHWC-LABEL: func.func @pool_sum
// NHWC: onnx.Transpose
// NHWC: %[[V:.*]] = onnx.Reshape(%{{.*}}, %{{.*}}) : (tensor<1x8x8x8xf32>, tensor<5xi64>) -> tensor<1x1x8x8x8xf32>
// NHWC: %[[P:.*]] = onnx.MaxPool(%[[V]]) {kernel_shape = array<i64: 3, 3, 1>, pads = array<i64: 1, 1, 0, 1, 1, 0>, strides = array<i64: 2, 2, 1>} : (tensor<1x1x8x8x8xf32>) -> tensor<1x1x4x4x8xf32>
// NHWC: onnx.Reshape(%[[P]], %{{.*}}) : (tensor<1x1x4x4x8xf32>, tensor<4xi64>) -> tensor<1x4x4x8xf32>
// NHWC-NOT: onnx.Transpose
// NHWC: onnx.Sum(%{{.*}}, %{{.*}}) : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// NHWC-NOT: onnx.Transpose
// NHWC: onnx.MatMul
// NHWC: onnx.Transpose(%{{.*}}) {perm = array<i64: 0, 3, 1, 2>}
// NHWC-NEXT: return
func.func @pool_sum(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %w = onnx.Constant dense<0.5> : tensor<8x8x1x1xf32>
  %y = onnx.Conv(%x, %w) : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %p = onnx.MaxPool(%y) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %a = onnx.Conv(%p, %w) : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = onnx.Conv(%p, %w) : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = onnx.Sum(%a, %b) : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %z = onnx.Conv(%s, %w) : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %z : tensor<1x8x4x4xf32>
}

// -----

// Next to a depthwise Conv (through a Clip), a Conv with more than 196
// output positions per image stays NCHW: the first feeds it, the last
// reads it; both keep the NCHW rules (the 1x1s here are rewritten as NCHW
// im2cols, within max-columns).
// NHWC-LABEL: func.func @next_to_depthwise
// NHWC-NOT: onnx.Transpose
// NHWC-NOT: channels_last
// NHWC: return
func.func @next_to_depthwise(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = onnx.Constant dense<0.5> : tensor<8x8x1x1xf32>
  %wd = onnx.Constant dense<0.5> : tensor<8x1x3x3xf32>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32>
  %r = onnx.Relu(%x) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %y = onnx.Conv(%r, %w) : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x16x16xf32>
  %c = onnx.Clip(%y) min(%lo) max(%hi) : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x16x16xf32>
  %d = onnx.Conv(%c, %wd) {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  %z = onnx.Conv(%d, %w) : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x16x16xf32>
  return %z : tensor<1x8x16x16xf32>
}

// -----

// With input-channels-last, a Conv of the model's input goes NHWC
// although it feeds a depthwise one (MobileNetV2's stem): the input's
// Transpose is one with the kernel that converts it, and the Transpose
// back before the depthwise Conv (after the Clip) a transpose kernel.
// Without, it stays NCHW.
// INPUT-LABEL: func.func @stem_next_to_depthwise
// INPUT: %[[XL:.*]] = onnx.Transpose(%{{.*}}) {perm = array<i64: 0, 2, 3, 1>}
// INPUT: fuse.im2col %[[XL]] {channels_last
// INPUT: %[[C:.*]] = onnx.Clip(%{{.*}}) min(%{{.*}}) max(%{{.*}}) : (tensor<1x16x16x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x16x16x8xf32>
// INPUT: %[[CF:.*]] = onnx.Transpose(%[[C]]) {perm = array<i64: 0, 3, 1, 2>}
// INPUT: onnx.Conv(%[[CF]], %{{.*}}) {group = 8 : i64
// NHWC-LABEL: func.func @stem_next_to_depthwise
// NHWC-NOT: onnx.Transpose
// NHWC: return
func.func @stem_next_to_depthwise(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = onnx.Constant dense<0.5> : tensor<8x3x3x3xf32>
  %wd = onnx.Constant dense<0.5> : tensor<8x1x3x3xf32>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32>
  %y = onnx.Conv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  %c = onnx.Clip(%y) min(%lo) max(%hi) : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x16x16xf32>
  %d = onnx.Conv(%c, %wd) {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %d : tensor<1x8x16x16xf32>
}

// -----

// The model's input through its conversion (a model exported in half
// precision, widened) counts as the model's input.
// INPUT-LABEL: func.func @cast_stem_next_to_depthwise
// INPUT: %[[X:.*]] = onnx.Cast
// INPUT: onnx.Transpose(%[[X]]) {perm = array<i64: 0, 2, 3, 1>}
func.func @cast_stem_next_to_depthwise(%x: tensor<1x3x16x16xf16>) -> tensor<1x8x16x16xf32> {
  %w = onnx.Constant dense<0.5> : tensor<8x3x3x3xf32>
  %wd = onnx.Constant dense<0.5> : tensor<8x1x3x3xf32>
  %xf = onnx.Cast(%x) {to = 1 : i64} : (tensor<1x3x16x16xf16>) -> tensor<1x3x16x16xf32>
  %y = onnx.Conv(%xf, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  %d = onnx.Conv(%y, %wd) {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %d : tensor<1x8x16x16xf32>
}

// -----

// With at most 196 positions per image they go NHWC all the same: the
// Clip computes on the NHWC result, and a Transpose either side of the
// depthwise Conv.
// NHWC-LABEL: func.func @small_next_to_depthwise
// NHWC: onnx.MatMul
// NHWC: %[[C:.*]] = onnx.Clip(%{{.*}}) min(%{{.*}}) max(%{{.*}}) : (tensor<1x4x4x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x4x8xf32>
// NHWC: %[[CF:.*]] = onnx.Transpose(%[[C]]) {perm = array<i64: 0, 3, 1, 2>}
// NHWC: %[[D:.*]] = onnx.Conv(%[[CF]], %{{.*}}) {group = 8 : i64
// NHWC: onnx.Transpose(%[[D]]) {perm = array<i64: 0, 2, 3, 1>}
// NHWC: onnx.MatMul
func.func @small_next_to_depthwise(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = onnx.Constant dense<0.5> : tensor<8x8x1x1xf32>
  %wd = onnx.Constant dense<0.5> : tensor<8x1x3x3xf32>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32>
  %y = onnx.Conv(%x, %w) : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %c = onnx.Clip(%y) min(%lo) max(%hi) : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x4x4xf32>
  %d = onnx.Conv(%c, %wd) {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  %z = onnx.Conv(%d, %w) : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %z : tensor<1x8x4x4xf32>
}

// -----

// Two convolutions of one 3-channel input share its padded NHWC view.
// PAD4-LABEL: func.func @two_convs_one_image
// PAD4: onnx.Pad
// PAD4-NOT: onnx.Pad
// PAD4: return
func.func @two_convs_one_image(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = onnx.Constant dense<0.5> : tensor<4x3x3x3xf32>
  %v = onnx.Constant dense<0.25> : tensor<4x3x3x3xf32>
  %y = onnx.Conv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %z = onnx.Conv(%x, %v) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
