#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ios>
#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vdm/contract.hpp"

namespace vdm::contract {

/// Frames: a 4-byte big-endian length N, then N bytes of UTF-8 JSON, one
/// envelope. The length is checked before anything is allocated or read:
/// 0 is `empty`, more than MAX_FRAME is `too_large`. The body buffer grows
/// with the bytes that arrive, never with the length a peer claims.
inline constexpr std::size_t MAX_FRAME = @MAX_FRAME@;

/// Why a frame could not be read or written. After `empty` the reader stands
/// at the next frame and can go on; after the others it cannot. `unreadable`
/// is the writer's: the envelope's text is one a reader would refuse.
class FrameError : public std::runtime_error {
 public:
  enum class Kind { empty, too_large, unexpected_eof, io, unreadable };

  FrameError(Kind kind, std::size_t length, const std::string& why)
      : std::runtime_error(why), kind_(kind), length_(length) {}
  Kind kind() const noexcept { return kind_; }
  /// For `too_large`: the length claimed or written.
  std::size_t length() const noexcept { return length_; }
  bool recoverable() const noexcept { return kind_ == Kind::empty; }

 private:
  Kind kind_;
  std::size_t length_;
};

namespace detail {

/// Reads up to `size` bytes; returns how many arrived before the end.
inline std::size_t read_some(std::istream& in, char* into, std::size_t size) {
  try {
    in.read(into, static_cast<std::streamsize>(size));
  } catch (const std::ios_base::failure&) {
    // A stream with exceptions() set throws at its end; here the end is an
    // outcome (nothing, or unexpected_eof), told by the bytes that arrived.
  }
  std::size_t got = static_cast<std::size_t>(in.gcount());
  if (in.bad()) throw FrameError(FrameError::Kind::io, 0, "the stream failed while reading a frame");
  return got;
}

inline constexpr std::size_t FRAME_HEADER = 4;

/// The length a frame's header gives: throws `empty` for 0 and `too_large`
/// past MAX_FRAME. The one reading of a header, for read_frame and
/// FrameDecoder alike.
inline std::size_t frame_length(const char* header) {
  std::size_t length = 0;
  for (std::size_t i = 0; i < FRAME_HEADER; ++i) length = (length << 8) | static_cast<unsigned char>(header[i]);
  if (length == 0) throw FrameError(FrameError::Kind::empty, 0, "a frame of length 0");
  if (length > MAX_FRAME) {
    throw FrameError(FrameError::Kind::too_large, length,
                     "a frame of " + std::to_string(length) + " bytes, more than the " +
                         std::to_string(MAX_FRAME) + " a frame may carry");
  }
  return length;
}

}  // namespace detail

/// Reads one frame and decodes its envelope. Returns nothing when the stream
/// ends cleanly before a frame. Throws FrameError for a bad length or a
/// stream that ends inside a frame, and ContractError (VersionError for a `v`
/// other than PROTOCOL_VERSION) for a body that is not a usable envelope;
/// after a ContractError the whole frame has been consumed. On Windows `in`
/// must be in binary mode (`std::ios::binary`; `_setmode` for stdin): text
/// mode changes CR LF, which a body may hold, and ends at a Ctrl-Z.
inline std::optional<Envelope> read_frame(std::istream& in) {
  std::array<char, detail::FRAME_HEADER> header{};
  std::size_t got = detail::read_some(in, header.data(), header.size());
  if (got == 0) return std::nullopt;
  if (got < header.size()) {
    throw FrameError(FrameError::Kind::unexpected_eof, 0, "the stream ended inside a frame's length");
  }
  std::size_t length = detail::frame_length(header.data());
  std::string body;
  constexpr std::size_t chunk = 64 * 1024;
  while (body.size() < length) {
    std::size_t want = std::min(chunk, length - body.size());
    std::size_t start = body.size();
    body.resize(start + want);
    std::size_t read = detail::read_some(in, &body[start], want);
    if (read < want) {
      throw FrameError(FrameError::Kind::unexpected_eof, length, "the stream ended inside a frame's body");
    }
  }
  return parse_envelope(body);
}

/// Frames from bytes as they arrive, for a reader that must not block (a
/// socket an event loop polls): push what arrived, then take envelopes with
/// next() until it gives nothing. However the bytes are split, the outcomes
/// are read_frame's on the same stream. Holds only the bytes pushed and not
/// yet read; a frame's length is checked as soon as its header is in, before
/// its body is waited for.
class FrameDecoder {
 public:
  /// Adds bytes that arrived. Throws again the FrameError that ended the
  /// stream, if one did (`too_large`, `unexpected_eof`).
  void push(const char* bytes, std::size_t size) {
    if (broken_) throw *broken_;
    // The bytes already read go before the buffer grows, and when they are
    // at least half of it, so each byte is moved a bounded number of times.
    if (start_ == buffer_.size()) {
      buffer_.clear();
      start_ = 0;
    } else if (start_ > 0 && (start_ >= buffer_.size() - start_ || buffer_.size() + size > buffer_.capacity())) {
      buffer_.erase(0, start_);
      start_ = 0;
    }
    buffer_.append(bytes, size);
  }
  void push(std::string_view bytes) { push(bytes.data(), bytes.size()); }

  /// The next envelope, or nothing until more bytes arrive. Throws
  /// FrameError (after `empty` the decoder stands at the next frame; after
  /// `too_large` it is ended and every call throws it again), or
  /// ContractError (VersionError for a `v` other than PROTOCOL_VERSION) for
  /// a body that is not a usable envelope, with the frame consumed.
  std::optional<Envelope> next() {
    if (broken_) throw *broken_;
    std::string_view held(buffer_);
    held.remove_prefix(start_);
    if (held.size() < detail::FRAME_HEADER) return std::nullopt;
    std::size_t length = 0;
    try {
      length = detail::frame_length(held.data());
    } catch (const FrameError& error) {
      if (!error.recoverable()) end(error);
      start_ += detail::FRAME_HEADER;
      throw;
    }
    if (held.size() - detail::FRAME_HEADER < length) return std::nullopt;
    start_ += detail::FRAME_HEADER + length;
    // The view stays good: the buffer changes only in push.
    return parse_envelope(held.substr(detail::FRAME_HEADER, length));
  }

  /// The bytes have ended: throws FrameError `unexpected_eof` when they
  /// ended inside a frame (and the FrameError that ended the stream, if one
  /// did).
  void finish() {
    if (broken_) throw *broken_;
    if (start_ < buffer_.size()) end(FrameError(FrameError::Kind::unexpected_eof, 0, "the bytes ended inside a frame"));
  }

 private:
  /// Ends the stream with `error`: every call throws it from now on, and
  /// the bytes held, never to be read, are freed.
  [[noreturn]] void end(const FrameError& error) {
    broken_ = error;
    std::string().swap(buffer_);
    start_ = 0;
    throw error;
  }

  std::string buffer_;
  std::size_t start_ = 0;
  std::optional<FrameError> broken_;
};

namespace detail {

/// The JSON pointer of the first number in `value` that is not finite (NaN
/// or an infinity), which `dump` writes as null, a value it does not hold;
/// nothing when there is none. Walked with a stack of its own, so a deep
/// value costs no call stack; the pointer is spelled only once one is found.
inline std::optional<std::string> non_finite_at(const nlohmann::json& value) {
  auto non_finite = [](const nlohmann::json& v) { return v.is_number_float() && !std::isfinite(v.get<double>()); };
  std::vector<const nlohmann::json*> pending{&value};
  bool found = false;
  while (!pending.empty() && !found) {
    const nlohmann::json* v = pending.back();
    pending.pop_back();
    found = non_finite(*v);
    if (v->is_structured()) {
      for (const auto& item : *v) pending.push_back(&item);
    }
  }
  if (!found) return std::nullopt;
  std::vector<std::pair<const nlohmann::json*, std::string>> placed{{&value, std::string()}};
  while (!placed.empty()) {
    auto [v, at] = std::move(placed.back());
    placed.pop_back();
    if (non_finite(*v)) return at.empty() ? std::string("(root)") : printable(at);
    if (v->is_object()) {
      for (const auto& member : v->items()) placed.emplace_back(&member.value(), at + "/" + pointer_token(member.key()));
    } else if (v->is_array()) {
      for (std::size_t i = 0; i < v->size(); ++i) placed.emplace_back(&(*v)[i], at + "/" + std::to_string(i));
    }
  }
  return std::string("(root)");
}

}  // namespace detail

namespace detail {

/// The envelope's body as a frame carries it, checked as encode_frame says.
inline std::string frame_body(const Envelope& envelope) {
  std::string body;
  try {
    // Built, then filled (`detail::write_into`): not through nlohmann's
    // converting constructor, which leaks what a throwing to_json built.
    nlohmann::json value;
    detail::write_into(value, envelope);
    if (auto at = detail::non_finite_at(value)) {
      throw FrameError(FrameError::Kind::unreadable, 0,
                       "the envelope holds a number that is not finite (NaN or an infinity) at " + *at +
                           ", which JSON writes as null, a value it does not hold");
    }
    body = value.dump();
  } catch (const nlohmann::json::type_error& error) {
    throw FrameError(FrameError::Kind::unreadable, 0,
                     std::string("the envelope holds a string that is not UTF-8: ") + error.what());
  } catch (const ContractError& error) {
    // A free-form value nested deeper than a reader takes, refused before
    // it was copied (`detail::within_depth`).
    throw FrameError(FrameError::Kind::unreadable, 0,
                     std::string("the envelope is not one a reader takes: ") + error.what());
  }
  if (body.size() > MAX_FRAME) {
    throw FrameError(FrameError::Kind::too_large, body.size(),
                     "an envelope of " + std::to_string(body.size()) + " bytes, more than the " +
                         std::to_string(MAX_FRAME) + " a frame may carry");
  }
  try {
    (void)parse_envelope(body);
  } catch (const ContractError& error) {
    throw FrameError(FrameError::Kind::unreadable, 0,
                     std::string("the envelope is not one a reader takes: ") + error.what());
  }
  return body;
}

/// The header of a frame whose body is `length` bytes (at most MAX_FRAME).
inline std::array<char, FRAME_HEADER> frame_header(std::size_t length) {
  std::array<char, FRAME_HEADER> header{};
  for (std::size_t i = 0; i < header.size(); ++i) {
    header[header.size() - 1 - i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  }
  return header;
}

}  // namespace detail

/// One envelope as a frame's bytes (the length, then the body), for a
/// writer that must not block (a socket an event loop polls). Throws
/// FrameError for an envelope over MAX_FRAME (too_large), one holding a
/// number that is not finite (unreadable: `dump` would write it as null,
/// also where a free-form value takes null), or one this binding's reader
/// would refuse (unreadable: a string that is not UTF-8, an integer past
/// 2^53 - 1, nesting past 127, docs/wire.md, "JSON text"; or a value its
/// schema refuses, such as a field below its minimum or a task id with a
/// space). The text is read back by the reader's own parse_envelope, so a
/// writer and a reader cannot differ on what the wire takes.
inline std::string encode_frame(const Envelope& envelope) {
  std::string body = detail::frame_body(envelope);
  std::array<char, detail::FRAME_HEADER> header = detail::frame_header(body.size());
  return std::string(header.data(), header.size()) + body;
}

/// Writes one envelope as a frame and flushes; nothing is written for an
/// envelope encode_frame refuses, with its FrameError. On Windows `out`
/// must be in binary mode: text mode writes a length byte LF as CR LF.
inline void write_frame(std::ostream& out, const Envelope& envelope) {
  std::string body = detail::frame_body(envelope);
  std::array<char, detail::FRAME_HEADER> header = detail::frame_header(body.size());
  try {
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    out.flush();
  } catch (const std::ios_base::failure&) {
    // A stream with exceptions() set: the same FrameError as without.
    throw FrameError(FrameError::Kind::io, 0, "the stream failed while writing a frame");
  }
  if (!out) throw FrameError(FrameError::Kind::io, 0, "the stream failed while writing a frame");
}

}  // namespace vdm::contract
