//===- Json.h - A small JSON reader and writer ------------------*- C++ -*-===//
//
// What fuse-run's Chrome traces and fuse-tune's timing caches need: string
// literals for writing, and a parser of untrusted text (bounded nesting,
// every error with its line and column) for reading. No dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_JSON_H
#define FUSE_TOOLS_FUSE_RUN_JSON_H

#include <string>
#include <utility>
#include <vector>

namespace fuserun {

/// `text` as a JSON string literal, quotes included.
std::string jsonString(const std::string &text);

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                            // Array
  std::vector<std::pair<std::string, JsonValue>> members;  // Object, in order
  /// Where the value starts in the text, for messages.
  int line = 1, column = 1;

  /// The last member named `name` of an object, or nullptr.
  const JsonValue *member(const std::string &name) const;
};

/// Parses one JSON value filling all of `text`. On failure returns false
/// with `error` saying where and what: "line 3, column 7: expected ':'".
bool parseJson(const std::string &text, JsonValue &value, std::string &error);

} // namespace fuserun

#endif // FUSE_TOOLS_FUSE_RUN_JSON_H
