//===- fuzz_import_text.cpp - ONNX text syntax -> importer -> fuse-chains -===//
//
// Inputs are ONNX text syntax (`.onnxtxt`), read as text whatever they
// start with, so libonnx's text parser (which throws C++ exceptions that
// ModelReader.cpp catches) and the importer's line tracking are fuzzed.
// libFuzzer's byte mutations, with the dictionary fuzz/onnxtxt.dict, work
// well on text.
//
//===----------------------------------------------------------------------===//

#include "ImportHarness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuse::fuzz::runImportPipeline(data, size,
                                       fuse::ImportOptions::Format::Text);
}
