//===- CudaCodegen.cpp - gpu.module to cubin and PTX ----------------------===//
//
// Serializes `gpu.module @fuse_kernels` twice through its NVVM target: PTX
// (kept so the driver can JIT for other architectures) and a cubin for the
// chosen one (ptxas from the CUDA toolkit). The launch dimensions chosen
// when kernels were mapped to the GPU go into the kernel table.
//
//===----------------------------------------------------------------------===//

#include "CodegenInternal.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace fuse;

static void readLaunchDims(Operation *func, target::KernelDesc &kernel) {
  for (auto [name, dims] : {std::pair{"fuse.grid", &kernel.grid},
                            std::pair{"fuse.block", &kernel.block}})
    if (auto attr = func->getAttrOfType<DenseI32ArrayAttr>(name))
      for (auto [i, v] : llvm::enumerate(attr.asArrayRef()))
        if (i < 3)
          (*dims)[i] = static_cast<uint32_t>(v);
}

LogicalResult fuse::codegen::recordLaunchDims(ModuleOp module,
                                              target::KernelTable &kernels) {
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("fuse_kernels");
  if (!gpuModule)
    return emitError(module.getLoc(), "no gpu.module @fuse_kernels");
  for (Operation &op : gpuModule.getBody()->getOperations()) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol)
      continue;
    if (target::KernelDesc *kernel = kernels.lookup(symbol.getName()))
      readLaunchDims(&op, *kernel);
  }
  return success();
}

FailureOr<codegen::CudaImage>
fuse::codegen::compileCudaKernels(ModuleOp module, StringRef cudaPath,
                                  bool withCubin) {
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
    if (format == gpu::CompilationTarget::Binary && !withCubin)
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
