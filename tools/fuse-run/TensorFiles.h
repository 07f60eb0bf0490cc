//===- TensorFiles.h - Tensors in .npy, .npz and .pb files ------*- C++ -*-===//
//
// The file formats fuse-run reads inputs from and writes outputs to:
// numpy's .npy (versions 1.0 to 3.0, little-endian, C order) and .npz (a
// zip of .npy members, stored or deflated), and ONNX TensorProto (.pb),
// parsed from the protobuf wire format by hand so that fuse-run needs no
// protobuf library. Every reader checks its input against its own size and
// reports a bad file as an error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_TENSORFILES_H
#define FUSE_TOOLS_FUSE_RUN_TENSORFILES_H

#include <cstdint>
#include <string>
#include <vector>

namespace fuserun {

/// A host tensor: dtype in ONNX numbering, dense C-order data.
struct Tensor {
  std::string name;
  uint32_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;

  uint64_t numElements() const;
};

/// printf into a std::string.
std::string format(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// "float32[2,3]".
std::string typeString(uint32_t dtype, const std::vector<int64_t> &dims);

/// Fills the tensors with seeded random values (never all zeros): floats
/// uniform in [-1, 1), integers in [0, 10), bools 0 or 1, drawn with
/// splitmix64 in order, so the same on every machine.
void randomize(std::vector<Tensor> &tensors, uint64_t seed);

/// Element `i` of `tensor` as a double, and back (rounded to the dtype).
double getElement(const Tensor &tensor, uint64_t i);
void setElement(Tensor &tensor, uint64_t i, double value);

// Readers and writers return false and set `error` on failure. `path`
// names the file in messages. readFile refuses what is not a regular file
// and files of more than `maxBytes`, before reading.
bool readFile(const std::string &path, std::vector<uint8_t> &bytes,
              std::string &error, uint64_t maxBytes = UINT64_MAX);
/// writeFile replaces a file only once the new one is complete
/// (fuse::tools::OutputFile).
bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes,
               std::string &error);

bool parseNpy(const uint8_t *data, size_t size, const std::string &path,
              Tensor &tensor, std::string &error);
std::vector<uint8_t> serializeNpy(const Tensor &tensor);
/// Arrays named after their members, without the ".npy". A member larger
/// than `maxMemberBytes` once inflated is an error before it is inflated
/// (a small zip bomb would otherwise take gigabytes).
bool parseNpz(const std::vector<uint8_t> &bytes, const std::string &path,
              std::vector<Tensor> &tensors, std::string &error,
              uint64_t maxMemberBytes = UINT64_MAX);
/// A zip of stored (uncompressed) `<name>.npy` members.
bool serializeNpz(const std::vector<Tensor> &tensors,
                  std::vector<uint8_t> &bytes, std::string &error);
bool parseTensorProto(const std::vector<uint8_t> &bytes,
                      const std::string &path, Tensor &tensor,
                      std::string &error);
/// A TensorProto with dims, data_type, name and raw_data.
std::vector<uint8_t> serializeTensorProto(const Tensor &tensor);

} // namespace fuserun

#endif // FUSE_TOOLS_FUSE_RUN_TENSORFILES_H
