//===- ConstantTensor.cpp - Host-side values of constant tensors ---------===//

#include "ConstantTensor.h"

#include "fuse/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace fuse;

/// Element `i` of raw little-endian data of `elementType`.
static void readRawElement(Type elementType, const char *data, int64_t i,
                           ConstantTensor &out) {
  if (elementType.isInteger(1)) {
    out.ints.push_back(data[i] != 0);
    return;
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  const char *p = data + i * (width / 8);
  if (auto f = dyn_cast<FloatType>(elementType)) {
    if (width == 32) {
      float v;
      std::memcpy(&v, p, 4);
      out.floats.push_back(v);
    } else if (width == 64) {
      double v;
      std::memcpy(&v, p, 8);
      out.floats.push_back(v);
    } else {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      APFloat v(f.getFloatSemantics(), APInt(16, bits));
      out.floats.push_back(v.convertToDouble());
    }
    return;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, width / 8);
  APInt v(width, bits);
  out.ints.push_back(elementType.isUnsignedInteger()
                         ? static_cast<int64_t>(v.getZExtValue())
                         : v.getSExtValue());
}

std::optional<ConstantTensor> fuse::readConstant(Value value,
                                                 int64_t maxElements) {
  auto constant = value.getDefiningOp<ONNXConstantOp>();
  if (!constant)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > maxElements)
    return std::nullopt;
  Type elementType = type.getElementType();
  if (!elementType.isIntOrFloat())
    return std::nullopt;
  ConstantTensor out;
  out.type = type;
  int64_t n = type.getNumElements();
  Attribute attr = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(elementType)) {
      for (const APFloat &v : dense.getValues<APFloat>())
        out.floats.push_back(v.convertToDouble());
    } else {
      bool isUnsigned = elementType.isUnsignedInteger() ||
                        elementType.isInteger(1);
      for (const APInt &v : dense.getValues<APInt>())
        out.ints.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                      : v.getSExtValue());
    }
    return out;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !resource.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
  size_t width =
      elementType.isInteger(1) ? 1 : elementType.getIntOrFloatBitWidth() / 8;
  if (data.size() != static_cast<size_t>(n) * width)
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i)
    readRawElement(elementType, data.data(), i, out);
  return out;
}

/// Appends element `i` of `tensor` as raw little-endian bytes.
static void appendRawElement(const ConstantTensor &tensor, int64_t i,
                             std::vector<char> &bytes) {
  Type elementType = tensor.type.getElementType();
  if (elementType.isInteger(1)) {
    bytes.push_back(tensor.ints[i] != 0);
    return;
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  char buf[8];
  if (auto f = dyn_cast<FloatType>(elementType)) {
    if (width == 32) {
      float v = static_cast<float>(tensor.floats[i]);
      std::memcpy(buf, &v, 4);
    } else if (width == 64) {
      std::memcpy(buf, &tensor.floats[i], 8);
    } else {
      bool lost;
      APFloat v(tensor.floats[i]);
      v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = v.bitcastToAPInt().getZExtValue();
      std::memcpy(buf, &bits, 2);
    }
  } else {
    uint64_t v = static_cast<uint64_t>(tensor.ints[i]);
    std::memcpy(buf, &v, width / 8);
  }
  bytes.insert(bytes.end(), buf, buf + width / 8);
}

ElementsAttr fuse::buildConstantAttr(const ConstantTensor &tensor,
                                     StringRef blobName) {
  int64_t n = tensor.size();
  std::vector<char> bytes;
  for (int64_t i = 0; i < n; ++i)
    appendRawElement(tensor, i, bytes);
  size_t width = n ? bytes.size() / n : 0;
  bool splat = n > 0;
  for (int64_t i = 1; splat && i < n; ++i)
    splat = std::memcmp(bytes.data(), bytes.data() + i * width, width) == 0;
  constexpr int64_t kMaxInlineElements = 8;
  if (tensor.type.getElementType().isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t v : tensor.ints)
      values.push_back(v != 0);
    return DenseElementsAttr::get(tensor.type, ArrayRef<bool>(values));
  }
  if (n <= kMaxInlineElements || splat) {
    ArrayRef<char> data(bytes);
    if (splat)
      data = data.take_front(width);
    return DenseElementsAttr::getFromRawBuffer(tensor.type, data);
  }
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(bytes), alignof(uint64_t));
  return DenseResourceElementsAttr::get(tensor.type, blobName,
                                        std::move(blob));
}

std::string fuse::blobNameStem(Operation *op, StringRef fallback) {
  std::string name = fallback.str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name = loc.getName().str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  return name;
}
