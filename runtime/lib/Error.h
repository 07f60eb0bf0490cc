//===- Error.h - The runtime's error reporting ------------------*- C++ -*-===//
//
// Every failure in the runtime goes through fail(): it records the message
// for fuse_last_error() (per thread) and returns the status, so that error
// paths read `return fail(FUSE_ERROR_FORMAT, "artifact: ...", ...);`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_ERROR_H
#define FUSE_RUNTIME_LIB_ERROR_H

#include "fuse/runtime.h"

#include <string>

namespace fuse {
namespace runtime {

/// Records a printf-style message as this thread's last error; returns
/// `status`.
fuse_status fail(fuse_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// printf into a std::string.
std::string format(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_ERROR_H
