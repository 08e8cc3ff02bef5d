// Reads JSON Lines on stdin and prints, per line, the envelope decoded and
// encoded again as one line of JSON, or a line starting `error: `.
//
//   g++ -std=c++17 -Wall -Wextra -Werror -Ibindings/cpp/include bindings/cpp/examples/roundtrip.cpp -o roundtrip
//   ./roundtrip < messages.jsonl
//   ./roundtrip --type TaskError < errors.jsonl   # any contract type by name
#include <clocale>
#include <iostream>
#include <string>

#include "vdm/contract.hpp"

int main(int argc, char** argv) {
  // The user's locale, as an application with a user interface takes it;
  // the bindings read and write numbers the same under any (a test runs
  // this under a locale with a decimal comma).
  std::setlocale(LC_ALL, "");
  std::string type = "Envelope";
  if (argc == 3 && std::string(argv[1]) == "--type") {
    type = argv[2];
  } else if (argc != 1) {
    std::cerr << "usage: roundtrip [--type NAME] < lines.jsonl\n";
    return 2;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      nlohmann::json value = vdm::contract::parse_json(line);
      std::optional<nlohmann::json> again = vdm::contract::reserialize(type, value);
      if (!again) {
        std::cerr << "roundtrip: no contract type is called " << type << "\n";
        return 2;
      }
      std::cout << again->dump() << "\n";
    } catch (const std::exception& error) {
      std::cout << "error: " << error.what() << "\n";
    }
  }
  return 0;
}
