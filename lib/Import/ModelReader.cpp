//===- ModelReader.cpp - Bytes to onnx::ModelProto ------------------------===//
//
// Built with -fexceptions (see CMakeLists.txt): libonnx's text parser can
// throw (e.g. std::out_of_range for a huge number), and nothing may escape
// into the rest of the compiler, which is built without exceptions.
//
//===----------------------------------------------------------------------===//

#include "ModelReader.h"

#include <onnx/defs/parser.h>

#include "llvm/ADT/StringExtras.h"

#include <cstdio>
#include <exception>
#include <stdexcept>

using namespace fuse;

static bool looksLikeText(llvm::StringRef bytes, llvm::StringRef name) {
  if (name.ends_with(".onnxtxt") || name.ends_with(".onnxtext"))
    return true;
  llvm::StringRef trimmed = bytes.ltrim();
  // A binary ModelProto starts with a field tag; the text syntax with the
  // `<...>` model header or a comment.
  return trimmed.starts_with("<") || trimmed.starts_with("#");
}

static std::string readBinary(llvm::StringRef bytes,
                              ::onnx::ModelProto &model) {
  if (bytes.empty())
    return "the file is empty";
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return "the file is larger than 2 GiB, the protobuf limit";
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return "not a valid ONNX model: protobuf parsing failed (the file is "
           "truncated, corrupted, or not an ONNX model)";
  if (!model.has_graph())
    return "not a valid ONNX model: it has no graph";
  return "";
}

/// libonnx reports "[ParseError at position (line: L column: C)]\n
/// Error context: ...\n<what>". Keeps <what> and the position; the
/// diagnostic shows the context itself.
static std::string splitParseError(const std::string &message,
                                   detail::ReadPosition &position) {
  llvm::StringRef rest(message);
  size_t at = rest.find("(line: ");
  if (at != llvm::StringRef::npos) {
    unsigned line = 0, column = 0;
    if (std::sscanf(message.c_str() + at, "(line: %u column: %u)", &line,
                    &column) == 2) {
      position.line = line;
      position.column = column;
    }
  }
  llvm::StringRef what = rest.rtrim().rsplit('\n').second;
  return "ONNX text syntax error: " +
         (what.empty() ? message : what.trim().str());
}

/// The first integer literal of `text` that int64 cannot hold, where the
/// parser's std::stoll threw (it says only "stoll"): its 1-based position.
static void findHugeInteger(llvm::StringRef text,
                            detail::ReadPosition &position) {
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    if (!llvm::isDigit(text[i])) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && llvm::isDigit(text[end]))
      ++end;
    llvm::StringRef digits = text.slice(i, end).ltrim('0');
    if (digits.size() > 19 ||
        (digits.size() == 19 && digits > "9223372036854775807")) {
      position.line = line;
      position.column = column;
      return;
    }
    column += end - i;
    i = end;
  }
}

static std::string readText(llvm::StringRef bytes, ::onnx::ModelProto &model,
                            detail::ReadPosition &position) {
  // The parser needs a NUL-terminated string.
  std::string text = bytes.str();
  ::onnx::OnnxParser parser(text.c_str());
  ::onnx::Status status;
  try {
    status = parser.Parse(model);
  } catch (const std::out_of_range &) {
    findHugeInteger(bytes, position);
    return "ONNX text syntax error: an integer does not fit in 64 bits";
  }
  if (!status.IsOK())
    return splitParseError(status.ErrorMessage(), position);
  if (!parser.EndOfInput())
    return "ONNX text syntax error: unexpected text after the graph";
  return "";
}

std::string fuse::detail::readModelProto(llvm::StringRef bytes,
                                         llvm::StringRef sourceName,
                                         ImportOptions::Format format,
                                         ::onnx::ModelProto &model,
                                         bool &isText, ReadPosition &position) {
  bool text = format == ImportOptions::Format::Text ||
              (format == ImportOptions::Format::Auto &&
               looksLikeText(bytes, sourceName));
  isText = text;
  try {
    return text ? readText(bytes, model, position) : readBinary(bytes, model);
  } catch (const std::exception &e) {
    return std::string(text ? "ONNX text syntax error: "
                            : "cannot read the model: ") +
           e.what();
  } catch (...) {
    return "cannot read the model: unknown error";
  }
}
