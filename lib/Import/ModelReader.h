//===- ModelReader.h - Bytes to onnx::ModelProto -----------------*- C++
//-*-===//
//
// Private to the importer. The only code that calls into protobuf and
// libonnx's text parser; it is compiled with exceptions enabled and turns
// everything those libraries throw into an error message.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_IMPORT_MODELREADER_H
#define FUSE_LIB_IMPORT_MODELREADER_H

#include "fuse/Import/ONNXImporter.h"

#include <onnx/onnx_pb.h>

namespace fuse {
namespace detail {

/// Where a problem was found in the input: a 1-based line and column of ONNX
/// text syntax, or 0 (binary input, or no position known).
struct ReadPosition {
  unsigned line = 0, column = 0;
};

/// Fills `model` from `bytes`; `isText` says whether they were read as ONNX
/// text syntax. Returns an empty string on success, else why the bytes are
/// not a model, and `position` says where, when known.
std::string readModelProto(llvm::StringRef bytes, llvm::StringRef sourceName,
                           ImportOptions::Format format,
                           ::onnx::ModelProto &model, bool &isText,
                           ReadPosition &position);

} // namespace detail
} // namespace fuse

#endif // FUSE_LIB_IMPORT_MODELREADER_H
