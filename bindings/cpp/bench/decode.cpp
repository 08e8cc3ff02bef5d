// Decoding envelopes with the C++ bindings beside nlohmann::json::parse
// alone, on the same lines, in one process, one thread, runs interleaved.
// Run by `cargo xtask bench bindings`; by hand:
//
//   g++ -std=c++17 -O2 -Ibindings/cpp/include bindings/cpp/bench/decode.cpp -o decode
//   ./decode corpus.jsonl 7
//
// Prints one line per run: `parse_ns decode_ns`, then `counts PARSED DECODED
// REFUSED`. Both sides see every line; a line the decoder refuses is counted,
// so the caller can tell a fast refusal from real work.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "vdm/contract.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: decode CORPUS.jsonl RUNS\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.empty()) {
    std::cerr << "decode: no lines in " << argv[1] << "\n";
    return 2;
  }
  const int runs = std::stoi(argv[2]);
  using clock = std::chrono::steady_clock;
  std::size_t parsed = 0, decoded = 0, refused = 0;
  std::uint64_t sink = 0;
  for (int run = 0; run < runs; ++run) {
    parsed = decoded = refused = 0;
    auto start = clock::now();
    for (const std::string& line : lines) {
      nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
      if (!value.is_discarded()) ++parsed;
      sink += value.size();
    }
    auto middle = clock::now();
    for (const std::string& line : lines) {
      try {
        vdm::contract::Envelope envelope = vdm::contract::parse_envelope(line);
        sink += envelope.index();
        ++decoded;
      } catch (const vdm::contract::ContractError&) {
        ++refused;
      }
    }
    auto end = clock::now();
    std::cout << std::chrono::duration_cast<std::chrono::nanoseconds>(middle - start).count() << " "
              << std::chrono::duration_cast<std::chrono::nanoseconds>(end - middle).count() << "\n";
  }
  std::cout << "counts " << parsed << " " << decoded << " " << refused << "\n";
  std::cerr << "(sink " << sink << ")\n";
  return 0;
}
