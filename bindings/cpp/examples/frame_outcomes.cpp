// Reads a frame stream on stdin and prints one outcome per read, in the
// words of conformance/frames/*.expect.json: `envelope:call`, `empty`,
// `json`, `bad_version:2`, `too_large:N`, `io:unexpected_eof`, `closed`.
//
//   g++ -std=c++17 -Wall -Wextra -Werror -Ibindings/cpp/include bindings/cpp/examples/frame_outcomes.cpp -o frame_outcomes
//   ./frame_outcomes < capture.bin
#include <iostream>

#include "vdm/frame.hpp"

int main() {
  using vdm::contract::FrameError;
  std::ios::sync_with_stdio(false);
  for (;;) {
    try {
      std::optional<vdm::contract::Envelope> envelope = vdm::contract::read_frame(std::cin);
      if (!envelope) {
        std::cout << "closed\n";
        return 0;
      }
      std::cout << "envelope:" << vdm::contract::kind_of(*envelope) << "\n";
    } catch (const vdm::contract::VersionError& error) {
      std::cout << "bad_version:" << error.version() << "\n";
    } catch (const vdm::contract::ContractError&) {
      std::cout << "json\n";
    } catch (const FrameError& error) {
      switch (error.kind()) {
        case FrameError::Kind::empty:
          std::cout << "empty\n";
          continue;
        case FrameError::Kind::too_large:
          std::cout << "too_large:" << error.length() << "\n";
          return 0;
        case FrameError::Kind::unexpected_eof:
          std::cout << "io:unexpected_eof\n";
          return 0;
        case FrameError::Kind::io:
        case FrameError::Kind::unreadable:  // a writer's refusal; reading never throws it
          std::cout << "io:other\n";
          return 0;
      }
    }
  }
}
