// Reads a frame stream on stdin and prints one outcome per read, in the
// words of conformance/frames/*.expect.json: `envelope:call`, `empty`,
// `json`, `bad_version:2`, `too_large:N`, `io:unexpected_eof`, `closed`.
// With CHUNK, the stream is pushed into a FrameDecoder CHUNK bytes at a
// time, as a socket's bytes arrive, each push followed by every envelope it
// completed; the outcomes are the same.
//
//   g++ -std=c++17 -Wall -Wextra -Werror -Ibindings/cpp/include bindings/cpp/examples/frame_outcomes.cpp -o frame_outcomes
//   ./frame_outcomes [CHUNK] < capture.bin
#include <algorithm>
#include <array>
#include <iostream>
#include <string>

#include "vdm/frame.hpp"

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

namespace vc = vdm::contract;

enum class Step { go_on, nothing, stop };

// Prints the outcome of one read: `read` gives the next envelope, or nothing
// (the stream's end for read_frame, more bytes needed for FrameDecoder).
template <typename Read>
Step step(Read read) {
  using vc::FrameError;
  try {
    std::optional<vc::Envelope> envelope = read();
    if (!envelope) return Step::nothing;
    std::cout << "envelope:" << vc::kind_of(*envelope) << "\n";
  } catch (const vc::VersionError& error) {
    std::cout << "bad_version:" << error.version() << "\n";
  } catch (const vc::ContractError&) {
    std::cout << "json\n";
  } catch (const FrameError& error) {
    switch (error.kind()) {
      case FrameError::Kind::empty:
        std::cout << "empty\n";
        return Step::go_on;
      case FrameError::Kind::too_large:
        std::cout << "too_large:" << error.length() << "\n";
        return Step::stop;
      case FrameError::Kind::unexpected_eof:
        std::cout << "io:unexpected_eof\n";
        return Step::stop;
      case FrameError::Kind::io:
      case FrameError::Kind::unreadable:  // a writer's refusal; reading never throws it
        std::cout << "io:other\n";
        return Step::stop;
    }
  }
  return Step::go_on;
}

int main(int argc, char** argv) {
#if defined(_WIN32)
  // Frames are bytes: in text mode Windows turns CR LF into LF and ends the
  // input at a Ctrl-Z, and a frame's body and length may hold either.
  if (_setmode(_fileno(stdin), _O_BINARY) == -1) {
    std::cerr << "cannot read standard input as bytes\n";
    return 2;
  }
#endif
  std::ios::sync_with_stdio(false);
  if (argc < 2) {
    for (;;) {
      Step done = step([] { return vc::read_frame(std::cin); });
      if (done == Step::nothing) std::cout << "closed\n";
      if (done != Step::go_on) return 0;
    }
  }
  std::size_t chunk = 0;
  try {
    chunk = std::stoul(argv[1]);
  } catch (const std::exception&) {
  }
  if (chunk == 0) {
    std::cerr << "CHUNK is a count of bytes, at least 1\n";
    return 2;
  }
  std::string bytes;
  std::array<char, 65536> piece{};
  while (std::cin.read(piece.data(), piece.size()) || std::cin.gcount() > 0) {
    bytes.append(piece.data(), static_cast<std::size_t>(std::cin.gcount()));
  }
  vc::FrameDecoder decoder;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    decoder.push(bytes.data() + at, std::min(chunk, bytes.size() - at));
    for (;;) {
      Step done = step([&] { return decoder.next(); });
      if (done == Step::nothing) break;
      if (done == Step::stop) return 0;
    }
  }
  Step done = step([&]() -> std::optional<vc::Envelope> {
    decoder.finish();
    return std::nullopt;
  });
  if (done == Step::nothing) std::cout << "closed\n";
  return 0;
}
