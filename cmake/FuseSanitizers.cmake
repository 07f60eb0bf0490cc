# Instrumentation for fuse's own code and the runtime, included by the
# top-level CMakeLists.txt and by runtime/CMakeLists.txt when it builds on
# its own. MLIR and LLVM come prebuilt (Debian) and stay uninstrumented, as
# do the CPU kernels that fuse-compile links into shared objects.
#
#   -DFUSE_SANITIZE=address,undefined   any comma list of -fsanitize= values
#   -DFUSE_BUILD_FUZZERS=ON             also coverage for libFuzzer (clang)
#
# A sanitizer report is fatal (-fno-sanitize-recover=all), so a test or a
# fuzzer that triggers one fails. docs/robustness.md describes both builds.

include_guard(GLOBAL)

set(FUSE_SANITIZE "" CACHE STRING
    "Sanitizers for fuse and its runtime, a comma list (e.g. address,undefined)")
option(FUSE_BUILD_FUZZERS "Build the libFuzzer targets in fuzz/ (clang only)"
       OFF)

if(FUSE_SANITIZE)
  add_compile_options(-fsanitize=${FUSE_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=${FUSE_SANITIZE})
  message(STATUS "fuse: sanitizers ${FUSE_SANITIZE}")
endif()

if(FUSE_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FUSE_BUILD_FUZZERS needs clang for libFuzzer: "
            "-DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22 "
            "(fuzz/run.sh does this)")
  endif()
  # Coverage for every fuse object; the fuzz targets link libFuzzer itself
  # (-fsanitize=fuzzer). Tools in the same build get the sanitizer
  # runtime's no-op coverage callbacks.
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()
