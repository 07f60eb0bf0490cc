// RUN: fuse-opt %s -split-input-file -fuse-map-kernels-to-gpu -verify-diagnostics | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-map-kernels-to-gpu=block-size=128 -verify-diagnostics | FileCheck %s --check-prefix=B128
// RUN: fuse-opt %s -split-input-file -fuse-map-kernels-to-gpu=index-bitwidth=64 -verify-diagnostics | FileCheck %s --check-prefix=I64
// RUN: not fuse-opt %s -fuse-map-kernels-to-gpu=index-bitwidth=16 2>&1 | FileCheck %s --check-prefix=BADWIDTH

// BADWIDTH: error: fuse-map-kernels-to-gpu: index-bitwidth must be 32 or 64, not 16
// I64-NOT: dlti.dl_spec

// Without a strategy (a hand-written kernel), the parallel loop becomes one
// thread per iteration of a flat 1-D launch: 2 x 300 = 600 iterations,
// ceil(600 / 256) = 3 blocks.
// Every size fits in 32 bits, so the kernels compute indices in 32 bits.
// Buffers are the artifact's: aligned, and never overlapping a written one.
// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @fuse_kernels attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
// CHECK: gpu.func @k(%{{.*}}: memref<2x300xf32> {llvm.align = 64 : i64, llvm.noalias}, %[[OUT:[^:]*]]: memref<2x300xf32> {llvm.align = 64 : i64, llvm.noalias}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : index
// CHECK: scf.if %[[IN]]
// CHECK: arith.remui %[[ID]]
// CHECK: arith.divui %[[ID]]
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK: gpu.return
// CHECK-NOT: func.func
// B128: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 5, 1, 1>
func.func @k(%x: memref<2x300xf32>, %out: memref<2x300xf32>) attributes {fuse.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c300) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<2x300xf32>
    memref.store %v, %out[%i, %j] : memref<2x300xf32>
    scf.reduce
  }
  return
}

// -----

// Without a parallel loop, one thread does the work.
// CHECK: gpu.func @single(%{{.*}}: memref<f32> {{{.*}}}, %{{.*}}: memref<f32> {{{.*}}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: gpu.thread_id x
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.load
func.func @single(%x: memref<f32>, %out: memref<f32>) attributes {fuse.kernel} {
  %v = memref.load %x[] : memref<f32>
  memref.store %v, %out[] : memref<f32>
  return
}

// -----

// A one-row kernel (fuse.one_row: fuse-distribute-rows split its work over
// the block and guarded its writes) runs in every thread: no guard.
// CHECK: gpu.func @one_row({{.*}}) kernel attributes {known_block_size = array<i32: 512, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK-NEXT: gpu.thread_id x
// CHECK-NEXT: memref.load
// CHECK-NOT: scf.if
func.func @one_row(%x: memref<512xf32>, %out: memref<f32>) attributes {fuse.kernel, fuse.one_row, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 512, row_threads = 512>} {
  %tid = gpu.thread_id x
  %v = memref.load %x[%tid] : memref<512xf32>
  memref.store %v, %out[] : memref<f32>
  return
}

// -----

// The strategy decides the launch: flat with 128-thread blocks.
// CHECK: gpu.func @flat128({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 5, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %c128{{.*}} : index
// CHECK: arith.addi %[[BASE]], %[[TID]] : index
func.func @flat128(%x: memref<600xf32>, %out: memref<600xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 5, block = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c600 = arith.constant 600 : index
  scf.parallel (%i) = (%c0) to (%c600) step (%c1) {
    %v = memref.load %x[%i] : memref<600xf32>
    memref.store %v, %out[%i] : memref<600xf32>
    scf.reduce
  }
  return
}

// -----

// rows with a warp per row: 8 rows per 256-thread block, row
// blockIdx * 8 + threadIdx / 32; 20 rows need 3 blocks.
// CHECK: gpu.func @warp_rows({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c32{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %c8{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[ROW]] : index
// CHECK: arith.cmpi ult, %[[ID]], %c20{{.*}} : index
func.func @warp_rows(%x: memref<20x64xf32>, %out: memref<20x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 3, block = 256, row_threads = 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  scf.parallel (%i) = (%c0) to (%c20) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<20x64xf32>
    memref.store %v, %out[%i, %c0] : memref<20x64xf32>
    scf.reduce
  }
  return
}

// -----

// rows of 8 lanes: 32 rows a block, the row is tid / 8.
// CHECK-LABEL: gpu.func @lane_rows
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c8{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %c32{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[ROW]] : index
// CHECK: arith.cmpi ult, %[[ID]], %c40{{.*}} : index
func.func @lane_rows(%x: memref<40x49xf32>, %out: memref<40x49xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 2, block = 256, row_threads = 8>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<40x49xf32>
    memref.store %v, %out[%i, %c0] : memref<40x49xf32>
    scf.reduce
  }
  return
}

// -----

// Rows of 8 lanes put 4 rows in a warp: 42 rows would leave a warp half
// in the loop, whose shuffles need every lane.
// expected-error @+1 {{'gpu.func' op strategy #fuse.kernel<rows, grid = 2, block = 256, row_threads = 8> puts 4 rows in a warp, which do not divide its 42 rows}}
func.func @partial_warp(%x: memref<42x49xf32>, %out: memref<42x49xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 2, block = 256, row_threads = 8>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c42 = arith.constant 42 : index
  scf.parallel (%i) = (%c0) to (%c42) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<42x49xf32>
    memref.store %v, %out[%i, %c0] : memref<42x49xf32>
    scf.reduce
  }
  return
}

// -----

// rows with a block per row: row blockIdx.
// CHECK: gpu.func @block_rows({{.*}}) kernel attributes {known_block_size = array<i32: 512, 1, 1>, known_grid_size = array<i32: 4, 1, 1>}
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %c1{{.*}} : index
// CHECK: arith.addi %[[BASE]], %c0{{.*}} : index
func.func @block_rows(%x: memref<4x4096xf32>, %out: memref<4x4096xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 4, block = 512, row_threads = 512>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<4x4096xf32>
    memref.store %v, %out[%i, %c0] : memref<4x4096xf32>
    scf.reduce
  }
  return
}

// -----

// The strategy's grid must cover the loop exactly.
// expected-error @+1 {{'gpu.func' op strategy #fuse.kernel<flat, grid = 2, block = 256> launches 2 blocks but its loop of 600 iterations needs 3}}
func.func @short_grid(%x: memref<600xf32>, %out: memref<600xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 2, block = 256>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c600 = arith.constant 600 : index
  scf.parallel (%i) = (%c0) to (%c600) step (%c1) {
    %v = memref.load %x[%i] : memref<600xf32>
    memref.store %v, %out[%i] : memref<600xf32>
    scf.reduce
  }
  return
}

// -----

// expected-error @+1 {{'func.func' op has the cpu strategy #fuse.kernel<loop, grid = 1, block = 1>; it cannot run on the GPU}}
func.func @cpu_kernel(%x: memref<4xf32>, %out: memref<4xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>} {
  return
}

// -----

// expected-error @+1 {{'func.func' op must be bufferized before it is mapped to the GPU (argument of type 'tensor<4xf32>')}}
func.func @not_bufferized(%x: tensor<4xf32>) -> tensor<4xf32> attributes {fuse.kernel} {
  return %x : tensor<4xf32>
}

// -----

// A global the kernel reads (a constant index table) is copied into the
// gpu.module, which is its own symbol table; the host copy, which no host
// code reads, goes; one the host reads too stays.
// CHECK: module attributes {gpu.container_module}
// CHECK-NOT: memref.global "private" constant @idx
// CHECK: memref.global "private" constant @both
// CHECK: gpu.module @fuse_kernels
// CHECK-DAG: memref.global "private" constant @idx : memref<3xi64> = dense<[2, 0, 1]>
// CHECK-DAG: memref.global "private" constant @both : memref<1xi64> = dense<7>
// CHECK: gpu.func @reads_global
// CHECK: memref.get_global @idx : memref<3xi64>
memref.global "private" constant @idx : memref<3xi64> = dense<[2, 0, 1]>
memref.global "private" constant @both : memref<1xi64> = dense<7>
func.func @reads_global(%out: memref<3xi64>) attributes {fuse.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = memref.get_global @idx : memref<3xi64>
  %h = memref.get_global @both : memref<1xi64>
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    %v = memref.load %g[%i] : memref<3xi64>
    %w = memref.load %h[%c0] : memref<1xi64>
    %s = arith.addi %v, %w : i64
    memref.store %s, %out[%i] : memref<3xi64>
    scf.reduce
  }
  return
}
func.func @host(%out: memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %h = memref.get_global @both : memref<1xi64>
  %w = memref.load %h[%c0] : memref<1xi64>
  memref.store %w, %out[%c0] : memref<1xi64>
  return
}

// -----

// No kernels (every output folded to a constant): the gpu.module is still
// made, so the cuda artifact has a (empty) kernel image to load.
// CHECK: module attributes {gpu.container_module}
// CHECK: func.func @no_kernels
// CHECK: gpu.module @fuse_kernels
// CHECK-NOT: gpu.func
func.func @no_kernels(%out: memref<4xf32>) {
  return
}

// -----

// A buffer of 2^31 elements or more keeps the 64-bit index.
// CHECK: gpu.module @fuse_kernels {
// CHECK-NEXT: gpu.func @big
func.func @big(%x: memref<2147483648xf32>, %out: memref<4xf32>) attributes {fuse.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2147483647 = arith.constant 2147483647 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%c2147483647] : memref<2147483648xf32>
    memref.store %v, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// So does a buffer of unknown size.
// CHECK: gpu.module @fuse_kernels {
// CHECK-NEXT: gpu.func @dynamic
func.func @dynamic(%x: memref<?xf32>, %out: memref<4xf32>) attributes {fuse.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// The planes mapping: 6 planes (2 x 3) of 6 x 6, 2 a block, 3 blocks. The
// window input %x is copied, the block's 72 elements in one contiguous
// range, into shared memory: a thread copies 4 neighbouring elements (one
// 128-bit load, the copy 16-byte aligned), loading all of them before it
// stores any; a load past the input reads its last 4 elements. After a
// barrier the window's loads read the copy (plane 'local' of the block,
// same row and column). The residual %r, read once per output, stays in
// global memory.
// CHECK-LABEL: gpu.func @planes
// CHECK-SAME: workgroup(%[[COPY:.*]] : memref<72xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 3, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[FIRST:.*]] = arith.muli %[[BID]], %c2
// CHECK: %[[BASE:.*]] = arith.muli %[[FIRST]], %c36
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<2x3x6x6xf32> into memref<216xf32>
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[G:.*]] = arith.addi %[[BASE]], %[[OFF]]
// CHECK: %[[AT:.*]] = arith.minui %[[G]], %c212
// CHECK-COUNT-4: memref.load %[[FLAT]]
// CHECK: arith.cmpi ult, %[[OFF]], %c72
// CHECK-COUNT-4: memref.store %{{.*}}, %[[COPY]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[T:.*]] = %[[TID]] to %c72{{[_0-9]*}} step %c64{{[_0-9]*}}
// CHECK: %[[LOCAL:.*]] = arith.divui %[[T]], %c36{{[_0-9]*}}
// CHECK: %[[PLANE:.*]] = arith.addi %[[FIRST]], %[[LOCAL]]
// CHECK: arith.cmpi ult, %[[PLANE]], %c6{{[_0-9]*}}
// CHECK: scf.for
// CHECK: memref.load %[[COPY]]
// CHECK-NOT: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK: memref.store {{.*}}, %arg2
func.func @planes(%x: memref<2x3x6x6xf32>, %r: memref<2x3x6x6xf32>, %out: memref<2x3x6x6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<planes, grid = 3, block = 64, planes = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c6, %c6) step (%c1, %c1, %c1, %c1) {
    %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %hk = arith.addi %h, %k : index
      %row = arith.minsi %hk, %c5 : index
      %v = memref.load %x[%n, %c, %row, %w] : memref<2x3x6x6xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %res = memref.load %r[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    %y = arith.addf %sum, %res : f32
    memref.store %y, %out[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    scf.reduce
  }
  return
}

// -----

// A staged output: the iterations store into a second shared buffer (the
// block's 4 output planes, 144 elements), then after a barrier the block
// stores it, a thread 4 neighbouring elements (one 128-bit store). The
// second block holds only 2 of the 6 planes: runs past its 72 valid
// elements are stored element by element, each checked.
// CHECK-LABEL: gpu.func @planes_staged_output
// CHECK-SAME: workgroup(%[[IN:.*]] : memref<144xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[OUT:.*]] : memref<144xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.load %[[IN]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<144xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.store {{.*}} %arg1
// CHECK: gpu.barrier
// CHECK: %[[LEFT:.*]] = arith.subi %c6{{.*}}, %[[FIRST]]
// CHECK: %[[PLANES:.*]] = arith.minui %c4{{.*}}, %[[LEFT]]
// CHECK: %[[VALID:.*]] = arith.muli %[[PLANES]], %c36
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2, 3]] : memref<2x3x6x6xf32> into memref<216xf32>
// CHECK: scf.for
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %c4
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %[[VALID]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK-COUNT-4: memref.load %[[OUT]]
// CHECK-NOT: scf.if
// CHECK: } else {
// CHECK: arith.cmpi ult, %{{.*}}, %[[VALID]]
func.func @planes_staged_output(%x: memref<2x3x6x6xf32>, %out: memref<2x3x6x6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<planes, grid = 2, block = 64, planes = 4, staged_output>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c6, %c6) step (%c1, %c1, %c1, %c1) {
    %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %hk = arith.addi %h, %k : index
      %row = arith.minsi %hk, %c5 : index
      %v = memref.load %x[%n, %c, %row, %w] : memref<2x3x6x6xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    scf.reduce
  }
  return
}

// -----

// A thread tile's stores go through unit subviews of the output: the
// subview's offsets plus the store's indices place the element in the
// block's shared copy ((local plane * 6 + row) * 6 + column); the
// subviews go.
// CHECK-LABEL: gpu.func @planes_staged_subview
// CHECK-SAME: workgroup(%[[OUT:.*]] : memref<144xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-NOT: memref.subview
// CHECK: %[[LOCAL:.*]] = arith.divui
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c0 :
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %c0 :
// CHECK: %[[PR:.*]] = arith.muli %[[LOCAL]], %c6
// CHECK: %[[PROW:.*]] = arith.addi %[[PR]], %[[ROW]]
// CHECK: %[[R6:.*]] = arith.muli %[[PROW]], %c6
// CHECK: %[[AT:.*]] = arith.addi %[[R6]], %[[COL]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[AT]]]
// CHECK-NOT: memref.subview
// CHECK: gpu.barrier
func.func @planes_staged_subview(%x: memref<2x3x6x6xf32>, %out: memref<2x3x6x6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<planes, grid = 2, block = 64, planes = 4, staged_output>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c6, %c6) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    %e = arith.mulf %v, %v : f32
    %view = memref.subview %out[%n, %c, %h, %w] [1, 1, 1, 1] [1, 1, 1, 1] : memref<2x3x6x6xf32> to memref<1x1x1x1xf32, strided<[108, 36, 6, 1], offset: ?>>
    memref.store %e, %view[%c0, %c0, %c0, %c0] : memref<1x1x1x1xf32, strided<[108, 36, 6, 1], offset: ?>>
    scf.reduce
  }
  return
}

// -----

// The transpose mapping: %x is NCHW, the loop (and %out) NHWC. The output
// run is c (40 iterations; its loop dim is innermost in %x only after h
// and w), the input run h, w (9 iterations, %x's innermost), n outer:
// tiles of 16 x 9, 3 along c, 2 images, 6 blocks. Each thread loads its 3
// elements of %x's tile (input run fastest, indices clamped into the
// loop) before it stores them into the copy, rows of 9 (odd) elements;
// the third round's store is guarded (144 elements, 3 rounds of 64).
// After the barrier the iterations go output run fastest, read %x's value
// from the copy at the same place, the residual %r directly.
// CHECK-LABEL: gpu.func @transpose
// CHECK-SAME: workgroup(%[[COPY:.*]] : memref<144xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 6, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[OTILE:.*]] = arith.remui %[[BID]], %c3
// CHECK: %[[N:.*]] = arith.divui %[[BID]], %c3
// CHECK: %[[OBASE:.*]] = arith.muli %[[OTILE]], %c16
// CHECK: %[[OL:.*]] = arith.divui %[[TID]], %c9
// CHECK: %[[IL:.*]] = arith.remui %[[TID]], %c9
// CHECK: %[[O:.*]] = arith.addi %[[OBASE]], %[[OL]]
// CHECK: %[[C:.*]] = arith.minui %[[O]], %c39
// CHECK: %[[I:.*]] = arith.minui %[[IL]], %c8
// CHECK: %[[W:.*]] = arith.remui %[[I]], %c3
// CHECK: %[[H:.*]] = arith.divui %[[I]], %c3
// CHECK: %[[V0:.*]] = memref.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK: %[[ROW:.*]] = arith.muli %[[OL]], %c9
// CHECK: %[[SLOT:.*]] = arith.addi %[[ROW]], %[[IL]]
// CHECK-COUNT-2: memref.load %arg0
// CHECK: %[[LAST:.*]] = arith.cmpi ult, %{{.*}}, %c144
// CHECK: memref.store %[[V0]], %[[COPY]][%[[SLOT]]]
// CHECK: memref.store %{{.*}}, %[[COPY]]
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[COPY]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c3{{[_0-9]*}} step %c1
// CHECK: %[[E:.*]] = arith.addi %{{.*}}, %[[TID]]
// CHECK: %[[CIL:.*]] = arith.divui %[[E]], %c16
// CHECK: %[[COL:.*]] = arith.remui %[[E]], %c16
// CHECK: %[[CO:.*]] = arith.addi %[[OBASE]], %[[COL]]
// CHECK: scf.if
// CHECK: %[[CW:.*]] = arith.remui %[[CIL]], %c3
// CHECK: %[[CH:.*]] = arith.divui %[[CIL]], %c3
// CHECK: %[[CROW:.*]] = arith.muli %[[COL]], %c9
// CHECK: %[[CSLOT:.*]] = arith.addi %[[CROW]], %[[CIL]]
// CHECK: %[[XV:.*]] = memref.load %[[COPY]][%[[CSLOT]]]
// CHECK-NOT: memref.load %arg0
// CHECK: %[[RV:.*]] = memref.load %arg1[%[[N]], %[[CH]], %[[CW]], %[[CO]]]
// CHECK: %[[Y:.*]] = arith.addf %[[XV]], %[[RV]]
// CHECK: memref.store %[[Y]], %arg2[%[[N]], %[[CH]], %[[CW]], %[[CO]]]
func.func @transpose(%x: memref<2x40x3x3xf32>, %r: memref<2x3x3x40xf32>, %out: memref<2x3x3x40xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<transpose, grid = 6, block = 64, block_tile = [16, 9]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c3, %c40) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x40x3x3xf32>
    %res = memref.load %r[%n, %h, %w, %c] : memref<2x3x3x40xf32>
    %y = arith.addf %v, %res : f32
    memref.store %y, %out[%n, %h, %w, %c] : memref<2x3x3x40xf32>
    scf.reduce
  }
  return
}

// -----

// A transpose grid covers the tiles: 6 of them.
// expected-error @+1 {{strategy #fuse.kernel<transpose, grid = 5, block = 64, block_tile = [16, 9]> launches 5 blocks but its loop of 720 iterations needs 6}}
func.func @transpose_grid(%x: memref<2x40x3x3xf32>, %out: memref<2x3x3x40xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<transpose, grid = 5, block = 64, block_tile = [16, 9]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c3, %c40) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x40x3x3xf32>
    memref.store %v, %out[%n, %h, %w, %c] : memref<2x3x3x40xf32>
    scf.reduce
  }
  return
}

// -----

// The transpose mapping needs an input read in another order.
func.func @transpose_none(%x: memref<2x3x3x40xf32>, %out: memref<2x3x3x40xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<transpose, grid = 6, block = 64, block_tile = [16, 9]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  // expected-error @+1 {{'scf.parallel' op has no input read in another order than its output, which the transpose mapping needs}}
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c3, %c40) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %h, %w, %c] : memref<2x3x3x40xf32>
    memref.store %v, %out[%n, %h, %w, %c] : memref<2x3x3x40xf32>
    scf.reduce
  }
  return
}

// -----

// A planes grid covers the planes: 6 planes, 2 a block, need 3 blocks.
// expected-error @+1 {{strategy #fuse.kernel<planes, grid = 2, block = 64, planes = 2> launches 2 blocks but its loop of 6 planes needs 3}}
func.func @planes_grid(%x: memref<2x3x6x6xf32>, %out: memref<2x3x6x6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<planes, grid = 2, block = 64, planes = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c6, %c6) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    memref.store %v, %out[%n, %c, %h, %w] : memref<2x3x6x6xf32>
    scf.reduce
  }
  return
}

// -----

// `tiles`: blocks of 4 x 8 outputs (2 x 4 thread tiles of 2 x 2), a grid
// of 2 x 2 blocks over the 8 x 12 output, whose last block column is
// partial (12 is no multiple of 8): its threads past the end compute the
// last tile again and store nothing. The reduction runs in chunks of 16;
// each chunk's 4 x 16 box of A is staged transposed (reduction dim first,
// rows padded to 8 floats: 16 x 8) and B's 16 x 8 box as it is, both read
// in 128-bit runs (4 floats), between two barriers; the products read the
// copies.
// CHECK-LABEL: gpu.func @tiles_matmul
// CHECK-SAME: workgroup(%[[A:.*]] : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[COL:.*]], %c6
// CHECK: %[[VALID:.*]] = arith.andi %{{.*}}, %[[INSIDE]]
// CHECK: arith.minui %[[COL]], %c5
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<8x32xf32> into memref<256xf32>
// CHECK: memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<32x12xf32> into memref<384xf32>
// CHECK: %[[SUMS:.*]]:4 = scf.for %[[CHUNK:.*]] = %c0 to %c32 step %c16 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %collapse_shape[
// CHECK: scf.if
// CHECK-COUNT-4: memref.store %{{.*}}, %[[A]][
// CHECK: memref.load %collapse_shape_{{[0-9]+}}[
// CHECK: memref.store %{{.*}}, %[[B]][
// CHECK: gpu.barrier
// The whole chunk's 16 steps unrolled: no inner loop, 2 x 16 loads of
// each copy, none of the arguments.
// CHECK-NOT: scf.for
// CHECK-COUNT-32: memref.load %[[A]][
// CHECK-NOT: memref.load %arg{{[01]}}[
// CHECK-NOT: scf.for
// CHECK: scf.yield
// CHECK: scf.if %[[VALID]] {
// CHECK-NEXT: memref.store %[[SUMS]]#0, %arg2
func.func @tiles_matmul(%a: memref<8x32xf32>, %b: memref<32x12xf32>, %c: memref<8x12xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 8, thread_tile = [2, 2], block_tile = [4, 8], k_tile = 16>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c12) step (%c2, %c2) {
    %i1 = arith.addi %i, %c1 : index
    %j1 = arith.addi %j, %c1 : index
    %row1 = memref.subview %a[%i1, 0] [1, 32] [1, 1] : memref<8x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %r:4 = scf.for %k = %c0 to %c32 step %c1 iter_args(%s00 = %zero, %s01 = %zero, %s10 = %zero, %s11 = %zero) -> (f32, f32, f32, f32) {
      %a0 = memref.load %a[%i, %k] : memref<8x32xf32>
      %a1 = memref.load %row1[%c0, %k] : memref<1x32xf32, strided<[32, 1], offset: ?>>
      %b0 = memref.load %b[%k, %j] : memref<32x12xf32>
      %b1 = memref.load %b[%k, %j1] : memref<32x12xf32>
      %p00 = arith.mulf %a0, %b0 : f32
      %p01 = arith.mulf %a0, %b1 : f32
      %p10 = arith.mulf %a1, %b0 : f32
      %p11 = arith.mulf %a1, %b1 : f32
      %t00 = arith.addf %s00, %p00 : f32
      %t01 = arith.addf %s01, %p01 : f32
      %t10 = arith.addf %s10, %p10 : f32
      %t11 = arith.addf %s11, %p11 : f32
      scf.yield %t00, %t01, %t10, %t11 : f32, f32, f32, f32
    }
    memref.store %r#0, %c[%i, %j] : memref<8x12xf32>
    memref.store %r#1, %c[%i, %j1] : memref<8x12xf32>
    memref.store %r#2, %c[%i1, %j] : memref<8x12xf32>
    memref.store %r#3, %c[%i1, %j1] : memref<8x12xf32>
    scf.reduce
  }
  return
}

// -----

// stages = 2: the first chunk's copies are loaded before the chunk loop,
// which carries the loaded values (and whether each round is inside the
// operand) to the next iteration; each iteration loads the next chunk
// first, then stores the carried values to shared memory, zeroed where
// outside, between the two barriers.
// CHECK-LABEL: gpu.func @tiles_prefetch
// CHECK-SAME: workgroup(%[[A:.*]] : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<128xf32
// CHECK: memref.collapse_shape %arg0
// CHECK: memref.collapse_shape %arg1
// CHECK-COUNT-8: memref.load %collapse_shape[
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c32 step %c16{{[_0-9]*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, i1, f32, f32, f32, f32, i1, f32, f32, f32, f32, i1, f32, f32, f32, f32, i1, f32, f32, f32, f32, i1, f32, f32, f32, f32, i1) {
// CHECK: %[[NEXT:.*]] = arith.addi %[[CHUNK]], %c16{{[_0-9]*}}
// CHECK: memref.load %collapse_shape[
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %collapse_shape_{{[0-9]+}}[
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: arith.select %arg{{[0-9]+}}, %arg{{[0-9]+}}, %cst
// CHECK: memref.store %{{.*}}, %[[A]][
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load %[[A]][
// CHECK: scf.yield
func.func @tiles_prefetch(%a: memref<8x32xf32>, %b: memref<32x12xf32>, %c: memref<8x12xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 8, thread_tile = [2, 2], block_tile = [4, 8], k_tile = 16, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c12) step (%c2, %c2) {
    %i1 = arith.addi %i, %c1 : index
    %j1 = arith.addi %j, %c1 : index
    %row1 = memref.subview %a[%i1, 0] [1, 32] [1, 1] : memref<8x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %r:4 = scf.for %k = %c0 to %c32 step %c1 iter_args(%s00 = %zero, %s01 = %zero, %s10 = %zero, %s11 = %zero) -> (f32, f32, f32, f32) {
      %a0 = memref.load %a[%i, %k] : memref<8x32xf32>
      %a1 = memref.load %row1[%c0, %k] : memref<1x32xf32, strided<[32, 1], offset: ?>>
      %b0 = memref.load %b[%k, %j] : memref<32x12xf32>
      %b1 = memref.load %b[%k, %j1] : memref<32x12xf32>
      %p00 = arith.mulf %a0, %b0 : f32
      %p01 = arith.mulf %a0, %b1 : f32
      %p10 = arith.mulf %a1, %b0 : f32
      %p11 = arith.mulf %a1, %b1 : f32
      %t00 = arith.addf %s00, %p00 : f32
      %t01 = arith.addf %s01, %p01 : f32
      %t10 = arith.addf %s10, %p10 : f32
      %t11 = arith.addf %s11, %p11 : f32
      scf.yield %t00, %t01, %t10, %t11 : f32, f32, f32, f32
    }
    memref.store %r#0, %c[%i, %j] : memref<8x12xf32>
    memref.store %r#1, %c[%i, %j1] : memref<8x12xf32>
    memref.store %r#2, %c[%i1, %j] : memref<8x12xf32>
    memref.store %r#3, %c[%i1, %j1] : memref<8x12xf32>
    scf.reduce
  }
  return
}

// -----

// async_copy with 3 stages: three shared buffers of each operand (A's
// 16 x 8 transposed box, B's 16 x 8), the first two chunks' copies issued
// before the loop, a commit group each; every chunk waits until at most
// one group is in flight, then one barrier, then issues the chunk two
// ahead into buffer (i + 2) % 3 and reads buffer i % 3. A's copy
// transposes, element by element (4 bytes); B's rows go 16 bytes at a
// time, bypassing L1. Past the operand's end a copy reads 0 elements
// (zero-filled). The copies still in flight after the loop are waited for,
// and a barrier frees the buffers (for a blocked accumulation's next loop).
// CHECK-LABEL: gpu.func @tiles_async_copy
// CHECK-SAME: workgroup(%[[A:.*]] : memref<384xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<384xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[FLATA:.*]] = memref.collapse_shape %arg0
// CHECK: %[[FLATB:.*]] = memref.collapse_shape %arg1
// CHECK: scf.if
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %c1{{[_0-9]*}}, %c0{{[_0-9]*}} : index
// CHECK-COUNT-4: nvgpu.device_async_copy %[[FLATA]][%{{.*}}], %[[A]][%{{.*}}], 1, %[[N]] : memref<256xf32> to memref<384xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: %[[NB:.*]] = arith.select %{{.*}}, %c4{{[_0-9]*}}, %c0{{[_0-9]*}} : index
// CHECK: nvgpu.device_async_copy %[[FLATB]][%{{.*}}], %[[B]][%{{.*}}], 4, %[[NB]] {bypassL1} : memref<384xf32> to memref<384xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c32 step %c16{{[_0-9]*}} iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %c16{{[_0-9]*}} : index
// CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %c2{{[_0-9]*}} : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[CHUNK]], %c32{{[_0-9]*}} : index
// CHECK: %[[NEXTBUF:.*]] = arith.remui %[[AHEAD]], %c3{{[_0-9]*}} : index
// CHECK: arith.muli %[[NEXTBUF]], %c128{{[_0-9]*}} : index
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[BUF:.*]] = arith.remui %[[I]], %c3{{[_0-9]*}} : index
// CHECK: %[[ABASE:.*]] = arith.muli %[[BUF]], %c128{{[_0-9]*}} : index
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.store
// CHECK-COUNT-32: memref.load %[[A]][
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store
func.func @tiles_async_copy(%a: memref<8x32xf32>, %b: memref<32x12xf32>, %c: memref<8x12xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 8, thread_tile = [2, 2], block_tile = [4, 8], k_tile = 16, stages = 3, async_copy>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c12) step (%c2, %c2) {
    %i1 = arith.addi %i, %c1 : index
    %j1 = arith.addi %j, %c1 : index
    %row1 = memref.subview %a[%i1, 0] [1, 32] [1, 1] : memref<8x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %r:4 = scf.for %k = %c0 to %c32 step %c1 iter_args(%s00 = %zero, %s01 = %zero, %s10 = %zero, %s11 = %zero) -> (f32, f32, f32, f32) {
      %a0 = memref.load %a[%i, %k] : memref<8x32xf32>
      %a1 = memref.load %row1[%c0, %k] : memref<1x32xf32, strided<[32, 1], offset: ?>>
      %b0 = memref.load %b[%k, %j] : memref<32x12xf32>
      %b1 = memref.load %b[%k, %j1] : memref<32x12xf32>
      %p00 = arith.mulf %a0, %b0 : f32
      %p01 = arith.mulf %a0, %b1 : f32
      %p10 = arith.mulf %a1, %b0 : f32
      %p11 = arith.mulf %a1, %b1 : f32
      %t00 = arith.addf %s00, %p00 : f32
      %t01 = arith.addf %s01, %p01 : f32
      %t10 = arith.addf %s10, %p10 : f32
      %t11 = arith.addf %s11, %p11 : f32
      scf.yield %t00, %t01, %t10, %t11 : f32, f32, f32, f32
    }
    memref.store %r#0, %c[%i, %j] : memref<8x12xf32>
    memref.store %r#1, %c[%i, %j1] : memref<8x12xf32>
    memref.store %r#2, %c[%i1, %j] : memref<8x12xf32>
    memref.store %r#3, %c[%i1, %j1] : memref<8x12xf32>
    scf.reduce
  }
  return
}

// -----

// Thread tiles of 8 columns, 4 threads along them: B's copy is stored
// interleaved, each thread's first 4 columns side by side, then their
// second 4 (column x = q * 8 + r at (r / 4) * 16 + q * 4 + r % 4), so
// that a warp's 128-bit shared loads of one group are contiguous; the
// thread reads column j + 4 at (its tile) * 4 + 16.
// CHECK-LABEL: gpu.func @tiles_interleaved
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gpu.barrier
// CHECK: %[[Q:.*]] = arith.divui %[[X:.*]], %c8{{[_0-9]*}} : index
// CHECK: %[[R:.*]] = arith.remui %[[X]], %c8{{[_0-9]*}} : index
// CHECK: %[[G:.*]] = arith.divui %[[R]], %c4{{[_0-9]*}} : index
// CHECK: %[[L:.*]] = arith.remui %[[R]], %c4{{[_0-9]*}} : index
// CHECK: %[[G16:.*]] = arith.muli %[[G]], %c16{{[_0-9]*}} : index
// CHECK: %[[Q4:.*]] = arith.muli %[[Q]], %c4{{[_0-9]*}} : index
// CHECK: %[[GQ:.*]] = arith.addi %[[G16]], %[[Q4]] : index
// CHECK: arith.addi %[[GQ]], %[[L]] : index
// CHECK: memref.store %{{.*}}, %[[B]][
// CHECK: gpu.barrier
// CHECK: %[[T4:.*]] = arith.muli %[[T:.*]], %c4{{[_0-9]*}} : index
// CHECK: arith.addi %[[T4]], %c0{{[_0-9]*}} : index
// CHECK: memref.load %[[B]][
// CHECK: %[[T4B:.*]] = arith.muli %[[T]], %c4{{[_0-9]*}} : index
// CHECK: arith.addi %[[T4B]], %c16{{[_0-9]*}} : index
// CHECK: memref.load %[[B]][
func.func @tiles_interleaved(%a: memref<8x32xf32>, %b: memref<32x64xf32>, %c: memref<8x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 4, block = 8, thread_tile = [2, 8], block_tile = [4, 32], k_tile = 16>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c2, %c8) {
    %j4 = arith.addi %j, %c4 : index
    %r:2 = scf.for %k = %c0 to %c32 step %c1 iter_args(%s0 = %zero, %s4 = %zero) -> (f32, f32) {
      %a0 = memref.load %a[%i, %k] : memref<8x32xf32>
      %b0 = memref.load %b[%k, %j] : memref<32x64xf32>
      %b4 = memref.load %b[%k, %j4] : memref<32x64xf32>
      %p0 = arith.mulf %a0, %b0 : f32
      %p4 = arith.mulf %a0, %b4 : f32
      %t0 = arith.addf %s0, %p0 : f32
      %t4 = arith.addf %s4, %p4 : f32
      scf.yield %t0, %t4 : f32, f32
    }
    memref.store %r#0, %c[%i, %j] : memref<8x64xf32>
    memref.store %r#1, %c[%i, %j4] : memref<8x64xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction of 40 in chunks of 16: the last chunk stops at 40. One row
// (a loop of one dim): the threads share A's row, which is staged, but
// each reads its own columns of B, which stay in global memory.
// CHECK-LABEL: gpu.func @tiles_row
// CHECK-SAME: workgroup(%[[A:.*]] : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-NOT: workgroup
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c40 step %c16
// CHECK: %[[NEXT:.*]] = arith.addi %[[CHUNK]], %c16
// CHECK: %[[END:.*]] = arith.minsi %[[NEXT]], %c40
// CHECK: scf.for %{{.*}} = %[[CHUNK]] to %[[END]] step %c1
// CHECK: memref.load %[[A]][
// CHECK: memref.load %arg1[
func.func @tiles_row(%a: memref<1x40xf32>, %b: memref<40x64xf32>, %c: memref<1x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 2, block = 32, thread_tile = [1], block_tile = [32], k_tile = 16>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
    %r = scf.for %k = %c0 to %c40 step %c1 iter_args(%s = %zero) -> (f32) {
      %x = memref.load %a[%c0, %k] : memref<1x40xf32>
      %y = memref.load %b[%k, %j] : memref<40x64xf32>
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %s, %p : f32
      scf.yield %t : f32
    }
    memref.store %r, %c[%c0, %j] : memref<1x64xf32>
    scf.reduce
  }
  return
}

// -----

// k_tile = 0: block and thread tiles only; every load stays in global
// memory and no thread is past the end (no guard).
// CHECK-LABEL: gpu.func @tiles_unstaged
// CHECK-NOT: workgroup(
// CHECK-NOT: gpu.barrier
// CHECK-NOT: scf.if
// CHECK: memref.load %arg0
// CHECK: memref.store %{{.*}}, %arg2
func.func @tiles_unstaged(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 1, block = 16, thread_tile = [1, 1], block_tile = [4, 4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%s = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<4x8xf32>
      %y = memref.load %b[%k, %j] : memref<8x4xf32>
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %s, %p : f32
      scf.yield %t : f32
    }
    memref.store %r, %c[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  return
}

// -----

// The loop must step by the thread tile (fuse-jam-thread-tiles' work).
func.func @tiles_unjammed(%c: memref<4x4xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 1, block = 4, thread_tile = [2, 2], block_tile = [4, 4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{dim 0 steps by 1, not by the thread tile of #fuse.kernel<tiles, grid = 1, block = 4, thread_tile = [2, 2], block_tile = [4, 4]>}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    memref.store %zero, %c[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  return
}

// -----

// Split-K partial products: A [8, 64] and B [64, 32] are read through
// reshaped views, [8, 2, 32] and [2, 32, 32] (slice s of the reduction is
// A[:, s, :] times B[s, :, :]). Both views are staged as function arguments
// are: copied from the view, read from shared memory.
// CHECK-LABEL: gpu.func @tiles_split_k
// CHECK-SAME: workgroup(%[[A:.*]] : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[AV:.*]] = memref.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [8, 2, 32]
// CHECK: %[[BV:.*]] = memref.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [2, 32, 32]
// CHECK: memref.collapse_shape %[[AV]]
// CHECK: memref.collapse_shape %[[BV]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[A]][
// CHECK: memref.load %[[B]][
func.func @tiles_split_k(%a: memref<8x64xf32>, %b: memref<64x32xf32>, %c: memref<2x8x32xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 2, block = 64, thread_tile = [1, 1, 4], block_tile = [1, 8, 32], k_tile = 16, split_k = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %av = memref.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 32] : memref<8x64xf32> into memref<8x2x32xf32>
  %bv = memref.expand_shape %b [[0, 1], [2]] output_shape [2, 32, 32] : memref<64x32xf32> into memref<2x32x32xf32>
  scf.parallel (%s, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c32) step (%c1, %c1, %c4) {
    %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %av[%i, %s, %k] : memref<8x2x32xf32>
      %y = memref.load %bv[%s, %k, %j] : memref<2x32x32xf32>
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %acc, %p : f32
      scf.yield %t : f32
    }
    memref.store %r, %c[%s, %i, %j] : memref<2x8x32xf32>
    scf.reduce
  }
  return
}

// -----

// The `attention` mapping: a block per 16 query rows of a (batch, head)
// (3 row tiles x 2 samples x 3 heads), key head h / 3; Q^T, K^T (then
// the probabilities) and V in shared memory (16 x 64, 64 x 32, 32 x
// 64); a loop over key tiles of 32 (the second partial) with the row
// maxima and sums over 16 lanes by shuffles, exponentials as exp2, the
// products as fma; the probabilities' columns swizzled by thread row.
// CHECK-LABEL: gpu.func @attention
// CHECK-SAME: workgroup(%[[QT:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[KT:.*]] : memref<2048xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[VT:.*]] : memref<2048xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 18, 1, 1>
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: arith.remui %[[BID]], %c3{{(_[0-9]+)?}} :
// CHECK: %[[HEADS:.*]] = arith.divui %[[BID]], %c3{{(_[0-9]+)?}} :
// CHECK: %[[H:.*]] = arith.remui %[[HEADS]], %c3{{(_[0-9]+)?}} :
// CHECK: arith.divui %[[H]], %c3{{(_[0-9]+)?}} :
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c40{{(_[0-9]+)?}} step %c32{{(_[0-9]+)?}} iter_args
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[KT]]
// CHECK: memref.store %{{.*}}, %[[VT]]
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: gpu.barrier
// CHECK: gpu.shuffle  xor
// CHECK: math.exp2
// CHECK: %[[COL:.*]] = arith.xori
// CHECK: memref.store %{{.*}}, %[[KT]]
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK-NOT: fuse.attention
func.func @attention(%q: memref<2x40x3x64xf32>, %k: memref<2x40x1x64xf32>, %v: memref<2x40x1x64xf32>, %m: memref<2x1x1x40xf32>, %o: memref<2x40x3x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention, grid = 18, block = 256, block_tile = [16, 32]>} {
  fuse.attention %q, %k, %v, %m into %o {scale = 0.125 : f32, zero_nan_probabilities} : memref<2x40x3x64xf32>, memref<2x40x1x64xf32>, memref<2x40x1x64xf32>, memref<2x1x1x40xf32> into memref<2x40x3x64xf32>
  return
}

// -----

func.func @attention_grid(%q: memref<1x40x2x64xf32>, %o: memref<1x40x2x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention, grid = 4, block = 256, block_tile = [16, 32]>} {
  // expected-error @+1 {{'fuse.attention' op strategy #fuse.kernel<attention, grid = 4, block = 256, block_tile = [16, 32]> launches 4 blocks but its 2 heads of 40 rows need 6}}
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x40x2x64xf32>, memref<1x40x2x64xf32>, memref<1x40x2x64xf32> into memref<1x40x2x64xf32>
  return
}

// -----

func.func @attention_shared(%q: memref<1x64x2x128xf32>, %o: memref<1x64x2x128xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention, grid = 2, block = 256, block_tile = [64, 64]>} {
  // expected-error @+1 {{'fuse.attention' op strategy #fuse.kernel<attention, grid = 2, block = 256, block_tile = [64, 64]> needs 98304 bytes of shared memory, more than 49152}}
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x64x2x128xf32>, memref<1x64x2x128xf32>, memref<1x64x2x128xf32> into memref<1x64x2x128xf32>
  return
}

// -----

// The `attention_mma` mapping: a warp per 16 query rows (3 row tiles x 2
// samples x 3 heads), key head h / 3. Q (16 rows), two stages of K and V
// (32 keys each) in shared memory, rows padded to 72 halves; 16-byte
// cp.async copies that zero-fill past the tensors' ends. Q's four A
// fragments once by ldmatrix; per key tile the next tile's copies in
// flight, S = Q K^T as 4 x 4 mma.sync (keys 8 a fragment, dims 16 a
// step), the online softmax on the fragments (quad shuffles), P rounded
// to f16 into A fragments, O += P V as 2 x 8 mma.sync with V by
// ldmatrix.trans, then a wait and one barrier.
// CHECK-LABEL: gpu.func @attention_mma
// CHECK-SAME: workgroup(%[[Q:.*]] : memref<1152xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[K:.*]] : memref<4608xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<4608xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 18, 1, 1>
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[Q]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[K]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_copy %arg2[{{.*}}], %[[V]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: nvgpu.ldmatrix %[[Q]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<1152xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c40{{(_[0-9]+)?}} step %c32{{(_[0-9]+)?}} iter_args({{.*}}) -> (f32, f32, f32, f32, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[K]][%{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<4608xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK-COUNT-16: nvgpu.mma.sync
// CHECK: gpu.shuffle  xor
// CHECK: math.exp2
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[V]][%{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<4608xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK-COUNT-16: nvgpu.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %arg4[{{.*}}] : memref<2x40x3x64xf16>
// CHECK-NOT: fuse.attention
func.func @attention_mma(%q: memref<2x40x3x64xf16>, %k: memref<2x40x1x64xf16>, %v: memref<2x40x1x64xf16>, %m: memref<2x1x1x40xf32>, %o: memref<2x40x3x64xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention_mma, grid = 18, block = 32, block_tile = [16, 32], stages = 2>} {
  fuse.attention %q, %k, %v, %m into %o {scale = 0.125 : f32, zero_nan_probabilities} : memref<2x40x3x64xf16>, memref<2x40x1x64xf16>, memref<2x40x1x64xf16>, memref<2x1x1x40xf32> into memref<2x40x3x64xf16>
  return
}

// -----

// bf16: nvvm.mma.sync itself (nvgpu's lowering takes f16 only), each pair
// of elements an i32; one stage: the tile is copied, waited for and
// passed a barrier before the products, and a barrier after them.
// CHECK-LABEL: gpu.func @attention_mma_bf16
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: memref.store %{{.*}}, %arg3[{{.*}}] : memref<1x16x2x32xbf16>
func.func @attention_mma_bf16(%q: memref<1x16x2x32xbf16>, %k: memref<1x48x2x32xbf16>, %v: memref<1x48x2x32xbf16>, %o: memref<1x16x2x32xbf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention_mma, grid = 2, block = 32, block_tile = [16, 16]>} {
  fuse.attention %q, %k, %v into %o {scale = 0.125 : f32} : memref<1x16x2x32xbf16>, memref<1x48x2x32xbf16>, memref<1x48x2x32xbf16> into memref<1x16x2x32xbf16>
  return
}

// -----

func.func @attention_mma_f32(%q: memref<1x16x2x32xf32>, %o: memref<1x16x2x32xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention_mma, grid = 2, block = 32, block_tile = [16, 16]>} {
  // expected-error @+1 {{'fuse.attention' op strategy #fuse.kernel<attention_mma, grid = 2, block = 32, block_tile = [16, 16]> needs f16 or bf16 tensors, not 'memref<1x16x2x32xf32>'}}
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> into memref<1x16x2x32xf32>
  return
}

// -----

func.func @attention_mma_head_size(%q: memref<1x16x2x24xf16>, %o: memref<1x16x2x24xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention_mma, grid = 2, block = 32, block_tile = [16, 16]>} {
  // expected-error @+1 {{'fuse.attention' op strategy #fuse.kernel<attention_mma, grid = 2, block = 32, block_tile = [16, 16]> needs head sizes that are multiples of 16, not 24 and 24}}
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x16x2x24xf16>, memref<1x16x2x24xf16>, memref<1x16x2x24xf16> into memref<1x16x2x24xf16>
  return
}

// -----

func.func @attention_mma_shared(%q: memref<1x64x2x128xf16>, %o: memref<1x64x2x128xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention_mma, grid = 2, block = 128, block_tile = [64, 64], stages = 2>} {
  // expected-error @+1 {{'fuse.attention' op strategy #fuse.kernel<attention_mma, grid = 2, block = 128, block_tile = [64, 64], stages = 2> needs 87040 bytes of shared memory, more than 49152}}
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x64x2x128xf16>, memref<1x64x2x128xf16>, memref<1x64x2x128xf16> into memref<1x64x2x128xf16>
  return
}

// -----

// `mma`: a 40 x 48 product over 40 steps (f16) with a bias and a ReLU, in
// block tiles of 32 x 32 (two warps of 32 x 16: 16 sums a lane), 16 steps
// a chunk in two buffers: A's 32 rows of 16 + 8 steps, B's 16 steps of 32
// + 8 columns (K x N: ldmatrix.trans). Partial row and column tiles and a
// partial last chunk: guarded copies and stores.
// CHECK-LABEL: gpu.func @mma
// CHECK-SAME: workgroup(%[[A:.*]] : memref<1536xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.*]] : memref<1280xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK: %[[FA:.*]] = memref.collapse_shape %arg0
// CHECK: %[[FB:.*]] = memref.collapse_shape %arg1
// CHECK: nvgpu.device_async_copy %[[FA]][%{{.*}}], %[[A]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_copy %[[FB]][%{{.*}}], %[[B]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[SUMS:.*]]:4 = scf.for %{{.*}} = %c0{{[_0-9]*}} to %c3{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.ldmatrix %[[A]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<1536xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[B]][%{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// The first sum's epilogue at its row and column clamped into the loop,
// the bias and the ReLU; then the other 15 sums'; then the stores, each
// guarded.
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[ROW:.*]] = arith.minui %{{.*}}, %c39
// CHECK: %[[COL:.*]] = arith.minui %{{.*}}, %c47
// CHECK: %[[S:.*]] = vector.extract %[[SUMS]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[BIAS:.*]] = memref.load %arg2[%[[COL]]]
// CHECK: %[[Y:.*]] = arith.addf %[[S]], %[[BIAS]]
// CHECK: %[[R:.*]] = arith.maximumf %[[Y]]
// CHECK: %[[H:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NOT: memref.store
// CHECK-COUNT-15: arith.truncf
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %[[H]], %arg3[%[[ROW]], %[[COL]]]
// CHECK-COUNT-15: memref.store %{{.*}}, %arg3
// CHECK-NOT: memref.store %{{.*}}, %arg3
// CHECK: gpu.return
func.func @mma(%a: memref<40x40xf16>, %b: memref<40x48xf16>, %bias: memref<48xf32>, %out: memref<40x48xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 4, block = 64, block_tile = [32, 32], k_tile = 16, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c48 = arith.constant 48 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c40, %c48) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c40 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<40x40xf16>
      %y = memref.load %b[%k, %j] : memref<40x48xf16>
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    %bv = memref.load %bias[%j] : memref<48xf32>
    %v = arith.addf %sum, %bv : f32
    %r = arith.maximumf %v, %zero : f32
    %h = arith.truncf %r : f32 to f16
    memref.store %h, %out[%i, %j] : memref<40x48xf16>
    scf.reduce
  }
  return
}

// -----

// A Gemm's transposed B (N x K, ldmatrix without .trans), its C the sum's
// start, in a batch of 2 (a block row per batch index): C added to each
// sum.
// CHECK-LABEL: gpu.func @mma_gemm
// CHECK-SAME: known_grid_size = array<i32: 2, 1, 1>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK: %[[C:.*]] = memref.load %arg2
// CHECK: %[[S:.*]] = vector.extract
// CHECK: %[[SUM:.*]] = arith.addf %[[C]], %[[S]]
// CHECK: memref.store %[[SUM]], %arg3
func.func @mma_gemm(%a: memref<2x16x32xbf16>, %b: memref<16x32xbf16>, %c: memref<16xf32>, %out: memref<2x16x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 2, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%n, %i, %j) = (%c0, %c0, %c0) to (%c2, %c16, %c16) step (%c1, %c1, %c1) {
    %init = memref.load %c[%j] : memref<16xf32>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %a[%n, %i, %k] : memref<2x16x32xbf16>
      %y = memref.load %b[%j, %k] : memref<16x32xbf16>
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%n, %i, %j] : memref<2x16x16xf32>
    scf.reduce
  }
  return
}

// -----

// `split_k = 2`: a cluster of two blocks shares each 32 x 32 tile of a 32 x
// 64 product over 128 steps (4 chunks of 32), block `bid % 2` running
// chunks 2 (bid % 2) and 2 (bid % 2) + 1. The sums meet where the A copies
// were: each lane stores its 4 fragments' sums (16 bytes each), the
// cluster's barrier, then each block adds up fragments slice and slice + 2
// from both blocks' shared memory (mapa), in rank order, and stores them
// through the epilogue; the cluster waits at the end so that no block's
// shared memory goes while another reads it.
// CHECK-LABEL: gpu.func @mma_split
// CHECK-SAME: workgroup(%[[A:.*]] : memref<2560xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<2560xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[SLICE:.*]] = arith.remui %[[BID]], %c2
// CHECK: %[[TILE:.*]] = arith.divui %[[BID]], %c2
// CHECK: %[[FIRST:.*]] = arith.muli %[[SLICE]], %c2
// The tile's row and column blocks come from bid / 2; the first chunk's
// steps from 2 (bid % 2) x 32.
// CHECK: arith.remui %[[TILE]], %c2
// CHECK: arith.divui %[[TILE]], %c2
// CHECK: %[[K0:.*]] = arith.muli %[[FIRST]], %c32
// CHECK: nvgpu.device_async_copy
// CHECK: %[[SUMS:.*]]:4 = scf.for %{{.*}} = %c0{{[_0-9]*}} to %c2{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[LOCAL:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[R0:.*]] = nvvm.mapa %[[LOCAL]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[R1:.*]] = nvvm.mapa %[[LOCAL]], %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[P0:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK: %[[P1:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK: arith.addf %[[P0]], %[[P1]] : vector<4xf32>
// CHECK-COUNT-2: llvm.load
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-COUNT-8: memref.store %{{.*}}, %arg2
// CHECK-NOT: memref.store
// CHECK: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.return
func.func @mma_split(%a: memref<32x128xf16>, %b: memref<128x64xf16>, %out: memref<32x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 4, block = 64, block_tile = [32, 32], k_tile = 32, stages = 2, split_k = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<32x128xf16>
      %y = memref.load %b[%k, %j] : memref<128x64xf16>
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i, %j] : memref<32x64xf32>
    scf.reduce
  }
  return
}

// -----

// Sums (16 x 64 f32, 4 KB) larger than the A copies (2 x 16 x 24 f16):
// a buffer of their own, and no barrier before the lanes store into it.
// CHECK-LABEL: gpu.func @mma_split_own_buffer
// CHECK-SAME: workgroup(%{{.*}} : memref<768xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[OWN:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_cluster_size = array<i32: 2, 1, 1>
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[OWN]]
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: nvvm.cluster.arrive {aligned}
func.func @mma_split_own_buffer(%a: memref<16x32xf16>, %b: memref<32x64xf16>, %out: memref<16x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 2, block = 32, block_tile = [16, 64], k_tile = 16, stages = 2, split_k = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<16x32xf16>
      %y = memref.load %b[%k, %j] : memref<32x64xf16>
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i, %j] : memref<16x64xf32>
    scf.reduce
  }
  return
}

// -----

// More blocks in the cluster (4) than fragments a lane (2): blocks 2 and 3
// add up and store nothing (the fragment index is clamped, the stores
// guarded).
// CHECK-LABEL: gpu.func @mma_split_idle
// CHECK-SAME: known_cluster_size = array<i32: 4, 1, 1>
// CHECK: %[[SLICE:.*]] = arith.remui %{{.*}}, %c4
// CHECK: nvvm.cluster.wait {aligned}
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[SLICE]], %c2
// CHECK: arith.minui %[[SLICE]], %c1
// CHECK-COUNT-4: llvm.load
// CHECK-NOT: llvm.load
// CHECK: scf.if %[[VALID]]
// CHECK: nvvm.cluster.wait {aligned}
func.func @mma_split_idle(%a: memref<16x128xf16>, %b: memref<16x128xf16>, %out: memref<16x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 4, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2, split_k = 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<16x128xf16>
      %y = memref.load %b[%j, %k] : memref<16x128xf16>
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}

// -----

// A split must divide the reduction's chunks (3 of 32 steps here).
func.func @mma_split_chunks(%a: memref<16x96xf16>, %b: memref<16x96xf16>, %out: memref<16x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 2, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2, split_k = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c96 = arith.constant 96 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot split the 3 chunks of its reduction among 2 blocks of a cluster}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<16x96xf16>
      %y = memref.load %b[%j, %k] : memref<16x96xf16>
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}

// -----

// An mma grid covers the block tiles of each batch index.
// expected-error @+1 {{strategy #fuse.kernel<mma, grid = 3, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2> launches 3 blocks but its loop of 512 iterations needs 2}}
func.func @mma_grid(%a: memref<2x16x32xbf16>, %b: memref<16x32xbf16>, %out: memref<2x16x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 3, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %i, %j) = (%c0, %c0, %c0) to (%c2, %c16, %c16) step (%c1, %c1, %c1) {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%n, %i, %k] : memref<2x16x32xbf16>
      %y = memref.load %b[%j, %k] : memref<16x32xbf16>
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%n, %i, %j] : memref<2x16x16xf32>
    scf.reduce
  }
  return
}

// -----

// A product of f32 operands is not for tensor cores.
func.func @mma_f32(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %out: memref<16x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<mma, grid = 1, block = 32, block_tile = [16, 16], k_tile = 32, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot run as an mma contraction: its operands are not both f16 or both bf16}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<16x32xf32>
      %y = memref.load %b[%k, %j] : memref<32x16xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}
