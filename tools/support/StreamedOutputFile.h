//===- StreamedOutputFile.h - OutputFile behind a stream --------*- C++ -*-===//
//
// For the tools built on LLVM (fuse-compile, fuse-opt, fuse-translate and
// the Python package's compiler): the OutputFile's temporary file is
// removed on a signal such as Ctrl-C until it is committed, and a failed
// write (a full disk, /dev/full) is an error message, not LLVM's abort.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_SUPPORT_STREAMEDOUTPUTFILE_H
#define FUSE_TOOLS_SUPPORT_STREAMEDOUTPUTFILE_H

#include "OutputFile.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace fuse {
namespace tools {

class StreamedOutputFile {
public:
  ~StreamedOutputFile() {
    if (stream) {
      stream->flush();
      stream->clear_error();
    }
    if (!removedOnSignal.empty())
      llvm::sys::DontRemoveFileOnSignal(removedOnSignal);
  }

  /// As OutputFile::open.
  bool open(const std::string &path, std::string &error) {
    if (!file.open(path, error))
      return false;
    removedOnSignal = file.temporaryPath();
    if (!removedOnSignal.empty())
      llvm::sys::RemoveFileOnSignal(removedOnSignal);
    stream = std::make_unique<llvm::raw_fd_ostream>(file.fd(),
                                                    /*shouldClose=*/false);
    name = path;
    return true;
  }

  llvm::raw_ostream &os() { return *stream; }

  /// Flushes the stream and commits the file; false with `error` set when
  /// a write failed or the rename did.
  bool commit(std::string &error) {
    stream->flush();
    if (std::error_code ec = stream->error()) {
      error = "cannot write '" + name + "': " + ec.message();
      stream->clear_error();
      return false;
    }
    return file.commit(error);
  }

private:
  OutputFile file;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  std::string name;
  std::string removedOnSignal;
};

} // namespace tools
} // namespace fuse

#endif // FUSE_TOOLS_SUPPORT_STREAMEDOUTPUTFILE_H
