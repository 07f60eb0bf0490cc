//===- Progress.h - What a long compile is doing ----------------*- C++ -*-===//
//
// fuse-compile's progress on stderr: the stage and, while the kernels are
// lowered one at a time, how many of them are through, with the time since
// the compile started. Nothing for a compile under a second. On a
// terminal, one line rewritten in place and erased at the end; elsewhere
// (--progress into a log), a line as each stage starts, and within a stage
// at most one a second, when there is news.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_COMPILE_PROGRESS_H
#define FUSE_TOOLS_FUSE_COMPILE_PROGRESS_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace fuse {

class Progress {
public:
  /// Starts the clock. `terminal`: one line rewritten in place. `interval`:
  /// the time before the first report and, in a log, the least time
  /// between two lines of one stage (a second; 0 in tests, which then see
  /// every report).
  Progress(bool terminal, std::chrono::milliseconds interval);
  /// finish().
  ~Progress();

  /// The compile is at `stage`, `done` of its `kernels` through it (0 of
  /// 0: it does not count kernels). Any thread.
  void update(llvm::StringRef stage, int64_t done, int64_t kernels);
  /// Erases the line on a terminal, before something else is printed
  /// there (a diagnostic); it is drawn again a period later.
  void clear();
  /// Stops reporting and erases the line on a terminal.
  void finish();

private:
  using Clock = std::chrono::steady_clock;
  /// The reporting thread: on a terminal draws the line every period, in a
  /// log prints what update() held back.
  void run();
  /// Prints the state on a line of its own (in a log).
  void printLine();
  /// The line, without an end.
  std::string describe() const;
  void erase();

  const bool terminal;
  const std::chrono::milliseconds interval;
  const Clock::time_point start = Clock::now();
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::string stage;
  int64_t done = 0, kernels = 0;
  /// On a terminal, whether the line is drawn; in a log, whether there is
  /// news since the last line.
  bool drawn = false, pending = false;
  /// When the next line may be drawn (printed, in a log).
  Clock::time_point next;
  std::thread thread;
};

} // namespace fuse

#endif // FUSE_TOOLS_FUSE_COMPILE_PROGRESS_H
