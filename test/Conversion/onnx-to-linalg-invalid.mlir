// RUN: fuse-opt %s -split-input-file -convert-onnx-to-linalg -verify-diagnostics

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {fuse.kernel} {
  // expected-error @+1 {{'onnx.Relu' op needs static shapes to be compiled, got 'tensor<?x4xf32>' (give the model's inputs shapes with --input-shape)}}
  %0 = onnx.Relu(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @unsigned(%x: tensor<4xui8>) -> tensor<4xui8> attributes {fuse.kernel} {
  // expected-error @+1 {{'onnx.Relu' op has element type 'ui8', which the lowering does not support yet}}
  %0 = onnx.Relu(%x) : (tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @gelu_approximate(%x: tensor<4xf32>) -> tensor<4xf32> attributes {fuse.kernel} {
  // expected-error @+2 {{'onnx.Gelu' op approximate = 'fast' is not 'none' or 'tanh'}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Gelu' that was explicitly marked illegal}}
  %0 = onnx.Gelu(%x) {approximate = "fast"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Axes, slice bounds and Range bounds are read at compile time.
func.func @reduce_axes(%x: tensor<2x3xf32>, %a: tensor<1xi64>) -> tensor<2x1xf32> attributes {fuse.kernel} {
  // expected-error @+2 {{'onnx.ReduceMean' op needs constant, valid axes}}
  // expected-error @+1 {{failed to legalize operation 'onnx.ReduceMean' that was explicitly marked illegal}}
  %0 = onnx.ReduceMean(%x, %a) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @slice_bounds(%x: tensor<10xf32>, %s: tensor<1xi64>) -> tensor<4xf32> attributes {fuse.kernel} {
  %e = onnx.Constant dense<[8]> : tensor<1xi64>
  // expected-error @+2 {{'onnx.Slice' op needs constant starts, ends, axes and steps}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Slice' that was explicitly marked illegal}}
  %0 = onnx.Slice(%x, %s, %e) : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @range_bounds(%s: tensor<i64>) -> tensor<4xi64> attributes {fuse.kernel} {
  %l = onnx.Constant dense<8> : tensor<i64>
  %d = onnx.Constant dense<2> : tensor<i64>
  // expected-error @+2 {{'onnx.Range' op could not be evaluated at compile time}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Range' that was explicitly marked illegal}}
  %0 = onnx.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CumSum's axis and Trilu's k are read at compile time too.
func.func @cumsum_axis(%x: tensor<2x3xf32>, %a: tensor<i64>) -> tensor<2x3xf32> attributes {fuse.kernel} {
  // expected-error @+2 {{'onnx.CumSum' op needs a constant 'axis' (an input can be fixed to a value with --input-value)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.CumSum' that was explicitly marked illegal}}
  %0 = onnx.CumSum(%x, %a) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @trilu_k(%x: tensor<2x3xf32>, %k: tensor<i64>) -> tensor<2x3xf32> attributes {fuse.kernel} {
  // expected-error @+2 {{'onnx.Trilu' op needs a constant 'k' (an input can be fixed to a value with --input-value)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Trilu' that was explicitly marked illegal}}
  %0 = onnx.Trilu(%x, %k) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
