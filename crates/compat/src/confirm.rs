//! Counterexamples confirmed by the `jsonschema` crate before they are
//! printed: a value is shown as breaking a direction only when the writer's
//! schema, as written, accepts it and the reader's schema, read as that
//! reader reads (open objects for a tolerant one), refuses it. The checker's
//! own small validator (`accepts`) finds candidates; this decides what is
//! shown.

use std::cell::RefCell;
use std::collections::HashMap;

use contract::SchemaSet;
use serde_json::Value;

use crate::node::Node;

/// One schema set compiled for `jsonschema`, with validators made on demand
/// for the places asked about.
pub struct Compiled {
    registry: Option<jsonschema::Registry<'static>>,
    /// `$id` (or the id the file would have) by relative path.
    ids: HashMap<String, String>,
    formats: crate::Formats,
    validators: RefCell<HashMap<String, Option<jsonschema::Validator>>>,
}

impl Compiled {
    /// `open` reads every object as open, as a tolerant reader does.
    pub fn new(set: &SchemaSet, open: bool, formats: crate::Formats) -> Self {
        let mut ids = HashMap::new();
        let mut resources = Vec::new();
        for doc in &set.docs {
            let id = doc.id().map_or_else(|| doc.expected_id(), str::to_string);
            let mut value = doc.value.clone();
            if open {
                open_objects(&mut value);
            }
            if let Value::Object(map) = &mut value {
                map.insert("$id".into(), Value::String(id.clone()));
            }
            ids.insert(doc.rel.clone(), id.clone());
            resources.push((id, value));
        }
        let registry = jsonschema::Registry::new()
            .extend(resources)
            .and_then(|builder| builder.prepare())
            .ok();
        Compiled {
            registry,
            ids,
            formats,
            validators: RefCell::new(HashMap::new()),
        }
    }

    /// Whether the schema at `node`'s place accepts `value`; `None` when the
    /// place cannot be compiled (then nothing is confirmed).
    pub fn accepts(&self, node: &Node<'_>, value: &Value) -> Option<bool> {
        let registry = self.registry.as_ref()?;
        let id = self.ids.get(&node.doc.rel)?;
        let location = format!("{id}#{}", node.pointer);
        let mut validators = self.validators.borrow_mut();
        let validator = validators.entry(location.clone()).or_insert_with(|| {
            jsonschema::options()
                .with_registry(registry)
                .should_validate_formats(self.formats == crate::Formats::Assertion)
                .build(&serde_json::json!({ "$ref": location }))
                .ok()
        });
        validator.as_ref().map(|v| v.is_valid(value))
    }
}

/// Both sides of a comparison, each as a writer writes it and as a reader reads it.
pub struct Confirm {
    old_written: Compiled,
    old_read: Compiled,
    new_written: Compiled,
    new_read: Compiled,
}

/// Which direction a counterexample is meant to break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// New writer → old reader.
    Writer,
    /// Old writer → new reader.
    Reader,
}

impl Confirm {
    pub fn new(old: &SchemaSet, new: &SchemaSet, tolerant: bool, formats: crate::Formats) -> Self {
        Confirm {
            old_written: Compiled::new(old, false, formats),
            old_read: Compiled::new(old, tolerant, formats),
            new_written: Compiled::new(new, false, formats),
            new_read: Compiled::new(new, tolerant, formats),
        }
    }

    /// Whether `value` at the place of `old` / `new` shows `direction`
    /// breaking: the writer accepts it and the reader refuses it.
    pub fn separates(
        &self,
        direction: Direction,
        old: &Node<'_>,
        new: &Node<'_>,
        value: &Value,
    ) -> bool {
        let (written, writer, read, reader) = match direction {
            Direction::Writer => (&self.new_written, new, &self.old_read, old),
            Direction::Reader => (&self.old_written, old, &self.new_read, new),
        };
        written.accepts(writer, value) == Some(true) && read.accepts(reader, value) == Some(false)
    }
}

/// Removes `additionalProperties: false` everywhere: how a tolerant reader reads.
pub fn open_objects(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            map.values_mut().for_each(open_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(open_objects),
        _ => {}
    }
}
