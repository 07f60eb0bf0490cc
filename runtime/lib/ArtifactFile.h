//===- ArtifactFile.h - Read an artifact file, save a tuned one -*- C++ -*-===//
//
// The runtime keeps no copy of an artifact's bytes once it is loaded (the
// weights are on the device): fuse_model_save reads the file again, checks
// that it is the one that was loaded, and rewrites only the choices'
// selections, tuned flags and times in its Plan section.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_LIB_ARTIFACTFILE_H
#define FUSE_RUNTIME_LIB_ARTIFACTFILE_H

#include "ArtifactReader.h"

#include <string>
#include <vector>

namespace fuse {
namespace runtime {

/// Writes `size` bytes to `path` as every fuse tool writes its outputs
/// (tools/support/OutputFile.h): through a temporary file beside it,
/// renamed over it once complete, so that a reader sees the old file or
/// the new one, never half of one (FUSE_ERROR_IO naming `path` on
/// failure).
fuse_status writeAtomically(const char *path, const uint8_t *data,
                            uint64_t size);

/// Reads a whole regular file (FUSE_ERROR_IO naming `path` on failure).
fuse_status readFile(const char *path, std::vector<uint8_t> &bytes);

/// Writes `a`'s artifact, read again from `source` (the file it was loaded
/// from, whose header checksum must still be `checksum`), to `path` with
/// the selections, tuned flags and times of `a`'s choices; every other
/// byte is the source's, the checksum recomputed. The bytes go to a
/// temporary file beside `path` that is then renamed over it, so that
/// `path` is never left half-written. When `path` is `source`, `checksum`
/// becomes the new file's, so that the model can be saved again.
fuse_status saveArtifact(const Artifact &a, const std::string &source,
                         uint64_t &checksum, const char *path);

} // namespace runtime
} // namespace fuse

#endif // FUSE_RUNTIME_LIB_ARTIFACTFILE_H
