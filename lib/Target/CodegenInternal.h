//===- CodegenInternal.h - Kernel code generation ----------------*- C++
//-*-===//
//
// Private to the Target library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_TARGET_CODEGENINTERNAL_H
#define FUSE_LIB_TARGET_CODEGENINTERNAL_H

#include "fuse/Target/Plan.h"

#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace fuse {
namespace codegen {

/// An ELF shared object holding the kernels of `module` (LLVM dialect,
/// with `<kernel>_packed` entry points).
/// `cpu` is an x86-64 microarchitecture level (resolveCpuLevel).
mlir::FailureOr<std::vector<char>> compileCpuKernels(mlir::ModuleOp module,
                                                     llvm::StringRef cpu);

struct CudaImage {
  std::vector<char> cubin;
  std::vector<char> ptx;
};

/// The PTX of `gpu.module @fuse_kernels` in `module` (NVVM, with a target
/// attached) and, with `withCubin`, its cubin (assembled by ptxas). With a
/// cubin and without `withPtx`, no PTX (each is a code generation of its
/// own).
mlir::FailureOr<CudaImage> compileCudaKernels(mlir::ModuleOp module,
                                              llvm::StringRef cudaPath,
                                              bool withCubin,
                                              bool withPtx = true);

} // namespace codegen
} // namespace fuse

#endif // FUSE_LIB_TARGET_CODEGENINTERNAL_H
