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
