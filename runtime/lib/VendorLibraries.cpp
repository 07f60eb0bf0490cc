//===- VendorLibraries.cpp - cuBLASLt and cuDNN, loaded at run time -------===//

#include "VendorLibraries.h"
#include "Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace fuse {
namespace runtime {

namespace {

/// Where a library is looked for when $FUSE_CUDA_LIBRARY_PATH is not set,
/// after the system's search path: where the CUDA toolkit and Debian's and
/// Ubuntu's packages of cuDNN put it.
const char *const kDefaultDirectories[] = {
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/lib/x86_64-linux-gnu",
};

/// Opens `soname`; on failure `searched` says where it looked.
void *openLibrary(const char *soname, std::string &searched) {
  auto tryOpen = [&](const std::string &path) -> void * {
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      searched += (searched.empty() ? "" : "; ") + path +
                  (why && path.find('/') == std::string::npos
                       ? format(" (the system's library path: %s)", why)
                       : std::string());
    }
    return handle;
  };
  const char *env = std::getenv("FUSE_CUDA_LIBRARY_PATH");
  if (env) {
    std::string dirs = env;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos)
        end = dirs.size();
      std::string dir = dirs.substr(start, end - start);
      if (!dir.empty())
        if (void *handle = tryOpen(dir + "/" + soname))
          return handle;
      start = end + 1;
    }
    searched = "$FUSE_CUDA_LIBRARY_PATH (" + dirs + "): " +
               (searched.empty() ? std::string("no directories") : searched);
    return nullptr;
  }
  if (void *handle = tryOpen(soname))
    return handle;
  for (const char *dir : kDefaultDirectories)
    if (void *handle = tryOpen(std::string(dir) + "/" + soname))
      return handle;
  return nullptr;
}

/// The outcome of the one attempt per process to load a library.
template <typename Table> struct Loaded {
  Table table;
  /// Why it cannot be used ("" if it can).
  std::string problem;
};

template <typename Function>
bool bind(void *library, Function &function, const char *symbol) {
  void *address = dlsym(library, symbol);
  function = reinterpret_cast<Function>(address);
  return address != nullptr;
}

const char *const kHowToAvoid =
    " (install it, set FUSE_CUDA_LIBRARY_PATH to its directory, or compile "
    "the model with --strategy=generated)";

// Binds every function of a table; returns the name of the first one the
// library lacks, or nullptr.
#define FUSE_LIBRARY_BIND(name, result, params)                                \
  if (!bind(library, table.name, #name))                                       \
    return #name;
const char *bindCublasLt(void *library, CublasLt &table) {
  FUSE_CUBLASLT_FUNCTIONS(FUSE_LIBRARY_BIND)
  return nullptr;
}
const char *bindCudnn(void *library, Cudnn &table) {
  FUSE_CUDNN_FUNCTIONS(FUSE_LIBRARY_BIND)
  return nullptr;
}
#undef FUSE_LIBRARY_BIND

/// Opens `soname` and binds its functions; `title` names the library in
/// the problem.
template <typename Table>
Loaded<Table> load(const char *title, const char *soname,
                   const char *(*bindAll)(void *, Table &)) {
  Loaded<Table> loaded;
  std::string library = std::string(title) + " (" + soname + ")";
  std::string searched;
  // Never closed: the library stays for the life of the process.
  void *handle = openLibrary(soname, searched);
  if (!handle) {
    loaded.problem = library + " not found; searched " + searched + kHowToAvoid;
    return loaded;
  }
  if (const char *missing = bindAll(handle, loaded.table))
    loaded.problem = library + " has no " + missing;
  return loaded;
}

/// The table of a loaded library, or FUSE_ERROR_TARGET with its problem.
template <typename Table>
fuse_status use(const Loaded<Table> &loaded, size_t launches,
                const Table *&library) {
  if (!loaded.problem.empty())
    return fail(FUSE_ERROR_TARGET, "%s: this artifact calls it in %zu launches",
                loaded.problem.c_str(), launches);
  library = &loaded.table;
  return FUSE_OK;
}

} // namespace

fuse_status CublasLt::get(size_t launches, const CublasLt *&library) {
  static const Loaded<CublasLt> loaded =
      load<CublasLt>("cuBLASLt", "libcublasLt.so.13", bindCublasLt);
  return use(loaded, launches, library);
}

fuse_status CublasLt::check(cublasStatus_t status,
                            const std::string &what) const {
  if (status == CUBLAS_STATUS_SUCCESS)
    return FUSE_OK;
  const char *name = cublasLtGetStatusName ? cublasLtGetStatusName(status)
                                           : nullptr;
  return fail(FUSE_ERROR_DEVICE, "cublaslt: %s failed: %s (%d)", what.c_str(),
              name ? name : "unknown status", status);
}

fuse_status Cudnn::get(size_t launches, const Cudnn *&library) {
  static const Loaded<Cudnn> loaded =
      load<Cudnn>("cuDNN", "libcudnn.so.9", bindCudnn);
  return use(loaded, launches, library);
}

fuse_status Cudnn::check(cudnnStatus_t status, const std::string &what) const {
  if (status == CUDNN_STATUS_SUCCESS)
    return FUSE_OK;
  const char *text = cudnnGetErrorString ? cudnnGetErrorString(status)
                                         : nullptr;
  return fail(FUSE_ERROR_DEVICE, "cudnn: %s failed: %s (%d)", what.c_str(),
              text ? text : "unknown status", status);
}

} // namespace runtime
} // namespace fuse
