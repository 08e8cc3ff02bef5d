//! A schema node in its document, with the keyword reading the checker needs
//! across drafts (04 to 2020-12).

use std::borrow::Cow;

use contract::{resolve_ref, SchemaDoc, SchemaSet};
use serde_json::{Map, Value};

/// A schema node and where it lives (for `$ref`s and for pointers in reports).
#[derive(Clone, Debug)]
pub struct Node<'a> {
    pub set: &'a SchemaSet,
    pub doc: &'a SchemaDoc,
    pub value: Cow<'a, Value>,
    /// JSON pointer of the node in its document (a merged node keeps its first part's).
    pub pointer: String,
}

/// The JSON types, `integer` apart from `number` as JSON Schema has them.
pub const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

impl<'a> Node<'a> {
    pub fn root(set: &'a SchemaSet, doc: &'a SchemaDoc) -> Self {
        Node {
            set,
            doc,
            value: Cow::Borrowed(&doc.value),
            pointer: String::new(),
        }
    }

    pub fn at(&self, value: &'a Value, token: &str) -> Node<'a>
    where
        Self: 'a,
    {
        Node {
            set: self.set,
            doc: self.doc,
            value: Cow::Borrowed(value),
            pointer: format!("{}/{}", self.pointer, contract::escape_pointer_token(token)),
        }
    }

    /// A child node, owned when this node is (merged nodes are owned).
    /// A child by object key, or by array index written as a number.
    pub fn child(&self, key: &str) -> Option<Node<'a>> {
        fn lookup<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
            match value {
                Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => value.get(key),
            }
        }
        let pointer = format!("{}/{}", self.pointer, contract::escape_pointer_token(key));
        match &self.value {
            Cow::Borrowed(value) => lookup(value, key).map(|v| Node {
                set: self.set,
                doc: self.doc,
                value: Cow::Borrowed(v),
                pointer,
            }),
            Cow::Owned(value) => lookup(value, key).map(|v| Node {
                set: self.set,
                doc: self.doc,
                value: Cow::Owned(v.clone()),
                pointer,
            }),
        }
    }

    /// The same node, reported at another pointer.
    pub fn with_pointer(mut self, pointer: &str) -> Node<'a> {
        self.pointer = pointer.to_string();
        self
    }

    pub fn with_value(&self, value: Value) -> Node<'a> {
        Node {
            set: self.set,
            doc: self.doc,
            value: Cow::Owned(value),
            pointer: self.pointer.clone(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value.get(key)
    }

    pub fn object(&self) -> Option<&Map<String, Value>> {
        self.value.as_object()
    }

    /// Follows `$ref`s (and `$ref`s to `$ref`s) to the node that says something.
    /// Siblings of a `$ref` are annotations in the contract and ignored in
    /// drafts before 2019-09, so the target stands for the node.
    pub fn resolved(&self) -> Node<'a> {
        let mut node = self.clone();
        for _ in 0..64 {
            let Some(reference) = node.get("$ref").and_then(Value::as_str).map(str::to_string)
            else {
                return node;
            };
            let (doc, pointer, schema) = match resolve_ref(node.set, node.doc, &reference) {
                Ok(target) => (target.doc, target.pointer, target.schema),
                Err(_) => match find_anchor(&node.doc.value, &reference, String::new()) {
                    Some((pointer, schema)) => (node.doc, pointer, schema),
                    None => return node,
                },
            };
            let siblings: Map<String, Value> = node
                .object()
                .map(|map| {
                    map.iter()
                        .filter(|(k, _)| is_assertion(k) && k.as_str() != "$ref")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            let next = Node {
                set: node.set,
                doc,
                value: Cow::Borrowed(schema),
                pointer,
            };
            node = if siblings.is_empty() || self.draft_before_2019() {
                next
            } else {
                // 2019-09 and later: the siblings apply too.
                let mut merged = siblings;
                merged.insert("allOf".into(), Value::Array(vec![schema.clone()]));
                Node {
                    value: Cow::Owned(Value::Object(merged)),
                    ..next
                }
            };
        }
        node
    }

    /// Drafts 04 to 07 read `items: [...]` as a tuple and ignore `$ref` siblings.
    pub fn draft_before_2019(&self) -> bool {
        let schema = self
            .doc
            .value
            .get("$schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        schema.contains("draft-04") || schema.contains("draft-06") || schema.contains("draft-07")
    }

    pub fn is_true(&self) -> bool {
        match &*self.value {
            Value::Bool(b) => *b,
            Value::Object(map) => map.keys().all(|k| !is_assertion(k)),
            _ => false,
        }
    }

    pub fn is_false(&self) -> bool {
        matches!(&*self.value, Value::Bool(false))
    }

    /// The types the node admits, `None` for all.
    pub fn types(&self) -> Option<Vec<&str>> {
        match self.get("type")? {
            Value::String(one) => Some(vec![one.as_str()]),
            Value::Array(many) => Some(many.iter().filter_map(Value::as_str).collect()),
            _ => None,
        }
    }

    /// The finite set of values the node admits by `enum`/`const`, if any.
    pub fn finite(&self) -> Option<Vec<Value>> {
        if let Some(value) = self.get("const") {
            return Some(vec![value.clone()]);
        }
        self.get("enum").and_then(Value::as_array).cloned()
    }

    pub fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Value::as_f64)
    }

    pub fn strings(&self, key: &str) -> Vec<String> {
        contract::string_list(self.get(key))
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// `[lo, hi]` with exclusivity, across draft 04 (boolean exclusives) and later.
    pub fn interval(&self) -> Interval {
        let mut interval = Interval {
            lo: self.number("minimum"),
            lo_open: false,
            hi: self.number("maximum"),
            hi_open: false,
        };
        match self.get("exclusiveMinimum") {
            Some(Value::Bool(true)) => interval.lo_open = true,
            Some(value) => {
                if let Some(x) = value.as_f64() {
                    if interval.lo.is_none_or(|lo| x >= lo) {
                        interval.lo = Some(x);
                        interval.lo_open = true;
                    }
                }
            }
            None => {}
        }
        match self.get("exclusiveMaximum") {
            Some(Value::Bool(true)) => interval.hi_open = true,
            Some(value) => {
                if let Some(x) = value.as_f64() {
                    if interval.hi.is_none_or(|hi| x <= hi) {
                        interval.hi = Some(x);
                        interval.hi_open = true;
                    }
                }
            }
            None => {}
        }
        interval
    }

    /// The schema for array element `index` (`None`: anything).
    pub fn item(&self, index: usize) -> Option<Node<'a>> {
        if self
            .get("items")
            .is_some_and(|items| items.is_object() || items.is_boolean())
            && self.get("prefixItems").is_none()
        {
            return self.child("items");
        }
        let (tuple_key, rest_key) =
            if self.draft_before_2019() || self.get("items").is_some_and(Value::is_array) {
                ("items", "additionalItems")
            } else {
                ("prefixItems", "items")
            };
        if let Some(tuple) = self.get(tuple_key).and_then(Value::as_array) {
            return match tuple.get(index) {
                Some(_) => self
                    .child(tuple_key)
                    .and_then(|t| t.child(&index.to_string())),
                None => self.child(rest_key),
            };
        }
        if tuple_key == "prefixItems" {
            return self.child("items");
        }
        None
    }

    /// How many leading positions have their own schema.
    pub fn tuple_len(&self) -> usize {
        ["prefixItems", "items"]
            .iter()
            .filter_map(|k| self.get(k).and_then(Value::as_array))
            .map(Vec::len)
            .max()
            .unwrap_or(0)
    }

    /// The schema a property called `name` has: its own, a matching pattern's,
    /// or the additional one. `None` means anything.
    pub fn property(&self, name: &str, tolerant: bool) -> Option<Node<'a>> {
        if let Some(props) = self.child("properties") {
            if props.get(name).is_some() {
                return props.child(name);
            }
        }
        if let Some(patterns) = self.get("patternProperties").and_then(Value::as_object) {
            for pattern in patterns.keys() {
                if regex::Regex::new(pattern).is_ok_and(|re| re.is_match(name)) {
                    return self
                        .child("patternProperties")
                        .and_then(|p| p.child(pattern));
                }
            }
        }
        if tolerant {
            // A tolerant reader ignores fields it does not know.
            return None;
        }
        self.child("additionalProperties")
    }
}

/// A plain-name fragment (`#Address`): the subschema whose `$id` is that
/// fragment (drafts 06/07) or whose `$anchor` is the name (2019-09 and later).
fn find_anchor<'v>(
    value: &'v Value,
    reference: &str,
    pointer: String,
) -> Option<(String, &'v Value)> {
    let name = reference.strip_prefix('#')?;
    let map = value.as_object()?;
    let id_matches = map.get("$id").and_then(Value::as_str) == Some(reference);
    let anchor_matches = map.get("$anchor").and_then(Value::as_str) == Some(name);
    if (id_matches || anchor_matches) && !pointer.is_empty() {
        return Some((pointer, value));
    }
    for (key, child) in map {
        let here = format!("{pointer}/{}", contract::escape_pointer_token(key));
        match child {
            Value::Object(_) => {
                if let Some(found) = find_anchor(child, reference, here) {
                    return Some(found);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if let Some(found) = find_anchor(item, reference, format!("{here}/{index}")) {
                        return Some(found);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// A numeric range; `None` bounds are open-ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: Option<f64>,
    pub lo_open: bool,
    pub hi: Option<f64>,
    pub hi_open: bool,
}

impl Interval {
    pub fn contains(&self, x: f64) -> bool {
        self.lo
            .is_none_or(|lo| if self.lo_open { x > lo } else { x >= lo })
            && self
                .hi
                .is_none_or(|hi| if self.hi_open { x < hi } else { x <= hi })
    }
}

/// Keywords that constrain values (everything else is an annotation).
pub fn is_assertion(key: &str) -> bool {
    matches!(
        key,
        "$ref"
            | "type"
            | "enum"
            | "const"
            | "minimum"
            | "maximum"
            | "exclusiveMinimum"
            | "exclusiveMaximum"
            | "multipleOf"
            | "minLength"
            | "maxLength"
            | "pattern"
            | "format"
            | "contentEncoding"
            | "contentMediaType"
            | "items"
            | "prefixItems"
            | "additionalItems"
            | "minItems"
            | "maxItems"
            | "uniqueItems"
            | "contains"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "required"
            | "minProperties"
            | "maxProperties"
            | "propertyNames"
            | "dependencies"
            | "dependentRequired"
            | "dependentSchemas"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "minContains"
            | "maxContains"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "$dynamicRef"
            | "$recursiveRef"
    )
}

/// The JSON type of a value (`integer` for whole numbers).
pub fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n)
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
        {
            "integer"
        }
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A number as JSON writes it: an integer when it is whole (and exact).
pub fn to_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        serde_json::json!(x as i64)
    } else {
        serde_json::json!(x)
    }
}
