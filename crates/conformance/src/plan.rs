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
    /// Whether the schema types this place an integer (alone or beside `null`).
    integer: bool,
}

/// The compiled walk.
#[derive(Debug)]
pub struct Plan {
    nodes: Vec<Node>,
    roots: BTreeMap<String, NodeId>,
}

impl Plan {
    /// Compiles every named type, method shape and event shape of `set`.
    /// `interesting` names the types a walk stops at (others it passes through).
    pub fn compile(set: &SchemaSet, interesting: &[&str]) -> Self {
        let mut compiler = Compiler {
            set,
            nodes: Vec::new(),
            memo: HashMap::new(),
        };
        let mut roots = BTreeMap::new();
        for doc in &set.docs {
            for (name, pointer, schema) in doc.named_places() {
                let id = compiler.compile(doc, &pointer, schema);
                roots.insert(name, id);
            }
        }
        let mut plan = Plan {
            nodes: compiler.nodes,
            roots,
        };
        plan.mark_relevant(interesting);
        plan
    }

    pub fn root(&self, name: &str) -> Option<NodeId> {
        self.roots.get(name).copied()
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.roots.keys()
    }

    /// Marks every node from which an interesting type is reachable (a fixed
    /// point, since the graph may have cycles).
    fn mark_relevant(&mut self, interesting: &[&str]) {
        for node in &mut self.nodes {
            node.relevant = node
                .named
                .as_deref()
                .is_some_and(|name| interesting.contains(&name))
                || (interesting.contains(&"*enum") && node.enum_type.is_some());
        }
        loop {
            let mut changed = false;
            for index in 0..self.nodes.len() {
                if self.nodes.get(index).is_some_and(|n| n.relevant) {
                    continue;
                }
                let children = self.children(index);
                if children
                    .iter()
                    .any(|child| self.nodes.get(*child).is_some_and(|n| n.relevant))
                {
                    if let Some(node) = self.nodes.get_mut(index) {
                        node.relevant = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
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

    /// The places of `value` (as JSON pointers) that its schema marks
    /// `x-secret`, so that no report prints what is there.
    pub fn secret_places<'v>(&self, node: NodeId, value: &'v Value) -> Vec<(String, &'v Value)> {
        let mut out = Vec::new();
        self.find_secrets(node, value, String::new(), 0, &mut out);
        out
    }

    fn find_secrets<'v>(
        &self,
        node: NodeId,
        value: &'v Value,
        pointer: String,
        depth: usize,
        out: &mut Vec<(String, &'v Value)>,
    ) {
        let Some(schema) = self.nodes.get(node) else {
            return;
        };
        // The contract nests a few levels; a message nested past this holds
        // nothing the schema describes.
        if depth > 64 {
            return;
        }
        if schema.secret {
            out.push((pointer, value));
            return;
        }
        match value {
            Value::Object(map) => {
                if let Some((tag, branches)) = &schema.union {
                    if let Some(branch) = map
                        .get(tag)
                        .and_then(Value::as_str)
                        .and_then(|t| branches.get(t))
                    {
                        self.find_secrets(*branch, value, pointer.clone(), depth + 1, out);
                    }
                }
                for (key, child) in map {
                    if let Some(next) = schema.properties.get(key).copied().or(schema.map_values) {
                        let at = format!("{pointer}/{}", contract::escape_pointer_token(key));
                        self.find_secrets(next, child, at, depth + 1, out);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = schema.items {
                    for (index, child) in items.iter().enumerate() {
                        self.find_secrets(
                            item,
                            child,
                            format!("{pointer}/{index}"),
                            depth + 1,
                            out,
                        );
                    }
                }
            }
            _ => {}
        }
    }
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
}

impl<'a> Compiler<'a> {
    fn compile(&mut self, doc: &'a SchemaDoc, pointer: &str, schema: &'a Value) -> NodeId {
        let key = (doc.rel.clone(), pointer.to_string());
        if let Some(id) = self.memo.get(&key) {
            return *id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.memo.insert(key, id);
        let mut node = Node {
            secret: schema.get("x-secret") == Some(&Value::Bool(true)),
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
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if let Ok(target) = resolve_ref(self.set, doc, reference) {
                // A reference (with annotations beside it) is its target. In a
                // cycle the placeholder above stays empty, which only makes the
                // walk stop there: nothing in the contract is recursive.
                let target_id = self.compile(target.doc, &target.pointer, target.schema);
                self.memo
                    .insert((doc.rel.clone(), pointer.to_string()), target_id);
                return target_id;
            }
        }
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
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = node;
        }
        id
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
