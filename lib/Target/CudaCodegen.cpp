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
    if (!bytes)
      return emitError(gpuModule.getLoc())
             << "cannot compile the kernels to "
             << (format == gpu::CompilationTarget::Binary ? "a cubin (is "
                                                            "ptxas in "
                                                          : "PTX (CUDA path ")
             << cudaPath
             << (format == gpu::CompilationTarget::Binary ? "/bin?)" : ")");
    out->assign(bytes->begin(), bytes->end());
  }
  return image;
}
