// RUN: fuse-opt %s -split-input-file -convert-onnx-to-linalg -fuse-form-kernel-loops -fuse-bufferize-kernels | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-lower-kernels-to-loops | FileCheck %s --check-prefix=LOOPS

// The result becomes an out-param written in place: no allocation of the
// output, no copy at the end.
// CHECK-LABEL: func.func @pool_epilogue
// CHECK-SAME: (%[[X:.*]]: memref<1x1x16x24xf32>, %[[OUT:.*]]: memref<1x1x2x3xf32>)
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x1x2x3xf32>
// CHECK: scf.forall
// CHECK: memref.subview %[[OUT]]
// CHECK-NOT: memref.copy
// CHECK: return
// After the whole loops pipeline: one scf.parallel, window loops, and the
// per-element values on the stack, allocated once before the loop; the
// window sum is carried by the window loops.
// LOOPS-LABEL: func.func @pool_epilogue
// LOOPS-NOT: memref.alloc(
// LOOPS: %[[ACC:.*]] = memref.alloca() {{.*}} : memref<1x1x1x1xf32>
// LOOPS: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1)
// LOOPS-NOT: memref.alloca
// LOOPS: scf.for {{.*}} iter_args
// LOOPS: scf.for {{.*}} iter_args
// LOOPS: memref.load
// LOOPS: arith.addf
// LOOPS: memref.store %{{.*}}, %[[ACC]]
// LOOPS: arith.divf
// LOOPS: arith.maximumf
// LOOPS: memref.store
// LOOPS-NOT: memref.copy
// LOOPS-NOT: linalg
func.func @pool_epilogue(%x: tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32> attributes {fuse.kernel} {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32>
  return %1 : tensor<1x1x2x3xf32>
}

// -----

// A reshape kernel copies through views, as loads and stores (a copy is
// never a runtime call).
// LOOPS-LABEL: func.func @reshape
// LOOPS-SAME: (%[[X:.*]]: memref<2x3x4xf32>, %[[OUT:.*]]: memref<6x4xf32>)
// LOOPS: memref.collapse_shape %[[X]]
// LOOPS: scf.parallel
// LOOPS: memref.load
// LOOPS: memref.store
// LOOPS-NOT: memref.copy
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> attributes {fuse.kernel} {
  %s = onnx.Constant dense<[6, 4]> : tensor<2xi64>
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// fuse.attention keeps its op through the kernel loops and becomes its
// buffer form, writing straight into the out-param; fuse-lower-attention
// then makes its loop (the LOOPS pipeline).
// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: memref<1x4x2x8xf32>, %[[M:.*]]: memref<1x1x1x4xf32>, %[[OUT:.*]]: memref<1x4x2x8xf32>)
// CHECK-NEXT: fuse.attention %[[Q]], %[[Q]], %[[Q]], %[[M]] into %[[OUT]] {scale = 5.000000e-01 : f32}
// CHECK-NEXT: return
// LOOPS-LABEL: func @attention
// LOOPS: scf.parallel
// LOOPS-NOT: fuse.attention
func.func @attention(%q: tensor<1x4x2x8xf32>, %m: tensor<1x1x1x4xf32>) -> tensor<1x4x2x8xf32> attributes {fuse.kernel} {
  %0 = fuse.attention %q, %q, %q, %m {scale = 0.5 : f32} : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x1x1x4xf32> -> tensor<1x4x2x8xf32>
  return %0 : tensor<1x4x2x8xf32>
}
