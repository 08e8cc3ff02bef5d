//! The prover's closed vocabulary: every keyword it knows, how it holds
//! subschemas, and whether the prover reasons about it.
//!
//! One table, [`VOCABULARY`], decides three things: where the walks over a
//! schema find subschemas, which keywords the prover may draw "holds" from
//! (`Modelled`), and which stop it (`CannotDecide`, with why). A keyword the
//! table does not list is an annotation when the validator ignores it too,
//! and "cannot decide" when the validator knows it: a keyword a new release
//! of the validator starts to enforce can never slip past the prover
//! unnoticed. The README's table is this one in words; a test keeps them
//! equal.

use jsonschema::Draft;
use serde_json::{Map, Value};

/// How a keyword's value holds subschemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// No subschema.
    Value,
    /// One subschema.
    Schema,
    /// A list of subschemas.
    List,
    /// A map from names to subschemas.
    Map,
    /// One subschema, or a list of them (`items` before 2020-12).
    SchemaOrList,
    /// A map whose values are subschemas or lists of names (`dependencies`).
    MapOfSchemasOrNames,
}

/// What the prover does with a keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handling {
    /// Constrains values; the prover reasons about it.
    Modelled,
    /// Locates or names schemas, constrains nothing itself.
    Structure,
    /// Constrains nothing: descriptions, examples, extension keywords.
    Annotation,
    /// Constrains nothing the validator checks, but says what a value it
    /// accepts means (`default`: what a member left out stands for). The
    /// prover reads it as an annotation; a change of it is
    /// `meaning.changed`, breaking both ways, since the same value is then
    /// read as two things.
    Meaning(&'static str),
    /// Constrains values in a way the prover does not reason about: a
    /// comparison that reaches it cannot decide unless both sides are the
    /// same schema.
    CannotDecide(&'static str),
}

impl Handling {
    /// Whether the keyword leaves the values a schema accepts as they are.
    pub fn constrains_nothing(self) -> bool {
        matches!(self, Annotation | Structure | Meaning(_))
    }
}

/// One keyword: its name, shape and handling, and the drafts that have it.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub keyword: &'static str,
    pub shape: Shape,
    pub handling: Handling,
    /// The first draft with the keyword.
    pub since: Draft,
    /// The last draft with the keyword (`None`: still there in 2020-12).
    pub until: Option<Draft>,
}

const fn row(keyword: &'static str, shape: Shape, handling: Handling, since: Draft) -> Row {
    Row {
        keyword,
        shape,
        handling,
        since,
        until: None,
    }
}

const fn gone(mut row: Row, until: Draft) -> Row {
    row.until = Some(until);
    row
}

use Draft::{Draft201909 as D2019, Draft202012 as D2020, Draft4 as D4, Draft6 as D6, Draft7 as D7};
use Handling::{Annotation, CannotDecide, Meaning, Modelled, Structure};
use Shape::{List, Map as SchemaMap, MapOfSchemasOrNames, Schema, SchemaOrList, Value as Plain};

const DYNAMIC: &str =
    "a dynamic reference resolves by the path a value takes, which the prover does not follow";
const DYNAMIC_IN_2019: &str =
    "not a 2019-09 keyword, yet that draft's validator follows it where it collects what \
     `unevaluatedProperties` and `unevaluatedItems` see past; the draft does not";
const RECURSIVE_IN_2020: &str =
    "not a 2020-12 keyword, yet that draft's validator follows it where it collects what \
     `unevaluatedProperties` and `unevaluatedItems` see past; the draft does not";
const UNEVALUATED: &str =
    "what it applies to depends on which other keywords matched, which the prover does not track";
const CONTENT: &str = "the prover does not decode content to compare it";
const DEFAULT: &str = "what a member left out stands for";
const CONTENT_MEANS: &str = "how the string's content is encoded and read";

/// Every keyword of drafts 4 to 2020-12.
pub const VOCABULARY: &[Row] = &[
    row("$ref", Plain, Modelled, D4),
    gone(
        row("$dynamicRef", Plain, CannotDecide(DYNAMIC_IN_2019), D2019),
        D2019,
    ),
    row("$dynamicRef", Plain, CannotDecide(DYNAMIC), D2020),
    gone(
        row("$recursiveRef", Plain, CannotDecide(DYNAMIC), D2019),
        D2019,
    ),
    row(
        "$recursiveRef",
        Plain,
        CannotDecide(RECURSIVE_IN_2020),
        D2020,
    ),
    row("$dynamicAnchor", Plain, Structure, D2020),
    gone(row("$recursiveAnchor", Plain, Structure, D2019), D2019),
    row("$id", Plain, Structure, D6),
    gone(row("id", Plain, Structure, D4), D4),
    row("$schema", Plain, Structure, D4),
    row("$anchor", Plain, Structure, D2019),
    row("$vocabulary", Plain, Structure, D2019),
    row("$comment", Plain, Annotation, D7),
    // Before 2019-09 the validator reads an entry where a pointer names it.
    row("$defs", SchemaMap, Structure, D4),
    row("definitions", SchemaMap, Structure, D4),
    row("allOf", List, Modelled, D4),
    row("anyOf", List, Modelled, D4),
    row("oneOf", List, Modelled, D4),
    row("not", Schema, Modelled, D4),
    row("if", Schema, Modelled, D7),
    row("then", Schema, Modelled, D7),
    row("else", Schema, Modelled, D7),
    row("dependentSchemas", SchemaMap, Modelled, D2019),
    // Replaced by the two above in 2019-09, and still enforced there by the validator.
    row("dependencies", MapOfSchemasOrNames, Modelled, D4),
    row("prefixItems", List, Modelled, D2020),
    gone(row("items", SchemaOrList, Modelled, D4), D2019),
    row("items", Schema, Modelled, D2020),
    gone(row("additionalItems", Schema, Modelled, D4), D2019),
    row("contains", Schema, Modelled, D6),
    row("minContains", Plain, Modelled, D2019),
    row("maxContains", Plain, Modelled, D2019),
    row("properties", SchemaMap, Modelled, D4),
    row("patternProperties", SchemaMap, Modelled, D4),
    row("additionalProperties", Schema, Modelled, D4),
    row("propertyNames", Schema, Modelled, D6),
    row("unevaluatedItems", Schema, CannotDecide(UNEVALUATED), D2019),
    row(
        "unevaluatedProperties",
        Schema,
        CannotDecide(UNEVALUATED),
        D2019,
    ),
    row("type", Plain, Modelled, D4),
    row("enum", Plain, Modelled, D4),
    row("const", Plain, Modelled, D6),
    row("multipleOf", Plain, Modelled, D4),
    row("maximum", Plain, Modelled, D4),
    row("exclusiveMaximum", Plain, Modelled, D4),
    row("minimum", Plain, Modelled, D4),
    row("exclusiveMinimum", Plain, Modelled, D4),
    row("maxLength", Plain, Modelled, D4),
    row("minLength", Plain, Modelled, D4),
    row("pattern", Plain, Modelled, D4),
    row("maxItems", Plain, Modelled, D4),
    row("minItems", Plain, Modelled, D4),
    row("uniqueItems", Plain, Modelled, D4),
    row("maxProperties", Plain, Modelled, D4),
    row("minProperties", Plain, Modelled, D4),
    row("required", Plain, Modelled, D4),
    row("dependentRequired", Plain, Modelled, D2019),
    row("format", Plain, Modelled, D4),
    gone(row("contentEncoding", Plain, CannotDecide(CONTENT), D6), D7),
    gone(
        row("contentMediaType", Plain, CannotDecide(CONTENT), D6),
        D7,
    ),
    row("contentEncoding", Plain, Meaning(CONTENT_MEANS), D2019),
    row("contentMediaType", Plain, Meaning(CONTENT_MEANS), D2019),
    row("contentSchema", Schema, Meaning(CONTENT_MEANS), D2019),
    row("title", Plain, Annotation, D4),
    row("description", Plain, Annotation, D4),
    row("default", Plain, Meaning(DEFAULT), D4),
    row("examples", Plain, Annotation, D6),
    row("readOnly", Plain, Annotation, D7),
    row("writeOnly", Plain, Annotation, D7),
    row("deprecated", Plain, Annotation, D2019),
];

/// The table in words, as the README shows it: one line per keyword (a test
/// holds the README to it).
#[cfg(test)]
pub fn markdown() -> String {
    let draft = |d: Draft| match d {
        Draft::Draft4 => "4",
        Draft::Draft6 => "6",
        Draft::Draft7 => "7",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    };
    let mut out = String::from("| keyword | drafts | the checker |\n|---|---|---|\n");
    for row in VOCABULARY {
        let drafts = match row.until {
            Some(until) if until == row.since => draft(row.since).to_string(),
            Some(until) => format!("{}–{}", draft(row.since), draft(until)),
            None if row.since == Draft::Draft4 => "all".to_string(),
            None => format!("{} on", draft(row.since)),
        };
        let handling = match row.handling {
            Modelled => "modelled".to_string(),
            Structure => "structure (locates schemas)".to_string(),
            Annotation => "annotation (constrains nothing)".to_string(),
            Meaning(what) => format!("meaning ({what}): a change breaks both ways"),
            CannotDecide(why) => format!("cannot decide: {why}"),
        };
        out.push_str(&format!("| `{}` | {drafts} | {handling} |\n", row.keyword));
    }
    out
}

/// The row for `keyword` in `draft`, if the table lists it there.
pub fn row_of(draft: Draft, keyword: &str) -> Option<&'static Row> {
    let draft = known(draft);
    VOCABULARY
        .iter()
        .find(|r| r.keyword == keyword && r.since <= draft && r.until.is_none_or(|u| draft <= u))
}

/// A draft the table speaks of (an unknown dialect is read as 2020-12, and
/// refused elsewhere).
fn known(draft: Draft) -> Draft {
    match draft {
        Draft::Draft4 | Draft::Draft6 | Draft::Draft7 | Draft::Draft201909 => draft,
        _ => Draft::Draft202012,
    }
}

/// How the prover treats `keyword` in `draft`.
pub fn handling(draft: Draft, keyword: &str) -> Handling {
    match row_of(draft, keyword) {
        Some(row) => row.handling,
        // Listed for another draft: in this one the validator ignores it.
        None if VOCABULARY.iter().any(|r| r.keyword == keyword) => Annotation,
        None if keyword.starts_with("x-") => Annotation,
        None if known(draft).is_known_keyword(keyword) => {
            CannotDecide("the validator knows this keyword and the prover has no row for it")
        }
        None => Annotation,
    }
}

/// The shape of `keyword`'s value in `draft`; `Plain` for keywords that hold
/// no subschema there.
pub fn shape(draft: Draft, keyword: &str) -> Shape {
    row_of(draft, keyword).map_or(Plain, |r| r.shape)
}

/// The subschemas `keyword`'s value holds, as `(pointer suffix, schema)`.
pub fn children<'v>(draft: Draft, keyword: &str, value: &'v Value) -> Vec<(String, &'v Value)> {
    let token = contract::escape_pointer_token(keyword);
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    match (shape(draft, keyword), value) {
        (Shape::Schema | Shape::SchemaOrList, v) if is_schema(v) => vec![(format!("/{token}"), v)],
        (Shape::List | Shape::SchemaOrList, Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter(|(_, v)| is_schema(v))
            .map(|(i, v)| (format!("/{token}/{i}"), v))
            .collect(),
        (Shape::Map | Shape::MapOfSchemasOrNames, Value::Object(map)) => map
            .iter()
            .filter(|(_, v)| is_schema(v))
            .map(|(k, v)| (format!("/{token}/{}", contract::escape_pointer_token(k)), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// How deep schemas may nest inside one document before the prover stops
/// (the validator and the prover both recurse; past this, a verdict is
/// "cannot decide", never a stack overflow).
pub const MAX_NESTING: usize = 128;

/// How many schema positions one comparison may walk before it stops.
pub const MAX_POSITIONS: usize = 50_000;

/// How many subschemas checking one value may meet, each reference followed
/// where it stands, before a place is "cannot decide": the bound past which
/// the lint refuses a schema set (`lint.ref`).
pub use contract::MAX_EXPANDED;

/// A schema position: an object or boolean where a schema stands.
#[derive(Clone, Debug)]
pub struct Position<'v> {
    pub pointer: String,
    pub value: &'v Value,
    pub depth: usize,
}

/// Why a walk stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Nested deeper than [`MAX_NESTING`] at this pointer.
    Nesting(String),
    /// More than [`MAX_POSITIONS`] positions.
    Size,
}

/// Which schema positions a walk visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// Every one, definitions included.
    All,
    /// Those that apply to a value: definitions (`$defs`, `definitions`)
    /// are only reached through the references that use them.
    InPlay,
}

/// Every schema position under `root` (at `pointer`), parents before
/// children, walked with an explicit stack.
pub fn positions<'v>(
    root: &'v Value,
    pointer: &str,
    draft: Draft,
) -> Result<Vec<Position<'v>>, Stop> {
    walk(root, pointer, draft, Walk::All)
}

/// The schema positions under `root` that `walk` visits.
pub fn walk<'v>(
    root: &'v Value,
    pointer: &str,
    draft: Draft,
    walk: Walk,
) -> Result<Vec<Position<'v>>, Stop> {
    let mut out = Vec::new();
    let mut stack = vec![Position {
        pointer: pointer.to_string(),
        value: root,
        depth: 0,
    }];
    while let Some(position) = stack.pop() {
        if position.depth > MAX_NESTING {
            return Err(Stop::Nesting(position.pointer));
        }
        if out.len() >= MAX_POSITIONS {
            return Err(Stop::Size);
        }
        if let Value::Object(map) = position.value {
            let draft = draft_of(map, draft);
            // Reversed so the walk meets keywords in the map's order.
            for (key, value) in map.iter().rev() {
                if walk == Walk::InPlay
                    && row_of(draft, key).is_some_and(|r| r.handling == Structure)
                {
                    continue;
                }
                for (suffix, child) in children(draft, key, value).into_iter().rev() {
                    stack.push(Position {
                        pointer: format!("{}{suffix}", position.pointer),
                        value: child,
                        depth: position.depth + 1,
                    });
                }
            }
        }
        out.push(position);
    }
    Ok(out)
}

/// Every object inside `value` (itself included) with its JSON pointer, at
/// any depth, whether a schema stands there or not (a pointer may name
/// any of them). Walked with a stack: the depth is the document's.
pub fn objects(value: &Value) -> Objects<'_> {
    Objects {
        stack: vec![(String::new(), value)],
    }
}

/// The walk [`objects`] makes.
pub struct Objects<'v> {
    stack: Vec<(String, &'v Value)>,
}

impl<'v> Iterator for Objects<'v> {
    type Item = (String, &'v Map<String, Value>);

    fn next(&mut self) -> Option<Self::Item> {
        while let Some((pointer, value)) = self.stack.pop() {
            match value {
                Value::Object(map) => {
                    self.stack.extend(map.iter().map(|(key, value)| {
                        let token = contract::escape_pointer_token(key);
                        (format!("{pointer}/{token}"), value)
                    }));
                    return Some((pointer, map));
                }
                Value::Array(items) => self.stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(index, item)| (format!("{pointer}/{index}"), item)),
                ),
                _ => {}
            }
        }
        None
    }
}

/// The draft a schema object is read in: its own `$schema` where it names
/// one, else the draft around it.
pub fn draft_of(map: &Map<String, Value>, around: Draft) -> Draft {
    match map.get("$schema").and_then(Value::as_str) {
        Some(uri) => Draft::from_schema_uri(uri),
        None => around,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_walk_finds_subschemas_by_the_drafts_shapes() {
        let schema = json!({
            "properties": {"a": {"items": [{"type": "string"}, true]}},
            "enum": [{"properties": {"not": "a schema"}}],
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}}
        });
        let pointers: Vec<String> = positions(&schema, "", Draft::Draft7)
            .expect("walks")
            .into_iter()
            .map(|p| p.pointer)
            .collect();
        assert_eq!(
            pointers,
            [
                "",
                "/dependencies/c",
                "/properties/a",
                "/properties/a/items/0",
                "/properties/a/items/1"
            ]
        );
    }

    #[test]
    fn the_walk_stops_past_the_nesting_limit_without_recursing() {
        let mut schema = json!({"type": "string"});
        for _ in 0..(MAX_NESTING + 5) {
            schema = json!({"items": schema});
        }
        assert!(matches!(
            positions(&schema, "", Draft::Draft202012),
            Err(Stop::Nesting(_))
        ));
    }

    #[test]
    fn the_table_says_of_every_keyword_what_the_validator_does_with_it() {
        let uri = |draft: Draft| match draft {
            Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
            Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
            Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            _ => "https://json-schema.org/draft/2020-12/schema",
        };
        let mut wrong = Vec::new();
        for draft in [
            Draft::Draft4,
            Draft::Draft6,
            Draft::Draft7,
            Draft::Draft201909,
            Draft::Draft202012,
        ] {
            for (keyword, mut schema, refused) in sample::keyword_probes() {
                schema["$schema"] = json!(uri(draft));
                let enforced = match jsonschema::options()
                    .should_validate_formats(true)
                    .build(&schema)
                {
                    Ok(validator) => !validator.is_valid(&refused),
                    Err(_) => continue, // not a schema in this draft (`items: [...]` in 2020-12)
                };
                let constrains = matches!(handling(draft, keyword), Modelled | CannotDecide(_));
                if enforced != constrains {
                    wrong.push(format!(
                        "{keyword} in {draft:?}: validator enforces it: {enforced}, table: {:?}",
                        handling(draft, keyword)
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn the_readme_shows_the_table_the_checker_uses() {
        crate::tests::readme_shows(&markdown(), "vocabulary table");
    }

    #[test]
    fn an_unknown_keyword_is_an_annotation_and_an_unmodelled_one_stops_the_prover() {
        assert_eq!(handling(Draft::Draft202012, "x-since"), Annotation);
        assert_eq!(handling(Draft::Draft202012, "whatever"), Annotation);
        assert!(matches!(
            handling(Draft::Draft202012, "unevaluatedProperties"),
            CannotDecide(_)
        ));
        assert!(matches!(
            handling(Draft::Draft7, "contentEncoding"),
            CannotDecide(_)
        ));
        assert!(matches!(
            handling(Draft::Draft202012, "contentEncoding"),
            Meaning(_)
        ));
        // `if` means nothing to draft 6: the validator ignores it there.
        assert_eq!(handling(Draft::Draft6, "if"), Annotation);
    }
}
