//===- TensorConversion.cpp - ONNX data types and tensors to MLIR --------===//
//
// Tensors are checked before anything is read: the declared element count
// must match the data that is there, so a truncated or hand-edited model
// gives an error instead of a read past the end of a buffer. External data
// (weights in a file beside the model) is memory-mapped, and a weight's
// blob refers to the mapping, so the weights are in memory once.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;
using ::onnx::TensorProto;

Type fuse::detail::convertElementType(int32_t dataType, MLIRContext *ctx) {
  return getElementTypeForONNX(dataType, ctx);
}

std::string fuse::detail::dataTypeName(int32_t dataType) {
  // Newer ONNX releases define types (FLOAT8*, INT4, ...) that libonnx 1.12
  // does not know by name.
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4",       "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",      "INT2"};
  if (dataType >= 0 && dataType < static_cast<int32_t>(std::size(names)))
    return names[dataType];
  return "data type " + std::to_string(dataType);
}

/// Resource keys are printed bare in the IR; keep them to safe characters.
static std::string sanitizeBlobName(StringRef name) {
  std::string s;
  for (char c : name)
    s.push_back(llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_');
  if (s.empty() || llvm::isDigit(s[0]))
    s.insert(s.begin(), '_');
  return s;
}

bool ExternalData::read(const TensorProto &tensor, uint64_t size,
                        std::shared_ptr<llvm::MemoryBuffer> &file,
                        ArrayRef<char> &bytes, std::string &error) {
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (StringRef(entry.value()).getAsInteger(10, value)) {
        error = "has external data " + entry.key() + " '" + entry.value() +
                "', which is not a non-negative integer";
        return false;
      }
      (entry.key() == "offset" ? offset : length) = value;
    }
    // `checksum` (optional) and `basepath` (written by some tools) are not
    // needed to read the data.
  }
  if (location.empty()) {
    error = "stores its data in an external file but names no location";
    return false;
  }
  namespace path = llvm::sys::path;
  if (path::is_absolute(location) ||
      path::is_absolute(location, path::Style::windows)) {
    error = "has external data location '" + location +
            "', an absolute path; locations must be relative to the "
            "model's folder";
    return false;
  }
  for (StringRef component :
       llvm::make_range(path::begin(location), path::end(location))) {
    if (component == "..") {
      error = "has external data location '" + location +
              "', which leaves the model's folder";
      return false;
    }
  }
  if (!folder) {
    error = "stores its data in external file '" + location + "', " + whyNot;
    return false;
  }

  llvm::SmallString<256> filePath(*folder);
  path::append(filePath, location);
  std::shared_ptr<llvm::MemoryBuffer> &buffer = files[filePath];
  if (!buffer) {
    // A symbolic link inside the folder must not lead out of it either.
    llvm::SmallString<256> realFolder, realFile;
    if (!llvm::sys::fs::real_path(*folder, realFolder) &&
        !llvm::sys::fs::real_path(filePath, realFile) &&
        !(realFile.str().starts_with(realFolder) &&
          realFile.size() > realFolder.size() &&
          path::is_separator(realFile[realFolder.size()]))) {
      error = "has external data location '" + location +
              "', which leads out of the model's folder (to '" +
              realFile.str().str() + "')";
      files.erase(filePath);
      return false;
    }
    // Mapped, not read: the weights stay in the page cache and each blob
    // points into the mapping.
    auto opened = llvm::MemoryBuffer::getFile(filePath, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!opened) {
      error = "stores its data in '" + filePath.str().str() +
              "', which cannot be read: " + opened.getError().message();
      files.erase(filePath);
      return false;
    }
    buffer = std::move(*opened);
    if (filesRead)
      filesRead->push_back(filePath.str().str());
  }
  uint64_t start = offset.value_or(0);
  uint64_t count = length.value_or(size);
  if (count != size) {
    error = "has " + std::to_string(count) + " bytes of external data in '" +
            filePath.str().str() + "' but its shape and type need " +
            std::to_string(size);
    return false;
  }
  uint64_t fileSize = buffer->getBufferSize();
  if (start > fileSize || count > fileSize - start) {
    error = "needs bytes " + std::to_string(start) + " to " +
            std::to_string(start + count) + " of '" + filePath.str().str() +
            "', which has only " + std::to_string(fileSize) +
            " (the file is short)";
    return false;
  }
  file = buffer;
  bytes = ArrayRef<char>(buffer->getBufferStart() + start, count);
  return true;
}

/// Appends `values` to `bytes` as `width`-byte little-endian elements.
template <typename T>
static void appendAs(std::vector<char> &bytes, const T &values, size_t width) {
  for (auto v : values) {
    uint64_t bits;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, float>) {
      uint32_t b32;
      std::memcpy(&b32, &v, 4);
      bits = b32;
    } else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
      std::memcpy(&bits, &v, 8);
    } else {
      bits = static_cast<uint64_t>(v);
    }
    for (size_t i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
}

ElementsAttr fuse::detail::convertTensor(const TensorProto &tensor,
                                         StringRef blobName, MLIRContext *ctx,
                                         std::string &error,
                                         ExternalData *external,
                                         std::string *rawData) {
  Type elementType = convertElementType(tensor.data_type(), ctx);
  if (!elementType) {
    error = "has unsupported data type " + dataTypeName(tensor.data_type());
    return nullptr;
  }
  if (tensor.has_segment()) {
    error = "is a segmented tensor, which is not supported";
    return nullptr;
  }
  bool isExternal = tensor.data_location() == TensorProto::EXTERNAL;
  if (isExternal && !external) {
    error = "stores its data in an external file, which is not supported "
            "here";
    return nullptr;
  }
  SmallVector<int64_t> shape;
  uint64_t numElements = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      error = "has a negative dimension (" + std::to_string(d) + ")";
      return nullptr;
    }
    shape.push_back(d);
    // Reject element counts over 2^40 (8 TiB of doubles) before
    // multiplying further (no overflow).
    if (d != 0 && numElements > (uint64_t(1) << 40) / uint64_t(d)) {
      error = "has too many elements";
      return nullptr;
    }
    numElements *= d;
  }
  auto type = RankedTensorType::get(shape, elementType);
  size_t width =
      elementType.isInteger(1) ? 1 : elementType.getIntOrFloatBitWidth() / 8;

  // The tensor's bytes: in the protobuf, mapped from an external file
  // (kept alive by `file`), or converted from a typed field into `bytes`.
  ArrayRef<char> data;
  std::shared_ptr<llvm::MemoryBuffer> file;
  std::vector<char> bytes;
  auto countError = [&](size_t found, StringRef field) {
    error = "has " + std::to_string(found) + " values in " + field.str() +
            " but its shape needs " + std::to_string(numElements);
    return ElementsAttr();
  };
  if (isExternal) {
    if (!external->read(tensor, numElements * width, file, data, error))
      return nullptr;
  } else if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != numElements * width) {
      error = "has " + std::to_string(raw.size()) +
              " bytes of raw_data but its shape and type need " +
              std::to_string(numElements * width);
      return nullptr;
    }
    data = ArrayRef<char>(raw.data(), raw.size());
  } else {
    switch (tensor.data_type()) {
    case TensorProto::FLOAT:
      if (size_t(tensor.float_data_size()) != numElements)
        return countError(tensor.float_data_size(), "float_data");
      appendAs(bytes, tensor.float_data(), 4);
      break;
    case TensorProto::DOUBLE:
      if (size_t(tensor.double_data_size()) != numElements)
        return countError(tensor.double_data_size(), "double_data");
      appendAs(bytes, tensor.double_data(), 8);
      break;
    case TensorProto::INT64:
      if (size_t(tensor.int64_data_size()) != numElements)
        return countError(tensor.int64_data_size(), "int64_data");
      appendAs(bytes, tensor.int64_data(), 8);
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      if (size_t(tensor.uint64_data_size()) != numElements)
        return countError(tensor.uint64_data_size(), "uint64_data");
      appendAs(bytes, tensor.uint64_data(), width);
      break;
    default:
      // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 and BFLOAT16 (as
      // bit patterns) live in int32_data.
      if (size_t(tensor.int32_data_size()) != numElements)
        return countError(tensor.int32_data_size(), "int32_data");
      appendAs(bytes, tensor.int32_data(), width);
      break;
    }
    data = bytes;
  }

  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : data)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  bool splat = numElements > 0;
  for (size_t i = width; splat && i < data.size(); i += width)
    splat = std::memcmp(data.data(), data.data() + i, width) == 0;
  // Small and uniform tensors stay readable inline; weights go to blobs.
  constexpr uint64_t kMaxInlineElements = 8;
  if (numElements <= kMaxInlineElements || splat)
    return DenseElementsAttr::getFromRawBuffer(
        type, splat ? data.take_front(width) : data);
  std::string key = sanitizeBlobName(blobName);
  // Mapped external data and the protobuf's raw_data are used in place when
  // their elements are aligned; the blob keeps the mapping or the string.
  // It states 8-byte alignment, as copied blobs do, where that holds.
  auto alignmentOf = [&](const char *p) -> size_t {
    if (llvm::isAddrAligned(llvm::Align(alignof(uint64_t)), p))
      return alignof(uint64_t);
    return llvm::isAddrAligned(llvm::Align(width), p) ? width : 0;
  };
  if (file && alignmentOf(data.data())) {
    AsmResourceBlob blob(
        data, alignmentOf(data.data()),
        [file](void *, size_t, size_t) mutable { file.reset(); },
        /*dataIsMutable=*/false);
    return DenseResourceElementsAttr::get(type, key, std::move(blob));
  }
  std::shared_ptr<std::string> held; // Outlives the copy below.
  if (rawData && data.data() == rawData->data()) {
    held = std::make_shared<std::string>(std::move(*rawData));
    ArrayRef<char> moved(held->data(), held->size());
    if (size_t alignment = alignmentOf(moved.data())) {
      AsmResourceBlob blob(
          moved, alignment,
          [held](void *, size_t, size_t) mutable { held.reset(); },
          /*dataIsMutable=*/false);
      return DenseResourceElementsAttr::get(type, key, std::move(blob));
    }
    data = moved;
  }
  auto blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(data, alignof(uint64_t));
  return DenseResourceElementsAttr::get(type, key, std::move(blob));
}
