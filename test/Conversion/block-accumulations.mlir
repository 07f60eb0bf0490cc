// RUN: fuse-opt %s -split-input-file -fuse-block-accumulations | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-block-accumulations=block=4 | FileCheck %s --check-prefix=SMALL
// RUN: not fuse-opt %s -split-input-file -fuse-block-accumulations=block=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: block must be at least 2 (got 1)

// A sum of 2^20 elements: blocks of 256 from -0.0, the loop over 4096
// blocks split again into 16 blocks of 256 blocks.
// CHECK-LABEL: func.func @long_sum
// CHECK-DAG: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[ZERO2:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C65536:.*]] = arith.constant 65536 : index
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C65536]] iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[END1:.*]] = arith.addi %[[I]], %[[C65536]] : index
// CHECK-NEXT: %[[P1:.*]] = scf.for %[[J:.*]] = %[[I]] to %[[END1]] step %[[C256]] iter_args(%[[B:.*]] = %[[ZERO2]]) -> (f32) {
// CHECK-NEXT: %[[END2:.*]] = arith.addi %[[J]], %[[C256]] : index
// CHECK-NEXT: %[[P2:.*]] = scf.for %[[K:.*]] = %[[J]] to %[[END2]] step %{{.*}} iter_args(%[[C:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[K]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[V]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: %[[T2:.*]] = arith.addf %[[B]], %[[P2]] : f32
// CHECK-NEXT: scf.yield %[[T2]] : f32
// CHECK: %[[T1:.*]] = arith.addf %[[A]], %[[P1]] : f32
// CHECK-NEXT: scf.yield %[[T1]] : f32
// CHECK: memref.store %[[R]]
func.func @long_sum(%x: memref<1048576xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %init = memref.load %out[] : memref<f32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<1048576xf32>
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  memref.store %r, %out[] : memref<f32>
  return
}

// -----

// Short sums stay as they are; so do loops that carry anything but sums
// (a maximum, a running value read for something else).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: -0.000000e+00
// SMALL-LABEL: func.func @left_alone
// SMALL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// SMALL-NOT: step %c4
// SMALL: return
func.func @left_alone(%x: memref<1000xf32>, %out: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %n = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  %short = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<1000xf32>
    %s = arith.addf %v, %a : f32
    scf.yield %s : f32
  }
  %max = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<1000xf32>
    %m = arith.maximumf %a, %v : f32
    scf.yield %m : f32
  }
  %read = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<1000xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %out[%c2] : memref<3xf32>
    scf.yield %s : f32
  }
  memref.store %short, %out[%c0] : memref<3xf32>
  memref.store %max, %out[%c1] : memref<3xf32>
  return
}

// -----

// A thread's strided share of a row (its first element not a constant):
// at most 1000 iterations, blocks of 256 clamped to the row's end. The
// jammed accumulators of a tile are blocked together.
// CHECK-LABEL: func.func @strided
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[C2000:.*]] = arith.constant 2000 : index
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %[[TID:.*]] to %[[C2000]] step %[[C512]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[I]], %[[C512]] : index
// CHECK-NEXT: %[[CLAMP:.*]] = arith.minsi %[[END]], %[[C2000]] : index
// CHECK-NEXT: scf.for %{{.*}} = %[[I]] to %[[CLAMP]] step %c2
func.func @strided(%x: memref<2000xf32>, %tid: index, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.constant 2000 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %tid to %n step %c2 iter_args(%a = %zero, %b = %zero) -> (f32, f32) {
    %v = memref.load %x[%i] : memref<2000xf32>
    %w = arith.mulf %v, %v : f32
    %s = arith.addf %a, %v : f32
    %t = arith.addf %b, %w : f32
    scf.yield %s, %t : f32, f32
  }
  memref.store %r#0, %out[%c0] : memref<2xf32>
  memref.store %r#1, %out[%c1] : memref<2xf32>
  return
}

// -----

// A conv's channel loop around its 3x3 taps adds 9 times an iteration:
// blocks of 28 channels (252 additions), the 3x3 loops inside, summing
// from -0.0.
// CHECK-LABEL: func.func @taps
// CHECK-DAG: %[[C28:.*]] = arith.constant 28 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %[[C28]] iter_args
// CHECK: scf.for %{{.*}} = %[[C]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c3
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c3
func.func @taps(%x: memref<512x3x3xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %c = %c0 to %c512 step %c1 iter_args(%a = %zero) -> (f32) {
    %rh = scf.for %h = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
      %rw = scf.for %w = %c0 to %c3 step %c1 iter_args(%d = %b) -> (f32) {
        %v = memref.load %x[%c, %h, %w] : memref<512x3x3xf32>
        %s = arith.addf %d, %v : f32
        scf.yield %s : f32
      }
      scf.yield %rw : f32
    }
    scf.yield %rh : f32
  }
  memref.store %r, %out[] : memref<f32>
  return
}

// -----

// Counts past int64_t saturate (2^62 iterations of an 8-addition inner
// loop): blocks of 32 iterations, then blocks of those.
// CHECK-LABEL: func.func @huge
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8192:.*]] = arith.constant 8192 : index
// CHECK: scf.for %{{.*}} step %[[C8192]]
// CHECK: scf.for %{{.*}} step %[[C32]]
func.func @huge(%x: memref<8xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = arith.constant 4611686018427387904 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%b = %a) -> (f32) {
      %v = memref.load %x[%j] : memref<8xf32>
      %t = arith.addf %b, %v : f32
      scf.yield %t : f32
    }
    scf.yield %s : f32
  }
  memref.store %r, %out[] : memref<f32>
  return
}
