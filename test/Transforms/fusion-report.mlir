// RUN: fuse-opt %s -fuse-chains -fusion-report -o /dev/null 2>&1 | FileCheck %s
// RUN: fuse-opt %s -fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// After fuse-select-strategies each group says how it runs, and a group
// split off a library call's epilogue says so.
// RUN: fuse-opt %s -fuse-chains -fuse-select-strategies -fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRATEGY
// The report leaves the IR as it is.
// RUN: fuse-opt %s -fuse-chains -fusion-report 2>/dev/null | FileCheck %s --check-prefix=IR
// The same as JSON, which parses; and as a Graphviz graph.
// RUN: fuse-opt %s -fuse-chains -fuse-select-strategies -fusion-report=format=json -o /dev/null 2> %t.json
// RUN: %python -c "import json, sys; json.load(open(sys.argv[1]))" %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: fuse-opt %s -fuse-chains -fusion-report=format=dot -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: not fuse-opt %s -fusion-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// BADFORMAT: for the --format option: Cannot find option named 'xml'!

// 1x1x16x387 f32 = 24768 bytes, written once and read once by the Relu.
// CHECK-LABEL: fusion report for @avgpool_relu
// CHECK-NEXT: group 0 (pool_epilogue): onnx.AveragePool -> onnx.Relu
// CHECK-NEXT: intermediates: 1 (tensor<1x1x16x387xf32>)
// CHECK-NEXT: intermediate bytes saved: 49536 (24768 written + 24768 read)
// CHECK-NEXT: kernels: 2 before fusion, 1 after (1 group, 0 unfused ops)
// Without fuse-chains every op is alone; what would have fused says so.
// UNFUSED-LABEL: fusion report for @avgpool_relu
// UNFUSED-NEXT: no fusion groups
// UNFUSED-NEXT: alone: onnx.AveragePool, not_formed: it could fuse into onnx.Relu, which reads its result, yet no group was formed (fuse-chains did not run, or max-group-ops cut the group)
// UNFUSED-NEXT: alone: onnx.Relu, not_formed: it could fuse with onnx.AveragePool, which computes its input, yet no group was formed (fuse-chains did not run, or max-group-ops cut the group)
// UNFUSED-NEXT: kernels: 2 before fusion, 2 after (0 groups, 2 unfused ops)
// IR: fuse.group pool_epilogue
func.func @avgpool_relu(%x: tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x16x387xf32>) -> tensor<1x1x16x387xf32>
  return %1 : tensor<1x1x16x387xf32>
}

// The diamond's Relu result (64 bytes) is read by two ops: 64 + 2 x 64;
// Sigmoid's and Tanh's by one each: 2 x (64 + 64). Constants are not
// kernels; the Reshape of the group's result, a graph output, is a view.
// CHECK-LABEL: fusion report for @mixed
// CHECK-NEXT: group 0 (elementwise): onnx.Relu -> onnx.Sigmoid -> onnx.Tanh -> onnx.Add
// CHECK-NEXT: intermediates: 3 (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NEXT: intermediate bytes saved: 448 (192 written + 256 read)
// CHECK-NEXT: alone: onnx.Reshape (view, no kernel), view: onnx.Reshape of a result the plan computes: the same bytes under other dims, so no kernel runs it
// CHECK-NEXT: kernels: 4 before fusion, 1 after (1 group, 0 unfused ops); 1 view, no kernel
func.func @mixed(%x: tensor<16xf32>) -> tensor<4x4xf32> {
  %s = onnx.Constant dense<[4, 4]> : tensor<2xi64>
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = onnx.Tanh(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = onnx.Add(%1, %2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = onnx.Reshape(%3, %s) : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// A Reshape of a result some kernel computes is a view, a graph output or
// not: the plan aliases its bytes and launches nothing, so it counts as no
// kernel. One of a graph input is a copy.
// CHECK-LABEL: fusion report for @views
// CHECK-NEXT: no fusion groups
// CHECK-NEXT: alone: onnx.Relu, several_users
// CHECK-NEXT: alone: onnx.Reshape (view, no kernel), view: onnx.Reshape of a result the plan computes: the same bytes under other dims, so no kernel runs it
// CHECK-NEXT: alone: onnx.Exp, graph_output
// CHECK-NEXT: alone: onnx.Reshape, not_fusible
// CHECK-NEXT: alone: onnx.Reshape (view, no kernel), view
// CHECK-NEXT: kernels: 3 before fusion, 3 after (0 groups, 3 unfused ops); 2 views, no kernel
func.func @views(%x: tensor<16xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x8xf32>) {
  %s = onnx.Constant dense<[4, 4]> : tensor<2xi64>
  %t = onnx.Constant dense<[2, 8]> : tensor<2xi64>
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Reshape(%0, %s) : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  %2 = onnx.Exp(%1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = onnx.Reshape(%x, %s) : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  %4 = onnx.Reshape(%0, %t) : (tensor<16xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %2, %3, %4 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x8xf32>
}

// A Slice of consecutive elements of a computed result is a view when it
// starts 256-byte aligned or only graph outputs read it (a Split's parts);
// one of elements that are not consecutive is a kernel.
// CHECK-LABEL: fusion report for @slice_views
// CHECK-NEXT: no fusion groups
// CHECK-NEXT: alone: onnx.Relu, several_users
// CHECK-NEXT: alone: onnx.Slice (view, no kernel), view: onnx.Slice of consecutive elements of a result the plan computes: some of its bytes, so no kernel runs it
// CHECK-NEXT: alone: onnx.Slice (view, no kernel), view
// CHECK-NEXT: alone: onnx.Slice, graph_output
// CHECK-NEXT: kernels: 2 before fusion, 2 after (0 groups, 2 unfused ops); 2 views, no kernel
func.func @slice_views(%x: tensor<4x64xf32>) -> (tensor<1x64xf32>, tensor<3x64xf32>, tensor<4x2xf32>) {
  %c0 = onnx.Constant dense<0> : tensor<1xi64>
  %c1 = onnx.Constant dense<1> : tensor<1xi64>
  %c2 = onnx.Constant dense<2> : tensor<1xi64>
  %c4 = onnx.Constant dense<4> : tensor<1xi64>
  %0 = onnx.Relu(%x) : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = onnx.Slice(%0, %c0, %c1) axes(%c0) : (tensor<4x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x64xf32>
  %2 = onnx.Slice(%0, %c1, %c4) axes(%c0) : (tensor<4x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x64xf32>
  %3 = onnx.Slice(%0, %c0, %c2) axes(%c1) : (tensor<4x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xf32>
  return %1, %2, %3 : tensor<1x64xf32>, tensor<3x64xf32>, tensor<4x2xf32>
}

// Sizes of dynamic intermediates are unknown.
// CHECK-LABEL: fusion report for @dynamic
// CHECK-NEXT: group 0 (elementwise): onnx.Relu -> onnx.Exp
// CHECK-NEXT: intermediates: 1 (tensor<?xf32>)
// CHECK-NEXT: intermediate bytes saved: unknown (dynamic shapes)
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = onnx.Relu(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = onnx.Exp(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// STRATEGY-LABEL: fusion report for @avgpool_relu
// STRATEGY-NEXT: group 0 (pool_epilogue, kernel flat): onnx.AveragePool -> onnx.Relu
// STRATEGY-LABEL: fusion report for @matmul_bias_sigmoid
// STRATEGY-NEXT: group 0 (contraction_epilogue, cublaslt matmul+bias): onnx.MatMul -> onnx.Add
// STRATEGY: group 1 (elementwise, kernel flat): onnx.Sigmoid
// STRATEGY-NEXT: the rest of group 0's epilogue, which its library call cannot fuse: a generated kernel right after it
// STRATEGY: kernels: 3 before fusion, 2 after (2 groups, 0 unfused ops)
func.func @matmul_bias_sigmoid(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %1 = onnx.Add(%0, %c) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = onnx.Sigmoid(%1) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// Ops left alone, and why: judged as fuse-chains judges them, after it.

// CHECK-LABEL: fusion report for @several_users
// CHECK-NEXT: no fusion groups
// CHECK-NEXT: alone: onnx.MatMul 'mm', several_users: several ops read its result, so it is written to memory anyway
// CHECK-NEXT: alone: onnx.Relu 'relu', graph_output: its result is an output of the graph; and its inputs: onnx.MatMul 'mm': several ops read its result, so it is written to memory anyway
// CHECK-NEXT: alone: onnx.Transpose, graph_output: onnx.Transpose groups only with elementwise ops that compute its input or read its result, and its result is an output of the graph; and its inputs: onnx.MatMul 'mm' is not elementwise: onnx.Transpose groups with elementwise ops only
func.func @several_users(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = onnx.MatMul(%a, %b) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc("mm")
  %1 = onnx.Relu(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32> loc("relu")
  %2 = onnx.Transpose(%0) {perm = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// CHECK-LABEL: fusion report for @not_elementwise
// CHECK-NEXT: no fusion groups
// CHECK-NEXT: alone: onnx.AveragePool 'pool', user_not_elementwise: onnx.LRN 'lrn', which reads its result, is not elementwise
// CHECK-NEXT: alone: onnx.LRN 'lrn', not_fusible: onnx.LRN does not fuse
// CHECK-NEXT: alone: onnx.Relu 'relu', graph_output: its result is an output of the graph; and its inputs: onnx.LRN 'lrn' does not fuse
func.func @not_elementwise(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> loc("pool")
  %1 = onnx.LRN(%0) {size = 1 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> loc("lrn")
  %2 = onnx.Relu(%1) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> loc("relu")
  return %2 : tensor<1x1x4x4xf32>
}

// A Transpose joins the elementwise ops after it (and roots a group of
// those before it), but not a pooling's epilogue.
// CHECK-LABEL: fusion report for @transpose_gather
// CHECK-NEXT: group 0 (elementwise): onnx.Transpose -> onnx.Relu
// CHECK:      alone: onnx.AveragePool 'pool', user_not_elementwise: onnx.Transpose 'tr', which reads its result, is not elementwise
func.func @transpose_gather(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> loc("pool")
  %1 = onnx.Transpose(%0) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> loc("tr")
  %2 = onnx.Relu(%1) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> loc("relu")
  return %2 : tensor<1x1x4x4xf32>
}

// The Relu's result is broadcast by the Add, which therefore cannot take
// it in as the same iteration space.
// CHECK-LABEL: fusion report for @broadcast
// CHECK-NEXT: no fusion groups
// CHECK-NEXT: alone: onnx.Relu 'relu', user_broadcasts: onnx.Add 'add', which reads its result, broadcasts it to tensor<3x4xf32>; its inputs come from outside the graph or are constants
// CHECK-NEXT: alone: onnx.Add 'add', graph_output: its result is an output of the graph; and its inputs: onnx.Relu 'relu': onnx.Add 'add', which reads its result, broadcasts it to tensor<3x4xf32>
func.func @broadcast(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  %1 = onnx.Add(%0, %y) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> loc("add")
  return %1 : tensor<3x4xf32>
}

// Reductions group first: the Softmax takes the scaling Div, and the
// MatMul before it is left with nothing.
// CHECK-LABEL: fusion report for @in_group
// CHECK-NEXT: group 0 (reduction): onnx.Div -> onnx.Softmax
// CHECK: alone: onnx.MatMul 'scores', user_in_group: onnx.Div 'scale', which reads its result, is in group 0 already
func.func @in_group(%q: tensor<8x4xf32>, %k: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %s = onnx.Constant dense<2.0> : tensor<f32>
  %0 = onnx.MatMul(%q, %k) : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc("scores")
  %1 = onnx.Div(%0, %s) : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32> loc("scale")
  %2 = onnx.Softmax(%1) {axis = -1 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// CHECK-LABEL: fusion report for @dynamic_reduction
// CHECK: alone: onnx.Softmax 'sm', dynamic_shape: a reduction groups only over an input of static shape, not tensor<?x8xf32>
func.func @dynamic_reduction(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = onnx.Exp(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = onnx.Softmax(%0) {axis = -1 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("sm")
  return %1 : tensor<?x8xf32>
}

// The JSON report: the groups with their ops and node names, the ops alone
// with reason and detail.
// JSON: "format": "fuse-fusion-report",
// JSON-NEXT: "version": 1,
// JSON: "name": "avgpool_relu",
// JSON-NEXT: "kernels_before": 2,
// JSON-NEXT: "kernels_after": 1,
// JSON-NEXT: "views": 0,
// JSON-NEXT: "groups": [
// JSON-NEXT: {
// JSON-NEXT: "id": 0,
// JSON-NEXT: "kind": "pool_epilogue",
// JSON-NEXT: "strategy": "kernel flat",
// JSON-NEXT: "precision": null,
// JSON-NEXT: "ops": [
// JSON-NEXT: "onnx.AveragePool",
// JSON-NEXT: "onnx.Relu"
// JSON-NEXT: ],
// JSON-NEXT: "nodes": [
// JSON: "intermediates": [
// JSON-NEXT: "tensor<1x1x16x387xf32>"
// JSON-NEXT: ],
// JSON-NEXT: "bytes_saved": 49536,
// JSON-NEXT: "epilogue_of": null,
// JSON-NEXT: "choice": null
// JSON: "name": "matmul_bias_sigmoid",
// JSON: "id": 1,
// JSON: "epilogue_of": 0,
// JSON: "name": "not_elementwise",
// JSON: "alone": [
// JSON-NEXT: {
// JSON-NEXT: "op": "onnx.AveragePool",
// JSON-NEXT: "node": "pool",
// JSON-NEXT: "strategy": "kernel flat",
// JSON-NEXT: "reason": "user_not_elementwise",
// JSON-NEXT: "detail": "onnx.LRN 'lrn', which reads its result, is not elementwise"

// DOT: digraph "fusion @avgpool_relu" {
// DOT: subgraph cluster_g0 {
// DOT-NEXT: label="group 0: pool_epilogue";
// DOT: n0 [label="AveragePool"];
// DOT-NEXT: n1 [label="Relu"];
// DOT: in0 -> n0;
// DOT-NEXT: n0 -> n1;
// DOT-NEXT: out0 [shape=ellipse, label="output 0"];
// DOT-NEXT: n1 -> out0;
// DOT: digraph "fusion @not_elementwise" {
// DOT: n0 [label="pool\nAveragePool\n(user_not_elementwise)", fillcolor="#fde8e8", tooltip="onnx.LRN 'lrn', which reads its result, is not elementwise"];

// A Concat that a MatMul reads stays out (it joins only an elementwise group
// that reads it), a Slice with a negative step too; the rotary-style Slice,
// Neg and Concat before a Mul join its group. The JSON names the reasons.
// CHECK-LABEL: fusion report for @gathers
// CHECK-NEXT: group 0 (elementwise): onnx.Slice -> onnx.Slice -> onnx.Neg -> onnx.Concat -> onnx.Mul
// CHECK-NEXT: intermediates: 4 (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>)
// CHECK: alone: onnx.Concat, user_not_elementwise: onnx.Concat joins only an elementwise group that reads its result, and onnx.MatMul, which reads its result, is not elementwise
// CHECK-NEXT: alone: onnx.MatMul
// CHECK-NEXT: alone: onnx.Slice, not_fusible: onnx.Slice joins a group only with static shapes (and a Slice with constant bounds and positive steps)
// CHECK-NEXT: alone: onnx.Relu, graph_output: its result is an output of the graph; and its inputs: onnx.Slice does not fuse
// JSON: "reason": "user_not_elementwise"
func.func @gathers(%a: tensor<4x4xf32>, %w: tensor<8x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>) {
  %zero = onnx.Constant dense<0> : tensor<1xi64>
  %two = onnx.Constant dense<2> : tensor<1xi64>
  %four = onnx.Constant dense<4> : tensor<1xi64>
  %ax = onnx.Constant dense<1> : tensor<1xi64>
  %lo = onnx.Slice(%a, %zero, %two) axes(%ax) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xf32>
  %hi = onnx.Slice(%a, %two, %four) axes(%ax) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x2xf32>
  %n = onnx.Neg(%hi) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %rot = onnx.Concat(%n, %lo) {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %y = onnx.Mul(%rot, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %cat = onnx.Concat(%a, %a) {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %mm = onnx.MatMul(%cat, %w) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %m1 = onnx.Constant dense<-1> : tensor<1xi64>
  %lowest = onnx.Constant dense<-100> : tensor<1xi64>
  %rev = onnx.Slice(%a, %m1, %lowest) axes(%ax) steps(%m1) : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x4xf32>
  %r = onnx.Relu(%rev) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y, %mm, %r : tensor<4x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>
}

// A Transpose after a library call roots a group of its own, which is no
// part of the call's epilogue; a Transpose whose input is also read
// elsewhere stays alone.
// CHECK-LABEL: fusion report for @transpose_after_groups
// CHECK-NEXT: group 0 (contraction_epilogue): onnx.MatMul -> onnx.Add
// CHECK: group 1 (elementwise): onnx.Transpose -> onnx.Relu
// CHECK: group 2 (elementwise): onnx.Exp -> onnx.Relu
// CHECK: alone: onnx.Transpose, graph_output: onnx.Transpose groups only with elementwise ops that compute its input or read its result, and its result is an output of the graph; and its inputs: group 2: its result has other readers
// STRATEGY-LABEL: fusion report for @transpose_after_groups
// STRATEGY: group 1 (elementwise, kernel flat{{.*}}): onnx.Transpose -> onnx.Relu
// STRATEGY-NOT: the rest of group 0's epilogue
// STRATEGY: kernels:
func.func @transpose_after_groups(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<16xf32>, %x: tensor<4x8xf32>) -> (tensor<16x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
  %0 = onnx.MatMul(%a, %b) : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %1 = onnx.Add(%0, %c) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = onnx.Transpose(%1) {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %3 = onnx.Relu(%2) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %4 = onnx.Exp(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = onnx.Relu(%4) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = onnx.Transpose(%5) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %3, %5, %6 : tensor<16x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>
}
