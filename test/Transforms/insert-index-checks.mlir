// RUN: fuse-opt %s -split-input-file -fuse-insert-index-checks -verify-diagnostics | FileCheck %s

// A Gather of run-time indices: the largest index outside [-5, 5), clipped
// to +-2^24 and as an f32, or -inf, becomes a result marked as the node's
// check.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: -> (tensor<3x4xf32> {onnx.name = "y"}, tensor<f32> {fuse.index_check = #fuse.index_check<node = "emb", op = "Gather", range = "axis 0 of size 5">})
// CHECK: %[[Y:.*]] = onnx.Gather
// CHECK-DAG: %[[HI:.*]] = onnx.Constant dense<5> : tensor<i64>
// CHECK-DAG: %[[LO:.*]] = onnx.Constant dense<-5> : tensor<i64>
// CHECK: %[[BELOW:.*]] = onnx.Less(%[[IDS:.*]], %[[LO]])
// CHECK: %[[ABOVE:.*]] = onnx.GreaterOrEqual(%[[IDS]], %[[HI]])
// CHECK: %[[BAD:.*]] = onnx.Or(%[[BELOW]], %[[ABOVE]])
// CHECK: %[[FLOOR:.*]] = onnx.Constant dense<-16777216> : tensor<i64>
// CHECK: %[[UP:.*]] = onnx.Max(%[[IDS]], %[[FLOOR]])
// CHECK: %[[CEIL:.*]] = onnx.Constant dense<16777216> : tensor<i64>
// CHECK: %[[CLIPPED:.*]] = onnx.Min(%[[UP]], %[[CEIL]])
// CHECK: %[[F:.*]] = onnx.Cast(%[[CLIPPED]]) {to = 1 : i64} : (tensor<3xi64>) -> tensor<3xf32>
// CHECK: %[[NONE:.*]] = onnx.Constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[KEY:.*]] = onnx.Where(%[[BAD]], %[[F]], %[[NONE]])
// CHECK: %[[CHECK:.*]] = onnx.ReduceMax(%[[KEY]]) {keepdims = 0 : i64} : (tensor<3xf32>) -> tensor<f32>
// CHECK: return %[[Y]], %[[CHECK]]
func.func @gather(%ids: tensor<3xi64>) -> (tensor<3x4xf32> {onnx.name = "y"}) {
  %t = onnx.Constant dense<1.0> : tensor<5x4xf32>
  %y = onnx.Gather(%t, %ids) : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32> loc("emb")
  return %y : tensor<3x4xf32>
}

// -----

// Constant and empty indices need no check.
// CHECK-LABEL: func.func @constant_indices
// CHECK-SAME: -> tensor<2x4xf32>
// CHECK-NOT: onnx.ReduceMax
func.func @constant_indices(%t: tensor<5x4xf32>, %e: tensor<0xi64>) -> tensor<2x4xf32> {
  %i = onnx.Constant dense<[0, 4]> : tensor<2xi64>
  %y = onnx.Gather(%t, %i) : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %z = onnx.Gather(%t, %e) : (tensor<5x4xf32>, tensor<0xi64>) -> tensor<0x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Int32 indices are checked in their own type; a negative axis counts from
// the end; GatherElements names its axis too.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: fuse.index_check = #fuse.index_check<node = "ge", op = "GatherElements", range = "axis 1 of size 3">
// CHECK: onnx.Constant dense<3> : tensor<i32>
// CHECK: onnx.Less(%{{.*}}, %{{.*}}) : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi1>
// CHECK: onnx.Cast(%{{.*}}) {to = 1 : i64} : (tensor<2x2xi32>) -> tensor<2x2xf32>
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %y = onnx.GatherElements(%x, %i) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32> loc("ge")
  return %y : tensor<2x2xf32>
}

// -----

// GatherND: the bounds run along the indices' last dim, after the batch
// dims.
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: fuse.index_check = #fuse.index_check<node = "gnd", op = "GatherND", range = "dims 1 and 2 of sizes 3 and 4">
// CHECK-DAG: onnx.Constant dense<[3, 4]> : tensor<2xi64>
// CHECK-DAG: onnx.Constant dense<[-3, -4]> : tensor<2xi64>
// CHECK: onnx.ReduceMax({{.*}}) {keepdims = 0 : i64} : (tensor<2x5x2xf32>) -> tensor<f32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x2xi64>) -> tensor<2x5xf32> {
  %y = onnx.GatherND(%x, %i) {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x2xi64>) -> tensor<2x5xf32> loc("gnd")
  return %y : tensor<2x5xf32>
}

// -----

// Run twice, the pass adds no second check.
// CHECK-LABEL: func.func @checked
// CHECK-NOT: onnx.ReduceMax
func.func @checked(%ids: tensor<3xi64>, %c: tensor<f32>) -> (tensor<3x4xf32>, tensor<f32> {fuse.index_check = #fuse.index_check<node = "emb", op = "Gather", range = "axis 0 of size 5">}) {
  %t = onnx.Constant dense<1.0> : tensor<5x4xf32>
  %y = onnx.Gather(%t, %ids) : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %y, %c : tensor<3x4xf32>, tensor<f32>
}

// -----

// expected-error @+1 {{index check result 0 must be a tensor<f32>, not 'tensor<2xf32>'}}
func.func @bad_type(%c: tensor<2xf32>) -> (tensor<2xf32> {fuse.index_check = #fuse.index_check<node = "g", op = "Gather", range = "axis 0 of size 5">}) {
  return %c : tensor<2xf32>
}

// -----

// expected-error @+1 {{index_check op must be Gather, GatherElements or GatherND, not 'Slice'}}
func.func @bad_op(%c: tensor<f32>) -> (tensor<f32> {fuse.index_check = #fuse.index_check<node = "g", op = "Slice", range = "axis 0 of size 5">}) {
  return %c : tensor<f32>
}
