// A reader held open for the differential tests: frames on stdin, one line
// per frame on stdout, flushed, in the words tests/src/readers.rs reads:
//   ok JSON            the envelope, written back by write_frame (its body)
//   text MESSAGE       refused by the JSON text policy (pointer ""), the message as a JSON string
//   contract POINTER   refused as not what the contract says (POINTER as a JSON string)
//   version N          another protocol version
//   frame KIND         a frame error (the server stops after one it cannot go on from)
#include <iostream>
#include <sstream>
#include <string>

#include "vdm/frame.hpp"

namespace vc = vdm::contract;

int main() {
  std::ios::sync_with_stdio(false);
  for (;;) {
    try {
      std::optional<vc::Envelope> envelope = vc::read_frame(std::cin);
      if (!envelope) return 0;
      // Written back by the frame writer, which reads its text back with
      // the whole reader: what was read must be writable again.
      std::ostringstream written;
      try {
        vc::write_frame(written, *envelope);
      } catch (const vc::FrameError& error) {
        std::cout << "crash " << nlohmann::json(std::string("write_frame refused it: ") + error.what()).dump()
                  << std::endl;
        continue;
      }
      std::cout << "ok " << written.str().substr(4) << std::endl;
    } catch (const vc::VersionError& error) {
      std::cout << "version " << error.version() << std::endl;
    } catch (const vc::ContractError& error) {
      if (error.pointer().empty() && std::string(error.what()).rfind("at /: not JSON as the wire takes it", 0) == 0) {
        std::cout << "text "
                  << nlohmann::json(std::string(error.what()))
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << std::endl;
      } else {
        std::cout << "contract " << nlohmann::json(error.pointer()).dump() << std::endl;
      }
    } catch (const vc::FrameError& error) {
      const char* kind = "io";
      switch (error.kind()) {
        case vc::FrameError::Kind::empty: kind = "empty"; break;
        case vc::FrameError::Kind::too_large: kind = "too_large"; break;
        case vc::FrameError::Kind::unexpected_eof: kind = "unexpected_eof"; break;
        case vc::FrameError::Kind::io: kind = "io"; break;
        case vc::FrameError::Kind::unreadable: kind = "unreadable"; break;
      }
      std::cout << "frame " << kind << std::endl;
      if (!error.recoverable()) return 0;
    }
  }
}
