//===- CpuBackend.cpp - Run a plan's kernels on the host ------------------===//
//
// The kernel image is an ELF shared object; it is loaded from memory
// (memfd_create, then dlopen of /proc/self/fd/N) so that no file is left
// behind, with a mkstemp file as the fallback where memfd_create is missing.
// Each kernel is `void <name>_packed(void **args)`, args[i] being the i-th
// buffer's address. The weights are one mapping, which the sessions of a
// model share, the plans' arenas another, one per session.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "Error.h"
#include "OutputFile.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <optional>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

namespace fuse {
namespace runtime {

namespace {

using ull = unsigned long long;

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = 62; // EM_X86_64
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = 183; // EM_AARCH64
#else
constexpr uint16_t kHostMachine = 0; // Unknown: let dlopen decide.
#endif

uint16_t le16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }
uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

/// Checks the ELF header and that every segment lies in the image, so that
/// a wrong or truncated image is a clear error: the dynamic loader maps
/// segments past the end of a truncated file and dies of SIGBUS on them.
fuse_status checkElf(const Blob &image, const std::string &arch) {
  const uint8_t *p = image.data;
  const uint64_t size = image.size;
  if (size < 64 || std::memcmp(p,
                               "\x7f"
                               "ELF",
                               4) != 0)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the cpu KernelImage is not an ELF file");
  uint16_t type = le16(p + 16);
  uint16_t machine = le16(p + 18);
  if (p[4] != 2 || p[5] != 1 || type != 3)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the cpu KernelImage is not a 64-bit little-endian "
                "ELF shared object");
  if (kHostMachine != 0 && machine != kHostMachine)
    return fail(FUSE_ERROR_TARGET,
                "this artifact's kernels are for '%s' (ELF machine %u), "
                "which this host (ELF machine %u) cannot run",
                arch.c_str(), machine, kHostMachine);
  uint64_t phoff = le64(p + 32);
  uint16_t phentsize = le16(p + 54), phnum = le16(p + 56);
  if (phentsize < 56 || phoff > size ||
      uint64_t(phnum) * phentsize > size - phoff)
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the cpu KernelImage is truncated or corrupted "
                "(its program headers are out of bounds)");
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint8_t *ph = p + phoff + uint64_t(i) * phentsize;
    uint64_t offset = le64(ph + 8), fileSize = le64(ph + 32);
    if (offset > size || fileSize > size - offset)
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: the cpu KernelImage is truncated or corrupted "
                  "(segment %u needs bytes [%llu, %llu), the image has "
                  "%llu)",
                  i, ull(offset), ull(offset + fileSize), ull(size));
  }
  return FUSE_OK;
}

/// Whether this machine has the x86-64 level `arch` the kernels were
/// compiled for (fuse-compile --cpu); nullopt for an unknown level.
/// Features are checked one by one: not every compiler knows the levels'
/// names.
std::optional<bool> hostHasLevel(const std::string &arch) {
  if (arch == "x86-64")
    return true;
  if (arch != "x86-64-v2" && arch != "x86-64-v3" && arch != "x86-64-v4")
    return std::nullopt;
#if defined(__x86_64__)
  bool v2 = __builtin_cpu_supports("sse4.2") &&
            __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3");
  bool v3 = v2 && __builtin_cpu_supports("avx2") &&
            __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  bool v4 = v3 && __builtin_cpu_supports("avx512f") &&
            __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512cd");
  if (arch == "x86-64-v2")
    return v2;
  if (arch == "x86-64-v3")
    return v3;
  return v4;
#else
  return false;
#endif
}

/// A kernel's packed entry point: one pointer per argument.
using KernelFn = void (*)(void **);

/// What the sessions of one loaded artifact share: the kernel image and the
/// weights.
struct CpuShared {
  ~CpuShared() {
    if (library)
      dlclose(library);
    // Closed only now: while it is open, no other image gets the same
    // /proc/self/fd/N name, which dlopen would take for this library.
    if (imageFd >= 0)
      close(imageFd);
    if (weights)
      munmap(weights, weightBytes);
  }

  void *library = nullptr;
  int imageFd = -1;
  std::vector<KernelFn> kernels;
  /// [0, Artifact::arenasOffset) of the model's offsets.
  uint8_t *weights = nullptr;
  size_t weightBytes = 0;
};

/// An anonymous private mapping of `bytes` (at least one page).
fuse_status mapMemory(uint64_t bytes, const char *what, const Artifact &a,
                      uint8_t *&memory, size_t &mapped) {
  mapped = bytes ? bytes : 1;
  void *address = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED)
    return fail(FUSE_ERROR_DEVICE,
                "cpu: cannot allocate %llu bytes for the %s (%s): %s",
                ull(bytes), what, describeMemory(a).c_str(),
                std::strerror(errno));
  memory = static_cast<uint8_t *>(address);
  return FUSE_OK;
}

class CpuBackend : public Backend {
public:
  ~CpuBackend() override {
    if (arenas)
      munmap(arenas, arenaMapped);
  }

  fuse_status load(const Artifact &a, int device) override {
    if (device != 0)
      return fail(FUSE_ERROR_ARGUMENT,
                  "cpu: the model runs on the host: device %d was asked "
                  "for, the cpu target takes device 0 only",
                  device);
    shared = std::make_shared<CpuShared>();
    if (!a.kernels.empty()) {
      // Every image, the lowest first: one for another machine (an aarch64
      // ELF) is that, whatever its level says, and a corrupt higher image
      // is an error on every host, not only on those that would load it.
      for (const CpuImage &image : a.cpuImages) {
        const char *name = artifact::cpuLevelName(image.level);
        if (fuse_status s = checkElf(image.image, name ? name : a.arch))
          return s;
      }
      std::optional<CpuImage> image;
      if (fuse_status s = pickImage(a, image))
        return s;
      if (fuse_status s = openImage(image->image))
        return s;
    }
    for (size_t i = 0; i < a.kernels.size(); ++i) {
      std::string symbol = a.kernels[i].name + "_packed";
      void *address = dlsym(shared->library, symbol.c_str());
      if (!address)
        return fail(FUSE_ERROR_DEVICE,
                    "cpu: kernel %zu '%s': the kernel image has no symbol "
                    "'%s'",
                    i, a.kernels[i].name.c_str(), symbol.c_str());
      shared->kernels.push_back(reinterpret_cast<KernelFn>(address));
    }
    if (fuse_status s = mapMemory(a.arenasOffset, "weights", a, shared->weights,
                                  shared->weightBytes))
      return s;
    if (a.weights.size)
      std::memcpy(shared->weights, a.weights.data, a.weights.size);
    return prepare(a);
  }

  fuse_status newSession(const Artifact &a,
                         std::unique_ptr<Backend> &session) const override {
    std::unique_ptr<CpuBackend> backend(new CpuBackend());
    backend->shared = shared;
    backend->loadedLevel = loadedLevel;
    backend->driverName = driverName;
    if (fuse_status s = backend->prepare(a))
      return s;
    session = std::move(backend);
    return FUSE_OK;
  }

  fuse_status copyIn(uint64_t offset, const void *data,
                     uint64_t bytes) override {
    if (bytes) // An empty tensor's data may be NULL.
      std::memcpy(address(offset), data, bytes);
    return FUSE_OK;
  }

  fuse_status copyOut(uint64_t offset, void *data, uint64_t bytes) override {
    if (bytes)
      std::memcpy(data, address(offset), bytes);
    return FUSE_OK;
  }

  fuse_status run(size_t plan, void *stream, const std::vector<Binding> &inputs,
                  const std::vector<Binding> &outputs, bool) override {
    if (stream)
      return fail(FUSE_ERROR_ARGUMENT,
                  "cpu: a run on the cpu target takes no stream (NULL)");
    for (const Binding &input : inputs)
      copyIn(input.offset, input.data, input.bytes);
    runLaunches(plan);
    for (const Binding &output : outputs)
      copyOut(output.offset, output.data, output.bytes);
    return FUSE_OK;
  }

  /// Nothing is prepared per selection: run() reads Plan::runs each time.
  fuse_status selectionChanged(size_t) override { return FUSE_OK; }

  fuse_status profile(size_t plan, int warmup, int iterations,
                      double *timesMs, double *overheadMs) override {
    if (overheadMs)
      *overheadMs = 0;
    for (int i = 0; i < warmup; ++i)
      runLaunches(plan);
    std::vector<CpuLaunch> &launches = plans[plan];
    const std::vector<uint8_t> &runs = artifact->plans[plan].runs;
    for (int i = 0; i < iterations; ++i)
      for (size_t l = 0; l < launches.size(); ++l) {
        if (!runs[l]) {
          timesMs[size_t(i) * launches.size() + l] = 0;
          continue;
        }
        auto start = std::chrono::steady_clock::now();
        launches[l].kernel(launches[l].args.data());
        auto end = std::chrono::steady_clock::now();
        timesMs[size_t(i) * launches.size() + l] =
            std::chrono::duration<double, std::milli>(end - start).count();
      }
    return FUSE_OK;
  }

  /// The copy bandwidth of a 256 MiB memcpy (median of 5); there is no
  /// matrix library on the CPU to measure a FLOP rate with.
  fuse_status measureLimits(double *copyGBps, double *fp32GFlops) override {
    const size_t bytes = size_t(256) << 20;
    std::vector<uint8_t> from(bytes, 1), to(bytes, 0);
    std::vector<double> seconds;
    for (int i = 0; i < 5; ++i) {
      auto start = std::chrono::steady_clock::now();
      std::memcpy(to.data(), from.data(), bytes);
      auto end = std::chrono::steady_clock::now();
      seconds.push_back(std::chrono::duration<double>(end - start).count());
      // Keep the copy from being optimized away.
      from[i] = to[bytes - 1 - i];
    }
    std::sort(seconds.begin(), seconds.end());
    *copyGBps = 2.0 * double(bytes) / seconds[2] / 1e9;
    *fp32GFlops = 0;
    return FUSE_OK;
  }

  const char *deviceName() const override { return "cpu"; }
  const char *kernelArch() const override { return loadedLevel.c_str(); }
  /// With the level loaded, so that timing caches keep each level's
  /// kernels apart.
  const char *driver() const override { return driverName.c_str(); }

  fuse_status benchmark(size_t plan, int warmup, int iterations,
                        double *timesMs) override {
    for (int i = 0; i < warmup; ++i)
      runLaunches(plan);
    for (int i = 0; i < iterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      runLaunches(plan);
      auto end = std::chrono::steady_clock::now();
      timesMs[i] =
          std::chrono::duration<double, std::milli>(end - start).count();
    }
    return FUSE_OK;
  }

private:
  /// The image of the highest level this host has, at most
  /// $FUSE_CPU_LEVEL's (a level name: to run a lower level's kernels, for
  /// tests and comparisons); its level goes to `loadedLevel`.
  fuse_status pickImage(const Artifact &a, std::optional<CpuImage> &picked) {
    uint32_t cap = 4;
    if (const char *env = std::getenv("FUSE_CPU_LEVEL"); env && *env) {
      cap = artifact::cpuLevelNumber(env);
      if (cap == 0)
        return fail(FUSE_ERROR_ARGUMENT,
                    "FUSE_CPU_LEVEL is '%s', not an x86-64 level (x86-64, "
                    "x86-64-v2, x86-64-v3 or x86-64-v4)",
                    env);
    }
    for (auto it = a.cpuImages.rbegin(); it != a.cpuImages.rend(); ++it) {
      const char *name = artifact::cpuLevelName(it->level);
      std::optional<bool> hasLevel = name ? hostHasLevel(name) : std::nullopt;
      if (!hasLevel)
        return fail(FUSE_ERROR_FORMAT,
                    "artifact: unknown cpu level '%s' (expected x86-64, "
                    "x86-64-v2, x86-64-v3 or x86-64-v4)",
                    a.arch.c_str());
      if (*hasLevel && it->level <= cap) {
        picked = *it;
        loadedLevel = name;
        driverName = std::string("cpu ") + name;
        return FUSE_OK;
      }
    }
    if (cap < a.cpuImages.front().level)
      return fail(FUSE_ERROR_TARGET,
                  "FUSE_CPU_LEVEL is %s, but this artifact's lowest kernels "
                  "need %s",
                  artifact::cpuLevelName(cap), a.arch.c_str());
    return fail(FUSE_ERROR_TARGET,
                "this artifact's kernels need an %s processor (compiled "
                "with fuse-compile --cpu=%s), which this host is not; "
                "compile with a lower --cpu",
                a.arch.c_str(), a.arch.c_str());
  }

  std::string loadedLevel;
  std::string driverName = "cpu";
  struct CpuLaunch {
    KernelFn kernel;
    std::vector<void *> args;
  };

  /// Writes the image to an in-memory file (or a temporary one) and
  /// dlopens it.
  fuse_status openImage(const Blob &image) {
    std::string path;
    shared->imageFd = memfd_create("fuse-kernels", MFD_CLOEXEC);
    bool temporary = shared->imageFd < 0;
    if (!temporary) {
      path = format("/proc/self/fd/%d", shared->imageFd);
    } else {
      const char *dir = std::getenv("TMPDIR");
      path = std::string(dir && *dir ? dir : "/tmp") + "/fuse-kernels-XXXXXX";
      shared->imageFd = mkstemp(&path[0]);
      if (shared->imageFd < 0)
        return fail(FUSE_ERROR_DEVICE,
                    "cpu: cannot create a file for the kernel image (%s): %s",
                    path.c_str(), std::strerror(errno));
    }
    bool written = tools::writeAll(shared->imageFd, image.data, image.size);
    int writeErrno = errno;
    if (written)
      shared->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char *dlError = shared->library ? nullptr : dlerror();
    if (temporary)
      unlink(path.c_str());
    if (!written)
      return fail(FUSE_ERROR_DEVICE, "cpu: cannot write the kernel image: %s",
                  std::strerror(writeErrno));
    if (!shared->library)
      return fail(FUSE_ERROR_DEVICE, "cpu: cannot load the kernel image: %s",
                  dlError ? dlError : "dlopen failed");
    return FUSE_OK;
  }

  /// Maps the arenas and binds each launch's arguments.
  fuse_status prepare(const Artifact &a) {
    artifact = &a;
    if (fuse_status s = mapMemory(a.memoryBytes - a.arenasOffset, "arenas", a,
                                  arenas, arenaMapped))
      return s;
    // The reader rejects library launches in a cpu artifact.
    for (const Plan &plan : a.plans) {
      std::vector<CpuLaunch> launches;
      for (const Launch &launch : plan.launches) {
        CpuLaunch l{shared->kernels[launch.kernel], {}};
        for (uint32_t arg : launch.args)
          l.args.push_back(address(bufferOffset(plan, plan.buffers[arg])));
        launches.push_back(std::move(l));
      }
      plans.push_back(std::move(launches));
    }
    return FUSE_OK;
  }

  /// The host address of an offset in the model's allocation.
  uint8_t *address(uint64_t offset) const {
    uint64_t arenasOffset = artifact->arenasOffset;
    return offset < arenasOffset ? shared->weights + offset
                                 : arenas + (offset - arenasOffset);
  }

  void runLaunches(size_t plan) {
    const std::vector<uint8_t> &runs = artifact->plans[plan].runs;
    std::vector<CpuLaunch> &launches = plans[plan];
    for (size_t l = 0; l < launches.size(); ++l)
      if (runs[l])
        launches[l].kernel(launches[l].args.data());
  }

  std::shared_ptr<CpuShared> shared;
  uint8_t *arenas = nullptr;
  size_t arenaMapped = 0;
  std::vector<std::vector<CpuLaunch>> plans;
  /// For Plan::runs, which the C API changes.
  const Artifact *artifact = nullptr;
};

} // namespace

std::unique_ptr<Backend> createCpuBackend() {
  return std::unique_ptr<Backend>(new CpuBackend());
}

} // namespace runtime
} // namespace fuse
