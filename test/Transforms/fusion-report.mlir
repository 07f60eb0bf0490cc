// RUN: fuse-opt %s -fuse-chains -fusion-report -o /dev/null 2>&1 | FileCheck %s
// RUN: fuse-opt %s -fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// After fuse-select-strategies each group says how it runs, and a group
// split off a library call's epilogue says so.
// RUN: fuse-opt %s -fuse-chains -fuse-select-strategies -fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRATEGY
// The report leaves the IR as it is.
// RUN: fuse-opt %s -fuse-chains -fusion-report 2>/dev/null | FileCheck %s --check-prefix=IR

// 1x1x16x387 f32 = 24768 bytes, written once and read once by the Relu.
// CHECK-LABEL: fusion report for @avgpool_relu
// CHECK-NEXT: group 0 (pool_epilogue): onnx.AveragePool -> onnx.Relu
// CHECK-NEXT: intermediates: 1 (tensor<1x1x16x387xf32>)
// CHECK-NEXT: intermediate bytes saved: 49536 (24768 written + 24768 read)
// CHECK-NEXT: kernels: 2 before fusion, 1 after (1 group, 0 unfused ops)
// UNFUSED-LABEL: fusion report for @avgpool_relu
// UNFUSED-NEXT: no fusion groups
// UNFUSED-NEXT: kernels: 2 before fusion, 2 after (0 groups, 2 unfused ops)
// IR: fuse.group pool_epilogue
func.func @avgpool_relu(%x: tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32> {
  %0 = onnx.AveragePool(%x) {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x1x128x3096xf32>) -> tensor<1x1x16x387xf32>
  %1 = onnx.Relu(%0) : (tensor<1x1x16x387xf32>) -> tensor<1x1x16x387xf32>
  return %1 : tensor<1x1x16x387xf32>
}

// The diamond's Relu result (64 bytes) is read by two ops: 64 + 2 x 64;
// Sigmoid's and Tanh's by one each: 2 x (64 + 64). Constants are not
// kernels; the Reshape stays unfused.
// CHECK-LABEL: fusion report for @mixed
// CHECK-NEXT: group 0 (elementwise): onnx.Relu -> onnx.Sigmoid -> onnx.Tanh -> onnx.Add
// CHECK-NEXT: intermediates: 3 (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NEXT: intermediate bytes saved: 448 (192 written + 256 read)
// CHECK-NEXT: kernels: 5 before fusion, 2 after (1 group, 1 unfused op)
func.func @mixed(%x: tensor<16xf32>) -> tensor<4x4xf32> {
  %s = onnx.Constant dense<[4, 4]> : tensor<2xi64>
  %0 = onnx.Relu(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = onnx.Sigmoid(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = onnx.Tanh(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = onnx.Add(%1, %2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = onnx.Reshape(%3, %s) : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
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
