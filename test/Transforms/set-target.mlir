// RUN: fuse-opt %s -split-input-file --fuse-set-target | FileCheck %s --check-prefix=SM90
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_89 | FileCheck %s --check-prefix=SM89
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_75 | FileCheck %s --check-prefix=SM75
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_61 | FileCheck %s --check-prefix=SM61
// RUN: fuse-opt %s -split-input-file --fuse-set-target=gpu-arch=sm_120 | FileCheck %s --check-prefix=SM120
// RUN: fuse-opt %s -split-input-file --fuse-set-target="gpu-arch=sm_80 gpu-sms=7" | FileCheck %s --check-prefix=SMS7
// RUN: not fuse-opt %s --fuse-set-target=gpu-arch=sm_4 2>&1 | FileCheck %s --check-prefix=BADARCH
// RUN: not fuse-opt %s --fuse-set-target=gpu-sms=5000 2>&1 | FileCheck %s --check-prefix=BADSMS

// The GPU's architecture and its SM count, the architecture's usual part's
// unless gpu-sms gives one; an existing target is replaced.

// SM90: module attributes {fuse.target = #fuse.target<arch = "sm_90", sms = 132>}
// SM80: module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 108>}
// SM86: module attributes {fuse.target = #fuse.target<arch = "sm_86", sms = 84>}
// SM89: module attributes {fuse.target = #fuse.target<arch = "sm_89", sms = 58>}
// SM90A: module attributes {fuse.target = #fuse.target<arch = "sm_90a", sms = 132>}
// SM75: module attributes {fuse.target = #fuse.target<arch = "sm_75", sms = 40>}
// SM61: module attributes {fuse.target = #fuse.target<arch = "sm_61", sms = 80>}
// SM120: module attributes {fuse.target = #fuse.target<arch = "sm_120", sms = 148>}
// SMS7: module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 7>}
// BADARCH: error: fuse-set-target: gpu-arch must be an NVIDIA architecture from sm_50 on, not 'sm_4'
// BADSMS: error: fuse-set-target: gpu-sms must be from 1 to 4096 (0: the architecture's), not 5000
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// SM80: module attributes {fuse.target = #fuse.target<arch = "sm_80", sms = 108>, onnx.opset = 17 : i64}
module attributes {fuse.target = #fuse.target<arch = "sm_90", sms = 132>, onnx.opset = 17 : i64} {
}
