// RUN: fuse-opt %s -split-input-file -fuse-raise-attention | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-raise-attention=fuse-projections=false | FileCheck %s --check-prefix=SPLIT
// What is left over all the cases: the Transpose of K^T in @unfolded and
// the three of @empty_batch, the four Softmaxes of @not_attention; the
// raised chains' ops are erased.
// RUN: fuse-opt %s -split-input-file -fuse-raise-attention | grep -c onnx.Transpose | FileCheck %s --check-prefix=TRANSPOSES
// TRANSPOSES: {{^}}4{{$}}
// RUN: fuse-opt %s -split-input-file -fuse-raise-attention | grep -c -E "onnx.(Softmax|IsNaN|Where|Div)" | FileCheck %s --check-prefix=SOFTMAXES
// SOFTMAXES: {{^}}4{{$}}

// BERT's eager attention as the legacy exporter writes it: the head
// Reshapes and Transposes (K straight to [B, H, D, S]), Div by sqrt(D),
// the padding mask, Softmax, the product with V and the heads merged
// back. The op reads the Reshapes' results: no Transpose is left.
// CHECK-LABEL: func @eager
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x32xf32>, %[[Y:.*]]: tensor<2x6x32xf32>, %[[Z:.*]]: tensor<2x6x32xf32>, %[[MASK:.*]]: tensor<2x1x1x6xf32>)
// CHECK-DAG: %[[Q:.*]] = onnx.Reshape(%[[X]]
// CHECK-DAG: %[[K:.*]] = onnx.Reshape(%[[Y]]
// CHECK-DAG: %[[V:.*]] = onnx.Reshape(%[[Z]]
// CHECK: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]], %[[MASK]] {scale = 0.353553{{[0-9]*}} : f32} : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x1x1x6xf32> -> tensor<2x6x4x8xf32>
// CHECK-NEXT: %[[R:.*]] = onnx.Reshape(%[[A]]
// CHECK-NEXT: return %[[R]]
func.func @eager(%x: tensor<2x6x32xf32>, %y: tensor<2x6x32xf32>, %z: tensor<2x6x32xf32>, %mask: tensor<2x1x1x6xf32>) -> tensor<2x6x32xf32> {
  %shape = onnx.Constant dense<[2, 6, 4, 8]> : tensor<4xi64>
  %back = onnx.Constant dense<[2, 6, 32]> : tensor<3xi64>
  %c = onnx.Constant dense<2.828427> : tensor<f32>
  %qs = onnx.Reshape(%x, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %q = onnx.Transpose(%qs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %ks = onnx.Reshape(%y, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %kt = onnx.Transpose(%ks) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x8x6xf32>
  %vs = onnx.Reshape(%z, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %v = onnx.Transpose(%vs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %d = onnx.Div(%s, %c) : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %m = onnx.Add(%d, %mask) : (tensor<2x4x6x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x4x6x6xf32>
  %p = onnx.Softmax(%m) {axis = -1 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  %r = onnx.Reshape(%t, %back) : (tensor<2x6x4x8xf32>, tensor<3xi64>) -> tensor<2x6x32xf32>
  return %r : tensor<2x6x32xf32>
}

// -----

// PyTorch's sdpa as the dynamo exporter writes it (after
// fuse-simplify-graph moved the sqrt(scale) factors after the product):
// K^T through [B * H, S, D] and back, two scalar Muls, the IsNaN/Where
// guard. The K chain is still exactly K's Reshape transposed: folded.
// CHECK-LABEL: func @sdpa
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x32xf32>, %[[Y:.*]]: tensor<2x6x32xf32>, %[[Z:.*]]: tensor<2x6x32xf32>, %[[MASK:.*]]: tensor<2x1x6x6xf32>)
// CHECK-DAG: %[[Q:.*]] = onnx.Reshape(%[[X]]
// CHECK-DAG: %[[K:.*]] = onnx.Reshape(%[[Y]]
// CHECK-DAG: %[[V:.*]] = onnx.Reshape(%[[Z]]
// CHECK: fuse.attention %[[Q]], %[[K]], %[[V]], %[[MASK]] {scale = {{0.1249999[0-9]*|1.250000e-01}} : f32, zero_nan_probabilities}
func.func @sdpa(%x: tensor<2x6x32xf32>, %y: tensor<2x6x32xf32>, %z: tensor<2x6x32xf32>, %mask: tensor<2x1x6x6xf32>) -> tensor<2x6x32xf32> {
  %shape = onnx.Constant dense<[2, 6, 4, 8]> : tensor<4xi64>
  %flat = onnx.Constant dense<[8, 6, 8]> : tensor<3xi64>
  %unflat = onnx.Constant dense<[2, 4, 8, 6]> : tensor<4xi64>
  %back = onnx.Constant dense<[2, 6, 32]> : tensor<3xi64>
  %c = onnx.Constant dense<0.353553385> : tensor<f32>
  %zero = onnx.Constant dense<0.0> : tensor<f32>
  %qs = onnx.Reshape(%x, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %q = onnx.Transpose(%qs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %ks = onnx.Reshape(%y, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %kh = onnx.Transpose(%ks) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %k3 = onnx.Reshape(%kh, %flat) : (tensor<2x4x6x8xf32>, tensor<3xi64>) -> tensor<8x6x8xf32>
  %k3t = onnx.Transpose(%k3) {perm = array<i64: 0, 2, 1>} : (tensor<8x6x8xf32>) -> tensor<8x8x6xf32>
  %kt = onnx.Reshape(%k3t, %unflat) : (tensor<8x8x6xf32>, tensor<4xi64>) -> tensor<2x4x8x6xf32>
  %vs = onnx.Reshape(%z, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %v = onnx.Transpose(%vs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %s1 = onnx.Mul(%s, %c) : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %s2 = onnx.Mul(%s1, %c) : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %m = onnx.Add(%s2, %mask) : (tensor<2x4x6x6xf32>, tensor<2x1x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = onnx.Softmax(%m) {axis = -1 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %nan = onnx.IsNaN(%p) : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xi1>
  %g = onnx.Where(%nan, %zero, %p) : (tensor<2x4x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = onnx.MatMul(%g, %v) : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  %r = onnx.Reshape(%t, %back) : (tensor<2x6x4x8xf32>, tensor<3xi64>) -> tensor<2x6x32xf32>
  return %r : tensor<2x6x32xf32>
}

// -----

// Heads that are no view of a [B, S, H, D] tensor (here the function's
// arguments): Q and V are read as they are, heads first, and so is the
// op's result (no Transpose after it); K^T is transposed back to [B, S,
// H, D] for the op.
// CHECK-LABEL: func @unfolded
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x6x8xf32>, %[[KT:.*]]: tensor<1x4x8x6xf32>, %[[V:.*]]: tensor<1x4x6x8xf32>)
// CHECK: %[[KS:.*]] = onnx.Transpose(%[[KT]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x8x6xf32>) -> tensor<1x6x4x8xf32>
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[KS]], %[[V]] {heads_first = array<i1: true, false, true, true>, scale = 5.000000e-01 : f32} : tensor<1x4x6x8xf32>, tensor<1x6x4x8xf32>, tensor<1x4x6x8xf32> -> tensor<1x4x6x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @unfolded(%q: tensor<1x4x6x8xf32>, %kt: tensor<1x4x8x6xf32>, %v: tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %c = onnx.Constant dense<0.5> : tensor<1xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %d = onnx.Mul(%c, %s) : (tensor<1xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %p = onnx.Softmax(%d) {axis = 3 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %o : tensor<1x4x6x8xf32>
}

// -----

// A Llama-style block (the dynamo export): Q and K come out of the rotary
// embedding heads first ([B, H, S, D]); K's 2 key/value heads are
// repeated for the 4 query heads (Unsqueeze, Expand, Reshape) and go
// through [B * H, S, D] to K^T; V is the projection's [B, S, Hkv, D]
// transposed and repeated. The op reads K heads first and V as the
// projection left it, both with their 2 heads (grouped-query attention):
// no Transpose or Expand is left.
// CHECK-LABEL: func @grouped
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16x16xf32>, %[[K:.*]]: tensor<2x2x16x16xf32>, %[[VP:.*]]: tensor<2x16x32xf32>, %[[MASK:.*]]: tensor<2x1x16x16xf32>)
// CHECK: %[[V:.*]] = onnx.Reshape(%[[VP]]
// CHECK-NEXT: %[[A:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]], %[[MASK]] {heads_first = array<i1: true, true, false, false>, scale = 2.500000e-01 : f32} : tensor<2x4x16x16xf32>, tensor<2x2x16x16xf32>, tensor<2x16x2x16xf32>, tensor<2x1x16x16xf32> -> tensor<2x16x4x16xf32>
// CHECK-NOT: onnx.Expand
func.func @grouped(%q: tensor<2x4x16x16xf32>, %k: tensor<2x2x16x16xf32>, %vp: tensor<2x16x32xf32>, %mask: tensor<2x1x16x16xf32>) -> tensor<2x16x64xf32> {
  %axis = onnx.Constant dense<2> : tensor<1xi64>
  %wide = onnx.Constant dense<[2, 2, 2, 16, 16]> : tensor<5xi64>
  %flat = onnx.Constant dense<[8, 16, 16]> : tensor<3xi64>
  %heads = onnx.Constant dense<[2, 4, 16, 16]> : tensor<4xi64>
  %split = onnx.Constant dense<[2, 16, 2, 16]> : tensor<4xi64>
  %merged = onnx.Constant dense<[2, 16, 64]> : tensor<3xi64>
  %c = onnx.Constant dense<0.25> : tensor<f32>
  %k1 = onnx.Unsqueeze(%k, %axis) : (tensor<2x2x16x16xf32>, tensor<1xi64>) -> tensor<2x2x1x16x16xf32>
  %k2 = onnx.Expand(%k1, %wide) : (tensor<2x2x1x16x16xf32>, tensor<5xi64>) -> tensor<2x2x2x16x16xf32>
  %k3 = onnx.Reshape(%k2, %flat) : (tensor<2x2x2x16x16xf32>, tensor<3xi64>) -> tensor<8x16x16xf32>
  %k4 = onnx.Transpose(%k3) {perm = array<i64: 0, 2, 1>} : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %kt = onnx.Reshape(%k4, %heads) : (tensor<8x16x16xf32>, tensor<4xi64>) -> tensor<2x4x16x16xf32>
  %v0 = onnx.Reshape(%vp, %split) : (tensor<2x16x32xf32>, tensor<4xi64>) -> tensor<2x16x2x16xf32>
  %v1 = onnx.Transpose(%v0) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %v2 = onnx.Unsqueeze(%v1, %axis) : (tensor<2x2x16x16xf32>, tensor<1xi64>) -> tensor<2x2x1x16x16xf32>
  %v3 = onnx.Expand(%v2, %wide) : (tensor<2x2x1x16x16xf32>, tensor<5xi64>) -> tensor<2x2x2x16x16xf32>
  %v = onnx.Reshape(%v3, %heads) : (tensor<2x2x2x16x16xf32>, tensor<4xi64>) -> tensor<2x4x16x16xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %d = onnx.Mul(%s, %c) : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %m = onnx.Add(%d, %mask) : (tensor<2x4x16x16xf32>, tensor<2x1x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p = onnx.Softmax(%m) {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r = onnx.Reshape(%t, %merged) : (tensor<2x16x4x16xf32>, tensor<3xi64>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// A rotary embedding on Q computed heads first from the projection's
// Transpose (Mul by cos, Slice, Neg, Concat of the last dim's halves, Mul
// by sin, Add): the embedding is made again on the Transpose's input, cos
// and sin reshaped to [1, S, 1, D], so that the op reads [B, S, H, D]
// and no Transpose is left.
// CHECK-LABEL: func @rotary
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x4x16xf32>, %[[K:.*]]: tensor<2x16x4x16xf32>, %[[COS:.*]]: tensor<1x1x16x16xf32>, %[[SIN:.*]]: tensor<1x1x16x16xf32>)
// CHECK-DAG: %[[C:.*]] = onnx.Reshape(%[[COS]], %{{.*}}) : (tensor<1x1x16x16xf32>, tensor<4xi64>) -> tensor<1x16x1x16xf32>
// CHECK-DAG: %[[S:.*]] = onnx.Reshape(%[[SIN]], %{{.*}}) : (tensor<1x1x16x16xf32>, tensor<4xi64>) -> tensor<1x16x1x16xf32>
// CHECK-DAG: onnx.Mul(%[[X]], %[[C]]) : (tensor<2x16x4x16xf32>, tensor<1x16x1x16xf32>) -> tensor<2x16x4x16xf32>
// CHECK-DAG: onnx.Concat({{.*}}) {axis = -1 : i64} : (tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x16x4x16xf32>
// CHECK: %[[R:.*]] = onnx.Add({{.*}}) : (tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>) -> tensor<2x16x4x16xf32>
// CHECK: fuse.attention %[[R]], %[[K]], %[[K]] {scale = 2.500000e-01 : f32} : tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
// CHECK-NOT: onnx.Transpose
func.func @rotary(%x: tensor<2x16x4x16xf32>, %k: tensor<2x16x4x16xf32>, %cos: tensor<1x1x16x16xf32>, %sin: tensor<1x1x16x16xf32>) -> tensor<2x16x4x16xf32> {
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  %half = onnx.Constant dense<8> : tensor<1xi64>
  %end = onnx.Constant dense<16> : tensor<1xi64>
  %last = onnx.Constant dense<-1> : tensor<1xi64>
  %one = onnx.Constant dense<1> : tensor<1xi64>
  %c = onnx.Constant dense<0.25> : tensor<f32>
  %q = onnx.Transpose(%x) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %qc = onnx.Mul(%q, %cos) : (tensor<2x4x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<2x4x16x16xf32>
  %lo = onnx.Slice(%q, %zero, %half) axes(%last) steps(%one) : (tensor<2x4x16x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x16x8xf32>
  %hi = onnx.Slice(%q, %half, %end) axes(%last) steps(%one) : (tensor<2x4x16x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4x16x8xf32>
  %neg = onnx.Neg(%hi) : (tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %rot = onnx.Concat(%neg, %lo) {axis = -1 : i64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  %qs = onnx.Mul(%rot, %sin) : (tensor<2x4x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<2x4x16x16xf32>
  %qr = onnx.Add(%qc, %qs) : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = onnx.Transpose(%k) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %v = onnx.Transpose(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %s = onnx.MatMul(%qr, %kt) : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %d = onnx.Mul(%s, %c) : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %p = onnx.Softmax(%d) {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %t : tensor<2x16x4x16xf32>
}

// -----

// Not attention: a Softmax over another axis, a mask added before the
// scale (its scaled mask is no operand), probabilities read by something
// else too, and heads that broadcast.
// CHECK-LABEL: func @not_attention
// CHECK-NOT: fuse.attention
// CHECK: return
func.func @not_attention(%q: tensor<1x4x6x8xf32>, %kt: tensor<1x4x8x6xf32>, %v: tensor<1x4x6x8xf32>, %mask: tensor<1x1x1x6xf32>, %v1: tensor<1x1x6x8xf32>) -> (tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) {
  %c = onnx.Constant dense<0.5> : tensor<f32>
  %s0 = onnx.MatMul(%q, %kt) : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %p0 = onnx.Softmax(%s0) {axis = 2 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o0 = onnx.MatMul(%p0, %v) : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  %s1 = onnx.MatMul(%q, %kt) : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %a1 = onnx.Add(%s1, %mask) : (tensor<1x4x6x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x4x6x6xf32>
  %m1 = onnx.Mul(%a1, %c) : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %p1 = onnx.Softmax(%m1) {axis = -1 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o1 = onnx.MatMul(%p1, %v) : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  %s2 = onnx.MatMul(%q, %kt) : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %p2 = onnx.Softmax(%s2) {axis = -1 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o2 = onnx.MatMul(%p2, %v) : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  %s3 = onnx.MatMul(%q, %kt) : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %p3 = onnx.Softmax(%s3) {axis = -1 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o3 = onnx.MatMul(%p3, %v1) : (tensor<1x4x6x6xf32>, tensor<1x1x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %o0, %o1, %o2, %p2, %o3 : tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>
}

// -----

// A head through a Reshape that splits a dim and one that merges it back
// ([1, 8, 6, 4] -> [2, 4, 6, 4] -> [1, 8, 6, 4]) is still the first
// tensor: folded (the split's outer piece is the new dim's size).
// CHECK-LABEL: func @split_and_merged
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x4xf32>,
// CHECK: fuse.attention %[[X]],
func.func @split_and_merged(%x: tensor<1x8x6x4xf32>, %k: tensor<1x8x6x4xf32>) -> tensor<1x8x6x4xf32> {
  %split = onnx.Constant dense<[2, 4, 6, 4]> : tensor<4xi64>
  %merged = onnx.Constant dense<[1, 8, 6, 4]> : tensor<4xi64>
  %x1 = onnx.Reshape(%x, %split) : (tensor<1x8x6x4xf32>, tensor<4xi64>) -> tensor<2x4x6x4xf32>
  %x2 = onnx.Reshape(%x1, %merged) : (tensor<2x4x6x4xf32>, tensor<4xi64>) -> tensor<1x8x6x4xf32>
  %q = onnx.Transpose(%x2) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x6x4xf32>) -> tensor<1x6x8x4xf32>
  %kt = onnx.Transpose(%k) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x6x4xf32>) -> tensor<1x6x4x8xf32>
  %v = onnx.Transpose(%k) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x6x4xf32>) -> tensor<1x6x8x4xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<1x6x8x4xf32>, tensor<1x6x4x8xf32>) -> tensor<1x6x8x8xf32>
  %p = onnx.Softmax(%s) {axis = -1 : i64} : (tensor<1x6x8x8xf32>) -> tensor<1x6x8x8xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<1x6x8x8xf32>, tensor<1x6x8x4xf32>) -> tensor<1x6x8x4xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x6x8x4xf32>) -> tensor<1x8x6x4xf32>
  return %t : tensor<1x8x6x4xf32>
}

// -----

// An empty batch: raised, its heads read as they are or through
// Transposes (no crash on the dims of 0).
// CHECK-LABEL: func @empty_batch
// CHECK: fuse.attention
func.func @empty_batch(%x: tensor<0x6x32xf32>) -> tensor<0x6x32xf32> {
  %shape = onnx.Constant dense<[0, 6, 4, 8]> : tensor<4xi64>
  %flat = onnx.Constant dense<[0, 6, 8]> : tensor<3xi64>
  %unflat = onnx.Constant dense<[0, 4, 8, 6]> : tensor<4xi64>
  %back = onnx.Constant dense<[0, 6, 32]> : tensor<3xi64>
  %xs = onnx.Reshape(%x, %shape) {allowzero = 1 : i64} : (tensor<0x6x32xf32>, tensor<4xi64>) -> tensor<0x6x4x8xf32>
  %q = onnx.Transpose(%xs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<0x6x4x8xf32>) -> tensor<0x4x6x8xf32>
  %k3 = onnx.Reshape(%q, %flat) {allowzero = 1 : i64} : (tensor<0x4x6x8xf32>, tensor<3xi64>) -> tensor<0x6x8xf32>
  %k3t = onnx.Transpose(%k3) {perm = array<i64: 0, 2, 1>} : (tensor<0x6x8xf32>) -> tensor<0x8x6xf32>
  %kt = onnx.Reshape(%k3t, %unflat) {allowzero = 1 : i64} : (tensor<0x8x6xf32>, tensor<4xi64>) -> tensor<0x4x8x6xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<0x4x6x8xf32>, tensor<0x4x8x6xf32>) -> tensor<0x4x6x6xf32>
  %p = onnx.Softmax(%s) {axis = -1 : i64} : (tensor<0x4x6x6xf32>) -> tensor<0x4x6x6xf32>
  %o = onnx.MatMul(%p, %q) : (tensor<0x4x6x6xf32>, tensor<0x4x6x8xf32>) -> tensor<0x4x6x8xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<0x4x6x8xf32>) -> tensor<0x6x4x8xf32>
  %r = onnx.Reshape(%t, %back) {allowzero = 1 : i64} : (tensor<0x6x4x8xf32>, tensor<3xi64>) -> tensor<0x6x32xf32>
  return %r : tensor<0x6x32xf32>
}

// -----

// GPT-2: Q, K and V split off one fused projection by a Split (Slices of
// its last dim), each reshaped to heads and transposed. The op reads the
// projection viewed as [B, S, 3 H, D] at head offsets 0, H and 2 H: no
// Slice or Transpose is left.
// CHECK-LABEL: func @fused_projection
// CHECK: %[[P:.*]] = onnx.MatMul
// CHECK: %[[H:.*]] = onnx.Reshape(%[[P]], %{{.*}}) : (tensor<2x6x96xf32>, tensor<4xi64>) -> tensor<2x6x12x8xf32>
// CHECK: fuse.attention %[[H]], %[[H]], %[[H]] {head_offsets = array<i64: 0, 4, 8>, key_value_heads = 4 : i64, scale = {{.*}}} : tensor<2x6x12x8xf32>, tensor<2x6x12x8xf32>, tensor<2x6x12x8xf32> -> tensor<2x6x4x8xf32>
// CHECK-NOT: onnx.Slice
func.func @fused_projection(%x: tensor<2x6x32xf32>, %w: tensor<32x96xf32>) -> tensor<2x6x32xf32> {
  %shape = onnx.Constant dense<[2, 6, 4, 8]> : tensor<4xi64>
  %back = onnx.Constant dense<[2, 6, 32]> : tensor<3xi64>
  %axis = onnx.Constant dense<2> : tensor<1xi64>
  %s0 = onnx.Constant dense<0> : tensor<1xi64>
  %s1 = onnx.Constant dense<32> : tensor<1xi64>
  %s2 = onnx.Constant dense<64> : tensor<1xi64>
  %s3 = onnx.Constant dense<96> : tensor<1xi64>
  %c = onnx.Constant dense<2.828427> : tensor<f32>
  %qkv = onnx.MatMul(%x, %w) : (tensor<2x6x32xf32>, tensor<32x96xf32>) -> tensor<2x6x96xf32>
  %q2 = onnx.Slice(%qkv, %s0, %s1) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %k2 = onnx.Slice(%qkv, %s1, %s2) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %v2 = onnx.Slice(%qkv, %s2, %s3) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %qs = onnx.Reshape(%q2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %q = onnx.Transpose(%qs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %ks = onnx.Reshape(%k2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %kt = onnx.Transpose(%ks) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x8x6xf32>
  %vs = onnx.Reshape(%v2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %v = onnx.Transpose(%vs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %d = onnx.Div(%s, %c) : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %p = onnx.Softmax(%d) {axis = -1 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  %r = onnx.Reshape(%t, %back) : (tensor<2x6x4x8xf32>, tensor<3xi64>) -> tensor<2x6x32xf32>
  return %r : tensor<2x6x32xf32>
}

// -----

// The same split of a graph input: a view of it would be a copy of all of
// it, so the Slices stay and the op reads their Reshapes (no offsets); a
// Slice that starts inside a head (at 4, head size 8) stays too.
// CHECK-LABEL: func @slices_stay
// CHECK-COUNT-3: onnx.Slice
// CHECK: fuse.attention
// CHECK-NOT: head_offsets
// CHECK-SAME: -> tensor<2x6x4x8xf32>
// CHECK: onnx.Slice
// CHECK: fuse.attention
// CHECK-NOT: head_offsets
// CHECK-SAME: -> tensor<2x6x4x8xf32>
func.func @slices_stay(%qkv: tensor<2x6x96xf32>, %x: tensor<2x6x32xf32>, %w: tensor<32x104xf32>) -> (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) {
  %shape = onnx.Constant dense<[2, 6, 4, 8]> : tensor<4xi64>
  %axis = onnx.Constant dense<2> : tensor<1xi64>
  %s0 = onnx.Constant dense<0> : tensor<1xi64>
  %s1 = onnx.Constant dense<32> : tensor<1xi64>
  %s2 = onnx.Constant dense<64> : tensor<1xi64>
  %s3 = onnx.Constant dense<96> : tensor<1xi64>
  %s4 = onnx.Constant dense<4> : tensor<1xi64>
  %s5 = onnx.Constant dense<36> : tensor<1xi64>
  %q2 = onnx.Slice(%qkv, %s0, %s1) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %k2 = onnx.Slice(%qkv, %s1, %s2) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %v2 = onnx.Slice(%qkv, %s2, %s3) axes(%axis) : (tensor<2x6x96xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %qs = onnx.Reshape(%q2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %q = onnx.Transpose(%qs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %ks = onnx.Reshape(%k2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %kt = onnx.Transpose(%ks) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x8x6xf32>
  %vs = onnx.Reshape(%v2, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %v = onnx.Transpose(%vs) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %s = onnx.MatMul(%q, %kt) : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p = onnx.Softmax(%s) {axis = -1 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = onnx.MatMul(%p, %v) : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %t = onnx.Transpose(%o) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  %y = onnx.MatMul(%x, %w) : (tensor<2x6x32xf32>, tensor<32x104xf32>) -> tensor<2x6x104xf32>
  %q3 = onnx.Slice(%y, %s4, %s5) axes(%axis) : (tensor<2x6x104xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x32xf32>
  %qh = onnx.Reshape(%q3, %shape) : (tensor<2x6x32xf32>, tensor<4xi64>) -> tensor<2x6x4x8xf32>
  %q4 = onnx.Transpose(%qh) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %s6 = onnx.MatMul(%q4, %kt) : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p6 = onnx.Softmax(%s6) {axis = -1 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o6 = onnx.MatMul(%p6, %v) : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %t6 = onnx.Transpose(%o6) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  return %t, %t6 : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
}

// -----

// Q, K and V projected from one input (MatMul + bias Add, Reshape to
// heads): one MatMul by [Wq | Wk | Wv], one Add of [bq | bk | bv], viewed
// as [1, 4, 6, 4] heads; the op reads Q, K and V at head offsets 0, 2, 4.
// Without fuse-projections the op is left as it is.
// CHECK-LABEL: func.func @qkv_projections
// CHECK-DAG: %[[W:.*]] = onnx.Constant dense_resource<attention_qkv_W> : tensor<8x24xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense_resource<attention_qkv_b> : tensor<24xf32>
// CHECK: %[[M:.*]] = onnx.MatMul(%arg0, %[[W]]) : (tensor<1x4x8xf32>, tensor<8x24xf32>) -> tensor<1x4x24xf32>
// CHECK: %[[A:.*]] = onnx.Add(%[[M]], %[[B]]) : (tensor<1x4x24xf32>, tensor<24xf32>) -> tensor<1x4x24xf32>
// CHECK: %[[P:.*]] = onnx.Reshape(%[[A]], %{{.*}}) : (tensor<1x4x24xf32>, tensor<4xi64>) -> tensor<1x4x6x4xf32>
// CHECK: fuse.attention %[[P]], %[[P]], %[[P]] {head_offsets = array<i64: 0, 2, 4>, key_value_heads = 2 : i64, scale = 5.000000e-01 : f32} : tensor<1x4x6x4xf32>, tensor<1x4x6x4xf32>, tensor<1x4x6x4xf32> -> tensor<1x4x2x4xf32>
// CHECK-NOT: onnx.MatMul
// SPLIT-LABEL: func.func @qkv_projections
// SPLIT-COUNT-3: onnx.MatMul
// SPLIT: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f32}
func.func @qkv_projections(%x: tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32> {
  %wq = onnx.Constant dense<0.1> : tensor<8x8xf32>
  %wk = onnx.Constant dense<0.2> : tensor<8x8xf32>
  %wv = onnx.Constant dense<0.3> : tensor<8x8xf32>
  %bq = onnx.Constant dense<1.0> : tensor<8xf32>
  %bk = onnx.Constant dense<2.0> : tensor<8xf32>
  %bv = onnx.Constant dense<3.0> : tensor<8xf32>
  %shape = onnx.Constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %q = onnx.MatMul(%x, %wq) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %qb = onnx.Add(%q, %bq) : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %qh = onnx.Reshape(%qb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %k = onnx.MatMul(%x, %wk) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %kb = onnx.Add(%bk, %k) : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %kh = onnx.Reshape(%kb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %v = onnx.MatMul(%x, %wv) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %vb = onnx.Add(%v, %bv) : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %vh = onnx.Reshape(%vb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %o = fuse.attention %qh, %kh, %vh {scale = 0.5 : f32} : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x4x2x4xf32>
  return %o : tensor<1x4x2x4xf32>
}

// -----

// V projected from another input: nothing to share.
// CHECK-LABEL: func.func @other_input
// CHECK-COUNT-3: onnx.MatMul
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f32}
func.func @other_input(%x: tensor<1x4x8xf32>, %y: tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32> {
  %w = onnx.Constant dense<0.1> : tensor<8x8xf32>
  %shape = onnx.Constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %q = onnx.MatMul(%x, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %qh = onnx.Reshape(%q, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %k = onnx.MatMul(%x, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %kh = onnx.Reshape(%k, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %v = onnx.MatMul(%y, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %vh = onnx.Reshape(%v, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %o = fuse.attention %qh, %kh, %vh {scale = 0.5 : f32} : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x4x2x4xf32>
  return %o : tensor<1x4x2x4xf32>
}

// -----

// A one-element bias broadcasts: no columns to put side by side.
// CHECK-LABEL: func.func @scalar_bias
// CHECK-COUNT-3: onnx.MatMul
// CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f32}
func.func @scalar_bias(%x: tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32> {
  %w = onnx.Constant dense<0.1> : tensor<8x8xf32>
  %b = onnx.Constant dense<1.0> : tensor<1xf32>
  %shape = onnx.Constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %q = onnx.MatMul(%x, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %qb = onnx.Add(%q, %b) : (tensor<1x4x8xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %qh = onnx.Reshape(%qb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %k = onnx.MatMul(%x, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %kb = onnx.Add(%k, %b) : (tensor<1x4x8xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %kh = onnx.Reshape(%kb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %v = onnx.MatMul(%x, %w) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %vb = onnx.Add(%v, %b) : (tensor<1x4x8xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %vh = onnx.Reshape(%vb, %shape) : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %o = fuse.attention %qh, %kh, %vh {scale = 0.5 : f32} : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32> -> tensor<1x4x2x4xf32>
  return %o : tensor<1x4x2x4xf32>
}
