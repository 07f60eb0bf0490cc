//===- fuzz_tensor_files.cpp - fuse-run's .npy, .npz and .pb readers ------===//
//
// Each input goes to all three readers of tools/fuse-run/TensorFiles.cpp
// (the corpus holds files of each format, and a mutation of one is often
// an interesting file of another). A tensor a reader accepts must survive
// a round trip through the matching writer and reader unchanged, and each
// of its elements is read as a double (fuse-run --check does that), so the
// readers are checked for what they accept as well as for not crashing.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include <cstdio>
#include <cstdlib>

using namespace fuserun;

namespace {

void check(bool ok, const char *what, const std::string &error) {
  if (ok)
    return;
  std::fprintf(stderr, "fuzz-tensor-files: %s: %s\n", what, error.c_str());
  std::abort();
}

bool same(const Tensor &a, const Tensor &b) {
  return a.dtype == b.dtype && a.dims == b.dims && a.data == b.data;
}

/// Reads every element (at most a million) as fuse-run --check does.
void readElements(const Tensor &tensor) {
  uint64_t n = tensor.numElements();
  volatile double sum = 0;
  for (uint64_t i = 0; i < n && i < (1u << 20); ++i)
    sum = sum + getElement(tensor, i);
  (void)sum;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  std::string error;

  Tensor npy;
  if (parseNpy(data, size, "fuzz.npy", npy, error)) {
    readElements(npy);
    std::vector<uint8_t> written = serializeNpy(npy);
    Tensor again;
    check(parseNpy(written.data(), written.size(), "again.npy", again, error),
          ".npy round trip", error);
    check(same(npy, again), ".npy round trip", "the tensor changed");
  }

  std::vector<Tensor> members;
  if (parseNpz(bytes, "fuzz.npz", members, error)) {
    for (const Tensor &member : members)
      readElements(member);
    std::vector<uint8_t> written;
    // Writing can fail (a name too long for a zip), never crash.
    if (serializeNpz(members, written, error)) {
      std::vector<Tensor> again;
      check(parseNpz(written, "again.npz", again, error), ".npz round trip",
            error);
      check(again.size() == members.size(), ".npz round trip",
            "the member count changed");
      for (size_t i = 0; i < members.size(); ++i)
        check(same(members[i], again[i]) && members[i].name == again[i].name,
              ".npz round trip", "member " + members[i].name + " changed");
    }
  }

  Tensor pb;
  if (parseTensorProto(bytes, "fuzz.pb", pb, error)) {
    readElements(pb);
    std::vector<uint8_t> written = serializeTensorProto(pb);
    Tensor again;
    check(parseTensorProto(written, "again.pb", again, error), ".pb round trip",
          error);
    check(same(pb, again) && pb.name == again.name, ".pb round trip",
          "the tensor changed");
  }
  return 0;
}
