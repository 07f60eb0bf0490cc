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
#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"

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
  // ptxas comes from the CUDA path (the NVVM target would report a missing
  // one as an error and go on with a ptxas from PATH); PTX needs no toolkit.
  if (withCubin && !llvm::sys::fs::is_directory(cudaPath))
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
    // The NVVM target reports what it could not find (libdevice, the CUDA
    // path) as errors and goes on: held here, they are errors only when it
    // fails, and warnings otherwise.
    std::vector<Diagnostic> held;
    bool ptxasFailed = false;
    std::optional<SmallVector<char, 0>> bytes;
    {
      ScopedDiagnosticHandler handler(
          module.getContext(), [&](Diagnostic &diagnostic) {
            ptxasFailed |= StringRef(diagnostic.str())
                               .contains("`ptxas` invocation failed");
            held.push_back(std::move(diagnostic));
            return success();
          });
      bytes = target.serializeToObject(gpuModule, options);
    }
    if (bytes) {
      for (Diagnostic &diagnostic : held)
        emitWarning(diagnostic.getLocation()) << diagnostic.str();
      out->assign(bytes->begin(), bytes->end());
      continue;
    }
    for (Diagnostic &diagnostic : held)
      module.getContext()->getDiagEngine().emit(std::move(diagnostic));
    if (format == gpu::CompilationTarget::Assembly)
      return emitError(gpuModule.getLoc())
             << "cannot compile the kernels to PTX (CUDA path " << cudaPath
             << ")";
    if (ptxasFailed)
      return emitError(gpuModule.getLoc())
             << "ptxas could not compile the kernels (its messages are "
                "above)";
    return emitError(gpuModule.getLoc())
           << "cannot compile the kernels to a cubin with the CUDA toolkit "
              "in "
           << cudaPath;
  }
  return image;
}
