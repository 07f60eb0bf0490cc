// RUN: fuse-opt %s -split-input-file -allow-unregistered-dialect -fuse-promote-accumulators | FileCheck %s

// A max-pool window: the output element is carried through both window
// loops, starting from the value stored before them; one store after.
// CHECK-LABEL: func.func @window
// CHECK-SAME: (%[[IN:.*]]: memref<8x8xf32>, %[[OUT:.*]]: memref<4x4xf32>)
// CHECK: scf.parallel (%[[Y:.*]], %[[X:.*]]) =
// CHECK-NEXT: %[[VIEW:.*]] = memref.subview %[[OUT]]
// CHECK-NOT: memref.store
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[LOWEST:.*]]) -> (f32)
// CHECK-NEXT: %[[RI:.*]] = scf.for %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: %[[V:.*]] = memref.load %[[IN]]
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[V]], %[[B]] : f32
// CHECK-NEXT: scf.yield %[[M]] : f32
// CHECK: scf.yield %[[RI]] : f32
// CHECK: memref.store %[[R]], %[[VIEW]][%{{.*}}, %{{.*}}]
// CHECK-NEXT: scf.reduce
func.func @window(%in: memref<8x8xf32>, %out: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %lowest = arith.constant 0xFF800000 : f32
  scf.parallel (%y, %x) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %view = memref.subview %out[%y, %x] [1, 1] [1, 1]
        : memref<4x4xf32> to memref<1x1xf32, strided<[4, 1], offset: ?>>
    memref.store %lowest, %view[%c0, %c0]
        : memref<1x1xf32, strided<[4, 1], offset: ?>>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %acc = memref.load %view[%c0, %c0]
            : memref<1x1xf32, strided<[4, 1], offset: ?>>
        %y2 = arith.muli %y, %c2 : index
        %x2 = arith.muli %x, %c2 : index
        %iy = arith.addi %y2, %i : index
        %ix = arith.addi %x2, %j : index
        %v = memref.load %in[%iy, %ix] : memref<8x8xf32>
        %m = arith.maximumf %v, %acc : f32
        memref.store %m, %view[%c0, %c0]
            : memref<1x1xf32, strided<[4, 1], offset: ?>>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Without a store before the loop, the initial value is loaded; a stack
// accumulator is carried like an argument's element.
// CHECK-LABEL: func.func @loaded_init
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<1xf32>
// CHECK: %[[INIT:.*]] = memref.load %[[ACC]][%{{.*}}] : memref<1xf32>
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32)
// CHECK: arith.addf %[[A]], %{{.*}} : f32
// CHECK: memref.store %[[R]], %[[ACC]][%{{.*}}] : memref<1xf32>
func.func @loaded_init(%in: memref<8xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloca() : memref<1xf32>
  "test.init"(%acc) : (memref<1xf32>) -> ()
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %acc[%c0] : memref<1xf32>
    %v = memref.load %in[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %out[%c0] : memref<1xf32>
  return
}

// -----

// The loop also reads another element of the accumulator's buffer (through
// another view): left alone.
// CHECK-LABEL: func.func @same_buffer
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @same_buffer(%in: memref<8xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %view = memref.subview %out[1] [1] [1]
      : memref<2xf32> to memref<1xf32, strided<[1], offset: 1>>
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %out[%c0] : memref<2xf32>
    %b = memref.load %view[%c0] : memref<1xf32, strided<[1], offset: 1>>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%c0] : memref<2xf32>
  }
  return
}

// -----

// An index that changes in the loop, an op of unknown effects, and a loop
// that may not run: all left alone.
// CHECK-LABEL: func.func @not_invariant
// CHECK-NOT: iter_args
// CHECK: return
func.func @not_invariant(%in: memref<8xf32>, %out: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %out[%i] : memref<8xf32>
    %v = memref.load %in[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %out[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %out[%c0] : memref<8xf32>
    "test.unknown"() : () -> ()
    memref.store %a, %out[%c0] : memref<8xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %out[%c0] : memref<8xf32>
    %v = memref.load %in[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %out[%c0] : memref<8xf32>
  }
  return
}

// -----

// Two accumulators of one loop (a mean and a sum of squares) are carried
// together; writes to other buffers do not stop it.
// CHECK-LABEL: func.func @two
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK: scf.yield
// CHECK-DAG: memref.store %[[R]]#0, %{{.*}}[%c0] : memref<2xf32>
// CHECK-DAG: memref.store %[[R]]#1, %{{.*}}[%c1] : memref<2xf32>
func.func @two(%in: memref<8xf32>, %sums: memref<2xf32>, %copy: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %s0 = memref.alloca() : memref<2xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %sums[%c0] : memref<2xf32>
    %b = memref.load %sums[%c1] : memref<2xf32>
    %v = memref.load %in[%i] : memref<8xf32>
    memref.store %v, %copy[%i] : memref<8xf32>
    %sa = arith.addf %a, %v : f32
    %sq = arith.mulf %v, %v : f32
    %sb = arith.addf %b, %sq : f32
    memref.store %sa, %sums[%c0] : memref<2xf32>
    memref.store %sb, %sums[%c1] : memref<2xf32>
  }
  return
}
