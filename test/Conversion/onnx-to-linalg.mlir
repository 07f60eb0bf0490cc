// RUN: fuse-opt %s -split-input-file -convert-onnx-to-linalg | FileCheck %s

// Elementwise: one generic per op; broadcast operands through their maps,
// splat constants as scalars in the body.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]]
// CHECK: arith.mulf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]]
// CHECK: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: arith.minimumf %{{.*}}, %[[SIX]]
// CHECK: linalg.generic
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK-NOT: onnx.
func.func @elementwise(%x: tensor<3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>) -> tensor<3x4xf32> attributes {fuse.kernel} {
  %six = onnx.Constant dense<6.0> : tensor<f32>
  %0 = onnx.Add(%x, %b) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = onnx.Mul(%0, %c) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %2 = onnx.Clip(%1) max(%six) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %3 = onnx.LeakyRelu(%2) {alpha = 0.1 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %3 : tensor<3x4xf32>
}

// -----

// AveragePool: a sum over a window operand, then a division by the tap
// count (constant here: no padding).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 8 + d4, d3 * 8 + d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @avgpool
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[WINDOW]]
// CHECK: arith.addf
// CHECK: arith.constant 6.400000e+01
// CHECK: arith.divf
func.func @avgpool(%x: tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32> attributes {fuse.kernel} {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x16x24xf32>) -> tensor<1x1x2x3xf32>
  return %0 : tensor<1x1x2x3xf32>
}

// -----

// Padding excluded from the count: the divisor is computed per position.
// CHECK-LABEL: func.func @avgpool_exclude_pad
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic
// CHECK: linalg.index 2
// CHECK: arith.ceildivsi
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @avgpool_exclude_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> attributes {fuse.kernel} {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// MaxPool pads with -inf and reduces with a NaN-propagating max.
// CHECK-LABEL: func.func @maxpool
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad
// CHECK: tensor.yield %[[NEGINF]]
// CHECK: arith.maximumf
func.func @maxpool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> attributes {fuse.kernel} {
  %0 = onnx.MaxPool(%x) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Grouped Conv: the bias is the init; the input channel of output channel
// m in group m floordiv 4 is (m floordiv 4) * 2 + c.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 4) * 2 + d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv
// CHECK: %[[PADDED:.*]] = tensor.pad
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[PADDED]], %{{.*}} : tensor<1x4x10x10xf32>, tensor<8x2x3x3xf32>) outs(%[[INIT]]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Conv(%x, %w, %b) {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Gemm with transB: B is read as (n, k); alpha scales the product.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @gemm
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.constant 5.000000e-01
func.func @gemm(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>, %c: tensor<6xf32>) -> tensor<4x6xf32> attributes {fuse.kernel} {
  %0 = onnx.Gemm(%a, %b, %c) {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// MatMul broadcasts B's missing batch dim.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> attributes {fuse.kernel} {
  %0 = onnx.MatMul(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Reshape: views, then a copy (the kernel's tileable op).
// CHECK-LABEL: func.func @reshape
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK: linalg.generic
// CHECK-NOT: onnx.
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> attributes {fuse.kernel} {
  %s = onnx.Constant dense<[6, 4]> : tensor<2xi64>
  %0 = onnx.Reshape(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @host
// CHECK: onnx.Relu
func.func @host(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
