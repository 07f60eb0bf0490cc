// RUN: fuse-opt %s -split-input-file -fuse-chains | FileCheck %s
// RUN: fuse-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fuse-chains))' | FileCheck %s
// Running the pass again changes nothing: grouped ops are never regrouped.
// RUN: fuse-opt %s -split-input-file -fuse-chains -fuse-chains | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-chains=pool-epilogue=false | FileCheck %s --check-prefix=NOPOOL
// RUN: fuse-opt %s -split-input-file -fuse-chains=elementwise=false | FileCheck %s --check-prefix=NOELEM
// RUN: fuse-opt %s -split-input-file -fuse-chains=reduction=false | FileCheck %s --check-prefix=NORED
// RUN: fuse-opt %s -split-input-file -fuse-chains=max-group-ops=3 | FileCheck %s --check-prefix=CAP

// The seed case: AveragePool followed by Relu becomes one pool_epilogue group.
// CHECK-LABEL: func @avgpool_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x128x3096xf32>)
// CHECK: %[[G:.*]] = fuse.group pool_epilogue ins(%[[X]] : tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32> {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<1x1x128x3096xf32>):
// CHECK-NEXT: %[[P:.*]] = onnx.AveragePool(%[[IN]])
// CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[P]])
// CHECK-NEXT: fuse.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// NOPOOL-LABEL: func @avgpool_relu
// NOPOOL-NOT: fuse.group
// NOPOOL: return
func.func @avgpool_relu(%x: tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x16x387xf32>) -> tensor<1x1x16x387xf32>
  return %1 : tensor<1x1x16x387xf32>
}

// -----

// The epilogue takes the whole elementwise chain; the scalar Clip bounds are
// cloned into the group instead of becoming inputs.
// CHECK-LABEL: func @maxpool_chain
// CHECK: fuse.group pool_epilogue ins(%{{.*}} : tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
// CHECK-DAG: onnx.Constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: onnx.Constant dense<6.000000e+00> : tensor<f32>
// CHECK: onnx.MaxPool
// CHECK-NEXT: onnx.Neg
// CHECK-NEXT: onnx.Clip
// CHECK-NEXT: fuse.yield
// CHECK-NOT: onnx.Neg
func.func @maxpool_chain(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32>
  %0 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %1 = onnx.Neg(%0) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %2 = onnx.Clip(%1) min(%lo) max(%hi) : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x16x16xf32>
  return %2 : tensor<1x8x16x16xf32>
}

// -----

// Squeeze-and-excitation: GlobalAveragePool + Sigmoid fuse; the Mul that
// broadcasts the result back to the full feature map changes the shape and
// stays outside.
// CHECK-LABEL: func @global_pool_gate
// CHECK: %[[G:.*]] = fuse.group pool_epilogue ins(%[[X:.*]] : tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32>
// CHECK: onnx.GlobalAveragePool
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: fuse.yield
// CHECK: onnx.Mul(%[[X]], %[[G]])
func.func @global_pool_gate(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = onnx.GlobalAveragePool(%x) : (tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %2 = onnx.Mul(%x, %1) : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %2 : tensor<1x16x8x8xf32>
}

// -----

// Conv + bias Add + Relu: the bias broadcasts in from outside the group.
// CHECK-LABEL: func @conv_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16x1x1xf32>)
// CHECK: fuse.group contraction_epilogue ins(%[[X]], %[[W]], %[[B]] : tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16x1x1xf32>) -> tensor<1x16x32x32xf32> {
// CHECK: onnx.Conv
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: onnx.Relu
// CHECK-NEXT: fuse.yield
// NOELEM-LABEL: func @conv_bias_relu
// NOELEM: fuse.group contraction_epilogue
func.func @conv_bias_relu(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x32x32xf32> {
  %0 = onnx.Conv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  %1 = onnx.Add(%0, %b) : (tensor<1x16x32x32xf32>, tensor<16x1x1xf32>) -> tensor<1x16x32x32xf32>
  %2 = onnx.Relu(%1) : (tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  return %2 : tensor<1x16x32x32xf32>
}

// -----

// Gemm with its own bias, then an activation.
// CHECK-LABEL: func @gemm_relu
// CHECK: fuse.group contraction_epilogue
// CHECK: onnx.Gemm
// CHECK-NEXT: onnx.Relu
func.func @gemm_relu(%a: tensor<8x64xf32>, %b: tensor<32x64xf32>, %c: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = onnx.Gemm(%a, %b, %c) {transB = 1 : i64} : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %1 = onnx.Relu(%0) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// MatMul + Add(bias) + Relu, the form of a linear layer exported by PyTorch.
// CHECK-LABEL: func @matmul_bias_relu
// CHECK: fuse.group contraction_epilogue ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK: onnx.MatMul
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: onnx.Relu
func.func @matmul_bias_relu(%a: tensor<2x4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %1 = onnx.Add(%0, %c) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %2 = onnx.Relu(%1) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// Must not fuse: the pooled value has a second user outside the chain.
// CHECK-LABEL: func @multi_use_pool
// CHECK-NOT: fuse.group
// CHECK: %[[P:.*]] = onnx.AveragePool
// CHECK: %[[R:.*]] = onnx.Relu(%[[P]])
// CHECK: return %[[R]], %[[P]]
func.func @multi_use_pool(%x: tensor<1x1x16x16xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x16x16xf32>) -> tensor<1x1x2x2xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %1, %0 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// The chain stops at a multi-use value; that value is the group's result
// and its other user stays outside.
// CHECK-LABEL: func @conv_stops_at_multi_use
// CHECK: %[[G:.*]] = fuse.group contraction_epilogue
// CHECK: onnx.Conv
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: fuse.yield
// CHECK: %[[R:.*]] = onnx.Relu(%[[G]])
// CHECK: return %[[R]], %[[G]]
func.func @conv_stops_at_multi_use(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %r: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %0 = onnx.Conv(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = onnx.Add(%0, %r) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = onnx.Relu(%1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %2, %1 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Must not fuse: the Add broadcasts the Relu result to a larger shape, so
// they do not share an iteration space.
// CHECK-LABEL: func @broadcast_widens
// CHECK-NOT: fuse.group
// CHECK: onnx.Relu
// CHECK: onnx.Add
func.func @broadcast_widens(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = onnx.Add(%0, %y) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// A maximal elementwise chain is one group; an operand may broadcast in.
// CHECK-LABEL: func @elementwise_chain
// CHECK: %[[G:.*]] = fuse.group elementwise ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: onnx.Relu
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: onnx.Tanh
// CHECK-NEXT: fuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// NOELEM-LABEL: func @elementwise_chain
// NOELEM-NOT: fuse.group
// NOELEM: return
func.func @elementwise_chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.Relu(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Add(%0, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Sigmoid(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = onnx.Tanh(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// A diamond (one value used twice inside the group) is one group.
// CHECK-LABEL: func @elementwise_diamond
// CHECK: fuse.group elementwise ins(%{{.*}} : tensor<16xf32>)
// CHECK: onnx.Relu
// CHECK: onnx.Sigmoid
// CHECK: onnx.Tanh
// CHECK: onnx.Add
// CHECK-NEXT: fuse.yield
func.func @elementwise_diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = onnx.Tanh(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = onnx.Add(%1, %2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// An intermediate that the function returns ends the group: it becomes the
// group result, and the op after it is left alone.
// CHECK-LABEL: func @returned_intermediate
// CHECK: %[[G:.*]] = fuse.group elementwise
// CHECK: onnx.Relu
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: fuse.yield
// CHECK: %[[T:.*]] = onnx.Tanh(%[[G]])
// CHECK: return %[[G]], %[[T]]
func.func @returned_intermediate(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = onnx.Tanh(%1) : (tensor<16xf32>) -> tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// Two pools in a row give two groups; Reshape ends a chain.
// CHECK-LABEL: func @two_stages
// CHECK: %[[G0:.*]] = fuse.group pool_epilogue
// CHECK: onnx.MaxPool
// CHECK-NEXT: onnx.Relu
// CHECK: %[[G1:.*]] = fuse.group pool_epilogue ins(%[[G0]] :
// CHECK: onnx.AveragePool
// CHECK-NEXT: onnx.Exp
// CHECK: onnx.Reshape(%[[G1]]
func.func @two_stages(%x: tensor<1x1x8x8xf32>) -> tensor<4xf32> {
  %s = onnx.Constant dense<[4]> : tensor<1xi64>
  %0 = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %2 = onnx.AveragePool(%1) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %3 = onnx.Exp(%2) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %4 = onnx.Reshape(%3, %s) : (tensor<1x1x2x2xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Dynamic shapes: a unary chain provably keeps the shape and fuses; an Add
// whose other operand is dynamic might broadcast and does not.
// CHECK-LABEL: func @dynamic
// CHECK: %[[G:.*]] = fuse.group elementwise ins(%{{.*}} : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: onnx.Relu
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: fuse.yield
// CHECK: onnx.Add(%[[G]], %{{.*}})
func.func @dynamic(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = onnx.Add(%1, %y) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// A single elementwise op is not a group.
// CHECK-LABEL: func @single
// CHECK-NOT: fuse.group
func.func @single(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Reduction groups. Scaled and masked attention scores: the Div and the
// mask Add are the Softmax's prologue (the scale is cloned in, the mask
// broadcasts in as an input).
// CHECK-LABEL: func @scaled_masked_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x8xf32>, %[[M:.*]]: tensor<1x1x1x8xf32>)
// CHECK: %[[G:.*]] = fuse.group reduction ins(%[[X]], %[[M]] : tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<1x2x8x8xf32>, %[[MASK:.*]]: tensor<1x1x1x8xf32>):
// CHECK-NEXT: %[[S:.*]] = onnx.Constant dense<2.82842708> : tensor<f32>
// CHECK-NEXT: %[[D:.*]] = onnx.Div(%[[IN]], %[[S]])
// CHECK-NEXT: %[[A:.*]] = onnx.Add(%[[D]], %[[MASK]])
// CHECK-NEXT: %[[SM:.*]] = onnx.Softmax(%[[A]])
// CHECK-NEXT: fuse.yield %[[SM]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// Without reduction groups the prologue is an elementwise group of its own.
// NORED-LABEL: func @scaled_masked_softmax
// NORED: %[[G:.*]] = fuse.group elementwise
// NORED: onnx.Div
// NORED-NEXT: onnx.Add
// NORED-NEXT: fuse.yield
// NORED: onnx.Softmax(%[[G]])
func.func @scaled_masked_softmax(%x: tensor<1x2x8x8xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = onnx.Constant dense<2.828427> : tensor<f32>
  %0 = onnx.Div(%x, %s) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %1 = onnx.Add(%0, %mask) : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %2 = onnx.Softmax(%1) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %2 : tensor<1x2x8x8xf32>
}

// -----

// The IsNaN/Where guard of PyTorch's sdpa export reads the Softmax's result
// twice, which ends the reduction's epilogue chain; as an elementwise group
// that is the only user of the reduction group's result it joins it
// (phase 4): one kernel.
// CHECK-LABEL: func @sdpa_guard
// CHECK: %[[G:.*]] = fuse.group reduction
// CHECK: %[[SM:.*]] = onnx.Softmax
// CHECK-NEXT: %[[NAN:.*]] = onnx.IsNaN(%[[SM]])
// CHECK-NEXT: %[[W:.*]] = onnx.Where(%[[NAN]], %{{.*}}, %[[SM]])
// CHECK-NEXT: fuse.yield %[[W]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// Without reduction groups nothing merges: the guard stays a group of its
// own after the lone Softmax.
// NORED-LABEL: func @sdpa_guard
// NORED: onnx.Softmax
// NORED: fuse.group elementwise
func.func @sdpa_guard(%x: tensor<1x2x8x8xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = onnx.Constant dense<0.0> : tensor<f32>
  %0 = onnx.Add(%x, %mask) : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %1 = onnx.Softmax(%0) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %2 = onnx.IsNaN(%1) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xi1>
  %3 = onnx.Where(%2, %zero, %1) : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// Bias + residual + LayerNormalization.
// CHECK-LABEL: func @residual_layernorm
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16xf32>, %[[B:.*]]: tensor<16xf32>, %[[R:.*]]: tensor<1x4x16xf32>, %[[S:.*]]: tensor<16xf32>)
// CHECK: fuse.group reduction ins(%[[X]], %[[B]], %[[R]], %[[S]] : tensor<1x4x16xf32>, tensor<16xf32>, tensor<1x4x16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32> {
// CHECK-NEXT: ^bb0(%[[X1:.*]]: tensor<1x4x16xf32>, %[[B1:.*]]: tensor<16xf32>, %[[R1:.*]]: tensor<1x4x16xf32>, %[[S1:.*]]: tensor<16xf32>):
// CHECK-NEXT: %[[A0:.*]] = onnx.Add(%[[X1]], %[[B1]])
// CHECK-NEXT: %[[A1:.*]] = onnx.Add(%[[A0]], %[[R1]])
// CHECK-NEXT: %[[LN:.*]] = onnx.LayerNormalization(%[[A1]], %[[S1]], %[[B1]])
// CHECK-NEXT: fuse.yield %[[LN]]
func.func @residual_layernorm(%x: tensor<1x4x16xf32>, %b: tensor<16xf32>, %r: tensor<1x4x16xf32>, %g: tensor<16xf32>) -> tensor<1x4x16xf32> {
  %0 = onnx.Add(%x, %b) : (tensor<1x4x16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
  %1 = onnx.Add(%0, %r) : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %2 = onnx.LayerNormalization(%1, %g, %b) : (tensor<1x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
  return %2 : tensor<1x4x16xf32>
}

// -----

// ReduceMean of a square (a diamond prologue: one value used twice by one
// op); the axes constant is cloned into the group for the lowering.
// CHECK-LABEL: func @reduce_mean_prologue
// CHECK: fuse.group reduction ins(%{{.*}} : tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<2x3x4xf32>):
// CHECK-NEXT: %[[AX:.*]] = onnx.Constant dense<-1> : tensor<1xi64>
// CHECK-NEXT: %[[SQ:.*]] = onnx.Mul(%[[IN]], %[[IN]])
// CHECK-NEXT: %[[M:.*]] = onnx.ReduceMean(%[[SQ]], %[[AX]])
// CHECK-NEXT: fuse.yield %[[M]]
// CHECK-NOT: onnx.Constant
// NORED-LABEL: func @reduce_mean_prologue
// NORED-NOT: fuse.group
// NORED: onnx.ReduceMean
// NORED-NEXT: return
func.func @reduce_mean_prologue(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %a = onnx.Constant dense<[-1]> : tensor<1xi64>
  %0 = onnx.Mul(%x, %x) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = onnx.ReduceMean(%0, %a) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  return %1 : tensor<2x3x1xf32>
}

// -----

// An epilogue after the reduction: the elementwise chain over its result.
// CHECK-LABEL: func @softmax_epilogue
// CHECK: fuse.group reduction ins(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK: onnx.Softmax
// CHECK-NEXT: onnx.Log
// CHECK-NEXT: onnx.Neg
// CHECK-NEXT: fuse.yield
func.func @softmax_epilogue(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.Softmax(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Log(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Neg(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// The epilogue of a reduction with keepdims = 0 runs over the reduced shape.
// CHECK-LABEL: func @reduce_sum_epilogue
// CHECK: fuse.group reduction ins(%{{.*}} : tensor<2x3x4xf32>) -> tensor<2x3xf32> {
// CHECK: onnx.ReduceSum
// CHECK-NEXT: onnx.Sqrt
// CHECK-NEXT: fuse.yield
func.func @reduce_sum_epilogue(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %a = onnx.Constant dense<[-1]> : tensor<1xi64>
  %0 = onnx.ReduceSum(%x, %a) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %1 = onnx.Sqrt(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Attention: the Softmax group stops at the MatMuls on both sides.
// CHECK-LABEL: func @attention
// CHECK: %[[QK:.*]] = onnx.MatMul
// CHECK-NEXT: %[[G:.*]] = fuse.group reduction ins(%[[QK]] : tensor<2x8x8xf32>)
// CHECK: onnx.Div
// CHECK-NEXT: onnx.Softmax
// CHECK-NEXT: fuse.yield
// CHECK: onnx.MatMul(%[[G]], %{{.*}})
func.func @attention(%q: tensor<2x8x4xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %s = onnx.Constant dense<2.0> : tensor<f32>
  %0 = onnx.MatMul(%q, %k) : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %1 = onnx.Div(%0, %s) : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  %2 = onnx.Softmax(%1) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %3 = onnx.MatMul(%2, %v) : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %3 : tensor<2x8x4xf32>
}

// -----

// Must not swallow: the prologue value %0 is also returned, so only the
// Relu after it joins the group and %0 is an input.
// CHECK-LABEL: func @prologue_used_outside
// CHECK: %[[A:.*]] = onnx.Add
// CHECK-NEXT: %[[G:.*]] = fuse.group reduction ins(%[[A]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[IN]])
// CHECK-NEXT: onnx.Softmax(%[[R]])
// CHECK: return %[[G]], %[[A]]
func.func @prologue_used_outside(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = onnx.Add(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Relu(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Softmax(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2, %0 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Must not swallow: a producer of another shape (it would broadcast into
// the iteration space) stays outside; the broadcasting Add joins.
// CHECK-LABEL: func @prologue_other_shape
// CHECK: %[[R:.*]] = onnx.Relu(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: fuse.group reduction ins(%[[R]], %{{.*}} : tensor<8xf32>, tensor<4x8xf32>)
// CHECK: onnx.Add
// CHECK-NEXT: onnx.Softmax
func.func @prologue_other_shape(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.Relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = onnx.Add(%0, %y) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Softmax(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// Must not fuse: a reduction over a dynamic shape.
// CHECK-LABEL: func @dynamic_softmax
// CHECK-NOT: fuse.group
func.func @dynamic_softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = onnx.Relu(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = onnx.Softmax(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A reduction alone is not a group.
// CHECK-LABEL: func @lone_reduction
// CHECK-NOT: fuse.group
func.func @lone_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.Softmax(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Merges. MatMul + bias + GELU (erf form, as PyTorch exports it): the bias
// Add feeds both the Div and the first Mul, so the epilogue chain stops
// there and the GELU becomes an elementwise group; that group, the only
// user of the epilogue, joins it: one contraction_epilogue.
// CHECK-LABEL: func @matmul_bias_gelu
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NOT: onnx.Constant
// CHECK: %[[G:.*]] = fuse.group contraction_epilogue ins(%[[A]], %[[W]], %[[B]] : tensor<2x4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> {
// CHECK-NEXT: ^bb0(%[[A1:.*]]: tensor<2x4x16xf32>, %[[W1:.*]]: tensor<16x32xf32>, %[[B1:.*]]: tensor<32xf32>):
// CHECK-DAG: %[[SQRT2:.*]] = onnx.Constant dense<1.41421354> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = onnx.Constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[HALF:.*]] = onnx.Constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[MM:.*]] = onnx.MatMul(%[[A1]], %[[W1]])
// CHECK-NEXT: %[[BIAS:.*]] = onnx.Add(%[[B1]], %[[MM]])
// CHECK-NEXT: %[[D:.*]] = onnx.Div(%[[BIAS]], %[[SQRT2]])
// CHECK-NEXT: %[[E:.*]] = onnx.Erf(%[[D]])
// CHECK-NEXT: %[[P:.*]] = onnx.Add(%[[E]], %[[ONE]])
// CHECK-NEXT: %[[M0:.*]] = onnx.Mul(%[[BIAS]], %[[P]])
// CHECK-NEXT: %[[M1:.*]] = onnx.Mul(%[[M0]], %[[HALF]])
// CHECK-NEXT: fuse.yield %[[M1]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// Without elementwise groups there is nothing to merge.
// NOELEM-LABEL: func @matmul_bias_gelu
// NOELEM: fuse.group contraction_epilogue
// NOELEM: onnx.MatMul
// NOELEM-NEXT: onnx.Add
// NOELEM-NEXT: fuse.yield
// NOELEM: onnx.Div
// NOELEM-NOT: fuse.group
// NOELEM: return
func.func @matmul_bias_gelu(%a: tensor<2x4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<2x4x32xf32> {
  %sqrt2 = onnx.Constant dense<1.41421354> : tensor<f32>
  %one = onnx.Constant dense<1.0> : tensor<f32>
  %half = onnx.Constant dense<0.5> : tensor<f32>
  %0 = onnx.MatMul(%a, %w) : (tensor<2x4x16xf32>, tensor<16x32xf32>) -> tensor<2x4x32xf32>
  %1 = onnx.Add(%b, %0) : (tensor<32xf32>, tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %2 = onnx.Div(%1, %sqrt2) : (tensor<2x4x32xf32>, tensor<f32>) -> tensor<2x4x32xf32>
  %3 = onnx.Erf(%2) : (tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %4 = onnx.Add(%3, %one) : (tensor<2x4x32xf32>, tensor<f32>) -> tensor<2x4x32xf32>
  %5 = onnx.Mul(%1, %4) : (tensor<2x4x32xf32>, tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %6 = onnx.Mul(%5, %half) : (tensor<2x4x32xf32>, tensor<f32>) -> tensor<2x4x32xf32>
  return %6 : tensor<2x4x32xf32>
}

// -----

// An ungrouped contraction (its result used twice, by the SiLU's Sigmoid
// and Mul) takes the elementwise group after it.
// CHECK-LABEL: func @matmul_silu
// CHECK: fuse.group contraction_epilogue
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[M:.*]] = onnx.MatMul
// CHECK-NEXT: %[[S:.*]] = onnx.Sigmoid(%[[M]])
// CHECK-NEXT: onnx.Mul(%[[M]], %[[S]])
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.group
func.func @matmul_silu(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Mul(%0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// The same for a pooling op: one pool_epilogue.
// CHECK-LABEL: func @pool_diamond
// CHECK: fuse.group pool_epilogue
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.MaxPool
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: onnx.Tanh
// CHECK-NEXT: onnx.Mul
// CHECK-NEXT: fuse.yield
func.func @pool_diamond(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %p = onnx.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %s = onnx.Sigmoid(%p) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %t = onnx.Tanh(%p) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = onnx.Mul(%s, %t) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %m : tensor<1x4x4x4xf32>
}

// -----

// Must not merge: the contraction's result is also returned.
// CHECK-LABEL: func @no_merge_used_outside
// CHECK: %[[M:.*]] = onnx.MatMul
// CHECK-NEXT: %[[G:.*]] = fuse.group elementwise ins(%[[M]] : tensor<4x8xf32>)
// CHECK: return %[[G]], %[[M]]
func.func @no_merge_used_outside(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Mul(%0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = onnx.Neg(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3, %0 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Must not merge: the elementwise group broadcasts the contraction's
// result to a larger shape.
// CHECK-LABEL: func @no_merge_other_shape
// CHECK: %[[M:.*]] = onnx.MatMul
// CHECK-NEXT: fuse.group elementwise ins(%[[M]], %{{.*}} : tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NOT: contraction_epilogue
func.func @no_merge_other_shape(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Add(%0, %c) : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %2 = onnx.Relu(%1) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// Groups take at most max-group-ops compute ops (default 256): with 3, a
// chain of 7 elementwise ops is cut from its end into groups of 3, 3 and
// a lone op; a MatMul's group stops at 3 ops (the MatMul and 2 of its
// epilogue), and the rest of the chain is its own group, which does not
// merge back into it.
// CAP-LABEL: func @capped
// CAP: onnx.Neg
// CAP-NEXT: fuse.group elementwise
// CAP-COUNT-3: onnx.
// CAP-NEXT: fuse.yield
// CAP: fuse.group elementwise
// CAP-COUNT-3: onnx.
// CAP-NEXT: fuse.yield
// CAP: fuse.group contraction_epilogue
// CAP-NEXT: ^bb0
// CAP-NEXT: onnx.MatMul
// CAP-NEXT: onnx.Relu
// CAP-NEXT: onnx.Neg
// CAP-NEXT: fuse.yield
// CAP: fuse.group elementwise
// CAP-NEXT: ^bb0
// CAP-NEXT: onnx.Exp
// CAP-NEXT: onnx.Relu
// CAP-NEXT: onnx.Neg
// CAP-NEXT: fuse.yield
// The default keeps each chain whole.
// CHECK-LABEL: func @capped
// CHECK: fuse.group elementwise
// CHECK-COUNT-7: onnx.
// CHECK-NEXT: fuse.yield
// CHECK: fuse.group contraction_epilogue
// CHECK-COUNT-6: onnx.
// CHECK-NEXT: fuse.yield
func.func @capped(%x: tensor<16xf32>, %a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> (tensor<16xf32>, tensor<4x8xf32>) {
  %0 = onnx.Neg(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Relu(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = onnx.Exp(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = onnx.Neg(%2) : (tensor<16xf32>) -> tensor<16xf32>
  %4 = onnx.Relu(%3) : (tensor<16xf32>) -> tensor<16xf32>
  %5 = onnx.Exp(%4) : (tensor<16xf32>) -> tensor<16xf32>
  %6 = onnx.Neg(%5) : (tensor<16xf32>) -> tensor<16xf32>
  %m = onnx.MatMul(%a, %b) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %7 = onnx.Relu(%m) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = onnx.Neg(%7) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %9 = onnx.Exp(%8) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %10 = onnx.Relu(%9) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %11 = onnx.Neg(%10) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %6, %11 : tensor<16xf32>, tensor<4x8xf32>
}

// -----

// A rotary embedding (x * cos + Concat(-x[..., 8:], x[..., :8]) * sin):
// the Slices and the Concat join the elementwise group as gathers, with the
// Neg between them whose result is half the group's width; x, read by the
// Slices and a Mul, is an input; the Slice bounds are cloned in.
// CHECK-LABEL: func @rotary
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x4x16xf32>, %[[COS:.*]]: tensor<8x1x16xf32>, %[[SIN:.*]]: tensor<8x1x16xf32>)
// CHECK: %[[G:.*]] = fuse.group elementwise ins(%[[X]], %[[COS]], %[[SIN]] : tensor<2x8x4x16xf32>, tensor<8x1x16xf32>, tensor<8x1x16xf32>) -> tensor<2x8x4x16xf32>
// CHECK-DAG: onnx.Constant dense<8> : tensor<1xi64>
// CHECK: onnx.Slice
// CHECK: onnx.Slice
// CHECK-NEXT: onnx.Neg
// CHECK-NEXT: onnx.Concat
// CHECK-NEXT: onnx.Mul
// CHECK-NEXT: onnx.Mul
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: fuse.yield
// CHECK: return %[[G]]
// NOELEM-LABEL: func @rotary
// NOELEM-NOT: fuse.group
func.func @rotary(%x: tensor<2x8x4x16xf32>, %cos: tensor<8x1x16xf32>, %sin: tensor<8x1x16xf32>) -> tensor<2x8x4x16xf32> {
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  %half = onnx.Constant dense<8> : tensor<1xi64>
  %end = onnx.Constant dense<16> : tensor<1xi64>
  %last = onnx.Constant dense<-1> : tensor<1xi64>
  %x1 = onnx.Slice(%x, %zero, %half) axes(%last) : (tensor<2x8x4x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8x4x8xf32>
  %x2 = onnx.Slice(%x, %half, %end) axes(%last) : (tensor<2x8x4x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x8x4x8xf32>
  %n = onnx.Neg(%x2) : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  %rot = onnx.Concat(%n, %x1) {axis = -1 : i64} : (tensor<2x8x4x8xf32>, tensor<2x8x4x8xf32>) -> tensor<2x8x4x16xf32>
  %xc = onnx.Mul(%x, %cos) : (tensor<2x8x4x16xf32>, tensor<8x1x16xf32>) -> tensor<2x8x4x16xf32>
  %rs = onnx.Mul(%rot, %sin) : (tensor<2x8x4x16xf32>, tensor<8x1x16xf32>) -> tensor<2x8x4x16xf32>
  %y = onnx.Add(%xc, %rs) : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>) -> tensor<2x8x4x16xf32>
  return %y : tensor<2x8x4x16xf32>
}

// -----

// What stays out: a Slice with a negative step; a Concat that a MatMul
// reads (it joins only an elementwise group that reads it), and so the Neg
// that computes its operand; what computes a Slice's data (the Exp: the
// Slice reads a view of it); a Slice whose result is also returned.
// CHECK-LABEL: func @gathers_left_out
// CHECK: onnx.Slice{{.*}}steps
// CHECK-NEXT: onnx.Relu
// CHECK-NEXT: onnx.Neg
// CHECK-NEXT: onnx.Concat
// CHECK-NEXT: onnx.MatMul
// CHECK-NEXT: %[[E:.*]] = onnx.Exp
// CHECK: fuse.group elementwise ins(%[[E]] : tensor<4x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK: onnx.Slice
// CHECK-NEXT: onnx.Sigmoid
// CHECK-NEXT: fuse.yield
// CHECK: %[[S:.*]] = onnx.Slice(%arg0
// CHECK-NEXT: fuse.group elementwise ins(%[[S]] : tensor<4x2xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.Tanh
// CHECK-NEXT: onnx.Sqrt
// CHECK-NEXT: fuse.yield
func.func @gathers_left_out(%a: tensor<4x4xf32>, %w: tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<8x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %st = onnx.Constant dense<-1> : tensor<1xi64>
  %en = onnx.Constant dense<-100> : tensor<1xi64>
  %ax = onnx.Constant dense<1> : tensor<1xi64>
  %rev = onnx.Slice(%a, %st, %en) axes(%ax) steps(%st) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x4xf32>
  %r = onnx.Relu(%rev) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = onnx.Neg(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %cat = onnx.Concat(%n, %a) {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %mm = onnx.MatMul(%cat, %w) : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %e = onnx.Exp(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  %two = onnx.Constant dense<2> : tensor<1xi64>
  %s = onnx.Slice(%e, %zero, %two) axes(%ax) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xf32>
  %sg = onnx.Sigmoid(%s) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %s2 = onnx.Slice(%a, %zero, %two) axes(%ax) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xf32>
  %t = onnx.Tanh(%s2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q = onnx.Sqrt(%t) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r, %mm, %sg, %q, %s2 : tensor<4x4xf32>, tensor<8x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A Slice's data stays an input even when the Slice takes all of it (its
// producer has another user in the group, whose shape it keeps).
// CHECK-LABEL: func @whole_slice
// CHECK: %[[E:.*]] = onnx.Exp
// CHECK: fuse.group elementwise ins(%[[E]] : tensor<4x4xf32>)
// CHECK-NOT: onnx.Exp
// CHECK: fuse.yield
func.func @whole_slice(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  %four = onnx.Constant dense<4> : tensor<1xi64>
  %ax = onnx.Constant dense<1> : tensor<1xi64>
  %e = onnx.Exp(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = onnx.Slice(%e, %zero, %four) axes(%ax) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x4xf32>
  %m = onnx.Mul(%s, %e) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

// An NhwcConv's filters, a Transpose of a constant read by nothing else,
// join its group (the constant is the group's input): a cuDNN call reads
// them as stored, and no kernel moves the weights on every run.
// CHECK-LABEL: func @nhwc_conv_filters
// CHECK: %[[F:.*]] = onnx.Constant dense<5.000000e-01> : tensor<8x3x3x4xf32>
// CHECK: fuse.group contraction_epilogue ins(%[[F]], %{{.*}} : tensor<8x3x3x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[FA:.*]]: tensor<8x3x3x4xf32>, %[[XA:.*]]: tensor<1x8x8x4xf32>):
// CHECK-NEXT: %[[W:.*]] = onnx.Transpose(%[[FA]]) {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: %[[C:.*]] = onnx.NhwcConv(%[[XA]], %[[W]])
// CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[C]])
// CHECK-NEXT: fuse.yield %[[R]]
// NOELEM-LABEL: func @nhwc_conv_filters
func.func @nhwc_conv_filters(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %f = onnx.Constant dense<0.5> : tensor<8x3x3x4xf32>
  %w = onnx.Transpose(%f) {perm = array<i64: 0, 3, 1, 2>} : (tensor<8x3x3x4xf32>) -> tensor<8x4x3x3xf32>
  %0 = onnx.NhwcConv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = onnx.Relu(%0) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %1 : tensor<1x8x8x8xf32>
}

// -----

// A Transpose and a constant-mode Pad are gathers: a Transpose roots a
// group of the elementwise ops before it, a Pad one of the Transpose and
// those before that (a model input's conversion, layout change and
// channel padding before an NHWC convolution), and a Transpose joins the
// elementwise op after it.
// CHECK-LABEL: func @transpose_pad_gathers
// CHECK: %[[G:.*]] = fuse.group elementwise ins(%arg0 : tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x3x4x4xf32>):
// CHECK: %[[N:.*]] = onnx.Neg(%[[A]])
// CHECK-NEXT: %[[T:.*]] = onnx.Transpose(%[[N]]) {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: %[[P:.*]] = onnx.Pad(%[[T]], %{{.*}})
// CHECK-NEXT: fuse.yield %[[P]]
// CHECK: fuse.group elementwise ins(%arg1 : tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK: onnx.Transpose
// CHECK-NEXT: onnx.Relu
// NOELEM-LABEL: func @transpose_pad_gathers
// NOELEM-NOT: fuse.group
func.func @transpose_pad_gathers(%x: tensor<1x3x4x4xf32>, %y: tensor<2x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<3x2xf32>) {
  %pads = onnx.Constant dense<[0, 0, 0, 0, 0, 0, 0, 1]> : tensor<8xi64>
  %n = onnx.Neg(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %t = onnx.Transpose(%n) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  %p = onnx.Pad(%t, %pads) : (tensor<1x4x4x3xf32>, tensor<8xi64>) -> tensor<1x4x4x4xf32>
  %u = onnx.Transpose(%y) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = onnx.Relu(%u) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %p, %r : tensor<1x4x4x4xf32>, tensor<3x2xf32>
}

// -----

// A Pad in reflect mode is no gather of a group; a Transpose alone stays
// alone.
// CHECK-LABEL: func @pad_reflect_alone
// CHECK-NOT: fuse.group
func.func @pad_reflect_alone(%x: tensor<1x3x4x4xf32>) -> (tensor<1x3x4x6xf32>, tensor<1x4x4x3xf32>) {
  %pads = onnx.Constant dense<[0, 0, 0, 1, 0, 0, 0, 1]> : tensor<8xi64>
  %n = onnx.Neg(%x) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %p = onnx.Pad(%n, %pads) {mode = "reflect"} : (tensor<1x3x4x4xf32>, tensor<8xi64>) -> tensor<1x3x4x6xf32>
  %t = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  return %p, %t : tensor<1x3x4x6xf32>, tensor<1x4x4x3xf32>
}

// -----

// Elementwise ops whose only reader is a Transpose join its group, in
// whichever order the patterns visit them: the Relu is no root.
// CHECK-LABEL: func @chain_into_transpose
// CHECK: fuse.group elementwise ins(%arg0 : tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK: onnx.Exp
// CHECK-NEXT: onnx.Relu
// CHECK-NEXT: onnx.Transpose
// CHECK-NOT: fuse.group
func.func @chain_into_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = onnx.Exp(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = onnx.Relu(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = onnx.Transpose(%r) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// -----

// Outputs that are Slices of consecutive elements of a graph input (a
// Split's parts) read one copy of it, which the plan lets them view; a
// Slice of elements that are not consecutive, or one another op reads,
// keeps reading the input.
// CHECK-LABEL: func @split_input_outputs
// CHECK: %[[COPY:.*]] = onnx.Identity(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: onnx.Slice(%[[COPY]],
// CHECK: onnx.Slice(%[[COPY]],
// CHECK: onnx.Slice(%arg0,
// CHECK: fuse.group elementwise ins(%arg0 :
// CHECK-NOT: onnx.Identity
func.func @split_input_outputs(%x: tensor<3x4xf32>) -> (tensor<1x4xf32>, tensor<2x4xf32>, tensor<3x2xf32>, tensor<1x4xf32>) {
  %c0 = onnx.Constant dense<0> : tensor<1xi64>
  %c1 = onnx.Constant dense<1> : tensor<1xi64>
  %c2 = onnx.Constant dense<2> : tensor<1xi64>
  %c3 = onnx.Constant dense<3> : tensor<1xi64>
  %a = onnx.Slice(%x, %c0, %c1) axes(%c0) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xf32>
  %b = onnx.Slice(%x, %c1, %c3) axes(%c0) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4xf32>
  %cols = onnx.Slice(%x, %c0, %c2) axes(%c1) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %d = onnx.Slice(%x, %c2, %c3) axes(%c0) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xf32>
  %e = onnx.Exp(%d) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %a, %b, %cols, %e : tensor<1x4xf32>, tensor<2x4xf32>, tensor<3x2xf32>, tensor<1x4xf32>
}

// -----

// One such Slice alone is no reason for a copy.
// CHECK-LABEL: func @one_slice_output
// CHECK-NOT: onnx.Identity
func.func @one_slice_output(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  %c0 = onnx.Constant dense<0> : tensor<1xi64>
  %c1 = onnx.Constant dense<1> : tensor<1xi64>
  %a = onnx.Slice(%x, %c0, %c1) axes(%c0) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xf32>
  return %a : tensor<1x4xf32>
}

// -----

// Equal parts along another dim are consecutive in a transposed copy:
// [3, 2 x 2] as [3, 2, 2], its first two dims swapped, each part a Slice
// of that along its first dim (a view in the plan), reshaped back.
// CHECK-LABEL: func @split_inner_outputs
// CHECK: %[[G:.*]] = onnx.Reshape(%arg0, %{{.*}}) : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2xf32>
// CHECK: %[[T:.*]] = onnx.Transpose(%[[G]]) {perm = array<i64: 1, 0, 2>} : (tensor<3x2x2xf32>) -> tensor<2x3x2xf32>
// CHECK: %[[P0:.*]] = onnx.Slice(%[[T]], %{{.*}}, %{{.*}}) axes(%{{.*}}) : (tensor<2x3x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x3x2xf32>
// CHECK: %[[R0:.*]] = onnx.Reshape(%[[P0]], %{{.*}}) : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
// CHECK: %[[P1:.*]] = onnx.Slice(%[[T]],
// CHECK: %[[R1:.*]] = onnx.Reshape(%[[P1]],
// CHECK: return %[[R1]], %[[R0]]
func.func @split_inner_outputs(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %c0 = onnx.Constant dense<0> : tensor<1xi64>
  %c1 = onnx.Constant dense<1> : tensor<1xi64>
  %c2 = onnx.Constant dense<2> : tensor<1xi64>
  %c4 = onnx.Constant dense<4> : tensor<1xi64>
  %a = onnx.Slice(%x, %c0, %c2) axes(%c1) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %b = onnx.Slice(%x, %c2, %c4) axes(%c1) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  return %b, %a : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Parts of unequal sizes along an inner dim stay Slices of their own.
// CHECK-LABEL: func @split_inner_unequal
// CHECK-NOT: onnx.Transpose
func.func @split_inner_unequal(%x: tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x3xf32>) {
  %c0 = onnx.Constant dense<0> : tensor<1xi64>
  %c1 = onnx.Constant dense<1> : tensor<1xi64>
  %c4 = onnx.Constant dense<4> : tensor<1xi64>
  %a = onnx.Slice(%x, %c0, %c1) axes(%c1) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x1xf32>
  %b = onnx.Slice(%x, %c1, %c4) axes(%c1) : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x3xf32>
  return %a, %b : tensor<3x1xf32>, tensor<3x3xf32>
}
