//===- OutputFile.h - Outputs that never destroy a user's file -*- C++ -*-===//
//
// Every fuse tool writes its outputs through this file, so that no run
// loses a file the user has: an output that is one of the run's inputs (by
// device and inode, so links and other names of it are caught) is refused
// before any work, and an output is written to a temporary file beside it
// and renamed over the old one only once it is complete, so that a failed
// or killed run leaves the old file as it was. Free of LLVM: fuse-run and
// fuse-tune use it too.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_SUPPORT_OUTPUTFILE_H
#define FUSE_TOOLS_SUPPORT_OUTPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fuse {
namespace tools {

/// A file a run reads: `role` names it in the error ("the model", "its
/// external data", "--inputs").
struct InputFile {
  std::string role;
  std::string path;
};

/// Why `output` must not be written, or empty when it may: it is the same
/// file as one of `inputs` (an output that does not exist yet is none).
std::string checkNotAnInput(const std::string &output,
                            const std::vector<InputFile> &inputs);

/// One output file, written in full before it replaces `path`.
class OutputFile {
public:
  OutputFile() = default;
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Removes the temporary file unless committed.
  ~OutputFile();

  /// Opens the output. "-" is standard output, and an existing file that
  /// is not a regular file (/dev/null, a pipe) is written in place;
  /// otherwise the bytes go to a temporary file beside `path` (beside the
  /// file a symbolic link names, so that the link stays). A directory is
  /// an error. False with `error` set on failure.
  bool open(const std::string &path, std::string &error);

  /// Where to write.
  int fd() const { return descriptor; }

  /// The temporary file ("" when written in place), for a tool that
  /// removes it on a signal.
  const std::string &temporaryPath() const { return temporary; }

  /// Closes the output and renames the temporary file over `path`, with
  /// the mode the old file had (new files get 0666 less the umask). False
  /// with `error` set on failure; the old file is then unchanged.
  bool commit(std::string &error);

private:
  std::string path;
  std::string target;
  std::string temporary;
  int descriptor = -1;
  bool ownsDescriptor = false;
};

/// Writes all `size` bytes to `fd` (past short writes and EINTR); false
/// with errno set on failure (EIO when a write wrote nothing).
bool writeAll(int fd, const uint8_t *data, size_t size);

/// `path` as a file's name for OutputFile, which takes "-" for standard
/// output: "./-" for "-", `path` otherwise (for files that are always
/// files, such as the runtime's saved artifact and fuse-tune's cache).
std::string asFileName(const std::string &path);

/// Writes `size` bytes to `path` through an OutputFile. False with `error`
/// set on failure.
bool writeFileSafely(const std::string &path, const uint8_t *data, size_t size,
                     std::string &error);

} // namespace tools
} // namespace fuse

#endif // FUSE_TOOLS_SUPPORT_OUTPUTFILE_H
