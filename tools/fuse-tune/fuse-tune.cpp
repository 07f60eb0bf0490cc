//===- fuse-tune.cpp - Time an artifact's candidates, keep the fastest ----===//
//
// The command line of the tuner (Tuner.cpp). Exit status: 0 success (or
// nothing to tune), 1 error, 2 bad usage.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "Tuner.h"


using namespace fuserun;

namespace {

const char *const kUsage = R"(usage: fuse-tune MODEL.fbin [options]

Picks, for each choice of a compiled model (a group the compiler gave
several candidates: a cuBLASLt call, generated kernels of different tiles),
the candidate that runs fastest on this device, and saves the artifact with
those selections, the measured times and the choices marked tuned.

How: random inputs (floats uniform in [-1, 1), integers in [0, 10), bools
0/1; seed 0); then, in round k, every choice not answered by the cache runs
its candidate k (its last when it has fewer) and plan "main" is profiled:
--warmup untimed runs, then --iterations runs with every launch timed on
its own (fuse_model_profile: CUDA events within one graph replay on the
GPU, a steady clock on the CPU), so each candidate is timed where the plan
runs it. A candidate's time is the median, over the runs, of the sum of
its launches' times. The fastest wins (ties: the lower index).
docs/tuning.md says more.

Options:
  -o FILE, --output FILE  write the tuned artifact to FILE (default: MODEL
                       itself, replaced atomically: a temporary file beside
                       it, renamed over it once complete)
  --cache FILE         a timing cache (JSON): read if it exists, its times
                       used for the choices whose candidates it all holds
                       for this device and driver (those are not timed),
                       then written back (atomically) with the new times
  --warmup N           untimed runs before timing (default 10)
  --iterations N       timed runs (default 100)
  --quiet              print only the summary: no table, no progress lines
  --help               this text
  --version            fuse's version and the commit it was built from

Output: per choice, its key and whether it was timed or came from the
cache; per candidate its label and time, '*' on the winner and '<' on the
previous selection; the winner's speed-up over the previous selection; then
the time tuning took. Progress lines go to stderr when timing takes longer
than a second. A model without choices is left untouched (exit 0).

Exit status: 0 success, 1 error (message on stderr), 2 bad usage.
)";

struct Options : TuneOptions {};

[[noreturn]] void usageError(const std::string &message) {
  fuserun::usageError("fuse-tune", message);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  Arguments args("fuse-tune", kUsage, argc, argv);
  // "-x" is an unknown option, not a model.
  auto isOption = [](const std::string &arg) {
    return arg.size() > 1 && arg[0] == '-';
  };
  while (args.next(options.model, isOption)) {
    const std::string &name = args.name();
    auto takePath = [&](std::string &out) {
      if (!out.empty())
        usageError(name + " is given twice");
      out = args.value();
      if (out.empty())
        usageError(name + " needs a non-empty value");
    };
    if (name == "--quiet") {
      args.noValue();
      options.quiet = true;
    } else if (name == "-o" || name == "--output") {
      takePath(options.output);
    } else if (name == "--cache") {
      takePath(options.cache);
    } else if (name == "--warmup") {
      options.warmup = args.count();
    } else if (name == "--iterations") {
      options.iterations = args.count();
    } else {
      usageError("unknown option '" + name + "'");
    }
  }
  if (options.model.empty())
    usageError("no model given");
  if (options.iterations < 1)
    usageError("--iterations must be at least 1");
  return options;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  return tuneArtifact(options);
}
