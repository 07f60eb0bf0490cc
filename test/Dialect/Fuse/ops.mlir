// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// fuse.group and fuse.yield parse, verify and print back.

// CHECK-LABEL: func @pool_epilogue
func.func @pool_epilogue(%x: tensor<1x1x16x16xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: %[[G:.*]] = fuse.group pool_epilogue ins(%{{.*}} : tensor<1x1x16x16xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<1x1x16x16xf32>):
  // CHECK-NEXT: %[[P:.*]] = onnx.AveragePool(%[[IN]])
  // CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[P]])
  // CHECK-NEXT: fuse.yield %[[R]] : tensor<1x1x2x2xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[G]]
  %0 = fuse.group pool_epilogue ins(%x : tensor<1x1x16x16xf32>) -> tensor<1x1x2x2xf32> {
  ^bb0(%in: tensor<1x1x16x16xf32>):
    %p = onnx.AveragePool(%in) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x2x2xf32>
    %r = onnx.Relu(%p) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
    fuse.yield %r : tensor<1x1x2x2xf32>
  }
  return %0 : tensor<1x1x2x2xf32>
}

// CHECK-LABEL: func @contraction_epilogue
func.func @contraction_epilogue(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: fuse.group contraction_epilogue ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>)
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x16xf32>, %y: tensor<16x8xf32>, %z: tensor<8xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %s = onnx.Add(%m, %z) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    fuse.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// A scalar constant may live inside the group.
// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: fuse.group elementwise ins(%{{.*}} : tensor<4xf32>) -> tensor<4xf32>
  // CHECK: onnx.Constant dense<6.000000e+00> : tensor<f32>
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: tensor<4xf32>):
    %hi = onnx.Constant dense<6.0> : tensor<f32>
    %r = onnx.Relu(%in) : (tensor<4xf32>) -> tensor<4xf32>
    %c = onnx.Clip(%r) max(%hi) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    fuse.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// Slices and Concats are gathers in an elementwise group (a rotary
// embedding's halves swapped).
// CHECK-LABEL: func @elementwise_gathers
func.func @elementwise_gathers(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // CHECK: fuse.group elementwise ins(%{{.*}} : tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: onnx.Slice
  // CHECK: onnx.Concat
  %0 = fuse.group elementwise ins(%x : tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%in: tensor<2x8xf32>):
    %zero = onnx.Constant dense<0> : tensor<1xi64>
    %half = onnx.Constant dense<4> : tensor<1xi64>
    %end = onnx.Constant dense<8> : tensor<1xi64>
    %axis = onnx.Constant dense<1> : tensor<1xi64>
    %lo = onnx.Slice(%in, %zero, %half) axes(%axis) : (tensor<2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4xf32>
    %hi = onnx.Slice(%in, %half, %end) axes(%axis) : (tensor<2x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4xf32>
    %n = onnx.Neg(%hi) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %c = onnx.Concat(%n, %lo) {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
    fuse.yield %c : tensor<2x8xf32>
  }
  return %0 : tensor<2x8xf32>
}

// A reduction with its prologue and epilogue; the axes constant lives in
// the group, where the lowering reads it.
// CHECK-LABEL: func @reduction
func.func @reduction(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x1xf32> {
  // CHECK: fuse.group reduction ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x1xf32> {
  // CHECK: onnx.Constant dense<-1> : tensor<1xi64>
  // CHECK: onnx.Add
  // CHECK-NEXT: onnx.ReduceMean
  // CHECK-NEXT: onnx.Sqrt
  // CHECK-NEXT: fuse.yield
  %0 = fuse.group reduction ins(%x, %b : tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x1xf32> {
  ^bb0(%in: tensor<2x3x4xf32>, %bias: tensor<4xf32>):
    %axes = onnx.Constant dense<-1> : tensor<1xi64>
    %a = onnx.Add(%in, %bias) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %m = onnx.ReduceMean(%a, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
    %s = onnx.Sqrt(%m) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
    fuse.yield %s : tensor<2x3x1xf32>
  }
  return %0 : tensor<2x3x1xf32>
}

// -----

// Strategies round-trip, on groups and as the fuse.strategy of an op or a
// kernel function.
// CHECK-LABEL: func @strategies
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cublaslt<batch = 2, m = 4, n = 8, k = 16, epilogue = bias_relu, residual = true>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<rows, grid = 3, block = 256, row_threads = 32>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.cudnn<groups = 32, bias = true, residual = false, activation = relu>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<planes, grid = 1, block = 32, planes = 2, thread_tile = [1, 1, 4]>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<planes, grid = 1, block = 32, planes = 2, staged_output>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 4, thread_tile = [1, 2, 2], block_tile = [1, 4, 4], k_tile = 16, stages = 2>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 2, thread_tile = [4, 4], block_tile = [4, 8]>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 4, thread_tile = [1, 2, 2], block_tile = [1, 4, 4], k_tile = 16, stages = 3, async_copy>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<transpose, grid = 2, block = 32, block_tile = [4, 8]>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<mma, grid = 2, block = 128, block_tile = [64, 32], k_tile = 64, stages = 3>}
// CHECK: onnx.Relu(%{{.*}}) {fuse.strategy = #fuse.kernel<mma, grid = 8, block = 128, block_tile = [64, 32], k_tile = 32, stages = 4, split_k = 4>}
func.func @strategies(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x4x8xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<2x4x16xf32>, tensor<2x16x8xf32>) {strategy = #fuse.cublaslt<batch = 2, m = 4, n = 8, k = 16, epilogue = bias_relu, residual = true>} -> tensor<2x4x8xf32> {
  ^bb0(%x: tensor<2x4x16xf32>, %y: tensor<2x16x8xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
    fuse.yield %m : tensor<2x4x8xf32>
  }
  %1 = onnx.Relu(%0) {fuse.strategy = #fuse.kernel<rows, grid = 3, block = 256, row_threads = 32>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %2 = onnx.Relu(%1) {fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %3 = onnx.Relu(%2) {fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %4 = onnx.Relu(%3) {fuse.strategy = #fuse.cudnn<groups = 32, bias = true, residual = false, activation = relu>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %5 = onnx.Relu(%4) {fuse.strategy = #fuse.kernel<planes, grid = 1, block = 32, thread_tile = [1, 1, 4], planes = 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %6 = onnx.Relu(%5) {fuse.strategy = #fuse.kernel<planes, grid = 1, block = 32, staged_output, planes = 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %7 = onnx.Relu(%6) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 4, stages = 2, k_tile = 16, block_tile = [1, 4, 4], thread_tile = [1, 2, 2]>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %8 = onnx.Relu(%7) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 2, thread_tile = [4, 4], block_tile = [4, 8], k_tile = 0>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %9 = onnx.Relu(%8) {fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 4, async_copy, stages = 3, k_tile = 16, block_tile = [1, 4, 4], thread_tile = [1, 2, 2]>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %10 = onnx.Relu(%9) {fuse.strategy = #fuse.kernel<transpose, grid = 2, block = 32, block_tile = [4, 8]>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %11 = onnx.Relu(%10) {fuse.strategy = #fuse.kernel<mma, grid = 2, block = 128, stages = 3, k_tile = 64, block_tile = [64, 32]>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %12 = onnx.Relu(%11) {fuse.strategy = #fuse.kernel<mma, grid = 8, block = 128, split_k = 4, stages = 4, k_tile = 32, block_tile = [64, 32]>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %12 : tensor<2x4x8xf32>
}

// fuse.im2col: a 3x3 window, stride 2, pads 1 before and after; 2 * 9 taps
// and the ones row in 20 rows; a 4x4 output.
// CHECK-LABEL: func.func @im2col
// CHECK: fuse.im2col %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x8xf32> -> tensor<1x20x16xf32>
func.func @im2col(%x: tensor<1x2x8x8xf32>) -> tensor<1x20x16xf32> {
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x20x16xf32>
  return %0 : tensor<1x20x16xf32>
}

// channels_last: an NHWC input (2 channels, 8x8), one row of 24 columns
// (18 taps, the ones column, zeros) per output position.
// CHECK-LABEL: func.func @im2col_channels_last
// CHECK: fuse.im2col %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x8x2xf16> -> tensor<1x16x24xf16>
func.func @im2col_channels_last(%x: tensor<1x8x8x2xf16>) -> tensor<1x16x24xf16> {
  %0 = fuse.im2col %x {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>} : tensor<1x8x8x2xf16> -> tensor<1x16x24xf16>
  return %0 : tensor<1x16x24xf16>
}

// fuse.alternatives: candidates that read values from above, one selected.
// CHECK-LABEL: func @alternatives
func.func @alternatives(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[ALT:.*]] = fuse.alternatives selected = 1 key = "MatMul -> tensor<4x8xf32>" -> tensor<4x8xf32> {
  // CHECK-NEXT: %[[X:.*]] = fuse.group contraction_epilogue ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>) {strategy = #fuse.kernel<flat, grid = 1, block = 32>}
  // CHECK: fuse.yield %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: }, {
  // CHECK-NEXT: %[[Y:.*]] = fuse.group contraction_epilogue
  // CHECK-SAME: tiles
  // CHECK: fuse.yield %[[Y]] : tensor<4x8xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[ALT]]
  %0 = fuse.alternatives selected = 1 key = "MatMul -> tensor<4x8xf32>" -> tensor<4x8xf32> {
    %x = fuse.group contraction_epilogue ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) {strategy = #fuse.kernel<flat, grid = 1, block = 32>} -> tensor<4x8xf32> {
    ^bb0(%p: tensor<4x16xf32>, %q: tensor<16x8xf32>):
      %m = onnx.MatMul(%p, %q) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      fuse.yield %m : tensor<4x8xf32>
    }
    fuse.yield %x : tensor<4x8xf32>
  }, {
    %y = fuse.group contraction_epilogue ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) {strategy = #fuse.kernel<tiles, grid = 1, block = 32, thread_tile = [1, 1], block_tile = [4, 8], k_tile = 16>} -> tensor<4x8xf32> {
    ^bb0(%p: tensor<4x16xf32>, %q: tensor<16x8xf32>):
      %m = onnx.MatMul(%p, %q) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      fuse.yield %m : tensor<4x8xf32>
    }
    fuse.yield %y : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A split-K partial product: the contraction reads its operands through
// Reshape and Transpose (its indexing), and its strategy carries the split.
// CHECK-LABEL: func @split_k_partials
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.kernel<tiles, grid = 8, block = 16, thread_tile = [1, 1, 1], block_tile = [1, 4, 4], k_tile = 16, stages = 2, split_k = 2>} -> tensor<2x4x8xf32>
// CHECK: onnx.Reshape
// CHECK: onnx.Transpose
// CHECK: onnx.Reshape
// CHECK: onnx.MatMul
func.func @split_k_partials(%a: tensor<4x64xf32>, %b: tensor<64x8xf32>) -> tensor<2x4x8xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<4x64xf32>, tensor<64x8xf32>) {strategy = #fuse.kernel<tiles, grid = 8, block = 16, thread_tile = [1, 1, 1], block_tile = [1, 4, 4], k_tile = 16, stages = 2, split_k = 2>} -> tensor<2x4x8xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<64x8xf32>):
    %sa = onnx.Constant dense<[4, 2, 32]> : tensor<3xi64>
    %sb = onnx.Constant dense<[2, 32, 8]> : tensor<3xi64>
    %ra = onnx.Reshape(%x, %sa) : (tensor<4x64xf32>, tensor<3xi64>) -> tensor<4x2x32xf32>
    %ta = onnx.Transpose(%ra) {perm = array<i64: 1, 0, 2>} : (tensor<4x2x32xf32>) -> tensor<2x4x32xf32>
    %rb = onnx.Reshape(%y, %sb) : (tensor<64x8xf32>, tensor<3xi64>) -> tensor<2x32x8xf32>
    %m = onnx.MatMul(%ta, %rb) : (tensor<2x4x32xf32>, tensor<2x32x8xf32>) -> tensor<2x4x8xf32>
    fuse.yield %m : tensor<2x4x8xf32>
  }
  return %0 : tensor<2x4x8xf32>
}

// fuse.attention, with and without a mask, grouped-query heads.
// CHECK-LABEL: func @attention
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32, zero_nan_probabilities} : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x1x1x16xf32> -> tensor<2x16x4x8xf32>
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f32} : tensor<1x16x4x8xf32>, tensor<1x12x2x8xf32>, tensor<1x12x2x6xf32> -> tensor<1x16x4x6xf32>
func.func @attention(%q: tensor<2x16x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x8xf32>, %mask: tensor<2x1x1x16xf32>, %gq: tensor<1x16x4x8xf32>, %gk: tensor<1x12x2x8xf32>, %gv: tensor<1x12x2x6xf32>) -> (tensor<2x16x4x8xf32>, tensor<1x16x4x6xf32>) {
  %0 = fuse.attention %q, %k, %v, %mask {scale = 0.125 : f32, zero_nan_probabilities} : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x1x1x16xf32> -> tensor<2x16x4x8xf32>
  %1 = fuse.attention %gq, %gk, %gv {scale = 0.5 : f32} : tensor<1x16x4x8xf32>, tensor<1x12x2x8xf32>, tensor<1x12x2x6xf32> -> tensor<1x16x4x6xf32>
  return %0, %1 : tensor<2x16x4x8xf32>, tensor<1x16x4x6xf32>
}

// Heads read from windows of one fused projection [B, S, 3 H, D] (Q at
// head 0, K at 4, V at 8), and grouped-query windows (4 query heads, 2
// key/value heads) of a [B, S, 8, D] tensor, heads first.
// CHECK-LABEL: func @attention_head_windows
// CHECK: fuse.attention %[[P:.*]], %[[P]], %[[P]] {head_offsets = array<i64: 0, 4, 8>, key_value_heads = 4 : i64, scale = 1.250000e-01 : f32} : tensor<2x16x12x8xf32>, tensor<2x16x12x8xf32>, tensor<2x16x12x8xf32> -> tensor<2x16x4x8xf32>
// CHECK: fuse.attention %[[G:.*]], %[[G]], %[[G]] {head_offsets = array<i64: 0, 4, 6>, heads_first = array<i1: true, true, true, false>, key_value_heads = 2 : i64, scale = 1.250000e-01 : f32} : tensor<2x8x16x8xf32>, tensor<2x8x16x8xf32>, tensor<2x8x16x8xf32> -> tensor<2x16x4x8xf32>
func.func @attention_head_windows(%p: tensor<2x16x12x8xf32>, %g: tensor<2x8x16x8xf32>) -> (tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) {
  %0 = fuse.attention %p, %p, %p {head_offsets = array<i64: 0, 4, 8>, key_value_heads = 4 : i64, scale = 0.125 : f32} : tensor<2x16x12x8xf32>, tensor<2x16x12x8xf32>, tensor<2x16x12x8xf32> -> tensor<2x16x4x8xf32>
  %1 = fuse.attention %g, %g, %g {head_offsets = array<i64: 0, 4, 6>, heads_first = array<i1: true, true, true, false>, key_value_heads = 2 : i64, scale = 0.125 : f32} : tensor<2x8x16x8xf32>, tensor<2x8x16x8xf32>, tensor<2x8x16x8xf32> -> tensor<2x16x4x8xf32>
  return %0, %1 : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>
}

// The buffer form writes `into` and has no result.
// CHECK-LABEL: func @attention_buffers
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {scale = 1.250000e-01 : f32} : memref<2x16x4x8xf32>, memref<2x16x4x8xf32>, memref<2x16x4x8xf32>, memref<2x1x1x16xf32> into memref<2x16x4x8xf32>
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {scale = 5.000000e-01 : f32, zero_nan_probabilities} : memref<1x16x4x8xf32>, memref<1x12x2x8xf32>, memref<1x12x2x6xf32> into memref<1x16x4x6xf32>
func.func @attention_buffers(%q: memref<2x16x4x8xf32>, %k: memref<2x16x4x8xf32>, %v: memref<2x16x4x8xf32>, %mask: memref<2x1x1x16xf32>, %o: memref<2x16x4x8xf32>, %gq: memref<1x16x4x8xf32>, %gk: memref<1x12x2x8xf32>, %gv: memref<1x12x2x6xf32>, %go: memref<1x16x4x6xf32>) {
  fuse.attention %q, %k, %v, %mask into %o {scale = 0.125 : f32} : memref<2x16x4x8xf32>, memref<2x16x4x8xf32>, memref<2x16x4x8xf32>, memref<2x1x1x16xf32> into memref<2x16x4x8xf32>
  fuse.attention %gq, %gk, %gv into %go {scale = 0.5 : f32, zero_nan_probabilities} : memref<1x16x4x8xf32>, memref<1x12x2x8xf32>, memref<1x12x2x6xf32> into memref<1x16x4x6xf32>
  return
}
