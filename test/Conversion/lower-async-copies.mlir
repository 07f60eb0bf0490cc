// RUN: fuse-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fuse-lower-async-copies))' | FileCheck %s

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
