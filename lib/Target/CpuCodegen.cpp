//===- CpuCodegen.cpp - LLVM-dialect kernels to a shared object -----------===//
//
// The kernels are translated to LLVM IR, optimized at O3 for one x86-64
// microarchitecture level (`--cpu` names one or more; the compile makes an
// image for each) and emitted as an object file, which the system linker
// (`cc -shared`) turns into the shared object the runtime dlopens.
//
//===----------------------------------------------------------------------===//

#include "CodegenInternal.h"

#include "fuse/Target/Compiler.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace fuse;

namespace {
/// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// One level's name, or "native" as the highest level of this machine.
static std::optional<std::string> resolveOneCpuLevel(StringRef name) {
  if (name == "x86-64" || name == "x86-64-v2" || name == "x86-64-v3" ||
      name == "x86-64-v4")
    return name.str();
  if (name != "native")
    return std::nullopt;
  // The levels' features, as the x86-64 psABI defines them.
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  auto has = [&](std::initializer_list<const char *> features) {
    return llvm::all_of(features,
                        [&](const char *f) { return host.lookup(f); });
  };
  if (!has({"cx16", "popcnt", "sse4.2", "ssse3", "sahf"}))
    return std::string("x86-64");
  if (!has({"avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe"}))
    return std::string("x86-64-v2");
  if (!has({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}))
    return std::string("x86-64-v3");
  return std::string("x86-64-v4");
}

std::optional<std::string> fuse::resolveCpuLevel(StringRef spec) {
  SmallVector<StringRef> names;
  spec.split(names, ',');
  SmallVector<std::string> levels;
  for (StringRef name : names) {
    std::optional<std::string> level = resolveOneCpuLevel(name.trim());
    if (!level)
      return std::nullopt;
    levels.push_back(*level);
  }
  // The names sort as the levels do: "x86-64" < "x86-64-v2" < ... .
  llvm::sort(levels);
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return llvm::join(levels, ",");
}

SmallVector<std::string> fuse::getCpuLevels(StringRef levels) {
  SmallVector<StringRef> names;
  levels.split(names, ',');
  return llvm::map_to_vector(names, [](StringRef n) { return n.str(); });
}

/// Defines __truncsfbf2 (f32 to bf16, to nearest even; NaN stays a quiet
/// NaN) in `module` when it holds bf16 values: x86-64's LLVM moves a bf16
/// value it selects or stores through f32 and calls that function to round
/// it back, and the host's C runtime (libgcc before GCC 13) may lack it.
static void defineBFloat16Truncation(llvm::Module &module) {
  const char *name = "__truncsfbf2";
  if (module.getFunction(name) && !module.getFunction(name)->isDeclaration())
    return;
  bool usesBFloat16 = false;
  for (llvm::Function &f : module)
    for (llvm::Instruction &inst : llvm::instructions(f))
      usesBFloat16 |= inst.getType()->getScalarType()->isBFloatTy();
  if (!usesBFloat16)
    return;
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                       {llvm::Type::getFloatTy(ctx)}, false);
  llvm::Function *f = llvm::cast<llvm::Function>(
      module.getOrInsertFunction(name, type).getCallee());
  f->setLinkage(llvm::GlobalValue::ExternalLinkage);
  f->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
  llvm::Value *bits = b.CreateBitCast(f->getArg(0), i32);
  llvm::Value *magnitude = b.CreateAnd(bits, 0x7fffffff);
  llvm::Value *isNaN = b.CreateICmpUGT(magnitude, b.getInt32(0x7f800000));
  llvm::Value *high = b.CreateLShr(bits, 16);
  llvm::Value *bias = b.CreateAdd(b.CreateAnd(high, 1), b.getInt32(0x7fff));
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, bias), 16);
  llvm::Value *quiet = b.CreateOr(high, 0x40);
  llvm::Value *result = b.CreateSelect(isNaN, quiet, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              llvm::Type::getBFloatTy(ctx)));
}

FailureOr<std::vector<char>> fuse::codegen::compileCpuKernels(ModuleOp module,
                                                              StringRef cpu) {
  Location loc = module.getLoc();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "fuse_kernels");
  if (!llvmModule)
    return emitError(loc, "cannot translate the kernels to LLVM IR");

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc, "no LLVM target for ")
           << triple.str() << ": " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return emitError(loc, "LLVM optimization failed: ")
           << llvm::toString(std::move(err));
  defineBFloat16Truncation(*llvmModule);

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return emitError(loc, "the host target cannot emit object files");
    pm.run(*llvmModule);
  }

  // Link: cc -shared -Wl,-z,defs kernels.o -o kernels.so -lm (tanhf and
  // friends).
  TempFile obj, so;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("fuse-kernels", "o", fd, obj.path))
    return emitError(loc, "cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  if (llvm::sys::fs::createTemporaryFile("fuse-kernels", "so", so.path))
    return emitError(loc, "cannot create a temporary file");
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return emitError(loc, "no C compiler driver (cc) to link the CPU "
                          "kernels; install gcc or clang");
  // -z defs: a symbol that neither the kernels nor libm and libc define
  // (a compiler-rt helper such as __truncsfbf2) is a link error here, not a
  // load error in fuse-run.
  llvm::SmallVector<llvm::StringRef> args{
      *cc, "-shared", "-Wl,-z,defs", "-o", so.path, obj.path, "-lm"};
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return emitError(loc, "linking the CPU kernels failed (")
           << *cc << " exited with " << rc << ") " << message;
  auto buffer = llvm::MemoryBuffer::getFile(so.path);
  if (!buffer)
    return emitError(loc, "cannot read the linked kernels");
  llvm::StringRef bytes = (*buffer)->getBuffer();
  return std::vector<char>(bytes.begin(), bytes.end());
}
