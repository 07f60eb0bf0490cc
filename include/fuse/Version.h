//===- Version.h - fuse's version and commit --------------------*- C++ -*-===//
//
// What every tool's --version prints (library FuseVersion,
// cmake/FuseVersion.cmake). Free of LLVM: fuse-run and fuse-tune print it
// too.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_VERSION_H
#define FUSE_VERSION_H

#include <string>

namespace fuse {

/// fuse's version, e.g. "0.1.0": the Python package's __version__.
const char *getVersion();

/// `git describe --always --dirty` of the tree fuse was built from (an
/// abbreviated commit hash until the repository has tags), or "unknown"
/// when it was not built from a git checkout (a release tarball).
const char *getCommit();

/// "<tool> (fuse) <version>, commit <commit>": the first line of each
/// tool's --version.
inline std::string getVersionLine(const char *tool) {
  return std::string(tool) + " (fuse) " + getVersion() + ", commit " +
         getCommit();
}

} // namespace fuse

#endif // FUSE_VERSION_H
