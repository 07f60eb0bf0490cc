//===- Error.cpp - The runtime's error reporting --------------------------===//

#include "Error.h"

#include <cstdarg>
#include <cstdio>

namespace fuse {
namespace runtime {

static thread_local std::string lastError;

static std::string vformat(const char *fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (length <= 0)
    return std::string();
  std::string result(static_cast<size_t>(length) + 1, '\0');
  std::vsnprintf(&result[0], result.size(), fmt, args);
  result.resize(static_cast<size_t>(length));
  return result;
}

std::string format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string result = vformat(fmt, args);
  va_end(args);
  return result;
}

fuse_status fail(fuse_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  lastError = vformat(fmt, args);
  va_end(args);
  return status;
}

} // namespace runtime
} // namespace fuse

extern "C" const char *fuse_last_error(void) {
  return fuse::runtime::lastError.c_str();
}
