// RUN: fuse-opt %s -split-input-file -fuse-apply-precision=precision=fp16 | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-apply-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: fuse-opt %s -split-input-file -fuse-apply-precision=precision=tf32 | FileCheck %s --check-prefix=TF32
// RUN: fuse-opt %s -split-input-file -fuse-apply-precision=precision=fp32 | FileCheck %s --check-prefix=FP32
// RUN: fuse-opt %s -split-input-file -fuse-apply-precision="precision=fp16 keep-fp32=fc2*" | FileCheck %s --check-prefix=KEEP
// RUN: fuse-opt %s -split-input-file -fuse-apply-precision="precision=fp16 model-types=true" | FileCheck %s --check-prefix=MODEL
// RUN: not fuse-opt %s -fuse-apply-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: Cannot find option named 'fp8'!

// Two contraction groups: the first's result is read by the second only,
// so it is stored in fp16 (narrowed before the yield, widened where the
// second reads it); the weights of both products are converted; the bias
// of the first (whose result is fp16) is fp16 too; the second's result is
// returned, so it stays f32, and its bias with it.
// CHECK-LABEL: func @two_layers
// The f32 input of the first product gets a kernel converting it.
// CHECK: %[[X16:.*]] = fuse.group elementwise ins(%arg0 : tensor<4x16xf32>) {precision = #fuse.precision<fp16>} -> tensor<4x16xf16>
// CHECK: onnx.Cast(%{{.*}}) {fuse.precision_cast, to = 10 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf16>
// CHECK-DAG: %[[W1:.*]] = onnx.Constant dense<5.000000e-01> : tensor<16x32xf16>
// CHECK-DAG: %[[B1:.*]] = onnx.Constant dense_resource<{{.*}}> : tensor<32xf16>
// CHECK-DAG: %[[W2:.*]] = onnx.Constant dense_resource<{{.*}}> : tensor<32x8xf16>
// CHECK-DAG: %[[B2:.*]] = onnx.Constant dense<[{{.*}}]> : tensor<8xf32>
// CHECK: %[[Y:.*]] = fuse.group contraction_epilogue ins(%[[X16]], %[[W1]], %[[B1]] : tensor<4x16xf16>, tensor<16x32xf16>, tensor<32xf16>) {precision = #fuse.precision<fp16>} -> tensor<4x32xf16>
// CHECK: ^bb0(%[[A:.*]]: tensor<4x16xf16>, %[[B:.*]]: tensor<16x32xf16>, %[[C:.*]]: tensor<32xf16>):
// CHECK-DAG: onnx.Cast(%[[A]]) {fuse.precision_cast, to = 1 : i64} : (tensor<4x16xf16>) -> tensor<4x16xf32>
// CHECK-DAG: onnx.Cast(%[[B]]) {fuse.precision_cast, to = 1 : i64} : (tensor<16x32xf16>) -> tensor<16x32xf32>
// CHECK-DAG: onnx.Cast(%[[C]]) {fuse.precision_cast, to = 1 : i64} : (tensor<32xf16>) -> tensor<32xf32>
// CHECK: onnx.MatMul
// CHECK: onnx.Add
// CHECK: onnx.Relu
// CHECK: %[[N:.*]] = onnx.Cast(%{{.*}}) {fuse.precision_cast, to = 10 : i64} : (tensor<4x32xf32>) -> tensor<4x32xf16>
// CHECK-NEXT: fuse.yield %[[N]] : tensor<4x32xf16>
// CHECK: %[[Z:.*]] = fuse.group contraction_epilogue ins(%[[Y]], %[[W2]], %[[B2]] : tensor<4x32xf16>, tensor<32x8xf16>, tensor<8xf32>) {precision = #fuse.precision<fp16>} -> tensor<4x8xf32>
// CHECK-NOT: to = 10
// CHECK: fuse.yield %{{.*}} : tensor<4x8xf32>
// CHECK: return %[[Z]] : tensor<4x8xf32>
// BF16-LABEL: func @two_layers
// BF16: {precision = #fuse.precision<bf16>} -> tensor<4x32xbf16>
// BF16: onnx.Cast(%{{.*}}) {fuse.precision_cast, to = 16 : i64} : (tensor<4x32xf32>) -> tensor<4x32xbf16>
// Under tf32 the contraction groups say so; nothing is narrowed.
// TF32-LABEL: func @two_layers
// TF32: fuse.group contraction_epilogue ins(%arg0, %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) {precision = #fuse.precision<tf32>} -> tensor<4x32xf32>
// TF32-NOT: tensor<4x32xf16>
// FP32-LABEL: func @two_layers
// FP32-NOT: precision
// FP32-NOT: tensor<4x32xf16>
// A node kept in fp32 keeps its group's precision, values and weights f32:
// the first group's result, which it reads, stays f32 too.
// KEEP-LABEL: func @two_layers
// KEEP: fuse.group contraction_epilogue ins({{.*}} : tensor<4x16xf16>, tensor<16x32xf16>, tensor<32xf32>) {precision = #fuse.precision<fp16>} -> tensor<4x32xf32>
// KEEP: fuse.group contraction_epilogue ins({{.*}} : tensor<4x32xf32>, tensor<32x8xf32>, tensor<8xf32>) {precision = #fuse.precision<fp32>} -> tensor<4x8xf32>
func.func @two_layers(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w1 = onnx.Constant dense<0.5> : tensor<16x32xf32>
  %b1 = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.5]> : tensor<32xf32>
  %w2 = onnx.Constant dense<[[0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.75], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5]]> : tensor<32x8xf32>
  %b2 = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %y = fuse.group contraction_epilogue ins(%x, %w1, %b1 : tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x32xf32>, %c: tensor<32xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32> loc("fc1")
    %s = onnx.Add(%m, %c) : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
    %r = onnx.Relu(%s) : (tensor<4x32xf32>) -> tensor<4x32xf32>
    fuse.yield %r : tensor<4x32xf32>
  }
  %z = fuse.group contraction_epilogue ins(%y, %w2, %b2 : tensor<4x32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x32xf32>, %b: tensor<32x8xf32>, %c: tensor<8xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32> loc("fc2")
    %s = onnx.Add(%m, %c) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    fuse.yield %s : tensor<4x8xf32>
  }
  return %z : tensor<4x8xf32>
}

// -----

// A model exported in fp16, widened by fuse-widen-floats{to-f32}: its
// input and weight reach the group through Casts to f32, which the group
// reads past (the fp16 buffers themselves, widened in its body); the Cast
// of its result back to fp16 for the return is the group's own narrowing.
// A Reshape between two groups moves fp16 elements.
// CHECK-LABEL: func @widened_half_model
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x16xf16>) -> tensor<2x64xf16>
// CHECK-NOT: onnx.Cast(%[[X]])
// CHECK: %[[G:.*]] = fuse.group contraction_epilogue ins(%[[X]], %{{.*}} : tensor<4x16xf16>, tensor<16x32xf16>) {{.*}} -> tensor<4x32xf16>
// CHECK: %[[R:.*]] = onnx.Reshape(%[[G]], %{{.*}}) : (tensor<4x32xf16>, tensor<2xi64>) -> tensor<2x64xf16>
// CHECK: %[[E:.*]] = fuse.group elementwise ins(%[[R]] : tensor<2x64xf16>) {{.*}} -> tensor<2x64xf16>
// CHECK: return %[[E]] : tensor<2x64xf16>
func.func @widened_half_model(%x: tensor<4x16xf16>) -> tensor<2x64xf16> {
  %w = onnx.Constant dense<1.0> : tensor<16x32xf16>
  %x32 = onnx.Cast(%x) {to = 1 : i64} : (tensor<4x16xf16>) -> tensor<4x16xf32>
  %w32 = onnx.Cast(%w) {to = 1 : i64} : (tensor<16x32xf16>) -> tensor<16x32xf32>
  %y = fuse.group contraction_epilogue ins(%x32, %w32 : tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x32xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
    fuse.yield %m : tensor<4x32xf32>
  }
  %shape = onnx.Constant dense<[2, 64]> : tensor<2xi64>
  %r = onnx.Reshape(%y, %shape) : (tensor<4x32xf32>, tensor<2xi64>) -> tensor<2x64xf32>
  %e = fuse.group elementwise ins(%r : tensor<2x64xf32>) -> tensor<2x64xf32> {
  ^bb0(%a: tensor<2x64xf32>):
    %t = onnx.Tanh(%a) : (tensor<2x64xf32>) -> tensor<2x64xf32>
    %n = onnx.Neg(%t) : (tensor<2x64xf32>) -> tensor<2x64xf32>
    fuse.yield %n : tensor<2x64xf32>
  }
  %out = onnx.Cast(%e) {to = 10 : i64} : (tensor<2x64xf32>) -> tensor<2x64xf16>
  return %out : tensor<2x64xf16>
}

// -----

// An op whose kernel reads f32 (LRN, kept alone) keeps what it reads in
// f32; a lone elementwise op becomes a group of its own.
// CHECK-LABEL: func @f32_reader
// CHECK: %[[A:.*]] = fuse.group elementwise ins(%arg0 : tensor<1x4x8x8xf32>) {precision = #fuse.precision<fp16>} -> tensor<1x4x8x8xf32>
// CHECK: %[[L:.*]] = onnx.LRN(%[[A]])
// CHECK: fuse.group elementwise ins(%[[L]] : tensor<1x4x8x8xf32>) {precision = #fuse.precision<fp16>} -> tensor<1x4x8x8xf32>
func.func @f32_reader(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = onnx.Sigmoid(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %l = onnx.LRN(%a) {size = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = onnx.Relu(%l) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// A weight beyond fp16's range stays f32 (with a warning); the product it
// feeds then multiplies in f32 with its other operand kept f32 as well.
// CHECK-LABEL: func @out_of_range
// CHECK: fuse.group contraction_epilogue ins(%arg0, %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32>) {precision = #fuse.precision<fp16>} -> tensor<2x4xf32>
func.func @out_of_range(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = onnx.Constant dense<70000.0> : tensor<4x4xf32> loc("big_weight")
  %y = fuse.group contraction_epilogue ins(%x, %w : tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x4xf32>, %b: tensor<4x4xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    fuse.yield %m : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

// tf32: a lone contraction becomes a group, marked tf32.
// TF32-LABEL: func @lone_matmul
// TF32: fuse.group contraction_epilogue ins(%arg0, %arg1 : tensor<8x8xf32>, tensor<8x8xf32>) {precision = #fuse.precision<tf32>} -> tensor<8x8xf32>
// TF32-NEXT: ^bb0
// TF32-NEXT: onnx.MatMul
func.func @lone_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = onnx.MatMul(%a, %b) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// model-types (a model exported in half precision, widened by
// fuse-widen-floats to-f32, which marked what the model computes in half
// precision): what the model computes in fp16, and what is computed from
// it, is stored in fp16; the model's f32 computation (the Relu and Exp of
// its f32 input) stays f32, its group without a precision.
// MODEL-LABEL: func @model_types
// MODEL-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf16>, %[[Y:[a-z0-9]+]]: tensor<4x8xf32>)
// MODEL: %[[A:.*]] = fuse.group elementwise ins(%[[X]] : tensor<4x8xf16>) {precision = #fuse.precision<fp16>} -> tensor<4x8xf16>
// MODEL: %[[B:.*]] = fuse.group elementwise ins(%[[A]] : tensor<4x8xf16>) {precision = #fuse.precision<fp16>} -> tensor<4x8xf16>
// MODEL: %[[C:.*]] = fuse.group elementwise ins(%[[Y]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// MODEL-NOT: onnx.Cast
// MODEL: return %[[B]], %[[C]] : tensor<4x8xf16>, tensor<4x8xf32>
// Without model-types, fp16 stores the f32 island's value in fp16 too
// where it can: here nothing reads it but the return, so it stays f32.
// CHECK-LABEL: func @model_types
func.func @model_types(%x: tensor<4x8xf16>, %y: tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf32>) {
  %x32 = onnx.Cast(%x) {to = 1 : i64} : (tensor<4x8xf16>) -> tensor<4x8xf32>
  %a = fuse.group elementwise ins(%x32 : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %t = onnx.Tanh(%v) {fuse.model_half} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %n = onnx.Neg(%t) {fuse.model_half} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %n : tensor<4x8xf32>
  }
  %b = fuse.group elementwise ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %s = onnx.Sigmoid(%v) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %t = onnx.Tanh(%s) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %t : tensor<4x8xf32>
  }
  %c = fuse.group elementwise ins(%y : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %r = onnx.Relu(%v) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e = onnx.Exp(%r) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %e : tensor<4x8xf32>
  }
  %o = onnx.Cast(%b) {to = 10 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %o, %c : tensor<4x8xf16>, tensor<4x8xf32>
}

// -----

// model-types: what a group yields is half precision when its own op is,
// not when any op of the group is: a comparison of fp16 values choosing
// between the model's f32 values yields f32, stored f32 (it was stored in
// fp16, rounding a float32 pool's input: found by fuzz/differential.py);
// a Where choosing between fp16 values yields fp16.
// MODEL-LABEL: func @model_types_where
// MODEL: %[[W:.*]] = fuse.group elementwise ins(%{{.*}}, %{{.*}}, %arg2, %arg3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// MODEL: fuse.group elementwise ins(%[[W]] : tensor<4xf32>) -> tensor<4xf32> {
// MODEL: fuse.group elementwise ins(%arg0, %arg1, %arg2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf32>) {precision = #fuse.precision<fp16>} -> tensor<4xf16> {
func.func @model_types_where(%a: tensor<4xf16>, %b: tensor<4xf16>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %a32 = onnx.Cast(%a) {to = 1 : i64} : (tensor<4xf16>) -> tensor<4xf32>
  %b32 = onnx.Cast(%b) {to = 1 : i64} : (tensor<4xf16>) -> tensor<4xf32>
  %w = fuse.group elementwise ins(%a32, %b32, %y, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%va: tensor<4xf32>, %vb: tensor<4xf32>, %vy: tensor<4xf32>, %vz: tensor<4xf32>):
    %e = onnx.Less(%va, %vb) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %r = onnx.Where(%e, %vy, %vz) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  %p = fuse.group elementwise ins(%w : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: tensor<4xf32>):
    %n = onnx.Neg(%v) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %n : tensor<4xf32>
  }
  %h = fuse.group elementwise ins(%a32, %b32, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%va: tensor<4xf32>, %vb: tensor<4xf32>, %vy: tensor<4xf32>):
    %e = onnx.Less(%vy, %vy) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %r = onnx.Where(%e, %va, %vb) {fuse.model_half} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  %o = onnx.Cast(%h) {to = 10 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  return %p, %o : tensor<4xf32>, tensor<4xf16>
}

// -----

// fuse.attention reads and writes fp16 when its query, key and value and
// its result all can be (their producers' results are narrowed, its
// reader widens); its f32 mask stays f32.
// CHECK-LABEL: func @attention
// CHECK: %[[Q:.*]] = fuse.group elementwise {{.*}} -> tensor<1x16x4x8xf16>
// CHECK: %[[A:.*]] = fuse.attention %[[Q]], %[[Q]], %[[Q]], %arg1 {scale = 1.250000e-01 : f32} : tensor<1x16x4x8xf16>, tensor<1x16x4x8xf16>, tensor<1x16x4x8xf16>, tensor<1x1x1x16xf32> -> tensor<1x16x4x8xf16>
// CHECK: fuse.group elementwise ins(%[[A]] : tensor<1x16x4x8xf16>)
func.func @attention(%x: tensor<1x16x4x8xf32>, %mask: tensor<1x1x1x16xf32>) -> tensor<1x16x4x8xf32> {
  %q = fuse.group elementwise ins(%x : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  ^bb0(%v: tensor<1x16x4x8xf32>):
    %t = onnx.Tanh(%v) : (tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
    fuse.yield %t : tensor<1x16x4x8xf32>
  }
  %a = fuse.attention %q, %q, %q, %mask {scale = 0.125 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x1x1x16xf32> -> tensor<1x16x4x8xf32>
  %y = fuse.group elementwise ins(%a : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  ^bb0(%v: tensor<1x16x4x8xf32>):
    %n = onnx.Neg(%v) : (tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
    fuse.yield %n : tensor<1x16x4x8xf32>
  }
  return %y : tensor<1x16x4x8xf32>
}

// -----

// The f32 input reaches the product through a Transpose and a Pad only
// (an NHWC model input padded to 4 channels): one group moves, pads and
// converts it, reading the f32 data once.
// CHECK-LABEL: func @convert_after_transpose_pad
// CHECK: %[[X16:.*]] = fuse.group elementwise ins(%arg0 : tensor<2x3xf32>) {precision = #fuse.precision<fp16>} -> tensor<3x4xf16> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2x3xf32>):
// CHECK: %[[T:.*]] = onnx.Transpose(%[[A]]) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[P:.*]] = onnx.Pad(%[[T]], %{{.*}}) : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[C:.*]] = onnx.Cast(%[[P]]) {fuse.precision_cast, to = 10 : i64}
// CHECK-NEXT: fuse.yield %[[C]] : tensor<3x4xf16>
// CHECK: fuse.group contraction_epilogue ins(%[[X16]], %{{.*}} : tensor<3x4xf16>, tensor<4x8xf16>)
func.func @convert_after_transpose_pad(%x: tensor<2x3xf32>) -> tensor<3x8xf32> {
  %w = onnx.Constant dense<0.5> : tensor<4x8xf32>
  %pads = onnx.Constant dense<[0, 0, 0, 2]> : tensor<4xi64>
  %t = onnx.Transpose(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = onnx.Pad(%t, %pads) : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %y = fuse.group contraction_epilogue ins(%p, %w : tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<4x8xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    fuse.yield %m : tensor<3x8xf32>
  }
  return %y : tensor<3x8xf32>
}

// -----

// The f32 input reaches the product through a Transpose and a Reshape
// (an NHWC view, as fuse-convs-to-matmuls leaves a model input): the
// kernel converting it runs before them, and they move fp16. Through a
// Slice, which keeps fewer elements, it runs after the Slice.
// CHECK-LABEL: func @convert_before_moves
// CHECK: %[[X16:.*]] = fuse.group elementwise ins(%arg0 : tensor<2x8x4x4xf32>) {precision = #fuse.precision<fp16>} -> tensor<2x8x4x4xf16>
// CHECK: %[[T:.*]] = onnx.Transpose(%[[X16]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x8x4x4xf16>) -> tensor<2x4x4x8xf16>
// CHECK: %[[R:.*]] = onnx.Reshape(%[[T]], %{{.*}}) : (tensor<2x4x4x8xf16>, tensor<2xi64>) -> tensor<32x8xf16>
// CHECK: fuse.group contraction_epilogue ins(%[[R]], %{{.*}} : tensor<32x8xf16>, tensor<8x8xf16>)
// CHECK: %[[S:.*]] = onnx.Slice(%arg1, %{{.*}}, %{{.*}}) : (tensor<64x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<32x8xf32>
// CHECK: %[[S16:.*]] = fuse.group elementwise ins(%[[S]] : tensor<32x8xf32>) {precision = #fuse.precision<fp16>} -> tensor<32x8xf16>
// CHECK: fuse.group contraction_epilogue ins(%[[S16]], %{{.*}} : tensor<32x8xf16>, tensor<8x8xf16>)
func.func @convert_before_moves(%x: tensor<2x8x4x4xf32>, %z: tensor<64x8xf32>) -> (tensor<32x8xf32>, tensor<32x8xf32>) {
  %w = onnx.Constant dense<0.5> : tensor<8x8xf32>
  %shape = onnx.Constant dense<[32, 8]> : tensor<2xi64>
  %starts = onnx.Constant dense<[0]> : tensor<1xi64>
  %ends = onnx.Constant dense<[32]> : tensor<1xi64>
  %t = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x8x4x4xf32>) -> tensor<2x4x4x8xf32>
  %r = onnx.Reshape(%t, %shape) : (tensor<2x4x4x8xf32>, tensor<2xi64>) -> tensor<32x8xf32>
  %y = fuse.group contraction_epilogue ins(%r, %w : tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32> {
  ^bb0(%a: tensor<32x8xf32>, %b: tensor<8x8xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
    fuse.yield %m : tensor<32x8xf32>
  }
  %s = onnx.Slice(%z, %starts, %ends) : (tensor<64x8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<32x8xf32>
  %u = fuse.group contraction_epilogue ins(%s, %w : tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32> {
  ^bb0(%a: tensor<32x8xf32>, %b: tensor<8x8xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
    fuse.yield %m : tensor<32x8xf32>
  }
  return %y, %u : tensor<32x8xf32>, tensor<32x8xf32>
}

// -----

// A reduction group's result smaller than what it reads (a row's max) and
// read by other groups stays f32: they subtract it (stored in fp16, a
// LogSoftmax's log-sum was rounded twice), and it is small. The full-size
// result of the group that subtracts it is stored in fp16.
// CHECK-LABEL: func @row_statistic
// CHECK: %[[MAX:.*]] = fuse.group reduction ins(%arg0 : tensor<4x16xf32>) {precision = #fuse.precision<fp16>} -> tensor<4x1xf32>
// CHECK-NOT: onnx.Cast({{.*}}) -> tensor<4x1xf16>
// CHECK: fuse.yield %{{.*}} : tensor<4x1xf32>
// CHECK: %[[D:.*]] = fuse.group elementwise ins(%arg0, %[[MAX]] : tensor<4x16xf32>, tensor<4x1xf32>) {precision = #fuse.precision<fp16>} -> tensor<4x16xf16>
// CHECK: fuse.group elementwise ins(%[[D]] : tensor<4x16xf16>) {precision = #fuse.precision<fp16>} -> tensor<4x16xf32>
func.func @row_statistic(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %max = fuse.group reduction ins(%x : tensor<4x16xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x16xf32>):
    %axes = onnx.Constant dense<1> : tensor<1xi64>
    %m = onnx.ReduceMax(%a, %axes) : (tensor<4x16xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    fuse.yield %m : tensor<4x1xf32>
  }
  %d = fuse.group elementwise ins(%x, %max : tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<4x1xf32>):
    %s = onnx.Sub(%a, %b) : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
    fuse.yield %s : tensor<4x16xf32>
  }
  %e = fuse.group elementwise ins(%d : tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x16xf32>):
    %x2 = onnx.Exp(%a) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fuse.yield %x2 : tensor<4x16xf32>
  }
  return %e : tensor<4x16xf32>
}
