// RUN: fuse-opt %s -split-input-file -fuse-outline-kernels | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-outline-kernels=prefix=ref_ | FileCheck %s --check-prefix=PREFIX

// A group becomes a kernel; the host keeps weights and calls, in order.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[W:.*]] = onnx.Constant dense_resource<w>
// CHECK-NEXT: %[[A:.*]] = call @k0_contraction_epilogue(%[[X]], %[[W]])
// CHECK-NEXT: %[[B:.*]] = call @k1_maxpool(%[[A]])
// CHECK-NEXT: %[[C:.*]] = call @k2_reshape(%[[B]])
// CHECK-NEXT: return %[[C]]
// The splat Clip bound is inside the kernel; the weight is a parameter.
// CHECK: func.func private @k0_contraction_epilogue(%{{.*}}: tensor<1x3x8x8xf32>, %{{.*}}: tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32> attributes {fuse.kernel}
// CHECK-NEXT: onnx.Constant dense<6.000000e+00>
// CHECK-NEXT: onnx.Conv
// CHECK-NEXT: onnx.Clip
// CHECK-NEXT: return
// CHECK: func.func private @k1_maxpool(%{{.*}}: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> attributes {fuse.kernel}
// Reshape's shape is read at compile time: it is inside its kernel too.
// CHECK: func.func private @k2_reshape(%{{.*}}: tensor<1x4x4x4xf32>) -> tensor<4x16xf32> attributes {fuse.kernel}
// CHECK-NEXT: onnx.Constant dense<[4, 16]>
// PREFIX: call @ref_k0_contraction_epilogue
// PREFIX: func.func private @ref_k0_contraction_epilogue
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<4x16xf32> {
  %w = onnx.Constant dense_resource<w> : tensor<4x3x1x1xf32>
  %six = onnx.Constant dense<6.0> : tensor<f32>
  %s = onnx.Constant dense<[4, 16]> : tensor<2xi64>
  %0 = fuse.group contraction_epilogue ins(%x, %w, %six : tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<f32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x1x1xf32>, %c: tensor<f32>):
    %1 = onnx.Conv(%a, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
    %2 = onnx.Clip(%1) max(%c) : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    fuse.yield %2 : tensor<1x4x8x8xf32>
  }
  %3 = onnx.MaxPool(%0) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %4 = onnx.Reshape(%3, %s) : (tensor<1x4x4x4xf32>, tensor<2xi64>) -> tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}
{-#
  dialect_resources: { builtin: { w: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F" } }
#-}

// -----

// Returning an input or a weight needs no kernel.
// CHECK-LABEL: func.func @passthrough
// CHECK-NOT: call
// CHECK: return %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<2xf32>
func.func @passthrough(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %x, %c : tensor<4xf32>, tensor<2xf32>
}

// -----

// Small integer constants (axes, gather indices, slice bounds) are read at
// compile time: they are cloned into the kernels, never parameters. A
// reduction group is a `reduction` kernel.
// CHECK-LABEL: func.func @shape_constants
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %{{.*}}: tensor<5xi64>, %[[T:.*]]: tensor<10x4xf32>)
// CHECK-NEXT: %[[R:.*]] = call @k0_reduction(%[[X]]) : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT: %[[G:.*]] = call @k1_gather(%[[T]]) : (tensor<10x4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT: return %[[R]], %[[G]]
// CHECK: func.func private @k0_reduction(%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> attributes {fuse.kernel}
// CHECK-NEXT: %[[AX:.*]] = onnx.Constant dense<-1> : tensor<1xi64>
// CHECK-NEXT: %[[SQ:.*]] = onnx.Mul(%[[A]], %[[A]])
// CHECK-NEXT: onnx.ReduceMean(%[[SQ]], %[[AX]])
// CHECK: func.func private @k1_gather(%[[D:.*]]: tensor<10x4xf32>) -> tensor<5x4xf32> attributes {fuse.kernel}
// CHECK-NEXT: %[[I:.*]] = onnx.Constant dense<[0, -1, 3, 2, 9]> : tensor<5xi64>
// CHECK-NEXT: onnx.Gather(%[[D]], %[[I]])
func.func @shape_constants(%x: tensor<2x3x4xf32>, %ids: tensor<5xi64>, %t: tensor<10x4xf32>) -> (tensor<2x3x1xf32>, tensor<5x4xf32>) {
  %a = onnx.Constant dense<[-1]> : tensor<1xi64>
  %0 = fuse.group reduction ins(%x : tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  ^bb0(%in: tensor<2x3x4xf32>):
    %axes = onnx.Constant dense<-1> : tensor<1xi64>
    %sq = onnx.Mul(%in, %in) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %m = onnx.ReduceMean(%sq, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
    fuse.yield %m : tensor<2x3x1xf32>
  }
  %i = onnx.Constant dense<[0, -1, 3, 2, 9]> : tensor<5xi64>
  %1 = onnx.Gather(%t, %i) : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
  return %0, %1 : tensor<2x3x1xf32>, tensor<5x4xf32>
}

// -----

// The groups of a fuse.alternatives' candidates become kernels in place:
// each candidate keeps its calls (printed in full: func.call); a splat it
// held goes into its kernel.
// CHECK-LABEL: func.func @alternatives
// CHECK: %[[ALT:.*]] = fuse.alternatives selected = 0 key = "k" -> tensor<4x8xf32> {
// CHECK-NEXT: %[[P:.*]] = func.call @k0_contraction_epilogue(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[Q:.*]] = func.call @k1_elementwise(%[[P]])
// CHECK-NEXT: fuse.yield %[[Q]]
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[R:.*]] = func.call @k2_contraction_epilogue(%{{.*}}, %{{.*}})
// CHECK-NEXT: fuse.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.*]] = call @k3_relu(%[[ALT]])
// CHECK-NEXT: return %[[S]]
// CHECK: func.func private @k1_elementwise
// CHECK-NEXT: onnx.Constant dense<2.000000e+00>
func.func @alternatives(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.alternatives selected = 0 key = "k" -> tensor<4x8xf32> {
    %two = onnx.Constant dense<2.0> : tensor<f32>
    %x = fuse.group contraction_epilogue ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) {strategy = #fuse.cublaslt<batch = 1, m = 4, n = 8, k = 16, epilogue = none, residual = false>} -> tensor<4x8xf32> {
    ^bb0(%p: tensor<4x16xf32>, %q: tensor<16x8xf32>):
      %m = onnx.MatMul(%p, %q) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      fuse.yield %m : tensor<4x8xf32>
    }
    %y = fuse.group elementwise ins(%x, %two : tensor<4x8xf32>, tensor<f32>) {strategy = #fuse.kernel<flat, grid = 1, block = 32>} -> tensor<4x8xf32> {
    ^bb0(%p: tensor<4x8xf32>, %t: tensor<f32>):
      %m = onnx.Mul(%p, %t) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
      fuse.yield %m : tensor<4x8xf32>
    }
    fuse.yield %y : tensor<4x8xf32>
  }, {
    %z = fuse.group contraction_epilogue ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) {strategy = #fuse.kernel<flat, grid = 1, block = 32>} -> tensor<4x8xf32> {
    ^bb0(%p: tensor<4x16xf32>, %q: tensor<16x8xf32>):
      %m = onnx.MatMul(%p, %q) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      fuse.yield %m : tensor<4x8xf32>
    }
    fuse.yield %z : tensor<4x8xf32>
  }
  %1 = onnx.Relu(%0) {fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
