// RUN: fuse-opt %s -split-input-file -fuse-map-kernels-to-gpu -verify-diagnostics | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-map-kernels-to-gpu=block-size=128 -verify-diagnostics | FileCheck %s --check-prefix=B128

// The parallel loop becomes one thread per iteration of a flat 1-D launch:
// 2 x 300 = 600 iterations, ceil(600 / 256) = 3 blocks.
// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @fuse_kernels
// CHECK: gpu.func @k(%{{.*}}: memref<2x300xf32>, %[[OUT:.*]]: memref<2x300xf32>) kernel attributes {fuse.block = array<i32: 256, 1, 1>, fuse.grid = array<i32: 3, 1, 1>, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>}
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
// B128: fuse.block = array<i32: 128, 1, 1>, fuse.grid = array<i32: 5, 1, 1>
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
// CHECK: gpu.func @single(%{{.*}}: memref<f32>, %{{.*}}: memref<f32>) kernel attributes {fuse.block = array<i32: 1, 1, 1>, fuse.grid = array<i32: 1, 1, 1>
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
