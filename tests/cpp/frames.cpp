// write_frame and read_frame together: what is written reads back equal, an
// envelope over MAX_FRAME, or with text or a value a reader refuses, is not
// written, and a body that is not an envelope is consumed so the next frame
// still reads; a FrameDecoder fed the bytes piece by piece reads the same.
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

#include "vdm/frame.hpp"

namespace vc = vdm::contract;

static int failures = 0;

// A stream buffer that takes nothing, as a full disk.
struct Full : std::streambuf {
  int overflow(int) override { return traits_type::eof(); }
};

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "failed: " << what << "\n";
    ++failures;
  }
}

int main() {
  nlohmann::json call = {{"v", 1}, {"kind", "call"}, {"id", 3},
                         {"body", {{"method", "download.pause"}, {"params", {{"taskId", "t_01"}}}}}};
  nlohmann::json event = {{"v", 1}, {"kind", "event"},
                          {"body", {{"name", "event.from.the.future"}, {"params", {{"x", 1}}}}}};
  std::stringstream stream;
  vc::write_frame(stream, call.get<vc::Envelope>());
  vc::write_frame(stream, event.get<vc::Envelope>());
  std::string bytes = stream.str();
  check(bytes.size() > 4 && bytes[0] == 0 && bytes[1] == 0, "a small frame's length starts with zero bytes");

  std::optional<vc::Envelope> first = vc::read_frame(stream);
  check(first && nlohmann::json(*first) == call, "the call reads back equal");
  std::optional<vc::Envelope> second = vc::read_frame(stream);
  check(second && std::holds_alternative<vc::EventEnvelope>(*second), "the event reads back");
  check(second && std::holds_alternative<vc::UnknownEvent>(std::get<vc::EventEnvelope>(*second).body),
        "a newer peer's event is an UnknownEvent");
  check(second && nlohmann::json(*second) == event, "the unknown event is written back unchanged");
  check(!vc::read_frame(stream), "the stream then ends cleanly");

  // Too large to send: nothing is written.
  nlohmann::json big = {{"v", 1}, {"kind", "call"}, {"id", 4},
                        {"body", {{"method", "tool.invoke"},
                                  {"params", {{"tool", "t"}, {"input", std::string(vc::MAX_FRAME, 'x')}}}}}};
  std::stringstream out;
  try {
    vc::write_frame(out, big.get<vc::Envelope>());
    check(false, "an envelope over MAX_FRAME is refused");
  } catch (const vc::FrameError& error) {
    check(error.kind() == vc::FrameError::Kind::too_large, "the refusal is too_large");
  }
  check(out.str().empty(), "nothing is written for a refused envelope");

  // Text a reader would refuse is not written either: an integer past
  // 2^53 - 1, nesting past 127, a string that is not UTF-8.
  nlohmann::json deep = 1;
  for (int i = 0; i < 200; ++i) deep = nlohmann::json::array({deep});
  for (const nlohmann::json& input :
       {nlohmann::json(std::uint64_t{1} << 60), deep, nlohmann::json(std::string("caf\xC3"))}) {
    // The input is set on the struct: a document this deep would be
    // refused already by from_json.
    vc::Envelope unreadable = nlohmann::json({{"v", 1}, {"kind", "call"}, {"id", 5},
                                              {"body", {{"method", "tool.invoke"}, {"params", {{"tool", "t"}, {"input", 1}}}}}})
                                  .get<vc::Envelope>();
    std::get<vc::ToolInvokeCall>(std::get<vc::CallEnvelope>(unreadable).body).params.input = input;
    std::stringstream refused;
    try {
      vc::write_frame(refused, unreadable);
      check(false, "an envelope a reader would refuse is not written");
    } catch (const vc::FrameError& error) {
      check(error.kind() == vc::FrameError::Kind::unreadable, "the refusal is unreadable");
    }
    check(refused.str().empty(), "nothing is written for an unreadable envelope");
  }

  // A number that is not finite is not written: dump would write null,
  // which a free-form value takes, so the reader would not notice.
  for (double odd : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    nlohmann::json input = {{"ratio", 0.5}, {"list", {1, 2}}, {"a/b~c\nd", {{"x", odd}}}};
    nlohmann::json lossy = {{"v", 1}, {"kind", "call"}, {"id", 5},
                            {"body", {{"method", "tool.invoke"}, {"params", {{"tool", "t"}, {"input", input}}}}}};
    std::stringstream refused;
    try {
      vc::write_frame(refused, lossy.get<vc::Envelope>());
      check(false, "an envelope holding a number that is not finite is not written");
    } catch (const vc::FrameError& error) {
      check(error.kind() == vc::FrameError::Kind::unreadable, "the refusal of a number that is not finite is unreadable");
      check(std::string(error.what()).find("not finite (NaN or an infinity) at /body/params/input/a~1b~0c\\u000ad/x") !=
                std::string::npos,
            "the refusal of a number that is not finite names its place, escaped");
    }
    check(refused.str().empty(), "nothing is written for a number that is not finite");
  }

  // A free-form value nested deeper than a reader takes is refused before
  // it is copied: nlohmann copies and dumps by recursion, and 100,000
  // levels would end the process there.
  {
    nlohmann::json very_deep = 1;
    for (int i = 0; i < 100000; ++i) {
      nlohmann::json wrapper = nlohmann::json::array();
      wrapper.push_back(std::move(very_deep));
      very_deep = std::move(wrapper);
    }
    vc::Envelope built = nlohmann::json({{"v", 1}, {"kind", "call"}, {"id", 5},
                                         {"body", {{"method", "tool.invoke"}, {"params", {{"tool", "t"}, {"input", 1}}}}}})
                             .get<vc::Envelope>();
    std::get<vc::ToolInvokeCall>(std::get<vc::CallEnvelope>(built).body).params.input = std::move(very_deep);
    std::stringstream refused;
    try {
      vc::write_frame(refused, built);
      check(false, "an envelope holding a value 100,000 deep is not written");
    } catch (const vc::FrameError& error) {
      check(error.kind() == vc::FrameError::Kind::unreadable, "the refusal of a value 100,000 deep is unreadable");
      check(std::string(error.what()).find("the value of \"input\" nests more than 127 deep") != std::string::npos,
            "the refusal of a value 100,000 deep names the field");
    }
    check(refused.str().empty(), "nothing is written for a value 100,000 deep");
  }

  // A value its schema refuses is not written: the reader it is read back
  // by checks what the schemas state, not the JSON text alone.
  for (const std::string& task_id : {std::string(""), std::string("t 01"), std::string(65, 'a')}) {
    vc::Envelope built = call.get<vc::Envelope>();
    std::get<vc::DownloadPauseCall>(std::get<vc::CallEnvelope>(built).body).params.task_id = task_id;
    std::stringstream refused;
    try {
      vc::write_frame(refused, built);
      check(false, "an envelope its schema refuses is not written");
    } catch (const vc::FrameError& error) {
      check(error.kind() == vc::FrameError::Kind::unreadable, "the schema's refusal is unreadable");
      check(std::string(error.what()).find("/body/params/taskId") != std::string::npos,
            "the schema's refusal names /body/params/taskId");
    }
    check(refused.str().empty(), "nothing is written for an envelope its schema refuses");
  }

  // An id written -0 is refused, and the message says so in its words, not
  // as a fraction or an exponent it does not have.
  try {
    vc::parse_json("{\"v\":1,\"kind\":\"call\",\"id\":-0,\"body\":{\"method\":\"download.list\",\"params\":{}}}")
        .get<vc::Envelope>();
    check(false, "an id written -0 is refused");
  } catch (const vc::ContractError& error) {
    check(std::string(error.what()).find("as -0") != std::string::npos, "the refusal of -0 says -0");
  }

  // A body that is not an envelope is consumed; the next frame reads.
  std::string body = "{\"v\":1,\"kind\":\"call\",\"id\":1,\"body\":{\"method\":\"download.pause\",\"params\":{}}}";
  std::string frames;
  frames.push_back(0);
  frames.push_back(0);
  frames.push_back(static_cast<char>(body.size() >> 8));
  frames.push_back(static_cast<char>(body.size() & 0xFF));
  frames += body;
  std::stringstream good;
  vc::write_frame(good, call.get<vc::Envelope>());
  frames += good.str();
  std::stringstream in(frames);
  try {
    (void)vc::read_frame(in);
    check(false, "params without taskId are refused");
  } catch (const vc::ContractError& error) {
    check(error.pointer() == "/body/params/taskId", "the refusal names /body/params/taskId");
  }
  std::optional<vc::Envelope> after = vc::read_frame(in);
  check(after && nlohmann::json(*after) == call, "the frame after a refused one reads");

  // A stream with exceptions() set gives the same outcomes, not
  // std::ios_base::failure: a clean end is nothing, a cut frame
  // unexpected_eof, a failed write io.
  std::stringstream thrown_at_end(good.str() + good.str().substr(0, 6));
  thrown_at_end.exceptions(std::ios::failbit | std::ios::badbit | std::ios::eofbit);
  try {
    check(vc::read_frame(thrown_at_end).has_value(), "a whole frame reads from a stream with exceptions set");
    (void)vc::read_frame(thrown_at_end);
    check(false, "a cut frame is refused");
  } catch (const vc::FrameError& error) {
    check(error.kind() == vc::FrameError::Kind::unexpected_eof, "a cut frame is unexpected_eof with exceptions set");
  } catch (const std::exception&) {
    check(false, "a cut frame with exceptions set is a FrameError");
  }
  std::stringstream clean_end(good.str());
  clean_end.exceptions(std::ios::failbit | std::ios::badbit | std::ios::eofbit);
  try {
    check(vc::read_frame(clean_end).has_value(), "the frame reads");
    check(!vc::read_frame(clean_end), "the end with exceptions set is nothing");
  } catch (const std::exception&) {
    check(false, "a clean end with exceptions set throws nothing");
  }
  Full full;
  std::ostream nowhere(&full);
  nowhere.exceptions(std::ios::failbit | std::ios::badbit);
  try {
    vc::write_frame(nowhere, call.get<vc::Envelope>());
    check(false, "a write to a stream that fails is refused");
  } catch (const vc::FrameError& error) {
    check(error.kind() == vc::FrameError::Kind::io, "a failed write with exceptions set is io");
  } catch (const std::exception&) {
    check(false, "a failed write with exceptions set is a FrameError");
  }

  // A FrameDecoder fed a byte at a time gives nothing until a frame's last
  // byte is in, then its envelope; a refused body is consumed as by
  // read_frame.
  {
    vc::FrameDecoder decoder;
    std::size_t envelopes = 0;
    std::size_t refused_bodies = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      decoder.push(std::string_view(frames).substr(i, 1));
      try {
        std::optional<vc::Envelope> next = decoder.next();
        if (next) {
          ++envelopes;
          check(i + 1 == frames.size(), "the envelope comes with its frame's last byte");
          check(nlohmann::json(*next) == call, "the decoded call is the call written");
        }
      } catch (const vc::ContractError& error) {
        ++refused_bodies;
        check(i + 1 == 4 + body.size(), "the refused body is told with its last byte");
        check(error.pointer() == "/body/params/taskId", "the decoder's refusal names /body/params/taskId");
      }
    }
    check(envelopes == 1 && refused_bodies == 1, "the decoder reads one body refused, then one envelope");
    try {
      check(!decoder.next(), "nothing more is read");
      decoder.finish();
    } catch (const std::exception&) {
      check(false, "bytes that end between frames end cleanly");
    }
  }

  // Its length is checked as soon as the header is in, and a stream too
  // large to go on stays refused.
  {
    vc::FrameDecoder decoder;
    std::size_t claimed = vc::MAX_FRAME + 1;
    std::string header = {static_cast<char>(claimed >> 24), static_cast<char>((claimed >> 16) & 0xFF),
                          static_cast<char>((claimed >> 8) & 0xFF), static_cast<char>(claimed & 0xFF)};
    decoder.push(header);
    int told = 0;
    for (int call_count = 0; call_count < 3; ++call_count) {
      try {
        switch (call_count) {
          case 0:
            (void)decoder.next();
            break;
          case 1:
            decoder.push(good.str());
            break;
          default:
            decoder.finish();
        }
      } catch (const vc::FrameError& error) {
        told += error.kind() == vc::FrameError::Kind::too_large && error.length() == claimed;
      }
    }
    check(told == 3, "next, push and finish each tell too_large once the header is in");
  }

  // encode_frame gives the bytes write_frame writes, for a writer that
  // must not block.
  check(vc::encode_frame(call.get<vc::Envelope>()) == good.str(), "encode_frame gives what write_frame writes");
  try {
    (void)vc::encode_frame(big.get<vc::Envelope>());
    check(false, "encode_frame refuses an envelope over MAX_FRAME");
  } catch (const vc::FrameError& error) {
    check(error.kind() == vc::FrameError::Kind::too_large, "encode_frame's refusal is too_large");
  }

  // Bytes that end inside a frame are unexpected_eof at finish.
  {
    vc::FrameDecoder decoder;
    decoder.push(good.str().substr(0, good.str().size() - 1));
    check(!decoder.next(), "a frame short of its last byte gives nothing yet");
    try {
      decoder.finish();
      check(false, "bytes that end inside a frame are refused");
    } catch (const vc::FrameError& error) {
      check(error.kind() == vc::FrameError::Kind::unexpected_eof, "bytes that end inside a frame are unexpected_eof");
    }
  }
  return failures == 0 ? 0 : 1;
}
