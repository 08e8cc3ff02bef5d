// The hand-written part of contract.hpp: the errors a reader throws, the
// secret string, and the checks the generated readers call.

/// The enum value a wire spelling names (specialised for every enum below).
template <class Enum>
std::optional<Enum> parse(std::string_view text);

/// A JSON value that is not what the contract says. `pointer()` is the JSON
/// pointer of the offending value inside what was decoded ("" for the whole).
class ContractError : public std::runtime_error {
 public:
  ContractError(std::string pointer, const std::string& why)
      : std::runtime_error("at " + (pointer.empty() ? std::string("/") : pointer) + ": " + why),
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

/// The JSON pointer of the value being read; `Step` appends one token and
/// takes it off again, so a reader builds no string unless it fails.
struct Path {
  std::string text;
};

class Step {
 public:
  Step(Path& path, std::string_view token) : path_(path), size_(path.text.size()) {
    path_.text.push_back('/');
    for (char c : token) {
      if (c == '~') {
        path_.text += "~0";
      } else if (c == '/') {
        path_.text += "~1";
      } else {
        path_.text.push_back(c);
      }
    }
  }
  Step(Path& path, std::size_t index) : Step(path, std::string_view(std::to_string(index))) {}
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;
  ~Step() { path_.text.resize(size_); }

 private:
  Path& path_;
  std::size_t size_;
};

[[noreturn]] inline void fail(const Path& at, const std::string& why) { throw ContractError(at.text, why); }

inline const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction or exponent";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "not a JSON value";
  }
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
inline const json& required(const json& object, const char* name, const Path& at) {
  auto it = object.find(name);
  if (it == object.end()) fail(at, "required, and missing");
  return *it;
}

inline const json* optional(const json& object, const char* name) {
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
  for (unsigned char c : text) count += (c & 0xC0) != 0x80;
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

inline void check_pattern(const std::string& text, const std::regex& pattern, const char* source, const Path& at) {
  if (!std::regex_search(text, pattern)) fail(at, std::string("does not match the pattern ") + source);
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

inline std::string quoted(const std::string& text) { return json(text).dump(); }

}  // namespace detail
