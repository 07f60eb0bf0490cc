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

// Activations with attributes read them into the body; narrow floats are
// computed in f32 and stored back; IsInf compares with the infinities it
// is asked about; Sign of integers selects -1, 0 or 1.
// CHECK-LABEL: func.func @activations
// CHECK: linalg.generic
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %{{.*}}, %cst{{.*}} : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.select %[[POS]]
// CHECK: arith.select %[[NEG]]
// CHECK: linalg.generic
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: math.expm1
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: arith.cmpf oeq, %{{.*}}, %[[INF]] : f32
// CHECK-NOT: 0xFF800000
// CHECK: linalg.yield %{{.*}} : i1
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi slt
// CHECK-NOT: onnx.
func.func @activations(%x: tensor<4xf32>, %h: tensor<4xbf16>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xi1>, tensor<4xi32>) attributes {fuse.kernel} {
  %0 = onnx.Shrink(%x) {bias = 1.0 : f32, lambd = 1.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = onnx.Celu(%h) {alpha = 2.0 : f32} : (tensor<4xbf16>) -> tensor<4xbf16>
  %2 = onnx.IsInf(%x) {detect_negative = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
  %3 = onnx.Sign(%i) : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xbf16>, tensor<4xi1>, tensor<4xi32>
}

// -----

// Sum-based reductions map each element before adding (L2: x * x) and the
// sum after (sqrt); ReduceProd multiplies from 1.
// CHECK-LABEL: func.func @reduce_l2_prod
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[SQ:.*]] = arith.mulf %[[IN:.*]], %[[IN]] : f32
// CHECK: arith.addf %{{.*}}, %[[SQ]] : f32
// CHECK: linalg.generic
// CHECK: math.sqrt
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: onnx.Reduce
func.func @reduce_l2_prod(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {fuse.kernel} {
  %axes = onnx.Constant dense<1> : tensor<1xi64>
  %0 = onnx.ReduceL2(%x, %axes) {keepdims = 0 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  %1 = onnx.ReduceProd(%x, %axes) {keepdims = 0 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
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
// A padded window reads the input in the body, at the tap's position
// clamped into the image, and counts the identity (0) outside it: no
// padded operand (it would be made per output element).
// CHECK-LABEL: func.func @avgpool_exclude_pad
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract
// CHECK: arith.select
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

// MaxPool counts -inf outside the image and reduces with a NaN-propagating
// max.
// CHECK-LABEL: func.func @maxpool
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.extract
// CHECK: %[[TAP:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : f32
// CHECK: arith.maximumf %[[TAP]]
func.func @maxpool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> attributes {fuse.kernel} {
  %0 = onnx.MaxPool(%x) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Grouped Conv: the bias is the init; the input channel of output channel
// m in group m floordiv 4 is (m floordiv 4) * 2 + c. Padded, it reads its
// input in the body at the clamped tap position, zero outside the image.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[WT:.*]]: tensor<8x2x3x3xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}]
// CHECK: linalg.generic {indexing_maps = [#[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[WT]] : tensor<8x2x3x3xf32>) outs(%[[INIT]]
// CHECK: %[[M:.*]] = linalg.index 1 : index
// CHECK: %[[G:.*]] = arith.divui %[[M]], %c4 : index
// CHECK: arith.muli %[[G]], %c2 : index
// CHECK: %[[TAP:.*]] = tensor.extract %[[X]]
// CHECK: arith.select %{{.*}}, %[[TAP]], %{{.*}} : f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Conv(%x, %w, %b) {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Without padding the input is read through its indexing map.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-LABEL: func.func @conv_unpadded
// CHECK: linalg.generic {indexing_maps = [#[[X]], #{{.*}}, #{{.*}}]
func.func @conv_unpadded(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x8x4x4xf32> attributes {fuse.kernel} {
  %0 = onnx.Conv(%x, %w) {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// NhwcConv: the same generic with the channels last in the input's and the
// result's maps (the output channel m is d1 of the loop, its input channel
// d4), the bias broadcast along the last dim; with pads, the input read in
// the body with its channel as the last coordinate.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @nhwc_conv
// CHECK: linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x8x8x4xf32>, tensor<8x4x2x2xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK-LABEL: func.func @nhwc_conv_padded
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}} : tensor<8x4x3x3xf32>)
// CHECK: %[[C:.*]] = linalg.index 4 : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[C]]] : tensor<1x8x8x4xf32>
func.func @nhwc_conv(%x: tensor<1x8x8x4xf32>, %w: tensor<8x4x2x2xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> attributes {fuse.kernel} {
  %0 = onnx.NhwcConv(%x, %w, %b) {strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<8x4x2x2xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}
func.func @nhwc_conv_padded(%x: tensor<1x8x8x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> attributes {fuse.kernel} {
  %0 = onnx.NhwcConv(%x, %w) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
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

// -----

// Softmax along axis 1: a max reduction and a sum of exp(x - max) over the
// axis (kept as size 1), then one generic over the input that reads both
// row statistics and is marked with the row dim.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[ACC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROWACC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x1x8xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x8xf32>) outs(%[[MAXINIT]] : tensor<2x1x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[ROWACC]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<2x3x8xf32>, tensor<2x1x8xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]], #[[ROW]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x3x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>) outs(%{{.*}} : tensor<2x3x8xf32>) attrs = {fuse.row_dims = array<i64: 1>}
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.divf
// CHECK: return %[[Y]]
func.func @softmax(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Softmax(%x) {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// LayerNormalization over the last dim: the sum, then the sum of squared
// deviations from the mean (two passes), then the normalized, scaled and
// shifted value; Scale and B are read along the normalized dim.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[VEC:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x8xf32>) outs(%{{.*}} : tensor<2x3x1xf32>)
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SUM]] : tensor<2x3x8xf32>, tensor<2x3x1xf32>) outs(%{{.*}} : tensor<2x3x1xf32>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]], #[[ROW]], #[[VEC]], #[[VEC]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[SUM]], %[[SQ]], %[[G]], %[[B]] : {{.*}}) outs(%{{.*}} : tensor<2x3x8xf32>) attrs = {fuse.row_dims = array<i64: 2>}
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: math.sqrt
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
func.func @layernorm(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> attributes {fuse.kernel} {
  %0 = onnx.LayerNormalization(%x, %g, %b) {epsilon = 1.0e-3 : f32} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// Over the last two dims (24 elements a row) without B: no final add.
// CHECK-LABEL: func.func @layernorm_two_dims
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<2x1x1xf32>)
// CHECK: arith.constant 2.400000e+01 : f32
// CHECK: attrs = {fuse.row_dims = array<i64: 1, 2>}
// CHECK: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @layernorm_two_dims(%x: tensor<2x3x8xf32>, %g: tensor<3x8xf32>) -> tensor<2x3x8xf32> attributes {fuse.kernel} {
  %0 = onnx.LayerNormalization(%x, %g) {axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// ReduceMean: a sum whose loops are the output dims then the reduced dim,
// then a division by the count. keepdims = 1 keeps the dim as size 1 in the
// output; keepdims = 0 drops it.
// CHECK-DAG: #[[KIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[KOUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[DIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[DOUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_mean
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x1x4xf32>)
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[KIN]], #[[KOUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x1x4xf32>)
// CHECK: arith.addf
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x1x4xf32>)
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[DIN]], #[[DOUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK-NOT: onnx.
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>) attributes {fuse.kernel} {
  %a = onnx.Constant dense<1> : tensor<1xi64>
  %0 = onnx.ReduceMean(%x, %a) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %1 = onnx.ReduceMean(%x, %a) {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x1x4xf32>, tensor<2x4xf32>
}

// -----

// ReduceMax over all dims starts from -inf; ReduceMin of integers from the
// largest value; ReduceMax of bool is an `or` from false. With no axes and
// noop_with_empty_axes the input is copied.
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @reduce_max_min
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ALL]]], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK: arith.maximumf
// CHECK: %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[IMAX]] : i32) outs(%{{.*}} : tensor<1x3xi32>)
// CHECK: arith.minsi
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1) outs(%{{.*}} : tensor<2xi1>)
// CHECK: arith.ori
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @reduce_max_min(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>, %b: tensor<2x3xi1>) -> (tensor<f32>, tensor<1x3xi32>, tensor<2xi1>, tensor<2x3x4xf32>) attributes {fuse.kernel} {
  %0 = onnx.ReduceMax(%x) {keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<f32>
  %a = onnx.Constant dense<0> : tensor<1xi64>
  %1 = onnx.ReduceMin(%i, %a) : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<1x3xi32>
  %c = onnx.Constant dense<-1> : tensor<1xi64>
  %2 = onnx.ReduceMax(%b, %c) {keepdims = 0 : i64} : (tensor<2x3xi1>, tensor<1xi64>) -> tensor<2xi1>
  %3 = onnx.ReduceSum(%x) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<1x3xi32>, tensor<2xi1>, tensor<2x3x4xf32>
}

// -----

// Transpose is a copy that reads the input through the permutation:
// output dim i walks input dim perm[i].
// CHECK-DAG: #[[PERM:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.generic {indexing_maps = [#[[PERM]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>)
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> attributes {fuse.kernel} {
  %0 = onnx.Transpose(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// Slice with positive steps is a strided extract_slice (rows 2, 4, 6 and
// columns 1, 4), then a copy.
// CHECK-LABEL: func.func @slice
// CHECK: %[[V:.*]] = tensor.extract_slice %{{.*}}[2, 1] [3, 2] [2, 3] : tensor<10x6xf32> to tensor<3x2xf32>
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<3x2xf32>) outs(%{{.*}} : tensor<3x2xf32>)
func.func @slice(%x: tensor<10x6xf32>) -> tensor<3x2xf32> attributes {fuse.kernel} {
  %s = onnx.Constant dense<[2, 1]> : tensor<2xi64>
  %e = onnx.Constant dense<[8, 5]> : tensor<2xi64>
  %st = onnx.Constant dense<[2, 3]> : tensor<2xi64>
  %0 = onnx.Slice(%x, %s, %e) steps(%st) : (tensor<10x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A negative step reads backwards through the copy's map (rows 9, 7, ...,
// 1: 9 - 2 * i); the other dim is still sliced by the view.
// CHECK-DAG: #[[BACK:.*]] = affine_map<(d0, d1) -> (d0 * -2 + 9, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: %[[V:.*]] = tensor.extract_slice %{{.*}}[0, 1] [10, 4] [1, 1] : tensor<10x6xf32> to tensor<10x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BACK]], #[[ID]]], {{.*}} ins(%[[V]] : tensor<10x4xf32>) outs(%{{.*}} : tensor<5x4xf32>)
func.func @slice_negative_step(%x: tensor<10x6xf32>) -> tensor<5x4xf32> attributes {fuse.kernel} {
  %s = onnx.Constant dense<[-1, 1]> : tensor<2xi64>
  %e = onnx.Constant dense<[-1000, 5]> : tensor<2xi64>
  %st = onnx.Constant dense<[-2, 1]> : tensor<2xi64>
  %0 = onnx.Slice(%x, %s, %e) steps(%st) : (tensor<10x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Gather: a generic over the output reading the index at the gathered
// dims; a negative index counts from the end and the index is clamped to
// [0, size - 1] before the extract.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<5xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<5xi32>) outs(%{{.*}} : tensor<2x5x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[K]], %[[ZERO]] : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[WRAP:.*]] = arith.addi %[[K]], %[[N]] : index
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[K]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.maxsi %[[SEL]], %[[ZERO]] : index
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[J:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT: %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[D2:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[X]][%[[D0]], %[[J]], %[[D2]]] : tensor<2x3x4xf32>
// CHECK-NEXT: linalg.yield %[[E]] : f32
func.func @gather(%x: tensor<2x3x4xf32>, %ids: tensor<5xi32>) -> tensor<2x5x4xf32> attributes {fuse.kernel} {
  %0 = onnx.Gather(%x, %ids) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi32>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

// Concat: per output element, the input whose range along the axis holds it
// (columns [0, 3) from A, [3, 8) from B), each read at a clamped index.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[BCOL:.*]] = arith.subi %[[COL]], %[[C3]] : index
// CHECK: %[[FROMB:.*]] = tensor.extract %[[B]][%{{.*}}, %{{.*}}] : tensor<2x5xf32>
// CHECK: %[[FROMA:.*]] = tensor.extract %[[A]][%{{.*}}, %{{.*}}] : tensor<2x3xf32>
// CHECK: %[[END:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[INA:.*]] = arith.cmpi slt, %[[COL]], %[[END]] : index
// CHECK-NEXT: %[[R:.*]] = arith.select %[[INA]], %[[FROMA]], %[[FROMB]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> attributes {fuse.kernel} {
  %0 = onnx.Concat(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Squeeze is a reshape (and a copy); Expand a broadcast copy.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @squeeze_expand
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}], {{.*}} ins(%[[S]] : tensor<3xf32>) outs(%{{.*}} : tensor<4x3xf32>)
func.func @squeeze_expand(%x: tensor<1x3x1xf32>) -> tensor<4x3xf32> attributes {fuse.kernel} {
  %a = onnx.Constant dense<[0, 2]> : tensor<2xi64>
  %0 = onnx.Squeeze(%x, %a) : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<3xf32>
  %s = onnx.Constant dense<[4, 3]> : tensor<2xi64>
  %1 = onnx.Expand(%0, %s) : (tensor<3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Where is a select; Cast truncates floats toward zero (fptosi) and
// saturates (only values in range reach the fptosi, NaN gives 0), reads
// bool as unsigned and gives bool as `!= 0`.
// CHECK-LABEL: func.func @where_cast
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK: ^bb0(%[[V:.*]]: f32, %{{.*}}: i64):
// CHECK: %[[HIGH:.*]] = arith.cmpf oge, %[[V]], %{{.*}} : f32
// CHECK: %[[LOW:.*]] = arith.cmpf olt, %[[V]], %{{.*}} : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK: %[[OUT1:.*]] = arith.ori %[[HIGH]], %[[LOW]] : i1
// CHECK: %[[OUT:.*]] = arith.ori %[[OUT1]], %[[NAN]] : i1
// CHECK: %[[IN:.*]] = arith.select %[[OUT]], %{{.*}}, %[[V]] : f32
// CHECK: %[[I:.*]] = arith.fptosi %[[IN]] : f32 to i64
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK: %[[I1:.*]] = arith.select %[[HIGH]], %[[MAX]], %[[I]] : i64
// CHECK: arith.select %[[LOW]], %[[MIN]], %[[I1]] : i64
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: arith.cmpi ne, %{{.*}}, %[[Z]] : i64
func.func @where_cast(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xi1>) attributes {fuse.kernel} {
  %0 = onnx.Where(%c, %x, %y) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Cast(%0) {to = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %2 = onnx.Cast(%c) {to = 1 : i64} : (tensor<2x3xi1>) -> tensor<2x3xf32>
  %3 = onnx.Cast(%1) {to = 9 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi1>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// Pow by a constant 2 is x * x, by 0.5 a square root, by 3 two products;
// any other exponent is math.powf.
// CHECK-LABEL: func.func @pow
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[SQ]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[RT:.*]] = math.sqrt %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[RT]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C2:.*]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK-NEXT: %[[C3:.*]] = arith.mulf %[[C2]], %[[C]] : f32
// CHECK-NEXT: linalg.yield %[[C3]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[D:.*]]: f32, %[[E:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: math.powf %[[D]], %[[E]] : f32
// CHECK-NOT: math.powf
func.func @pow(%x: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {fuse.kernel} {
  %two = onnx.Constant dense<2.0> : tensor<f32>
  %half = onnx.Constant dense<0.5> : tensor<f32>
  %three = onnx.Constant dense<3> : tensor<i64>
  %0 = onnx.Pow(%x, %two) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = onnx.Pow(%x, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = onnx.Pow(%x, %three) : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %3 = onnx.Pow(%x, %e) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer powers go through f64 and are rounded back.
// CHECK-LABEL: func.func @pow_int
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: math.powf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: math.roundeven
// CHECK: arith.fptosi %{{.*}} : f64 to i64
func.func @pow_int(%x: tensor<4xi64>) -> tensor<4xi64> attributes {fuse.kernel} {
  %e = onnx.Constant dense<4> : tensor<i64>
  %0 = onnx.Pow(%x, %e) : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// GELU (erf and tanh forms), HardSwish, Not, comparisons of bools (as
// unsigned) and integer Mean.
// CHECK-LABEL: func.func @activations
// CHECK: arith.constant 0.707106769 : f32
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: math.erf
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
// CHECK: arith.constant 0.166666672 : f32
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: %[[T:.*]] = arith.constant true
// CHECK-NEXT: arith.xori %{{.*}}, %[[T]] : i1
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.addi
// CHECK-NEXT: arith.addi
// CHECK-NEXT: %[[N:.*]] = arith.constant 3 : i32
// CHECK-NEXT: arith.divsi %{{.*}}, %[[N]] : i32
func.func @activations(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>) attributes {fuse.kernel} {
  %0 = onnx.Gelu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = onnx.Gelu(%0) {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = onnx.HardSwish(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = onnx.Not(%b) : (tensor<4xi1>) -> tensor<4xi1>
  %4 = onnx.Less(%b, %3) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = onnx.Mean(%i, %i, %i) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %2, %4, %3, %5 : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>
}

// -----

// Shape, ConstantOfShape and Range left in a kernel are constants.
// CHECK-LABEL: func.func @shape_constants
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-DAG: %[[F:.*]] = arith.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<[0, 2, 4, 6]> : tensor<4xi64>
// CHECK: return %[[S]], %[[F]], %[[R]]
func.func @shape_constants(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2x3xf32>, tensor<4xi64>) attributes {fuse.kernel} {
  %0 = onnx.Shape(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
  %1 = onnx.ConstantOfShape(%0) {value = dense<1.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  %s = onnx.Constant dense<0> : tensor<i64>
  %l = onnx.Constant dense<8> : tensor<i64>
  %d = onnx.Constant dense<2> : tensor<i64>
  %2 = onnx.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<2xi64>, tensor<2x3xf32>, tensor<4xi64>
}

// -----

// fuse.im2col: one generic over [N, rows, columns] without inputs. Row
// (c * 3 + kh) * 3 + kw, column oh * 2 + ow; the channel clamps (rows past
// the taps read channel 1, then select 1 for row 18, 0 after it); the
// input is read at the clamped tap position, zero outside the image.
// CHECK-LABEL: func.func @im2col
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[C:.*]] = arith.divui %[[ROW]], %c9
// CHECK: %[[CC:.*]] = arith.minui %[[C]], %c1
// CHECK: arith.divui %[[COL]], %c2
// CHECK: %[[X:.*]] = tensor.extract %{{.*}}[%[[N]], %[[CC]], %{{.*}}, %{{.*}}] : tensor<1x2x5x5xf32>
// CHECK: %[[TAP:.*]] = arith.select %{{.*}}, %[[X]], %[[ZERO:.*]] : f32
// CHECK: %[[TAPS:.*]] = arith.constant 18 : index
// CHECK: %[[IS_TAP:.*]] = arith.cmpi ult, %[[ROW]], %[[TAPS]]
// CHECK: %[[IS_ONES:.*]] = arith.cmpi eq, %[[ROW]], %[[TAPS]]
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[OTHER:.*]] = arith.select %[[IS_ONES]], %[[ONE]], %[[ZERO]]
// CHECK: %[[V:.*]] = arith.select %[[IS_TAP]], %[[TAP]], %[[OTHER]]
// CHECK: linalg.yield %[[V]]
func.func @im2col(%x: tensor<1x2x5x5xf32>) -> tensor<1x20x4xf32> attributes {fuse.kernel} {
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x20x4xf32>
  return %0 : tensor<1x20x4xf32>
}

// -----

// Pad reads the input at the output position less the begin pad: reflect
// mirrors it into the dim, wrap takes it modulo the dim (shifted by whole
// periods to stay non-negative), constant mode clamps it and selects the
// fill value outside; a negative pad (a crop) offsets the read.
// CHECK-LABEL: func.func @pad_modes
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<5x6xf32>)
// CHECK: %[[J:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[J]], %c0
// CHECK: %[[ABS:.*]] = arith.select %[[NEG]]
// CHECK: %[[PAST:.*]] = arith.cmpi sge, %[[ABS]], %c3
// CHECK: arith.select %[[PAST]]
// CHECK: tensor.extract %{{.*}} : tensor<3x4xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x9xf32>)
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c5 : index
// CHECK: %[[S:.*]] = arith.addi %[[W]], %c8 : index
// CHECK: arith.remsi %[[S]], %c4 : index
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6xf32>)
// CHECK: %[[FILL:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<3x4xf32>
// CHECK: arith.select %[[IN]], %[[V]], %[[FILL]] : f32
func.func @pad_modes(%x: tensor<3x4xf32>) -> (tensor<5x6xf32>, tensor<3x9xf32>, tensor<2x6xf32>) attributes {fuse.kernel} {
  %p = onnx.Constant dense<[1, 1, 1, 1]> : tensor<4xi64>
  %0 = onnx.Pad(%x, %p) {mode = "reflect"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<5x6xf32>
  %w = onnx.Constant dense<[0, 5, 0, 0]> : tensor<4xi64>
  %1 = onnx.Pad(%x, %w) {mode = "wrap"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x9xf32>
  %c = onnx.Constant dense<[-1, 2, 0, 0]> : tensor<4xi64>
  %v = onnx.Constant dense<2.5> : tensor<f32>
  %2 = onnx.Pad(%x, %c) constant_value(%v) : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<2x6xf32>
  return %0, %1, %2 : tensor<5x6xf32>, tensor<3x9xf32>, tensor<2x6xf32>
}

// -----

// CumSum: the whole axis is a reduction loop, each element adding the
// inputs on its side (exclusive: strictly before it). ArgMax: the
// accumulator is an index; the body reads that element back and takes
// the new one when it is strictly greater (the first maximum wins).
// CHECK-DAG: #[[SCAN_IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[SCAN_OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @scans
// CHECK: linalg.generic {indexing_maps = [#[[SCAN_IN]], #[[SCAN_OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: arith.cmpi slt, %[[J]], %[[I]] : index
// CHECK: linalg.fill ins(%c0_i64 : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<2xi64>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[BEST:.*]]: i64):
// CHECK: %[[AT:.*]] = arith.index_cast %[[BEST]] : i64 to index
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[AT]]] : tensor<2x5xf32>
// CHECK: arith.cmpf ogt, %[[X]], %[[V]] : f32
func.func @scans(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2xi64>) attributes {fuse.kernel} {
  %a = onnx.Constant dense<1> : tensor<i32>
  %0 = onnx.CumSum(%x, %a) {exclusive = 1 : i64} : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x5xf32>
  %1 = onnx.ArgMax(%x) {axis = 1 : i64, keepdims = 0 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %0, %1 : tensor<2x5xf32>, tensor<2xi64>
}

// -----

// GroupNormalization: [N, groups] sums over (channel in group, spatial),
// x read at `g * C/G + c` (a window-shaped operand bounds the channel
// loop), then the normalized value reads its group's statistics through
// `c floordiv C/G`; a sample is a row. InstanceNormalization is one
// channel per group: no channel loop, a channel is a row.
// CHECK-DAG: #[[GX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3)>
// CHECK-DAG: #[[GWIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[GSTAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[GROUP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 2)>
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[GX]], #[[GWIN]], #[[GSTAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[GX]], #[[GSTAT]], #[[GWIN]], #[[GSTAT]]]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[GROUP]], #[[GROUP]], {{.*}} ins(%{{.*}}, %[[SUM]], %[[SQ]], {{.*}} attrs = {fuse.row_dims = array<i64: 1, 2>}
// CHECK: arith.constant 6.000000e+00 : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: attrs = {fuse.row_dims = array<i64: 2>}
func.func @group_norm(%x: tensor<2x4x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) attributes {fuse.kernel} {
  %0 = onnx.GroupNormalization(%x, %s, %b) {num_groups = 2 : i64} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  %1 = onnx.InstanceNormalization(%x, %s, %b) : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  return %0, %1 : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}

// -----

// LRN: the sum of squares over a window of `size` channels (a
// window-shaped operand), the channel clamped and 0 outside, then
// x / (bias + alpha / size * sum) ^ beta.
// CHECK-LABEL: func.func @lrn
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<3xf32>)
// CHECK: %[[C:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: arith.cmpi sle, %[[C]], %c3 : index
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.constant 3.33333337E-5 : f32
// CHECK: math.powf
// CHECK: arith.divf
func.func @lrn(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> attributes {fuse.kernel} {
  %0 = onnx.LRN(%x) {size = 3 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// A contraction of f16 (or bf16) accumulates in f32: its operands are cast
// up, the product summed in f32 and the result cast back.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<2x4xf16>, %b: tensor<4x3xf16>) -> tensor<2x3xf16> attributes {fuse.kernel} {
  %0 = onnx.MatMul(%a, %b) : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// Unsigned integers: the kernel's types become signless, and the ops whose
// result depends on the signedness take the unsigned arith ops (a zero
// divisor gives 0).
// CHECK-LABEL: func @unsigned_ops
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi1>)
// CHECK: arith.divui
// CHECK: arith.cmpi ult
func.func @unsigned_ops(%x: tensor<4xui8>, %y: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xi1>) attributes {fuse.kernel} {
  %0 = onnx.Div(%x, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = onnx.Less(%0, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0, %1 : tensor<4xui8>, tensor<4xi1>
}

// -----

// Casts from and to unsigned integers: uitofp, fptoui, extui (signed
// sources widen with extsi).
// CHECK-LABEL: func @unsigned_casts
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i16
func.func @unsigned_casts(%x: tensor<4xui8>, %f: tensor<4xf32>, %s: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xui8>, tensor<4xi32>, tensor<4xui16>) attributes {fuse.kernel} {
  %0 = onnx.Cast(%x) {to = 1 : i64} : (tensor<4xui8>) -> tensor<4xf32>
  %1 = onnx.Cast(%f) {to = 2 : i64} : (tensor<4xf32>) -> tensor<4xui8>
  %2 = onnx.Cast(%x) {to = 6 : i64} : (tensor<4xui8>) -> tensor<4xi32>
  %3 = onnx.Cast(%s) {to = 4 : i64} : (tensor<4xi8>) -> tensor<4xui16>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xui8>, tensor<4xi32>, tensor<4xui16>
}

// -----

// BitShift: amounts out of [0, width) (negative ones compare as huge,
// unsigned) shift every bit out: 0, or the sign for a signed right shift.
// CHECK-LABEL: func @bitshift
// CHECK: %[[FAR:.*]] = arith.cmpi uge, %[[A:.*]], %{{.*}} : i32
// CHECK: %[[AMOUNT:.*]] = arith.select %[[FAR]], %{{.*}}, %[[A]] : i32
// CHECK: %[[S:.*]] = arith.shrsi %{{.*}}, %[[AMOUNT]] : i32
// CHECK: %[[SIGN:.*]] = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %[[FAR]], %[[SIGN]], %[[S]] : i32
// CHECK: arith.cmpi uge
// CHECK: arith.shli %{{.*}}, %{{.*}} : i16
func.func @bitshift(%x: tensor<3xi32>, %y: tensor<3xi32>, %u: tensor<3xui16>, %v: tensor<3xui16>) -> (tensor<3xi32>, tensor<3xui16>) attributes {fuse.kernel} {
  %0 = onnx.BitShift(%x, %y) {direction = "RIGHT"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = onnx.BitShift(%u, %v) {direction = "LEFT"} : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xui16>
  return %0, %1 : tensor<3xi32>, tensor<3xui16>
}

// -----

// CumProd: CumSum's loop with products; the inputs not taken count as 1,
// the accumulator starts at 1 (reverse: the elements after it).
// CHECK-LABEL: func.func @cumprod
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: linalg.fill ins(%[[ONE]] : f64)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: ^bb0(%[[X:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK: %[[TAKE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: %[[T:.*]] = arith.select %[[TAKE]], %[[X]], %{{.*}} : f64
// CHECK: arith.mulf %[[ACC]], %[[T]] : f64
func.func @cumprod(%x: tensor<2x5xf64>) -> tensor<2x5xf64> attributes {fuse.kernel} {
  %a = onnx.Constant dense<1> : tensor<i32>
  %0 = onnx.CumProd(%x, %a) {reverse = 1 : i64} : (tensor<2x5xf64>, tensor<i32>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}
