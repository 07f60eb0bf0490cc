//===- OutputFile.cpp - Outputs that never destroy a user's file ----------===//

#include "OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
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

/// The process's umask, read without changing it (umask() sets it, which
/// another thread could see: the Python package compiles without the GIL).
static mode_t currentUmask() {
  if (FILE *status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned mask;
    while (std::fgets(line, sizeof(line), status))
      if (std::sscanf(line, "Umask: %o", &mask) == 1) {
        std::fclose(status);
        return mode_t(mask);
      }
    std::fclose(status);
  }
  return 022;
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
    // Standard output or error under another name (/dev/stdout redirected
    // to a file): replacing the file would lose what the shell writes
    // around it, so it is written in place, as "-" is.
    for (int standard : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat stream;
      if (fstat(standard, &stream) == 0 && stream.st_dev == existing.st_dev &&
          stream.st_ino == existing.st_ino) {
        descriptor = standard;
        return true;
      }
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
    // A symbolic link to a file not there yet: the file is made, the link
    // stays.
    char link[PATH_MAX];
    ssize_t length = readlink(path.c_str(), link, sizeof(link) - 1);
    if (length > 0) {
      std::string to(link, size_t(length));
      size_t slash = path.find_last_of('/');
      target = to[0] == '/' || slash == std::string::npos
                   ? to
                   : path.substr(0, slash + 1) + to;
    }
  }
  // A short name beside the target: a long file name plus a suffix could
  // pass the file system's limit on a name.
  size_t slash = target.find_last_of('/');
  temporary = (slash == std::string::npos ? std::string()
                                          : target.substr(0, slash + 1)) +
              ".fuse-XXXXXX";
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
      mode = 0666 & ~currentUmask();
    }
    // On disk before the rename, so that a crash cannot leave an empty
    // file in the old one's place.
    if (fchmod(descriptor, mode) != 0 || fsync(descriptor) != 0)
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

bool writeAll(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    data += n;
    size -= size_t(n);
  }
  return true;
}

std::string asFileName(const std::string &path) {
  return path == "-" ? "./-" : path;
}

bool writeFileSafely(const std::string &path, const uint8_t *data, size_t size,
                     std::string &error) {
  OutputFile file;
  if (!file.open(path, error))
    return false;
  if (!writeAll(file.fd(), data, size)) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return file.commit(error);
}

} // namespace tools
} // namespace fuse
