// x-secret values are never printed by anything generated: SecretString has
// no stream operator and no conversion to a string (checked at compile
// time), and a reader's error about one names its place, not its value.
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "vdm/contract.hpp"

template <class T, class = void>
struct streamable : std::false_type {};
template <class T>
struct streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

static_assert(!streamable<vdm::contract::SecretString>::value, "a SecretString must not be printable");
static_assert(!std::is_convertible_v<vdm::contract::SecretString, std::string>,
              "a SecretString must not turn into a string unnoticed");
static_assert(!std::is_convertible_v<vdm::contract::SecretString, std::string_view>,
              "a SecretString must not turn into a string unnoticed");
static_assert(std::is_same_v<decltype(vdm::contract::DownloadProvideAuthParams{}.password),
                             vdm::contract::SecretString>,
              "the password is an x-secret field");

int main() {
  const std::string password(1025, 'p');  // one past maxLength
  nlohmann::json call = {{"v", 1}, {"kind", "call"}, {"id", 7},
                         {"body", {{"method", "download.provideAuth"},
                                   {"params", {{"taskId", "t_01"}, {"username", "u"}, {"password", password}}}}}};
  try {
    (void)call.get<vdm::contract::Envelope>();
    std::cerr << "a 1025-character password was accepted\n";
    return 1;
  } catch (const vdm::contract::ContractError& error) {
    std::string what = error.what();
    if (what.find("ppp") != std::string::npos) {
      std::cerr << "the error shows the password: " << what << "\n";
      return 1;
    }
    if (error.pointer() != "/body/params/password") {
      std::cerr << "the error names " << error.pointer() << ", not /body/params/password\n";
      return 1;
    }
  }
  // Text that is not JSON: nlohmann's messages quote the text read last,
  // which may be the credential; the reader says where and what was
  // expected, in the Rust and TypeScript readers' words.
  const std::string start =
      R"({"v":1,"kind":"call","id":7,"body":{"method":"download.provideAuth","params":{"taskId":"t","username":"u","password":)";
  const std::pair<std::string, std::string> broken[] = {
      {start + "hunter2}}}", "not JSON at byte 117: expected a value"},
      {start + R"("hunter2" "save":true}}})", "not JSON at byte 127: expected `,` or `}` after a member"},
      {start + "\"hunter2\x01\"}}}", "not JSON at byte 125: expected an escape, not a raw control character, inside a string"},
      {start + R"("hunter2\ud800"}}})", "a \\u escape at byte 125 leaves half a surrogate pair"},
      {start + R"("hunter2\ud800\u12"}}})", "not JSON at byte 133: expected four hex digits after \\u"},
      {start + std::string("\"hunter2\0\"}}}", 13), "not JSON at byte 125: expected an escape, not a raw control character, inside a string"},
      {start + "\"hunter2", "not JSON at byte 125: expected the end of a string"},
      {start + "{\"a\":1", "not JSON at byte 123: expected more JSON, not the end of the text"},
      {start + "1e400}}}", "the number at byte 117 is beyond what a double holds"},
      {start + "184467440737095516160}}}", "the integer at byte 117 is beyond"},
      {start + R"({"a":1,"a":2}}}})", "the member \"a\" appears twice in one object (byte 124)"},
  };
  for (const auto& [text, why] : broken) {
    try {
      (void)vdm::contract::parse_envelope(text);
      std::cerr << "not JSON, and read: " << why << "\n";
      return 1;
    } catch (const vdm::contract::ContractError& error) {
      std::string what = error.what();
      if (what.find("hunter") != std::string::npos || what.find(why) == std::string::npos) {
        std::cerr << "expected a message with \"" << why << "\" and no password, got: " << what << "\n";
        return 1;
      }
    }
  }
  // Read and written back, the wire keeps the value: only printing hides it.
  call["body"]["params"]["password"] = "hunter2";
  auto envelope = call.get<vdm::contract::Envelope>();
  if (nlohmann::json(envelope) != call) {
    std::cerr << "the password did not survive a round trip\n";
    return 1;
  }
  return 0;
}
