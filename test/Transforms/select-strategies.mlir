// RUN: fuse-opt %s -split-input-file -fuse-select-strategies | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=strategy=generated | FileCheck %s --check-prefix=GEN
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=strategy=library | FileCheck %s --check-prefix=LIB
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=gpu-tensor-cores=true | FileCheck %s --check-prefix=MMA
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="target=cpu cpu-vector-registers=32" | FileCheck %s --check-prefix=AVX512
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="target=cpu cpu-vector-width=8" | FileCheck %s --check-prefix=AVX2
// RUN: not fuse-opt %s -fuse-select-strategies=cpu-vector-width=2 2>&1 | FileCheck %s --check-prefix=BADWIDTH
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=depthwise=library | FileCheck %s --check-prefix=DWLIB
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=gpu-stage-planes=false | FileCheck %s --check-prefix=NOPLANES
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=gpu-transpose-tiles=false | FileCheck %s --check-prefix=FLATT
// RUN: not fuse-opt %s -fuse-select-strategies=strategy=fast 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not fuse-opt %s -fuse-select-strategies=cpu-vector-registers=8 2>&1 | FileCheck %s --check-prefix=BADREGS
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-contraction-tile=1,1" | FileCheck %s --check-prefix=UNTILED
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-contraction-tile=8,8" | FileCheck %s --check-prefix=SHRINK
// RUN: not fuse-opt %s -fuse-select-strategies=gpu-contraction-tile=3,2 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: not fuse-opt %s -fuse-select-strategies=gpu-contraction-tile=16,16 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-tile-contractions=false" | FileCheck %s --check-prefix=FLAT
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-k-tile=32 gpu-stages=1" | FileCheck %s --check-prefix=K32
// RUN: not fuse-opt %s -fuse-select-strategies=gpu-k-tile=-1 2>&1 | FileCheck %s --check-prefix=BADK
// RUN: not fuse-opt %s -fuse-select-strategies=gpu-stages=3 2>&1 | FileCheck %s --check-prefix=BADSTAGES
// RUN: not fuse-opt %s -fuse-select-strategies="gpu-stages=1 gpu-async-copy=true" 2>&1 | FileCheck %s --check-prefix=BADSTAGES
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-stages=3 gpu-async-copy=true" | FileCheck %s --check-prefix=ASYNC
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies=candidates=true | FileCheck %s --check-prefix=CAND
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true strategy=generated" | FileCheck %s --check-prefix=CANDGEN
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true target=cpu" | FileCheck %s --check-prefix=CANDCPU
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true strategy=generated" | FileCheck %s --check-prefix=SPLITGEN
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="target=cpu split-k=4" | FileCheck %s --check-prefix=SPLITCPU
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true strategy=generated split-k=1" | FileCheck %s --check-prefix=NOSPLIT
// RUN: not fuse-opt %s -fuse-select-strategies=split-k=3 2>&1 | FileCheck %s --check-prefix=BADSPLIT
// RUN: not fuse-opt %s -fuse-select-strategies=gpu-mma-split-k=3 2>&1 | FileCheck %s --check-prefix=BADMMASPLIT
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-tensor-cores=true" | FileCheck %s --check-prefix=MMAGEN
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true gpu-tensor-cores=true" | FileCheck %s --check-prefix=MMACAND
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="candidates=true gpu-tensor-cores=true mma-over-library=true" | FileCheck %s --check-prefix=MMAPICK
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-tensor-cores=true gpu-mma-contractions=false" | FileCheck %s --check-prefix=NOMMA
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-tensor-cores=true gpu-clusters=true" | FileCheck %s --check-prefix=MMASPLIT
// RUN: fuse-opt %s -split-input-file -fuse-select-strategies="strategy=generated gpu-tensor-cores=true gpu-clusters=true gpu-mma-split-k=1" | FileCheck %s --check-prefix=MMAGEN
// BADK: fuse-select-strategies: gpu-k-tile must be from 0 to 256
// BADSTAGES: fuse-select-strategies: gpu-stages must be 1 or 2 (2 or 3 with gpu-async-copy)
// BADSPLIT: fuse-select-strategies: split-k must be 0 (the heuristic), 1 (never) or a power of two up to 16
// BADMMASPLIT: fuse-select-strategies: gpu-mma-split-k must be 0 (the heuristic), 1 (never), 2, 4 or 8
// BADREGS: fuse-select-strategies: cpu-vector-registers must be 16 or 32, not 8
// BADWIDTH: fuse-select-strategies: cpu-vector-width must be 4, 8 or 16, not 2
// BADTILE: fuse-select-strategies: gpu-contraction-tile must be two powers of two from 1 to 16 (rows,columns) of at most 128 outputs
// BADOPT: for the --strategy option: Cannot find option named 'fast'!

// A MatMul, its bias and ReLU: one cuBLASLt call (the bias runs along the
// last dim, 768). The 128 rows of A fold its batch dim into M.
// CHECK-LABEL: func @matmul_bias_relu
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cublaslt<batch = 1, m = 128, n = 768, k = 64, epilogue = bias_relu, residual = false>}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.MatMul
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: onnx.Relu
// CHECK-NEXT: fuse.yield
// Generated: the `tiles` mapping. 128 x 768 outputs in 8 x 8 thread tiles
// (blocks of 128 x 128) would make 6 blocks, fewer than the H100's 132
// SMs; the largest thread tile that makes 132 or more has 2 outputs, and
// of 1 x 2 and 2 x 1 the one with more rows wins: blocks of 32 x 16
// (16 threads along the last dim), 4 x 48 = 192 of them.
// GEN-LABEL: func @matmul_bias_relu
// GEN: {strategy = #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [2, 1], block_tile = [32, 16], k_tile = 16, stages = 2>}
// K32: {strategy = #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [2, 1], block_tile = [32, 16], k_tile = 32>}
// ASYNC-LABEL: func @matmul_bias_relu
// ASYNC: {strategy = #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [2, 1], block_tile = [32, 16], k_tile = 16, stages = 3, async_copy>}
// A forced thread tile is the only one tried.
// SHRINK-LABEL: func @matmul_bias_relu
// SHRINK: {strategy = #fuse.kernel<tiles, grid = 6, block = 256, thread_tile = [8, 8], block_tile = [128, 128], k_tile = 16, stages = 2>}
// Without tiles: one output per thread (a thread tile would leave fewer
// than two blocks per SM).
// FLAT-LABEL: func @matmul_bias_relu
// FLAT: {strategy = #fuse.kernel<flat, grid = 384, block = 256>}
// On the cpu, 8 x 8 outputs per iteration (register blocking: each row of
// A and column of B loaded once for 8 outputs); the unit batch is no dim
// of the loop.
// CPU-LABEL: func @matmul_bias_relu
// 6 rows by two vectors (SSE's 4 lanes; AVX2's 8) of columns.
// CPU: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [6, 8]>}
// AVX2-LABEL: func @matmul_bias_relu
// AVX2: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [6, 16]>}
// With 32 vector registers (AVX-512), 16 rows by 8.
// AVX512-LABEL: func @matmul_bias_relu
// AVX512: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [16, 8]>}
func.func @matmul_bias_relu(%a: tensor<1x128x64xf32>, %b: tensor<64x768xf32>, %c: tensor<768xf32>) -> tensor<1x128x768xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<1x128x64xf32>, tensor<64x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32> {
  ^bb0(%x: tensor<1x128x64xf32>, %y: tensor<64x768xf32>, %z: tensor<768xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<1x128x64xf32>, tensor<64x768xf32>) -> tensor<1x128x768xf32>
    %s = onnx.Add(%m, %z) : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    %r = onnx.Relu(%s) : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    fuse.yield %r : tensor<1x128x768xf32>
  }
  return %0 : tensor<1x128x768xf32>
}

// -----

// The library takes the MatMul and its bias; the exact (erf) GELU that
// follows is split off into an elementwise group, a kernel right after.
// CHECK-LABEL: func @matmul_bias_gelu
// CHECK: %[[MM:.*]] = fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cublaslt<batch = 1, m = 8, n = 16, k = 4, epilogue = bias, residual = false>}
// CHECK: onnx.MatMul
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: fuse.yield
// CHECK: fuse.group elementwise ins(%[[MM]]{{.*}}) {strategy = #fuse.kernel<flat, grid = 1, block = 128>}
// CHECK: onnx.Div
// CHECK: onnx.Erf
// CHECK: onnx.Mul
// CHECK-NOT: onnx.MatMul
func.func @matmul_bias_gelu(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<8x4xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x4xf32>, %y: tensor<4x16xf32>, %z: tensor<16xf32>):
    %sqrt2 = onnx.Constant dense<1.41421354> : tensor<f32>
    %one = onnx.Constant dense<1.0> : tensor<f32>
    %half = onnx.Constant dense<0.5> : tensor<f32>
    %m = onnx.MatMul(%x, %y) : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    %s = onnx.Add(%m, %z) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %d = onnx.Div(%s, %sqrt2) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    %e = onnx.Erf(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %p = onnx.Add(%e, %one) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    %q = onnx.Mul(%s, %p) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %r = onnx.Mul(%q, %half) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    fuse.yield %r : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

// -----

// A Conv with its bias, a residual Add and ReLU: one cuDNN call.
// CHECK-LABEL: func @conv_residual_relu
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cudnn<groups = 1, bias = true, residual = true, activation = relu>}
// CHECK: onnx.Conv
// CHECK-NEXT: onnx.Add
// CHECK-NEXT: onnx.Relu
// Generated, on the GPU: too few outputs for a tile. On the cpu: 8 output
// channels by a whole row of 6.
// GEN-LABEL: func @conv_residual_relu
// GEN: {strategy = #fuse.kernel<flat, grid = 2, block = 256>}
// CPU-LABEL: func @conv_residual_relu
// CPU: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [6, 1, 6]>}
func.func @conv_residual_relu(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>, %r: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %0 = fuse.group contraction_epilogue ins(%x, %w, %b, %r : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a0: tensor<1x8x6x6xf32>, %a1: tensor<8x8x3x3xf32>, %a2: tensor<8xf32>, %a3: tensor<1x8x6x6xf32>):
    %c = onnx.Conv(%a0, %a1, %a2) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %s = onnx.Add(%c, %a3) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %r2 = onnx.Relu(%s) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    fuse.yield %r2 : tensor<1x8x6x6xf32>
  }
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// ReLU before the residual Add: the library stops at the ReLU, the Add is
// split off.
// CHECK-LABEL: func @relu_then_add
// CHECK: %[[C:.*]] = fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cudnn<groups = 1, bias = true, residual = false, activation = relu>}
// CHECK: fuse.group elementwise ins(%[[C]], %{{.*}}) {strategy = #fuse.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.Add
func.func @relu_then_add(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %r: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %0 = fuse.group contraction_epilogue ins(%x, %w, %r : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a0: tensor<1x8x6x6xf32>, %a1: tensor<8x8x3x3xf32>, %a3: tensor<1x8x6x6xf32>):
    %c = onnx.Conv(%a0, %a1) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
    %r2 = onnx.Relu(%c) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %s = onnx.Add(%r2, %a3) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    fuse.yield %s : tensor<1x8x6x6xf32>
  }
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Depthwise: fuse's kernel with the whole epilogue (Clip too) by default
// (faster than cuDNN's on the H100); depthwise=library and
// strategy=library hand it to cuDNN and split the Clip off.
// CHECK-LABEL: func @depthwise
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.kernel<flat
// CHECK-NOT: fuse.group elementwise
// DWLIB-LABEL: func @depthwise
// DWLIB: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cudnn<groups = 8, bias = true, residual = false, activation = identity>}
// DWLIB: fuse.group elementwise
// GEN-LABEL: func @depthwise
// GEN: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.kernel<flat
// LIB-LABEL: func @depthwise
// LIB: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cudnn<groups = 8, bias = true, residual = false, activation = identity>}
// LIB: fuse.group elementwise
// LIB: onnx.Clip
func.func @depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %0 = fuse.group contraction_epilogue ins(%x, %w, %b : tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a0: tensor<1x8x6x6xf32>, %a1: tensor<8x1x3x3xf32>, %a2: tensor<8xf32>):
    %lo = onnx.Constant dense<0.0> : tensor<f32>
    %hi = onnx.Constant dense<6.0> : tensor<f32>
    %c = onnx.Conv(%a0, %a1, %a2) {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %r = onnx.Clip(%c) min(%lo) max(%hi) : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x6x6xf32>
    fuse.yield %r : tensor<1x8x6x6xf32>
  }
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Pads that differ on the two sides: cuDNN cannot, a kernel does.
// CHECK-LABEL: func @asymmetric_pads
// CHECK: onnx.Conv{{.*}}fuse.strategy = #fuse.kernel<flat
// CHECK-NOT: fuse.group
func.func @asymmetric_pads(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x2x2xf32>) -> tensor<1x2x5x5xf32> {
  %c = onnx.Conv(%x, %w) {pads = array<i64: 0, 0, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x5x5xf32>
  return %c : tensor<1x2x5x5xf32>
}

// -----

// A lone Gemm (the classifier) becomes a group of its own; its C, a vector
// along N with beta 1, is the bias; B is transposed.
// CHECK-LABEL: func @gemm
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.cublaslt<batch = 1, m = 2, n = 10, k = 32, epilogue = bias, residual = false>}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.Gemm
// CHECK-NEXT: fuse.yield
func.func @gemm(%a: tensor<2x32xf32>, %b: tensor<10x32xf32>, %c: tensor<10xf32>) -> tensor<2x10xf32> {
  %g = onnx.Gemm(%a, %b, %c) {transB = 1 : i64} : (tensor<2x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %g : tensor<2x10xf32>
}

// -----

// A Gemm whose C is scaled (beta 0.5) and only a vector: no library call.
// CHECK-LABEL: func @gemm_scaled_bias
// CHECK: onnx.Gemm{{.*}}fuse.strategy = #fuse.kernel
func.func @gemm_scaled_bias(%a: tensor<2x32xf32>, %b: tensor<32x10xf32>, %c: tensor<10xf32>) -> tensor<2x10xf32> {
  %g = onnx.Gemm(%a, %b, %c) {beta = 5.000000e-01 : f32} : (tensor<2x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %g : tensor<2x10xf32>
}

// -----

// Attention scores: 2 x 12 batched products, equal batch dims.
// CHECK-LABEL: func @batched
// CHECK: {strategy = #fuse.cublaslt<batch = 24, m = 128, n = 128, k = 64, epilogue = none, residual = false>}
func.func @batched(%q: tensor<2x12x128x64xf32>, %k: tensor<2x12x64x128xf32>) -> tensor<2x12x128x128xf32> {
  %s = onnx.MatMul(%q, %k) : (tensor<2x12x128x64xf32>, tensor<2x12x64x128xf32>) -> tensor<2x12x128x128xf32>
  return %s : tensor<2x12x128x128xf32>
}

// -----

// Batch dims that broadcast against each other ([2,1] x [1,3]): strides
// cannot express it, a kernel computes it.
// CHECK-LABEL: func @cross_broadcast
// CHECK: onnx.MatMul{{.*}}fuse.strategy = #fuse.kernel
func.func @cross_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<1x3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %s = onnx.MatMul(%a, %b) : (tensor<2x1x4x8xf32>, tensor<1x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %s : tensor<2x3x4x5xf32>
}

// -----

// Row-wise groups: a warp per row when there are many rows or short ones
// (Softmax over 128: 1536 rows, 8 a block), a block per row for long rows
// that are few (LayerNormalization over 4096 with 3 rows: 512 threads, 8
// elements each).
// CHECK-LABEL: func @rows
// CHECK: onnx.Softmax{{.*}}fuse.strategy = #fuse.kernel<rows, grid = 192, block = 256, row_threads = 32>
// CHECK: onnx.LayerNormalization{{.*}}fuse.strategy = #fuse.kernel<rows, grid = 3, block = 512, row_threads = 512>
// GlobalAveragePool folds 7 x 7 = 49 elements per output: short rows, 8
// lanes each (about 4 elements a lane), 32 rows a block.
// CHECK: onnx.GlobalAveragePool{{.*}}fuse.strategy = #fuse.kernel<rows, grid = 2, block = 256, row_threads = 8>
// A reduction over a leading dim has strided rows: flat, a thread per
// output.
// CHECK: onnx.ReduceSum{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 1, block = 64>
// Rows shorter than 32: flat.
// CHECK: onnx.Softmax{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>
// CPU-LABEL: func @rows
// CPU: onnx.Softmax{{.*}}fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>
func.func @rows(%s: tensor<1x12x128x128xf32>, %l: tensor<3x4096xf32>, %g: tensor<1x64x7x7xf32>, %t: tensor<8x4xf32>) -> (tensor<1x12x128x128xf32>, tensor<3x4096xf32>, tensor<1x64x1x1xf32>, tensor<1x4x7x7xf32>, tensor<8x4xf32>) {
  %0 = onnx.Softmax(%s) : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %scale = onnx.Constant dense<1.0> : tensor<4096xf32>
  %1 = onnx.LayerNormalization(%l, %scale) : (tensor<3x4096xf32>, tensor<4096xf32>) -> tensor<3x4096xf32>
  %2 = onnx.GlobalAveragePool(%g) : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf32>
  %a1 = onnx.Constant dense<[1]> : tensor<1xi64>
  %3 = onnx.ReduceSum(%g, %a1) : (tensor<1x64x7x7xf32>, tensor<1xi64>) -> tensor<1x1x7x7xf32>
  %r = onnx.Constant dense<[1, 4, 7, 7]> : tensor<4xi64>
  %4 = onnx.Expand(%3, %r) : (tensor<1x1x7x7xf32>, tensor<4xi64>) -> tensor<1x4x7x7xf32>
  %5 = onnx.Softmax(%t) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %1, %2, %4, %5 : tensor<1x12x128x128xf32>, tensor<3x4096xf32>, tensor<1x64x1x1xf32>, tensor<1x4x7x7xf32>, tensor<8x4xf32>
}

// -----

// Thread tiles. A depthwise conv + Clip at batch 32 (2.4 M outputs): each
// thread computes 4 neighbouring outputs along W (the taps' input columns
// and weights loaded once), 602112 threads; on the cpu, the same tile.
// On cuda its input planes (3136 bytes) are staged in shared memory, a
// plane per block: 196 tiles a plane, 224 threads, 3072 blocks.
// CHECK-LABEL: func @tiled_depthwise
// CHECK: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.kernel<planes, grid = 3072, block = 224, thread_tile = [1, 1, 1, 4]>}
// NOPLANES-LABEL: func @tiled_depthwise
// NOPLANES: fuse.group contraction_epilogue ins({{.*}}) {strategy = #fuse.kernel<flat, grid = 2352, block = 256, thread_tile = [1, 1, 1, 4]>}
// CPU-LABEL: func @tiled_depthwise
// CPU: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 1, 1, 4]>}
func.func @tiled_depthwise(%x: tensor<32x96x28x28xf32>, %w: tensor<96x1x3x3xf32>, %b: tensor<96xf32>) -> tensor<32x96x28x28xf32> {
  %0 = fuse.group contraction_epilogue ins(%x, %w, %b : tensor<32x96x28x28xf32>, tensor<96x1x3x3xf32>, tensor<96xf32>) -> tensor<32x96x28x28xf32> {
  ^bb0(%a0: tensor<32x96x28x28xf32>, %a1: tensor<96x1x3x3xf32>, %a2: tensor<96xf32>):
    %lo = onnx.Constant dense<0.0> : tensor<f32>
    %hi = onnx.Constant dense<6.0> : tensor<f32>
    %c = onnx.Conv(%a0, %a1, %a2) {group = 96 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<32x96x28x28xf32>, tensor<96x1x3x3xf32>, tensor<96xf32>) -> tensor<32x96x28x28xf32>
    %r = onnx.Clip(%c) min(%lo) max(%hi) : (tensor<32x96x28x28xf32>, tensor<f32>, tensor<f32>) -> tensor<32x96x28x28xf32>
    fuse.yield %r : tensor<32x96x28x28xf32>
  }
  return %0 : tensor<32x96x28x28xf32>
}

// -----

// Planes. A stride-2 depthwise conv of 14x14 planes into 7x7 ones stages
// its input planes, 5 a block (245 outputs: small planes are computed an
// output a thread); a MaxPool too. The stride-1 7x7 depthwise conv stages
// its output planes too (a thread's row of 7 outputs would make each store
// of a warp touch 7 cache lines), in blocks of 4 warps: 16 planes (whole
// float4s: 784 elements), 7 threads a plane, 112 threads; the 14x14 one 4
// planes of 28 threads (rows in two tiles of 7). A depthwise conv whose
// input plane (112x112, 50 KB) does not fit stays flat, as does one of too
// few planes to keep two blocks per SM (batch 1: 96 planes).
// CHECK-LABEL: func @planes
// CHECK: {strategy = #fuse.kernel<planes, grid = 1920, block = 128, planes = 16, staged_output, thread_tile = [1, 1, 1, 7]>}
// CHECK: {strategy = #fuse.kernel<planes, grid = 3687, block = 256, planes = 5>}
// CHECK: onnx.MaxPool{{.*}}fuse.strategy = #fuse.kernel<planes, grid = 3687, block = 256, planes = 5>
// CHECK: {strategy = #fuse.kernel<flat, grid = 9408, block = 256, thread_tile = [1, 1, 1, 4]>}
// CHECK: {strategy = #fuse.kernel<flat, grid = 294, block = 256, thread_tile = [1, 1, 4]>}
// CHECK: {strategy = #fuse.kernel<planes, grid = 3072, block = 128, planes = 4, staged_output, thread_tile = [1, 1, 1, 7]>}
// NOPLANES-LABEL: func @planes
// NOPLANES-NOT: planes
func.func @planes(%x: tensor<32x960x7x7xf32>, %w: tensor<960x1x3x3xf32>, %x2: tensor<32x576x14x14xf32>, %w2: tensor<576x1x3x3xf32>, %x3: tensor<32x96x112x112xf32>, %w3: tensor<96x1x3x3xf32>, %x4: tensor<1x96x56x56xf32>, %x5: tensor<32x384x14x14xf32>, %w5: tensor<384x1x3x3xf32>) -> (tensor<32x960x7x7xf32>, tensor<32x576x7x7xf32>, tensor<32x576x7x7xf32>, tensor<32x96x56x56xf32>, tensor<1x96x56x56xf32>, tensor<32x384x14x14xf32>) {
  %0 = fuse.group contraction_epilogue ins(%x, %w : tensor<32x960x7x7xf32>, tensor<960x1x3x3xf32>) -> tensor<32x960x7x7xf32> {
  ^bb0(%a0: tensor<32x960x7x7xf32>, %a1: tensor<960x1x3x3xf32>):
    %lo = onnx.Constant dense<0.0> : tensor<f32>
    %hi = onnx.Constant dense<6.0> : tensor<f32>
    %c = onnx.Conv(%a0, %a1) {group = 960 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<32x960x7x7xf32>, tensor<960x1x3x3xf32>) -> tensor<32x960x7x7xf32>
    %r = onnx.Clip(%c) min(%lo) max(%hi) : (tensor<32x960x7x7xf32>, tensor<f32>, tensor<f32>) -> tensor<32x960x7x7xf32>
    fuse.yield %r : tensor<32x960x7x7xf32>
  }
  %1 = fuse.group contraction_epilogue ins(%x2, %w2 : tensor<32x576x14x14xf32>, tensor<576x1x3x3xf32>) -> tensor<32x576x7x7xf32> {
  ^bb0(%a0: tensor<32x576x14x14xf32>, %a1: tensor<576x1x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {group = 576 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<32x576x14x14xf32>, tensor<576x1x3x3xf32>) -> tensor<32x576x7x7xf32>
    fuse.yield %c : tensor<32x576x7x7xf32>
  }
  %2 = onnx.MaxPool(%x2) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<32x576x14x14xf32>) -> tensor<32x576x7x7xf32>
  %3 = fuse.group contraction_epilogue ins(%x3, %w3 : tensor<32x96x112x112xf32>, tensor<96x1x3x3xf32>) -> tensor<32x96x56x56xf32> {
  ^bb0(%a0: tensor<32x96x112x112xf32>, %a1: tensor<96x1x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {group = 96 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<32x96x112x112xf32>, tensor<96x1x3x3xf32>) -> tensor<32x96x56x56xf32>
    fuse.yield %c : tensor<32x96x56x56xf32>
  }
  %4 = fuse.group contraction_epilogue ins(%x4, %w3 : tensor<1x96x56x56xf32>, tensor<96x1x3x3xf32>) -> tensor<1x96x56x56xf32> {
  ^bb0(%a0: tensor<1x96x56x56xf32>, %a1: tensor<96x1x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {group = 96 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x96x56x56xf32>, tensor<96x1x3x3xf32>) -> tensor<1x96x56x56xf32>
    fuse.yield %c : tensor<1x96x56x56xf32>
  }
  %5 = fuse.group contraction_epilogue ins(%x5, %w5 : tensor<32x384x14x14xf32>, tensor<384x1x3x3xf32>) -> tensor<32x384x14x14xf32> {
  ^bb0(%a0: tensor<32x384x14x14xf32>, %a1: tensor<384x1x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {group = 384 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<32x384x14x14xf32>, tensor<384x1x3x3xf32>) -> tensor<32x384x14x14xf32>
    fuse.yield %c : tensor<32x384x14x14xf32>
  }
  return %0, %1, %2, %3, %4, %5 : tensor<32x960x7x7xf32>, tensor<32x576x7x7xf32>, tensor<32x576x7x7xf32>, tensor<32x96x56x56xf32>, tensor<1x96x56x56xf32>, tensor<32x384x14x14xf32>
}

// -----

// A transpose that moves the input's last dim (BERT's K^T): the output
// run is the last dim (1024 iterations), the input run the other two (12
// x 64): tiles of 64 x 32, 16 x 24 of them. Without transpose tiles, 8
// outputs a thread along the input's last dim (output dim 2), so each
// thread reads 32 contiguous bytes and a warp's stores stay side by side;
// the unit batch is no dim of the kernel's loop, so the tile has 3 sizes.
// CHECK-LABEL: func @tiled_transpose
// CHECK: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<transpose, grid = 384, block = 256, block_tile = [64, 32]>
// FLATT-LABEL: func @tiled_transpose
// FLATT: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 384, block = 256, thread_tile = [1, 8, 1]>
func.func @tiled_transpose(%x: tensor<1x1024x12x64xf32>) -> tensor<1x12x64x1024xf32> {
  %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x1024x12x64xf32>) -> tensor<1x12x64x1024xf32>
  return %0 : tensor<1x12x64x1024xf32>
}

// -----

// Grids are sized by the module's GPU (fuse.target; without one, an
// H100's 132 SMs): 64 x 32 tiles of a 640-long output run give 10 x 24 =
// 240 blocks, fewer than two per SM of 132 SMs, so the tiles halve to 32 x
// 32 (480 blocks); 240 are two per SM of an A100's 108.
// CHECK-LABEL: func @transpose_grid_sm90
// CHECK: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<transpose, grid = 480, block = 256, block_tile = [32, 32]>
func.func @transpose_grid_sm90(%x: tensor<1x640x12x64xf32>) -> tensor<1x12x64x640xf32> {
  %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x640x12x64xf32>) -> tensor<1x12x64x640xf32>
  return %0 : tensor<1x12x64x640xf32>
}

// -----

// CHECK-LABEL: func @transpose_grid_sm80
// CHECK: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<transpose, grid = 240, block = 256, block_tile = [64, 32]>
module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 108>} {
  func.func @transpose_grid_sm80(%x: tensor<1x640x12x64xf32>) -> tensor<1x12x64x640xf32> {
    %0 = onnx.Transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x640x12x64xf32>) -> tensor<1x12x64x640xf32>
    return %0 : tensor<1x12x64x640xf32>
  }
}

// -----

// Too few outputs to keep two blocks per SM once tiled: one per thread;
// on the cpu, which runs the loop on one thread anyway, still tiled. A
// last dim that 4 does not divide gets no tile.
// CHECK-LABEL: func @untiled
// CHECK: onnx.Relu{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 4, block = 256>
// CHECK: onnx.Sigmoid{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 28812, block = 256>
// CPU-LABEL: func @untiled
// CPU: onnx.Relu{{.*}}fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 4]>
// CPU: onnx.Sigmoid{{.*}}fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>
func.func @untiled(%x: tensor<4x256xf32>, %z: tensor<32x96x49x49xf32>) -> (tensor<4x256xf32>, tensor<32x96x49x49xf32>) {
  %0 = onnx.Relu(%x) : (tensor<4x256xf32>) -> tensor<4x256xf32>
  %1 = onnx.Sigmoid(%z) : (tensor<32x96x49x49xf32>) -> tensor<32x96x49x49xf32>
  return %0, %1 : tensor<4x256xf32>, tensor<32x96x49x49xf32>
}

// -----

// A window kernel whose last dim 4 does not divide still shares its
// columns: a 14-wide row in two tiles of 7 (its planes, read at stride 1,
// staged both ways; without staging, flat).
// CHECK-LABEL: func @tiled_window_14
// CHECK: onnx.MaxPool{{.*}}fuse.strategy = #fuse.kernel<planes, grid = 1024, block = 128, planes = 4, staged_output, thread_tile = [1, 1, 1, 7]>
// NOPLANES-LABEL: func @tiled_window_14
// NOPLANES: onnx.MaxPool{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 448, block = 256, thread_tile = [1, 1, 1, 7]>
func.func @tiled_window_14(%x: tensor<32x128x14x14xf32>) -> tensor<32x128x14x14xf32> {
  %0 = onnx.MaxPool(%x) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<32x128x14x14xf32>) -> tensor<32x128x14x14xf32>
  return %0 : tensor<32x128x14x14xf32>
}

// -----

// An im2col of a 7x7 map at batch 32: 49 columns take no tile of 4, so 4
// images a thread share the index arithmetic. At batch 1, none.
// CHECK-LABEL: func @tiled_im2col_images
// CHECK: fuse.im2col{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 7063, block = 256, thread_tile = [4, 1, 1]>
// CHECK: fuse.im2col{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 883, block = 256>
func.func @tiled_im2col_images(%x: tensor<32x512x7x7xf32>, %y: tensor<1x512x7x7xf32>) -> (tensor<32x4612x49xf32>, tensor<1x4612x49xf32>) {
  %0 = fuse.im2col %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<32x512x7x7xf32> -> tensor<32x4612x49xf32>
  %1 = fuse.im2col %y {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x512x7x7xf32> -> tensor<1x4612x49xf32>
  return %0, %1 : tensor<32x4612x49xf32>, tensor<1x4612x49xf32>
}

// -----

// An NHWC im2col in half precision: 8 entries of a row a thread (16 bytes
// to store), with 64 channels and with the stem's 3; in f32, 4.
// CHECK-LABEL: func @tiled_im2col_channels_last
// CHECK: fuse.im2col{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 3577, block = 256, thread_tile = [1, 1, 8]>
// CHECK: fuse.im2col{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 3724, block = 256, thread_tile = [1, 1, 8]>
// CHECK: fuse.im2col{{.*}}fuse.strategy = #fuse.kernel<flat, grid = 343, block = 256, thread_tile = [1, 1, 4]>
func.func @tiled_im2col_channels_last(%x: tensor<4x56x56x64xf16>, %s: tensor<4x224x224x3xf16>, %y: tensor<4x56x56x3xf32>) -> (tensor<4x3136x584xf16>, tensor<4x12544x152xf16>, tensor<4x3136x28xf32>) {
  %0 = fuse.im2col %x {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<4x56x56x64xf16> -> tensor<4x3136x584xf16>
  %1 = fuse.im2col %s {channels_last, kernel_shape = array<i64: 7, 7>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>} : tensor<4x224x224x3xf16> -> tensor<4x12544x152xf16>
  %2 = fuse.im2col %y {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<4x56x56x3xf32> -> tensor<4x3136x28xf32>
  return %0, %1, %2 : tensor<4x3136x584xf16>, tensor<4x12544x152xf16>, tensor<4x3136x28xf32>
}

// -----

// A generated convolution at batch 32: 8 output channels by 8 columns per
// iteration on the cpu, a 14-wide row too (fuse-jam-thread-tiles runs its
// last 6 as a smaller tile); on the GPU 4 output channels by 2 columns,
// which divide both outputs. With one output per contraction thread
// (gpu-contraction-tile=1,1) only the window tile along the row is left.
// GEN-LABEL: func @tiled_conv
// GEN: {strategy = #fuse.kernel<flat, grid = 3136, block = 256, thread_tile = [1, 4, 1, 2]>}
// GEN: {strategy = #fuse.kernel<flat, grid = 784, block = 256, thread_tile = [1, 4, 1, 2]>}
// Asked for 8 x 8, the first keeps it; the second's row of 14 takes 7
// columns, and its 8 x 7 tile halves to 2 x 7 to keep two blocks per SM.
// SHRINK-LABEL: func @tiled_conv
// SHRINK: {strategy = #fuse.kernel<flat, grid = 392, block = 256, thread_tile = [1, 8, 1, 8]>}
// SHRINK: {strategy = #fuse.kernel<flat, grid = 448, block = 256, thread_tile = [1, 2, 1, 7]>}
// UNTILED-LABEL: func @tiled_conv
// UNTILED: {strategy = #fuse.kernel<flat, grid = 6272, block = 256, thread_tile = [1, 1, 1, 4]>}
// UNTILED: {strategy = #fuse.kernel<flat, grid = 896, block = 256, thread_tile = [1, 1, 1, 7]>}
// CPU-LABEL: func @tiled_conv
// CPU: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 6, 1, 8]>}
// CPU: {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 6, 1, 8]>}
func.func @tiled_conv(%x: tensor<32x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %y: tensor<32x256x14x14xf32>, %v: tensor<256x256x3x3xf32>) -> (tensor<32x64x56x56xf32>, tensor<32x256x14x14xf32>) {
  %0 = fuse.group contraction_epilogue ins(%x, %w : tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32> {
  ^bb0(%a0: tensor<32x64x56x56xf32>, %a1: tensor<64x64x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {pads = array<i64: 1, 1, 1, 1>} : (tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32>
    %r = onnx.Relu(%c) : (tensor<32x64x56x56xf32>) -> tensor<32x64x56x56xf32>
    fuse.yield %r : tensor<32x64x56x56xf32>
  }
  %1 = fuse.group contraction_epilogue ins(%y, %v : tensor<32x256x14x14xf32>, tensor<256x256x3x3xf32>) -> tensor<32x256x14x14xf32> {
  ^bb0(%a0: tensor<32x256x14x14xf32>, %a1: tensor<256x256x3x3xf32>):
    %c = onnx.Conv(%a0, %a1) {pads = array<i64: 1, 1, 1, 1>} : (tensor<32x256x14x14xf32>, tensor<256x256x3x3xf32>) -> tensor<32x256x14x14xf32>
    %r = onnx.Relu(%c) : (tensor<32x256x14x14xf32>) -> tensor<32x256x14x14xf32>
    fuse.yield %r : tensor<32x256x14x14xf32>
  }
  return %0, %1 : tensor<32x64x56x56xf32>, tensor<32x256x14x14xf32>
}

// -----

// With candidates, a contraction group becomes a fuse.alternatives of every
// way it can run: the cuBLASLt call (MatMul and bias; the Sigmoid it cannot
// fuse split off, as without candidates), then the three best-ranked
// tilings (all make at least 132 blocks: 2 x 1, 1 x 2, 1 x 1 outputs a
// thread). The first, the heuristic's pick, is selected. The key names the
// ops and the result, then a hash of the whole group.
// CAND-LABEL: func @candidates
// CAND: fuse.alternatives selected = 0 key = "MatMul+Add+Sigmoid -> tensor<128x768xf32> #[[HASH:[0-9a-f]+]]" -> tensor<128x768xf32> {
// CAND: %[[CALL:.*]] = fuse.group contraction_epilogue {{.*}}strategy = #fuse.cublaslt<batch = 1, m = 128, n = 768, k = 64, epilogue = bias, residual = false>
// CAND: %[[REST:.*]] = fuse.group elementwise ins(%[[CALL]] : {{.*}}) {strategy = #fuse.kernel<flat
// CAND: onnx.Sigmoid
// CAND: fuse.yield %[[REST]]
// CAND-NEXT: }, {
// CAND: {strategy = #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [2, 1], block_tile = [32, 16], k_tile = 16, stages = 2>}
// CAND: }, {
// CAND: {strategy = #fuse.kernel<tiles, grid = 192, block = 256, thread_tile = [1, 2], block_tile = [16, 32], k_tile = 16, stages = 2>}
// CAND: }, {
// CAND: {strategy = #fuse.kernel<tiles, grid = 384, block = 256, thread_tile = [1, 1], block_tile = [16, 16], k_tile = 16, stages = 2>}
// Equal groups have one key, whatever values they read; the lone MatMul
// is a group of its own.
// CAND: fuse.alternatives selected = 0 key = "MatMul+Add+Sigmoid -> tensor<128x768xf32> #[[HASH]]"
// CAND: fuse.alternatives selected = 0 key = "MatMul+Add+Sigmoid -> tensor<128x768xf32> #[[HASH]]"
// CAND: fuse.alternatives selected = 0 key = "MatMul -> tensor<64x32xf32>
// Generated kernels only: the three tilings.
// CANDGEN-LABEL: func @candidates
// CANDGEN: fuse.alternatives selected = 0
// CANDGEN-NOT: cublaslt
// CANDGEN: thread_tile = [2, 1]
// CANDGEN: }, {
// CANDGEN: thread_tile = [1, 2]
// CANDGEN: }, {
// CANDGEN: thread_tile = [1, 1]
// CANDGEN: fuse.alternatives selected = 0
// CANDGEN: fuse.alternatives selected = 0
// CANDGEN: fuse.alternatives selected = 0 key = "MatMul -> tensor<64x32xf32>
// On the cpu: 6 x 8, 3 x 8 and 6 x 4 outputs an iteration.
// CANDCPU-LABEL: func @candidates
// CANDCPU: fuse.alternatives selected = 0
// CANDCPU: #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [6, 8]>
// CANDCPU: }, {
// CANDCPU: #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [3, 8]>
// CANDCPU: }, {
// CANDCPU: #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [6, 4]>
func.func @candidates(%a: tensor<128x64xf32>, %b: tensor<64x768xf32>, %c: tensor<768xf32>, %c2: tensor<768xf32>, %d: tensor<64x16xf32>, %e: tensor<16x32xf32>) -> (tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<64x32xf32>) {
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<128x64xf32>, tensor<64x768xf32>, tensor<768xf32>) -> tensor<128x768xf32> {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x768xf32>, %z: tensor<768xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<128x64xf32>, tensor<64x768xf32>) -> tensor<128x768xf32>
    %s = onnx.Add(%m, %z) : (tensor<128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
    %r = onnx.Sigmoid(%s) : (tensor<128x768xf32>) -> tensor<128x768xf32>
    fuse.yield %r : tensor<128x768xf32>
  }
  %1 = fuse.group contraction_epilogue ins(%a, %b, %c2 : tensor<128x64xf32>, tensor<64x768xf32>, tensor<768xf32>) -> tensor<128x768xf32> {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x768xf32>, %z: tensor<768xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<128x64xf32>, tensor<64x768xf32>) -> tensor<128x768xf32>
    %s = onnx.Add(%m, %z) : (tensor<128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
    %r = onnx.Sigmoid(%s) : (tensor<128x768xf32>) -> tensor<128x768xf32>
    fuse.yield %r : tensor<128x768xf32>
  }
  %2 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<128x64xf32>, tensor<64x768xf32>, tensor<768xf32>) -> tensor<128x768xf32> {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x768xf32>, %z: tensor<768xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<128x64xf32>, tensor<64x768xf32>) -> tensor<128x768xf32>
    %s = onnx.Add(%m, %z) : (tensor<128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
    %r = onnx.Sigmoid(%s) : (tensor<128x768xf32>) -> tensor<128x768xf32>
    fuse.yield %r : tensor<128x768xf32>
  }
  %3 = onnx.MatMul(%d, %e) : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  return %0, %1, %2, %3 : tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<64x32xf32>
}

// -----

// Split-K. 64 x 49 outputs over a reduction of 1024 (a 7x7 convolution's
// matmul at batch 1): the best tiles launch 16 blocks, so the heuristic
// cuts the reduction into 8 slices of 128 (128 blocks). The candidate
// computes the slices' partial products through views of its operands (A
// [64, 1024] as [8, 1, 64, 128], B [1, 1024, 49] as [8, 1, 128, 49]: a
// Reshape alone when only 1s precede the slice dim), then a reduction
// group adds them up and applies the epilogue. Without a library call it
// is the heuristic's pick.
// SPLITGEN-LABEL: func @split_k
// SPLITGEN: fuse.alternatives selected = 3
// SPLITGEN: }, {
// SPLITGEN: }, {
// SPLITGEN: }, {
// SPLITGEN: fuse.group contraction_epilogue ins(%arg0, %arg1 : tensor<64x1024xf32>, tensor<1x1024x49xf32>) {strategy = #fuse.kernel<tiles, grid = 128, block = 256, thread_tile = [1, 1, 1], block_tile = [1, 16, 16], k_tile = 16, stages = 2, split_k = 8>} -> tensor<8x1x64x49xf32>
// SPLITGEN: onnx.Constant dense<[1, 64, 8, 128]>
// SPLITGEN: onnx.Constant dense<[8, 1, 128, 49]>
// SPLITGEN: onnx.Reshape(%{{.*}}) {fuse.split_k} : (tensor<64x1024xf32>, tensor<4xi64>) -> tensor<1x64x8x128xf32>
// SPLITGEN: onnx.Transpose(%{{.*}}) {fuse.split_k, perm = array<i64: 2, 0, 1, 3>} : (tensor<1x64x8x128xf32>) -> tensor<8x1x64x128xf32>
// SPLITGEN: onnx.Reshape(%{{.*}}) {fuse.split_k} : (tensor<1x1024x49xf32>, tensor<4xi64>) -> tensor<8x1x128x49xf32>
// SPLITGEN: onnx.MatMul(%{{.*}}) : (tensor<8x1x64x128xf32>, tensor<8x1x128x49xf32>) -> tensor<8x1x64x49xf32>
// SPLITGEN: fuse.group reduction ins(%{{.*}} : tensor<8x1x64x49xf32>) {strategy = #fuse.kernel<flat, grid = 13, block = 256>} -> tensor<1x64x49xf32>
// SPLITGEN: onnx.ReduceSum(%{{.*}}) {fuse.split_k, keepdims = 0 : i64} : (tensor<8x1x64x49xf32>, tensor<1xi64>) -> tensor<1x64x49xf32>
// SPLITGEN-NEXT: onnx.Relu
// On cpu only when asked for, and then without alternatives.
// SPLITCPU-LABEL: func @split_k
// SPLITCPU-NOT: fuse.alternatives
// SPLITCPU: fuse.group contraction_epilogue {{.*}} {strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 6, 8]>} -> tensor<4x1x64x49xf32>
// SPLITCPU: fuse.group reduction {{.*}} -> tensor<1x64x49xf32>
// SPLITCPU: onnx.ReduceSum
// NOSPLIT-LABEL: func @split_k
// NOSPLIT: fuse.alternatives selected = 0
// NOSPLIT-NOT: split_k
// NOSPLIT-NOT: ReduceSum
// NOSPLIT: return
func.func @split_k(%w: tensor<64x1024xf32>, %x: tensor<1x1024x49xf32>) -> tensor<1x64x49xf32> {
  %0 = fuse.group contraction_epilogue ins(%w, %x : tensor<64x1024xf32>, tensor<1x1024x49xf32>) -> tensor<1x64x49xf32> {
  ^bb0(%a: tensor<64x1024xf32>, %b: tensor<1x1024x49xf32>):
    %m = onnx.MatMul(%a, %b) : (tensor<64x1024xf32>, tensor<1x1024x49xf32>) -> tensor<1x64x49xf32>
    %r = onnx.Relu(%m) : (tensor<1x64x49xf32>) -> tensor<1x64x49xf32>
    fuse.yield %r : tensor<1x64x49xf32>
  }
  return %0 : tensor<1x64x49xf32>
}

// -----

// fuse.attention: on the GPU a block per 16, 32 or 64 query rows (the
// largest that still gives 264 blocks; 16 when none does), key tiles as
// large as static shared memory allows (BERT-base b32: 64 rows, keys 64;
// b1: 16 rows, keys 64), no larger than the keys there are; a thread per
// row when the value head size is not a multiple of 16; a loop on the cpu.
// CHECK-LABEL: func @attention
// CHECK: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention, grid = 768, block = 256, block_tile = [64, 64]>
// CHECK: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention, grid = 96, block = 256, block_tile = [16, 64]>
// CHECK: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention, grid = 2, block = 256, block_tile = [16, 16]>
// CHECK: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<flat, grid = 2, block = 256>
// CPU-LABEL: func @attention
// CPU-COUNT-4: fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>
func.func @attention(%q32: tensor<32x128x12x64xf32>, %q1: tensor<1x128x12x64xf32>, %qs: tensor<1x10x2x64xf32>, %qo: tensor<4x30x4x8xf32>) -> (tensor<32x128x12x64xf32>, tensor<1x128x12x64xf32>, tensor<1x10x2x64xf32>, tensor<4x30x4x8xf32>) {
  %0 = fuse.attention %q32, %q32, %q32 {scale = 0.125 : f32} : tensor<32x128x12x64xf32>, tensor<32x128x12x64xf32>, tensor<32x128x12x64xf32> -> tensor<32x128x12x64xf32>
  %1 = fuse.attention %q1, %q1, %q1 {scale = 0.125 : f32} : tensor<1x128x12x64xf32>, tensor<1x128x12x64xf32>, tensor<1x128x12x64xf32> -> tensor<1x128x12x64xf32>
  %2 = fuse.attention %qs, %qs, %qs {scale = 0.125 : f32} : tensor<1x10x2x64xf32>, tensor<1x10x2x64xf32>, tensor<1x10x2x64xf32> -> tensor<1x10x2x64xf32>
  %3 = fuse.attention %qo, %qo, %qo {scale = 0.125 : f32} : tensor<4x30x4x8xf32>, tensor<4x30x4x8xf32>, tensor<4x30x4x8xf32> -> tensor<4x30x4x8xf32>
  return %0, %1, %2, %3 : tensor<32x128x12x64xf32>, tensor<1x128x12x64xf32>, tensor<1x10x2x64xf32>, tensor<4x30x4x8xf32>
}

// -----

// Attention over f16 and bf16 tensors with tensor cores (sm_80 and
// later): `attention_mma`, 16 rows a warp, blocks of 64 rows when the grid
// then has 264 blocks (BERT-base b32), else 32 or 16 (b1); key tiles of
// 64 in two stages where 48 KB hold them, one stage of 32 at a head size
// of 128 with 64 rows; f32 tensors and head sizes that are not multiples
// of 16 keep the `attention` mapping.
// MMA-LABEL: func @attention_half
// MMA: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention_mma, grid = 768, block = 128, block_tile = [64, 64], stages = 2>
// MMA: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention_mma, grid = 96, block = 32, block_tile = [16, 64], stages = 2>
// MMA: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention_mma, grid = 768, block = 128, block_tile = [64, 32]>
// MMA: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<attention, grid = 768, block = 256, block_tile = [64, 64]>
// MMA: fuse.attention {{.*}} {fuse.strategy = #fuse.kernel<flat, grid = 2, block = 256>
// CHECK-LABEL: func @attention_half
// CHECK-NOT: attention_mma
func.func @attention_half(%h32: tensor<32x128x12x64xf16>, %h1: tensor<1x128x12x64xbf16>, %d128: tensor<32x128x12x128xf16>, %f32: tensor<32x128x12x64xf32>, %d8: tensor<4x30x4x8xf16>) -> (tensor<32x128x12x64xf16>, tensor<1x128x12x64xbf16>, tensor<32x128x12x128xf16>, tensor<32x128x12x64xf32>, tensor<4x30x4x8xf16>) {
  %0 = fuse.attention %h32, %h32, %h32 {scale = 0.125 : f32} : tensor<32x128x12x64xf16>, tensor<32x128x12x64xf16>, tensor<32x128x12x64xf16> -> tensor<32x128x12x64xf16>
  %1 = fuse.attention %h1, %h1, %h1 {scale = 0.125 : f32} : tensor<1x128x12x64xbf16>, tensor<1x128x12x64xbf16>, tensor<1x128x12x64xbf16> -> tensor<1x128x12x64xbf16>
  %2 = fuse.attention %d128, %d128, %d128 {scale = 0.125 : f32} : tensor<32x128x12x128xf16>, tensor<32x128x12x128xf16>, tensor<32x128x12x128xf16> -> tensor<32x128x12x128xf16>
  %3 = fuse.attention %f32, %f32, %f32 {scale = 0.125 : f32} : tensor<32x128x12x64xf32>, tensor<32x128x12x64xf32>, tensor<32x128x12x64xf32> -> tensor<32x128x12x64xf32>
  %4 = fuse.attention %d8, %d8, %d8 {scale = 0.125 : f32} : tensor<4x30x4x8xf16>, tensor<4x30x4x8xf16>, tensor<4x30x4x8xf16> -> tensor<4x30x4x8xf16>
  return %0, %1, %2, %3, %4 : tensor<32x128x12x64xf16>, tensor<1x128x12x64xbf16>, tensor<32x128x12x128xf16>, tensor<32x128x12x64xf32>, tensor<4x30x4x8xf16>
}

// -----

// Half precision (fuse-apply-precision): the library call reads its f16
// buffers through the body's Casts and multiplies on tensor cores; the
// bias joins the call, and the GELU, which cuBLASLt cannot fuse, is split
// off with the call's result passed on in f16 (a Cast ends the call's
// group, one starts the rest's), both groups keeping the precision.
// CHECK-LABEL: func @half_matmul_gelu
// CHECK: %[[CALL:.*]] = fuse.group contraction_epilogue ins(%arg0, %arg1, %arg2 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<256xf16>) {precision = #fuse.precision<fp16>, strategy = #fuse.cublaslt<batch = 1, m = 128, n = 256, k = 64, epilogue = bias, residual = false, precision = fp16>} -> tensor<128x256xf16>
// CHECK: onnx.MatMul
// CHECK: onnx.Add
// CHECK: %[[N:.*]] = onnx.Cast(%{{.*}}) {fuse.precision_cast, to = 10 : i64} : (tensor<128x256xf32>) -> tensor<128x256xf16>
// CHECK-NEXT: fuse.yield %[[N]]
// CHECK: fuse.group elementwise ins(%[[CALL]] : tensor<128x256xf16>) {precision = #fuse.precision<fp16>, strategy = #fuse.kernel<{{.*}}>} -> tensor<128x256xf16>
// CHECK: onnx.Cast(%{{.*}}) {fuse.precision_cast, to = 1 : i64} : (tensor<128x256xf16>) -> tensor<128x256xf32>
// CHECK-NEXT: onnx.Gelu
// With tensor cores, fuse's kernel is the `mma` mapping, the whole group
// one kernel: 32 x 32 block tiles (no larger tile fills 132 SMs), 32
// steps a chunk in 3 buffers (both chunks in flight; more buffers or
// longer chunks would put no more bytes in flight).
// MMAGEN-LABEL: func @half_matmul_gelu
// MMAGEN: strategy = #fuse.kernel<mma, grid = 32, block = 128, block_tile = [32, 32], k_tile = 32, stages = 3>
// MMAGEN: onnx.Gelu
// MMAGEN-NEXT: onnx.Cast
// MMAGEN-NEXT: fuse.yield
// NOMMA-LABEL: func @half_matmul_gelu
// NOMMA-NOT: kernel<mma
// A candidate after the library call, which stays selected unless
// mma-over-library.
// MMACAND-LABEL: func @half_matmul_gelu
// MMACAND: fuse.alternatives selected = 0
// MMACAND: strategy = #fuse.cublaslt
// MMACAND: strategy = #fuse.kernel<mma, grid = 32, block = 128, block_tile = [32, 32], k_tile = 32, stages = 3>
// MMACAND: onnx.Gelu
// MMAPICK-LABEL: func @half_matmul_gelu
// MMAPICK: fuse.alternatives selected = 1
// On sm_90 the 32 tiles split their reduction between the two blocks of
// a cluster (the 2 chunks of 32 steps: 4 or 8 blocks would not divide
// them), each block with its one chunk in flight.
// MMASPLIT-LABEL: func @half_matmul_gelu
// MMASPLIT: strategy = #fuse.kernel<mma, grid = 64, block = 128, block_tile = [32, 32], k_tile = 32, stages = 2, split_k = 2>
func.func @half_matmul_gelu(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>, %c: tensor<256xf16>) -> tensor<128x256xf16> {
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<128x64xf16>, tensor<64x256xf16>, tensor<256xf16>) {precision = #fuse.precision<fp16>} -> tensor<128x256xf16> {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x256xf16>, %z: tensor<256xf16>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<128x64xf16>) -> tensor<128x64xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<64x256xf16>) -> tensor<64x256xf32>
    %z32 = onnx.Cast(%z) {fuse.precision_cast, to = 1 : i64} : (tensor<256xf16>) -> tensor<256xf32>
    %m = onnx.MatMul(%x32, %y32) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
    %s = onnx.Add(%m, %z32) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
    %g = onnx.Gelu(%s) : (tensor<128x256xf32>) -> tensor<128x256xf32>
    %n = onnx.Cast(%g) {fuse.precision_cast, to = 10 : i64} : (tensor<128x256xf32>) -> tensor<128x256xf16>
    fuse.yield %n : tensor<128x256xf16>
  }
  return %0 : tensor<128x256xf16>
}

// -----

// A short product (BERT-base's attention output at batch 1: 128 x 768 over
// 768): with clusters, the largest block tile that a split makes 132
// blocks or more of, 64 x 64 split 8 ways (24 tiles, 192 blocks), each
// block's 3 chunks of 32 steps in flight; without, 32 x 32 tiles (96
// blocks) and the whole reduction.
// MMASPLIT-LABEL: func @half_short_m
// MMASPLIT: strategy = #fuse.kernel<mma, grid = 192, block = 128, block_tile = [64, 64], k_tile = 32, stages = 4, split_k = 8>
// MMAGEN-LABEL: func @half_short_m
// MMAGEN: strategy = #fuse.kernel<mma, grid = 96, block = 128, block_tile = [32, 32], k_tile = 64, stages = 4>
func.func @half_short_m(%a: tensor<128x768xf16>, %b: tensor<768x768xf16>) -> tensor<128x768xf16> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<128x768xf16>, tensor<768x768xf16>) {precision = #fuse.precision<fp16>} -> tensor<128x768xf16> {
  ^bb0(%x: tensor<128x768xf16>, %y: tensor<768x768xf16>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<128x768xf16>) -> tensor<128x768xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<768x768xf16>) -> tensor<768x768xf32>
    %m = onnx.MatMul(%x32, %y32) : (tensor<128x768xf32>, tensor<768x768xf32>) -> tensor<128x768xf32>
    %n = onnx.Cast(%m) {fuse.precision_cast, to = 10 : i64} : (tensor<128x768xf32>) -> tensor<128x768xf16>
    fuse.yield %n : tensor<128x768xf16>
  }
  return %0 : tensor<128x768xf16>
}

// -----

// bf16 inputs with an f32 result (what the group returns): cuBLASLt writes
// f32, and takes the bias in its output's type, f32.
// CHECK-LABEL: func @bf16_in_f32_out
// CHECK: strategy = #fuse.cublaslt<batch = 1, m = 8, n = 32, k = 16, epilogue = bias, residual = false, precision = bf16>
func.func @bf16_in_f32_out(%a: tensor<8x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b, %c : tensor<8x16xbf16>, tensor<16x32xbf16>, tensor<32xf32>) {precision = #fuse.precision<bf16>} -> tensor<8x32xf32> {
  ^bb0(%x: tensor<8x16xbf16>, %y: tensor<16x32xbf16>, %z: tensor<32xf32>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<16x32xbf16>) -> tensor<16x32xf32>
    %m = onnx.MatMul(%x32, %y32) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %s = onnx.Add(%m, %z) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    fuse.yield %s : tensor<8x32xf32>
  }
  return %0 : tensor<8x32xf32>
}

// -----

// Operands of two types (an f16 activation, an f32 weight the policy
// kept): no library call multiplies them; a kernel of fuse's does.
// CHECK-LABEL: func @mixed_operands
// CHECK: strategy = #fuse.kernel<tiles
// MMAGEN-LABEL: func @mixed_operands
// MMAGEN: strategy = #fuse.kernel<tiles
func.func @mixed_operands(%a: tensor<64x64xf16>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf32>) {precision = #fuse.precision<fp16>} -> tensor<64x64xf32> {
  ^bb0(%x: tensor<64x64xf16>, %y: tensor<64x64xf32>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<64x64xf16>) -> tensor<64x64xf32>
    %m = onnx.MatMul(%x32, %y) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    fuse.yield %m : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}

// -----

// A tf32 group's call multiplies on TF32 tensor cores.
// CHECK-LABEL: func @tf32_matmul
// CHECK: strategy = #fuse.cublaslt<batch = 1, m = 8, n = 8, k = 8, epilogue = relu, residual = false, precision = tf32>
func.func @tf32_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) {precision = #fuse.precision<tf32>} -> tensor<8x8xf32> {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>):
    %m = onnx.MatMul(%x, %y) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %r = onnx.Relu(%m) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    fuse.yield %r : tensor<8x8xf32>
  }
  return %0 : tensor<8x8xf32>
}

// -----

// cuDNN writes its inputs' type: an fp16 convolution whose group narrows
// its result is a call (bias, ReLU fused); one whose result stays f32 (a
// graph output) is fuse's kernel.
// CHECK-LABEL: func @half_conv
// CHECK: strategy = #fuse.cudnn<groups = 1, bias = true, residual = false, activation = relu, precision = fp16>
// CHECK: fuse.group contraction_epilogue
// CHECK-SAME: strategy = #fuse.kernel<
func.func @half_conv(%x: tensor<1x8x16x16xf16>, %w: tensor<8x8x3x3xf16>, %b: tensor<8xf16>) -> (tensor<1x8x16x16xf16>, tensor<1x8x16x16xf32>) {
  %0 = fuse.group contraction_epilogue ins(%x, %w, %b : tensor<1x8x16x16xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) {precision = #fuse.precision<fp16>} -> tensor<1x8x16x16xf16> {
  ^bb0(%i: tensor<1x8x16x16xf16>, %f: tensor<8x8x3x3xf16>, %c: tensor<8xf16>):
    %i32 = onnx.Cast(%i) {fuse.precision_cast, to = 1 : i64} : (tensor<1x8x16x16xf16>) -> tensor<1x8x16x16xf32>
    %f32 = onnx.Cast(%f) {fuse.precision_cast, to = 1 : i64} : (tensor<8x8x3x3xf16>) -> tensor<8x8x3x3xf32>
    %c32 = onnx.Cast(%c) {fuse.precision_cast, to = 1 : i64} : (tensor<8xf16>) -> tensor<8xf32>
    %y = onnx.Conv(%i32, %f32, %c32) {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
    %r = onnx.Relu(%y) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %n = onnx.Cast(%r) {fuse.precision_cast, to = 10 : i64} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf16>
    fuse.yield %n : tensor<1x8x16x16xf16>
  }
  %1 = fuse.group contraction_epilogue ins(%x, %w : tensor<1x8x16x16xf16>, tensor<8x8x3x3xf16>) {precision = #fuse.precision<fp16>} -> tensor<1x8x16x16xf32> {
  ^bb0(%i: tensor<1x8x16x16xf16>, %f: tensor<8x8x3x3xf16>):
    %i32 = onnx.Cast(%i) {fuse.precision_cast, to = 1 : i64} : (tensor<1x8x16x16xf16>) -> tensor<1x8x16x16xf32>
    %f32 = onnx.Cast(%f) {fuse.precision_cast, to = 1 : i64} : (tensor<8x8x3x3xf16>) -> tensor<8x8x3x3xf32>
    %y = onnx.Conv(%i32, %f32) {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    fuse.yield %y : tensor<1x8x16x16xf32>
  }
  return %0, %1 : tensor<1x8x16x16xf16>, tensor<1x8x16x16xf32>
}

// -----

// An NhwcConv whose filters are read through a Transpose to [K, C, R, S]
// is a cuDNN call over NHWC data (channels_last), the Transpose its
// indexing; a lone one becomes a group of its own for the call, taking its
// filters' Transpose. One whose filters are stored [K, C, R, S] is fuse's
// kernel (cuDNN's NHWC kernels read [K, R, S, C]).
// CHECK-LABEL: func @nhwc_conv
// CHECK: strategy = #fuse.cudnn<groups = 1, bias = true, residual = true, activation = relu, channels_last = true>
// CHECK: fuse.group contraction_epilogue ins(%{{.*}}, %{{.*}} : tensor<8x3x3x4xf32>, tensor<1x8x8x4xf32>) {strategy = #fuse.cudnn<groups = 1, bias = false, residual = false, activation = identity, channels_last = true>}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.Transpose
// CHECK-NEXT: onnx.NhwcConv
// CHECK: fuse.group contraction_epilogue
// CHECK-SAME: strategy = #fuse.kernel<
// CHECK: onnx.NhwcConv
func.func @nhwc_conv(%x: tensor<1x8x8x4xf32>, %f: tensor<8x3x3x4xf32>, %b: tensor<8xf32>, %z: tensor<1x8x8x8xf32>, %k: tensor<8x4x3x3xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %0 = fuse.group contraction_epilogue ins(%f, %x, %b, %z : tensor<8x3x3x4xf32>, tensor<1x8x8x4xf32>, tensor<8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  ^bb0(%fa: tensor<8x3x3x4xf32>, %xa: tensor<1x8x8x4xf32>, %ba: tensor<8xf32>, %za: tensor<1x8x8x8xf32>):
    %w = onnx.Transpose(%fa) {perm = array<i64: 0, 3, 1, 2>} : (tensor<8x3x3x4xf32>) -> tensor<8x4x3x3xf32>
    %c = onnx.NhwcConv(%xa, %w, %ba) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    %s = onnx.Add(%c, %za) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %r = onnx.Relu(%s) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    fuse.yield %r : tensor<1x8x8x8xf32>
  }
  %fc = onnx.Constant dense<0.5> : tensor<8x3x3x4xf32>
  %wc = onnx.Transpose(%fc) {perm = array<i64: 0, 3, 1, 2>} : (tensor<8x3x3x4xf32>) -> tensor<8x4x3x3xf32>
  %1 = onnx.NhwcConv(%x, %wc) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %2 = fuse.group contraction_epilogue ins(%x, %k : tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
  ^bb0(%xa: tensor<1x8x8x4xf32>, %ka: tensor<8x4x3x3xf32>):
    %c = onnx.NhwcConv(%xa, %ka) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
    %r = onnx.Relu(%c) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    fuse.yield %r : tensor<1x8x8x8xf32>
  }
  return %0, %1, %2 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A Transpose of a constant that another contraction reads stays outside
// its group (only an NhwcConv's filters join theirs): the MatMul reads a
// buffer and remains a cuBLASLt call.
// CHECK-LABEL: func @matmul_transposed_weight
// CHECK: %[[T:.*]] = onnx.Transpose
// CHECK: fuse.group contraction_epilogue ins(%{{.*}}, %[[T]] : tensor<64x512xf32>, tensor<512x512xf32>) {strategy = #fuse.cublaslt<
// CHECK-NEXT: ^bb0
// CHECK-NEXT: onnx.MatMul
func.func @matmul_transposed_weight(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %w = onnx.Constant dense<0.5> : tensor<512x512xf32>
  %t = onnx.Transpose(%w) {perm = array<i64: 1, 0>} : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = onnx.MatMul(%x, %t) : (tensor<64x512xf32>, tensor<512x512xf32>) -> tensor<64x512xf32>
  return %m : tensor<64x512xf32>
}

// -----

// Elementwise ops after a Transpose in one group take the Transpose's
// strategy: transpose tiles, or without them 8 outputs a thread along the
// output dim that is innermost in the input.
// CHECK-LABEL: func.func @transpose_then_relu
// CHECK: fuse.group elementwise {{.*}}strategy = #fuse.kernel<transpose, grid = 1024, block = 256, block_tile = [64, 32]>
// FLATT-LABEL: func.func @transpose_then_relu
// FLATT: fuse.group elementwise {{.*}}strategy = #fuse.kernel<flat, grid = 1024, block = 256, thread_tile = [8, 1]>
func.func @transpose_then_relu(%x: tensor<2048x1024xf32>) -> tensor<1024x2048xf32> {
  %0 = fuse.group elementwise ins(%x : tensor<2048x1024xf32>) -> tensor<1024x2048xf32> {
  ^bb0(%a: tensor<2048x1024xf32>):
    %t = onnx.Transpose(%a) {perm = array<i64: 1, 0>} : (tensor<2048x1024xf32>) -> tensor<1024x2048xf32>
    %r = onnx.Relu(%t) : (tensor<1024x2048xf32>) -> tensor<1024x2048xf32>
    fuse.yield %r : tensor<1024x2048xf32>
  }
  return %0 : tensor<1024x2048xf32>
}

// -----

// Transpose tiles: MobileNetV2's NCHW -> NHWC of a 14 x 14 map at batch 32
// after a Clip (output run: 576 channels, input run: 196 positions; 64 x
// 32 tiles, 9 x 7 a image); at batch 1 the tiles shrink to 16 x 16 to give
// the grid 2 blocks an SM (36 x 13 blocks); the input's image to NHWC (3
// channels: too short an output run) and a Transpose of a value that no
// input of the kernel holds element by element (a constant plus a
// broadcast operand) stay flat.
// CHECK-LABEL: func.func @transpose_tiles
// CHECK: strategy = #fuse.kernel<transpose, grid = 2016, block = 256, block_tile = [64, 32]>
// CHECK: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<transpose, grid = 468, block = 256, block_tile = [16, 16]>
// CHECK: onnx.Transpose{{.*}}fuse.strategy = #fuse.kernel<flat,
// CHECK: strategy = #fuse.kernel<flat,
// CPU-LABEL: func.func @transpose_tiles
// CPU-NOT: kernel<transpose
// FLATT-LABEL: func.func @transpose_tiles
// FLATT-NOT: kernel<transpose
func.func @transpose_tiles(%x: tensor<32x576x14x14xf16>, %x1: tensor<1x576x14x14xf32>, %img: tensor<32x3x224x224xf32>, %b: tensor<576x1x1xf32>) -> (tensor<32x14x14x576xf16>, tensor<1x14x14x576xf32>, tensor<32x224x224x3xf32>, tensor<1x14x14x576xf32>) {
  %0 = fuse.group elementwise ins(%x : tensor<32x576x14x14xf16>) -> tensor<32x14x14x576xf16> {
  ^bb0(%a: tensor<32x576x14x14xf16>):
    %lo = onnx.Constant dense<0.0> : tensor<f16>
    %hi = onnx.Constant dense<6.0> : tensor<f16>
    %c = onnx.Clip(%a) min(%lo) max(%hi) : (tensor<32x576x14x14xf16>, tensor<f16>, tensor<f16>) -> tensor<32x576x14x14xf16>
    %t = onnx.Transpose(%c) {perm = array<i64: 0, 2, 3, 1>} : (tensor<32x576x14x14xf16>) -> tensor<32x14x14x576xf16>
    fuse.yield %t : tensor<32x14x14x576xf16>
  }
  %1 = onnx.Transpose(%x1) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x576x14x14xf32>) -> tensor<1x14x14x576xf32>
  %2 = onnx.Transpose(%img) {perm = array<i64: 0, 2, 3, 1>} : (tensor<32x3x224x224xf32>) -> tensor<32x224x224x3xf32>
  %3 = fuse.group elementwise ins(%b : tensor<576x1x1xf32>) -> tensor<1x14x14x576xf32> {
  ^bb0(%v: tensor<576x1x1xf32>):
    %z = onnx.Constant dense<0.0> : tensor<1x576x14x14xf32>
    %s = onnx.Add(%z, %v) : (tensor<1x576x14x14xf32>, tensor<576x1x1xf32>) -> tensor<1x576x14x14xf32>
    %t = onnx.Transpose(%s) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x576x14x14xf32>) -> tensor<1x14x14x576xf32>
    fuse.yield %t : tensor<1x14x14x576xf32>
  }
  return %0, %1, %2, %3 : tensor<32x14x14x576xf16>, tensor<1x14x14x576xf32>, tensor<32x224x224x3xf32>, tensor<1x14x14x576xf32>
}

// -----

// Two Transposes in one group (one of them fused in as a producer): its
// loads come in two orders, so no transpose tiles.
// CHECK-LABEL: func.func @two_transposes
// CHECK-NOT: kernel<transpose
// CHECK: return
func.func @two_transposes(%x: tensor<32x64x128xf32>, %y: tensor<32x64x128xf32>) -> tensor<32x128x64xf32> {
  %0 = fuse.group elementwise ins(%x, %y : tensor<32x64x128xf32>, tensor<32x64x128xf32>) -> tensor<32x128x64xf32> {
  ^bb0(%a: tensor<32x64x128xf32>, %b: tensor<32x64x128xf32>):
    %t = onnx.Transpose(%b) {perm = array<i64: 0, 2, 1>} : (tensor<32x64x128xf32>) -> tensor<32x128x64xf32>
    %u = onnx.Transpose(%t) {perm = array<i64: 0, 2, 1>} : (tensor<32x128x64xf32>) -> tensor<32x64x128xf32>
    %s = onnx.Add(%a, %u) : (tensor<32x64x128xf32>, tensor<32x64x128xf32>) -> tensor<32x64x128xf32>
    %r = onnx.Transpose(%s) {perm = array<i64: 0, 2, 1>} : (tensor<32x64x128xf32>) -> tensor<32x128x64xf32>
    fuse.yield %r : tensor<32x128x64xf32>
  }
  return %0 : tensor<32x128x64xf32>
}

// -----

// A Gemm's alpha scales each product in the reduction loop, which the
// `mma` kernel does not take: `tiles` (the group's result is f32 here).
// MMAGEN-LABEL: func @half_gemm_alpha
// MMAGEN: strategy = #fuse.kernel<tiles
func.func @half_gemm_alpha(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) {precision = #fuse.precision<fp16>} -> tensor<64x64xf32> {
  ^bb0(%x: tensor<64x64xf16>, %y: tensor<64x64xf16>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<64x64xf16>) -> tensor<64x64xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<64x64xf16>) -> tensor<64x64xf32>
    %m = onnx.Gemm(%x32, %y32) {alpha = 5.000000e-01 : f32} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    fuse.yield %m : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}

// -----

// A product with a vector (no column dim) is no `mma` kernel's: the loop's
// last two dims would be a batch dim and the rows.
// MMAGEN-LABEL: func @half_matvec
// MMAGEN-NOT: kernel<mma
// MMAGEN: return
func.func @half_matvec(%a: tensor<4x64x128xf16>, %v: tensor<128xf16>) -> tensor<4x64xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %v : tensor<4x64x128xf16>, tensor<128xf16>) {precision = #fuse.precision<fp16>} -> tensor<4x64xf32> {
  ^bb0(%x: tensor<4x64x128xf16>, %y: tensor<128xf16>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<4x64x128xf16>) -> tensor<4x64x128xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<128xf16>) -> tensor<128xf32>
    %m = onnx.MatMul(%x32, %y32) : (tensor<4x64x128xf32>, tensor<128xf32>) -> tensor<4x64xf32>
    fuse.yield %m : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// Batched rows of one (M = 1): the loop's last two dims would be the batch
// and the columns.
// MMAGEN-LABEL: func @half_single_rows
// MMAGEN-NOT: kernel<mma
// MMAGEN: return
func.func @half_single_rows(%a: tensor<8x1x64xf16>, %b: tensor<8x64x32xf16>) -> tensor<8x1x32xf32> {
  %0 = fuse.group contraction_epilogue ins(%a, %b : tensor<8x1x64xf16>, tensor<8x64x32xf16>) {precision = #fuse.precision<fp16>} -> tensor<8x1x32xf32> {
  ^bb0(%x: tensor<8x1x64xf16>, %y: tensor<8x64x32xf16>):
    %x32 = onnx.Cast(%x) {fuse.precision_cast, to = 1 : i64} : (tensor<8x1x64xf16>) -> tensor<8x1x64xf32>
    %y32 = onnx.Cast(%y) {fuse.precision_cast, to = 1 : i64} : (tensor<8x64x32xf16>) -> tensor<8x64x32xf32>
    %m = onnx.MatMul(%x32, %y32) : (tensor<8x1x64xf32>, tensor<8x64x32xf32>) -> tensor<8x1x32xf32>
    fuse.yield %m : tensor<8x1x32xf32>
  }
  return %0 : tensor<8x1x32xf32>
}
