// RUN: fuse-opt %s -split-input-file -fuse-jam-thread-tiles -verify-diagnostics -canonicalize -cse | FileCheck %s

// A 1x3 window, 4 outputs along the last dim per iteration: the loop steps
// by 4, and the taps loop once, carrying 4 accumulators; the input load of
// output 0 at tap 1 and of output 1 at tap 0 read the same element (CSE
// shares it later). Then the 4 stores.
// CHECK-LABEL: func.func @window
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[Y:.*]], %[[X:.*]]) = ({{.*}}) to ({{.*}}) step (%{{.*}}, %[[C4]])
// CHECK: %[[X1:.*]] = arith.addi %[[X]], %c1
// CHECK: %[[X2:.*]] = arith.addi %[[X]], %c2
// CHECK: %[[X3:.*]] = arith.addi %[[X]], %c3
// CHECK: %[[R:.*]]:4 = scf.for %[[T:.*]] = {{.*}} iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (f32, f32, f32, f32)
// CHECK: %[[I0:.*]] = arith.addi %[[X]], %[[T]]
// CHECK: memref.load %{{.*}}[%[[Y]], %[[I0]]]
// CHECK: %[[I1:.*]] = arith.addi %[[X1]], %[[T]]
// CHECK: memref.load %{{.*}}[%[[Y]], %[[I1]]]
// CHECK: %[[I3:.*]] = arith.addi %[[X3]], %[[T]]
// CHECK: memref.load %{{.*}}[%[[Y]], %[[I3]]]
// CHECK: scf.yield {{.*}} : f32, f32, f32, f32
// CHECK: memref.store %[[R]]#0, %{{.*}}[%[[Y]], %[[X]]]
// CHECK: memref.store %[[R]]#1, %{{.*}}[%[[Y]], %[[X1]]]
// CHECK: memref.store %[[R]]#2, %{{.*}}[%[[Y]], %[[X2]]]
// CHECK: memref.store %[[R]]#3, %{{.*}}[%[[Y]], %[[X3]]]
// CHECK-NEXT: scf.reduce
func.func @window(%in: memref<2x10xf32>, %out: memref<2x8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32, thread_tile = [1, 4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%y, %x) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %sum = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %ix = arith.addi %x, %t : index
      %v = memref.load %in[%y, %ix] : memref<2x10xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%y, %x] : memref<2x8xf32>
    scf.reduce
  }
  return
}

// -----

// A transpose tiled along a dim that is not the last: 2 outputs per
// iteration along dim 0. With no inner loop, the copies are interleaved op
// by op: the loads side by side, then the stores.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to ({{.*}}) step (%c2, %c1)
// CHECK-NEXT: %[[I1:.*]] = arith.addi %[[I]], %c1
// CHECK-NEXT: %[[V0:.*]] = memref.load %{{.*}}[%[[J]], %[[I]]]
// CHECK-NEXT: %[[V1:.*]] = memref.load %{{.*}}[%[[J]], %[[I1]]]
// CHECK-NEXT: memref.store %[[V0]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %[[V1]], %{{.*}}[%[[I1]], %[[J]]]
// CHECK-NEXT: scf.reduce
func.func @transpose(%in: memref<3x4xf32>, %out: memref<4x3xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32, thread_tile = [2, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c3) step (%c1, %c1) {
    %v = memref.load %in[%j, %i] : memref<3x4xf32>
    memref.store %v, %out[%i, %j] : memref<4x3xf32>
    scf.reduce
  }
  return
}

// -----

// A stack buffer that each iteration fills in one loop and reads in the
// next: every output of the tile gets its own copy before the loops are
// jammed (one buffer shared by the copies would hold only the last one's
// values when the second loop reads it).
// CHECK-LABEL: func.func @private_scratch
// CHECK: scf.parallel
// CHECK-DAG: %[[S0:.*]] = memref.alloca() : memref<3xf32>
// CHECK-DAG: %[[S1:.*]] = memref.alloca() : memref<3xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[S0]]
// CHECK: memref.store %{{.*}}, %[[S1]]
// CHECK: scf.for
// CHECK: memref.load %[[S0]]
// CHECK: memref.load %[[S1]]
func.func @private_scratch(%in: memref<6xf32>, %out: memref<4xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %scratch = memref.alloca() : memref<3xf32>
  scf.parallel (%x) = (%c0) to (%c4) step (%c1) {
    scf.for %t = %c0 to %c3 step %c1 {
      %ix = arith.addi %x, %t : index
      %v = memref.load %in[%ix] : memref<6xf32>
      memref.store %v, %scratch[%t] : memref<3xf32>
    }
    %sum = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %scratch[%t] : memref<3xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%x] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// A stack buffer also used outside the loop cannot be split per output:
// the copies are unrolled one after the other, each with both its loops.
// CHECK-LABEL: func.func @shared_scratch
// CHECK: %[[S:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.parallel
// CHECK-COUNT-2: scf.for %{{.*}} iter_args(%{{[^,]*}} = %{{[^,]*}}) -> (f32)
// CHECK-NOT: scf.for
// CHECK: scf.reduce
func.func @shared_scratch(%in: memref<6xf32>, %out: memref<4xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %scratch = memref.alloca() : memref<1xf32>
  memref.store %zero, %scratch[%c0] : memref<1xf32>
  scf.parallel (%x) = (%c0) to (%c4) step (%c1) {
    %sum = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %ix = arith.addi %x, %t : index
      %v = memref.load %in[%ix] : memref<6xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sum, %scratch[%c0] : memref<1xf32>
    %r = memref.load %scratch[%c0] : memref<1xf32>
    memref.store %r, %out[%x] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Without a thread tile, nothing changes.
// CHECK-LABEL: func.func @untiled
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%c1)
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.reduce
func.func @untiled(%in: memref<8xf32>, %out: memref<8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%x) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %in[%x] : memref<8xf32>
    memref.store %v, %out[%x] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// On the cpu (loop mapping) a tile need not divide its dims: a 22-wide dim
// in tiles of 8 runs 0..16 in tiles of 8 and 16..22 as one tile of 6, in
// a copy of the loop (whose single column of tiles canonicalization then
// folds away). The scratch buffer that only the loop uses moves into it
// first, so that each copy of the loop has its own.
// CHECK-LABEL: func.func @remainders
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%[[C16]], %[[C16]]) step (%c1, %[[C8]])
// CHECK-COUNT-8: arith.mulf
// CHECK-NOT: arith.mulf
// CHECK: scf.reduce
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%[[C16]]) step (%c1)
// CHECK-COUNT-6: arith.mulf
// CHECK-NOT: arith.mulf
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %c21]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @remainders(%in: memref<16x22xf32>, %out: memref<16x22xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1, thread_tile = [1, 8]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c22 = arith.constant 22 : index
  %c16 = arith.constant 16 : index
  %scratch = memref.alloca() : memref<1xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c22) step (%c1, %c1) {
    %v = memref.load %in[%i, %j] : memref<16x22xf32>
    %sq = arith.mulf %v, %v : f32
    memref.store %sq, %scratch[%c0] : memref<1xf32>
    %r = memref.load %scratch[%c0] : memref<1xf32>
    memref.store %r, %out[%i, %j] : memref<16x22xf32>
    scf.reduce
  }
  return
}

// -----

// The grid was computed for the tiled loop: a size that does not divide
// the dim is an error, not a silent fallback.
func.func @indivisible(%in: memref<6xf32>, %out: memref<6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32, thread_tile = [4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  // expected-error @+1 {{'scf.parallel' op dim 0 cannot be tiled by 4: it needs constant bounds, step 1 and a multiple of 4 iterations}}
  scf.parallel (%x) = (%c0) to (%c6) step (%c1) {
    %v = memref.load %in[%x] : memref<6xf32>
    memref.store %v, %out[%x] : memref<6xf32>
    scf.reduce
  }
  return
}

// -----

func.func @wrong_rank(%in: memref<2x8xf32>, %out: memref<2x8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32, thread_tile = [4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'scf.parallel' op has 2 dims but the thread tile of #fuse.kernel<flat, grid = 1, block = 32, thread_tile = [4]> has 1}}
  scf.parallel (%y, %x) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %v = memref.load %in[%y, %x] : memref<2x8xf32>
    memref.store %v, %out[%y, %x] : memref<2x8xf32>
    scf.reduce
  }
  return
}
