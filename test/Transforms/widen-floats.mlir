// RUN: fuse-opt %s -split-input-file -fuse-widen-floats | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-widen-floats="max-constant-elements=2" | FileCheck %s --check-prefix=WEIGHTS
// RUN: fuse-opt %s -split-input-file -fuse-widen-floats="to-f32=true" | FileCheck %s --check-prefix=F32

// The signature stays: the argument is cast to f64 where the function
// starts, the result back to f32 before the return; a small constant
// becomes an f64 constant, and the ops between compute in f64.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[X64:.*]] = onnx.Cast(%[[X]]) {to = 11 : i64} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: %[[W:.*]] = onnx.Constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf64>
// CHECK-NEXT: %[[A:.*]] = onnx.Add(%[[X64]], %[[W]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: %[[E:.*]] = onnx.Exp(%[[A]]) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: %[[Y:.*]] = onnx.Cast(%[[E]]) {to = 1 : i64} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK-NEXT: return %[[Y]] : tensor<4xf32>
// A constant larger than the limit stays f32 (the artifact holds it once)
// and is cast when the plan runs.
// WEIGHTS-LABEL: func @chain
// WEIGHTS: %[[W:.*]] = onnx.Constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// WEIGHTS-NEXT: %[[W64:.*]] = onnx.Cast(%[[W]]) {to = 11 : i64} : (tensor<4xf32>) -> tensor<4xf64>
// WEIGHTS-NEXT: onnx.Add(%{{.*}}, %[[W64]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = onnx.Add(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = onnx.Exp(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// float16 in and out; a contraction and a reduction in f64. Integer
// tensors and the model's own f64 ones are left alone; a comparison takes
// the f64 values.
// CHECK-LABEL: func @half
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf16>, %[[B:.*]]: tensor<8x3xf16>, %[[I:.*]]: tensor<2x3xi64>, %[[D:.*]]: tensor<2x3xf64>)
// CHECK-NEXT: %[[A64:.*]] = onnx.Cast(%[[A]]) {to = 11 : i64} : (tensor<2x8xf16>) -> tensor<2x8xf64>
// CHECK-NEXT: %[[B64:.*]] = onnx.Cast(%[[B]]) {to = 11 : i64} : (tensor<8x3xf16>) -> tensor<8x3xf64>
// CHECK-NEXT: %[[M:.*]] = onnx.MatMul(%[[A64]], %[[B64]]) : (tensor<2x8xf64>, tensor<8x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[S:.*]] = onnx.Softmax(%[[M]]) : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[H:.*]] = onnx.Constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: %[[G:.*]] = onnx.Greater(%[[S]], %[[H]]) : (tensor<2x3xf64>, tensor<f64>) -> tensor<2x3xi1>
// CHECK-NEXT: %[[N:.*]] = onnx.Neg(%[[I]]) : (tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT: %[[R:.*]] = onnx.Sqrt(%[[D]]) : (tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[Y:.*]] = onnx.Cast(%[[S]]) {to = 10 : i64} : (tensor<2x3xf64>) -> tensor<2x3xf16>
// CHECK-NEXT: return %[[Y]], %[[G]], %[[N]], %[[R]] : tensor<2x3xf16>, tensor<2x3xi1>, tensor<2x3xi64>, tensor<2x3xf64>
func.func @half(%a: tensor<2x8xf16>, %b: tensor<8x3xf16>, %i: tensor<2x3xi64>, %d: tensor<2x3xf64>) -> (tensor<2x3xf16>, tensor<2x3xi1>, tensor<2x3xi64>, tensor<2x3xf64>) {
  %m = onnx.MatMul(%a, %b) : (tensor<2x8xf16>, tensor<8x3xf16>) -> tensor<2x3xf16>
  %s = onnx.Softmax(%m) {axis = -1 : i64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %h = onnx.Constant dense<0.5> : tensor<f16>
  %g = onnx.Greater(%s, %h) : (tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xi1>
  %n = onnx.Neg(%i) : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %r = onnx.Sqrt(%d) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %s, %g, %n, %r : tensor<2x3xf16>, tensor<2x3xi1>, tensor<2x3xi64>, tensor<2x3xf64>
}

// -----

// A Cast to float16 keeps its rounding (a model's mixed precision): it
// casts the f64 value to f16, then to f64 for the ops after it; a Cast to
// f32 becomes one to f64. An op without float operands (ConstantOfShape:
// its value attribute sets the type) keeps its f32 result, cast up.
// CHECK-LABEL: func @kept
// CHECK: %[[X64:.*]] = onnx.Cast(%{{.*}}) {to = 11 : i64} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: %[[H:.*]] = onnx.Cast(%[[X64]]) {to = 10 : i64} : (tensor<4xf64>) -> tensor<4xf16>
// CHECK-NEXT: %[[H64:.*]] = onnx.Cast(%[[H]]) {to = 11 : i64} : (tensor<4xf16>) -> tensor<4xf64>
// CHECK-NEXT: %[[F:.*]] = onnx.ConstantOfShape(%{{.*}}) {value = dense<5.000000e-01> : tensor<1xf32>} : (tensor<1xi64>) -> tensor<4xf32>
// CHECK-NEXT: %[[F64:.*]] = onnx.Cast(%[[F]]) {to = 11 : i64} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: %[[HW:.*]] = onnx.Cast(%[[H64]]) {to = 11 : i64} : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: onnx.Mul(%[[HW]], %[[F64]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
func.func @kept(%x: tensor<4xf32>, %shape: tensor<1xi64>) -> tensor<4xf32> {
  %h = onnx.Cast(%x) {to = 10 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  %f = onnx.ConstantOfShape(%shape) {value = dense<0.5> : tensor<1xf32>} : (tensor<1xi64>) -> tensor<4xf32>
  %hw = onnx.Cast(%h) {to = 1 : i64} : (tensor<4xf16>) -> tensor<4xf32>
  %m = onnx.Mul(%hw, %f) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// to-f32 (a model exported in half precision, before the precision
// policy): only f16 and bf16 tensors widen, to f32; each op the pass
// widens is marked fuse.model_half; an f32 value stays as it is, and so
// does the f64 one. A small constant becomes an f32 constant, marked too.
// F32-LABEL: func @half_model
// F32-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf16>, %[[Y:[a-z0-9]+]]: tensor<4xf32>)
// F32: %[[X32:.*]] = onnx.Cast(%[[X]]) {{.*}} : (tensor<4xf16>) -> tensor<4xf32>
// F32: %[[C:.*]] = onnx.Constant {fuse.model_half} dense<{{.*}}> : tensor<4xf32>
// F32: %[[A:.*]] = onnx.Add(%[[X32]], %[[C]]) {fuse.model_half} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// F32: %[[M:.*]] = onnx.Mul(%[[Y]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// F32: %[[O:.*]] = onnx.Cast(%[[A]]) {{.*}} : (tensor<4xf32>) -> tensor<4xf16>
// F32: return %[[O]], %[[M]] : tensor<4xf16>, tensor<4xf32>
func.func @half_model(%x: tensor<4xf16>, %y: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %c = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %a = onnx.Add(%x, %c) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %m = onnx.Mul(%y, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a, %m : tensor<4xf16>, tensor<4xf32>
}
