// A libFuzzer target for the C++ frame reader: any bytes, frame after frame;
// every envelope read is written back by write_frame, which must take it
// (what a reader takes, its writer can send), and read again as the same
// JSON. A crash, a sanitizer report or a trap is the failure. cargo test
// runs it for 100,000 inputs (tests/tests/bindings.rs); for longer:
//
//   clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Ibindings/cpp/include tests/cpp/fuzz_read_frame.cpp -o fuzz_read_frame
//   mkdir -p corpus && cp conformance/frames/*.bin corpus/
//   ./fuzz_read_frame -max_len=70000 corpus
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "vdm/frame.hpp"

namespace vc = vdm::contract;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // A stream of empty frames goes on; a bound keeps one input short.
  for (int frame = 0; frame < 256; frame++) {
    try {
      std::optional<vc::Envelope> envelope = vc::read_frame(in);
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
