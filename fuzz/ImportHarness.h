//===- ImportHarness.h - Bytes -> importer -> verifier -> fuse-chains -----===//
//
// What the two import fuzz targets (fuzz-import, fuzz-import-text) run on
// each input: the importer, the MLIR verifier on its module, then the
// fuse-chains pass through a pass manager (which verifies again), exactly
// as `fuse-opt model.onnx --fuse-chains` does. Every input gets a fresh
// MLIRContext, so that one input cannot change how the next one runs (a
// crash reproduces from its input alone) and uniqued attributes and weight
// blobs do not pile up over millions of runs.
//
// An input the importer rejects is fine: that is the path under test, and
// its diagnostics are dropped. A module the importer accepts but the
// verifier rejects, or a pass failure on such a module, is a bug: the
// harness prints the diagnostics and aborts, which libFuzzer reports as a
// crash.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_FUZZ_IMPORTHARNESS_H
#define FUSE_FUZZ_IMPORTHARNESS_H

#include "fuse/Import/ONNXImporter.h"

#include <cstddef>
#include <cstdint>

namespace fuse {
namespace fuzz {

/// Runs the pipeline on `data` read in `format`. Returns 0 (libFuzzer's
/// "keep going"); aborts on a bug.
int runImportPipeline(const uint8_t *data, size_t size,
                      ImportOptions::Format format);

} // namespace fuzz
} // namespace fuse

#endif // FUSE_FUZZ_IMPORTHARNESS_H
