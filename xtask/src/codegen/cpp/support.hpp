// The hand-written part of contract.hpp: the errors a reader throws, the
// secret string, and the checks the generated readers call.

/// The enum value a wire spelling names (specialised for every enum below).
template <class Enum>
std::optional<Enum> parse(std::string_view text);

namespace detail {

/// Text from the input with what would break or reorder its line escaped
/// as a backslash, `u` and four hex digits: C0 and C1 controls and DEL,
/// U+2028 and U+2029, and the bidirectional marks, embeddings, overrides
/// and isolates. A message built from it stays one line and says only what
/// it says. The text is UTF-8 (the readers refuse anything else), so each
/// of these is one two- or three-byte sequence.
inline std::string printable(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](unsigned code) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out.push_back(hex[(code >> shift) & 0xfu]);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    auto next = [&](std::size_t at) { return at < text.size() ? static_cast<unsigned char>(text[at]) : 0u; };
    if (byte < 0x20 || byte == 0x7f) {
      escape(byte);
    } else if (byte == 0xc2 && next(i + 1) >= 0x80 && next(i + 1) <= 0x9f) {
      escape(next(i + 1));  // U+0080..U+009F
      i += 1;
    } else if (byte == 0xe2 && (next(i + 1) == 0x80 || next(i + 1) == 0x81)) {
      unsigned code = 0x2000u | ((next(i + 1) & 0x3fu) << 6) | (next(i + 2) & 0x3fu);
      bool breaks_or_reorders = code == 0x200e || code == 0x200f || code == 0x2028 || code == 0x2029 ||
                                (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
      if (breaks_or_reorders) {
        escape(code);
        i += 2;
      } else {
        out.push_back(text[i]);
      }
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

/// `text` with its middle left out when it is longer than 1,024 bytes: the
/// first 512 and the last 256 bytes kept (cut where a character starts),
/// and how many bytes were left out said between them. A pointer is made of
/// member names from the input, and a name may be as long as a frame.
inline std::string shortened(std::string_view text) {
  constexpr std::size_t most = 1024;
  if (text.size() <= most) return std::string(text);
  auto continuation = [&text](std::size_t at) {
    return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  };
  std::size_t head = most / 2;
  while (head > 0 && continuation(head)) --head;
  std::size_t tail = text.size() - most / 4;
  while (tail < text.size() && continuation(tail)) ++tail;
  return std::string(text.substr(0, head)) + "... (" + std::to_string(tail - head) + " bytes left out) ..." +
         std::string(text.substr(tail));
}

}  // namespace detail

/// A JSON value that is not what the contract says. `pointer()` is the JSON
/// pointer of the offending value inside what was decoded ("" for the
/// whole), exactly; `what()` prints it with control characters escaped, and
/// its middle left out past 1,024 bytes.
class ContractError : public std::runtime_error {
 public:
  ContractError(std::string pointer, const std::string& why)
      : std::runtime_error("at " +
                           (pointer.empty() ? std::string("/") : detail::printable(detail::shortened(pointer))) +
                           ": " + why),
        pointer_(std::move(pointer)) {}
  const std::string& pointer() const noexcept { return pointer_; }

 private:
  std::string pointer_;
};

/// An envelope whose `v` is a version this reader does not speak; nothing
/// after `v` was read, since a later version may change all of it.
class VersionError : public ContractError {
 public:
  explicit VersionError(std::uint64_t version)
      : ContractError("/v", "protocol version " + std::to_string(version) + " is not " +
                                std::to_string(PROTOCOL_VERSION)),
        version_(version) {}
  std::uint64_t version() const noexcept { return version_; }

 private:
  std::uint64_t version_;
};

/// A credential (`x-secret` in the schemas). It has no stream operator and no
/// conversion to a string: `reveal()` is the one way to read it, so it is not
/// printed by accident.
class SecretString {
 public:
  SecretString() = default;
  explicit SecretString(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const noexcept { return value_; }
  friend bool operator==(const SecretString& a, const SecretString& b) { return a.value_ == b.value_; }
  friend bool operator!=(const SecretString& a, const SecretString& b) { return !(a == b); }

 private:
  std::string value_;
};

inline void to_json(nlohmann::json& j, const SecretString& secret) { j = secret.reveal(); }

namespace detail {

using json = nlohmann::json;

/// A member name as a JSON pointer token (RFC 6901): `~` as `~0`, `/` as `~1`.
inline std::string pointer_token(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// The JSON pointer of the value being read; `Step` appends one token and
/// takes it off again, so a reader builds no string unless it fails.
/// Where a reader stands, as the tokens down to it: member names (views of
/// the generated code's literals or of the document's own keys, both alive
/// while the document is read) and indexes. The JSON pointer is spelled only
/// when a failure names it, so a read that passes builds no text.
struct Path {
  struct Token {
    std::string_view name;
    std::size_t index;
    bool is_index;
  };
  std::vector<Token> tokens;

  std::string text() const {
    std::string out;
    for (const Token& token : tokens) {
      out.push_back('/');
      out += token.is_index ? std::to_string(token.index) : pointer_token(token.name);
    }
    return out;
  }
};

class Step {
 public:
  Step(Path& path, std::string_view token) : path_(path) { path_.tokens.push_back({token, 0, false}); }
  Step(Path& path, std::size_t index) : path_(path) { path_.tokens.push_back({{}, index, true}); }
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;
  ~Step() { path_.tokens.pop_back(); }

 private:
  Path& path_;
};

[[noreturn]] inline void fail(const Path& at, const std::string& why) { throw ContractError(at.text(), why); }

inline const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number written with a fraction, an exponent or as -0";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    // Each listed, so an engine built with -Wswitch-enum compiles this.
    case json::value_t::binary:
    case json::value_t::discarded: return "not a JSON value";
  }
  return "not a JSON value";
}

[[noreturn]] inline void wrong_type(const json& v, const char* wanted, const Path& at) {
  fail(at, std::string("expected ") + wanted + ", found " + type_name(v));
}

inline void expect_object(const json& v, const Path& at) {
  if (!v.is_object()) wrong_type(v, "an object", at);
}

inline void expect_array(const json& v, std::size_t max_items, const Path& at) {
  if (!v.is_array()) wrong_type(v, "an array", at);
  if (v.size() > max_items) {
    fail(at, std::to_string(v.size()) + " items, more than the " + std::to_string(max_items) + " allowed");
  }
}

/// A field that must be present: its value, or a ContractError at its place.
inline const json& required(const json& object, std::string_view name, const Path& at) {
  auto it = object.find(name);
  if (it == object.end()) fail(at, "required, and missing");
  return *it;
}

inline const json* optional(const json& object, std::string_view name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

inline void read_bool(const json& v, bool& out, const Path& at) {
  if (!v.is_boolean()) wrong_type(v, "a boolean", at);
  out = v.get<bool>();
}

/// Integers by their bounds: a value outside [min, max] is refused, and a
/// number with a fraction is not an integer (as in the Rust bindings).
template <class Int>
void read_int(const json& v, Int& out, std::int64_t min, std::int64_t max, const Path& at) {
  if (v.is_number_unsigned()) {
    std::uint64_t value = v.get<std::uint64_t>();
    if (max < 0 || value > static_cast<std::uint64_t>(max)) {
      fail(at, std::to_string(value) + " is above the maximum " + std::to_string(max));
    }
    if (min >= 0 && value < static_cast<std::uint64_t>(min)) {
      fail(at, std::to_string(value) + " is below the minimum " + std::to_string(min));
    }
    out = static_cast<Int>(value);
  } else if (v.is_number_integer()) {
    std::int64_t value = v.get<std::int64_t>();
    if (value < min) fail(at, std::to_string(value) + " is below the minimum " + std::to_string(min));
    if (value > max) fail(at, std::to_string(value) + " is above the maximum " + std::to_string(max));
    out = static_cast<Int>(value);
  } else {
    wrong_type(v, "an integer", at);
  }
}

/// JSON Schema counts a string's length in code points; the parser has
/// checked the UTF-8, so counting the bytes that start one is enough.
inline std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

/// Length bounds of a string; the value itself is never quoted (it may be a
/// credential).
inline void check_length(const std::string& text, std::size_t min, std::size_t max, const Path& at) {
  // Each code point is one to four bytes: count only when the bytes cannot tell.
  if (text.size() > max || (text.size() + 3) / 4 < min) {
    std::size_t length = code_points(text);
    if (length < min) fail(at, "shorter than " + std::to_string(min) + " characters");
    if (length > max) fail(at, "longer than " + std::to_string(max) + " characters");
  }
}

inline void check_pattern(bool matched, const char* source, const Path& at) {
  if (!matched) fail(at, std::string("does not match the pattern ") + source);
}

inline const std::string& read_string(const json& v, const Path& at) {
  if (!v.is_string()) wrong_type(v, "a string", at);
  return v.get_ref<const std::string&>();
}

template <class T>
void check_unique(const std::vector<T>& items, const Path& at) {
  std::set<T> seen;
  for (const T& item : items) {
    if (!seen.insert(item).second) fail(at, "items must be unique, and one repeats");
  }
}

/// A string from the input as JSON, cut after its first 200 characters,
/// then its length in characters, as the Rust and TypeScript readers show
/// it: a message stays short however long the value was. The text is UTF-8
/// (the readers refuse anything else), so a character starts at every byte
/// that is not a continuation byte.
inline std::string quoted(const std::string& text) {
  constexpr std::size_t shown = 200;
  std::size_t characters = 0;
  std::size_t cut = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (characters == shown) cut = i;
    ++characters;
  }
  if (characters <= shown) return json(text).dump();
  return json(text.substr(0, cut)).dump() + "... (" + std::to_string(characters) + " characters)";
}

inline constexpr std::size_t MAX_DEPTH = 127;
inline constexpr std::uint64_t MAX_SAFE_INTEGER = 9007199254740991ULL;

template <class T>
void write_into(json& j, const std::vector<T>& items);
template <class T>
void write_into(json& j, const std::map<std::string, T>& entries);

/// Writes `value` into `j` in place, by nlohmann's own dispatch (a type of
/// this contract, or a standard one alike), where `j = value` converts it
/// into a temporary first: a to_json that throws (`within_depth`) inside
/// nlohmann's converting constructor leaves what it had built there
/// undestroyed.
template <class T>
void write_into(json& j, const T& value) {
  nlohmann::adl_serializer<T>::to_json(j, value);
}

/// `write_into` for a list: each item in place in the array (nlohmann
/// would convert each through its converting constructor).
template <class T>
void write_into(json& j, const std::vector<T>& items) {
  j = json::array();
  for (const T& item : items) write_into(j.emplace_back(), item);
}

/// `write_into` for a map: each value in place under its key.
template <class T>
void write_into(json& j, const std::map<std::string, T>& entries) {
  j = json::object();
  for (const auto& entry : entries) write_into(j[entry.first], entry.second);
}

template <class T>
const std::vector<T>& within_depth(const std::vector<T>& items, const char* what);
template <class T>
const std::map<std::string, T>& within_depth(const std::map<std::string, T>& entries, const char* what);

/// `value` once it is known to nest no deeper than a reader takes: a
/// free-form value a writer is about to copy, or a document `from_json` is
/// about to read (parse_json holds text to the same depth as it parses).
/// nlohmann copies and dumps a value by recursion, so one a lane built
/// 100,000 deep would end the process on the copy. Walked with a stack of
/// its own; otherwise throws ContractError saying that `what` (`the value
/// of "input"`) nests too deep.
inline const json& within_depth(const json& value, const char* what) {
  std::vector<std::pair<const json*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [v, depth] = pending.back();
    pending.pop_back();
    if (!v->is_structured()) continue;
    if (depth >= MAX_DEPTH) {
      throw ContractError("", std::string(what) + " nests more than " + std::to_string(MAX_DEPTH) +
                                  " deep, which no reader of the wire takes");
    }
    for (const json& item : *v) pending.emplace_back(&item, depth + 1);
  }
  return value;
}

/// `within_depth` for each item of a list of free-form values.
template <class T>
const std::vector<T>& within_depth(const std::vector<T>& items, const char* what) {
  for (const T& item : items) within_depth(item, what);
  return items;
}

/// `within_depth` for each value of a map of free-form values.
template <class T>
const std::map<std::string, T>& within_depth(const std::map<std::string, T>& entries, const char* what) {
  for (const auto& entry : entries) within_depth(entry.second, what);
  return entries;
}

/// A JSON number literal as strtod reads it under the C locale of the
/// process, whose decimal point may be a comma (as nlohmann's lexer does).
inline std::string c_locale_number(std::string literal) {
  const std::lconv* conventions = std::localeconv();
  const char point = conventions == nullptr || conventions->decimal_point == nullptr ? '.' : *conventions->decimal_point;
  std::replace(literal.begin(), literal.end(), '.', point);
  return literal;
}

/// The first place where `text` breaks the JSON text policy, and which
/// rule, in the Rust reader's words and at its byte (a test holds the three
/// readers to one answer): a byte that is not UTF-8 (judged over the whole
/// text first, as Rust does), what was expected where it stops being JSON,
/// nesting past MAX_DEPTH, a member named twice, half a surrogate pair, an
/// integer literal beyond +-MAX_SAFE_INTEGER, a number no double holds.
/// nlohmann names the byte after the token it could not take and quotes
/// that token, which may be a credential, and the SAX events carry no
/// place: this walks the text again, once a read has failed. Empty when it
/// finds no fault (the builder's own refusal then stands).
inline std::string text_fault(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return k < n ? static_cast<int>(static_cast<unsigned char>(text[k])) : -1; };
  // UTF-8 first, over the whole text, as Rust's `str::from_utf8` judges it:
  // the first byte that starts no well-formed sequence.
  while (i < n) {
    const int c = at(i);
    std::size_t length = 1;
    int low = 0x80, high = 0xBF;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return "byte " + std::to_string(i) + " is not UTF-8";
    }
    bool formed = at(i + 1) >= low && at(i + 1) <= high;
    for (std::size_t k = 2; formed && k < length; k++) formed = at(i + k) >= 0x80 && at(i + k) <= 0xBF;
    if (!formed) return "byte " + std::to_string(i) + " is not UTF-8";
    i += length;
  }
  i = 0;
  auto expected = [&](const char* what) { return "not JSON at byte " + std::to_string(i) + ": expected " + what; };
  auto digits = [&] {
    const std::size_t from = i;
    while (at(i) >= '0' && at(i) <= '9') i++;
    return i > from;
  };
  auto hex = [&](std::size_t k) {
    const int c = at(k);
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  };
  // The code unit of `\uXXXX` whose `u` is at `i`, its digits checked.
  auto unit = [&] {
    unsigned value = 0;
    for (std::size_t k = i + 1; k <= i + 4; k++) {
      const int c = at(k);
      value = value * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return value;
  };
  // Past one string from its opening quote: the fault, or empty.
  auto string = [&]() -> std::string {
    for (i++; i < n; i++) {
      const int c = at(i);
      if (c == '"') {
        i++;
        return {};
      }
      if (c < 0x20) return expected("an escape, not a raw control character, inside a string");
      if (c == '\\') {
        i++;
        const int e = at(i);
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') continue;
        if (e != 'u') return expected("one of \" \\ / b f n r t u after a backslash");
        if (!(hex(i + 1) && hex(i + 2) && hex(i + 3) && hex(i + 4))) {
          i++;
          return expected("four hex digits after \\u");
        }
        // Half a surrogate pair is refused where its escape starts, as the
        // Rust reader refuses it (nlohmann names the end of the token).
        const std::size_t start = i - 1;
        const unsigned first = unit();
        i += 4;
        const auto half = [&] {
          return "a \\u escape at byte " + std::to_string(start) + " leaves half a surrogate pair";
        };
        if (first >= 0xDC00 && first <= 0xDFFF) return half();
        if (first >= 0xD800 && first <= 0xDBFF) {
          if (at(i + 1) != '\\' || at(i + 2) != 'u') return half();
          i += 2;
          if (!(hex(i + 1) && hex(i + 2) && hex(i + 3) && hex(i + 4))) {
            i++;
            return expected("four hex digits after \\u");
          }
          const unsigned second = unit();
          i += 4;
          if (second < 0xDC00 || second > 0xDFFF) return half();
        }
      }
    }
    return expected("the end of a string");
  };
  auto number = [&]() -> std::string {
    const std::size_t start = i;
    if (at(i) == '-') i++;
    const std::size_t int_start = i;
    if (at(i) == '0') {
      i++;
    } else if (!digits()) {
      return expected("a digit");
    }
    const std::size_t int_end = i;
    bool integer = true;
    bool exponent = false;
    if (at(i) == '.') {
      integer = false;
      i++;
      if (!digits()) return expected("a digit after the decimal point");
    }
    if (at(i) == 'e' || at(i) == 'E') {
      integer = false;
      exponent = true;
      i++;
      if (at(i) == '+' || at(i) == '-') i++;
      if (!digits()) return expected("a digit in the exponent");
    }
    const std::string literal(text.substr(start, i - start));
    if (integer) {
      // 17 digits or more are past 2^53 - 1 whatever they say.
      if (int_end - int_start > 16 || std::stoull(literal.substr(literal[0] == '-' ? 1 : 0)) > MAX_SAFE_INTEGER) {
        return "the integer at byte " + std::to_string(start) + " is beyond \u00b1" + std::to_string(MAX_SAFE_INTEGER) +
               ", which not every reader holds exactly";
      }
    } else if (exponent || i - start > 300) {
      if (!std::isfinite(std::strtod(c_locale_number(literal).c_str(), nullptr))) {
        return "the number at byte " + std::to_string(start) + " is beyond what a double holds";
      }
    }
    return {};
  };
  auto space = [&] {
    while (at(i) == ' ' || at(i) == '\t' || at(i) == '\n' || at(i) == '\r') i++;
  };
  // A member's name and its colon, from where the name should start.
  // A string's content as the name it spells (the string already passed).
  auto decode = [&](std::string_view raw) {
    auto r = [&](std::size_t k) { return k < raw.size() ? static_cast<unsigned char>(raw[k]) : 0u; };
    auto unit_at = [&](std::size_t k) {
      unsigned value = 0;
      for (std::size_t d = k; d < k + 4; d++) {
        const unsigned c = r(d);
        value = value * 16 + (c <= '9' ? c - '0' : (c | 0x20u) - 'a' + 10);
      }
      return value;
    };
    std::string out;
    for (std::size_t k = 0; k < raw.size(); k++) {
      if (r(k) != '\\') {
        out.push_back(raw[k]);
        continue;
      }
      k++;
      switch (r(k)) {
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned code = unit_at(k + 1);
          k += 4;
          if (code >= 0xD800 && code <= 0xDBFF) {
            code = 0x10000 + ((code - 0xD800) << 10) + (unit_at(k + 3) - 0xDC00);
            k += 6;
          }
          if (code < 0x80) {
            out.push_back(static_cast<char>(code));
          } else if (code < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (code >> 6)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
          } else if (code < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (code >> 12)));
            out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xF0 | (code >> 18)));
            out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
          }
          break;
        }
        default: out.push_back(static_cast<char>(r(k)));
      }
    }
    return out;
  };
  // The containers open, innermost last: '{' with the names its members
  // have had so far, or '['.
  std::vector<std::pair<char, std::set<std::string>>> open;
  auto name = [&]() -> std::string {
    if (at(i) != '"') return expected("a member name in quotes");
    const std::size_t start = i;
    std::string fault = string();
    if (!fault.empty()) return fault;
    if (!open.empty() && !open.back().second.insert(decode(text.substr(start + 1, i - start - 2))).second) {
      return "the member " + quoted(decode(text.substr(start + 1, i - start - 2))) +
             " appears twice in one object (byte " + std::to_string(start) + ")";
    }
    space();
    if (at(i) != ':') return expected("`:` after a member name");
    i++;
    return {};
  };
  auto starts_with = [&](std::string_view word) { return i <= n && text.substr(i).substr(0, word.size()) == word; };
  bool want_value = true;
  for (;;) {
    space();
    std::string fault;
    if (want_value) {
      const int c = at(i);
      want_value = false;
      if (c == '{' || c == '[') {
        // Deeper is refused whatever follows (and keeps this stack small).
        if (open.size() >= MAX_DEPTH) {
          return "arrays and objects nest more than " + std::to_string(MAX_DEPTH) + " deep at byte " + std::to_string(i);
        }
        i++;
        space();
        if (at(i) == (c == '{' ? '}' : ']')) {
          i++;
        } else {
          open.emplace_back(static_cast<char>(c), std::set<std::string>());
          want_value = true;
          if (c == '{') fault = name();
        }
      } else if (c == '"') {
        fault = string();
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        fault = number();
      } else if (starts_with("true") || starts_with("null")) {
        i += 4;
      } else if (starts_with("false")) {
        i += 5;
      } else if (c == -1) {
        fault = expected("more JSON, not the end of the text");
      } else {
        fault = expected(c == 't' || c == 'f' || c == 'n' ? "true, false or null" : "a value");
      }
    } else if (open.empty()) {
      return i < n ? expected("the end of the text after the value") : std::string();
    } else {
      const bool in_object = open.back().first == '{';
      if (i >= n) {
        fault = expected("more JSON, not the end of the text");
      } else if (at(i) == (in_object ? '}' : ']')) {
        i++;
        open.pop_back();
      } else if (at(i) != ',') {
        fault = expected(in_object ? "`,` or `}` after a member" : "`,` or `]` after an item");
      } else {
        i++;
        want_value = true;
        if (in_object) {
          space();
          fault = name();
        }
      }
    }
    if (!fault.empty()) return fault;
  }
}

/// Builds a value from nlohmann's SAX events and refuses, as it reads, what
/// the JSON text policy refuses (docs/wire.md, "JSON text"): nesting past
/// MAX_DEPTH, a member named twice, an integer literal beyond
/// +-MAX_SAFE_INTEGER, a number beyond a double's range. nlohmann's own
/// lexer refuses invalid UTF-8 and half surrogate pairs; the caller refuses
/// a byte-order mark. One pass, no recursion: the stack is a vector.
class PolicyBuilder {
 public:
  explicit PolicyBuilder(json& root) : root_(root) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool value) { return add(json(value)); }
  bool number_integer(json::number_integer_t value) {
    if (value < -static_cast<json::number_integer_t>(MAX_SAFE_INTEGER)) return unsafe_integer();
    // nlohmann reads non-negative literals as unsigned, so a signed 0 was
    // written `-0`: kept as the double -0.0, as serde reads it, which no
    // integer's place takes.
    if (value == 0) return add(json(-0.0));
    return add(json(value));
  }
  bool number_unsigned(json::number_unsigned_t value) {
    if (value > MAX_SAFE_INTEGER) return unsafe_integer();
    return add(json(value));
  }
  bool number_float(json::number_float_t value, const std::string& text) {
    // A literal without fraction or exponent that nlohmann read as a double
    // did not fit 64 bits: an unsafe integer, decided on its text.
    if (integer_literal(text)) return unsafe_integer();
    if (!std::isfinite(value)) return refuse("a number beyond what a double holds");
    return add(json(value));
  }
  bool string(std::string& value) { return add(json(std::move(value))); }
  bool binary(json::binary_t&) { return refuse("binary data"); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool key(std::string& name) {
    // One lookup: the member's slot is made here, and a repeat is a slot
    // that was there already.
    auto& members = stack_.back()->get_ref<json::object_t&>();
    auto [at, made] = members.emplace(std::move(name), nullptr);
    if (!made) return refuse("the member " + detail::quoted(at->first) + " appears twice in one object");
    slot_ = &at->second;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& error) {
    if (!why_.empty()) return false;
    // nlohmann refuses a literal no double holds (406) before number_float
    // could see it; its message quotes the literal, so it is not passed on.
    if (error.id == 406) {
      if (integer_literal(token)) return unsafe_integer();
      return refuse("a number beyond what a double holds");
    }
    why_ = "not JSON at byte " + std::to_string(position > 0 ? position - 1 : 0);
    // A syntax error's message says what was expected, then quotes the text
    // read last ("; last read: '...'"), which may be a credential: only what
    // comes before the quote is kept.
    if (error.id == 101) {
      std::string_view what = error.what();
      std::size_t from = what.find(": ");
      std::size_t to = what.find("; last read: ");
      if (from != std::string_view::npos && from < to) {
        what = what.substr(from, to == std::string_view::npos ? std::string_view::npos : to - from);
        why_ += what;
      }
    }
    return false;
  }

  /// Why the text was refused, once the parse has failed.
  const std::string& why() const { return why_; }

 private:
  // Whether nlohmann's token is an integer literal: digits and a sign. Its
  // lexer writes a fraction's point as the C locale's, which may be a comma.
  static bool integer_literal(const std::string& token) {
    return token.find_first_not_of("-0123456789") == std::string::npos;
  }
  bool unsafe_integer() {
    return refuse("an integer beyond +-" + std::to_string(MAX_SAFE_INTEGER) + ", which not every reader holds exactly");
  }
  bool refuse(std::string why) {
    why_ = std::move(why);
    return false;
  }
  json* place(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    // In an object, key() made the slot just before.
    *slot_ = std::move(value);
    return slot_;
  }
  bool add(json&& value) {
    place(std::move(value));
    return true;
  }
  bool close() {
#if JSON_DIAGNOSTICS
    // With JSON_DIAGNOSTICS (a lane's build may define it) every value
    // keeps a pointer to its parent, which members made in key() lack:
    // moving the container out and back sets its members' (what nlohmann's
    // own builder does with its private set_parents()).
    json& container = *stack_.back();
    json moved(std::move(container));
    container = std::move(moved);
#endif
    stack_.pop_back();
    return true;
  }
  bool open(json&& container) {
    if (stack_.size() >= MAX_DEPTH) {
      return refuse("arrays and objects nest more than " + std::to_string(MAX_DEPTH) + " deep");
    }
    stack_.push_back(place(std::move(container)));
    return true;
  }

  json& root_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  std::string why_;
};

/// Numbers read under the C locale on this thread while a text is parsed:
/// nlohmann's lexer hands strtod the process locale's decimal point, and one
/// longer than a byte (Pashto's U+066B) failed its assertion or, built
/// without assertions, read 0.5 as 0. POSIX's per-thread locale (Linux,
/// macOS, the BSDs); elsewhere the process's own stands, which the reader
/// reads right while its decimal point is one byte (c_locale_number).
class ClassicNumbers {
 public:
#if defined(__unix__) || defined(__APPLE__)
  ClassicNumbers() {
    // Made once and kept for the process, not made per parse.
    static const locale_t classic = newlocale(LC_NUMERIC_MASK, "C", locale_t{});
    if (classic != locale_t{}) previous_ = uselocale(classic);
  }
  ~ClassicNumbers() {
    if (previous_ != locale_t{}) uselocale(previous_);
  }
#else
  ClassicNumbers() = default;
#endif
  ClassicNumbers(const ClassicNumbers&) = delete;
  ClassicNumbers& operator=(const ClassicNumbers&) = delete;

#if defined(__unix__) || defined(__APPLE__)
 private:
  locale_t previous_ = locale_t{};
#endif
};

}  // namespace detail

/// JSON text, read as the wire takes it (docs/wire.md, "JSON text"): the
/// whole of `text` (a NUL is a byte like any other, and refused), UTF-8
/// without a byte-order mark, nested at most 127 deep, no member named
/// twice, no half surrogate pair, integer literals within +-(2^53 - 1).
/// Throws ContractError (pointer "") naming the rule it breaks.
inline nlohmann::json parse_json(std::string_view text) {
  // Does nothing where there is no per-thread locale (Windows).
  [[maybe_unused]] detail::ClassicNumbers numbers;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    throw ContractError("", "not JSON as the wire takes it: the text starts with a byte-order mark");
  }
  // nlohmann's lexer takes a NUL for the end of the input; valid JSON holds
  // no raw NUL anywhere (inside a string it must be escaped), so the scan
  // finds a fault at it or before.
  if (text.find('\0') != std::string_view::npos) {
    std::string fault = detail::text_fault(text);
    if (fault.empty()) fault = "a NUL byte at " + std::to_string(text.find('\0'));
    throw ContractError("", "not JSON as the wire takes it: " + detail::printable(fault));
  }
  nlohmann::json value;
  detail::PolicyBuilder builder(value);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder)) {
    // Named where the text first breaks the policy, as the other readers name it.
    std::string fault = detail::text_fault(text);
    throw ContractError("", "not JSON as the wire takes it: " + detail::printable(fault.empty() ? builder.why() : fault));
  }
  return value;
}
