// RUN: fuse-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect
// Verifier errors of fuse.group, fuse.alternatives and fuse.yield, and of
// the fuse attributes.

func.func @arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op has 1 inputs but its body has 2 arguments}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %r = onnx.Add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op input #0 has type 'tensor<4xf32>' but body argument #0 has type 'tensor<?xf32>'}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<?xf32>):
    %r = onnx.Relu(%a) : (tensor<?xf32>) -> tensor<?xf32>
    %s = onnx.Relu(%r) : (tensor<?xf32>) -> tensor<4xf32>
    fuse.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %c = onnx.Constant dense<1> : tensor<4xi64>
    // expected-error @+1 {{'fuse.yield' op returns 'tensor<4xi64>' but the group results are 'tensor<4xf32>'}}
    fuse.yield %c : tensor<4xi64>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @no_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator}}
    %r = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @wrong_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op body must end with 'fuse.yield'}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "test.terminator"(%r) : (tensor<4xf32>) -> ()
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op body has no ops to fuse}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @anchor_in_elementwise(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  ^bb0(%a: tensor<1x1x8x8xf32>):
    // expected-error @+1 {{'onnx.MaxPool' op is not allowed in a group of kind 'elementwise'}}
    %p = onnx.MaxPool(%a) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
    fuse.yield %p : tensor<1x1x4x4xf32>
  }
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @two_pools(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'fuse.group' op of kind 'pool_epilogue' must contain exactly one pooling op, found 2}}
  %0 = fuse.group pool_epilogue ins(%x : tensor<1x1x8x8xf32>) -> tensor<1x1x2x2xf32> {
  ^bb0(%a: tensor<1x1x8x8xf32>):
    %p = onnx.MaxPool(%a) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
    %q = onnx.MaxPool(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
    fuse.yield %q : tensor<1x1x2x2xf32>
  }
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @no_contraction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op of kind 'contraction_epilogue' must contain exactly one Conv, Gemm or MatMul, found 0}}
  %0 = fuse.group contraction_epilogue ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @not_fusible(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<2x3xf32>) -> tensor<6xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %s = onnx.Constant dense<[6]> : tensor<1xi64>
    // expected-error @+1 {{'onnx.Reshape' op is not allowed in a group of kind 'elementwise' (it is neither elementwise nor the group's anchor)}}
    %r = onnx.Reshape(%a, %s) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
    fuse.yield %r : tensor<6xf32>
  }
  return %0 : tensor<6xf32>
}

// -----

func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'func.call' op is not allowed in a 'fuse.group' body (only onnx ops are)}}
    %r = func.call @foreign_op(%a) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The body is isolated: values from outside must come in as inputs.
func.func @isolated(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'onnx.Add' op using value defined outside the region}}
    %r = onnx.Add(%a, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fuse.yield' op expects parent op to be one of 'fuse.group, fuse.alternatives'}}
  fuse.yield %x : tensor<4xf32>
}

// -----

func.func @two_reductions(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.group' op of kind 'reduction' must contain exactly one Softmax, LayerNormalization or Reduce* op, found 2}}
  %0 = fuse.group reduction ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = onnx.Softmax(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %t = onnx.Softmax(%s) {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %t : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

func.func @no_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fuse.group' op of kind 'reduction' must contain exactly one Softmax, LayerNormalization or Reduce* op, found 0}}
  %0 = fuse.group reduction ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %r = onnx.Relu(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %r : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

func.func @reduction_in_elementwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %r = onnx.Relu(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // expected-error @+1 {{'onnx.Softmax' op is not allowed in a group of kind 'elementwise'}}
    %s = onnx.Softmax(%r) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fuse.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

func.func @reduction_in_epilogue(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x1xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%x: tensor<4x16xf32>, %y: tensor<16x8xf32>):
    %axes = onnx.Constant dense<1> : tensor<1xi64>
    %m = onnx.MatMul(%x, %y) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    // expected-error @+1 {{'onnx.ReduceSum' op is not allowed in a group of kind 'contraction_epilogue'}}
    %r = onnx.ReduceSum(%m, %axes) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    fuse.yield %r : tensor<4x1xf32>
  }
  return %0 : tensor<4x1xf32>
}

// -----

func.func @pool_in_reduction(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = fuse.group reduction ins(%x : tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  ^bb0(%a: tensor<1x1x8x8xf32>):
    // expected-error @+1 {{'onnx.MaxPool' op is not allowed in a group of kind 'reduction'}}
    %p = onnx.MaxPool(%a) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
    %s = onnx.Softmax(%p) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    fuse.yield %s : tensor<1x1x4x4xf32>
  }
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @transpose_in_reduction(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = fuse.group reduction ins(%x : tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = onnx.Softmax(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // expected-error @+1 {{'onnx.Transpose' op is not allowed in a group of kind 'reduction' (it is neither elementwise nor the group's anchor)}}
    %t = onnx.Transpose(%s) : (tensor<4x8xf32>) -> tensor<8x4xf32>
    fuse.yield %t : tensor<8x4xf32>
  }
  return %0 : tensor<8x4xf32>
}

// -----

// Strategies: a row is lanes of a warp or the whole block.
// expected-error @+1 {{row_threads 48 must be a power of two from 2 to 32 (lanes of a warp) or the block size (256)}}
func.func @odd_row_threads() attributes {s = #fuse.kernel<rows, grid = 4, block = 256, row_threads = 48>} {
  return
}

// -----

// expected-error @+1 {{row_threads 1 must be a power of two from 2 to 32 (lanes of a warp) or the block size (256)}}
func.func @one_lane_rows() attributes {s = #fuse.kernel<rows, grid = 4, block = 256, row_threads = 1>} {
  return
}

// -----

// expected-error @+1 {{grid 1 and block 2048 must be at least 1 (block at most 1024)}}
func.func @huge_block() attributes {s = #fuse.kernel<flat, grid = 1, block = 2048>} {
  return
}

// -----

// expected-error @+1 {{the loop mapping runs on one thread: grid and block must be 1}}
func.func @loop_grid() attributes {s = #fuse.kernel<loop, grid = 2, block = 1>} {
  return
}

// -----

// expected-error @+1 {{row_threads is only for the rows mapping}}
func.func @flat_rows() attributes {s = #fuse.kernel<flat, grid = 2, block = 64, row_threads = 32>} {
  return
}

// -----

// A library call computes a contraction group only.
func.func @library_elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.group' op of kind 'elementwise' cannot run as a library call (only contraction_epilogue groups can)}}
  %0 = fuse.group elementwise ins(%x : tensor<4xf32>) {strategy = #fuse.cublaslt<batch = 1, m = 1, n = 4, k = 1, epilogue = none, residual = false>} -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = onnx.Relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @cudnn_nhwc_over_nchw(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'fuse.group' op runs as a cuDNN convolution over NHWC data but its contraction is onnx.Conv}}
  %0 = fuse.group contraction_epilogue ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) {strategy = #fuse.cudnn<groups = 1, bias = false, residual = false, activation = identity, channels_last = true>} -> tensor<1x8x6x6xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %b: tensor<8x4x3x3xf32>):
    %1 = onnx.Conv(%a, %b) : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
    fuse.yield %1 : tensor<1x8x6x6xf32>
  }
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @cudnn_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'fuse.group' op runs as a cuDNN convolution but its contraction is onnx.MatMul}}
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) {strategy = #fuse.cudnn<groups = 1, bias = false, residual = false, activation = identity>} -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    fuse.yield %m : tensor<4x2xf32>
  }
  return %0 : tensor<4x2xf32>
}

// -----

func.func @im2col_rank(%x: tensor<2x8x8xf32>) -> tensor<2x10x36xf32> {
  // expected-error @+1 {{'fuse.im2col' op input must be a static 4-D (NCHW) tensor, not 'tensor<2x8x8xf32>'}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<2x8x8xf32> -> tensor<2x10x36xf32>
  return %0 : tensor<2x10x36xf32>
}

// -----

func.func @im2col_strides(%x: tensor<1x1x8x8xf32>) -> tensor<1x12x36xf32> {
  // expected-error @+1 {{'fuse.im2col' op strides must be two positive values}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x12x36xf32>
  return %0 : tensor<1x12x36xf32>
}

// -----

func.func @im2col_pads(%x: tensor<1x1x8x8xf32>) -> tensor<1x12x36xf32> {
  // expected-error @+1 {{'fuse.im2col' op pads must be four values, none negative}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, -1, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x12x36xf32>
  return %0 : tensor<1x12x36xf32>
}

// -----

func.func @im2col_window(%x: tensor<1x1x2x2xf32>) -> tensor<1x12x1xf32> {
  // expected-error @+1 {{'fuse.im2col' op the window is larger than the padded input}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x2x2xf32> -> tensor<1x12x1xf32>
  return %0 : tensor<1x12x1xf32>
}

// -----

// The ones row needs one row more than C * R * S.
func.func @im2col_rows(%x: tensor<1x1x8x8xf32>) -> tensor<1x9x36xf32> {
  // expected-error @+1 {{'fuse.im2col' op result needs more than 9 rows (C * R * S and the ones row), has 9}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x9x36xf32>
  return %0 : tensor<1x9x36xf32>
}

// -----

func.func @im2col_columns(%x: tensor<1x1x8x8xf32>) -> tensor<1x12x16xf32> {
  // expected-error @+1 {{'fuse.im2col' op result has 16 columns but the output is 6x6}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x12x16xf32>
  return %0 : tensor<1x12x16xf32>
}

// -----

// channels_last: the input is NHWC (2 channels, 8x8), the result [N,
// positions, columns]; 2 * 9 taps and the ones column need 19 columns.
func.func @im2col_channels_last_columns(%x: tensor<1x8x8x2xf16>) -> tensor<1x36x18xf16> {
  // expected-error @+1 {{'fuse.im2col' op result needs more than 18 columns (C * R * S and the ones column), has 18}}
  %0 = fuse.im2col %x {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x8x8x2xf16> -> tensor<1x36x18xf16>
  return %0 : tensor<1x36x18xf16>
}

// -----

func.func @im2col_channels_last_rows(%x: tensor<1x8x8x2xf16>) -> tensor<1x24x24xf16> {
  // expected-error @+1 {{'fuse.im2col' op result has 24 rows but the output is 6x6}}
  %0 = fuse.im2col %x {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x8x8x2xf16> -> tensor<1x24x24xf16>
  return %0 : tensor<1x24x24xf16>
}

// -----

func.func @im2col_images(%x: tensor<1x1x8x8xf32>) -> tensor<2x12x36xf32> {
  // expected-error @+1 {{'fuse.im2col' op result has 2 images but the input has 1}}
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<2x12x36xf32>
  return %0 : tensor<2x12x36xf32>
}

// -----

// expected-error @+1 {{thread_tile is for the flat, planes and loop mappings}}
func.func @rows_tile() attributes {s = #fuse.kernel<rows, grid = 4, block = 256, row_threads = 32, thread_tile = [1, 4]>} {
  return
}

// -----

// expected-error @+1 {{thread_tile sizes must be at least 1}}
func.func @empty_tile() attributes {s = #fuse.kernel<flat, grid = 4, block = 256, thread_tile = [0, 4]>} {
  return
}

// -----

// expected-error @+1 {{thread_tile has more than 128 outputs}}
func.func @huge_tile() attributes {s = #fuse.kernel<flat, grid = 4, block = 256, thread_tile = [16, 16]>} {
  return
}

// -----

// expected-error @+1 {{planes is only for the planes mapping}}
func.func @flat_planes() attributes {s = #fuse.kernel<flat, grid = 2, block = 64, planes = 4>} {
  return
}

// -----

// expected-error @+1 {{staged_output is only for the planes mapping}}
func.func @flat_staged() attributes {s = #fuse.kernel<flat, grid = 2, block = 64, staged_output>} {
  return
}

// -----

// expected-error @+1 {{planes must be at least 1}}
func.func @no_planes() attributes {s = #fuse.kernel<planes, grid = 2, block = 64, planes = 0>} {
  return
}

// -----

// expected-error @+1 {{the tiles mapping needs a thread_tile and a block_tile of one size per loop dim}}
func.func @tiles_no_block_tile() attributes {s = #fuse.kernel<tiles, grid = 2, block = 64, thread_tile = [4, 4]>} {
  return
}

// -----

// expected-error @+1 {{block_tile sizes must be multiples of the thread_tile's}}
func.func @tiles_uneven() attributes {s = #fuse.kernel<tiles, grid = 2, block = 64, thread_tile = [4, 4], block_tile = [32, 30]>} {
  return
}

// -----

// expected-error @+1 {{block 64 must be the 32 thread tiles of a block tile}}
func.func @tiles_block() attributes {s = #fuse.kernel<tiles, grid = 2, block = 64, thread_tile = [4, 4], block_tile = [32, 16]>} {
  return
}

// -----

// expected-error @+1 {{k_tile must be at least 0}}
func.func @tiles_k() attributes {s = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [4, 4], block_tile = [32, 16], k_tile = -1>} {
  return
}

// -----

// expected-error @+1 {{stages must be 1, or 2 with a k_tile (3 with async_copy)}}
func.func @tiles_stages() attributes {s = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [4, 4], block_tile = [32, 16], k_tile = 16, stages = 3>} {
  return
}

// -----

// expected-error @+1 {{stages must be 1, or 2 with a k_tile (3 with async_copy)}}
func.func @tiles_stages_unstaged() attributes {s = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [4, 4], block_tile = [32, 16], stages = 2>} {
  return
}

// -----

// expected-error @+1 {{async_copy needs a k_tile}}
func.func @async_unstaged() attributes {s = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [4, 4], block_tile = [32, 16], stages = 2, async_copy>} {
  return
}

// -----

// expected-error @+1 {{async_copy needs 2 or 3 stages}}
func.func @async_one_stage() attributes {s = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [4, 4], block_tile = [32, 16], k_tile = 16, async_copy>} {
  return
}

// -----

// expected-error @+1 {{block_tile, k_tile, stages, split_k and async_copy are only for the tiles mapping}}
func.func @flat_async() attributes {s = #fuse.kernel<flat, grid = 2, block = 64, async_copy>} {
  return
}

// -----

// expected-error @+1 {{block_tile, k_tile, stages, split_k and async_copy are only for the tiles mapping}}
func.func @flat_k_tile() attributes {s = #fuse.kernel<flat, grid = 2, block = 64, k_tile = 16>} {
  return
}

// -----

// expected-error @+1 {{unknown mapping 'tile' (loop, flat, rows, planes, tiles, attention, attention_mma, transpose or mma)}}
func.func @bad_mapping() attributes {s = #fuse.kernel<tile, grid = 2, block = 64>} {
  return
}

// -----

func.func @one_candidate(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.alternatives' op must have at least two candidates, found 1}}
  %0 = fuse.alternatives selected = 0 key = "k" -> tensor<4xf32> {
    %r = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @selected_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.alternatives' op selects candidate 2 of 2}}
  %0 = fuse.alternatives selected = 2 key = "k" -> tensor<4xf32> {
    %r = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }, {
    %r = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @candidate_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuse.alternatives selected = 0 key = "k" -> tensor<4xf32> {
    %r = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }, {
    %c = onnx.Constant dense<1> : tensor<4xi64>
    // expected-error @+1 {{'fuse.yield' op returns 'tensor<4xi64>' but the results are 'tensor<4xf32>'}}
    fuse.yield %c : tensor<4xi64>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @candidate_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.alternatives' op candidate 1 must end with 'fuse.yield'}}
  %0 = fuse.alternatives selected = 0 key = "k" -> tensor<4xf32> {
    %r = onnx.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }, {
    "test.end"() : () -> ()
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @layout_in_epilogue(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'onnx.Transpose' op in a contraction group must feed the contraction (it is read by 'onnx.Relu')}}
    %t = onnx.Transpose(%m) {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %r = onnx.Relu(%t) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    fuse.yield %r : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

func.func @split_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fuse.group' op with split_k = 2 must be a contraction group whose result's first dim is the 2 slices}}
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) {strategy = #fuse.kernel<tiles, grid = 1, block = 16, thread_tile = [1, 1], block_tile = [4, 4], k_tile = 16, split_k = 2>} -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    fuse.yield %m : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{split_k must be at least 1}}
func.func @split_k_zero() attributes {s = #fuse.kernel<tiles, grid = 1, block = 16, thread_tile = [1, 1], block_tile = [4, 4], split_k = 0>} {
  return
}

// -----

// expected-error @+1 {{block_tile, k_tile, stages, split_k and async_copy are only for the tiles mapping}}
func.func @split_k_flat() attributes {s = #fuse.kernel<flat, grid = 1, block = 16, split_k = 2>} {
  return
}

// -----

func.func @attention_rank(%q: tensor<16x4x8xf32>, %k: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op query must be a static 4-D tensor or (identity layout) memref ([batch, sequence, heads, head size]), not 'tensor<16x4x8xf32>'}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32} : tensor<16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_batch(%q: tensor<2x16x4x8xf32>, %k: tensor<1x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op query, key, value and result must have the same batch, not 2, 1, 1 and 2}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32} : tensor<2x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<2x16x4x8xf32>
  return %0 : tensor<2x16x4x8xf32>
}

// -----

func.func @attention_head_size(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x4x6xf32>) -> tensor<1x16x4x6xf32> {
  // expected-error @+1 {{'fuse.attention' op key's head size (6) must be query's (8)}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x6xf32>, tensor<1x16x4x6xf32> -> tensor<1x16x4x6xf32>
  return %0 : tensor<1x16x4x6xf32>
}

// -----

func.func @attention_value(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x4x8xf32>, %v: tensor<1x12x4x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op value must have key's sequence and heads ([16, 4]), not [12, 4]}}
  %0 = fuse.attention %q, %k, %v {scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x12x4x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_heads(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x3x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op key's 3 heads must divide query's 4 (grouped-query attention)}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x3x8xf32>, tensor<1x16x3x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_result(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x4x8xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'fuse.attention' op result must be [1, 16, 4, 8] (query's sequence and heads, value's head size; heads first if flagged), not 'tensor<1x4x16x8xf32>'}}
  %0 = fuse.attention %q, %k, %k {scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x4x16x8xf32>
  return %0 : tensor<1x4x16x8xf32>
}

// -----

func.func @attention_mask(%q: tensor<2x16x4x8xf32>, %m: tensor<2x1x8x16xf32>) -> tensor<2x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op mask 'tensor<2x1x8x16xf32>' does not broadcast to the scores' [2, 4, 16, 16]}}
  %0 = fuse.attention %q, %q, %q, %m {scale = 1.0 : f32} : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x1x8x16xf32> -> tensor<2x16x4x8xf32>
  return %0 : tensor<2x16x4x8xf32>
}

// -----

func.func @attention_both(%q: memref<1x16x4x8xf32>, %o: memref<1x16x4x8xf32>) {
  // expected-error @+1 {{'fuse.attention' op must either have a result (on tensors) or write 'into' a buffer (on memrefs), not both}}
  %0 = fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x16x4x8xf32>, memref<1x16x4x8xf32>, memref<1x16x4x8xf32> into memref<1x16x4x8xf32> -> tensor<1x16x4x8xf32>
  return
}

// -----

func.func @attention_mixed(%q: tensor<1x16x4x8xf32>, %k: memref<1x16x4x8xf32>, %o: memref<1x16x4x8xf32>) {
  // expected-error @+1 {{'fuse.attention' op operands must all be memrefs in the buffer form, not 'tensor<1x16x4x8xf32>'}}
  fuse.attention %q, %k, %k into %o {scale = 1.0 : f32} : tensor<1x16x4x8xf32>, memref<1x16x4x8xf32>, memref<1x16x4x8xf32> into memref<1x16x4x8xf32>
  return
}

// -----

func.func @attention_strided(%q: memref<1x16x4x8xf32, strided<[1024, 64, 16, 1]>>, %o: memref<1x16x4x8xf32>) {
  // expected-error @+1 {{'fuse.attention' op query must be a static 4-D tensor or (identity layout) memref ([batch, sequence, heads, head size]), not 'memref<1x16x4x8xf32, strided<[1024, 64, 16, 1]>>'}}
  fuse.attention %q, %o, %o into %o {scale = 1.0 : f32} : memref<1x16x4x8xf32, strided<[1024, 64, 16, 1]>>, memref<1x16x4x8xf32>, memref<1x16x4x8xf32> into memref<1x16x4x8xf32>
  return
}

// -----

// expected-error @+1 {{the attention mapping takes a block_tile of two sizes (query rows, keys) and nothing else}}
func.func @attention_strategy() attributes {s = #fuse.kernel<attention, grid = 4, block = 256>} {
  return
}

// -----

// expected-error @+1 {{the attention mapping runs blocks of 256 threads, not 128}}
func.func @attention_block() attributes {s = #fuse.kernel<attention, grid = 4, block = 128, block_tile = [16, 64]>} {
  return
}

// -----

// expected-error @+1 {{attention block_tile sizes must be multiples of 16 from 16 to 128, not 24}}
func.func @attention_tile() attributes {s = #fuse.kernel<attention, grid = 4, block = 256, block_tile = [24, 64]>} {
  return
}

// -----

// expected-error @+1 {{the attention_mma mapping takes a block_tile of two sizes (query rows, keys) and stages, nothing else}}
func.func @attention_mma_strategy() attributes {s = #fuse.kernel<attention_mma, grid = 4, block = 128, block_tile = [64, 64], k_tile = 16>} {
  return
}

// -----

// expected-error @+1 {{attention_mma blocks have 16, 32 or 64 query rows (16 a warp), not 128}}
func.func @attention_mma_rows() attributes {s = #fuse.kernel<attention_mma, grid = 4, block = 256, block_tile = [128, 64]>} {
  return
}

// -----

// expected-error @+1 {{attention_mma key tiles must be multiples of 16 from 16 to 128, not 8}}
func.func @attention_mma_keys() attributes {s = #fuse.kernel<attention_mma, grid = 4, block = 128, block_tile = [64, 8]>} {
  return
}

// -----

// expected-error @+1 {{an attention_mma block of 64 rows has 4 warps (128 threads), not 256}}
func.func @attention_mma_block() attributes {s = #fuse.kernel<attention_mma, grid = 4, block = 256, block_tile = [64, 64]>} {
  return
}

// -----

// expected-error @+1 {{attention_mma takes 1 or 2 stages, not 3}}
func.func @attention_mma_stages() attributes {s = #fuse.kernel<attention_mma, grid = 4, block = 128, block_tile = [64, 64], stages = 3>} {
  return
}

// -----

func.func @attention_heads_first(%q: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op heads_first must have four flags (query, key, value, result), not 2}}
  %0 = fuse.attention %q, %q, %q {heads_first = array<i1: true, false>, scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}


// -----

// Slices and Concats are gathers of elementwise groups only.
func.func @concat_in_reduction(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = fuse.group reduction ins(%x : tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{'onnx.Concat' op is not allowed in a group of kind 'reduction' (it is neither elementwise nor the group's anchor)}}
    %c = onnx.Concat(%a, %a) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %axes = onnx.Constant dense<[1]> : tensor<1xi64>
    %r = onnx.ReduceSum(%c, %axes) : (tensor<4x16xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    fuse.yield %r : tensor<4x1xf32>
  }
  return %0 : tensor<4x1xf32>
}

// -----

func.func @attention_offsets_count(%p: tensor<1x16x12x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op head_offsets must have three offsets (query, key, value), not 2}}
  %0 = fuse.attention %p, %p, %p {head_offsets = array<i64: 0, 4>, key_value_heads = 4 : i64, scale = 1.0 : f32} : tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_offsets_heads(%p: tensor<1x16x12x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op head_offsets needs key_value_heads, the key's and value's heads (at least 1)}}
  %0 = fuse.attention %p, %p, %p {head_offsets = array<i64: 0, 4, 8>, scale = 1.0 : f32} : tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_offsets_window(%p: tensor<1x16x12x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op value's heads [9, 13) are not within its 12 heads}}
  %0 = fuse.attention %p, %p, %p {head_offsets = array<i64: 0, 4, 9>, key_value_heads = 4 : i64, scale = 1.0 : f32} : tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_offsets_negative(%p: tensor<1x16x12x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op query's heads [-1, 3) are not within its 12 heads}}
  %0 = fuse.attention %p, %p, %p {head_offsets = array<i64: -1, 4, 8>, key_value_heads = 4 : i64, scale = 1.0 : f32} : tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32>, tensor<1x16x12x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

func.func @attention_kv_heads_alone(%q: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  // expected-error @+1 {{'fuse.attention' op key_value_heads is only for head_offsets}}
  %0 = fuse.attention %q, %q, %q {key_value_heads = 4 : i64, scale = 1.0 : f32} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

// Query, key, value and result are stored in one type (f16 here: the
// precision policy's); the key is not.
func.func @attention_mixed_types(%q: tensor<1x16x4x8xf16>, %k: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf16> {
  // expected-error @+1 {{'fuse.attention' op key elements are 'f32' but the query's are 'f16' (query, key, value and result share one type)}}
  %0 = fuse.attention %q, %k, %q {scale = 1.0 : f32} : tensor<1x16x4x8xf16>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf16> -> tensor<1x16x4x8xf16>
  return %0 : tensor<1x16x4x8xf16>
}

// -----

// The mask stays f32.
func.func @attention_half_mask(%q: tensor<1x16x4x8xf16>, %m: tensor<1x1x1x16xf16>) -> tensor<1x16x4x8xf16> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit float values or memref of 32-bit float values}}
  %0 = fuse.attention %q, %q, %q, %m {scale = 1.0 : f32} : tensor<1x16x4x8xf16>, tensor<1x16x4x8xf16>, tensor<1x16x4x8xf16>, tensor<1x1x1x16xf16> -> tensor<1x16x4x8xf16>
  return %0 : tensor<1x16x4x8xf16>
}

// -----

// expected-error @+1 {{the transpose mapping takes a block_tile of two sizes (output run, input run) and nothing else}}
func.func @transpose_strategy() attributes {s = #fuse.kernel<transpose, grid = 4, block = 256, block_tile = [64, 64], thread_tile = [1, 4]>} {
  return
}

// -----

// expected-error @+1 {{transpose block_tile sizes must be at least 1, with at most 4096 elements}}
func.func @transpose_tile() attributes {s = #fuse.kernel<transpose, grid = 4, block = 256, block_tile = [128, 64]>} {
  return
}

// -----

// expected-error @+1 {{the mma mapping takes a block_tile of two sizes (rows, columns), k_tile, stages and split_k, nothing else}}
func.func @mma_strategy() attributes {s = #fuse.kernel<mma, grid = 4, block = 128, block_tile = [64, 64], thread_tile = [2, 2], k_tile = 32, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{mma blocks are 1 to 8 whole warps, not 100 threads}}
func.func @mma_warps() attributes {s = #fuse.kernel<mma, grid = 4, block = 100, block_tile = [64, 64], k_tile = 32, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{the 4 warps of an mma block cannot split its 16x48 tile into warp tiles of multiples of 16x16}}
func.func @mma_warp_grid() attributes {s = #fuse.kernel<mma, grid = 4, block = 128, block_tile = [16, 48], k_tile = 32, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{mma k_tile must be a multiple of 16 from 16 to 128, not 24}}
func.func @mma_k_tile() attributes {s = #fuse.kernel<mma, grid = 4, block = 128, block_tile = [64, 64], k_tile = 24, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{mma takes 2 to 4 stages, not 1}}
func.func @mma_stages() attributes {s = #fuse.kernel<mma, grid = 4, block = 128, block_tile = [64, 64], k_tile = 32>} {
  return
}

// -----

// expected-error @+1 {{an mma block of 64x64x64 in 3 stages needs more than 48 KB of shared memory}}
func.func @mma_shared() attributes {s = #fuse.kernel<mma, grid = 4, block = 128, block_tile = [64, 64], k_tile = 64, stages = 3>} {
  return
}

// -----

// expected-error @+1 {{mma block_tile sizes must be at least 16}}
func.func @mma_zero_tile() attributes {s = #fuse.kernel<mma, grid = 1, block = 64, block_tile = [0, 32], k_tile = 16, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{an mma warp tile of 128x128 has more than 4096 sums}}
func.func @mma_warp_tile() attributes {s = #fuse.kernel<mma, grid = 1, block = 32, block_tile = [128, 128], k_tile = 16, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{mma split_k is the blocks of a cluster: 1, 2, 4 or 8, not 3}}
func.func @mma_split_k() attributes {s = #fuse.kernel<mma, grid = 6, block = 128, block_tile = [64, 32], k_tile = 32, stages = 2, split_k = 3>} {
  return
}

// -----

// expected-error @+1 {{an mma grid of 6 blocks is not whole clusters of 4}}
func.func @mma_split_grid() attributes {s = #fuse.kernel<mma, grid = 6, block = 128, block_tile = [64, 32], k_tile = 32, stages = 2, split_k = 4>} {
  return
}

// -----

// 128 x 128 sums (64 KB) fit neither where A's copies were nor beside them.
// expected-error @+1 {{an mma block of 128x128x32 in 2 stages with its sums for the cluster needs more than 48 KB of shared memory}}
func.func @mma_split_shared() attributes {s = #fuse.kernel<mma, grid = 8, block = 256, block_tile = [128, 128], k_tile = 32, stages = 2, split_k = 2>} {
  return
}

// -----

// The GPU target's arch and SM count.
// expected-error @+1 {{target sms must be from 1 to 4096, not 0}}
module attributes {fuse.target = #fuse.target<arch = "sm_90", sms = 0>} {}

// -----

// expected-error @+1 {{target arch must be an NVIDIA architecture from sm_50 on, not 'gfx90a'}}
module attributes {fuse.target = #fuse.target<arch = "gfx90a", sms = 104>} {}

// -----

// expected-error @+1 {{'fuse.target' must be a #fuse.target}}
module attributes {fuse.target = 5 : i64} {}

// -----

module {
  // expected-error @+1 {{'fuse.target' belongs on a module}}
  func.func @f() attributes {fuse.target = #fuse.target<arch = "sm_90", sms = 132>} {
    return
  }
}
