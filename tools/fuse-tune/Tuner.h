//===- Tuner.h - Time an artifact's candidates, keep the fastest -*- C++ -*-===//
//
// What fuse-tune does, for fuse-tune and for fuse-compile --tune: loads an
// artifact through the runtime's C API, profiles plan "main" on random
// inputs once per candidate index, selects each choice's fastest candidate
// and saves the artifact. Runtime only: no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_TUNER_H
#define FUSE_TOOLS_TUNER_H

#include <string>

namespace fuserun {

struct TuneOptions {
  std::string model;  // the artifact to tune
  std::string output; // where to write it (empty: `model`, atomically)
  std::string cache;  // a JSON timing cache, or empty
  long warmup = 10;
  long iterations = 100;
  bool quiet = false;
};

/// Tunes `options.model` and prints what it measured (docs/tuning.md).
/// Returns the exit status: 0 (also for a model without choices); an error
/// prints its message and exits with status 1, as the tools' check() does.
int tuneArtifact(const TuneOptions &options);

} // namespace fuserun

#endif // FUSE_TOOLS_TUNER_H
