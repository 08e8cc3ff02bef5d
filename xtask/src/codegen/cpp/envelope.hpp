// The hand-written envelope of contract.hpp, copied in after the generated
// bodies it names: the same for every contract version, since `v`, `kind`,
// `id` and `body` are what every version shares.

/// A call of a method; answered by a reply or an error with the same id.
struct CallEnvelope {
  std::uint64_t id{};
  CallBody body;
};

/// The successful answer to a call.
struct ReplyEnvelope {
  std::uint64_t id{};
  ReplyBody body;
};

/// The answer to a call that failed, or to something that could not be read
/// as a call (then without an id).
struct ErrorEnvelope {
  std::optional<std::uint64_t> id;
  RpcError body;
};

/// A one-way notice from the daemon.
struct EventEnvelope {
  EventBody body;
};

/// The one JSON value a frame carries, told apart by `kind`.
using Envelope = std::variant<CallEnvelope, ReplyEnvelope, ErrorEnvelope, EventEnvelope>;

/// The envelope's `kind`: "call", "reply", "error" or "event".
inline std::string_view kind_of(const Envelope& envelope) {
  static constexpr std::string_view kinds[] = {"call", "reply", "error", "event"};
  return kinds[envelope.index()];
}

namespace detail {

inline constexpr std::uint64_t MAX_ID = 9007199254740991ULL;

inline std::uint64_t read_id(const json& v, Path& at) {
  Step step(at, "id");
  std::uint64_t id = 0;
  read_int(required(v, "id", at), id, 0, static_cast<std::int64_t>(MAX_ID), at);
  return id;
}

/// Two stages, as in the Rust bindings: `v` decides before anything else (a
/// later version may change everything after it), then `kind`, then the body.
inline void read_Envelope(const json& v, Envelope& out, Path& at) {
  expect_object(v, at);
  {
    Step step(at, "v");
    std::uint64_t version = 0;
    read_int(required(v, "v", at), version, 0, INT64_MAX, at);
    if (version != PROTOCOL_VERSION) throw VersionError(version);
  }
  std::string_view kind;
  {
    Step step(at, "kind");
    kind = read_string(required(v, "kind", at), at);
  }
  if (kind == "call") {
    CallEnvelope call;
    call.id = read_id(v, at);
    Step step(at, "body");
    read_CallBody(required(v, "body", at), call.body, at);
    out = std::move(call);
  } else if (kind == "reply") {
    ReplyEnvelope reply;
    reply.id = read_id(v, at);
    Step step(at, "body");
    read_ReplyBody(required(v, "body", at), reply.body, at);
    out = std::move(reply);
  } else if (kind == "error") {
    ErrorEnvelope error;
    {
      Step step(at, "id");
      const json& id = required(v, "id", at);
      if (!id.is_null()) {
        std::uint64_t value = 0;
        read_int(id, value, 0, static_cast<std::int64_t>(MAX_ID), at);
        error.id = value;
      }
    }
    Step step(at, "body");
    read_RpcError(required(v, "body", at), error.body, at);
    out = std::move(error);
  } else if (kind == "event") {
    EventEnvelope event;
    Step step(at, "body");
    read_EventBody(required(v, "body", at), event.body, at);
    out = std::move(event);
  } else {
    Step step(at, "kind");
    fail(at, quoted(std::string(kind)) + " is not one of call, reply, error, event");
  }
}

}  // namespace detail

inline void to_json(nlohmann::json& j, const Envelope& envelope) {
  j = nlohmann::json{{"v", PROTOCOL_VERSION}, {"kind", std::string(kind_of(envelope))}};
  std::visit(
      [&j](const auto& alternative) {
        using T = std::decay_t<decltype(alternative)>;
        if constexpr (std::is_same_v<T, ErrorEnvelope>) {
          j["id"] = alternative.id ? nlohmann::json(*alternative.id) : nlohmann::json(nullptr);
        } else if constexpr (!std::is_same_v<T, EventEnvelope>) {
          j["id"] = alternative.id;
        }
        // In place, not through a temporary (`detail::write_into`).
        detail::write_into(j["body"], alternative.body);
      },
      envelope);
}

/// Reads an envelope from a document (`j.get<Envelope>()`): one nested
/// deeper than a reader of the wire takes is refused before it is read, as
/// parse_json refuses such text while it parses.
inline void from_json(const nlohmann::json& j, Envelope& out) {
  detail::within_depth(j, "the value");
  detail::Path at;
  detail::read_Envelope(j, out, at);
}

/// Decodes one envelope from JSON text (all of `text`, read by parse_json).
/// Throws ContractError (pointer "" for text that is not JSON as the wire
/// takes it), or VersionError for a `v` other than PROTOCOL_VERSION.
inline Envelope parse_envelope(std::string_view text) {
  nlohmann::json value = parse_json(text);
  Envelope envelope;
  // parse_json held the text to the depth limit already.
  detail::Path at;
  detail::read_Envelope(value, envelope, at);
  return envelope;
}

