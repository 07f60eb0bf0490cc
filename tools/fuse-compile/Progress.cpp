//===- Progress.cpp - What a long compile is doing ------------------------===//
//
// Everything goes to stderr through stdio, which locks, not llvm::errs():
// the compile's threads print diagnostics meanwhile, and a raw_ostream is
// not thread-safe.
//
//===----------------------------------------------------------------------===//

#include "Progress.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

using namespace fuse;

/// How often a terminal's line is drawn again (its seconds move).
static constexpr std::chrono::milliseconds kTerminalPeriod(250);

Progress::Progress(bool terminal, std::chrono::milliseconds interval)
    : terminal(terminal), interval(interval), next(start + interval),
      thread([this] { run(); }) {}

Progress::~Progress() { finish(); }

void Progress::update(llvm::StringRef newStage, int64_t newDone,
                      int64_t newKernels) {
  std::lock_guard<std::mutex> lock(mutex);
  bool newLine = stage != newStage;
  stage = newStage.str();
  done = newDone;
  kernels = newKernels;
  pending = true;
  // In a log each stage gets its line as it starts.
  Clock::time_point now = Clock::now();
  if (!terminal && !stopping && now >= start + interval &&
      (newLine || now >= next))
    printLine();
}

void Progress::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  erase();
  next = Clock::now() + std::max(interval, kTerminalPeriod);
}

void Progress::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return;
    stopping = true;
    erase();
  }
  wake.notify_all();
  thread.join();
}

void Progress::erase() {
  if (terminal && drawn)
    std::fputs("\r\033[K", stderr);
  drawn = false;
}

void Progress::printLine() {
  std::fprintf(stderr, "%s\n", describe().c_str());
  pending = false;
  next = Clock::now() + interval;
}

std::string Progress::describe() const {
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  char text[64];
  std::string line = "fuse-compile: " + stage;
  if (kernels > 0) {
    std::snprintf(text, sizeof(text), ": %" PRId64 " of %" PRId64 " kernels",
                  done, kernels);
    line += text;
  }
  std::snprintf(text, sizeof(text), ", %.1f s", seconds);
  return line + text;
}

void Progress::run() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    // Not before `next` (a clear() may move it on meanwhile), and never in
    // a busy loop, whatever the interval.
    wake.wait_until(lock, std::max(next, Clock::now() + kTerminalPeriod),
                    [&] { return stopping; });
    if (stopping || Clock::now() < next || stage.empty())
      continue;
    if (terminal) {
      std::fprintf(stderr, "\r%s\033[K", describe().c_str());
      std::fflush(stderr);
      drawn = true;
      next = Clock::now() + kTerminalPeriod;
    } else if (pending) {
      printLine();
    }
  }
}
