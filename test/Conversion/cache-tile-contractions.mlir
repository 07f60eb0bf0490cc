// RUN: fuse-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-cache-tile-contractions{cache-bytes=65536}))' | FileCheck %s
// RUN: fuse-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-cache-tile-contractions))' | FileCheck %s --check-prefix=DEFAULT

// K = 580 floats a column: 65536 bytes hold 28 columns, 3 tiles of 8. The
// columns run in blocks of 24, each block's last clamped to the loop's end;
// rows then columns inside, the body as it was.
// CHECK-LABEL: func.func @contraction
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C3136:.*]] = arith.constant 3136 : index
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : index
// CHECK: scf.parallel (%[[JB:.*]]) = (%[[C0]]) to (%[[C3136]]) step (%[[C24]]) {
// CHECK:   %[[END:.*]] = arith.addi %[[JB]], %{{.*}} : index
// CHECK:   %[[MIN:.*]] = arith.minsi %[[END]], %[[C3136]] : index
// CHECK:   scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[JB]]) to (%[[C64]], %[[MIN]]) step (%[[C8]], %[[C8]]) {
// CHECK:     scf.for %{{.*}} = %[[C0]] to %{{.*}} step
// CHECK:       memref.load %arg0[%[[I]], %{{.*}}]
// CHECK:       memref.load %arg1[%{{.*}}, %[[J]]]
// CHECK:     memref.store %{{.*}}, %arg2[%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// 131072 bytes (the default): 56 columns, 7 tiles.
// DEFAULT-LABEL: func.func @contraction
// DEFAULT: %[[C56:.*]] = arith.constant 56 : index
// DEFAULT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[C56]])
func.func @contraction(%a: memref<64x580xf32>, %b: memref<580x3136xf32>, %c: memref<64x3136xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [8, 8]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c580 = arith.constant 580 : index
  %c3136 = arith.constant 3136 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c3136) step (%c8, %c8) {
    %sum = scf.for %k = %c0 to %c580 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<64x580xf32>
      %y = memref.load %b[%k, %j] : memref<580x3136xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %c[%i, %j] : memref<64x3136xf32>
    scf.reduce
  }
  return
}

// -----

// A batch dim stays outside: each matrix's blocks, one after another.
// CHECK-LABEL: func.func @batched
// CHECK: scf.parallel (%[[N:.*]], %[[JB:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %[[BLOCK:.*]]) {
// CHECK:   arith.minsi
// CHECK:   scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %[[JB]])
// CHECK:     memref.load %arg1[%[[N]], %{{.*}}, %[[J]]]
func.func @batched(%a: memref<128x4096xf32>, %b: memref<12x4096x512xf32>, %c: memref<12x128x512xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 6, 16]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c126 = arith.constant 126 : index
  %c512 = arith.constant 512 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %i, %j) = (%c0, %c0, %c0) to (%c12, %c126, %c512) step (%c1, %c6, %c16) {
    %sum = scf.for %k = %c0 to %c4096 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<128x4096xf32>
      %y = memref.load %b[%n, %k, %j] : memref<12x4096x512xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sum, %c[%n, %i, %j] : memref<12x128x512xf32>
    scf.reduce
  }
  return
}

// -----

// Left alone: one row tile (B is read once anyway), columns that fit in one
// block, a loop without a reduction, a kernel mapped for the GPU.
// CHECK-LABEL: func.func @one_row_tile
// CHECK-NOT: arith.minsi
// CHECK: return
func.func @one_row_tile(%a: memref<8x580xf32>, %c: memref<8x3136xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [8, 8]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c580 = arith.constant 580 : index
  %c3136 = arith.constant 3136 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c3136) step (%c8, %c8) {
    %sum = scf.for %k = %c0 to %c580 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<8x580xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %c[%i, %j] : memref<8x3136xf32>
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @one_block
// CHECK-NOT: arith.minsi
// CHECK: return
func.func @one_block(%e: memref<580x16xf32>, %f: memref<64x16xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [8, 8]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c580 = arith.constant 580 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c16) step (%c8, %c8) {
    %sum = scf.for %k = %c0 to %c580 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %e[%k, %j] : memref<580x16xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %f[%i, %j] : memref<64x16xf32>
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @no_reduction
// CHECK-NOT: arith.minsi
// CHECK: return
func.func @no_reduction(%b: memref<580x3136xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [8, 8]>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c3136 = arith.constant 3136 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c3136) step (%c8, %c8) {
    %x = memref.load %b[%i, %j] : memref<580x3136xf32>
    memref.store %x, %b[%i, %j] : memref<580x3136xf32>
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @gpu_tiles
// CHECK-NOT: arith.minsi
// CHECK: return
func.func @gpu_tiles(%a: memref<64x580xf32>, %b: memref<580x3136xf32>, %c: memref<64x3136xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<tiles, grid = 392, block = 64, thread_tile = [8, 8], block_tile = [64, 64]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c580 = arith.constant 580 : index
  %c3136 = arith.constant 3136 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c3136) step (%c8, %c8) {
    %sum = scf.for %k = %c0 to %c580 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<64x580xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %c[%i, %j] : memref<64x3136xf32>
    scf.reduce
  }
  return
}
