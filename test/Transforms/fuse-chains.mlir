// RUN: fuse-opt %s -split-input-file -fuse-chains | FileCheck %s
// RUN: fuse-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(fuse-chains))' | FileCheck %s
// Running the pass again changes nothing: grouped ops are never regrouped.
// RUN: fuse-opt %s -split-input-file -fuse-chains -fuse-chains | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-chains=pool-epilogue=false | FileCheck %s --check-prefix=NOPOOL
// RUN: fuse-opt %s -split-input-file -fuse-chains=elementwise=false | FileCheck %s --check-prefix=NOELEM

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
