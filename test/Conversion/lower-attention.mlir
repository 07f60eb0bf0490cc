// RUN: fuse-opt %s -split-input-file -fuse-lower-attention -canonicalize -verify-diagnostics | FileCheck %s

// A query row per iteration of one parallel loop over (batch, head, row):
// the keys in one pass carrying the running maximum and sum, the outputs
// in a stack buffer rescaled by exp(max - new max), the mask read with its
// broadcast dims at 0, grouped-query heads (key head h / 2), and the row
// finished as acc / sum, or NaN where no key counted (no guard).
// CHECK-LABEL: func @rows
// CHECK-SAME: (%[[Q:.*]]: memref<2x5x4x8xf32>, %[[K:.*]]: memref<2x7x2x8xf32>, %[[V:.*]]: memref<2x7x2x6xf32>, %[[M:.*]]: memref<2x1x1x7xf32>, %[[O:.*]]: memref<2x5x4x6xf32>)
// CHECK-DAG: %[[MINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 3.53{{.*}} : f32
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = ({{.*}}) to (%c2, %c4, %c5)
// CHECK: %[[HK:.*]] = arith.divui %[[H]], %c2
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<6xf32>
// CHECK: %[[ROW:.*]]:2 = scf.for %[[J:.*]] = %c0 to %c7 step %c1 iter_args(%[[MAX:.*]] = %[[MINF]], %[[SUM:.*]] = %{{.*}})
// CHECK: %[[DOT:.*]] = scf.for
// CHECK: memref.load %[[Q]][%[[B]], %[[I]], %[[H]], %{{.*}}]
// CHECK: memref.load %[[K]][%[[B]], %[[J]], %[[HK]], %{{.*}}]
// CHECK: %[[S:.*]] = arith.mulf %[[DOT]], %[[SCALE]]
// CHECK: %[[MASK:.*]] = memref.load %[[M]][%[[B]], %c0, %c0, %[[J]]]
// CHECK: %[[SM:.*]] = arith.addf %[[S]], %[[MASK]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[MAX]], %[[SM]]
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[NEW]], %[[MINF]]
// CHECK: %[[BASE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[NEW]]
// CHECK: math.exp
// CHECK: math.exp
// CHECK: memref.load %[[V]][%[[B]], %[[J]], %[[HK]], %{{.*}}]
// CHECK: scf.yield %[[NEW]], %{{.*}}
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[ROW]]#1
// CHECK: %[[OUT:.*]] = arith.select %[[POS]], %{{.*}}, %[[NAN]]
// CHECK: memref.store %[[OUT]], %[[O]][%[[B]], %[[I]], %[[H]], %{{.*}}]
// CHECK-NOT: fuse.attention
func.func @rows(%q: memref<2x5x4x8xf32>, %k: memref<2x7x2x8xf32>, %v: memref<2x7x2x6xf32>, %m: memref<2x1x1x7xf32>, %o: memref<2x5x4x6xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>} {
  fuse.attention %q, %k, %v, %m into %o {scale = 0.353553 : f32} : memref<2x5x4x8xf32>, memref<2x7x2x8xf32>, memref<2x7x2x6xf32>, memref<2x1x1x7xf32> into memref<2x5x4x6xf32>
  return
}

// -----

// With the guard, a row with no key that counts is 0.
// CHECK-LABEL: func @guarded
// CHECK: %[[POS:.*]] = arith.cmpf ogt
// CHECK: arith.select %[[POS]], %{{.*}}, %cst
// CHECK-NOT: 0x7FC00000
func.func @guarded(%q: memref<1x4x2x8xf32>, %o: memref<1x4x2x8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<flat, grid = 1, block = 32>} {
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32, zero_nan_probabilities} : memref<1x4x2x8xf32>, memref<1x4x2x8xf32>, memref<1x4x2x8xf32> into memref<1x4x2x8xf32>
  return
}

// -----

// The GPU's `attention` mapping builds the kernel from the op: it stays.
// CHECK-LABEL: func @tiled
// CHECK-NEXT: fuse.attention
// CHECK-NOT: scf.parallel
func.func @tiled(%q: memref<1x64x2x64xf32>, %o: memref<1x64x2x64xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<attention, grid = 8, block = 256, block_tile = [16, 64]>} {
  fuse.attention %q, %q, %q into %o {scale = 1.0 : f32} : memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32> into memref<1x64x2x64xf32>
  return
}

// -----

func.func @tensors(%q: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> attributes {fuse.kernel} {
  // expected-error @+1 {{'fuse.attention' op must be bufferized before it is lowered to loops}}
  %0 = fuse.attention %q, %q, %q {scale = 1.0 : f32} : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
  return %0 : tensor<1x4x2x8xf32>
}

// -----

// Heads first ([B, H, S, D]) query, key and result: their loads and
// stores index (b, h, s, d); the value stays [B, S, H, D].
// CHECK-LABEL: func @heads_first
// CHECK-SAME: (%[[Q:.*]]: memref<2x2x4x8xf32>, %[[K:.*]]: memref<2x2x4x8xf32>, %[[V:.*]]: memref<2x4x2x8xf32>, %[[O:.*]]: memref<2x2x4x8xf32>)
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) =
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: memref.load %[[Q]][%[[B]], %[[H]], %[[I]], %{{.*}}]
// CHECK: memref.load %[[K]][%[[B]], %[[H]], %[[J]], %{{.*}}]
// CHECK: memref.load %[[V]][%[[B]], %[[J]], %[[H]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[O]][%[[B]], %[[H]], %[[I]], %{{.*}}]
func.func @heads_first(%q: memref<2x2x4x8xf32>, %k: memref<2x2x4x8xf32>, %v: memref<2x4x2x8xf32>, %o: memref<2x2x4x8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>} {
  fuse.attention %q, %k, %v into %o {heads_first = array<i1: true, true, false, true>, scale = 1.0 : f32} : memref<2x2x4x8xf32>, memref<2x2x4x8xf32>, memref<2x4x2x8xf32> into memref<2x2x4x8xf32>
  return
}

// -----

// Heads read from windows of one [B, S, 3 H, D] buffer: each load adds
// its tensor's head offset to the head (key and value heads 4 and 8 on).
// CHECK-LABEL: func @head_windows
// CHECK-SAME: (%[[P:.*]]: memref<2x5x12x8xf32>, %[[O:.*]]: memref<2x5x4x8xf32>)
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = ({{.*}}) to (%c2, %c4, %c5)
// CHECK: memref.load %[[P]][%[[B]], %[[I]], %[[H]], %{{.*}}]
// CHECK: %[[HK:.*]] = arith.addi %[[H]], %c4
// CHECK: memref.load %[[P]][%[[B]], %{{.*}}, %[[HK]], %{{.*}}]
// CHECK: %[[HV:.*]] = arith.addi %[[H]], %c8
// CHECK: memref.load %[[P]][%[[B]], %{{.*}}, %[[HV]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[O]][%[[B]], %[[I]], %[[H]], %{{.*}}]
func.func @head_windows(%p: memref<2x5x12x8xf32>, %o: memref<2x5x4x8xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<loop, grid = 1, block = 1>} {
  fuse.attention %p, %p, %p into %o {head_offsets = array<i64: 0, 4, 8>, key_value_heads = 4 : i64, scale = 0.353553 : f32} : memref<2x5x12x8xf32>, memref<2x5x12x8xf32>, memref<2x5x12x8xf32> into memref<2x5x4x8xf32>
  return
}
