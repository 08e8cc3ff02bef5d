// A libFuzzer target for the C++ frame reader: any bytes, frame after frame;
// every envelope read is written back by write_frame, which must take it
// (what a reader takes, its writer can send), and read again as the same
// JSON. The same bytes pushed into a FrameDecoder in pieces of sizes drawn
// from the input must give the same outcomes, envelope for envelope. A
// crash, a sanitizer report or a trap is the failure. cargo test
// runs it for 100,000 inputs (tests/tests/bindings.rs); for longer:
//
//   clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Ibindings/cpp/include tests/cpp/fuzz_read_frame.cpp -o fuzz_read_frame
//   mkdir -p corpus && cp conformance/frames/*.bin corpus/
//   ./fuzz_read_frame -max_len=70000 corpus
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "vdm/frame.hpp"

namespace vc = vdm::contract;

// One read's outcome: the envelope's JSON, "nothing", or the error (a
// FrameError's length only for too_large: the reader on a stream knows the
// length of a body cut short, the decoder at finish() does not).
template <typename Read>
static std::string outcome(Read read) {
  try {
    std::optional<vc::Envelope> envelope = read();
    return envelope ? nlohmann::json(*envelope).dump() : std::string("nothing");
  } catch (const vc::FrameError& error) {
    std::string kind = "frame " + std::to_string(static_cast<int>(error.kind()));
    if (error.kind() == vc::FrameError::Kind::too_large) kind += " " + std::to_string(error.length());
    return kind;
  } catch (const vc::VersionError& error) {
    return "version " + std::to_string(error.version());
  } catch (const vc::ContractError&) {
    return "contract";
  }
}

// Whether a read's outcome ends the stream: its end, or a FrameError other
// than `empty`.
static bool ends(const std::string& outcome) {
  return outcome == "nothing" || (outcome.rfind("frame ", 0) == 0 && outcome != "frame 0");
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);

  // Each read consumes at least a header or ends the stream, so both loops end.
  std::istringstream in(bytes);
  std::vector<std::string> streamed;
  do streamed.push_back(outcome([&] { return vc::read_frame(in); }));
  while (!ends(streamed.back()));

  std::vector<std::string> decoded;
  vc::FrameDecoder decoder;
  std::uint32_t draw = static_cast<std::uint32_t>(size) * 2654435761u;
  for (std::size_t at = 0; at < bytes.size() && (decoded.empty() || !ends(decoded.back()));) {
    draw = draw * 1664525u + 1013904223u;
    std::size_t piece = std::min<std::size_t>(1 + (draw >> 24) % 64, bytes.size() - at);
    decoder.push(bytes.data() + at, piece);
    at += piece;
    for (;;) {
      std::string next = outcome([&] { return decoder.next(); });
      if (next == "nothing") break;
      decoded.push_back(next);
      // Each outcome but the last consumes a header at least.
      if (decoded.size() > bytes.size() / 4 + 1) __builtin_trap();
      if (ends(next)) break;
    }
  }
  if (decoded.empty() || !ends(decoded.back())) {
    decoded.push_back(outcome([&]() -> std::optional<vc::Envelope> {
      decoder.finish();
      return std::nullopt;
    }));
  }
  if (decoded != streamed) __builtin_trap();

  // Every envelope read is written back and read again as the same JSON.
  std::istringstream reread(bytes);
  for (int frame = 0; frame < 256; frame++) {
    try {
      std::optional<vc::Envelope> envelope = vc::read_frame(reread);
      if (!envelope) break;
      std::ostringstream out;
      try {
        vc::write_frame(out, *envelope);
      } catch (const vc::FrameError& error) {
        // Too large to send is the writer's to say; refusing what was read is not.
        if (error.kind() != vc::FrameError::Kind::too_large) __builtin_trap();
        continue;
      }
      std::istringstream again(out.str());
      std::optional<vc::Envelope> back = vc::read_frame(again);
      if (!back) __builtin_trap();
      nlohmann::json was = *envelope;
      nlohmann::json now = *back;
      if (was != now) __builtin_trap();
    } catch (const vc::FrameError& error) {
      if (!error.recoverable()) break;
    } catch (const vc::ContractError&) {
      // The frame is consumed; the next read goes on.
    }
  }
  return 0;
}
