// RUN: fuse-opt %s -split-input-file -allow-unregistered-dialect -fuse-hoist-static-allocas | FileCheck %s

// A fixed-size alloca in a loop moves to the start of the function; the
// stores and loads that use it stay in the loop.
// CHECK-LABEL: func.func @in_loop
// CHECK-SAME: (%[[OUT:.*]]: memref<8xf32>)
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<1xf32>
// CHECK: memref.load %[[ACC]][%{{.*}}] : memref<1xf32>
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]]] : memref<8xf32>
func.func @in_loop(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %acc = memref.alloca() : memref<1xf32>
    memref.store %f, %acc[%c0] : memref<1xf32>
    %v = memref.load %acc[%c0] : memref<1xf32>
    memref.store %v, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// From nested loops, an scf.parallel and an scf.if, all go to the entry
// block (with their attributes, e.g. alignment).
// CHECK-LABEL: func.func @nested
// CHECK-DAG: memref.alloca() {alignment = 64 : i64} : memref<1x1x1x1xf32>
// CHECK-DAG: memref.alloca() : memref<4xi32>
// CHECK-DAG: memref.alloca() : memref<2x2xf32>
// CHECK: scf.parallel
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @nested(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %a = memref.alloca() {alignment = 64 : i64} : memref<1x1x1x1xf32>
    scf.for %j = %c0 to %n step %c1 {
      %b = memref.alloca() : memref<4xi32>
      "test.use"(%a, %b) : (memref<1x1x1x1xf32>, memref<4xi32>) -> ()
    }
    scf.if %c {
      %d = memref.alloca() : memref<2x2xf32>
      "test.use"(%d) : (memref<2x2xf32>) -> ()
    }
    scf.reduce
  }
  return
}

// -----

// An alloca of dynamic size depends on its operand and stays in the loop.
// CHECK-LABEL: func.func @dynamic_size
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[D:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: "test.use"(%[[D]])
func.func @dynamic_size(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %d = memref.alloca(%i) : memref<?xf32>
    "test.use"(%d) : (memref<?xf32>) -> ()
  }
  return
}

// -----

// Allocas already in the entry block stay where they are.
// CHECK-LABEL: func.func @entry
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[A:.*]] = memref.alloca() : memref<1xf32>
// CHECK-NEXT: "test.use"(%[[A]])
func.func @entry() {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<1xf32>
  "test.use"(%a) : (memref<1xf32>) -> ()
  return
}

// -----

// Declarations have no body to change.
// CHECK-LABEL: func.func private @external
func.func private @external(memref<1xf32>)
