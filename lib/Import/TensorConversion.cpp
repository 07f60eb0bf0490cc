//===- TensorConversion.cpp - ONNX data types and tensors to MLIR --------===//
//
// Tensors are checked before anything is read: the declared element count
// must match the data that is there, so a truncated or hand-edited model
// gives an error instead of a read past the end of a buffer.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "fuse/Dialect/ONNX/IR/ONNXShapeHelpers.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/StringExtras.h"

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
                                         std::string &error) {
  Type elementType = convertElementType(tensor.data_type(), ctx);
  if (!elementType) {
    error = "has unsupported data type " + dataTypeName(tensor.data_type());
    return nullptr;
  }
  if (tensor.has_segment()) {
    error = "is a segmented tensor, which is not supported";
    return nullptr;
  }
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    error = "stores its data in an external file, which is not supported";
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
    // Reject element counts that could not exist in a 2 GiB protobuf
    // before multiplying further (no overflow).
    if (d != 0 && numElements > (uint64_t(1) << 40) / uint64_t(d)) {
      error = "has too many elements";
      return nullptr;
    }
    numElements *= d;
  }
  auto type = RankedTensorType::get(shape, elementType);
  size_t width =
      elementType.isInteger(1) ? 1 : elementType.getIntOrFloatBitWidth() / 8;

  std::vector<char> bytes;
  auto countError = [&](size_t found, StringRef field) {
    error = "has " + std::to_string(found) + " values in " + field.str() +
            " but its shape needs " + std::to_string(numElements);
    return ElementsAttr();
  };
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != numElements * width) {
      error = "has " + std::to_string(raw.size()) +
              " bytes of raw_data but its shape and type need " +
              std::to_string(numElements * width);
      return nullptr;
    }
    bytes.assign(raw.begin(), raw.end());
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
  }

  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  bool splat = numElements > 0;
  for (size_t i = width; splat && i < bytes.size(); i += width)
    splat = std::memcmp(bytes.data(), bytes.data() + i, width) == 0;
  // Small and uniform tensors stay readable inline; weights go to blobs.
  constexpr uint64_t kMaxInlineElements = 8;
  if (numElements <= kMaxInlineElements || splat) {
    ArrayRef<char> data(bytes);
    if (splat)
      data = data.take_front(width);
    return DenseElementsAttr::getFromRawBuffer(type, data);
  }
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(bytes), alignof(uint64_t));
  return DenseResourceElementsAttr::get(type, sanitizeBlobName(blobName),
                                        std::move(blob));
}
