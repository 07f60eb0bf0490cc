//===- CudaCodegen.cpp - gpu.module to cubin and PTX ----------------------===//
//
// Serializes `gpu.module @fuse_kernels` twice through its NVVM target: PTX
// (kept so the driver can JIT for other architectures) and a cubin for the
// chosen one (ptxas from the CUDA toolkit).
//
//===----------------------------------------------------------------------===//

#include "CodegenInternal.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace fuse;

FailureOr<codegen::CudaImage>
fuse::codegen::compileCudaKernels(ModuleOp module, StringRef cudaPath,
                                  bool withCubin, bool withPtx) {
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fuse_kernels");
  if (!gpuModule || !gpuModule.getTargetsAttr() ||
      gpuModule.getTargetsAttr().empty())
    return emitError(module.getLoc(),
                     "no gpu.module @fuse_kernels with an NVVM target");
  // The NVVM target reports a missing CUDA path as an error and goes on
  // with a ptxas from PATH.
  if (!llvm::sys::fs::is_directory(cudaPath))
    return emitError(module.getLoc())
           << "the CUDA path '" << cudaPath
           << "' is not a directory (give the CUDA toolkit's with "
              "--cuda-path or CUDA_HOME)";
  auto target =
      dyn_cast<gpu::TargetAttrInterface>(gpuModule.getTargetsAttr()[0]);
  if (!target)
    return emitError(gpuModule.getLoc(), "the GPU target cannot serialize");
  CudaImage image;
  for (auto [format, out] :
       {std::pair{gpu::CompilationTarget::Assembly, &image.ptx},
        std::pair{gpu::CompilationTarget::Binary, &image.cubin}}) {
    if ((format == gpu::CompilationTarget::Binary && !withCubin) ||
        (format == gpu::CompilationTarget::Assembly && !withPtx && withCubin))
      continue;
    gpu::TargetOptions options(cudaPath, {}, "", "", format);
    std::optional<SmallVector<char, 0>> bytes =
        target.serializeToObject(gpuModule, options);
    if (!bytes) {
      if (format == gpu::CompilationTarget::Assembly)
        return emitError(gpuModule.getLoc())
               << "cannot compile the kernels to PTX (CUDA path " << cudaPath
               << ")";
      // The NVVM target looks for ptxas in the CUDA path, then in PATH; when
      // it found one, ptxas's own messages were printed above.
      SmallString<128> ptxas(cudaPath);
      llvm::sys::path::append(ptxas, "bin", "ptxas");
      if (llvm::sys::fs::can_execute(ptxas) ||
          llvm::sys::findProgramByName("ptxas"))
        return emitError(gpuModule.getLoc())
               << "ptxas could not compile the kernels (its messages are "
                  "above)";
      return emitError(gpuModule.getLoc())
             << "cannot compile the kernels to a cubin: no ptxas in "
             << cudaPath << "/bin or in PATH";
    }
    out->assign(bytes->begin(), bytes->end());
  }
  return image;
}
