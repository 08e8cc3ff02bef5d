//! A walk of a value guided by its schema, compiled once.
//!
//! The semantic rules apply to named types (`TaskDetail`, `TaskSummary`,
//! `Segment`) wherever they occur, and enum coverage needs to know which enum
//! a value belongs to. Both need to know, for each place in a message, which
//! schema describes it. The schema set is compiled into a small graph —
//! references resolved, tagged unions indexed by tag — so the walk is a few
//! map look-ups per field, and it skips every subtree that cannot contain a
//! type it is asked about.

use std::collections::{BTreeMap, HashMap};

use contract::{resolve_ref, DocKind, SchemaDoc, SchemaSet};
use serde_json::Value;

use crate::rules::Path;

pub type NodeId = usize;

#[derive(Debug, Default)]
struct Node {
    /// The named type this node is the root of (a `types/` or `envelope/` file).
    named: Option<String>,
    /// The named enum type this node's values belong to.
    enum_type: Option<String>,
    properties: HashMap<String, NodeId>,
    items: Option<NodeId>,
    map_values: Option<NodeId>,
    union: Option<(String, HashMap<String, NodeId>)>,
    /// Whether a walk looking for `interesting` types must enter this node.
    relevant: bool,
    /// Whether the schema marks this place `x-secret` (a credential).
    secret: bool,
    /// Whether a secret may be at or below this place through a part of the
    /// schema the walk does not follow (`allOf`, `if`/`then`, an untagged
    /// `anyOf`, `prefixItems`, …): a value here is then printed as a whole
    /// or not at all.
    secret_elsewhere: bool,
    /// Whether a secret may be at or below this place at all (a fixed point
    /// over the graph).
    holds_secret: bool,
    /// Whether the schema types this place an integer (alone or beside `null`).
    integer: bool,
}

/// The compiled walk.
#[derive(Debug)]
pub struct Plan {
    nodes: Vec<Node>,
    roots: BTreeMap<String, NodeId>,
    /// The names of the members the schema marks `x-secret` (`password`).
    secret_names: Vec<String>,
    /// Where the schemas nest past [`MAX_NESTING`], counting through
    /// references (file, pointer): the plan stops there, so a checker
    /// cannot be built on it.
    too_deep: Option<(String, String)>,
}

/// How deep the walk follows schemas into schemas, references included: the
/// compiler recurses, and no contract comes near this.
pub const MAX_NESTING: usize = contract::MAX_JSON_DEPTH;

impl Plan {
    /// Compiles every named type, method shape and event shape of `set`.
    /// `interesting` names the types a walk stops at (others it passes through).
    pub fn compile(set: &SchemaSet, interesting: &[&str]) -> Self {
        let mut compiler = Compiler {
            set,
            nodes: Vec::new(),
            memo: HashMap::new(),
            depth: 0,
            too_deep: None,
        };
        let mut roots = BTreeMap::new();
        for doc in &set.docs {
            for (name, pointer, schema) in doc.named_places() {
                let id = compiler.compile(doc, &pointer, schema);
                roots.insert(name, id);
            }
        }
        let mut secret_names: Vec<String> = compiler
            .nodes
            .iter()
            .flat_map(|node| &node.properties)
            .filter(|(_, child)| compiler.nodes.get(**child).is_some_and(|c| c.secret))
            .map(|(name, _)| name.clone())
            .collect();
        secret_names.sort();
        secret_names.dedup();
        let mut plan = Plan {
            nodes: compiler.nodes,
            roots,
            secret_names,
            too_deep: compiler.too_deep,
        };
        plan.mark_relevant(interesting);
        let holds = plan.reaching(|node| node.secret || node.secret_elsewhere);
        for (node, holds) in plan.nodes.iter_mut().zip(holds) {
            node.holds_secret = holds;
        }
        plan
    }

    /// Where the schemas nest too deep to plan (file, pointer), if they do.
    pub fn too_deep(&self) -> Option<&(String, String)> {
        self.too_deep.as_ref()
    }

    pub fn root(&self, name: &str) -> Option<NodeId> {
        self.roots.get(name).copied()
    }

    /// Marks every node from which an interesting type is reachable.
    fn mark_relevant(&mut self, interesting: &[&str]) {
        let relevant = self.reaching(|node| {
            node.named
                .as_deref()
                .is_some_and(|name| interesting.contains(&name))
                || (interesting.contains(&"*enum") && node.enum_type.is_some())
        });
        for (node, relevant) in self.nodes.iter_mut().zip(relevant) {
            node.relevant = relevant;
        }
    }

    /// For each node, whether a node where `seed` holds is reachable from it
    /// (itself included): a fixed point, since the graph may have cycles.
    fn reaching(&self, seed: impl Fn(&Node) -> bool) -> Vec<bool> {
        let mut reached: Vec<bool> = self.nodes.iter().map(&seed).collect();
        loop {
            let mut changed = false;
            for index in 0..self.nodes.len() {
                if reached.get(index) == Some(&true) {
                    continue;
                }
                let any = self
                    .children(index)
                    .iter()
                    .any(|child| reached.get(*child) == Some(&true));
                if let (true, Some(slot)) = (any, reached.get_mut(index)) {
                    *slot = true;
                    changed = true;
                }
            }
            if !changed {
                return reached;
            }
        }
    }

    fn children(&self, index: NodeId) -> Vec<NodeId> {
        let Some(node) = self.nodes.get(index) else {
            return Vec::new();
        };
        let mut out: Vec<NodeId> = node.properties.values().copied().collect();
        out.extend(node.items);
        out.extend(node.map_values);
        if let Some((_, branches)) = &node.union {
            out.extend(branches.values().copied());
        }
        out
    }

    /// Every enum type reachable from `node` through the schema graph.
    pub fn enums_reachable(&self, node: NodeId, out: &mut std::collections::BTreeSet<String>) {
        let mut stack = vec![node];
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(name) = self.nodes.get(id).and_then(|n| n.enum_type.clone()) {
                out.insert(name);
            }
            stack.extend(self.children(id));
        }
    }

    /// Walks `value` as described by `node`, calling `visit` at every named
    /// type or enum value on the way (only where it is relevant).
    pub fn walk(
        &self,
        node: NodeId,
        value: &Value,
        path: &mut Path,
        visit: &mut dyn FnMut(&Visit<'_>, &mut Path),
    ) {
        let Some(schema) = self.nodes.get(node) else {
            return;
        };
        if !schema.relevant {
            return;
        }
        if schema.named.is_some() || schema.enum_type.is_some() {
            visit(
                &Visit {
                    named: schema.named.as_deref(),
                    enum_type: schema.enum_type.as_deref(),
                    value,
                },
                path,
            );
        }
        match value {
            Value::Object(map) => {
                if let Some((tag, branches)) = &schema.union {
                    if let Some(branch) = map
                        .get(tag)
                        .and_then(Value::as_str)
                        .and_then(|t| branches.get(t))
                    {
                        self.walk(*branch, value, path, visit);
                    }
                }
                for (key, child) in map {
                    let next = schema.properties.get(key).copied().or(schema.map_values);
                    if let Some(next) = next {
                        path.push(key);
                        self.walk(next, child, path, visit);
                        path.pop();
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = schema.items {
                    for (index, child) in items.iter().enumerate() {
                        path.push(index);
                        self.walk(item, child, path, visit);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
}

impl Plan {
    /// The places of `value` (as JSON pointers) where its schema wants an
    /// integer and the number is written with a fraction or an exponent.
    pub fn fractional_integers(&self, node: NodeId, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(node, value, String::new())];
        while let Some((id, value, pointer)) = stack.pop() {
            let Some(schema) = self.nodes.get(id) else {
                continue;
            };
            match value {
                Value::Number(n) if schema.integer && n.is_f64() => out.push(pointer),
                Value::Object(map) => {
                    if let Some((tag, branches)) = &schema.union {
                        if let Some(branch) = map
                            .get(tag)
                            .and_then(Value::as_str)
                            .and_then(|t| branches.get(t))
                        {
                            stack.push((*branch, value, pointer.clone()));
                        }
                    }
                    for (key, child) in map {
                        if let Some(next) =
                            schema.properties.get(key).copied().or(schema.map_values)
                        {
                            stack.push((
                                next,
                                child,
                                format!("{pointer}/{}", contract::escape_pointer_token(key)),
                            ));
                        }
                    }
                }
                Value::Array(items) => {
                    if let Some(item) = schema.items {
                        for (index, child) in items.iter().enumerate() {
                            stack.push((item, child, format!("{pointer}/{index}")));
                        }
                    }
                }
                _ => {}
            }
        }
        out.sort();
        out
    }

    /// The places of `value` (as JSON pointers) whose text a report must
    /// not print, with the value there: every `x-secret` place, and every
    /// place where the schema has a secret at or below but the value cannot
    /// be walked to it (a string where the object holding the secret
    /// belongs, as a double-encoded `params`; a union whose tag chose no
    /// branch; a part of the schema the walk does not follow).
    pub fn secret_places<'v>(&self, node: NodeId, value: &'v Value) -> Vec<Hidden<'v>> {
        let mut out = Vec::new();
        let mut stack = vec![(node, value, String::new())];
        while let Some((id, value, pointer)) = stack.pop() {
            let Some(schema) = self.nodes.get(id) else {
                continue;
            };
            if !schema.holds_secret {
                continue;
            }
            if schema.secret || schema.secret_elsewhere {
                out.push(Hidden {
                    pointer,
                    value,
                    secret: schema.secret,
                    expected: None,
                });
                continue;
            }
            match value {
                Value::Object(map) => {
                    if let Some((tag, branches)) = &schema.union {
                        let chosen = map
                            .get(tag)
                            .and_then(Value::as_str)
                            .and_then(|t| branches.get(t));
                        match chosen {
                            Some(branch) => stack.push((*branch, value, pointer.clone())),
                            // Which branch it was meant for is unknown, and
                            // any of them may hold a secret: every member
                            // but the tag is hidden (the tag says which
                            // branches there are, and is no secret).
                            None if branches.values().any(|b| self.holds(*b)) => {
                                for (key, child) in map.iter().filter(|(key, _)| *key != tag) {
                                    let at = format!(
                                        "{pointer}/{}",
                                        contract::escape_pointer_token(key)
                                    );
                                    out.push(Hidden {
                                        pointer: at,
                                        value: child,
                                        secret: false,
                                        expected: None,
                                    });
                                }
                                continue;
                            }
                            None => {}
                        }
                    }
                    for (key, child) in map {
                        if let Some(next) =
                            schema.properties.get(key).copied().or(schema.map_values)
                        {
                            let at = format!("{pointer}/{}", contract::escape_pointer_token(key));
                            stack.push((next, child, at));
                        }
                    }
                }
                Value::Array(items) if schema.items.is_some_and(|item| self.holds(item)) => {
                    if let Some(item) = schema.items {
                        for (index, child) in items.iter().enumerate() {
                            stack.push((item, child, format!("{pointer}/{index}")));
                        }
                    }
                }
                // A value of another shape than the one holding the secret.
                _ => out.push(Hidden {
                    pointer,
                    value,
                    secret: false,
                    expected: Some(if schema.items.is_some_and(|item| self.holds(item)) {
                        "an array"
                    } else {
                        "an object"
                    }),
                }),
            }
        }
        self.hide_by_name(value, &mut out);
        out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
        out
    }

    /// A backstop for what the schema cannot place: a message of the wrong
    /// kind or method carries its password where the schema has none, and a
    /// free-form map or string carries a credential the schema cannot mark
    /// (`DownloadSpec.headers`, a URL). Any member named as a secret member
    /// is (`password`) or as an HTTP header that carries credentials
    /// ([`CREDENTIAL_HEADERS`]), any such header line, any URL with user
    /// information, and any
    /// string that holds JSON with such a member (a value encoded twice), is
    /// hidden wherever it is.
    fn hide_by_name<'v>(&self, value: &'v Value, out: &mut Vec<Hidden<'v>>) {
        let mut stack = vec![(value, String::new())];
        while let Some((value, pointer)) = stack.pop() {
            match value {
                Value::Object(map) => {
                    for (key, child) in map {
                        let at = format!("{pointer}/{}", contract::escape_pointer_token(key));
                        if self.names_secret(key) {
                            out.push(Hidden {
                                pointer: at,
                                value: child,
                                secret: true,
                                expected: None,
                            });
                        } else {
                            stack.push((child, at));
                        }
                    }
                }
                Value::Array(items) => stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(index, child)| (child, format!("{pointer}/{index}"))),
                ),
                Value::String(text)
                    if has_user_information(text)
                        || has_credential_header_line(text)
                        || self.names_a_secret(text) =>
                {
                    out.push(Hidden {
                        pointer,
                        value,
                        secret: false,
                        expected: None,
                    })
                }
                _ => {}
            }
        }
    }

    /// Whether `text`, read as JSON (and the strings in it, encoded again,
    /// up to a few times), has a member named as a secret member is.
    fn names_a_secret(&self, text: &str) -> bool {
        const ENCODINGS: usize = 4;
        let mut texts = vec![(text.to_string(), 0)];
        while let Some((text, encodings)) = texts.pop() {
            if encodings >= ENCODINGS || !self.may_name_secret(&text) {
                continue;
            }
            // serde_json's own depth limit bounds the parse.
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let mut stack = vec![&value];
            while let Some(value) = stack.pop() {
                match value {
                    Value::Object(map) => {
                        if map.keys().any(|key| self.names_secret(key)) {
                            return true;
                        }
                        stack.extend(map.values());
                    }
                    Value::Array(items) => stack.extend(items),
                    Value::String(inner) => texts.push((inner.clone(), encodings + 1)),
                    _ => {}
                }
            }
        }
        false
    }

    fn holds(&self, node: NodeId) -> bool {
        self.nodes.get(node).is_some_and(|n| n.holds_secret)
    }

    /// Whether a member of this name holds a credential wherever it is.
    fn names_secret(&self, name: &str) -> bool {
        // A header name holds no white space; a reader may trim it off.
        self.secret_names.iter().any(|n| n == name)
            || CREDENTIAL_HEADERS
                .iter()
                .any(|h| h.eq_ignore_ascii_case(name.trim()))
    }

    /// Whether `text` could name a secret member: a quick test before it
    /// is read as JSON.
    fn may_name_secret(&self, text: &str) -> bool {
        if self.secret_names.iter().any(|n| text.contains(n.as_str())) {
            return true;
        }
        let lower = text.to_ascii_lowercase();
        CREDENTIAL_HEADERS.iter().any(|h| lower.contains(h))
    }
}

/// HTTP header fields whose value is a credential (RFC 9110 section 11,
/// RFC 6265), in lower case: header names are case-insensitive, and
/// `DownloadSpec.headers` takes any name, so no schema place marks them.
pub const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Whether `text` holds a header line of one of [`CREDENTIAL_HEADERS`]
/// (`Authorization: Bearer …`), as a raw header block or a value would.
pub fn has_credential_header_line(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start().to_ascii_lowercase();
        CREDENTIAL_HEADERS.iter().any(|h| {
            line.strip_prefix(h)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
    })
}

/// Whether `text` holds a URL with user information (`ftp://user:pw@host`,
/// or `//user:pw@host` without a scheme), which may be a password or a
/// token: an authority (after `//`, up to the next `/`, `?`, `#`, space,
/// quote or backslash) with an `@` in it.
pub fn has_user_information(text: &str) -> bool {
    text.match_indices("//").any(|(at, slashes)| {
        let rest = text.get(at + slashes.len()..).unwrap_or("");
        rest.split(['/', '?', '#', ' ', '"', '\\'])
            .next()
            .is_some_and(|authority| authority.contains('@'))
    })
}

/// A place of a value a report must not print, and the value there.
pub struct Hidden<'v> {
    pub pointer: String,
    pub value: &'v Value,
    /// Whether the schema marks the place `x-secret` itself (rather than
    /// the place holding one the walk cannot reach).
    pub secret: bool,
    /// What the schema expects here ("an object", "an array") when the
    /// value is of another shape, which is why the walk cannot tell which
    /// part of it may be a credential.
    pub expected: Option<&'static str>,
}

/// What a walk reports at one place.
pub struct Visit<'a> {
    pub named: Option<&'a str>,
    pub enum_type: Option<&'a str>,
    pub value: &'a Value,
}

struct Compiler<'a> {
    set: &'a SchemaSet,
    nodes: Vec<Node>,
    memo: HashMap<(String, String), NodeId>,
    /// How many `compile` calls are open.
    depth: usize,
    too_deep: Option<(String, String)>,
}

impl<'a> Compiler<'a> {
    fn compile(&mut self, doc: &'a SchemaDoc, pointer: &str, schema: &'a Value) -> NodeId {
        let key = (doc.rel.clone(), pointer.to_string());
        if let Some(id) = self.memo.get(&key) {
            return *id;
        }
        if self.depth >= MAX_NESTING {
            self.too_deep
                .get_or_insert_with(|| (doc.rel.clone(), pointer.to_string()));
            let id = self.nodes.len();
            self.nodes.push(Node::default());
            return id;
        }
        self.depth += 1;
        let id = self.compile_here(doc, pointer, schema, key);
        self.depth -= 1;
        id
    }

    fn compile_here(
        &mut self,
        doc: &'a SchemaDoc,
        pointer: &str,
        schema: &'a Value,
        key: (String, String),
    ) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.memo.insert(key, id);
        let mut node = Node {
            secret: schema.get("x-secret") == Some(&Value::Bool(true)),
            secret_elsewhere: self.secret_elsewhere(doc, schema),
            integer: contract::string_list(schema.get("type")).contains(&"integer")
                || schema.get("type") == Some(&Value::String("integer".into())),
            ..Node::default()
        };
        let is_type_root =
            pointer.is_empty() && matches!(doc.kind, DocKind::Type | DocKind::Envelope);
        if is_type_root {
            node.named = Some(doc.name.clone());
            if schema.get("enum").is_some() {
                node.enum_type = Some(doc.name.clone());
            }
        }
        // A secret beside a reference keeps this node: it is printed whole
        // or not at all, so what the reference says below does not matter.
        let secret_beside = node.secret || node.secret_elsewhere;
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if let (false, Ok(target)) = (secret_beside, resolve_ref(self.set, doc, reference)) {
                // A reference (with annotations beside it) is its target. In a
                // cycle the placeholder above stays empty, which only makes the
                // walk stop there: nothing in the contract is recursive.
                let target_id = self.compile(target.doc, &target.pointer, target.schema);
                self.memo
                    .insert((doc.rel.clone(), pointer.to_string()), target_id);
                return target_id;
            }
        }
        self.compile_below(doc, pointer, schema, &mut node);
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = node;
        }
        id
    }

    /// The nodes below `schema` the checks walk into: properties, items,
    /// map values, and the branches of a tagged union.
    fn compile_below(
        &mut self,
        doc: &'a SchemaDoc,
        pointer: &str,
        schema: &'a Value,
        node: &mut Node,
    ) {
        for (name, sub) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let child = self.compile(
                doc,
                &format!(
                    "{pointer}/properties/{}",
                    contract::escape_pointer_token(name)
                ),
                sub,
            );
            node.properties.insert(name.clone(), child);
        }
        if let Some(items) = schema.get("items").filter(|s| s.is_object()) {
            node.items = Some(self.compile(doc, &format!("{pointer}/items"), items));
        }
        if let Some(values) = schema.get("additionalProperties").filter(|s| s.is_object()) {
            node.map_values =
                Some(self.compile(doc, &format!("{pointer}/additionalProperties"), values));
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(branches) = schema.get(keyword).and_then(Value::as_array) {
                if let Some(tag) = union_tag(branches) {
                    let mut by_tag = HashMap::new();
                    for (index, branch) in branches.iter().enumerate() {
                        let value = branch
                            .pointer(&format!("/properties/{tag}/const"))
                            .and_then(Value::as_str);
                        if let Some(value) = value {
                            by_tag.insert(
                                value.to_string(),
                                self.compile(doc, &format!("{pointer}/{keyword}/{index}"), branch),
                            );
                        }
                    }
                    node.union = Some((tag, by_tag));
                }
            }
        }
    }
}

impl<'a> Compiler<'a> {
    /// Whether `schema` reaches an `x-secret` through a keyword the walk
    /// does not follow. Everything but what `compile` models counts, so a
    /// construct added to the contract later is printed whole or not at all
    /// rather than passed by.
    fn secret_elsewhere(&self, doc: &'a SchemaDoc, schema: &'a Value) -> bool {
        let Some(map) = schema.as_object() else {
            return false;
        };
        let tagged = |keyword: &str| {
            schema
                .get(keyword)
                .and_then(Value::as_array)
                .and_then(|branches| union_tag(branches))
                .is_some()
        };
        map.iter().any(|(keyword, sub)| {
            let followed = match keyword.as_str() {
                "properties" | "$ref" | "$defs" | "definitions" => true,
                "items" | "additionalProperties" => sub.is_object(),
                "oneOf" | "anyOf" => tagged(keyword),
                _ => false,
            };
            !followed && self.reaches_secret(doc, sub)
        })
    }

    /// Whether an `x-secret` is anywhere in `schema`, following references
    /// (each once, so a cycle ends) and not entering `$defs`.
    fn reaches_secret(&self, doc: &'a SchemaDoc, schema: &'a Value) -> bool {
        contract::Reached::new(self.set, doc, schema)
            .any(|place| place.schema.get("x-secret") == Some(&Value::Bool(true)))
    }
}

fn union_tag(branches: &[Value]) -> Option<String> {
    let first = branches.first()?;
    let required: Vec<&str> = first
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required
        .into_iter()
        .find(|tag| {
            branches.iter().all(|branch| {
                branch
                    .pointer(&format!("/properties/{tag}/const"))
                    .is_some_and(Value::is_string)
            })
        })
        .map(str::to_string)
}
