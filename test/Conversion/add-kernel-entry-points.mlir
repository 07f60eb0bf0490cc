// RUN: fuse-opt %s -split-input-file -fuse-add-kernel-entry-points -verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @k(
// CHECK-LABEL: llvm.func @k_packed(
// CHECK-SAME: %[[ARGS:.*]]: !llvm.ptr) {
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @k(%[[P0]], %[[P1]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.return
// Helpers that are not kernels get no entry point.
// CHECK-NOT: @helper_packed
llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr) attributes {fuse.kernel} {
  llvm.return
}
llvm.func @helper(%a: !llvm.ptr) {
  llvm.return
}

// -----

// expected-error @+1 {{'llvm.func' op must take only pointers and return nothing to get a packed entry point}}
llvm.func @bad(%a: i64) attributes {fuse.kernel} {
  llvm.return
}
