//! What kind of change a [`crate::Change`] is. Its id (`property.added`,
//! `bound.narrowed`, ...) is what reports print and lanes grep for.

use std::borrow::Cow;
use std::fmt;

/// The kind of a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// A schema replaced by something of another shape (not an object).
    SchemaReplaced,
    /// Descriptions or other annotations changed.
    AnnotationChanged,
    /// A keyword that says what an accepted value means (`default`,
    /// `contentEncoding`, ...) changed: the same value is read as two things.
    MeaningChanged,
    /// A property became required.
    RequiredAdded,
    /// A property is no longer required.
    RequiredRemoved,
    /// An enum gained a value.
    EnumValueAdded,
    /// An enum lost a value.
    EnumValueRemoved,
    /// An object gained a property.
    PropertyAdded,
    /// An object lost a property.
    PropertyRemoved,
    /// A union gained a branch.
    BranchAdded,
    /// A union lost a branch.
    BranchRemoved,
    /// Changes at one place that break together what none breaks alone.
    ShapeChanged,
    /// One keyword of a family changed, judged by how the accepted values moved.
    Keyword(Family, How),
    /// A method file was added.
    MethodAdded,
    /// A method file was removed.
    MethodRemoved,
    /// A name that was a method is now an event.
    MethodBecameEvent,
    /// A method's `x-transports` changed.
    MethodTransportsChanged,
    /// A method's `x-errors` changed.
    MethodErrorsChanged,
    /// A method's `x-spawnsProcess` changed.
    MethodSpawnsProcessChanged,
    /// A method or event file changed outside its shapes in a way the
    /// checker does not model.
    FileRootChanged,
    /// An event file was added.
    EventAdded,
    /// An event file was removed.
    EventRemoved,
    /// A name that was an event is now a method.
    EventBecameMethod,
    /// A file the executor reads (`config/`) has no schema any more.
    ConfigRemoved,
    /// A file the executor reads (`config/`) has a schema now.
    ConfigAdded,
    /// What the generated bindings name changed where the wire may not
    /// have: a type renamed, a field's type or an enum value's name changed
    /// (`api.rs`).
    ApiChanged,
}

/// Keywords grouped by what they constrain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `type`.
    Type,
    /// Numeric bounds and `multipleOf`.
    Bound,
    /// `minLength` and `maxLength`.
    Length,
    /// `minItems`, `maxItems`, `minProperties`, `maxProperties` and `uniqueItems`.
    Count,
    /// `pattern`.
    Pattern,
    /// `format`.
    Format,
    /// `const` and `enum`.
    Const,
    /// `additionalProperties` and `patternProperties`.
    Map,
    /// `items`, `prefixItems`, `additionalItems` and `contains`.
    Items,
    /// Any other keyword.
    Condition,
}

/// How the values a keyword accepts moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum How {
    /// Accepts more: breaks old readers.
    Widened,
    /// Accepts less: breaks old writers.
    Narrowed,
    /// Neither, or both.
    Changed,
}

impl Family {
    /// The family of a keyword.
    pub fn of(keyword: &str) -> Family {
        match keyword {
            "type" => Family::Type,
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                Family::Bound
            }
            "minLength" | "maxLength" => Family::Length,
            "minItems" | "maxItems" | "minProperties" | "maxProperties" | "uniqueItems" => {
                Family::Count
            }
            "pattern" => Family::Pattern,
            "format" => Family::Format,
            "const" | "enum" => Family::Const,
            "additionalProperties" | "patternProperties" => Family::Map,
            "items" | "prefixItems" | "additionalItems" | "contains" => Family::Items,
            _ => Family::Condition,
        }
    }

    fn id(self) -> &'static str {
        match self {
            Family::Type => "type",
            Family::Bound => "bound",
            Family::Length => "length",
            Family::Count => "count",
            Family::Pattern => "pattern",
            Family::Format => "format",
            Family::Const => "const",
            Family::Map => "map",
            Family::Items => "items",
            Family::Condition => "condition",
        }
    }
}

impl How {
    fn id(self) -> &'static str {
        match self {
            How::Widened => "widened",
            How::Narrowed => "narrowed",
            How::Changed => "changed",
        }
    }
}

impl Rule {
    /// A removal or rename of something the generated bindings name: code
    /// built on them stops compiling.
    pub fn breaks_api(self) -> bool {
        matches!(
            self,
            Rule::PropertyRemoved
                | Rule::EnumValueRemoved
                | Rule::MethodRemoved
                | Rule::EventRemoved
                | Rule::MethodBecameEvent
                | Rule::EventBecameMethod
                | Rule::ApiChanged
        )
    }

    /// Whether it is about a method or event as a whole, judged by the
    /// contract's rules rather than by a shape both sides have.
    pub fn is_method_or_event(self) -> bool {
        matches!(
            self,
            Rule::MethodAdded
                | Rule::MethodRemoved
                | Rule::MethodBecameEvent
                | Rule::MethodTransportsChanged
                | Rule::MethodErrorsChanged
                | Rule::MethodSpawnsProcessChanged
                | Rule::FileRootChanged
                | Rule::EventAdded
                | Rule::EventRemoved
                | Rule::EventBecameMethod
        )
    }

    /// Whether the thing it names is gone from the new schemas.
    pub fn is_removal(self) -> bool {
        matches!(
            self,
            Rule::RequiredRemoved
                | Rule::EnumValueRemoved
                | Rule::PropertyRemoved
                | Rule::BranchRemoved
                | Rule::MethodRemoved
                | Rule::EventRemoved
                | Rule::ConfigRemoved
        )
    }
}

impl Rule {
    /// The id reports print and lanes grep for.
    pub fn id(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Rule::SchemaReplaced => "schema.replaced",
            Rule::AnnotationChanged => "annotation.changed",
            Rule::MeaningChanged => "meaning.changed",
            Rule::RequiredAdded => "required.added",
            Rule::RequiredRemoved => "required.removed",
            Rule::EnumValueAdded => "enum.value_added",
            Rule::EnumValueRemoved => "enum.value_removed",
            Rule::PropertyAdded => "property.added",
            Rule::PropertyRemoved => "property.removed",
            Rule::BranchAdded => "branch.added",
            Rule::BranchRemoved => "branch.removed",
            Rule::ShapeChanged => "shape.changed",
            Rule::Keyword(family, how) => {
                return Cow::Owned(format!("{}.{}", family.id(), how.id()))
            }
            Rule::MethodAdded => "method.added",
            Rule::MethodRemoved => "method.removed",
            Rule::MethodBecameEvent => "method.became_event",
            Rule::MethodTransportsChanged => "method.transports_changed",
            Rule::MethodErrorsChanged => "method.errors_changed",
            Rule::MethodSpawnsProcessChanged => "method.spawns_process_changed",
            Rule::FileRootChanged => "file.root_changed",
            Rule::EventAdded => "event.added",
            Rule::EventRemoved => "event.removed",
            Rule::EventBecameMethod => "event.became_method",
            Rule::ConfigRemoved => "config.removed",
            Rule::ConfigAdded => "config.added",
            Rule::ApiChanged => "api.changed",
        })
    }
}

/// The rules that are not one keyword family's, in the order reports list them.
const FIXED: [Rule; 24] = [
    Rule::SchemaReplaced,
    Rule::AnnotationChanged,
    Rule::MeaningChanged,
    Rule::RequiredAdded,
    Rule::RequiredRemoved,
    Rule::EnumValueAdded,
    Rule::EnumValueRemoved,
    Rule::PropertyAdded,
    Rule::PropertyRemoved,
    Rule::BranchAdded,
    Rule::BranchRemoved,
    Rule::ShapeChanged,
    Rule::MethodAdded,
    Rule::MethodRemoved,
    Rule::MethodBecameEvent,
    Rule::MethodTransportsChanged,
    Rule::MethodErrorsChanged,
    Rule::MethodSpawnsProcessChanged,
    Rule::FileRootChanged,
    Rule::EventAdded,
    Rule::EventRemoved,
    Rule::EventBecameMethod,
    Rule::ConfigRemoved,
    Rule::ConfigAdded,
];

const FAMILIES: [Family; 10] = [
    Family::Type,
    Family::Bound,
    Family::Length,
    Family::Count,
    Family::Pattern,
    Family::Format,
    Family::Const,
    Family::Map,
    Family::Items,
    Family::Condition,
];

impl Family {
    /// The keywords of the family, as the README names them.
    fn keywords(self) -> &'static str {
        match self {
            Family::Type => "`type`",
            Family::Bound => {
                "`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`"
            }
            Family::Length => "`minLength`, `maxLength`",
            Family::Count => {
                "`minItems`, `maxItems`, `minProperties`, `maxProperties`, `uniqueItems`"
            }
            Family::Pattern => "`pattern`",
            Family::Format => "`format`",
            Family::Const => "`const`, `enum` (as a whole)",
            Family::Map => "`additionalProperties`, `patternProperties`",
            Family::Items => "`items`, `prefixItems`, `additionalItems`, `contains`",
            Family::Condition => {
                "any other keyword (`allOf`, `not`, `if`/`then`/`else`, `$ref`, ...)"
            }
        }
    }
}

impl Rule {
    /// Every rule a change can carry: the fixed ones, then each keyword
    /// family each way.
    pub fn all() -> Vec<Rule> {
        let mut all = FIXED.to_vec();
        all.push(Rule::ApiChanged);
        for family in FAMILIES {
            for how in [How::Widened, How::Narrowed, How::Changed] {
                all.push(Rule::Keyword(family, how));
            }
        }
        all
    }

    /// What a change of this rule is, in one sentence: reports' rule
    /// descriptions (SARIF) and the README's table. Its verdicts are the
    /// values' (see "How `compat` decides"), unless said here.
    pub fn explain(self) -> String {
        let text = match self {
            Rule::SchemaReplaced => "a schema replaced by a value of another shape (a boolean schema, or something that is not a schema), judged whole",
            Rule::AnnotationChanged => "descriptions, titles, comments or `x-` keywords changed: compatible both ways, a patch",
            Rule::MeaningChanged => "a keyword that passes every value but says what one means (`default`, `contentEncoding`, `contentMediaType`, `contentSchema`) changed: breaking both ways; added or removed, cannot decide",
            Rule::RequiredAdded => "a member became required",
            Rule::RequiredRemoved => "a member is no longer required",
            Rule::EnumValueAdded => "an enum gained a value",
            Rule::EnumValueRemoved => "an enum lost a value (code naming it no longer compiles)",
            Rule::PropertyAdded => "an object declares a member it did not",
            Rule::PropertyRemoved => "an object no longer declares a member (code naming it no longer compiles)",
            Rule::BranchAdded => "a union (`oneOf`, `anyOf`) gained a branch",
            Rule::BranchRemoved => "a union lost a branch",
            Rule::ShapeChanged => "the changes at one place break together what none breaks alone (the schemas compared whole)",
            Rule::MethodAdded => "a method file was added",
            Rule::MethodRemoved => "a method file was removed (code naming it no longer compiles)",
            Rule::MethodBecameEvent => "a name that was a method is an event",
            Rule::MethodTransportsChanged => "a method's `x-transports` changed: one removed breaks R",
            Rule::MethodErrorsChanged => "a method's `x-errors` changed: a code added is minor, one removed a patch",
            Rule::MethodSpawnsProcessChanged => "a method's `x-spawnsProcess` changed: minor",
            Rule::FileRootChanged => "a method's or event's file changed outside its `params` and `result` in a way not modelled: cannot decide",
            Rule::EventAdded => "an event file was added",
            Rule::EventRemoved => "an event file was removed (code naming it no longer compiles)",
            Rule::EventBecameMethod => "a name that was an event is a method",
            Rule::ConfigRemoved => "a file the executor reads (`config/`) has no schema any more: cannot decide",
            Rule::ConfigAdded => "a file the executor reads (`config/`) has a schema now: cannot decide",
            Rule::ApiChanged => "what the generated bindings name changed where the wire may not have (a type renamed, a field's type, an enum value's name or place): API breaking",
            Rule::Keyword(family, how) => {
                let moved = match how {
                    How::Widened => "more values pass: a new writer may send what an old reader refuses (W)",
                    How::Narrowed => "fewer values pass: a new reader may refuse what an old writer sent (R)",
                    How::Changed => "both directions hold (the same values pass) or both break",
                };
                return format!("{} changed; {moved}", family.keywords());
            }
        };
        text.to_string()
    }
}

/// The rules in words, as the README shows them: one line per rule (a test
/// holds the README to it).
#[cfg(test)]
pub fn markdown() -> String {
    let mut out = String::from("| rule | the change |\n|---|---|\n");
    for rule in Rule::all() {
        out.push_str(&format!("| `{}` | {} |\n", rule.id(), rule.explain()));
    }
    out
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` so that report columns (`{:<32}`) line up.
        f.pad(&self.id())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Lanes and tests name rules by their ids.
impl PartialEq<&str> for Rule {
    fn eq(&self, id: &&str) -> bool {
        self.id() == *id
    }
}

#[cfg(test)]
mod tests {
    use super::{markdown, Rule};

    #[test]
    fn the_readme_explains_every_rule() {
        crate::tests::readme_shows(&markdown(), "table of rules");
    }

    #[test]
    fn every_rule_has_its_own_id() {
        let mut ids: Vec<String> = Rule::all().iter().map(|r| r.id().into_owned()).collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }
}
