//===- SetTarget.cpp - The GPU the strategies are chosen for -------------===//
//
// fuse-compile's --gpu-arch and --gpu-sms as the module's `fuse.target`:
// the passes that size kernels for the GPU read it there.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Transforms/Passes.h"

namespace fuse {
#define GEN_PASS_DEF_SETTARGET
#include "fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {
class SetTargetPass : public fuse::impl::SetTargetBase<SetTargetPass> {
public:
  using SetTargetBase::SetTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned version = getChipVersion(gpuArch);
    if (version < 50) {
      module.emitError("fuse-set-target: gpu-arch must be an NVIDIA "
                       "architecture from sm_50 on, not '")
          << gpuArch << "'";
      return signalPassFailure();
    }
    if (gpuSms < 0 || gpuSms > kMaxTargetSms) {
      module.emitError("fuse-set-target: gpu-sms must be from 1 to ")
          << kMaxTargetSms << " (0: the architecture's), not "
          << static_cast<int64_t>(gpuSms);
      return signalPassFailure();
    }
    int64_t sms = gpuSms != 0 ? int64_t(gpuSms) : getDefaultSmCount(version);
    module->setAttr(kTargetAttrName,
                    TargetAttr::get(&getContext(), gpuArch, sms));
  }
};
} // namespace
