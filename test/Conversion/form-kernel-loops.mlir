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

// Conv with padding: each output element's taps read the input at their
// clamped positions (no padded window is made per element).
// CHECK-LABEL: func.func @conv_relu
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (4, 8, 8)
// CHECK-NOT: tensor.pad
// CHECK: tensor.extract
// CHECK: arith.select
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

// -----

// A value used twice (Exp, by the Sigmoid and the Mul) is fused into its
// consumers: one generic computes the whole kernel per element, with no
// tensor of the intermediate.
// CHECK-LABEL: func.func @producer_used_twice
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: scf.forall (%[[I:.*]], %[[J:.*]]) in (4, 8)
// CHECK-NEXT: %[[IN:.*]] = tensor.extract_slice %[[X]][%[[I]], %[[J]]] [1, 1] [1, 1]
// CHECK-NEXT: %[[OUT:.*]] = tensor.extract_slice
// CHECK-NEXT: %[[G:.*]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<1x1xf32>) outs(%[[OUT]] : tensor<1x1xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.exp
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: } -> tensor<1x1xf32>
// CHECK-NEXT: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[G]]
// CHECK-NOT: linalg.generic
func.func @producer_used_twice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Exp(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = onnx.Mul(%0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A Softmax kernel (scale and mask as prologue) keeps the softmax axis
// whole: one loop iteration per row of 8 (4 x 6 rows), in which the row's
// max and sum are reduced and the row is written. The prologue is fused
// into every reduction rather than materialized.
// CHECK-LABEL: func.func @softmax_rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x6x8xf32>, %[[M:.*]]: tensor<8xf32>)
// CHECK-NOT: linalg
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (4, 6)
// CHECK: tensor.extract_slice %[[X]][%[[I]], %[[J]], 0] [1, 1, 8] [1, 1, 1] : tensor<4x6x8xf32> to tensor<1x1x8xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[M]] : tensor<1x1x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x1x1xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[M]], %{{.*}} : tensor<1x1x8xf32>, tensor<8xf32>, tensor<1x1x1xf32>) outs(%{{.*}} : tensor<1x1x1xf32>)
// CHECK: math.exp
// CHECK: %[[ROW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[M]], %[[MAX]], %[[SUM]] : tensor<1x1x8xf32>, tensor<8xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) outs(%{{.*}} : tensor<1x1x8xf32>)
// CHECK: math.exp
// CHECK-NEXT: arith.divf
// CHECK: tensor.parallel_insert_slice %[[ROW]] into %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 8] [1, 1, 1] : tensor<1x1x8xf32> into tensor<4x6x8xf32>
// CHECK-NOT: scf.forall (
// CHECK: return %[[R]]
func.func @softmax_rows(%x: tensor<4x6x8xf32>, %m: tensor<8xf32>) -> tensor<4x6x8xf32> attributes {fuse.kernel} {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %0 = onnx.Mul(%x, %s) : (tensor<4x6x8xf32>, tensor<f32>) -> tensor<4x6x8xf32>
  %1 = onnx.Add(%0, %m) : (tensor<4x6x8xf32>, tensor<8xf32>) -> tensor<4x6x8xf32>
  %2 = onnx.Softmax(%1) : (tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  return %2 : tensor<4x6x8xf32>
}

// -----

// Softmax over a middle axis: that axis is kept whole, the others tiled.
// CHECK-LABEL: func.func @softmax_middle_axis
// CHECK: scf.forall (%[[I:.*]], %[[K:.*]]) in (4, 8)
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], 0, %[[K]]] [1, 6, 1] [1, 1, 1] : tensor<1x6x1xf32> into tensor<4x6x8xf32>
func.func @softmax_middle_axis(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Softmax(%x) {axis = 1 : i64} : (tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  return %0 : tensor<4x6x8xf32>
}

// -----

// A float16 Softmax is computed in f32 and cast back: the marked generic
// has the result's shape but not its type, and its rows are still kept
// whole (one iteration per row, not per element, which a GPU grid sized
// for the rows would not cover).
// CHECK-LABEL: func.func @softmax_f16_rows
// CHECK: scf.forall (%[[I:.*]], %[[J:.*]]) in (4, 6)
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], %[[J]], 0] [1, 1, 8] [1, 1, 1] : tensor<1x1x8xf16> into tensor<4x6x8xf16>
func.func @softmax_f16_rows(%x: tensor<4x6x8xf16>) -> tensor<4x6x8xf16> attributes {fuse.kernel} {
  %0 = onnx.Softmax(%x) : (tensor<4x6x8xf16>) -> tensor<4x6x8xf16>
  return %0 : tensor<4x6x8xf16>
}

// -----

// LayerNormalization over the last two dims, with a residual Add before and
// a Relu after: one iteration per batch entry; the Relu is fused into the
// row's final generic.
// CHECK-LABEL: func.func @layernorm_rows
// CHECK: scf.forall (%[[B:.*]]) in (2)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: %[[ROW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} {{.*}} outs(%{{.*}} : tensor<1x3x8xf32>)
// CHECK: math.sqrt
// CHECK: arith.maximumf
// CHECK-NEXT: linalg.yield
// CHECK: tensor.parallel_insert_slice %[[ROW]] into %{{.*}}[%[[B]], 0, 0] [1, 3, 8] [1, 1, 1]
// CHECK-NOT: scf.forall (
func.func @layernorm_rows(%x: tensor<2x3x8xf32>, %r: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> tensor<2x3x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Add(%x, %r) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %1 = onnx.LayerNormalization(%0, %g) {axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %2 = onnx.Relu(%1) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %2 : tensor<2x3x8xf32>
}

// -----

// A ReduceMean kernel loops over its output; the squared prologue is fused
// into the reduction and the Sqrt epilogue into the division.
// CHECK-LABEL: func.func @reduce_rows
// CHECK: scf.forall (%[[I:.*]], %[[K:.*]]) in (4, 8)
// CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0, %[[K]]] [1, 6, 1] [1, 1, 1] : tensor<4x6x8xf32> to tensor<1x6x1xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NEXT: math.sqrt
func.func @reduce_rows(%x: tensor<4x6x8xf32>) -> tensor<4x1x8xf32> attributes {fuse.kernel} {
  %a = onnx.Constant dense<1> : tensor<1xi64>
  %0 = onnx.Mul(%x, %x) : (tensor<4x6x8xf32>, tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  %1 = onnx.ReduceMean(%0, %a) : (tensor<4x6x8xf32>, tensor<1xi64>) -> tensor<4x1x8xf32>
  %2 = onnx.Sqrt(%1) : (tensor<4x1x8xf32>) -> tensor<4x1x8xf32>
  return %2 : tensor<4x1x8xf32>
}
