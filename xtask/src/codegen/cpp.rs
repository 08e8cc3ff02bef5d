//! The C++17 bindings: `bindings/cpp/include/vdm/contract.hpp` (every type,
//! with ADL `to_json`/`from_json` for nlohmann::json and readers that check
//! what the schemas say) and `frame.hpp` (the frame codec).
//!
//! Written as text from [`super::model`]: no C++ code generator exists that
//! reads JSON Schema 2020-12 into checked nlohmann readers with the
//! contract's unknown-name alternatives, so the emitter is here.

mod bodies;
pub(super) mod pattern;
mod read;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use anyhow::{bail, Context};
use heck::ToSnakeCase;

use super::model::{
    Call, Clause, Def, Event, Field, Model, Named, Pattern, Rule, StrRules, Struct, Ty, BODY_PARTS,
    ENVELOPE_PARTS,
};

pub const DIR: &str = "bindings/cpp/include/vdm";

const SUPPORT: &str = include_str!("cpp/support.hpp");
const FRAME: &str = include_str!("cpp/frame.hpp");

/// The engine's own error enum starts with `ok` (no error), which has no
/// wire spelling; `vdm-conform mirror --cpp-header` reads enums that way.
const LEADING_OK: &[&str] = &["TaskErrorCode"];

/// Lowercase names GCC and Clang predefine as macros under GNU extensions
/// (`-std=gnu++17`, the compilers' and CMake's default) on the platforms
/// the engine builds for: the header undefines those it uses as names, so
/// `Transport::unix` reads the same in either dialect.
const GNU_MACROS: &[&str] = &["unix", "linux", "i386", "sun", "sparc", "mips", "vax"];

/// C++ keywords (C++17's, C++20's and GNU's), and the macros of the
/// standard library and of the Windows SDK, a member or enumerator may not be
/// named.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "constexpr",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "nullptr",
    "operator",
    "or",
    "private",
    "protected",
    "public",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
    "xor",
    "and_eq",
    "bitand",
    "bitor",
    "compl",
    "not_eq",
    "or_eq",
    "xor_eq",
    "char8_t",
    "char16_t",
    "char32_t",
    "wchar_t",
    "const_cast",
    "dynamic_cast",
    "reinterpret_cast",
    "static_cast",
    "static_assert",
    "thread_local",
    "decltype",
    // C++20's, for a lane that builds the header in a later dialect.
    "concept",
    "consteval",
    "constinit",
    "co_await",
    "co_return",
    "co_yield",
    "requires",
    // GNU's, in the GNU dialects GCC and Clang default to.
    "typeof",
    "stdin",
    "stdout",
    "stderr",
    "errno",
    "assert",
    "EOF",
    // Lowercase object-like macros of the Windows SDK's headers, which an
    // engine built for Windows includes before this one: `far`, `near`,
    // `pascal` and `cdecl` (minwindef.h), `small` and `hyper` (rpcndr.h),
    // `interface` (combaseapi.h). A function-like macro (`min`, `max`) is
    // only expanded before `(`, which no generated name is.
    "far",
    "near",
    "pascal",
    "cdecl",
    "small",
    "hyper",
    "interface",
    "NULL",
];

fn ident(name: &str) -> String {
    let snake = name.to_snake_case();
    if RESERVED.contains(&snake.as_str()) {
        format!("{snake}_")
    } else {
        snake
    }
}

fn enumerator(value: &str) -> String {
    let name = value.replace(['.', '-'], "_");
    if RESERVED.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// A C++ string literal of `text`: JSON's escapes are C++'s too, and where
/// `??` stands every `?` is written `\?`, so no trigraph comes of the text
/// (`??/` is a backslash before C++17, and `-Wtrigraphs` warns on one in
/// every dialect).
pub(super) fn literal(text: &str) -> String {
    let json = super::model::literal(text);
    if json.contains("??") {
        json.replace('?', "\\?")
    } else {
        json
    }
}

fn comment(out: &mut String, indent: &str, text: &str) {
    // A compiler ends a line at a bare CR too.
    for line in text.replace("\r\n", "\n").split(['\n', '\r']) {
        // A `//` comment whose line ends in a backslash goes on into the
        // next line of code (`C:\` would hide the field below it), and one
        // that ends in `??/` is warned about, or is that backslash before C++17.
        let end = line.trim_end();
        if end.ends_with('\\') || end.ends_with("??/") {
            let _ = writeln!(out, "{indent}/** {} */", line.replace("*/", "*\\/"));
        } else if end.is_empty() {
            // No trailing blank: a lane's whitespace check flags one.
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {end}");
        }
    }
}

pub fn files(
    model: &Model,
    version: &str,
    origin: &super::Origin,
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let (command, origin) = (origin.command, &origin.schemas);
    let mut emitter = Emitter::new(model);
    let body = emitter.body()?;
    let mut out = head(command, origin, version, model.protocol_version);
    let words: BTreeSet<&str> = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    let undefined: Vec<&str> = GNU_MACROS
        .iter()
        .copied()
        .filter(|name| words.contains(name))
        .collect();
    if !undefined.is_empty() {
        out.push_str(
            "// GCC and Clang define these as 1 under GNU extensions (their default\n\
             // dialect, and CMake's: -std=gnu++17), where the contract uses them as names.\n",
        );
        for name in undefined {
            let _ = writeln!(out, "#undef {name}");
        }
        out.push('\n');
    }
    out.push_str(SUPPORT);
    out.push_str("\nnamespace detail {\n\n");
    for (index, pattern) in emitter.patterns.iter().enumerate() {
        out.push_str(&pattern::function(
            index,
            &pattern.automaton,
            &literal(&pattern.source),
        ));
    }
    out.push_str("}  // namespace detail\n\n");
    out.push_str(&body);
    out.push_str("}  // namespace vdm::contract\n");
    let frame = format!(
        "// Generated by `{command}` from {origin}: do not edit.\n// The frame codec of the vdm contract {version}.\n{}",
        FRAME.replace("@MAX_FRAME@", &proto::frame::MAX_FRAME.to_string())
    );
    Ok(vec![("contract.hpp", out), ("frame.hpp", frame)])
}

/// contract.hpp up to the hand-written part: the includes, the namespace,
/// the versions.
fn head(command: &str, origin: &str, version: &str, protocol_version: u64) -> String {
    format!(
        "// Generated by `{command}` from {origin}: do not edit.\n\
         // The vdm contract {version} for C++17, on nlohmann::json 3.11.\n\
         #pragma once\n\n\
         // The readers and the frame codec report what is wrong by throwing\n\
         // (ContractError, FrameError): under -fno-exceptions nothing could\n\
         // report it. An engine built so reads the wire in a translation unit\n\
         // with exceptions and hands plain values on.\n\
         #if !defined(__cpp_exceptions) && !defined(_CPPUNWIND)\n\
         #error \"vdm/contract.hpp reports errors by throwing: compile this file with exceptions enabled (without -fno-exceptions)\"\n\
         #endif\n\
         // The writer turns nlohmann's own errors (a string that is not\n\
         // UTF-8) into FrameError; nlohmann's JSON_NOEXCEPTION makes it call\n\
         // abort() instead, and a frame holding such a string ended the process.\n\
         #if defined(JSON_NOEXCEPTION)\n\
         #error \"vdm/contract.hpp reports errors by throwing, where JSON_NOEXCEPTION makes nlohmann::json end the process: compile this file without JSON_NOEXCEPTION\"\n\
         #endif\n\
         // The reader refuses a number no double holds, and the writer one\n\
         // that is not finite, by testing for infinities and NaN; under\n\
         // -ffinite-math-only (part of -ffast-math and -Ofast) the compiler\n\
         // takes those tests for false, and 1e400 was read as the largest\n\
         // double, NaN written as 0.0.\n\
         #if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__\n\
         #error \"vdm/contract.hpp tells numbers that are not finite: compile this file without -ffinite-math-only (add -fno-finite-math-only after -ffast-math or -Ofast)\"\n\
         #endif\n\n\
         #include <algorithm>\n#include <clocale>\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include <cstdlib>\n#include <map>\n#include <optional>\n\
         #include <set>\n#include <stdexcept>\n#include <string>\n#include <string_view>\n#include <utility>\n\
         #include <variant>\n#include <vector>\n\n\
         #if defined(__unix__) || defined(__APPLE__)\n#include <locale.h>\n#endif\n\
         #if defined(__APPLE__)\n#include <xlocale.h>\n#endif\n\n\
         #include <nlohmann/json.hpp>\n\n\
         // The reader holds the JSON text policy through nlohmann's SAX\n\
         // callbacks and error ids as 3.11 gives them, the version the tests\n\
         // run on: an older one is refused here, as the CMake target refuses it.\n\
         #if NLOHMANN_JSON_VERSION_MAJOR < 3 || (NLOHMANN_JSON_VERSION_MAJOR == 3 && NLOHMANN_JSON_VERSION_MINOR < 11)\n\
         #error \"vdm/contract.hpp needs nlohmann::json 3.11 or newer\"\n\
         #endif\n\n\
         namespace vdm::contract {{\n\n\
         /// The contract version these bindings were generated from.\n\
         inline constexpr std::string_view CONTRACT_VERSION = {};\n\
         /// The envelope's `v`.\n\
         inline constexpr std::uint64_t PROTOCOL_VERSION = {protocol_version};\n\n",
        literal(version),
    )
}

/// The hand-written part alone, in the head the emitter writes before it
/// and closed after: a translation unit a test compiles to show the part
/// stands on its own.
#[cfg(test)]
pub(super) fn support_alone() -> String {
    format!(
        "{}{SUPPORT}}}  // namespace vdm::contract\n",
        head("test", "no schemas", "0.0.0", 1)
    )
}

/// Whatever a description holds, each line of its comment stays a comment
/// and hides no line after it: a bare CR ends a line for the compiler, and
/// a backslash at the end of a `//` line continues it.
#[test]
fn a_comment_ends_on_its_own_line_whatever_the_text() {
    let mut out = String::new();
    comment(
        &mut out,
        "  ",
        "one\rint injected = 1;\r\nC:\\\nend */ here\\ \nwhat??/",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "  /// one",
            "  /// int injected = 1;",
            "  /** C:\\ */",
            "  /** end *\\/ here\\  */",
            "  /** what??/ */",
        ],
        "{out}"
    );
    assert!(!out.contains('\r'));
    // No trigraph comes of a literal either.
    assert_eq!(literal("a??/b ? c"), "\"a\\?\\?/b \\? c\"");
    assert_eq!(literal("a ? b"), "\"a ? b\"");
}

#[test]
fn a_value_that_is_the_leading_ok_is_refused_at_its_enum() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut set = contract::SchemaSet::load(&root.join("contracts/schema")).unwrap();
    let doc = set
        .docs
        .iter_mut()
        .find(|doc| doc.name == "TaskErrorCode")
        .unwrap();
    doc.value["enum"].as_array_mut().unwrap().push("ok".into());
    let model = super::model::model(&set).unwrap();
    let origin = super::Origin {
        command: "test",
        schemas: "the contract".into(),
    };
    let err = format!(
        "{:#}",
        files(&model, "0.0.0", &origin).expect_err("refused")
    );
    assert!(
        err.contains("types/TaskErrorCode.json#/enum") && err.contains("\"ok\""),
        "{err}"
    );
}

struct Emitter<'a> {
    model: &'a Model,
    out: String,
    patterns: Vec<Pattern>,
    /// How many item loops enclose the reader being written: each level
    /// names its variables apart, so none shadows another (`-Wshadow`).
    loops: usize,
}

/// What the emitter writes for one named type of `model` (`None`: the
/// envelope's bodies), without the hand-written parts around it: what the
/// snapshot tests hold.
#[cfg(test)]
pub(super) fn emitted(model: &Model, name: Option<&str>) -> anyhow::Result<String> {
    let mut emitter = Emitter::new(model);
    match name {
        Some(name) => emitter.named(model.get(name).context("no such type")?)?,
        None => emitter.bodies()?,
    }
    Ok(emitter.out)
}

impl<'a> Emitter<'a> {
    fn new(model: &'a Model) -> Self {
        Emitter {
            model,
            out: String::new(),
            patterns: Vec::new(),
            loops: 0,
        }
    }

    fn body(&mut self) -> anyhow::Result<String> {
        for named in &self.model.types {
            self.named(named).with_context(|| named.origin.clone())?;
        }
        self.bodies()?;
        self.envelope();
        Ok(std::mem::take(&mut self.out))
    }

    fn pattern(&mut self, pattern: &Pattern) -> usize {
        match self
            .patterns
            .iter()
            .position(|known| known.source == pattern.source)
        {
            Some(index) => index,
            None => {
                self.patterns.push(pattern.clone());
                self.patterns.len() - 1
            }
        }
    }

    /// The C++ type of a field's value (without the optional around it).
    fn cpp_type(&self, ty: &Ty, secret: bool) -> String {
        match ty {
            Ty::Bool => "bool".into(),
            Ty::Int { min, max } => super::model::int_types(*min, *max).cpp.into(),
            Ty::Str(_) if secret => "SecretString".into(),
            Ty::Str(_) => "std::string".into(),
            Ty::Named(name) => name.clone(),
            Ty::Array { items, .. } => format!("std::vector<{}>", self.cpp_type(items, false)),
            Ty::Map { values, .. } => {
                format!("std::map<std::string, {}>", self.cpp_type(values, false))
            }
            Ty::Any => "nlohmann::json".into(),
        }
    }

    fn field_type(&self, field: &Field) -> String {
        let inner = self.cpp_type(&field.ty, field.secret);
        match (field.required, field.nullable) {
            (true, false) => inner,
            (true, true) | (false, false) => format!("std::optional<{inner}>"),
            // Absent (nullopt) and null (an empty inner optional) stay apart.
            (false, true) => format!("std::optional<std::optional<{inner}>>"),
        }
    }

    fn named(&mut self, named: &Named) -> anyhow::Result<()> {
        let name = &named.name;
        let mut doc = named.description.clone();
        let _ = write!(doc, "\n\nSince contract {}.", named.since);
        comment(&mut self.out, "", doc.trim_start());
        match &named.def {
            Def::Struct(st) => self.struct_type(name, st),
            Def::StringEnum(values) => self
                .string_enum(name, values)
                .with_context(|| format!("{}/enum", named.origin)),
            Def::IntEnum(values) => {
                self.int_enum(name, values);
                Ok(())
            }
            Def::Alias(ty) => self.alias(name, ty),
        }
    }

    /// A struct, its reader (fields, then rules) and its writer.
    fn struct_type(&mut self, name: &str, st: &Struct) -> anyhow::Result<()> {
        // A later contract may add a member anywhere in the (alphabetical)
        // order, so code sets members by name (docs/bindings.md). A
        // user-provided constructor makes the struct no aggregate, and an
        // initializer by position, which an added member would shift
        // silently onto the wrong member, does not compile: C++'s
        // `#[non_exhaustive]`.
        let _ = writeln!(
            self.out,
            "struct {name} {{\n  /// Members are set by name: a later contract may add one anywhere.\n  {name}() {{}}"
        );
        for field in &st.fields {
            if !field.description.is_empty() {
                comment(&mut self.out, "  ", &field.description);
            }
            let _ = writeln!(
                self.out,
                "  {} {}{{}};",
                self.field_type(field),
                ident(&field.json)
            );
        }
        let _ = writeln!(self.out, "}};\n");
        self.struct_reader(name, &st.fields, &st.rules)?;
        self.struct_writer(name, &st.fields);
        Ok(())
    }

    /// An `enum class` of a string enum, its spellings both ways, reader and writer.
    fn string_enum(&mut self, name: &str, values: &[String]) -> anyhow::Result<()> {
        let mut all: Vec<String> = Vec::new();
        let leading_ok = LEADING_OK.contains(&name);
        if leading_ok {
            all.push("ok".into());
        }
        all.extend(values.iter().map(|value| enumerator(value)));
        if all.iter().collect::<BTreeSet<_>>().len() != all.len() {
            if leading_ok && values.iter().any(|value| value == "ok") {
                bail!("the value \"ok\" is the C++ enumerator `ok` {name} starts with (no error, no wire spelling); rename it");
            }
            bail!("two values of {name} have the same C++ enumerator");
        }
        let _ = writeln!(
            self.out,
            "enum class {name} {{\n  {},\n}};\n",
            all.join(",\n  ")
        );
        let _ = writeln!(
            self.out,
            "/// The value's wire spelling{}.\ninline std::string_view to_string({name} value) {{\n  switch (value) {{",
            if leading_ok { " (`ok` has none: \"\")" } else { "" }
        );
        if leading_ok {
            let _ = writeln!(self.out, "    case {name}::ok: return \"\";");
        }
        for value in values {
            let _ = writeln!(
                self.out,
                "    case {name}::{}: return {};",
                enumerator(value),
                literal(value)
            );
        }
        let _ = writeln!(self.out, "  }}\n  return \"\";\n}}\n");
        let _ = writeln!(
            self.out,
            "/// The value a wire spelling names, if it names one.\ntemplate <>\ninline std::optional<{name}> parse<{name}>(std::string_view text) {{"
        );
        for value in values {
            let _ = writeln!(
                self.out,
                "  if (text == {}) return {name}::{};",
                literal(value),
                enumerator(value)
            );
        }
        let _ = writeln!(self.out, "  return std::nullopt;\n}}\n");
        let _ = writeln!(
            self.out,
            "namespace detail {{\ninline void read_{name}(const json& v, {name}& out, const Path& at) {{\n  \
             std::optional<{name}> value = parse<{name}>(read_string(v, at));\n  \
             if (!value) fail(at, quoted(v.get_ref<const std::string&>()) + \" is not a {name}\");\n  \
             out = *value;\n}}\n}}  // namespace detail\n"
        );
        let _ = writeln!(
            self.out,
            "inline void to_json(nlohmann::json& j, const {name}& value) {{\n  \
             std::string_view text = to_string(value);\n  \
             if (text.empty()) throw ContractError(\"\", \"{name} {} has no wire spelling\");\n  \
             j = std::string(text);\n}}\n",
            if leading_ok { "ok" } else { "value" }
        );
        self.emit_from_json(name);
        Ok(())
    }

    /// An `enum class` over integer codes with names, both ways, reader and writer.
    fn int_enum(&mut self, name: &str, values: &[(i64, String)]) {
        let list: Vec<String> = values
            .iter()
            .map(|(code, label)| format!("{} = {code}", enumerator(label)))
            .collect();
        let _ = writeln!(
            self.out,
            "enum class {name} : std::int64_t {{\n  {},\n}};\n",
            list.join(",\n  ")
        );
        let _ = writeln!(self.out, "/// The contract's name for the code.\ninline std::string_view to_string({name} value) {{\n  switch (value) {{");
        for (_, label) in values {
            let _ = writeln!(
                self.out,
                "    case {name}::{}: return {};",
                enumerator(label),
                literal(label)
            );
        }
        let _ = writeln!(self.out, "  }}\n  return \"\";\n}}\n");
        let _ = writeln!(self.out, "/// The code a name stands for, if it names one.\ntemplate <>\ninline std::optional<{name}> parse<{name}>(std::string_view text) {{");
        for (_, label) in values {
            let _ = writeln!(
                self.out,
                "  if (text == {}) return {name}::{};",
                literal(label),
                enumerator(label)
            );
        }
        let _ = writeln!(self.out, "  return std::nullopt;\n}}\n");
        let (min, max) = (
            values.iter().map(|(code, _)| *code).min().unwrap_or(0),
            values.iter().map(|(code, _)| *code).max().unwrap_or(0),
        );
        let _ = writeln!(self.out, "namespace detail {{\ninline void read_{name}(const json& v, {name}& out, const Path& at) {{\n  std::int64_t code = 0;\n  read_int(v, code, {min}, {max}, at);\n  switch (code) {{");
        for (code, label) in values {
            let _ = writeln!(
                self.out,
                "    case {code}: out = {name}::{}; return;",
                enumerator(label)
            );
        }
        let _ = writeln!(self.out, "  }}\n  fail(at, std::to_string(code) + \" is not a {name}\");\n}}\n}}  // namespace detail\n");
        let _ = writeln!(self.out, "inline void to_json(nlohmann::json& j, const {name}& value) {{ j = static_cast<std::int64_t>(value); }}\n");
        self.emit_from_json(name);
    }

    /// A `using` of a plain type, with its reader (the type's rules).
    fn alias(&mut self, name: &str, ty: &Ty) -> anyhow::Result<()> {
        let _ = writeln!(self.out, "using {name} = {};\n", self.cpp_type(ty, false));
        let _ = writeln!(
            self.out,
            "namespace detail {{\ninline void read_{name}(const json& v, {name}& out, Path& at) {{"
        );
        let read = self.read_value(ty, false, "v", "out", "  ")?;
        self.out.push_str(&read);
        let _ = writeln!(self.out, "}}\n}}  // namespace detail\n");
        Ok(())
    }

    fn emit_from_json(&mut self, name: &str) {
        let _ = writeln!(
            self.out,
            "inline void from_json(const nlohmann::json& j, {name}& out) {{\n  detail::within_depth(j, \"the value\");\n  detail::Path at;\n  detail::read_{name}(j, out, at);\n}}\n"
        );
    }

    fn is_string_enum(&self, name: &str) -> bool {
        self.model
            .get(name)
            .is_some_and(|named| matches!(named.def, Def::StringEnum(_)))
    }
}

fn int_literal(value: i64) -> String {
    // -2^63 cannot be written as a literal; no bound here comes near it.
    if value < 0 {
        format!("({value}LL)")
    } else {
        format!("{value}")
    }
}

fn indent_more(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// The envelope, hand-written: copied in after the bodies it names.
const ENVELOPE: &str = include_str!("cpp/envelope.hpp");
