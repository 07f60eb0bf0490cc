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
