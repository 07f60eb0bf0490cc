//===- HoistStaticAllocas.cpp - Stack buffers out of loops ----------------===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace fuse {
#define GEN_PASS_DEF_HOISTSTATICALLOCAS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {
struct HoistStaticAllocasPass
    : public fuse::impl::HoistStaticAllocasBase<HoistStaticAllocasPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<memref::AllocaOp> allocas;
    func.walk([&](memref::AllocaOp alloca) {
      if (alloca->getBlock() != &entry && alloca->getNumOperands() == 0 &&
          alloca.getType().hasStaticShape())
        allocas.push_back(alloca);
    });
    for (memref::AllocaOp alloca : allocas)
      alloca->moveBefore(&entry, entry.begin());
  }
};
} // namespace
