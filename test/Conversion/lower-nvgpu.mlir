// RUN: fuse-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fuse-lower-nvgpu))' | FileCheck %s

// A 16-byte copy bypassing L1, with the elements it reads as an operand:
// addresses at the gpu.module's 32-bit index width (the width
// convert-gpu-to-nvvm lowers the rest at), the shared buffer in address
// space 3, the source cast to the global space.
// CHECK-LABEL: gpu.func @copy
// CHECK: %[[DST:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<384xf32, #gpu.address_space<workgroup>> to !llvm.struct<(ptr<3>, ptr<3>, i32, array<1 x i32>, array<1 x i32>)>
// CHECK: %[[TO:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: %[[FROM:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK: nvvm.cp.async.shared.global %[[TO]], %[[FROM]], 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: nvgpu.
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
gpu.module @fuse_kernels attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>} {
  gpu.func @copy(%src: memref<256xf32>, %i: index, %j: index, %n: index) workgroup(%dst : memref<384xf32, #gpu.address_space<workgroup>>) kernel {
    %0 = nvgpu.device_async_copy %src[%i], %dst[%j], 4, %n {bypassL1} : memref<256xf32> to memref<384xf32, #gpu.address_space<workgroup>>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }
}

// -----

// Without a data layout, 64-bit indices; a 4-byte copy goes through L1.
// CHECK-LABEL: gpu.func @copy_element
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
gpu.module @fuse_kernels {
  gpu.func @copy_element(%src: memref<256xf32>, %i: index, %j: index) workgroup(%dst : memref<384xf32, #gpu.address_space<workgroup>>) kernel {
    %0 = nvgpu.device_async_copy %src[%i], %dst[%j], 1 : memref<256xf32> to memref<384xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Kernels without copies are left as they are.
// CHECK-LABEL: gpu.func @nothing
// CHECK-NEXT: gpu.return
gpu.module @fuse_kernels {
  gpu.func @nothing() kernel {
    gpu.return
  }
}

// -----

// An `attention_mma` block's ldmatrix and mma.sync (no copy in the
// module): nvvm.ldmatrix from the shared buffer, nvvm.mma.sync on f16.
// CHECK-LABEL: gpu.func @fragments
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: nvgpu.
gpu.module @fuse_kernels attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>} {
  gpu.func @fragments(%i: index, %acc: vector<2x2xf32>, %out: memref<2xvector<2x2xf32>>) workgroup(%tile : memref<1152xf16, #gpu.address_space<workgroup>>) kernel {
    %a = nvgpu.ldmatrix %tile[%i] {numTiles = 4 : i32, transpose = false} : memref<1152xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b = nvgpu.ldmatrix %tile[%i] {numTiles = 2 : i32, transpose = true} : memref<1152xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %d = nvgpu.mma.sync (%a, %b, %acc) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    memref.store %d, %out[%c0] : memref<2xvector<2x2xf32>>
    gpu.return
  }
}
