//! The lint's rules, their ids and what each asks, and a broken one located.

use super::*;

/// The extension keywords that mean something here; any other `x-` is a typo
/// until it is added to this list and documented.
pub const KNOWN_EXTENSIONS: &[&str] = &[
    "x-since",
    "x-carriesHttpStatus",
    "x-transports",
    "x-errors",
    "x-secret",
    "x-enum-varnames",
    "x-rule",
    "x-spawnsProcess",
    "x-enum-since",
];

/// The keywords of draft 2020-12 (its core, applicator, unevaluated,
/// validation, meta-data, format and content vocabularies). Any other
/// keyword but a known `x-` one is ignored by every validator, so it asks
/// nothing: `"maxLenght": 255` leaves the string unbounded, `"nullable":
/// true` (OpenAPI's) admits no `null`.
pub const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Names every JavaScript object inherits: a property so named would
/// shadow that member on the values the TypeScript bindings return
/// (`String(o)` calls `o.toString`), so the bindings cannot have one
/// (`lint.camel_case` refuses them; those with an underscore are not
/// camelCase anyway).
pub const INHERITED_NAMES: &[&str] = &[
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// The lint's rules. Each variant's id is [`LintRule::id`] and what it asks
/// [`LintRule::summary`]: said there once, not again on each variant.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LintRule {
    Meta,
    Id,
    Title,
    Description,
    AdditionalProperties,
    IntegerBounds,
    CamelCase,
    SnakeCase,
    Ref,
    Extension,
    Keyword,
    UnionTag,
    SecretTransport,
    EnvelopeCoverage,
    Annotation,
    Pattern,
    Format,
    Since,
    Text,
    Satisfiable,
}

impl LintRule {
    /// Every rule, in the order the docs list them.
    pub const ALL: &'static [LintRule] = &[
        LintRule::Meta,
        LintRule::Id,
        LintRule::Title,
        LintRule::Description,
        LintRule::AdditionalProperties,
        LintRule::IntegerBounds,
        LintRule::CamelCase,
        LintRule::SnakeCase,
        LintRule::Ref,
        LintRule::Extension,
        LintRule::Keyword,
        LintRule::UnionTag,
        LintRule::SecretTransport,
        LintRule::EnvelopeCoverage,
        LintRule::Annotation,
        LintRule::Pattern,
        LintRule::Format,
        LintRule::Since,
        LintRule::Text,
        LintRule::Satisfiable,
    ];

    /// The stable id printed with every violation.
    pub fn id(self) -> &'static str {
        match self {
            LintRule::Meta => "lint.meta",
            LintRule::Id => "lint.id",
            LintRule::Title => "lint.title",
            LintRule::Description => "lint.description",
            LintRule::AdditionalProperties => "lint.additional_properties",
            LintRule::IntegerBounds => "lint.integer_bounds",
            LintRule::CamelCase => "lint.camel_case",
            LintRule::SnakeCase => "lint.snake_case",
            LintRule::Ref => "lint.ref",
            LintRule::Extension => "lint.extension",
            LintRule::Keyword => "lint.keyword",
            LintRule::UnionTag => "lint.union_tag",
            LintRule::SecretTransport => "lint.secret_transport",
            LintRule::EnvelopeCoverage => "lint.envelope_coverage",
            LintRule::Annotation => "lint.annotation",
            LintRule::Pattern => "lint.pattern",
            LintRule::Format => "lint.format",
            LintRule::Since => "lint.since",
            LintRule::Text => "lint.text",
            LintRule::Satisfiable => "lint.satisfiable",
        }
    }

    /// What the rule asks, in one sentence (for docs and `--explain`).
    pub fn summary(self) -> &'static str {
        match self {
            LintRule::Meta => "the file is a draft 2020-12 schema (its meta-schema holds), and its root has what schema/contract-schema.json asks of its kind",
            LintRule::Id => "`$id` is present and is the file's own place under the contract base, no schema inside a file has one, no two files' places differ only in case, and no file is named as a Windows device (`Aux.json`)",
            LintRule::Title => "`title` equals the type, method or event name (the file's stem)",
            LintRule::Description => "the root, every `$defs` entry and every property say what they mean, in text with no control character but line breaks and tabs",
            LintRule::AdditionalProperties => "every object says explicitly whether it is closed (`false`) or a map",
            LintRule::IntegerBounds => "every integer has a `minimum` and a `maximum`, within ±(2^53 − 1)",
            LintRule::CamelCase => "property names are camelCase, distinct in snake_case (Rust and C++ field names), and none is a name every JavaScript object inherits (`constructor`, `toString`, …)",
            LintRule::SnakeCase => "string enum values (and x-enum-varnames) are snake_case, and no two are one value or one Rust variant",
            LintRule::Ref => {
                "every `$ref` is relative and resolves inside the schema set, and checking a value \
                 meets at most 100,000 subschemas, each reference followed where it stands, and \
                 no schema comes back to itself twice at one part of the value"
            }
            LintRule::Extension => "only known `x-` keywords are used, and a method's own (`x-transports`, `x-errors`, `x-spawnsProcess`) only at a method file's root",
            LintRule::Keyword => "every other keyword is one of draft 2020-12's, of a type the schema's `type` allows: a validator ignores any other, so a misspelt keyword (or `minimum` on a string) asks nothing",
            LintRule::UnionTag => "every `oneOf`/`anyOf` is a union of objects told apart by a required `const` tag",
            LintRule::SecretTransport => "a method with an `x-secret` parameter, or one that spawns processes, is unix-only",
            LintRule::EnvelopeCoverage => "the envelope's bodies name every method and event exactly once, and nothing else",
            LintRule::Annotation => "annotations name things that exist (error names, enum values, name lists of the right length, `x-enum-since` entries for values of the `enum`, each with a version string), every `Transport` value is one `x-transports` may name, `x-carriesHttpStatus` names the codes TaskError's `error.http_status` rule asks `httpStatus` of, and `x-rule` ids are snake_case words joined by `.`",
            LintRule::Pattern => "every `pattern` keeps to what every reader reads alike: ASCII literals, escaped punctuation, classes of ASCII members, groups, alternation, quantifiers, `^` and `$`, in an automaton of at most 256 states",
            LintRule::Format => "`format` is `date-time` or `uri` on a string, or an integer width (`uint64`, …) on an integer: the formats whose handling by each reader is written down",
            LintRule::Since => "what is new since the latest release (a file, a field, a union branch, an enum value in `x-enum-since`) says `x-since` VERSION, which must have moved past that release; what a release froze keeps its `x-since`",
            LintRule::Text => "no string and no member name in a schema file holds a bidirectional formatting character (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)",
            LintRule::Satisfiable => "no schema refuses every value by its own bounds: an `enum` lists a value, no lower bound (`minimum`, `exclusiveMinimum`, `minLength`, `minItems`, `minProperties`) is above its upper one, a closed object requires only properties it lists, and each value an `enum`, `const` or `examples` lists meets the schema's own `type`, `enum`, bounds, lengths and `pattern`",
        }
    }
}

impl fmt::Display for LintRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken rule, located.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// The schema file.
    pub file: PathBuf,
    /// Where in it.
    pub pointer: Pointer,
    /// The rule broken.
    pub rule: LintRule,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names in the pointer and the message come from the schema file.
        write!(
            f,
            "{}#{}: [{}] {}",
            crate::plain(&self.file.display().to_string()),
            crate::plain(self.pointer.as_str()),
            self.rule,
            crate::plain(&self.message)
        )
    }
}
