//===- TensorFiles.cpp - Tensors in .npy, .npz and .pb files --------------===//

#include "TensorFiles.h"

#include "OutputFile.h"

#include "fuse/runtime/Artifact.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <zlib.h>

using fuse::artifact::DType;
using fuse::artifact::dtypeName;
using fuse::artifact::dtypeSize;

namespace fuserun {

namespace {

using ull = unsigned long long;

bool failWith(std::string &error, std::string message) {
  error = std::move(message);
  return false;
}

uint16_t le16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t *p) {
  return uint32_t(le16(p)) | uint32_t(le16(p + 2)) << 16;
}
uint64_t le64(const uint8_t *p) {
  return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32;
}
void put16(std::vector<uint8_t> &out, uint32_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t> &out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

//===----------------------------------------------------------------------===//
// Element conversion
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  float magnitude = std::fabs(f);
  if (std::isnan(f))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f) // Rounds to infinity.
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0f, -14)) // Subnormal: units of 2^-24.
    return sign | uint16_t(std::nearbyint(magnitude * std::ldexp(1.0f, 24)));
  int exponent;
  float fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  // 11 significant bits, rounded to nearest even; a carry into bit 11 moves
  // the exponent up by itself.
  uint32_t significand = uint32_t(std::nearbyint(std::ldexp(fraction, 11)));
  uint32_t biased = uint32_t(exponent + 14);
  return sign | uint16_t((biased << 10) + (significand - 0x400));
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBfloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // Round to nearest even.
  return uint16_t(bits >> 16);
}

template <typename T> double getAs(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return double(value);
}

template <typename T> void setAs(uint8_t *p, double value) {
  T typed = T(value);
  std::memcpy(p, &typed, sizeof(T));
}

double getBool(const uint8_t *p) { return *p ? 1 : 0; }
void setBool(uint8_t *p, double value) { *p = value != 0; }
double getHalf(const uint8_t *p) { return halfToFloat(le16(p)); }
void setHalf(uint8_t *p, double value) {
  setAs<uint16_t>(p, floatToHalf(float(value)));
}
double getBfloat16(const uint8_t *p) { return bfloat16ToFloat(le16(p)); }
void setBfloat16(uint8_t *p, double value) {
  setAs<uint16_t>(p, floatToBfloat16(float(value)));
}

/// How fuse-run names, reads and writes each dtype's elements.
struct DTypeCodec {
  DType dtype;
  /// numpy's type string; bfloat16, which numpy lacks, travels as its bits.
  const char *npyDescr;
  double (*get)(const uint8_t *);
  void (*set)(uint8_t *, double);
};

// UInt16 before BFloat16: a "<u2" array is a uint16 one.
const DTypeCodec kCodecs[] = {
    {DType::Float32, "<f4", getAs<float>, setAs<float>},
    {DType::UInt8, "|u1", getAs<uint8_t>, setAs<uint8_t>},
    {DType::Int8, "|i1", getAs<int8_t>, setAs<int8_t>},
    {DType::UInt16, "<u2", getAs<uint16_t>, setAs<uint16_t>},
    {DType::Int16, "<i2", getAs<int16_t>, setAs<int16_t>},
    {DType::Int32, "<i4", getAs<int32_t>, setAs<int32_t>},
    {DType::Int64, "<i8", getAs<int64_t>, setAs<int64_t>},
    {DType::Bool, "|b1", getBool, setBool},
    {DType::Float16, "<f2", getHalf, setHalf},
    {DType::Float64, "<f8", getAs<double>, setAs<double>},
    {DType::UInt32, "<u4", getAs<uint32_t>, setAs<uint32_t>},
    {DType::UInt64, "<u8", getAs<uint64_t>, setAs<uint64_t>},
    {DType::BFloat16, "<u2", getBfloat16, setBfloat16},
};

const DTypeCodec *codecOf(uint32_t dtype) {
  for (const DTypeCodec &codec : kCodecs)
    if (uint32_t(codec.dtype) == dtype)
      return &codec;
  return nullptr;
}

/// The dtype of a numpy type string ("<f4", "=f4" and "f4" alike), or 0.
uint32_t dtypeOfDescr(const std::string &descr) {
  for (const DTypeCodec &codec : kCodecs)
    if (descr.substr(1) == std::string(codec.npyDescr).substr(1))
      return uint32_t(codec.dtype);
  return 0;
}

/// The dict literal of a .npy header: {'descr': '<f4', 'fortran_order':
/// False, 'shape': (2, 3), }.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!expect('{'))
      return failWith(error, "the header is not a dict");
    while (!peek('}')) {
      std::string key;
      if (!quoted(key) || !expect(':'))
        return failWith(error, "cannot parse the header");
      if (key == "descr") {
        haveDescr = quoted(descr);
      } else if (key == "fortran_order") {
        haveOrder = word("True") || word("False");
        fortranOrder = lastWord == "True";
      } else if (key == "shape") {
        haveShape = tuple(shape);
      } else {
        return failWith(error, "unexpected header key '" + key + "'");
      }
      if (!expect(','))
        break;
    }
    if (!expect('}') || !haveDescr || !haveOrder || !haveShape)
      return failWith(error, "cannot parse the header (it needs 'descr', "
                             "'fortran_order' and 'shape')");
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() && std::strchr(" \t\n", text[pos]))
      ++pos;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  bool expect(char c) {
    if (!peek(c))
      return false;
    ++pos;
    return true;
  }
  bool quoted(std::string &value) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    size_t end = text.find(text[pos], pos + 1);
    if (end == std::string::npos)
      return false;
    value = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return true;
  }
  bool word(const char *w) {
    skipSpace();
    if (text.compare(pos, std::strlen(w), w) != 0)
      return false;
    lastWord = w;
    pos += std::strlen(w);
    return true;
  }
  bool tuple(std::vector<int64_t> &values) {
    if (!expect('('))
      return false;
    while (!peek(')')) {
      skipSpace();
      size_t start = pos;
      int64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (value > (INT64_MAX - 9) / 10)
          return false;
        value = value * 10 + (text[pos++] - '0');
      }
      // numpy may write 2L on Python 2.
      if (pos < text.size() && text[pos] == 'L')
        ++pos;
      if (pos == start)
        return false;
      values.push_back(value);
      if (!expect(','))
        break;
    }
    return expect(')');
  }

  const std::string &text;
  size_t pos = 0;
  std::string lastWord;
};

/// Checks that dims times the element size is the byte count; on overflow
/// returns false.
bool shapeBytes(uint32_t dtype, const std::vector<int64_t> &dims,
                uint64_t &bytes) {
  bytes = dtypeSize(dtype);
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && bytes > UINT64_MAX / uint64_t(d)))
      return false;
    bytes *= uint64_t(d);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Protobuf wire format
//===----------------------------------------------------------------------===//

class WireReader {
public:
  WireReader(const uint8_t *data, size_t size) : p(data), end(data + size) {}
  bool done() const { return p == end; }
  bool varint(uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end)
        return false;
      uint8_t byte = *p++;
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool bytes(size_t n, const uint8_t *&out) {
    if (n > size_t(end - p))
      return false;
    out = p;
    p += n;
    return true;
  }
  bool lengthDelimited(const uint8_t *&out, size_t &n) {
    uint64_t length;
    if (!varint(length) || length > uint64_t(end - p))
      return false;
    n = size_t(length);
    return bytes(n, out);
  }
  bool skip(uint32_t wireType) {
    uint64_t ignored;
    const uint8_t *data;
    size_t n;
    switch (wireType) {
    case 0:
      return varint(ignored);
    case 1:
      return bytes(8, data);
    case 2:
      return lengthDelimited(data, n);
    case 5:
      return bytes(4, data);
    }
    return false; // Groups (3, 4) are not in TensorProto.
  }

private:
  const uint8_t *p;
  const uint8_t *end;
};

/// Reads a repeated varint field, packed (wire type 2) or not (0).
bool repeatedVarint(WireReader &reader, uint32_t wireType,
                    std::vector<uint64_t> &values) {
  uint64_t value;
  if (wireType == 0) {
    if (!reader.varint(value))
      return false;
    values.push_back(value);
    return true;
  }
  const uint8_t *data;
  size_t n;
  if (wireType != 2 || !reader.lengthDelimited(data, n))
    return false;
  WireReader packed(data, n);
  while (!packed.done()) {
    if (!packed.varint(value))
      return false;
    values.push_back(value);
  }
  return true;
}

/// Reads a repeated fixed-size field (float: 4 bytes, wire type 5; double:
/// 8 bytes, wire type 1), packed or not, as raw little-endian bytes.
bool repeatedFixed(WireReader &reader, uint32_t wireType, size_t width,
                   std::vector<uint8_t> &bytes) {
  const uint8_t *data;
  size_t n;
  if (wireType == (width == 4 ? 5u : 1u)) {
    if (!reader.bytes(width, data))
      return false;
    n = width;
  } else if (wireType != 2 || !reader.lengthDelimited(data, n) ||
             n % width != 0) {
    return false;
  }
  bytes.insert(bytes.end(), data, data + n);
  return true;
}

void putVarint(std::vector<uint8_t> &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(uint8_t(value | 0x80));
    value >>= 7;
  }
  out.push_back(uint8_t(value));
}

void putLengthDelimited(std::vector<uint8_t> &out, uint32_t field,
                        const void *data, size_t size) {
  putVarint(out, uint64_t(field) << 3 | 2);
  putVarint(out, size);
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  out.insert(out.end(), bytes, bytes + size);
}

//===----------------------------------------------------------------------===//
// Zip
//===----------------------------------------------------------------------===//

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0;
  uint64_t size = 0;
  uint64_t localOffset = 0;
};

/// Replaces the 32-bit fields that are 0xffffffff by those of the zip64
/// extra field (id 1), which lists them in this order.
void applyZip64Extra(const uint8_t *extra, size_t length, ZipEntry &entry) {
  size_t pos = 0;
  while (pos + 4 <= length) {
    uint16_t id = le16(extra + pos);
    uint16_t size = le16(extra + pos + 2);
    if (pos + 4 + size > length)
      return;
    if (id == 1) {
      const uint8_t *field = extra + pos + 4;
      const uint8_t *fieldEnd = field + size;
      for (uint64_t *value :
           {&entry.size, &entry.compressedSize, &entry.localOffset})
        if (*value == 0xffffffffu && field + 8 <= fieldEnd) {
          *value = le64(field);
          field += 8;
        }
    }
    pos += 4 + size;
  }
}

bool readCentralDirectory(const std::vector<uint8_t> &zip,
                          std::vector<ZipEntry> &entries, std::string &error) {
  const size_t size = zip.size();
  const uint8_t *z = zip.data();
  if (size < 22)
    return failWith(error, "not a zip file (too short)");
  // The end record is last, followed by a comment of at most 64 KiB.
  size_t eocd = size - 22;
  size_t lowest = size - 22 > 0xffff ? size - 22 - 0xffff : 0;
  while (le32(z + eocd) != 0x06054b50) {
    if (eocd == lowest)
      return failWith(error, "not a zip file (no end of central directory)");
    --eocd;
  }
  uint64_t count = le16(z + eocd + 10);
  uint64_t directorySize = le32(z + eocd + 12);
  uint64_t directoryOffset = le32(z + eocd + 16);
  if (count == 0xffff || directorySize == 0xffffffffu ||
      directoryOffset == 0xffffffffu) {
    // Zip64: a locator just before the end record points at a larger one.
    if (eocd < 20 || le32(z + eocd - 20) != 0x07064b50)
      return failWith(error, "bad zip64 end of central directory locator");
    uint64_t record = le64(z + eocd - 20 + 8);
    if (record > size || size - record < 56 || le32(z + record) != 0x06064b50)
      return failWith(error, "bad zip64 end of central directory");
    count = le64(z + record + 32);
    directorySize = le64(z + record + 40);
    directoryOffset = le64(z + record + 48);
  }
  if (directoryOffset > size || directorySize > size - directoryOffset)
    return failWith(error, "the zip central directory is out of bounds");
  // Each entry is at least 46 bytes.
  if (count > directorySize / 46)
    return failWith(error, "bad zip central directory entry count");
  size_t pos = size_t(directoryOffset);
  const size_t end = size_t(directoryOffset + directorySize);
  for (uint64_t i = 0; i < count; ++i) {
    if (end - pos < 46 || le32(z + pos) != 0x02014b50)
      return failWith(error, "bad zip central directory entry");
    ZipEntry entry;
    entry.flags = le16(z + pos + 8);
    entry.method = le16(z + pos + 10);
    entry.crc = le32(z + pos + 16);
    entry.compressedSize = le32(z + pos + 20);
    entry.size = le32(z + pos + 24);
    size_t nameLength = le16(z + pos + 28);
    size_t extraLength = le16(z + pos + 30);
    size_t commentLength = le16(z + pos + 32);
    entry.localOffset = le32(z + pos + 42);
    if (end - pos - 46 < nameLength + extraLength + commentLength)
      return failWith(error, "bad zip central directory entry");
    entry.name.assign(reinterpret_cast<const char *>(z + pos + 46), nameLength);
    applyZip64Extra(z + pos + 46 + nameLength, extraLength, entry);
    entries.push_back(entry);
    pos += 46 + nameLength + extraLength + commentLength;
  }
  return true;
}

uint32_t crc32Of(const std::vector<uint8_t> &bytes) {
  uLong crc = crc32(0, nullptr, 0);
  // zlib takes 32-bit lengths.
  for (size_t pos = 0; pos < bytes.size(); pos += 1u << 30)
    crc = crc32(crc, bytes.data() + pos,
                uInt(std::min<size_t>(bytes.size() - pos, 1u << 30)));
  return uint32_t(crc);
}

bool inflateRaw(const uint8_t *data, uint64_t size, std::vector<uint8_t> &out,
                std::string &error) {
  z_stream stream;
  std::memset(&stream, 0, sizeof(stream));
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return failWith(error, "cannot initialize zlib");
  stream.next_in = const_cast<uint8_t *>(data);
  stream.avail_in = uInt(size);
  stream.next_out = out.data();
  stream.avail_out = uInt(out.size());
  int result = inflate(&stream, Z_FINISH);
  bool ok = result == Z_STREAM_END && stream.total_out == out.size();
  inflateEnd(&stream);
  if (!ok)
    return failWith(error, "corrupted deflate data");
  return true;
}

/// The bytes of one member, inflated and checked against its CRC.
bool readZipMember(const std::vector<uint8_t> &zip, const ZipEntry &entry,
                   std::vector<uint8_t> &out, std::string &error) {
  const uint8_t *z = zip.data();
  uint64_t pos = entry.localOffset;
  if (pos > zip.size() || zip.size() - pos < 30 || le32(z + pos) != 0x04034b50)
    return failWith(error, "bad zip local header");
  uint64_t dataStart = pos + 30 + le16(z + pos + 26) + le16(z + pos + 28);
  if (dataStart > zip.size() || entry.compressedSize > zip.size() - dataStart)
    return failWith(error, "zip member data out of bounds");
  if (entry.flags & 1)
    return failWith(error, "encrypted zip members are not supported");
  const uint8_t *data = z + dataStart;
  if (entry.method == 0) {
    if (entry.size != entry.compressedSize)
      return failWith(error, "bad stored zip member size");
    out.assign(data, data + entry.size);
  } else if (entry.method == 8) {
    // Deflate expands at most ~1032 times: a larger size is corruption and
    // must not drive the allocation.
    if (entry.size > entry.compressedSize * 1032 + 1024 ||
        entry.compressedSize > 0xffffffffu || entry.size > 0xffffffffu)
      return failWith(error, "bad deflated zip member size");
    out.resize(entry.size);
    if (!inflateRaw(data, entry.compressedSize, out, error))
      return false;
  } else {
    return failWith(error, format("zip compression method %u is not "
                                  "supported (only stored and deflate)",
                                  entry.method));
  }
  if (crc32Of(out) != entry.crc)
    return failWith(error, "zip member CRC mismatch (file corrupted)");
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public functions
//===----------------------------------------------------------------------===//

std::string format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string result(length > 0 ? size_t(length) + 1 : 1, '\0');
  std::vsnprintf(&result[0], result.size(), fmt, args);
  va_end(args);
  result.resize(length > 0 ? size_t(length) : 0);
  return result;
}

uint64_t Tensor::numElements() const {
  uint64_t n = 1;
  for (int64_t d : dims)
    n *= uint64_t(d);
  return n;
}

std::string typeString(uint32_t dtype, const std::vector<int64_t> &dims) {
  const char *name = dtypeName(dtype);
  std::string result = name ? name : format("dtype(%u)", dtype);
  result += '[';
  for (size_t i = 0; i < dims.size(); ++i)
    result += format(i ? ",%lld" : "%lld", static_cast<long long>(dims[i]));
  return result + ']';
}

double getElement(const Tensor &t, uint64_t i) {
  const DTypeCodec *codec = codecOf(t.dtype);
  return codec ? codec->get(t.data.data() + i * dtypeSize(t.dtype)) : 0;
}

void setElement(Tensor &t, uint64_t i, double value) {
  if (const DTypeCodec *codec = codecOf(t.dtype))
    codec->set(t.data.data() + i * dtypeSize(t.dtype), value);
}

bool readFile(const std::string &path, std::vector<uint8_t> &bytes,
              std::string &error, uint64_t maxBytes) {
  // Checked before reading: a device such as /dev/zero would be read until
  // memory runs out.
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return failWith(error,
                    "cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return failWith(error, "cannot read '" + path + "': " +
                               (S_ISDIR(info.st_mode)
                                    ? "it is a directory"
                                    : "it is not a regular file"));
  if (uint64_t(info.st_size) > maxBytes)
    return failWith(error, "cannot read '" + path + "': it is " +
                               std::to_string(info.st_size) +
                               " bytes, more than the " +
                               std::to_string(maxBytes) +
                               " that the model's inputs can take");
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return failWith(error,
                    "cannot open '" + path + "': " + std::strerror(errno));
  bytes.clear();
  uint8_t buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    bytes.insert(bytes.end(), buffer, buffer + n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return failWith(error, "cannot read '" + path + "'");
  return true;
}

bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes,
               std::string &error) {
  return fuse::tools::writeFileSafely(path, bytes.data(), bytes.size(), error);
}

bool parseNpy(const uint8_t *data, size_t size, const std::string &path,
              Tensor &tensor, std::string &error) {
  std::string where = "'" + path + "': ";
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0)
    return failWith(error, where + "not a .npy file (bad magic)");
  uint8_t major = data[6];
  if (major < 1 || major > 3)
    return failWith(error, where + format(".npy format version %u.%u is not "
                                          "supported (1.0 to 3.0 are)",
                                          major, data[7]));
  size_t prefix = major == 1 ? 10 : 12;
  if (size < prefix)
    return failWith(error, where + "truncated .npy header");
  uint64_t headerLength = major == 1 ? le16(data + 8) : le32(data + 8);
  if (headerLength > size - prefix)
    return failWith(error, where + "truncated .npy header");
  std::string header(reinterpret_cast<const char *>(data + prefix),
                     size_t(headerLength));
  std::string descr, headerError;
  bool fortranOrder = false;
  tensor.dims.clear();
  if (!HeaderParser(header).parse(descr, fortranOrder, tensor.dims,
                                  headerError))
    return failWith(error, where + ".npy " + headerError);
  if (fortranOrder)
    return failWith(error, where + "the array is in Fortran order; save it "
                                   "in C order (np.ascontiguousarray)");
  if (descr.size() >= 2 && descr[0] == '>' && descr.substr(2) != "1")
    return failWith(error, where + "big-endian arrays ('" + descr +
                               "') are not supported; save it "
                               "little-endian (astype('<...'))");
  tensor.dtype = descr.size() >= 2 && std::strchr("<>|=", descr[0])
                     ? dtypeOfDescr(descr)
                     : 0;
  if (tensor.dtype == 0)
    return failWith(error, where + "unsupported .npy dtype '" + descr + "'");
  uint64_t bytes;
  if (!shapeBytes(tensor.dtype, tensor.dims, bytes))
    return failWith(error, where + "the .npy shape is too large");
  uint64_t available = size - prefix - headerLength;
  if (bytes != available)
    return failWith(
        error, where + format("%s needs %llu bytes of data but "
                              "the file has %llu",
                              typeString(tensor.dtype, tensor.dims).c_str(),
                              ull(bytes), ull(available)));
  const uint8_t *payload = data + prefix + headerLength;
  tensor.data.assign(payload, payload + bytes);
  return true;
}

std::vector<uint8_t> serializeNpy(const Tensor &tensor) {
  std::string shape = "(";
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    shape +=
        format(i ? ", %lld" : "%lld", static_cast<long long>(tensor.dims[i]));
  shape += tensor.dims.size() == 1 ? ",)" : ")";
  const DTypeCodec *codec = codecOf(tensor.dtype);
  std::string header = "{'descr': '" +
                       std::string(codec ? codec->npyDescr : "|V1") +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 2.0 (a u32 header length) only when 1.0's u16 is too small.
  size_t prefix = header.size() + 64 > 0xffff ? 12 : 10;
  // Pad with spaces and a newline so the data starts 64-byte aligned, as
  // numpy does.
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.resize(total - prefix - 1, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  out.push_back(prefix == 12 ? 2 : 1);
  out.push_back(0);
  if (prefix == 12)
    put32(out, uint32_t(header.size()));
  else
    put16(out, uint32_t(header.size()));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), tensor.data.begin(), tensor.data.end());
  return out;
}

bool parseNpz(const std::vector<uint8_t> &bytes, const std::string &path,
              std::vector<Tensor> &tensors, std::string &error,
              uint64_t maxMemberBytes) {
  std::vector<ZipEntry> entries;
  std::string zipError;
  if (!readCentralDirectory(bytes, entries, zipError))
    return failWith(error, "'" + path + "': " + zipError);
  for (const ZipEntry &entry : entries) {
    if (entry.size > maxMemberBytes)
      return failWith(error,
                      format("'%s' member '%s' holds %llu bytes, more than "
                             "any input of the model takes (%llu bytes with "
                             "its .npy header)",
                             path.c_str(), entry.name.c_str(),
                             (unsigned long long)entry.size,
                             (unsigned long long)maxMemberBytes));
    std::vector<uint8_t> member;
    if (!readZipMember(bytes, entry, member, zipError))
      return failWith(error, "'" + path + "' member '" + entry.name +
                                 "': " + zipError);
    Tensor tensor;
    std::string memberPath = path + "/" + entry.name;
    if (!parseNpy(member.data(), member.size(), memberPath, tensor, error))
      return false;
    // As numpy.load: a member's key is its name without ".npy" (so ".npy"
    // is the key "", which the writer writes back as ".npy").
    tensor.name = entry.name;
    if (tensor.name.size() >= 4 &&
        tensor.name.compare(tensor.name.size() - 4, 4, ".npy") == 0)
      tensor.name.resize(tensor.name.size() - 4);
    tensors.push_back(std::move(tensor));
  }
  return true;
}

bool serializeNpz(const std::vector<Tensor> &tensors, std::vector<uint8_t> &out,
                  std::string &error) {
  std::vector<uint8_t> directory;
  out.clear();
  for (const Tensor &tensor : tensors) {
    std::vector<uint8_t> npy = serializeNpy(tensor);
    std::string name = tensor.name + ".npy";
    if (name.size() > 0xffff)
      return failWith(error,
                      format("the name of output '%.40s...' is %zu bytes, "
                             "longer than a .npz member's name can be "
                             "(65,531); write a directory instead",
                             tensor.name.c_str(), tensor.name.size()));
    if (npy.size() > 0xffffffffu || out.size() > 0xffffffffu)
      return failWith(error, "output '" + tensor.name +
                                 "' is too large for a .npz file (4 GiB "
                                 "per array); write a directory instead");
    uint32_t crc = crc32Of(npy);
    uint32_t localOffset = uint32_t(out.size());
    // Local header and central directory entry share their middle fields:
    // version 2.0, no flags, stored, a fixed 1980-01-01 timestamp.
    auto common = [&](std::vector<uint8_t> &v) {
      put16(v, 20);
      put16(v, 0);
      put16(v, 0);
      put16(v, 0);
      put16(v, (0 << 9) | (1 << 5) | 1);
      put32(v, crc);
      put32(v, uint32_t(npy.size()));
      put32(v, uint32_t(npy.size()));
      put16(v, uint32_t(name.size()));
      put16(v, 0);
    };
    put32(out, 0x04034b50);
    common(out);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), npy.begin(), npy.end());

    put32(directory, 0x02014b50);
    put16(directory, 20); // Made by.
    common(directory);
    put16(directory, 0); // Comment length.
    put16(directory, 0); // Disk.
    put16(directory, 0); // Internal attributes.
    put32(directory, 0); // External attributes.
    put32(directory, localOffset);
    directory.insert(directory.end(), name.begin(), name.end());
  }
  if (out.size() > 0xffffffffu || tensors.size() > 0xffff)
    return failWith(error, "the outputs are too large for a .npz file");
  uint32_t directoryOffset = uint32_t(out.size());
  out.insert(out.end(), directory.begin(), directory.end());
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, uint32_t(tensors.size()));
  put16(out, uint32_t(tensors.size()));
  put32(out, uint32_t(directory.size()));
  put32(out, directoryOffset);
  put16(out, 0);
  return true;
}

bool parseTensorProto(const std::vector<uint8_t> &bytes,
                      const std::string &path, Tensor &tensor,
                      std::string &error) {
  std::string where = "'" + path + "': ";
  WireReader reader(bytes.data(), bytes.size());
  std::vector<uint64_t> dims, int32s, int64s, uint64s;
  std::vector<uint8_t> floats, doubles;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool haveRaw = false;
  uint64_t dataType = 0;
  tensor = Tensor();
  while (!reader.done()) {
    uint64_t key;
    if (!reader.varint(key))
      return failWith(error, where + "not a TensorProto (bad field key)");
    uint32_t field = uint32_t(key >> 3), wireType = uint32_t(key & 7);
    bool ok;
    const uint8_t *data;
    size_t n;
    uint64_t location = 0;
    switch (field) {
    case 1:
      ok = repeatedVarint(reader, wireType, dims);
      break;
    case 2:
      ok = wireType == 0 && reader.varint(dataType);
      break;
    case 4:
      ok = repeatedFixed(reader, wireType, 4, floats);
      break;
    case 5:
      ok = repeatedVarint(reader, wireType, int32s);
      break;
    case 7:
      ok = repeatedVarint(reader, wireType, int64s);
      break;
    case 8:
      ok = wireType == 2 && reader.lengthDelimited(data, n);
      if (ok)
        tensor.name.assign(reinterpret_cast<const char *>(data), n);
      break;
    case 9:
      ok = wireType == 2 && reader.lengthDelimited(raw, rawSize);
      haveRaw = ok;
      break;
    case 10:
      ok = repeatedFixed(reader, wireType, 8, doubles);
      break;
    case 11:
      ok = repeatedVarint(reader, wireType, uint64s);
      break;
    case 14: // data_location: 1 is EXTERNAL.
      ok = wireType == 0 && reader.varint(location);
      if (ok && location == 1)
        return failWith(error, where + "the tensor's data is in an external "
                                       "file, which is not supported");
      break;
    default:
      ok = reader.skip(wireType);
    }
    if (!ok)
      return failWith(
          error, where + format("not a TensorProto (bad field %u)", field));
  }
  tensor.dtype = uint32_t(dataType);
  uint32_t elementSize = dtypeSize(tensor.dtype);
  if (dataType > 0xffffffffu || elementSize == 0)
    return failWith(error, where + format("unsupported TensorProto "
                                          "data_type %llu",
                                          ull(dataType)));
  for (uint64_t d : dims) {
    if (d > uint64_t(INT64_MAX))
      return failWith(error, where + "negative dim in the TensorProto");
    tensor.dims.push_back(int64_t(d));
  }
  uint64_t size;
  if (!shapeBytes(tensor.dtype, tensor.dims, size))
    return failWith(error, where + "the TensorProto's shape is too large");
  std::string type = typeString(tensor.dtype, tensor.dims);
  if (haveRaw) {
    if (rawSize != size)
      return failWith(error, where + format("raw_data has %zu bytes but %s "
                                            "needs %llu",
                                            rawSize, type.c_str(), ull(size)));
    tensor.data.assign(raw, raw + rawSize);
    return true;
  }

  // Typed fields: which one holds a dtype is fixed by onnx.proto. The float
  // and double ones hold little-endian bytes, the others varints.
  const char *field = "int32_data";
  const std::vector<uint64_t> *varints = &int32s;
  const std::vector<uint8_t> *fixed = nullptr;
  switch (static_cast<DType>(tensor.dtype)) {
  case DType::Float32:
    field = "float_data";
    fixed = &floats;
    break;
  case DType::Float64:
    field = "double_data";
    fixed = &doubles;
    break;
  case DType::Int64:
    field = "int64_data";
    varints = &int64s;
    break;
  case DType::UInt32:
  case DType::UInt64:
    field = "uint64_data";
    varints = &uint64s;
    break;
  default:
    break;
  }
  uint64_t count = size / elementSize;
  uint64_t have = fixed ? fixed->size() / elementSize : varints->size();
  if (have != count)
    return failWith(error,
                    where + format("%s has %llu values but %s needs "
                                   "%llu",
                                   field, ull(have), type.c_str(), ull(count)));
  if (fixed) {
    tensor.data = *fixed;
    return true;
  }
  tensor.data.resize(size);
  // Little-endian truncation to the element size (a negative int32 is a
  // sign-extended varint); float16 and bfloat16 come as their bits.
  for (uint64_t i = 0; i < count; ++i)
    std::memcpy(tensor.data.data() + i * elementSize, &(*varints)[i],
                elementSize);
  return true;
}

std::vector<uint8_t> serializeTensorProto(const Tensor &tensor) {
  std::vector<uint8_t> out;
  for (int64_t d : tensor.dims) {
    putVarint(out, 1 << 3 | 0);
    putVarint(out, uint64_t(d));
  }
  putVarint(out, 2 << 3 | 0);
  putVarint(out, tensor.dtype);
  putLengthDelimited(out, 8, tensor.name.data(), tensor.name.size());
  putLengthDelimited(out, 9, tensor.data.data(), tensor.data.size());
  return out;
}

/// splitmix64: tiny, and the same sequence everywhere.
namespace {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state;
};

bool isFloat(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::Float32:
  case DType::Float16:
  case DType::Float64:
  case DType::BFloat16:
    return true;
  default:
    return false;
  }
}

} // namespace

void randomize(std::vector<Tensor> &inputs, uint64_t seed) {
  SplitMix64 random(seed);
  for (Tensor &input : inputs) {
    uint64_t n = input.numElements();
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t bits = random.next();
      double value;
      if (isFloat(input.dtype))
        value = double(bits >> 11) * 0x1p-53 * 2.0 - 1.0; // [-1, 1)
      else if (input.dtype == uint32_t(DType::Bool))
        value = double(bits & 1);
      else
        value = double(bits % 10);
      setElement(input, i, value);
    }
  }
}

} // namespace fuserun
