//===- Json.cpp - A small JSON reader and writer --------------------------===//

#include "Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fuserun {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += char(c);
    else if (c < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      out += escape;
    } else
      out += char(c);
  }
  return out + "\"";
}

const JsonValue *JsonValue::member(const std::string &name) const {
  const JsonValue *found = nullptr;
  for (const auto &m : members)
    if (m.first == name)
      found = &m.second;
  return found;
}

namespace {

/// Recursive descent over the text; the first error stops it.
class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  bool parse(JsonValue &value, std::string &error) {
    bool ok = parseValue(value, 0) && (skipSpace(), true) &&
              (pos == text.size() || fail("text after the JSON value"));
    error = message;
    return ok;
  }

private:
  /// Deeper nesting is refused, so that the recursion is bounded.
  static constexpr int kMaxDepth = 64;

  bool fail(const std::string &what) {
    if (message.empty()) {
      int line = 1, column = 1;
      for (size_t i = 0; i < pos && i < text.size(); ++i) {
        if (text[i] == '\n')
          ++line, column = 1;
        else
          ++column;
      }
      message = "line " + std::to_string(line) + ", column " +
                std::to_string(column) + ": " + what;
    }
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool expect(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return fail(std::string("expected '") + c + "'");
  }

  void locate(JsonValue &value) {
    value.line = 1, value.column = 1;
    for (size_t i = 0; i < pos; ++i) {
      if (text[i] == '\n')
        ++value.line, value.column = 1;
      else
        ++value.column;
    }
  }

  bool parseValue(JsonValue &value, int depth) {
    skipSpace();
    locate(value);
    if (pos >= text.size())
      return fail("expected a value, found the end of the text");
    char c = text[pos];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        return fail("nested more than " + std::to_string(kMaxDepth) +
                    " deep");
      return c == '{' ? parseObject(value, depth) : parseArray(value, depth);
    }
    if (c == '"') {
      value.kind = JsonValue::String;
      return parseString(value.string);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(value);
    for (const char *word : {"true", "false", "null"})
      if (text.compare(pos, std::string(word).size(), word) == 0) {
        pos += std::string(word).size();
        value.kind = word[0] == 'n' ? JsonValue::Null : JsonValue::Bool;
        value.boolean = word[0] == 't';
        return true;
      }
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Object;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == '}')
      return ++pos, true;
    for (;;) {
      skipSpace();
      std::string name;
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a member name in double quotes");
      if (!parseString(name) || !expect(':'))
        return false;
      value.members.emplace_back(name, JsonValue());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      return expect('}');
    }
  }

  bool parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Array;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == ']')
      return ++pos, true;
    for (;;) {
      value.items.emplace_back();
      if (!parseValue(value.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      return expect(']');
    }
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xc0 | code >> 6);
      out += char(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += char(0xe0 | code >> 12);
      out += char(0x80 | (code >> 6 & 0x3f));
      out += char(0x80 | (code & 0x3f));
    } else {
      out += char(0xf0 | code >> 18);
      out += char(0x80 | (code >> 12 & 0x3f));
      out += char(0x80 | (code >> 6 & 0x3f));
      out += char(0x80 | (code & 0x3f));
    }
  }

  bool hex4(unsigned &code) {
    code = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = pos < text.size() ? text[pos] : '\0';
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0)
        return fail("expected four hex digits after \\u");
      code = code << 4 | unsigned(digit);
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // The opening quote.
    for (;;) {
      if (pos >= text.size())
        return fail("unterminated string");
      unsigned char c = text[pos];
      if (c == '"')
        return ++pos, true;
      if (c < 0x20)
        return fail("control character in a string (escape it)");
      if (c != '\\') {
        out += char(c);
        ++pos;
        continue;
      }
      char e = ++pos < text.size() ? text[pos] : '\0';
      ++pos;
      switch (e) {
      case '"': case '\\': case '/': out += e; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned code;
        if (!hex4(code))
          return false;
        // A surrogate pair is one code point.
        if (code >= 0xd800 && code < 0xdc00 &&
            text.compare(pos, 2, "\\u") == 0) {
          pos += 2;
          unsigned low;
          if (!hex4(low))
            return false;
          if (low < 0xdc00 || low >= 0xe000)
            return fail("a high surrogate not followed by a low one");
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        } else if (code >= 0xd800 && code < 0xe000) {
          return fail("an unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        return fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  bool parseNumber(JsonValue &value) {
    size_t start = pos;
    auto digits = [&] {
      size_t from = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos > from;
    };
    if (text[pos] == '-')
      ++pos;
    if (pos < text.size() && text[pos] == '0')
      ++pos;
    else if (!digits())
      return fail("expected digits");
    if (pos < text.size() && text[pos] == '.' && (++pos, !digits()))
      return fail("expected digits after '.'");
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("expected digits in the exponent");
    }
    value.kind = JsonValue::Number;
    value.number = std::strtod(text.substr(start, pos - start).c_str(),
                               nullptr);
    if (!std::isfinite(value.number)) {
      pos = start;
      return fail("number out of range");
    }
    return true;
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};

} // namespace

bool parseJson(const std::string &text, JsonValue &value, std::string &error) {
  value = JsonValue();
  return Parser(text).parse(value, error);
}

} // namespace fuserun
