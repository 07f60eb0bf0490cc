//===- CommandLine.cpp - Options of fuse-run and fuse-tune ----------------===//

#include "CommandLine.h"

#include "fuse/Version.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace fuserun {

void usageError(const char *tool, const std::string &message) {
  std::fprintf(stderr, "%s: %s\n(run '%s --help' for usage)\n", tool,
               message.c_str(), tool);
  std::exit(2);
}

void error(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

void check(fuse_status status) {
  if (status != FUSE_OK)
    error(fuse_last_error());
}

std::vector<Tensor> signature(const fuse_model *model, bool outputs) {
  std::vector<Tensor> tensors;
  size_t n =
      outputs ? fuse_model_num_outputs(model) : fuse_model_num_inputs(model);
  for (size_t i = 0; i < n; ++i) {
    fuse_tensor_info info;
    check(outputs ? fuse_model_output_info(model, i, &info)
                  : fuse_model_input_info(model, i, &info));
    Tensor tensor;
    tensor.name = info.name;
    tensor.dtype = info.dtype;
    tensor.dims.assign(info.dims, info.dims + info.rank);
    tensor.data.resize(info.bytes);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

void setInputs(fuse_model *model, const std::vector<Tensor> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    check(fuse_model_set_input(model, i, inputs[i].data.data(),
                               inputs[i].data.size()));
}

bool Arguments::next(std::string &model,
                     bool (*isOption)(const std::string &)) {
  while (++index < argc) {
    std::string arg = argv[index];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (arg == "--version") {
      std::printf("%s\n", fuse::getVersionLine(tool).c_str());
      std::exit(0);
    }
    if (!isOption(arg)) {
      if (!model.empty())
        fail("more than one model given ('" + model + "' and '" + arg + "')");
      model = arg;
      continue;
    }
    size_t equals = arg.find('=');
    given = equals != std::string::npos;
    option = arg.substr(0, equals);
    optionValue = given ? arg.substr(equals + 1) : std::string();
    return true;
  }
  return false;
}

const std::string &Arguments::value() {
  if (!given) {
    if (index + 1 >= argc)
      fail(option + " needs a value");
    optionValue = argv[++index];
    given = true;
  }
  return optionValue;
}

long Arguments::count() {
  const std::string &text = value();
  errno = 0;
  char *end = nullptr;
  unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || text[0] == '+' || errno != 0 ||
      *end != '\0' || n > 10000000)
    fail(option + " needs a count from 0 to 10000000, not '" + text + "'");
  return long(n);
}

void Arguments::noValue() const {
  if (given)
    fail(option + " takes no value");
}

} // namespace fuserun
