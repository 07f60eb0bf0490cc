/*===- mock_common.h - What the stand-in CUDA libraries share ----------===*
 *
 * Included by mock_cuda.c and mock_libraries.c after they define MOCK_NAME
 * (the prefix of trace lines) and MOCK_FAIL_ENV (the variable naming the
 * calls that fail).
 *
 *===-------------------------------------------------------------------===*/

#ifndef FUSE_TEST_MOCK_COMMON_H
#define FUSE_TEST_MOCK_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether `symbol` is in the comma-separated list in MOCK_FAIL_ENV. */
static int fails(const char *symbol) {
  const char *names = getenv(MOCK_FAIL_ENV);
  size_t length = strlen(symbol);
  for (const char *p = names; p && *p; p += strcspn(p, ",")) {
    p += *p == ',';
    if (strncmp(p, symbol, length) == 0 && (p[length] == ',' || !p[length]))
      return 1;
  }
  return 0;
}

/* One line on stderr when MOCK_CUDA_TRACE is set (for every stand-in). */
static void trace(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static void trace(const char *format, ...) {
  if (!getenv("MOCK_CUDA_TRACE"))
    return;
  va_list args;
  va_start(args, format);
  fputs("mock-" MOCK_NAME ": ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

#endif
