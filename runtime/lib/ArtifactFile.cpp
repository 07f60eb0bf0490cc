//===- ArtifactFile.cpp - Read an artifact file, save a tuned one ---------===//

#include "ArtifactFile.h"
#include "Error.h"

#include "OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fuse::artifact;

namespace fuse {
namespace runtime {

namespace {

using ull = unsigned long long;

/// Offset of FileHeader::checksum in the file.
constexpr size_t kChecksumOffset = 24;

uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

/// The decoded Plan section of `bytes`, with the choices of `a`.
fuse_status retunedPlanSection(const Artifact &a,
                               const std::vector<uint8_t> &bytes,
                               std::vector<uint8_t> &section) {
  const uint8_t *begin = bytes.data() + a.planSectionOffset;
  std::vector<uint8_t> original(begin, begin + a.planSectionSize);
  PlanSection plans;
  std::string message;
  if (!decode(original, plans, message, a.formatVersion))
    return fail(FUSE_ERROR_FORMAT, "artifact: Plan section: %s",
                message.c_str());
  // Everything but the choices must come back byte for byte: the encoding
  // is one function of the records, so this holds for any valid file.
  if (encode(plans, a.formatVersion) != original ||
      plans.plans.size() != a.plans.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the Plan section does not encode back to its own "
                "bytes; it cannot be rewritten");
  for (size_t p = 0; p < plans.plans.size(); ++p) {
    std::vector<ChoiceDesc> &choices = plans.plans[p].choices;
    if (choices.size() != a.plans[p].choices.size())
      return fail(FUSE_ERROR_FORMAT,
                  "artifact: plan '%s' has %zu choices in the file but %zu "
                  "were loaded",
                  a.plans[p].name.c_str(), choices.size(),
                  a.plans[p].choices.size());
    for (size_t c = 0; c < choices.size(); ++c) {
      const ChoiceDesc &loaded = a.plans[p].choices[c];
      choices[c].selected = loaded.selected;
      choices[c].tuned = loaded.tuned;
      for (size_t i = 0; i < choices[c].candidates.size(); ++i)
        choices[c].candidates[i].timeMs = loaded.candidates[i].timeMs;
    }
  }
  section = encode(plans, a.formatVersion);
  // Only fixed-size fields changed.
  if (section.size() != original.size())
    return fail(FUSE_ERROR_FORMAT,
                "artifact: the rewritten Plan section changed size");
  return FUSE_OK;
}

bool sameFile(const std::string &a, const char *b) {
  struct stat x, y;
  return stat(a.c_str(), &x) == 0 && stat(b, &y) == 0 &&
         x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

} // namespace

fuse_status writeAtomically(const char *path, const uint8_t *data,
                            uint64_t size) {
  std::string error;
  if (!tools::writeFileSafely(tools::asFileName(path), data, size, error))
    return fail(FUSE_ERROR_IO, "%s", error.c_str());
  return FUSE_OK;
}

fuse_status readFile(const char *path, std::vector<uint8_t> &bytes) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(FUSE_ERROR_IO, "cannot open '%s': %s", path,
                std::strerror(errno));
  struct stat info;
  const char *notFile = nullptr;
  if (fstat(fd, &info) != 0)
    notFile = std::strerror(errno);
  else if (!S_ISREG(info.st_mode))
    notFile = S_ISDIR(info.st_mode) ? "it is a directory"
                                    : "it is not a regular file";
  if (notFile) {
    close(fd);
    return fail(FUSE_ERROR_IO, "cannot read '%s': %s", path, notFile);
  }
  bytes.resize(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int error = errno;
      close(fd);
      return fail(FUSE_ERROR_IO, "cannot read '%s': %s", path,
                  n == 0 ? "the file shrank while being read"
                         : std::strerror(error));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return FUSE_OK;
}

fuse_status saveArtifact(const Artifact &a, const std::string &source,
                         uint64_t &checksum, const char *path) {
  std::vector<uint8_t> bytes;
  if (fuse_status s = readFile(source.c_str(), bytes))
    return s;
  if (bytes.size() < sizeof(FileHeader) ||
      le64(bytes.data() + kChecksumOffset) != checksum ||
      a.planSectionOffset + a.planSectionSize > bytes.size())
    return fail(FUSE_ERROR_IO,
                "cannot save: '%s', which the model was loaded from, has "
                "changed since",
                source.c_str());
  std::vector<uint8_t> section;
  if (fuse_status s = retunedPlanSection(a, bytes, section))
    return s;
  std::memcpy(bytes.data() + a.planSectionOffset, section.data(),
              section.size());
  uint64_t newChecksum = fnv1a64(bytes.data() + sizeof(FileHeader),
                                 bytes.size() - sizeof(FileHeader));
  for (int i = 0; i < 8; ++i)
    bytes[kChecksumOffset + i] = uint8_t(newChecksum >> (8 * i));
  bool overSource = sameFile(source, path);
  if (fuse_status s = writeAtomically(path, bytes.data(), bytes.size()))
    return s;
  if (overSource)
    checksum = newChecksum;
  return FUSE_OK;
}

} // namespace runtime
} // namespace fuse
