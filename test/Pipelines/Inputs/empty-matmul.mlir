func.func @main(%a: tensor<4x0xf32>, %b: tensor<0x8xf32>) -> tensor<4x8xf32> {
  %0 = onnx.MatMul(%a, %b) : (tensor<4x0xf32>, tensor<0x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
