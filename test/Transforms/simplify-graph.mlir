// RUN: fuse-opt %s -split-input-file -fuse-simplify-graph -verify-diagnostics | FileCheck %s

// The exporter's shape subgraph (Shape -> Gather -> Unsqueeze -> Concat)
// folds to a constant once the input shape is static; the Reshape's result
// becomes static, and so does every later op and the function's result.
// The constants only the subgraph used are erased.
// CHECK-LABEL: func @shape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: %[[S:.*]] = onnx.Constant dense<[2, -1]> : tensor<2xi64>
// CHECK-NEXT: %[[R:.*]] = onnx.Reshape(%[[X]], %[[S]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK-NEXT: %[[Y:.*]] = onnx.Relu(%[[R]]) : (tensor<2x12xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x12xf32>
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  %s = onnx.Shape(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = onnx.Constant dense<0> : tensor<i64>
  %n = onnx.Gather(%s, %i) : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = onnx.Constant dense<[0]> : tensor<1xi64>
  %u = onnx.Unsqueeze(%n, %a) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = onnx.Constant dense<[-1]> : tensor<1xi64>
  %c = onnx.Concat(%u, %m) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = onnx.Reshape(%x, %c) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %y = onnx.Relu(%r) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Attention heads: a Slice of the shape and a Concat give a rank-4 Reshape,
// whose unranked result, and the Transpose's, become static.
// CHECK-LABEL: func @attention_shapes
// CHECK-SAME: -> tensor<1x2x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = onnx.Constant dense<[1, 8, 2, 8]> : tensor<4xi64>
// CHECK-NEXT: %[[R:.*]] = onnx.Reshape(%{{.*}}, %[[S]]) : (tensor<1x8x16xf32>, tensor<4xi64>) -> tensor<1x8x2x8xf32>
// CHECK-NEXT: onnx.Transpose(%[[R]]) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NOT: onnx.Slice
// CHECK-NOT: onnx.Concat
func.func @attention_shapes(%x: tensor<1x8x16xf32>) -> tensor<*xf32> {
  %s = onnx.Shape(%x) : (tensor<1x8x16xf32>) -> tensor<3xi64>
  %st = onnx.Constant dense<[0]> : tensor<1xi64>
  %en = onnx.Constant dense<[2]> : tensor<1xi64>
  %head = onnx.Slice(%s, %st, %en) : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %tail = onnx.Constant dense<[2, 8]> : tensor<2xi64>
  %shape = onnx.Concat(%head, %tail) {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = onnx.Reshape(%x, %shape) : (tensor<1x8x16xf32>, tensor<4xi64>) -> tensor<*xf32>
  %t = onnx.Transpose(%r) {perm = array<i64: 0, 2, 1, 3>} : (tensor<*xf32>) -> tensor<*xf32>
  return %t : tensor<*xf32>
}

// -----

// The attention mask computed from a constant: Cast, Sub and Mul fold into
// one constant (0 where the mask is 1, -10000 where it is 0).
// CHECK-LABEL: func @mask
// CHECK-NEXT: %[[B:.*]] = onnx.Constant dense<{{\[\[}}-0.000000e+00, -0.000000e+00, -1.000000e+04, -0.000000e+00]]> : tensor<1x4xf32>
// CHECK-NEXT: onnx.Add(%{{.*}}, %[[B]])
// CHECK-NOT: onnx.Cast
func.func @mask(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %m = onnx.Constant dense<[[1, 1, 0, 1]]> : tensor<1x4xi64>
  %f = onnx.Cast(%m) {to = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xf32>
  %one = onnx.Constant dense<1.0> : tensor<f32>
  %inv = onnx.Sub(%one, %f) : (tensor<f32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %big = onnx.Constant dense<-10000.0> : tensor<f32>
  %bias = onnx.Mul(%inv, %big) : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %y = onnx.Add(%x, %bias) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// ConstantOfShape (of a folded Shape) and Range fold to constants.
// CHECK-LABEL: func @constant_of_shape_range
// CHECK-SAME: -> (tensor<2x3xi64>, tensor<5xi64>, tensor<3xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[C:.*]] = onnx.Constant dense<7> : tensor<2x3xi64>
// CHECK-NEXT: %[[R:.*]] = onnx.Constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
// CHECK-NEXT: %[[F:.*]] = onnx.Constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[Z:.*]] = onnx.Constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[A:.*]] = onnx.Add(%{{.*}}, %[[Z]])
// CHECK-NEXT: return %[[C]], %[[R]], %[[F]], %[[A]]
func.func @constant_of_shape_range(%x: tensor<2x3xf32>) -> (tensor<?x?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<2x3xf32>) {
  %s = onnx.Shape(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
  %0 = onnx.ConstantOfShape(%s) {value = dense<7> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
  %a = onnx.Constant dense<0> : tensor<i64>
  %b = onnx.Constant dense<5> : tensor<i64>
  %c = onnx.Constant dense<1> : tensor<i64>
  %1 = onnx.Range(%a, %b, %c) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %fa = onnx.Constant dense<0.5> : tensor<f32>
  %fb = onnx.Constant dense<2.0> : tensor<f32>
  %fc = onnx.Constant dense<0.5> : tensor<f32>
  %2 = onnx.Range(%fa, %fb, %fc) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %z = onnx.ConstantOfShape(%s) : (tensor<2xi64>) -> tensor<2x3xf32>
  %3 = onnx.Add(%x, %z) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<?x?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<2x3xf32>
}

// -----

// BatchNormalization after a Conv it alone uses folds into the Conv: each
// output channel's filter is scaled by a = scale / sqrt(var + epsilon) and
// the bias becomes B * a + (bias - mean * a). Here a = [1, 3] and
// bias - mean * a = [0, -1].
// CHECK-LABEL: func @conv_bn
// CHECK-NEXT: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT: %[[B:.*]] = onnx.Constant dense<[1.000000e+01, 5.900000e+01]> : tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = onnx.Conv(%{{.*}}, %[[W]], %[[B]]) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[C]]
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = onnx.Constant dense<[[[[2.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %b = onnx.Constant dense<[10.0, 20.0]> : tensor<2xf32>
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bias = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = onnx.Constant dense<[4.0, 1.0]> : tensor<2xf32>
  %c = onnx.Conv(%x, %w, %b) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = onnx.BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A Conv without a bias gets one; the Conv's attributes are kept.
// CHECK-LABEL: func @conv_bn_no_bias
// CHECK-NEXT: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT: %[[B:.*]] = onnx.Constant dense<[0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = onnx.Conv(%{{.*}}, %[[W]], %[[B]]) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @conv_bn_no_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = onnx.Constant dense<[[[[2.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bias = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = onnx.Constant dense<[4.0, 1.0]> : tensor<2xf32>
  %c = onnx.Conv(%x, %w) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = onnx.BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Filters of more than a few elements are written to a resource blob.
// CHECK-LABEL: func @conv_bn_blob
// CHECK-NEXT: %[[W:.*]] = onnx.Constant dense_resource<[[BLOB:folded_W_[0-9]+]]> : tensor<4x1x3x3xf32>
// CHECK-NEXT: %[[B:.*]] = onnx.Constant dense<[0.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: onnx.Conv(%{{.*}}, %[[W]], %[[B]])
// The filters 0..35 scaled by [1, 3, 1, 0.5] per output channel: 0, 1, ...,
// 8, then 27 (0x41D80000), ..., 18 (0x41900000), ..., 13.5 (0x41580000).
// CHECK: [[BLOB]]: "0x08000000000000000000803F0000004000004040000080400000A0400000C0400000E040000000410000D8410000F041000004420000104200001C4200002842000034420000404200004C4200009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D041000058410000604100006841000070410000784100008041000084410000884100008C41"
func.func @conv_bn_blob(%x: tensor<1x1x6x6xf32>) -> tensor<1x4x4x4xf32> {
  %w = onnx.Constant dense<[[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]], [[[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]]], [[[18.0, 19.0, 20.0], [21.0, 22.0, 23.0], [24.0, 25.0, 26.0]]], [[[27.0, 28.0, 29.0], [30.0, 31.0, 32.0], [33.0, 34.0, 35.0]]]]> : tensor<4x1x3x3xf32>
  %scale = onnx.Constant dense<[2.0, 3.0, 1.0, 0.5]> : tensor<4xf32>
  %bias = onnx.Constant dense<[1.0, 2.0, 0.0, 0.0]> : tensor<4xf32>
  %mean = onnx.Constant dense<[1.0, 1.0, 0.0, 0.0]> : tensor<4xf32>
  %var = onnx.Constant dense<[4.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %c = onnx.Conv(%x, %w) : (tensor<1x1x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %y = onnx.BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// BatchNormalization on anything else becomes X * a + (bias - mean * a),
// with per-channel constants shaped to broadcast along dim 1.
// CHECK-LABEL: func @bn_alone
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[A:.*]] = onnx.Constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}3.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[B:.*]] = onnx.Constant dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = onnx.Mul(%[[X]], %[[A]]) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[Y:.*]] = onnx.Add(%[[M]], %[[B]]) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bn_alone(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bias = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = onnx.Constant dense<[4.0, 1.0]> : tensor<2xf32>
  %y = onnx.BatchNormalization(%x, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A Conv whose result is also used elsewhere keeps its filters; the BN is
// decomposed.
// CHECK-LABEL: func @conv_two_users
// CHECK: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}5.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT: %[[C:.*]] = onnx.Conv(%{{.*}}, %[[W]]) :
// CHECK: %[[M:.*]] = onnx.Mul(%[[C]], %{{.*}})
// CHECK-NEXT: %[[Y:.*]] = onnx.Add(%[[M]], %{{.*}})
// CHECK-NEXT: return %[[Y]], %[[C]]
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_two_users(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = onnx.Constant dense<[[[[2.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bias = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = onnx.Constant dense<[4.0, 1.0]> : tensor<2xf32>
  %c = onnx.Conv(%x, %w) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = onnx.BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Filters that are not constants cannot be scaled: decomposed.
// CHECK-LABEL: func @conv_weights_not_constant
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>, %[[W:.*]]: tensor<2x1x1x1xf32>)
// CHECK-NEXT: %[[C:.*]] = onnx.Conv(%[[X]], %[[W]]) :
// CHECK: onnx.Mul(%[[C]], %{{.*}})
// CHECK-NEXT: onnx.Add
func.func @conv_weights_not_constant(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bias = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 1.0]> : tensor<2xf32>
  %var = onnx.Constant dense<[4.0, 1.0]> : tensor<2xf32>
  %c = onnx.Conv(%x, %w) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = onnx.BatchNormalization(%c, %scale, %bias, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Statistics that are not constants: the BN stays.
// CHECK-LABEL: func @bn_stats_not_constant
// CHECK: onnx.BatchNormalization(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) :
// CHECK-NOT: onnx.Mul
func.func @bn_stats_not_constant(%x: tensor<1x2x4x4xf32>, %var: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %scale = onnx.Constant dense<[2.0, 3.0]> : tensor<2xf32>
  %y = onnx.BatchNormalization(%x, %scale, %scale, %scale, %var) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Identity (and Dropout, imported as Identity) is forwarded, except one
// that is returned: a graph output needs a value of its own.
// CHECK-LABEL: func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[X]])
// CHECK-NEXT: %[[I:.*]] = onnx.Identity(%[[R]])
// CHECK-NEXT: %[[N:.*]] = onnx.Neg(%[[R]])
// CHECK-NEXT: return %[[I]], %[[N]]
func.func @identity(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = onnx.Identity(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = onnx.Relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = onnx.Identity(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = onnx.Identity(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = onnx.Neg(%3) : (tensor<4xf32>) -> tensor<4xf32>
  return %2, %4 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Dead ops, chains of them and unused constants are erased.
// CHECK-LABEL: func @dead
// CHECK-NEXT: %[[S:.*]] = onnx.Sigmoid
// CHECK-NEXT: return %[[S]]
func.func @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = onnx.Exp(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = onnx.Neg(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %c = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %3 = onnx.Sigmoid(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Refined types can contradict the graph: the Reshape turns out to be 2x3,
// which does not broadcast with 5 ...
func.func @contradiction(%x: tensor<2x3xf32>, %b: tensor<5xf32>) -> tensor<?x?xf32> {
  %s = onnx.Shape(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
  %r = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // expected-error @+1 {{'onnx.Add' op cannot broadcast shapes 2x3 and 5}}
  %y = onnx.Add(%r, %b) : (tensor<?x?xf32>, tensor<5xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// ... or differs from a result type the IR declares.
func.func @contradiction_type(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %s = onnx.Shape(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
  %r = onnx.Reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // expected-error @+1 {{'onnx.Relu' op result type 'tensor<3x2xf32>' contradicts the inferred type 'tensor<2x3xf32>'}}
  %y = onnx.Relu(%r) : (tensor<?x?xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Mod of constants folds (the shape computations of the expanded Attention
// use it): integers take the divisor's sign, or the dividend's with fmod.
// CHECK-LABEL: func @fold_mod
// CHECK: %[[R:.*]] = onnx.Constant dense<[2, -1, 1, -2]> : tensor<4xi64>
// CHECK: %[[F:.*]] = onnx.Constant dense<[2, 2, -2, -2]> : tensor<4xi64>
// CHECK: return %[[R]], %[[F]]
func.func @fold_mod() -> (tensor<4xi64>, tensor<4xi64>) {
  %a = onnx.Constant dense<[5, 5, -5, -5]> : tensor<4xi64>
  %b = onnx.Constant dense<[3, -3, 3, -3]> : tensor<4xi64>
  %0 = onnx.Mod(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = onnx.Mod(%a, %b) {fmod = 1 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xi64>, tensor<4xi64>
}

// -----

// A rotary table the legacy exporter leaves unfolded: inverse frequencies
// times positions (a MatMul of constants, batch dims broadcast), then Cos
// and Sin, fold to constants. A MatMul over a non-constant does not.
// CHECK-LABEL: func @fold_rotary_table
// CHECK-DAG: %[[P:.*]] = onnx.Constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00], [0.000000e+00, 5.000000e-01, 1.000000e+00]]]> : tensor<1x2x3xf32>
// CHECK-DAG: %[[C:.*]] = onnx.Constant dense<{{\[\[\[}}1.000000e+00, 0.540302277, -0.416146845], [1.000000e+00, 0.87758255, 0.540302277]]]> : tensor<1x2x3xf32>
// CHECK-DAG: %[[S:.*]] = onnx.Constant dense<{{\[\[\[}}0.000000e+00, 0.841470957, 0.909297406], [0.000000e+00, 0.47942555, 0.841470957]]]> : tensor<1x2x3xf32>
// CHECK: %[[X:.*]] = onnx.MatMul(%arg0, %{{.*}}) : (tensor<2x2x1xf32>, tensor<1x1x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NOT: onnx.Cos
// CHECK-NOT: onnx.Sin
// CHECK: return %[[P]], %[[C]], %[[S]], %[[X]]
func.func @fold_rotary_table(%x: tensor<2x2x1xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<2x2x3xf32>) {
  %f = onnx.Constant dense<[[[1.0], [0.5]]]> : tensor<1x2x1xf32>
  %p = onnx.Constant dense<[[[0.0, 1.0, 2.0]]]> : tensor<1x1x3xf32>
  %0 = onnx.MatMul(%f, %p) : (tensor<1x2x1xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32>
  %1 = onnx.Cos(%0) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %2 = onnx.Sin(%0) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %3 = onnx.MatMul(%x, %p) : (tensor<2x2x1xf32>, tensor<1x1x3xf32>) -> tensor<2x2x3xf32>
  return %0, %1, %2, %3 : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<2x2x3xf32>
}

// -----

// A Pad of a tensor with no elements is its pad value everywhere (0 by
// default); a pad value not known here is expanded to the result's shape.
// CHECK-LABEL: func @empty_pad
// CHECK-DAG: %[[ZERO:.*]] = onnx.Constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[FILL:.*]] = onnx.Constant dense<2.500000e+00> : tensor<3x1xf32>
// CHECK-DAG: %[[SHAPE:.*]] = onnx.Constant dense<[3, 1]> : tensor<2xi64>
// CHECK: %[[EXPANDED:.*]] = onnx.Expand(%arg1, %[[SHAPE]]) : (tensor<f32>, tensor<2xi64>) -> tensor<3x1xf32>
// CHECK-NOT: onnx.Pad
// CHECK: return %[[ZERO]], %[[FILL]], %[[EXPANDED]]
func.func @empty_pad(%x: tensor<2x0xf32>, %v: tensor<f32>) -> (tensor<2x3xf32>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %p = onnx.Constant dense<[0, 1, 0, 2]> : tensor<4xi64>
  %q = onnx.Constant dense<[1, 1, 0, 0]> : tensor<4xi64>
  %c = onnx.Constant dense<2.5> : tensor<f32>
  %0 = onnx.Pad(%x, %p) : (tensor<2x0xf32>, tensor<4xi64>) -> tensor<2x3xf32>
  %1 = onnx.Pad(%x, %q) constant_value(%c) : (tensor<2x0xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x1xf32>
  %2 = onnx.Pad(%x, %q) constant_value(%v) : (tensor<2x0xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x1xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3x1xf32>, tensor<3x1xf32>
}

// -----

// A Reduce* of a tensor with no elements is its reduction's identity (the
// lowering cannot loop over nothing): 0 for sums, 1 for products, -inf
// and +inf for max and min (false and true for bools), log(0) = -inf for
// the log sums, NaN for the mean.
// CHECK-LABEL: func @empty_reductions
// CHECK-DAG: %[[SUM:.*]] = onnx.Constant dense<0.000000e+00> : tensor<2x1x4xf32>
// CHECK-DAG: %[[PROD:.*]] = onnx.Constant dense<1.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: %[[MAX:.*]] = onnx.Constant dense<0xFF800000> : tensor<2x1x4xf32>
// CHECK-DAG: %[[MIN:.*]] = onnx.Constant dense<true> : tensor<2x1x4xi1>
// CHECK-DAG: %[[LSE:.*]] = onnx.Constant dense<0xFF800000> : tensor<2x1x4xf32>
// CHECK-DAG: %[[MEAN:.*]] = onnx.Constant dense<0x7FC00000> : tensor<2x1x4xf32>
// CHECK-DAG: %[[IMAX:.*]] = onnx.Constant dense<-128> : tensor<2x1x4xi8>
// CHECK-NOT: onnx.Reduce
// CHECK: return %[[SUM]], %[[PROD]], %[[MAX]], %[[MIN]], %[[LSE]], %[[MEAN]], %[[IMAX]]
func.func @empty_reductions(%x: tensor<2x0x4xf32>, %b: tensor<2x0x4xi1>, %i: tensor<2x0x4xi8>)
    -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xi1>,
        tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xi8>) {
  %axes = onnx.Constant dense<1> : tensor<1xi64>
  %0 = onnx.ReduceSum(%x, %axes) : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %1 = onnx.ReduceProd(%x, %axes) {keepdims = 0 : i64} : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %2 = onnx.ReduceMax(%x, %axes) : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %3 = onnx.ReduceMin(%b, %axes) : (tensor<2x0x4xi1>, tensor<1xi64>) -> tensor<2x1x4xi1>
  %4 = onnx.ReduceLogSumExp(%x, %axes) : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %5 = onnx.ReduceMean(%x, %axes) : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %6 = onnx.ReduceMax(%i, %axes) : (tensor<2x0x4xi8>, tensor<1xi64>) -> tensor<2x1x4xi8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xi1>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xi8>
}

// -----

// PyTorch's sdpa export scales Q and K by sqrt(scale) each before their
// product: the factors move after it, where they join the Softmax's group
// (two kernels over whole tensors fewer), each Mul keeping its node's
// location.
// CHECK-LABEL: func @sdpa_scales
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x4xf32>, %[[KT:.*]]: tensor<1x2x4x8xf32>, %[[MASK:.*]]: tensor<1x1x1x8xf32>)
// CHECK-DAG: %[[C:.*]] = onnx.Constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[D:.*]] = onnx.Constant dense<2.500000e-01> : tensor<1xf32>
// CHECK: %[[P:.*]] = onnx.MatMul(%[[Q]], %[[KT]])
// CHECK-NEXT: %[[S1:.*]] = onnx.Mul(%[[P]], %[[D]])
// CHECK-NEXT: %[[S2:.*]] = onnx.Mul(%[[S1]], %[[C]])
// CHECK-NEXT: %[[A:.*]] = onnx.Add(%[[S2]], %[[MASK]])
// CHECK-NEXT: onnx.Softmax(%[[A]])
func.func @sdpa_scales(%q: tensor<1x2x8x4xf32>, %kt: tensor<1x2x4x8xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %c = onnx.Constant dense<0.5> : tensor<f32>
  %d = onnx.Constant dense<0.25> : tensor<1xf32>
  %qs = onnx.Mul(%q, %c) : (tensor<1x2x8x4xf32>, tensor<f32>) -> tensor<1x2x8x4xf32> loc("q_scaled")
  %ks = onnx.Mul(%d, %kt) : (tensor<1xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> loc("k_scaled")
  %p = onnx.MatMul(%qs, %ks) : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %a = onnx.Add(%p, %mask) : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %s = onnx.Softmax(%a) {axis = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %s : tensor<1x2x8x8xf32>
}

// -----

// Where the factor stays: against a weight (folding it into the weight
// would be the rewrite), on a value used twice, a factor that is not a
// scalar, and a product that goes on into another MatMul (a contraction,
// which the moved factor would not join).
// CHECK-LABEL: func @scales_that_stay
// CHECK: %[[W1:.*]] = onnx.Mul(%arg0,
// CHECK-NEXT: onnx.MatMul(%[[W1]],
// CHECK: %[[T:.*]] = onnx.Mul(%arg0,
// CHECK-NEXT: onnx.MatMul(%[[T]],
// CHECK: %[[V:.*]] = onnx.Mul(%arg0,
// CHECK-NEXT: onnx.MatMul(%[[V]],
// CHECK: %[[N:.*]] = onnx.Mul(%arg0,
// CHECK-NEXT: %[[P3:.*]] = onnx.MatMul(%[[N]],
// CHECK-NEXT: onnx.MatMul(%[[P3]], %[[P3]])
func.func @scales_that_stay(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %c = onnx.Constant dense<0.5> : tensor<f32>
  %v = onnx.Constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %w = onnx.Constant dense<1.0> : tensor<4x8xf32>
  %xs = onnx.Mul(%x, %c) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32> loc("against_weight")
  %p0 = onnx.MatMul(%xs, %w) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r0 = onnx.Relu(%p0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = onnx.Mul(%x, %c) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32> loc("used_twice")
  %p1 = onnx.MatMul(%t, %y) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r1 = onnx.Relu(%p1) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %xv = onnx.Mul(%x, %v) : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32> loc("vector")
  %p2 = onnx.MatMul(%xv, %y) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r2 = onnx.Relu(%p2) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %xn = onnx.Mul(%x, %c) : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32> loc("into_matmul")
  %p3 = onnx.MatMul(%xn, %y) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %p4 = onnx.MatMul(%p3, %p3) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r0, %r1, %t, %r2, %p4 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// GPT-2's Conv1D as the exporters write it: the rows collapsed for a Gemm
// and expanded after it. The Gemm becomes a MatMul of the uncollapsed
// input (its trailing dims merged: a view) plus the bias, and the Reshapes
// around it cancel, so the residual Add reads the product directly.
// CHECK-LABEL: func @uncollapse_gemm
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x4x8xf32>, %[[R:.*]]: tensor<2x16x64xf32>)
// CHECK: %[[S:.*]] = onnx.Constant dense<[2, 16, 32]> : tensor<3xi64>
// CHECK: %[[V:.*]] = onnx.Reshape(%[[X]], %[[S]]) {allowzero = 1 : i64} : (tensor<2x16x4x8xf32>, tensor<3xi64>) -> tensor<2x16x32xf32>
// CHECK: %[[P:.*]] = onnx.MatMul(%[[V]], %{{.*}}) : (tensor<2x16x32xf32>, tensor<32x64xf32>) -> tensor<2x16x64xf32>
// CHECK: %[[B:.*]] = onnx.Add(%[[P]], %{{.*}}) : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NOT: onnx.Reshape
// CHECK: %[[Y:.*]] = onnx.Add(%[[B]], %[[R]])
// CHECK: return %[[Y]]
func.func @uncollapse_gemm(%x: tensor<2x16x4x8xf32>, %r: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %rows = onnx.Constant dense<[32, 32]> : tensor<2xi64>
  %back = onnx.Constant dense<[2, 16, 64]> : tensor<3xi64>
  %w = onnx.Constant dense<0.5> : tensor<32x64xf32>
  %b = onnx.Constant dense<0.25> : tensor<64xf32>
  %0 = onnx.Reshape(%x, %rows) : (tensor<2x16x4x8xf32>, tensor<2xi64>) -> tensor<32x32xf32>
  %1 = onnx.Gemm(%0, %w, %b) : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %2 = onnx.Reshape(%1, %back) : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  %3 = onnx.Add(%2, %r) : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %3 : tensor<2x16x64xf32>
}

// -----

// A scalar bias of a one-column product (a Gemm's C broadcasts to [M, N])
// is added to the MatMul's result as it is. (The Reshape to the product's
// own shape stays: it is a graph output.)
// CHECK-LABEL: func @uncollapse_gemm_scalar_bias
// CHECK: %[[P:.*]] = onnx.MatMul(%arg0, %{{.*}}) : (tensor<2x3x4xf32>, tensor<4x1xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[B:.*]] = onnx.Add(%[[P]], %{{.*}}) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
// CHECK: %[[R:.*]] = onnx.Reshape(%[[B]], %{{.*}}) {allowzero = 1 : i64} : (tensor<2x3x1xf32>, tensor<3xi64>) -> tensor<2x3x1xf32>
// CHECK: return %[[R]]
func.func @uncollapse_gemm_scalar_bias(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %rows = onnx.Constant dense<[6, 4]> : tensor<2xi64>
  %back = onnx.Constant dense<[2, 3, 1]> : tensor<3xi64>
  %w = onnx.Constant dense<0.5> : tensor<4x1xf32>
  %c = onnx.Constant dense<0.25> : tensor<f32>
  %0 = onnx.Reshape(%x, %rows) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = onnx.Gemm(%0, %w, %c) : (tensor<6x4xf32>, tensor<4x1xf32>, tensor<f32>) -> tensor<6x1xf32>
  %2 = onnx.Reshape(%1, %back) : (tensor<6x1xf32>, tensor<3xi64>) -> tensor<2x3x1xf32>
  return %2 : tensor<2x3x1xf32>
}

// -----

// The Gemm stays: transposed B (a Transpose would be a kernel), a user
// that is no Reshape (its epilogue would read through a new Reshape), a
// bias over every row, a scaled product, and rows that are no leading dims
// of the input.
// CHECK-LABEL: func @gemm_stays
// CHECK-COUNT-5: onnx.Gemm
// CHECK-NOT: onnx.MatMul
func.func @gemm_stays(%x: tensor<2x16x32xf32>, %y: tensor<2x48x16xf32>) -> (tensor<2x16x64xf32>, tensor<32x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>) {
  %rows = onnx.Constant dense<[32, 32]> : tensor<2xi64>
  %rows48 = onnx.Constant dense<[32, 48]> : tensor<2xi64>
  %back = onnx.Constant dense<[2, 16, 64]> : tensor<3xi64>
  %w = onnx.Constant dense<0.5> : tensor<32x64xf32>
  %w48 = onnx.Constant dense<0.5> : tensor<48x64xf32>
  %wt = onnx.Constant dense<0.5> : tensor<64x32xf32>
  %c = onnx.Constant dense<0.25> : tensor<32x64xf32>
  %0 = onnx.Reshape(%x, %rows) : (tensor<2x16x32xf32>, tensor<2xi64>) -> tensor<32x32xf32>
  %1 = onnx.Gemm(%0, %wt) {transB = 1 : i64} : (tensor<32x32xf32>, tensor<64x32xf32>) -> tensor<32x64xf32>
  %2 = onnx.Reshape(%1, %back) : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  %3 = onnx.Gemm(%0, %w) : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %4 = onnx.Relu(%3) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %5 = onnx.Gemm(%0, %w, %c) : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %6 = onnx.Reshape(%5, %back) : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  %7 = onnx.Gemm(%0, %w) {alpha = 2.0 : f32} : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %8 = onnx.Reshape(%7, %back) : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  %9 = onnx.Reshape(%y, %rows48) : (tensor<2x48x16xf32>, tensor<2xi64>) -> tensor<32x48xf32>
  %10 = onnx.Gemm(%9, %w48) : (tensor<32x48xf32>, tensor<48x64xf32>) -> tensor<32x64xf32>
  %11 = onnx.Reshape(%10, %back) : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  return %2, %4, %6, %8, %11 : tensor<2x16x64xf32>, tensor<32x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>
}

// -----

// A Reshape of a Reshape is one Reshape of the first's input, its shape
// spelled out; one to its input's own shape is that input, except as a
// graph output.
// CHECK-LABEL: func @merge_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[S:.*]] = onnx.Constant dense<[4, 6]> : tensor<2xi64>
// CHECK: %[[M:.*]] = onnx.Reshape(%[[X]], %[[S]]) {allowzero = 1 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
// CHECK: %[[E:.*]] = onnx.Exp(%[[X]])
// CHECK: %[[O:.*]] = onnx.Reshape(%[[X]], %{{.*}}) {allowzero = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
// CHECK: return %[[M]], %[[E]], %[[O]]
func.func @merge_reshapes(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %a = onnx.Constant dense<[6, 4]> : tensor<2xi64>
  %b = onnx.Constant dense<[0, -1]> : tensor<2xi64>
  %c = onnx.Constant dense<[2, 3, 4]> : tensor<3xi64>
  %0 = onnx.Reshape(%x, %a) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = onnx.Reshape(%0, %b) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %2 = onnx.Reshape(%1, %a) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %s = onnx.Constant dense<[4, 6]> : tensor<2xi64>
  %3 = onnx.Reshape(%2, %s) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %4 = onnx.Reshape(%0, %c) : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %5 = onnx.Exp(%4) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %6 = onnx.Reshape(%0, %c) : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %3, %5, %6 : tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
