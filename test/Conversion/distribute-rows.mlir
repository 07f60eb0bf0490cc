// RUN: fuse-opt %s -split-input-file -fuse-distribute-rows -canonicalize -cse | FileCheck %s

// A Softmax row on a warp (row_threads = 32): the lane is the thread id
// mod 32. The two row reductions write the lane's own stack buffers: each
// lane folds elements lane, lane + 32, ... (4 rounds, the same in every
// lane) into a partial that starts at the combiner's identity (-inf for
// max), the partials meet in a butterfly of shuffles, and every lane folds
// the result into its buffer. The output loop is split the same way; no
// barrier is needed (nothing is read back). The rows of %x are 130
// elements apart, so a chunk of 4 f32 could straddle a 16-byte boundary:
// the ops go element by element (see @chunks for 16-byte chunks).
// CHECK-LABEL: func.func @softmax_rows
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.forall
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK: linalg.fill ins(%[[NEG_INF]] : f32) outs(%[[MAX:.*]] : memref<1x1xf32>)
// CHECK: memref.store %[[NEG_INF]], %[[PARTIAL:.*]][%c0, %c0] : memref<1x1xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[K]], %c32 : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[LANE]], %[[OFF]] : index
// CHECK-NEXT: memref.load %{{.*}}[%c0, %[[I]]]
// CHECK: arith.maximumf
// CHECK: %[[MINE:.*]] = memref.load %[[PARTIAL]]
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[MINE]], %c16_i32, %c32_i32 : f32
// CHECK: %[[M16:.*]] = arith.maximumf %[[MINE]], %[[S16]] : f32
// CHECK: gpu.shuffle xor %[[M16]], %c8_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: %[[ROW:.*]] = arith.maximumf
// CHECK: %[[OLD:.*]] = memref.load %[[MAX]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[ROW]] : f32
// CHECK: memref.store %[[NEW]], %[[MAX]]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: gpu.shuffle xor
// CHECK: scf.for %[[K2:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[J:.*]] = arith.addi %[[LANE]], %{{.*}} : index
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0, %[[J]]]
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK-NOT: linalg.generic
#row = affine_map<(d0, d1) -> (d0, d1)>
#stat = affine_map<(d0, d1) -> (d0, 0)>
func.func @softmax_rows(%x: memref<4x128xf32, strided<[130, 1]>>, %out: memref<4x128xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 128, row_threads = 32>} {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %row = memref.subview %x[%i, 0] [1, 128] [1, 1] : memref<4x128xf32, strided<[130, 1]>> to memref<1x128xf32, strided<[130, 1], offset: ?>>
    %max = memref.alloca() : memref<1x1xf32>
    linalg.fill ins(%lowest : f32) outs(%max : memref<1x1xf32>)
    linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x128xf32, strided<[130, 1], offset: ?>>) outs(%max : memref<1x1xf32>) {
    ^bb0(%a: f32, %m: f32):
      %r = arith.maximumf %m, %a : f32
      linalg.yield %r : f32
    }
    %sum = memref.alloca() : memref<1x1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1x1xf32>)
    linalg.generic {indexing_maps = [#row, #stat, #stat], iterator_types = ["parallel", "reduction"]} ins(%row, %max : memref<1x128xf32, strided<[130, 1], offset: ?>>, memref<1x1xf32>) outs(%sum : memref<1x1xf32>) {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.addf %s, %e : f32
      linalg.yield %r : f32
    }
    %o = memref.subview %out[%i, 0] [1, 128] [1, 1] : memref<4x128xf32> to memref<1x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [#row, #stat, #stat, #row], iterator_types = ["parallel", "parallel"]} ins(%row, %max, %sum : memref<1x128xf32, strided<[130, 1], offset: ?>>, memref<1x1xf32>, memref<1x1xf32>) outs(%o : memref<1x128xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%a: f32, %m: f32, %s: f32, %y: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %s : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A reduction into global memory on a block-wide row (64 threads, two
// warps): the fill (one element) runs in lane 0; the sum's partials meet
// in each warp and then in shared memory between two barriers, and lane 0
// folds the row's sum into the output. A reduction whose combiner is not
// one the GPU reductions know (subf) runs in lane 0. The lanes synchronize
// after every op that writes global memory but the last.
// CHECK: memref.global "private" @__fuse_row_partials : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @reduce_to_global
// CHECK: %[[TID:.*]] = gpu.thread_id x
// One element over 64 lanes: one round (the loop folds away), guarded.
// CHECK: %[[ONE:.*]] = arith.cmpi ult, %[[TID]], %c1 : index
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK-NEXT: memref.store %cst
// CHECK: gpu.barrier
// 49 elements over 64 lanes: likewise.
// CHECK: arith.cmpi ult, %[[TID]], %c49 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: %[[PARTIALS:.*]] = memref.get_global @__fuse_row_partials : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[PARTIALS]][%[[WARP]]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[PARTIALS]][%c0]
// CHECK: memref.load %[[PARTIALS]][%c1]
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: linalg.generic
// CHECK: arith.subf
// CHECK-NOT: gpu.barrier


#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
func.func @reduce_to_global(%x: memref<8x7x7xf32>, %out: memref<8x1x1xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 8, block = 64, row_threads = 64>} {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (8) {
    %row = memref.subview %x[%i, 0, 0] [1, 7, 7] [1, 1, 1] : memref<8x7x7xf32> to memref<1x7x7xf32, strided<[49, 7, 1], offset: ?>>
    %o = memref.subview %out[%i, 0, 0] [1, 1, 1] [1, 1, 1] : memref<8x1x1xf32> to memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%o : memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "reduction"]} ins(%row : memref<1x7x7xf32, strided<[49, 7, 1], offset: ?>>) outs(%o : memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>) {
    ^bb0(%a: f32, %s: f32):
      %r = arith.addf %s, %a : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "reduction"]} ins(%row : memref<1x7x7xf32, strided<[49, 7, 1], offset: ?>>) outs(%o : memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>) {
    ^bb0(%a: f32, %s: f32):
      %r = arith.subf %s, %a : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Rows of 8 lanes (a GlobalAveragePool over 7x7 = 49 elements): lane l
// sums elements l, l + 8, ... (7 rounds, the last one guarded), the
// butterfly starts at offset 4 so that it stays within the row's aligned
// group of lanes, and lane 0 writes the row's result to global memory.
// CHECK-LABEL: func.func @lane_rows
// The lanes of a row synchronize with a warp barrier, not a block one.
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c8 : index
// CHECK: nvvm.bar.warp.sync %c-1_i32
// CHECK: scf.for %{{.*}} = %c0 to %c7 step %c1 {
// CHECK: arith.cmpi ult, %{{.*}}, %c49 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NOT: %c16_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.barrier
#lin = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#lout = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
func.func @lane_rows(%x: memref<8x7x7xf32>, %out: memref<8x1x1xf32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 64, row_threads = 8>} {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (8) {
    %row = memref.subview %x[%i, 0, 0] [1, 7, 7] [1, 1, 1] : memref<8x7x7xf32> to memref<1x7x7xf32, strided<[49, 7, 1], offset: ?>>
    %o = memref.subview %out[%i, 0, 0] [1, 1, 1] [1, 1, 1] : memref<8x1x1xf32> to memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%o : memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#lin, #lout], iterator_types = ["parallel", "reduction", "reduction"]} ins(%row : memref<1x7x7xf32, strided<[49, 7, 1], offset: ?>>) outs(%o : memref<1x1x1xf32, strided<[1, 1, 1], offset: ?>>) {
    ^bb0(%a: f32, %s: f32):
      %r = arith.addf %s, %a : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A LayerNorm-like f16 row of 512 on a warp, by 16-byte chunks: lane l
// takes chunks l and l + 32 of 8 elements (two rounds). The sum folds
// each chunk's 8 elements, loaded with one aligned vector.load, into the
// lane's partial; the output op loads the chunks of x and of gamma (a 1-D
// kernel argument, indexed by the innermost loop only), reads the sum once
// a chunk, runs its body 8 times and stores the chunk with one aligned
// vector.store.
// CHECK-LABEL: func.func @chunks
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK: scf.for %[[K:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[K]], %c32 : index
// CHECK-NEXT: %[[CHUNK:.*]] = arith.addi %[[LANE]], %[[OFF]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[CHUNK]], %c8 : index
// CHECK-NEXT: %[[X:.*]] = vector.load %[[ROW:.*]][%c0, %[[FIRST]]] {alignment = 16 : i64} : memref<1x512xf16, strided<[512, 1], offset: ?>>, vector<8xf16>
// CHECK-COUNT-8: arith.addf
// CHECK-NOT: arith.addf
// CHECK: memref.store
// CHECK: gpu.shuffle xor
// CHECK: scf.for %[[K2:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[FIRST2:.*]] = arith.muli %{{.*}}, %c8 : index
// CHECK-DAG: vector.load %[[ROW]][%c0, %[[FIRST2]]] {alignment = 16 : i64}
// CHECK-DAG: vector.load %{{.*}}[%[[FIRST2]]] {alignment = 16 : i64} : memref<512xf16>, vector<8xf16>
// CHECK-DAG: %[[SUM:.*]] = memref.load %{{.*}}[%c0, %c0] : memref<1x1xf32>
// CHECK-COUNT-8: arith.divf %{{.*}}, %[[SUM]] : f32
// CHECK: %[[OUT:.*]] = vector.from_elements
// CHECK-NEXT: vector.store %[[OUT]], %{{.*}}[%c0, %[[FIRST2]]] {alignment = 16 : i64} : memref<1x512xf16, strided<[512, 1], offset: ?>>, vector<8xf16>
// CHECK-NOT: linalg.generic
#crow = affine_map<(d0, d1) -> (d0, d1)>
#cstat = affine_map<(d0, d1) -> (d0, 0)>
#cgamma = affine_map<(d0, d1) -> (d1)>
func.func @chunks(%x: memref<2x512xf16>, %gamma: memref<512xf16>, %out: memref<2x512xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 64, row_threads = 32>} {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (2) {
    %row = memref.subview %x[%i, 0] [1, 512] [1, 1] : memref<2x512xf16> to memref<1x512xf16, strided<[512, 1], offset: ?>>
    %sum = memref.alloca() : memref<1x1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1x1xf32>)
    linalg.generic {indexing_maps = [#crow, #cstat], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x512xf16, strided<[512, 1], offset: ?>>) outs(%sum : memref<1x1xf32>) {
    ^bb0(%a: f16, %s: f32):
      %e = arith.extf %a : f16 to f32
      %r = arith.addf %s, %e : f32
      linalg.yield %r : f32
    }
    %o = memref.subview %out[%i, 0] [1, 512] [1, 1] : memref<2x512xf16> to memref<1x512xf16, strided<[512, 1], offset: ?>>
    linalg.generic {indexing_maps = [#crow, #cgamma, #cstat, #crow], iterator_types = ["parallel", "parallel"]} ins(%row, %gamma, %sum : memref<1x512xf16, strided<[512, 1], offset: ?>>, memref<512xf16>, memref<1x1xf32>) outs(%o : memref<1x512xf16, strided<[512, 1], offset: ?>>) {
    ^bb0(%a: f16, %g: f16, %s: f32, %y: f16):
      %e = arith.extf %a : f16 to f32
      %f = arith.extf %g : f16 to f32
      %p = arith.mulf %e, %f : f32
      %d = arith.divf %p, %s : f32
      %t = arith.truncf %d : f32 to f16
      linalg.yield %t : f16
    }
  }
  return
}

// -----

// Chunks that do not fill the rounds: 520 f16 are 65 chunks of 8, three
// rounds of 32 lanes, the chunks past 65 skipped. An op whose row starts 2
// elements into its buffer (4 bytes, not 16) goes element by element.
// CHECK-LABEL: func.func @chunk_guard
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c65 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK: vector.store {{.*}} vector<8xf16>
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.for %{{.*}} = %c0 to %c17 step %c1 {
// CHECK-NOT: vector.load
// CHECK: memref.load
// CHECK-NOT: vector.store
// CHECK: memref.store
#grow = affine_map<(d0, d1) -> (d0, d1)>
func.func @chunk_guard(%x: memref<2x520xf16>, %out: memref<2x520xf16>, %y: memref<2x528xf16>, %out2: memref<2x528xf16>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 64, row_threads = 32>} {
  scf.forall (%i) in (2) {
    %row = memref.subview %x[%i, 0] [1, 520] [1, 1] : memref<2x520xf16> to memref<1x520xf16, strided<[520, 1], offset: ?>>
    %o = memref.subview %out[%i, 0] [1, 520] [1, 1] : memref<2x520xf16> to memref<1x520xf16, strided<[520, 1], offset: ?>>
    linalg.generic {indexing_maps = [#grow, #grow], iterator_types = ["parallel", "parallel"]} ins(%row : memref<1x520xf16, strided<[520, 1], offset: ?>>) outs(%o : memref<1x520xf16, strided<[520, 1], offset: ?>>) {
    ^bb0(%a: f16, %b: f16):
      %r = arith.negf %a : f16
      linalg.yield %r : f16
    }
    %row2 = memref.subview %y[%i, 2] [1, 520] [1, 1] : memref<2x528xf16> to memref<1x520xf16, strided<[528, 1], offset: ?>>
    %o2 = memref.subview %out2[%i, 0] [1, 520] [1, 1] : memref<2x528xf16> to memref<1x520xf16, strided<[528, 1], offset: ?>>
    linalg.generic {indexing_maps = [#grow, #grow], iterator_types = ["parallel", "parallel"]} ins(%row2 : memref<1x520xf16, strided<[528, 1], offset: ?>>) outs(%o2 : memref<1x520xf16, strided<[528, 1], offset: ?>>) {
    ^bb0(%a: f16, %b: f16):
      %r = arith.negf %a : f16
      linalg.yield %r : f16
    }
  }
  return
}

// -----

// One row and no loop (a reduction to one value, like an index check's
// max): the kernel's own body is split over the block's 512 threads, lane
// 0 writes the result, and the kernel is marked fuse.one_row so that
// map-kernels-to-gpu runs it in every thread.
// CHECK-LABEL: func.func @one_row
// CHECK-SAME: fuse.one_row
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<f32>)
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: gpu.shuffle xor
// CHECK: memref.get_global @__fuse_row_partials
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK-NOT: linalg.generic
#all = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @one_row(%x: memref<32x128xf32>, %out: memref<f32>) attributes {fuse.kernel, fuse.strategy = #fuse.kernel<rows, grid = 1, block = 512, row_threads = 512>} {
  %lowest = arith.constant 0xFF800000 : f32
  linalg.fill ins(%lowest : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction"]} ins(%x : memref<32x128xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %m, %a : f32
    linalg.yield %r : f32
  }
  return
}
