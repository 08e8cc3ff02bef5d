// No input makes the C++ reader recurse or work out of proportion to it:
// 64 MiB texts of the shapes that break readers are decoded on a thread with
// a 256 KiB stack, and each gets an answer (exit 0 when all are as expected).
#include <pthread.h>

#include <iostream>
#include <string>
#include <vector>

#include "vdm/contract.hpp"

namespace vc = vdm::contract;

struct Shape {
  const char* name;
  std::string text;
  bool envelope;
};

static constexpr std::size_t SIZE = 64u << 20;

static std::vector<Shape> shapes() {
  auto repeat = [](const std::string& unit) {
    std::string out;
    out.reserve(SIZE);
    while (out.size() + unit.size() <= SIZE) out += unit;
    return out;
  };
  std::string wide = R"({"v":1,"kind":"call","id":1,"body":{"method":"tool.invoke","params":{"tool":"t","input":[)";
  while (wide.size() < SIZE) wide += "1,";
  wide += "1]}}}";
  std::string members = "{";
  for (std::size_t n = 0; members.size() < SIZE; ++n) members += "\"k" + std::to_string(n) + "\":0,";
  members += "\"k0\":1}";
  std::string string = "\"" + std::string(SIZE, 'a') + "\"";
  std::string unclosed = wide.substr(0, wide.size() - 5);
  std::string long_id = R"({"v":1,"kind":"call","id":)" + std::string(SIZE, '1') + R"(,"body":{"method":"download.list","params":{}}})";
  std::string spaced = std::string(SIZE, ' ') + R"({"v":1,"kind":"call","id":1,"body":{"method":"download.list","params":{}}})" + "\n";
  return {
      {"arrays opened", repeat("["), false},
      {"objects opened", repeat("{\"a\":"), false},
      {"a call whose input is a wide array", wide, true},
      {"many members, one repeated last", members, false},
      {"one long string", string, false},
      {"a wide array left open", unclosed, false},
      {"an id as long as the text", long_id, false},
      {"a call after 64 MiB of spaces", spaced, true},
      {"a NUL after an envelope", std::string(R"({"v":1,"kind":"event","body":{"name":"event.task.removed","params":{"taskId":"t"}}})") + '\0' + "x", false},
  };
}

static void* run(void* failures) {
  for (const Shape& shape : shapes()) {
    bool read = true;
    try {
      vc::parse_envelope(shape.text);
    } catch (const vc::ContractError&) {
      read = false;
    }
    if (read != shape.envelope) {
      std::cerr << shape.name << ": read " << read << ", expected " << shape.envelope << "\n";
      ++*static_cast<int*>(failures);
    }
  }
  // A document read with from_json (`get<Envelope>()`), not text: one a
  // lane built 100,000 deep is refused before anything copies it, and the
  // depth it may have is the text's.
  nlohmann::json input = 1;
  for (int i = 0; i < 100000; ++i) {
    nlohmann::json wrapper = nlohmann::json::array();
    wrapper.push_back(std::move(input));
    input = std::move(wrapper);
  }
  nlohmann::json call = {{"v", 1}, {"kind", "call"}, {"id", 5},
                         {"body", {{"method", "tool.invoke"}, {"params", {{"tool", "t"}, {"input", 1}}}}}};
  call["body"]["params"]["input"] = std::move(input);
  try {
    (void)call.get<vc::Envelope>();
    std::cerr << "a document 100,000 deep: read\n";
    ++*static_cast<int*>(failures);
  } catch (const vc::ContractError&) {
  }
  for (int depth = 120; depth <= 130; ++depth) {
    std::string text = R"({"v":1,"kind":"call","id":5,"body":{"method":"tool.invoke","params":{"tool":"t","input":)" +
                       std::string(static_cast<std::size_t>(depth), '[') + "1" +
                       std::string(static_cast<std::size_t>(depth), ']') + "}}}";
    bool as_text = true;
    bool as_document = true;
    try {
      vc::parse_envelope(text);
    } catch (const vc::ContractError&) {
      as_text = false;
    }
    try {
      (void)nlohmann::json::parse(text).get<vc::Envelope>();
    } catch (const vc::ContractError&) {
      as_document = false;
    }
    if (as_text != as_document) {
      std::cerr << "an input " << depth << " arrays deep: as text " << as_text << ", as a document " << as_document << "\n";
      ++*static_cast<int*>(failures);
    }
  }
  return nullptr;
}

int main() {
  int failures = 0;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 256 * 1024);
  pthread_t thread;
  if (pthread_create(&thread, &attributes, run, &failures) != 0) return 2;
  pthread_join(thread, nullptr);
  return failures == 0 ? 0 : 1;
}
