//===- CommandLine.h - Options of fuse-run and fuse-tune --------*- C++ -*-===//
//
// The command-line conventions the two tools share: "--name VALUE" or
// "--name=VALUE", counts from 0 to 10000000, exit status 2 for bad usage
// and 1 for errors; and how they describe a model's signature and set its
// inputs.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_COMMANDLINE_H
#define FUSE_TOOLS_FUSE_RUN_COMMANDLINE_H

#include "TensorFiles.h"

#include "fuse/runtime.h"

#include <string>
#include <vector>

namespace fuserun {

/// Bad usage: "TOOL: message", a pointer to --help, exit status 2.
[[noreturn]] void usageError(const char *tool, const std::string &message);

/// An error: "error: message" on stderr, exit status 1.
[[noreturn]] void error(const std::string &message);

/// Exits with the runtime's message if `status` is an error.
void check(fuse_status status);

/// The model's inputs (or outputs) as tensors of their dtype and shape,
/// their data zeroed.
std::vector<Tensor> signature(const fuse_model *model, bool outputs);

/// Copies each of `inputs` (in the model's order) into the model.
void setInputs(fuse_model *model, const std::vector<Tensor> &inputs);

/// Walks a tool's arguments: its one positional argument (the model) and
/// its options, "--name VALUE" or "--name=VALUE".
class Arguments {
public:
  Arguments(const char *tool, const char *usage, int argc, char **argv)
      : tool(tool), usage(usage), argc(argc), argv(argv) {}

  /// Moves to the next option, storing the positional argument met on the
  /// way in `model` (a second one is bad usage); false at the end. --help
  /// (or -h) prints the usage and --version fuse's version and commit, and
  /// each exits 0.
  bool next(std::string &model, bool (*isOption)(const std::string &));
  const std::string &name() const { return option; }
  bool hasValue() const { return given; }
  /// The option's value: after its '=', else the next argument.
  const std::string &value();
  /// The value as a count from 0 to 10000000 (counts size arrays).
  long count();
  /// For a flag: a value given with '=' is bad usage.
  void noValue() const;
  [[noreturn]] void fail(const std::string &message) const {
    usageError(tool, message);
  }

private:
  const char *tool;
  const char *usage;
  int argc;
  char **argv;
  int index = 0;
  std::string option, optionValue;
  bool given = false;
};

} // namespace fuserun

#endif // FUSE_TOOLS_FUSE_RUN_COMMANDLINE_H
