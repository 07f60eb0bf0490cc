// RUN: fuse-opt %s -split-input-file -convert-onnx-to-linalg -fuse-form-kernel-loops | FileCheck %s

// The pool and its epilogue become one scf.forall over the output
// elements; the window sum is a per-element (1x1x1x1) tensor inside it.
// CHECK-LABEL: func.func @pool_epilogue
// CHECK-NOT: linalg
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (2, 3)
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 8, 8]
// CHECK: %[[ACC:.*]] = tensor.empty() : tensor<1x1x1x1xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ACC]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.divf
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: scf.forall (
// CHECK: return %[[R]]
func.func @pool_epilogue(%x: tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32> attributes {fuse.kernel} {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32>
  return %1 : tensor<1x1x2x3xf32>
}

// -----

// Conv with padding: the padded window of each output element is made
// inside the loop (scf.if for windows that are all padding).
// CHECK-LABEL: func.func @conv_relu
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (4, 8, 8)
// CHECK: scf.if
// CHECK: tensor.pad
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK-NOT: scf.forall (
func.func @conv_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Conv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = onnx.Relu(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// -----

// A diamond of elementwise ops is one loop too.
// CHECK-LABEL: func.func @diamond
// CHECK-COUNT-1: scf.forall (
// CHECK-NOT: scf.forall (
func.func @diamond(%x: tensor<64xf32>) -> tensor<64xf32> attributes {fuse.kernel} {
  %0 = onnx.Relu(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<64xf32>) -> tensor<64xf32>
  %2 = onnx.Tanh(%0) : (tensor<64xf32>) -> tensor<64xf32>
  %3 = onnx.Add(%1, %2) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %3 : tensor<64xf32>
}
