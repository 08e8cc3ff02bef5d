//! The names the bindings declare beside each other: every type, every body
//! alternative a method or event gives, what an enum adds, and what the
//! bindings' own code defines. Two of them that meet would make a binding
//! that does not compile, so the model refuses that with the place the name
//! came from.

use super::*;

/// What the bindings' own code declares where the types live: the root of
/// Rust's `proto`, the C++ namespace `vdm::contract` (with its `detail`),
/// and the TypeScript module. A test reads the generated files and fails on
/// any name neither here nor derived by [`declared`].
pub const SUPPORT_NAMES: &[&str] = &[
    "Envelope",
    "CallBody",
    "ReplyBody",
    "EventBody",
    "ProtocolVersion",
    "CallEnvelope",
    "ReplyEnvelope",
    "ErrorEnvelope",
    "EventEnvelope",
    "UnknownCall",
    "UnknownReply",
    "UnknownEvent",
    "Unknown",
    "ContractError",
    "VersionError",
    "DecodeError",
    "Problem",
    "EnvelopeKind",
    "MethodInfo",
    "EventInfo",
    "Secret",
    "SecretString",
    "FrameError",
    "FrameReader",
    "FrameWriter",
    "FrameCodec",
    "FrameDecoder",
    "Path",
    "Step",
    "PolicyBuilder",
    "ClassicNumbers",
    "HEADER",
    "INSPECT",
    "READERS",
    "T",
    "Token",
    "Kind",
];

/// Rust's prelude: `proto` takes the generated types in with a glob import,
/// and a glob import hides the prelude, so a type named `Option` or `String`
/// would stand in for the one every Rust file means. With `Self`, the one
/// PascalCase keyword.
pub const RUST_PRELUDE: &[&str] = &[
    "Self",
    "AsMut",
    "AsRef",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Err",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
];

/// The JavaScript globals the TypeScript bindings' runtime calls: an
/// integer enum is a `const` of its name there, and one named `Error` would
/// hide the global the runtime's errors extend.
pub const JS_GLOBALS: &[&str] = &[
    "Array",
    "DataView",
    "Error",
    "Infinity",
    "JSON",
    "Map",
    "Math",
    "Number",
    "Object",
    "RegExp",
    "Set",
    "String",
    "Symbol",
    "TextDecoder",
    "TextEncoder",
    "Uint8Array",
    "WeakMap",
];

/// Every name the bindings declare for the model, with where it comes from.
/// A name derived twice, or derived once and also a support name, is an
/// error naming both places.
pub fn declared(model: &Model) -> anyhow::Result<BTreeMap<String, String>> {
    let mut names: BTreeMap<String, String> = SUPPORT_NAMES
        .iter()
        .map(|name| (name.to_string(), "the bindings' own code".to_string()))
        .chain(
            RUST_PRELUDE
                .iter()
                .map(|name| (name.to_string(), "Rust's prelude".to_string())),
        )
        .chain(
            JS_GLOBALS
                .iter()
                .map(|name| (name.to_string(), "JavaScript's globals".to_string())),
        )
        .collect();
    let mut claim = |name: String, origin: String| -> anyhow::Result<()> {
        if let Some(first) = names.get(&name) {
            bail!("{origin}: the bindings would declare {name} twice, here and in {first}; rename one");
        }
        names.insert(name, origin);
        Ok(())
    };
    for named in &model.types {
        if !is_pascal_case(&named.name) {
            bail!(
                "{}: the type name {:?} is not PascalCase (an ASCII capital, then letters and digits), which every binding can declare",
                named.origin,
                named.name
            );
        }
        claim(named.name.clone(), named.origin.clone())?;
        // The TypeScript module's list of an enum's values, and its lookup set.
        let suffixes: &[&str] = match named.def {
            Def::StringEnum(_) => &["Values", "Set"],
            Def::IntEnum(_) => &["Set"],
            Def::Struct(_) | Def::Alias(_) => &[],
        };
        for suffix in suffixes {
            claim(format!("{}{suffix}", named.name), named.origin.clone())?;
        }
    }
    for call in &model.calls {
        let origin = format!("methods/{}.json#", call.method);
        claim(call.call_name(), origin.clone())?;
        claim(call.reply_name(), origin)?;
    }
    for event in &model.events {
        claim(event.body_name(), format!("events/{}.json#", event.name))?;
    }
    Ok(names)
}

fn is_pascal_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The PascalCase names a generated file declares, read line by line
    /// after the keywords that declare a name in each language. In Rust only
    /// items at the left margin count: an associated `type Error` or the
    /// `error` module's contents share no scope with the types.
    fn names_in(rel: &str, keywords: &[&str]) -> BTreeSet<String> {
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        let mut names = BTreeSet::new();
        for line in text.lines() {
            if rel.ends_with(".rs") && line.starts_with(char::is_whitespace) {
                continue;
            }
            let mut rest = line.trim_start();
            for prefix in ["export ", "declare ", "pub ", "inline "] {
                rest = rest.strip_prefix(prefix).unwrap_or(rest);
            }
            for keyword in keywords {
                let Some(after) = rest.strip_prefix(keyword) else {
                    continue;
                };
                let mut words = after
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .filter(|word| !word.is_empty());
                // `constexpr std::size_t MAX_FRAME`: the type comes first.
                if *keyword == "constexpr " {
                    words.next();
                }
                if let Some(name) = words.next().filter(|name| is_pascal_case(name)) {
                    names.insert(name.to_string());
                }
            }
        }
        names
    }

    fn refused(edit: impl FnOnce(&mut SchemaSet)) -> String {
        let mut set = SchemaSet::load(&root().join("contracts/schema")).unwrap();
        edit(&mut set);
        format!(
            "{:#}",
            model(&set).err().expect("the model refuses the edit")
        )
    }

    /// Adds a type named `name`: a string enum's schema under another title.
    fn add_type(name: &str) -> impl FnOnce(&mut SchemaSet) + '_ {
        move |set| {
            let like = super::super::tests::a_string_enum(set);
            let mut doc = set
                .docs
                .iter()
                .find(|doc| doc.name == like)
                .unwrap()
                .clone();
            doc.value["title"] = Value::from(name);
            doc.name = name.to_string();
            doc.rel = format!("types/{name}.json");
            set.docs.push(doc);
        }
    }

    #[test]
    fn a_type_named_as_something_the_bindings_declare_is_refused() {
        for (name, other) in [
            ("DownloadAddCall", "methods/download.add.json#"),
            ("EventTaskState", "events/event.task.state.json#"),
            ("TaskStateValues", "types/TaskState.json#"),
            ("Secret", "the bindings' own code"),
            ("Option", "Rust's prelude"),
            ("Self", "Rust's prelude"),
            ("Error", "JavaScript's globals"),
        ] {
            let err = refused(add_type(name));
            assert!(
                err.contains(&format!("types/{name}.json#")) && err.contains(other),
                "{name}: {err}"
            );
        }
        let err = refused(add_type("notify-level"));
        assert!(err.contains("not PascalCase"), "{err}");
    }

    #[test]
    fn every_name_the_bindings_declare_is_known_to_the_model() {
        let set = SchemaSet::load(&root().join("contracts/schema")).unwrap();
        let model = model(&set).unwrap();
        let known = declared(&model).unwrap();
        let files: [(&str, &[&str]); 5] = [
            (
                "bindings/ts/index.d.ts",
                &["class ", "type ", "interface ", "const ", "function "],
            ),
            (
                "bindings/ts/index.js",
                &["class ", "const ", "function ", "let "],
            ),
            (
                "bindings/cpp/include/vdm/contract.hpp",
                &["struct ", "class ", "enum class ", "using ", "constexpr "],
            ),
            (
                "bindings/cpp/include/vdm/frame.hpp",
                &["struct ", "class ", "enum class ", "using ", "constexpr "],
            ),
            (
                "crates/proto/src/generated/types.rs",
                &["struct ", "enum ", "type ", "const ", "fn "],
            ),
        ];
        let mut seen = 0;
        for (rel, keywords) in files {
            let names = names_in(rel, keywords);
            assert!(names.len() > 1, "{rel}: read {names:?}");
            seen += names.len();
            let unknown: Vec<&String> = names
                .iter()
                .filter(|name| !known.contains_key(*name))
                .collect();
            assert!(unknown.is_empty(), "{rel} declares {unknown:?}, which the model does not know of: add them to SUPPORT_NAMES or derive them in `declared`");
        }
        assert!(seen > 100, "{seen}");
    }
}
