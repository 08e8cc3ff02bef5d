//! The envelope's bodies (a call, a reply, an event: a variant each, and
//! one for a name this version does not know) and the envelope itself.

use super::*;

impl Emitter<'_> {
    /// The call, reply and event bodies: one struct per method or event, and
    /// one for a name this version does not know.
    pub(super) fn bodies(&mut self) -> anyhow::Result<()> {
        let model = self.model;
        let mut out = String::new();
        for call in &model.calls {
            let _ = writeln!(
                out,
                "/// A call of {} (since contract {}).\nstruct {} {{\n  static constexpr std::string_view method = {};\n  {} params{{}};\n}};\n",
                call.method, call.since, call.call_name(), literal(&call.method), call.params
            );
            let _ = writeln!(
                out,
                "/// The reply to {}.\nstruct {} {{\n  static constexpr std::string_view method = {};\n  {} result{{}};\n}};\n",
                call.method, call.reply_name(), literal(&call.method), call.result
            );
        }
        for event in &model.events {
            let _ = writeln!(
                out,
                "/// The event {} (since contract {}).\nstruct {} {{\n  static constexpr std::string_view name = {};\n  {} params{{}};\n}};\n",
                event.name, event.since, event.body_name(), literal(&event.name), event.params
            );
        }
        out.push_str(
            "/// A call of a method this version does not know (a newer peer's); its\n/// params are kept as they came, and written back unchanged.\n\
             struct UnknownCall {\n  std::string method;\n  nlohmann::json params;\n};\n\n\
             /// A reply naming a method this version does not know.\n\
             struct UnknownReply {\n  std::string method;\n  nlohmann::json result;\n};\n\n\
             /// An event this version does not know: a reader skips it.\n\
             struct UnknownEvent {\n  std::string name;\n  nlohmann::json params;\n};\n\n",
        );
        let calls: Vec<String> = model
            .calls
            .iter()
            .map(Call::call_name)
            .chain(["UnknownCall".into()])
            .collect();
        let replies: Vec<String> = model
            .calls
            .iter()
            .map(Call::reply_name)
            .chain(["UnknownReply".into()])
            .collect();
        let events: Vec<String> = model
            .events
            .iter()
            .map(Event::body_name)
            .chain(["UnknownEvent".into()])
            .collect();
        let _ = writeln!(
            out,
            "/// What a call asks, told apart by `method`.\nusing CallBody = std::variant<{}>;\n",
            calls.join(", ")
        );
        let _ = writeln!(out, "/// What a reply answers, told apart by `method`.\nusing ReplyBody = std::variant<{}>;\n", replies.join(", "));
        let _ = writeln!(
            out,
            "/// An event, told apart by `name`.\nusing EventBody = std::variant<{}>;\n",
            events.join(", ")
        );

        // Readers: the tag first, then the content the tag picks.
        let body_reader = |out: &mut String,
                           union: &str,
                           tag: &str,
                           content: &str,
                           members: &[(String, String, String)],
                           unknown: &str| {
            let _ = writeln!(
                out,
                "namespace detail {{\ninline void read_{union}(const json& v, {union}& out, Path& at) {{\n  expect_object(v, at);\n  \
                 const std::string* tag = nullptr;\n  {{\n    Step step(at, \"{tag}\");\n    tag = &read_string(required(v, \"{tag}\", at), at);\n  }}"
            );
            for (wire, strukt, ty) in members {
                let _ = writeln!(
                    out,
                    "  if (*tag == {}) {{\n    {strukt}& body = out.emplace<{strukt}>();\n    Step step(at, \"{content}\");\n    read_{ty}(required(v, \"{content}\", at), body.{content}, at);\n    return;\n  }}",
                    literal(wire)
                );
            }
            let _ = writeln!(
                out,
                "  // An unknown name keeps its content, which must be there as for a known one.\n  Step step(at, \"{content}\");\n  out = {unknown}{{*tag, required(v, \"{content}\", at)}};\n}}\n}}  // namespace detail\n"
            );
            let _ = writeln!(out, "inline void to_json(nlohmann::json& j, const {union}& body) {{\n  std::visit([&j](const auto& alternative) {{\n    using T = std::decay_t<decltype(alternative)>;");
            let _ = writeln!(
                out,
                // The content is written into its member in place
                // (`detail::write_into`), not through a temporary.
                "    j = nlohmann::json::object();\n    if constexpr (std::is_same_v<T, {unknown}>) {{\n      j[\"{tag}\"] = alternative.{tag};\n      j[\"{content}\"] = detail::within_depth(alternative.{content}, \"the value of \\\"{content}\\\"\");\n    }} else {{\n      j[\"{tag}\"] = std::string(T::{tag});\n      detail::write_into(j[\"{content}\"], alternative.{content});\n    }}\n  }}, body);\n}}\n"
            );
            let _ = writeln!(out, "inline void from_json(const nlohmann::json& j, {union}& out) {{\n  detail::within_depth(j, \"the value\");\n  detail::Path at;\n  detail::read_{union}(j, out, at);\n}}\n");
        };
        let call_members: Vec<_> = model
            .calls
            .iter()
            .map(|c| (c.method.clone(), c.call_name(), c.params.clone()))
            .collect();
        let reply_members: Vec<_> = model
            .calls
            .iter()
            .map(|c| (c.method.clone(), c.reply_name(), c.result.clone()))
            .collect();
        let event_members: Vec<_> = model
            .events
            .iter()
            .map(|e| (e.name.clone(), e.body_name(), e.params.clone()))
            .collect();
        for (part, members) in
            BODY_PARTS
                .iter()
                .zip([&call_members, &reply_members, &event_members])
        {
            body_reader(
                &mut out,
                part.union,
                part.tag,
                part.content,
                members,
                part.unknown,
            );
        }
        self.out.push_str(&out);
        Ok(())
    }

    pub(super) fn envelope(&mut self) {
        self.out.push_str(ENVELOPE);
        // By name, as the Rust bindings' `reserialize`: what tests and tools
        // that read fixtures of any type call.
        let mut names: Vec<&str> = self
            .model
            .types
            .iter()
            .filter(|named| !matches!(named.def, Def::Alias(_)))
            .map(|named| named.name.as_str())
            .chain(ENVELOPE_PARTS)
            .collect();
        names.sort_unstable();
        self.out.push_str(
            "/// Reads `value` as the type called `type_name` and writes it back;\n\
             /// nothing when there is no such type. Throws ContractError when the\n\
             /// value is not one.\n\
             inline std::optional<nlohmann::json> reserialize(std::string_view type_name, const nlohmann::json& value) {\n",
        );
        for name in names {
            let _ = writeln!(
                self.out,
                "  if (type_name == {}) return nlohmann::json(value.get<{name}>());",
                literal(name)
            );
        }
        self.out.push_str("  return std::nullopt;\n}\n\n");
    }
}
