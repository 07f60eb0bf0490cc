# fuse's version and the git commit it was built from, for the tools'
# --version: library FuseVersion, fuse::getVersion() and fuse::getCommit()
# (include/fuse/Version.h). Included by the top-level build and by the
# runtime's own (runtime/CMakeLists.txt), which has no LLVM: the library
# needs none.
#
# The version is the Python package's __version__ (python/fuse/__init__.py,
# which pyproject.toml reads too), so there is one to bump. The commit is
# `git describe` of the source tree, taken at every build by
# GenerateFuseVersion.cmake (a few milliseconds; the source is rewritten,
# and the tools relinked, only when it changed), so it follows commits and
# checkouts without a reconfigure; outside a git checkout (a release
# tarball, an sdist) it is "unknown".
include_guard(GLOBAL)

get_filename_component(FUSE_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.."
                       ABSOLUTE)
file(STRINGS "${FUSE_SOURCE_ROOT}/python/fuse/__init__.py" _fuse_version
     REGEX "^__version__ = \"[^\"]+\"$")
string(REGEX REPLACE "^__version__ = \"([^\"]+)\"$" "\\1" FUSE_VERSION
       "${_fuse_version}")
if(NOT FUSE_VERSION)
  message(FATAL_ERROR "no __version__ = \"...\" line in "
                      "${FUSE_SOURCE_ROOT}/python/fuse/__init__.py")
endif()

find_package(Git QUIET)
set(_fuse_version_source ${CMAKE_BINARY_DIR}/version/FuseVersion.cpp)
add_custom_target(fuse-version-source
  COMMAND ${CMAKE_COMMAND}
          -DSOURCE_ROOT=${FUSE_SOURCE_ROOT}
          -DVERSION=${FUSE_VERSION}
          -DGIT=${GIT_EXECUTABLE}
          -DOUTPUT=${_fuse_version_source}
          -P ${CMAKE_CURRENT_LIST_DIR}/GenerateFuseVersion.cmake
  BYPRODUCTS ${_fuse_version_source}
  VERBATIM)
add_library(FuseVersion STATIC ${_fuse_version_source})
add_dependencies(FuseVersion fuse-version-source)
target_include_directories(FuseVersion PUBLIC ${FUSE_SOURCE_ROOT}/include)
# libfuse_runtime.so links it too (fuse_runtime_version).
set_target_properties(FuseVersion PROPERTIES POSITION_INDEPENDENT_CODE ON)
