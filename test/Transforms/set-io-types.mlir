// RUN: fuse-opt %s -split-input-file -fuse-set-io-types="type=fp16" | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-set-io-types="type=bf16" | FileCheck %s --check-prefix=BF16
// RUN: fuse-opt %s -split-input-file -fuse-set-io-types="type=fp32" | FileCheck %s --check-prefix=F32

// Float arguments and results take the type; each changed argument is cast
// to its old type where the function starts, each result to the new type
// before the return. An int64 input and a boolean output keep theirs.
// CHECK-LABEL: func.func @edges
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16>, %[[I:.*]]: tensor<2xi64>) -> (tensor<2x4xf16>, tensor<2x4xi1>)
// CHECK-NEXT: %[[X32:.*]] = onnx.Cast(%[[X]]) {to = 1 : i64} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[R:.*]] = onnx.Relu(%[[X32]])
// CHECK-NEXT: %[[B:.*]] = onnx.Greater(%[[X32]], %[[R]])
// CHECK-NEXT: %[[R16:.*]] = onnx.Cast(%[[R]]) {to = 10 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf16>
// CHECK-NEXT: return %[[R16]], %[[B]] : tensor<2x4xf16>, tensor<2x4xi1>
// BF16-LABEL: func.func @edges
// BF16-SAME: (%{{.*}}: tensor<2x4xbf16>, %{{.*}}: tensor<2xi64>) -> (tensor<2x4xbf16>, tensor<2x4xi1>)
// BF16: onnx.Cast({{.*}}) {to = 16 : i64} : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// The types asked for already: nothing changes.
// F32-LABEL: func.func @edges
// F32-SAME: (%[[X:.*]]: tensor<2x4xf32>, %{{.*}}: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
// F32-NEXT: onnx.Relu(%[[X]])
// F32-NOT: onnx.Cast
func.func @edges(%x: tensor<2x4xf32>, %i: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x4xi1>) {
  %r = onnx.Relu(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = onnx.Greater(%x, %r) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  return %r, %b : tensor<2x4xf32>, tensor<2x4xi1>
}

// -----

// A model in half precision, with float32 edges asked for: the argument
// becomes f32 and is cast back to f16, the result is cast to f32. An input
// returned as it is goes through both casts.
// F32-LABEL: func.func @half
// F32-SAME: (%[[X:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// F32-NEXT: %[[X16:.*]] = onnx.Cast(%[[X]]) {to = 10 : i64} : (tensor<3xf32>) -> tensor<3xf16>
// F32-NEXT: %[[N:.*]] = onnx.Neg(%[[X16]])
// F32-NEXT: %[[N32:.*]] = onnx.Cast(%[[N]]) {to = 1 : i64} : (tensor<3xf16>) -> tensor<3xf32>
// F32-NEXT: %[[X32:.*]] = onnx.Cast(%[[X16]]) {to = 1 : i64} : (tensor<3xf16>) -> tensor<3xf32>
// F32-NEXT: return %[[N32]], %[[X32]]
// CHECK-LABEL: func.func @half
// CHECK-SAME: (%{{.*}}: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf16>)
// CHECK-NOT: onnx.Cast
func.func @half(%x: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf16>) {
  %n = onnx.Neg(%x) : (tensor<3xf16>) -> tensor<3xf16>
  return %n, %x : tensor<3xf16>, tensor<3xf16>
}

// -----

// Only the model's public graph function changes, not a private helper.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
