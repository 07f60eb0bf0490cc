//===- OutputFile.cpp - Outputs that never destroy a user's file ----------===//

#include "OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fuse {
namespace tools {

std::string checkNotAnInput(const std::string &output,
                            const std::vector<InputFile> &inputs) {
  struct stat out;
  if (output == "-" || stat(output.c_str(), &out) != 0)
    return "";
  for (const InputFile &input : inputs) {
    struct stat in;
    if (input.path == "-" || stat(input.path.c_str(), &in) != 0 ||
        in.st_dev != out.st_dev || in.st_ino != out.st_ino)
      continue;
    std::string error = "'" + output + "' is " + input.role;
    if (input.path != output)
      error += " ('" + input.path + "')";
    return error + ", which this run reads: write to another file";
  }
  return "";
}

OutputFile::~OutputFile() {
  if (ownsDescriptor)
    close(descriptor);
  if (!temporary.empty())
    unlink(temporary.c_str());
}

bool OutputFile::open(const std::string &name, std::string &error) {
  path = name;
  if (path == "-") {
    descriptor = STDOUT_FILENO;
    return true;
  }
  struct stat existing;
  if (stat(path.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) {
      error = "cannot write '" + path + "': it is a directory";
      return false;
    }
    if (!S_ISREG(existing.st_mode)) {
      // A device or a pipe cannot be replaced; it is what the user named.
      descriptor = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (descriptor < 0) {
        error = "cannot write '" + path + "': " + std::strerror(errno);
        return false;
      }
      ownsDescriptor = true;
      return true;
    }
    char resolved[PATH_MAX];
    target = realpath(path.c_str(), resolved) ? resolved : path;
  } else {
    target = path;
  }
  temporary = target + ".tmp-XXXXXX";
  descriptor = mkostemp(&temporary[0], O_CLOEXEC);
  if (descriptor < 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    temporary.clear();
    return false;
  }
  ownsDescriptor = true;
  return true;
}

bool OutputFile::commit(std::string &error) {
  int failure = 0;
  if (!temporary.empty()) {
    struct stat existing;
    mode_t mode;
    if (stat(target.c_str(), &existing) == 0) {
      mode = existing.st_mode & 07777;
    } else {
      mode_t mask = umask(0);
      umask(mask);
      mode = 0666 & ~mask;
    }
    if (fchmod(descriptor, mode) != 0)
      failure = errno;
  }
  if (ownsDescriptor) {
    ownsDescriptor = false;
    if (close(descriptor) != 0 && !failure)
      failure = errno;
  }
  if (!failure && !temporary.empty() &&
      rename(temporary.c_str(), target.c_str()) != 0)
    failure = errno;
  if (failure) {
    error = "cannot write '" + path + "': " + std::strerror(failure);
    return false;
  }
  temporary.clear();
  return true;
}

bool writeFileSafely(const std::string &path, const uint8_t *data, size_t size,
                     std::string &error) {
  OutputFile file;
  if (!file.open(path, error))
    return false;
  while (size > 0) {
    ssize_t n = write(file.fd(), data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error =
          "cannot write '" + path + "': " + std::strerror(n < 0 ? errno : EIO);
      return false;
    }
    data += n;
    size -= size_t(n);
  }
  return file.commit(error);
}

} // namespace tools
} // namespace fuse
