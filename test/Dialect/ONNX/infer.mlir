// RUN: fuse-opt %s -split-input-file -fuse-simplify-graph | FileCheck %s
// Result type inference of the onnx ops, seen through fuse-simplify-graph,
// which re-infers every result type from the operands: each op here is
// written with an unranked (or less static) result, and the CHECK lines pin
// the type inferred for it.

// CHECK-LABEL: func @elementwise
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf16>)
func.func @elementwise(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xi1>, %e: tensor<i32>) -> (tensor<*xf32>, tensor<*xi1>, tensor<*xf32>, tensor<*xi64>, tensor<*xf16>) {
  // CHECK: onnx.Pow(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
  %0 = onnx.Pow(%b, %e) : (tensor<3xf32>, tensor<i32>) -> tensor<*xf32>
  // CHECK: onnx.Sum(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Sum(%x, %0, %b) : (tensor<2x3xf32>, tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK: onnx.Greater(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = onnx.Greater(%1, %b) : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xi1>
  // CHECK: onnx.Where(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = onnx.Where(%c, %b, %1) : (tensor<2x1xi1>, tensor<3xf32>, tensor<*xf32>) -> tensor<*xf32>
  // CHECK: onnx.Cast(%{{.*}}) {to = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %4 = onnx.Cast(%3) {to = 7 : i64} : (tensor<*xf32>) -> tensor<*xi64>
  // CHECK: onnx.Cast(%{{.*}}) {to = 10 : i64} : (tensor<2x3xi64>) -> tensor<2x3xf16>
  %5 = onnx.Cast(%4) {to = 10 : i64} : (tensor<*xi64>) -> tensor<*xf16>
  return %1, %2, %3, %4, %5 : tensor<*xf32>, tensor<*xi1>, tensor<*xf32>, tensor<*xi64>, tensor<*xf16>
}

// -----

// CHECK-LABEL: func @layout
func.func @layout(%x: tensor<2x3x4xf32>, %s: tensor<1x3x1xf32>, %d: tensor<2x?xf32>, %e: tensor<?x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: onnx.Transpose(%{{.*}}) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = onnx.Transpose(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  %a = onnx.Constant dense<[-1]> : tensor<1xi64>
  // CHECK: onnx.Squeeze(%{{.*}}, %{{.*}}) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %1 = onnx.Squeeze(%s, %a) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<*xf32>
  %u = onnx.Constant dense<[1, 3]> : tensor<2xi64>
  // CHECK: onnx.Unsqueeze(%{{.*}}, %{{.*}}) : (tensor<1x3xf32>, tensor<2xi64>) -> tensor<1x1x3x1xf32>
  %2 = onnx.Unsqueeze(%1, %u) : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  // Dims off the axis come from whichever input knows them.
  // CHECK: onnx.Concat(%{{.*}}, %{{.*}}) {axis = 0 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %3 = onnx.Concat(%d, %e) {axis = 0 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<*xf32>
  // CHECK: onnx.Concat(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %4 = onnx.Concat(%d, %e, %d) {axis = 1 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<*xf32>
  // Squeeze without axes of a dynamic dim: unknown rank.
  // CHECK: onnx.Squeeze(%{{.*}}) : (tensor<2x?xf32>) -> tensor<*xf32>
  %5 = onnx.Squeeze(%d) : (tensor<2x?xf32>) -> tensor<*xf32>
  return %0, %2, %3, %4, %5, %1 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func @slice_gather_expand
func.func @slice_gather_expand(%x: tensor<10x6xf32>, %ids: tensor<2x2xi64>, %y: tensor<?x6xf32>, %b: tensor<1xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %s = onnx.Constant dense<[-1]> : tensor<1xi64>
  %e = onnx.Constant dense<[-9223372036854775807]> : tensor<1xi64>
  %step = onnx.Constant dense<[-2]> : tensor<1xi64>
  %zero = onnx.Constant dense<[0]> : tensor<1xi64>
  // Rows 9, 7, 5, 3, 1: the end clamps to before the first row.
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) axes(%{{.*}}) steps(%{{.*}}) : {{.*}} -> tensor<5x6xf32>
  %0 = onnx.Slice(%x, %s, %e) axes(%zero) steps(%step) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  // A dynamic dim stays dynamic; the sliced static dim is known.
  %three = onnx.Constant dense<[3]> : tensor<1xi64>
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2xf32>
  %ss = onnx.Constant dense<[0, 1]> : tensor<2xi64>
  %ee = onnx.Constant dense<[1, 3]> : tensor<2xi64>
  %1 = onnx.Slice(%y, %ss, %ee) : (tensor<?x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  // Bounds that are not constant: only the rank.
  // CHECK: onnx.Slice(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  %2 = onnx.Slice(%x, %b, %three) : (tensor<10x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: onnx.Gather(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<10x6xf32>, tensor<2x2xi64>) -> tensor<10x2x2xf32>
  %3 = onnx.Gather(%x, %ids) {axis = 1 : i64} : (tensor<10x6xf32>, tensor<2x2xi64>) -> tensor<*xf32>
  // Expand's shape broadcasts with the input's: 1 keeps the input dim.
  %shape = onnx.Constant dense<[3, 1, 1]> : tensor<3xi64>
  // CHECK: onnx.Expand(%{{.*}}, %{{.*}}) : (tensor<10x6xf32>, tensor<3xi64>) -> tensor<3x10x6xf32>
  %4 = onnx.Expand(%x, %shape) : (tensor<10x6xf32>, tensor<3xi64>) -> tensor<*xf32>
  // A shape that is not constant: unknown.
  // CHECK: onnx.Expand(%{{.*}}, %{{.*}}) : (tensor<10x6xf32>, tensor<1xi64>) -> tensor<*xf32>
  %5 = onnx.Expand(%x, %b) : (tensor<10x6xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func @reductions
// CHECK-SAME: -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x1x8xf32>, tensor<2x8xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x8xf32>)
func.func @reductions(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: onnx.Softmax(%{{.*}}) {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %0 = onnx.Softmax(%x) {axis = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<*xf32>
  // CHECK: onnx.LayerNormalization(%{{.*}}, %{{.*}}) : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %1 = onnx.LayerNormalization(%x, %g) : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<*xf32>
  %axis = onnx.Constant dense<-2> : tensor<1xi64>
  // CHECK: onnx.ReduceMean(%{{.*}}, %{{.*}}) : (tensor<2x3x8xf32>, tensor<1xi64>) -> tensor<2x1x8xf32>
  %2 = onnx.ReduceMean(%x, %axis) : (tensor<2x3x8xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: onnx.ReduceSum(%{{.*}}, %{{.*}}) {keepdims = 0 : i64} : (tensor<2x3x8xf32>, tensor<1xi64>) -> tensor<2x8xf32>
  %3 = onnx.ReduceSum(%x, %axis) {keepdims = 0 : i64} : (tensor<2x3x8xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: onnx.ReduceMax(%{{.*}}) : (tensor<2x3x8xf32>) -> tensor<1x1x1xf32>
  %4 = onnx.ReduceMax(%x) : (tensor<2x3x8xf32>) -> tensor<*xf32>
  // CHECK: onnx.ReduceMin(%{{.*}}) {keepdims = 0 : i64} : (tensor<2x3x8xf32>) -> tensor<f32>
  %5 = onnx.ReduceMin(%x) {keepdims = 0 : i64} : (tensor<2x3x8xf32>) -> tensor<*xf32>
  // CHECK: onnx.ReduceMean(%{{.*}}) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %6 = onnx.ReduceMean(%x) {noop_with_empty_axes = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Shape of a partly dynamic tensor does not fold; its length is inferred.
// CHECK-LABEL: func @shape_ops
// CHECK-SAME: -> (tensor<2xi64>, tensor<?xi64>)
func.func @shape_ops(%x: tensor<2x?x4xf32>, %u: tensor<*xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  // CHECK: onnx.Shape(%{{.*}}) {start = 1 : i64} : (tensor<2x?x4xf32>) -> tensor<2xi64>
  %0 = onnx.Shape(%x) {start = 1 : i64} : (tensor<2x?x4xf32>) -> tensor<?xi64>
  // CHECK: onnx.Shape(%{{.*}}) : (tensor<*xf32>) -> tensor<?xi64>
  %1 = onnx.Shape(%u) : (tensor<*xf32>) -> tensor<?xi64>
  return %0, %1 : tensor<?xi64>, tensor<?xi64>
}

// -----

// GatherND: indices.shape[:-1] + data.shape[batch_dims + k:]; a batch dim
// that is dynamic in 'indices' comes from 'data'.
// CHECK-LABEL: func @gather_nd
func.func @gather_nd(%x: tensor<3x4x5xf32>, %i: tensor<6x2xi64>, %b: tensor<?x2x1xi64>, %k: tensor<2x?xi64>, %p: tensor<3x2xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: onnx.GatherND(%{{.*}}, %{{.*}}) : (tensor<3x4x5xf32>, tensor<6x2xi64>) -> tensor<6x5xf32>
  %0 = onnx.GatherND(%x, %i) : (tensor<3x4x5xf32>, tensor<6x2xi64>) -> tensor<*xf32>
  // CHECK: onnx.GatherND(%{{.*}}, %{{.*}}) {batch_dims = 1 : i64} : (tensor<3x4x5xf32>, tensor<?x2x1xi64>) -> tensor<3x2x5xf32>
  %1 = onnx.GatherND(%x, %b) {batch_dims = 1 : i64} : (tensor<3x4x5xf32>, tensor<?x2x1xi64>) -> tensor<*xf32>
  // CHECK: onnx.GatherND(%{{.*}}, %{{.*}}) {batch_dims = 1 : i64} : (tensor<3x4x5xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  %2 = onnx.GatherND(%x, %p) {batch_dims = 1 : i64} : (tensor<3x4x5xf32>, tensor<3x2xi64>) -> tensor<*xf32>
  // The tuple length is not known: unranked.
  // CHECK: onnx.GatherND(%{{.*}}, %{{.*}}) : (tensor<3x4x5xf32>, tensor<2x?xi64>) -> tensor<*xf32>
  %3 = onnx.GatherND(%x, %k) : (tensor<3x4x5xf32>, tensor<2x?xi64>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Mod and PRelu broadcast (PRelu to X's shape); LRN and the normalizations
// keep the input's type; ArgMax/ArgMin give i64 indices.
// CHECK-LABEL: func @coverage_ops
func.func @coverage_ops(%x: tensor<2x4x3x3xf32>, %v: tensor<3xf32>, %s: tensor<4xf32>, %i: tensor<2x3xi32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xi32>) {
  // CHECK: onnx.Mod(%{{.*}}, %{{.*}}) {fmod = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  %0 = onnx.Mod(%x, %v) {fmod = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK: onnx.PRelu(%{{.*}}, %{{.*}}) : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  %1 = onnx.PRelu(%x, %v) : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK: onnx.LRN(%{{.*}}) {size = 3 : i64} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %2 = onnx.LRN(%x) {size = 3 : i64} : (tensor<2x4x3x3xf32>) -> tensor<*xf32>
  // CHECK: onnx.InstanceNormalization(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %3 = onnx.InstanceNormalization(%x, %s, %s) : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  // CHECK: onnx.GroupNormalization(%{{.*}}, %{{.*}}, %{{.*}}) {num_groups = 2 : i64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %4 = onnx.GroupNormalization(%x, %s, %s) {num_groups = 2 : i64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  // CHECK: onnx.RMSNormalization(%{{.*}}, %{{.*}}) : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  %5 = onnx.RMSNormalization(%x, %v) : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK: onnx.ArgMax(%{{.*}}) {axis = 1 : i64} : (tensor<2x4x3x3xf32>) -> tensor<2x1x3x3xi64>
  %6 = onnx.ArgMax(%x) {axis = 1 : i64} : (tensor<2x4x3x3xf32>) -> tensor<*xi64>
  // CHECK: onnx.ArgMin(%{{.*}}) {axis = -1 : i64, keepdims = 0 : i64} : (tensor<2x3xi32>) -> tensor<2xi64>
  %7 = onnx.ArgMin(%i) {axis = -1 : i64, keepdims = 0 : i64} : (tensor<2x3xi32>) -> tensor<*xi64>
  %axis = onnx.Constant dense<1> : tensor<i32>
  // CHECK: onnx.CumSum(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  %8 = onnx.CumSum(%i, %axis) : (tensor<2x3xi32>, tensor<i32>) -> tensor<*xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xi32>
}

// -----

// Pad: constant pads (and axes) give the shape, negative pads crop; pads
// from a value only the rank. Tile multiplies the dims by 'repeats';
// DepthToSpace and SpaceToDepth move blocksize^2 between channels and
// space.
// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<1x8x2x3xf32>, %p: tensor<8xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %pads = onnx.Constant dense<[0, 0, 1, -1, 0, 0, 2, 1]> : tensor<8xi64>
  // CHECK: onnx.Pad(%{{.*}}, %{{.*}}) {mode = "edge"} : (tensor<1x8x2x3xf32>, tensor<8xi64>) -> tensor<1x8x5x3xf32>
  %0 = onnx.Pad(%x, %pads) {mode = "edge"} : (tensor<1x8x2x3xf32>, tensor<8xi64>) -> tensor<*xf32>
  %two = onnx.Constant dense<[1, 2]> : tensor<2xi64>
  %axes = onnx.Constant dense<[-1]> : tensor<1xi64>
  %v = onnx.Constant dense<1.5> : tensor<f32>
  // CHECK: onnx.Pad(%{{.*}}, %{{.*}}) constant_value(%{{.*}}) axes(%{{.*}}) : (tensor<1x8x2x3xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<1x8x2x6xf32>
  %1 = onnx.Pad(%x, %two) constant_value(%v) axes(%axes) : (tensor<1x8x2x3xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: onnx.Pad(%{{.*}}, %{{.*}}) : (tensor<1x8x2x3xf32>, tensor<8xi64>) -> tensor<?x?x?x?xf32>
  %2 = onnx.Pad(%x, %p) : (tensor<1x8x2x3xf32>, tensor<8xi64>) -> tensor<*xf32>
  %r = onnx.Constant dense<[2, 1, 1, 3]> : tensor<4xi64>
  // CHECK: onnx.Tile(%{{.*}}, %{{.*}}) : (tensor<1x8x2x3xf32>, tensor<4xi64>) -> tensor<2x8x2x9xf32>
  %3 = onnx.Tile(%x, %r) : (tensor<1x8x2x3xf32>, tensor<4xi64>) -> tensor<*xf32>
  // CHECK: onnx.DepthToSpace(%{{.*}}) {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %4 = onnx.DepthToSpace(%x) {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<*xf32>
  // CHECK: onnx.SpaceToDepth(%{{.*}}) {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %5 = onnx.SpaceToDepth(%4) {blocksize = 2 : i64} : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: onnx.Trilu(%{{.*}}) {upper = 0 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x8x2x3xf32>
  %6 = onnx.Trilu(%x) {upper = 0 : i64} : (tensor<1x8x2x3xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Size is an i64 scalar; it folds to a constant for a static shape.
// CHECK-LABEL: func @size
// CHECK: %[[N:.*]] = onnx.Constant dense<24> : tensor<i64>
// CHECK: %[[D:.*]] = onnx.Size(%{{.*}}) : (tensor<2x?xf32>) -> tensor<i64>
// CHECK: return %[[N]], %[[D]]
func.func @size(%x: tensor<2x3x4xf32>, %y: tensor<2x?xf32>) -> (tensor<*xi64>, tensor<*xi64>) {
  %0 = onnx.Size(%x) : (tensor<2x3x4xf32>) -> tensor<*xi64>
  %1 = onnx.Size(%y) : (tensor<2x?xf32>) -> tensor<*xi64>
  return %0, %1 : tensor<*xi64>, tensor<*xi64>
}

// -----

// BitShift broadcasts its integer operands.
// CHECK-LABEL: func @bitshift
func.func @bitshift(%x: tensor<2x3xui8>, %y: tensor<3xui8>) -> tensor<*xui8> {
  // CHECK: onnx.BitShift(%{{.*}}, %{{.*}}) {direction = "LEFT"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %0 = onnx.BitShift(%x, %y) {direction = "LEFT"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<*xui8>
  return %0 : tensor<*xui8>
}

// -----

// CumProd keeps its input's type.
// CHECK-LABEL: func @cumprod
func.func @cumprod(%x: tensor<2x3xf64>) -> tensor<*xf64> {
  %axis = onnx.Constant dense<-1> : tensor<i64>
  // CHECK: onnx.CumProd(%{{.*}}, %{{.*}}) {exclusive = 1 : i64} : (tensor<2x3xf64>, tensor<i64>) -> tensor<2x3xf64>
  %0 = onnx.CumProd(%x, %axis) {exclusive = 1 : i64} : (tensor<2x3xf64>, tensor<i64>) -> tensor<*xf64>
  return %0 : tensor<*xf64>
}
