//! Values drawn from a JSON Schema: the one generator behind the
//! compatibility checker's search for counterexamples, the readers'
//! differential tests and `vdm-conform generate`.
//!
//! A draw aims at a value the schema accepts but does not promise one: the
//! schema is read as far as it shapes a value (types, bounds, lengths,
//! patterns, formats, required and optional fields, items, branches) and the
//! caller asks the validator, the `jsonschema` crate, which values to keep.
//! References are followed with the validator's own resolver (the
//! `referencing` crate, through a [`Registry`]), so `$id`, anchors and
//! percent-encoded pointers lead where they lead for the validator.
//!
//! Draws lean towards the edges: bounds and their neighbours, the longest
//! and shortest strings, empty and full objects, every enum value and union
//! branch in turn; the rest is uniform within what the schema allows. Work is
//! bounded: nesting past [`Limits::depth`] draws the smallest value the
//! schema asks for, strings and arrays have caps of their own, and a draw
//! builds at most [`Limits::values`] values.

mod mutate;
mod node;
mod pattern;
mod probes;
mod rng;
pub mod schemas;
mod spelling;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use jsonschema::{Draft, Registry};
use node::{Beyond, NodeId, Nodes, Words, GUESSES};
use serde_json::{json, Map, Number, Value};

pub use mutate::{one_step_edits, one_step_mutations, one_step_mutations_wide, Edit};
pub use pattern::matching;
pub use probes::keyword_probes;
pub use rng::Rng;
pub use spelling::{numbers_respelled, other_spelling};

/// Why nothing could be drawn.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `$ref` the registry cannot resolve.
    #[error("{uri:?} does not resolve: {reason}")]
    Unresolved {
        /// The reference as written.
        uri: String,
        /// The resolver's account.
        reason: String,
    },
}

/// Caps on one draw.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Nesting past which only what the schema requires is drawn.
    pub depth: usize,
    /// The longest string drawn where the schema sets no maximum below it.
    pub string: usize,
    /// The most items drawn beyond what `minItems` asks for.
    pub extra_items: usize,
    /// The most values (of any type, nested or not) one draw builds, a
    /// string counting one more for every 64 bytes; past them every value
    /// is `null`. Nesting is capped too, but a schema whose
    /// object requires two members of its own type doubles at every level
    /// it is required to go.
    pub values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: 12,
            string: 64,
            extra_items: 3,
            values: 10_000,
        }
    }
}

/// Draws values from the schemas of one registry.
pub struct Sampler<'r> {
    registry: &'r Registry<'r>,
    rng: Rng,
    limits: Limits,
    /// How many draws this sampler has made: the first ones walk enum values
    /// and union branches in turn, so each is drawn at least once.
    draws: usize,
    /// How many values the draw under way has built.
    built: usize,
    /// Each schema object met, read once.
    nodes: Nodes<'r>,
    /// The node each URI given to [`Sampler::draw`] names.
    roots: HashMap<String, NodeId>,
    /// What each conjunction of object schemas says of the members, worked
    /// out once (most objects are drawn from the same few conjunctions).
    shapes: HashMap<Vec<NodeId>, Arc<ObjectShape<'r>>>,
    /// Each pattern met, parsed once (`None`: not a regex this walk reads).
    patterns: HashMap<String, Option<regex_syntax::hir::Hir>>,
    /// Each pattern a format sample was held to, compiled once (`None`: one
    /// the `regex` crate does not take, which no sample is held to).
    matchers: HashMap<String, Option<regex::Regex>>,
}

/// A numeric bound and whether it is excluded.
type Limit = (f64, bool);

/// The JSON types.
const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// Past this nesting a draw gives `null` whatever the schema says: a schema
/// that requires itself (`{"required": ["a"], "properties": {"a": {"$ref": "#"}}}`)
/// has no finite value, and the search must end.
const HARD_DEPTH: usize = 64;

/// The longest string and the most items a draw builds, whatever the schema asks.
const MAX_BUILT: usize = 4096;

/// The most items a draw builds at a schema's `maxItems`; a larger one
/// (a list of 100,000 tasks, which no frame holds) is not drawn at its edge.
const MAX_EDGE_ITEMS: usize = 256;

/// The longest string a draw builds at a schema's `maxLength` (a URL's
/// 8,192 among them); any other string stops at [`MAX_BUILT`].
const MAX_STRING: usize = 16 * 1024;

/// How many bytes of a string count as one more value against
/// [`Limits::values`].
const CHARS_PER_VALUE: usize = 64;

/// The most schemas one value is drawn for at once (the parts of `allOf`s,
/// references and chosen branches).
const MAX_PARTS: usize = 256;

/// The most object shapes kept: conjunctions are few for a contract's
/// schemas, but a search over odd ones could meet ever new ones.
const MAX_SHAPES: usize = 4096;

impl<'r> Sampler<'r> {
    /// A sampler over `registry`'s schemas, started from `seed`.
    pub fn new(registry: &'r Registry<'r>, seed: u64) -> Self {
        Sampler {
            registry,
            rng: Rng::new(seed),
            limits: Limits::default(),
            draws: 0,
            built: 0,
            nodes: Nodes::new(),
            roots: HashMap::new(),
            shapes: HashMap::new(),
            patterns: HashMap::new(),
            matchers: HashMap::new(),
        }
    }

    /// The same sampler with other caps.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Starts the draws again from `seed`, as a new sampler would, keeping
    /// what it has read of the schemas: the same values as
    /// `Sampler::new(registry, seed)`, without reading the schemas again.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
        self.draws = 0;
    }

    /// The random source, for callers that shape values further.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// One value for the schema at `uri`: an absolute URI of a registered
    /// resource, with an optional fragment (`…/TaskId.json`, `…#/$defs/params`).
    pub fn draw(&mut self, uri: &str) -> Result<Value, Error> {
        let root = match self.roots.get(uri) {
            Some(root) => *root,
            None => {
                let root = self.root(uri)?;
                self.roots.insert(uri.to_string(), root);
                root
            }
        };
        self.draws += 1;
        self.built = 0;
        Ok(self.value(vec![root], 0))
    }

    /// The node `uri` names.
    fn root(&mut self, uri: &str) -> Result<NodeId, Error> {
        let unresolved = |reason: String| Error::Unresolved {
            uri: uri.to_string(),
            reason,
        };
        let (base, fragment) = uri.split_once('#').unwrap_or((uri, ""));
        let base = jsonschema::uri::from_str(base).map_err(|err| unresolved(err.to_string()))?;
        let resolver = self.registry.resolver(base);
        let resolved = resolver
            .lookup(&format!("#{fragment}"))
            .map_err(|err| unresolved(err.to_string()))?;
        let (schema, resolver, draft) = resolved.into_inner();
        Ok(self.nodes.intern(schema, resolver, draft))
    }

    /// The keywords of node `id`.
    fn words(&self, id: NodeId) -> &Words<'r> {
        self.nodes.get(id).map_or(&NO_WORDS, |node| &node.words)
    }

    /// A value for the conjunction of `parts`.
    fn value(&mut self, parts: Vec<NodeId>, depth: usize) -> Value {
        if depth > HARD_DEPTH || self.built >= self.limits.values {
            return Value::Null;
        }
        self.built += 1;
        let mut flat = Vec::new();
        let mut seen = Vec::new();
        for part in parts {
            self.flatten(part, &mut flat, &mut seen);
        }
        self.of_parts(&flat, depth)
    }

    /// Adds `part` and every schema that applies to the same value with it:
    /// its reference's target, its `allOf`, one branch of each union, one
    /// side of each condition.
    fn flatten(&mut self, part: NodeId, out: &mut Vec<NodeId>, seen: &mut Vec<usize>) {
        let Some(node) = self.nodes.get(part) else {
            return;
        };
        // A conjunction holds each schema once: a part met again (a cycle of
        // references, a definition used twice) adds nothing.
        let address = std::ptr::from_ref(node.schema) as usize;
        if seen.contains(&address) {
            return;
        }
        seen.push(address);
        if out.len() >= MAX_PARTS {
            return;
        }
        if !node.schema.is_object() {
            if node.schema == &Value::Bool(false) {
                out.push(part);
            }
            return;
        }
        let (refers, draft) = (node.words.refers, node.draft);
        let links = self.nodes.links(part);
        if refers {
            if let Some(target) = links.reference {
                self.flatten(target, out, seen);
            }
            if draft <= Draft::Draft7 {
                return; // Drafts 4 to 7 ignore a reference's siblings.
            }
        }
        out.push(part);
        for part_of in &links.all_of {
            self.flatten(*part_of, out, seen);
        }
        for branches in [&links.any_of, &links.one_of] {
            if !branches.is_empty() {
                let index = self.turn(branches.len());
                if let Some(branch) = branches.get(index) {
                    self.flatten(*branch, out, seen);
                }
            }
        }
        if let Some(condition) = links.condition {
            if self.rng.chance(50) {
                self.flatten(condition, out, seen);
                if let Some(then) = links.then {
                    self.flatten(then, out, seen);
                }
            } else if let Some(otherwise) = links.otherwise {
                self.flatten(otherwise, out, seen);
            }
        }
    }

    /// An index in `0..n`: in turn over the first draws, at random after.
    fn turn(&mut self, n: usize) -> usize {
        if self.draws <= n * 2 && n > 0 {
            (self.draws + self.rng.below(2)) % n
        } else {
            self.rng.below(n)
        }
    }

    fn of_parts(&mut self, parts: &[NodeId], depth: usize) -> Value {
        if let Some(value) = parts.iter().find_map(|p| self.words(*p).constant) {
            return value.clone();
        }
        if let Some(values) = parts.iter().find_map(|p| self.words(*p).enumeration) {
            let index = self.turn(values.len());
            if let Some(value) = values.get(index) {
                return value.clone();
            }
        }
        let ty = self.choose_type(parts);
        match ty {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.chance(50)),
            "integer" => self.integer(parts),
            "number" => self.number(parts),
            "string" => {
                let text = self.string(parts);
                // A long string counts as many values: an array of thousands
                // of strings thousands long each is past any draw's worth.
                self.built = self.built.saturating_add(text.len() / CHARS_PER_VALUE);
                Value::String(text)
            }
            "array" => self.array(parts, depth),
            _ => self.object(parts, depth),
        }
    }

    /// The JSON type to draw: one every part allows, guessed from the
    /// keywords where no part names one.
    fn choose_type(&mut self, parts: &[NodeId]) -> &'static str {
        let mut allowed: Vec<&'static str> = TYPES.to_vec();
        let mut named = false;
        let mut suggests = 0;
        for part in parts {
            let words = self.words(*part);
            suggests |= words.suggests;
            if !words.type_named {
                continue;
            }
            named = true;
            let Some(listed) = &words.types else {
                continue;
            };
            allowed
                .retain(|t| listed.contains(t) || (*t == "integer" && listed.contains(&"number")));
        }
        if !named {
            let guess: &[&'static str] = GUESSES
                .iter()
                .enumerate()
                .find(|(bit, _)| suggests & (1 << bit) != 0)
                .map_or(&TYPES, |(_, (_, types))| types);
            // A guess is a lean, not a rule: now and then any type.
            if !self.rng.chance(15) {
                allowed = guess.to_vec();
            }
        }
        if allowed.is_empty() {
            return "null";
        }
        // `null` beside other types is drawn less often: it says little.
        if allowed.len() > 1 && allowed.contains(&"null") && self.rng.chance(80) {
            allowed.retain(|t| *t != "null");
        }
        let index = self.turn(allowed.len());
        allowed.get(index).copied().unwrap_or("null")
    }

    /// The numeric bounds all parts set: `(lowest, highest)` allowed, each
    /// with whether it is excluded.
    fn bounds(&self, parts: &[NodeId]) -> (Option<Limit>, Option<Limit>) {
        let mut lo: Option<Limit> = None;
        let mut hi: Option<Limit> = None;
        let raise = |slot: &mut Option<Limit>, x: f64, open: bool| {
            if slot.is_none_or(|(y, o)| x > y || (x == y && open && !o)) {
                *slot = Some((x, open));
            }
        };
        let lower = |slot: &mut Option<Limit>, x: f64, open: bool| {
            if slot.is_none_or(|(y, o)| x < y || (x == y && open && !o)) {
                *slot = Some((x, open));
            }
        };
        for part in parts {
            let words = self.words(*part);
            if let Some(x) = words.minimum {
                raise(&mut lo, x, words.minimum_excluded);
            }
            if let Some(x) = words.maximum {
                lower(&mut hi, x, words.maximum_excluded);
            }
            if let Some(x) = words.exclusive_minimum {
                raise(&mut lo, x, true);
            }
            if let Some(x) = words.exclusive_maximum {
                lower(&mut hi, x, true);
            }
        }
        (lo, hi)
    }

    fn multiple_of(&self, parts: &[NodeId]) -> Option<f64> {
        parts
            .iter()
            .find_map(|p| self.words(*p).multiple_of)
            .filter(|m| *m > 0.0 && m.is_finite())
    }

    fn integer(&mut self, parts: &[NodeId]) -> Value {
        let (lo, hi) = self.bounds(parts);
        // Inclusive integer bounds, kept within what an i128 and an f64 both hold.
        const FAR: f64 = 1.0e30;
        let lo = lo.map(|(x, open)| {
            let x = x.clamp(-FAR, FAR);
            if open {
                x.floor() as i128 + 1
            } else {
                x.ceil() as i128
            }
        });
        let hi = hi.map(|(x, open)| {
            let x = x.clamp(-FAR, FAR);
            if open {
                x.ceil() as i128 - 1
            } else {
                x.floor() as i128
            }
        });
        let step = self
            .multiple_of(parts)
            .filter(|m| m.fract() == 0.0 && *m < 1.0e18)
            .map(|m| m as i128)
            .unwrap_or(1)
            .max(1);
        let edges: Vec<i128> = [lo, hi, lo.map(|x| x + 1), hi.map(|x| x - 1)]
            .into_iter()
            .flatten()
            .collect();
        // Far values within the bounds only: one outside would be dropped by
        // whoever wants a valid value, and a whole message drawn again.
        let wide: Vec<i128> = [
            0,
            1,
            -1,
            (1i128 << 53) - 1,
            1i128 << 53,
            i128::from(i64::MAX),
            i128::from(u64::MAX),
            i128::from(i64::MIN),
        ]
        .into_iter()
        .filter(|x| lo.is_none_or(|l| *x >= l) && hi.is_none_or(|h| *x <= h))
        .collect();
        let x = if !edges.is_empty() && self.rng.chance(40) {
            self.rng.pick(&edges).copied().unwrap_or(0)
        } else if !wide.is_empty() && self.rng.chance(10) {
            self.rng.pick(&wide).copied().unwrap_or(0)
        } else {
            let from = lo.unwrap_or_else(|| hi.map_or(-100, |h| h - 100));
            let to = hi.unwrap_or(from + 1000);
            self.rng.between(from, to)
        };
        let x = if step > 1 {
            let k = x.div_euclid(step);
            let below = k * step;
            if lo.is_some_and(|l| below < l) {
                below + step
            } else {
                below
            }
        } else {
            x
        };
        // Past 2^53 the validator divides doubles: a neighbour of a multiple
        // may round to it and pass (the validator decides).
        let x = if step > 1 << 53 && self.rng.chance(50) {
            x + if self.rng.chance(50) { 1 } else { -1 }
        } else {
            x
        };
        integer_value(x)
    }

    fn number(&mut self, parts: &[NodeId]) -> Value {
        if self.rng.chance(50) {
            return self.integer(parts);
        }
        let (lo, hi) = self.bounds(parts);
        let from = lo.map_or(-1000.0, |(x, _)| x);
        let to = hi.map_or(from + 1000.0, |(x, _)| x);
        let x = match self.multiple_of(parts) {
            Some(m) => {
                let count = ((to - from) / m).floor().clamp(0.0, 1.0e9);
                let k = (from / m).ceil() + (self.rng.unit() * (count + 1.0)).floor();
                k * m
            }
            None if self.rng.chance(30) && lo.is_some() => {
                // Just inside the lower bound.
                from + (to - from).abs().min(1.0) / 1024.0
            }
            None => from + self.rng.unit() * (to - from),
        };
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }

    fn string(&mut self, parts: &[NodeId]) -> String {
        let count = |key: fn(&Words<'r>) -> Option<f64>| -> Vec<usize> {
            parts
                .iter()
                .filter_map(|p| key(self.words(*p)))
                .map(|x| {
                    if x.is_finite() && x > 0.0 {
                        x.min(1.0e9) as usize
                    } else {
                        0
                    }
                })
                .collect()
        };
        let min = count(|w| w.min_length).into_iter().max().unwrap_or(0);
        let max = count(|w| w.max_length).into_iter().min();
        // Now and then a length bound itself, so that a reader's length check
        // is tried at its edge: a schema's `maxLength`, and one past
        // `limits.string` (up to MAX_STRING) less often, since it makes
        // the message that much longer; with no `maxLength`, that limit.
        let cap = self.limits.string.max(min);
        let edge = if self.rng.chance(30) {
            Some(if self.rng.chance(50) {
                min
            } else {
                max.map_or(cap, |max| {
                    if max <= cap || self.rng.chance(20) {
                        max
                    } else {
                        cap
                    }
                })
            })
        } else {
            None
        }
        .map(|edge| edge.min(MAX_STRING));
        let lengths = Lengths { min, max, edge };
        if let Some(sample) = self.formatted(parts, lengths) {
            return sample;
        }
        if let Some(text) = self.patterned(parts, lengths) {
            return text;
        }
        // Lengths no string of the pattern meets (conditions taken together
        // may ask for two lengths at once): a string of the pattern still,
        // which a caller can resize, rather than one that matches nothing.
        let any_length = Lengths {
            min: min.min(max.unwrap_or(min)),
            max: None,
            edge: None,
        };
        if let Some(text) = self.patterned(parts, any_length) {
            return text;
        }
        // A schema may ask for more than is worth building: past the cap the
        // string is cut short, and the validator will refuse it.
        let len = edge.unwrap_or_else(|| {
            let min = min.min(MAX_BUILT);
            let cap = self.limits.string.max(min);
            let upper = max.unwrap_or(cap).min(cap).min(min + 8);
            usize::try_from(self.rng.between(min as i128, upper as i128)).unwrap_or(min)
        });
        (0..len).map(|_| self.character()).collect()
    }

    /// A sample of the `format` the parts name, when it also matches their
    /// patterns and lengths; a URI lengthened to `edge` when it is longer.
    fn formatted(&mut self, parts: &[NodeId], lengths: Lengths) -> Option<String> {
        let format = parts.iter().find_map(|p| self.words(*p).format)?;
        let mut sample = format_sample(format, &mut self.rng)?;
        if let Some(edge) = lengths
            .edge
            .filter(|edge| format == "uri" && *edge > sample.chars().count())
        {
            // Letters in a fragment keep any URI a URI.
            if !sample.contains('#') {
                sample.push('#');
            }
            pad_to(&mut sample, edge);
        }
        // A format sample must match the patterns beside it too (a
        // `urn:` is a URI, but not one an `^https?://` takes).
        let nodes = &self.nodes;
        let matchers = &mut self.matchers;
        let matches = parts
            .iter()
            .filter_map(|p| nodes.get(*p).and_then(|node| node.words.pattern))
            .all(|pattern| {
                matchers
                    .entry(pattern.to_string())
                    .or_insert_with(|| regex::Regex::new(pattern).ok())
                    .as_ref()
                    .is_none_or(|regex| regex.is_match(&sample))
            });
        (matches && lengths.fit(&sample)).then_some(sample)
    }

    /// A string the first pattern matches, within the lengths: first as the
    /// pattern likes (or at `edge`, when given), then aiming at a length the
    /// bounds allow.
    fn patterned(&mut self, parts: &[NodeId], lengths: Lengths) -> Option<String> {
        let Lengths { min, max, edge } = lengths;
        let pattern = parts.iter().find_map(|p| self.words(*p).pattern)?;
        for attempt in 0..6 {
            let want = if attempt < 2 {
                edge
            } else {
                Some({
                    let upper = max
                        .unwrap_or(min + 16)
                        .min(min.max(1) * 2 + 16)
                        .min(MAX_BUILT);
                    usize::try_from(self.rng.between(min as i128, upper.max(min) as i128))
                        .unwrap_or(min)
                })
            };
            let hir = self
                .patterns
                .entry(pattern.to_string())
                .or_insert_with(|| pattern::parse(pattern));
            let hir = hir.as_ref()?;
            let mut text = pattern::matching_parsed(hir, &mut self.rng, want);
            // A pattern with nothing that looks at the end (`^/`) matches
            // whatever follows its match: a string short of the length
            // aimed at is lengthened.
            if let (Some(text), Some(want)) = (text.as_mut(), want) {
                if hir.properties().look_set_suffix_any().is_empty() {
                    pad_to(text, want);
                }
            }
            if let Some(text) = text.filter(|text| lengths.fit(text)) {
                return Some(text);
            }
        }
        None
    }

    /// One character, mostly plain, sometimes one that readers get wrong.
    fn character(&mut self) -> char {
        const PLAIN: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. ";
        const HARD: &[char] = &[
            'é', 'π', '中', '😀', '\u{301}', '"', '\\', '\n', '\t', '\u{1}', '\u{7f}', '\u{2028}',
            '\u{FEFF}',
        ];
        if self.rng.chance(90) {
            self.rng.pick(PLAIN).map_or('a', |b| char::from(*b))
        } else {
            self.rng.pick(HARD).copied().unwrap_or('a')
        }
    }

    fn array(&mut self, parts: &[NodeId], depth: usize) -> Value {
        let count = |key: fn(&Words<'r>) -> Option<f64>| -> Vec<usize> {
            parts
                .iter()
                .filter_map(|p| key(self.words(*p)))
                .map(|x| {
                    if x.is_finite() && x > 0.0 {
                        x.min(1.0e6) as usize
                    } else {
                        0
                    }
                })
                .collect()
        };
        let min = count(|w| w.min_items)
            .into_iter()
            .max()
            .unwrap_or(0)
            .min(MAX_BUILT);
        let max = count(|w| w.max_items).into_iter().min();
        let positions = self.positions(parts);
        let deep = depth >= self.limits.depth;
        let mut upper = max
            .unwrap_or(usize::MAX)
            .min(positions.closed_after.unwrap_or(usize::MAX));
        let full = upper;
        upper = upper.min(min.saturating_add(if deep { 0 } else { self.limits.extra_items }));
        let len = if self.rng.chance(25) {
            if self.rng.chance(50) {
                min
            } else if full > upper && full <= MAX_EDGE_ITEMS && !deep && self.rng.chance(20) {
                // `maxItems` itself now and then, past the few extra items
                // drawn otherwise: a reader that holds 32 segments in a
                // fixed array is tried at 32.
                full
            } else {
                upper.max(min)
            }
        } else {
            usize::try_from(self.rng.between(min as i128, upper.max(min) as i128)).unwrap_or(min)
        };
        let unique = parts.iter().any(|p| self.words(*p).unique_items);
        let mut items: Vec<Value> = Vec::with_capacity(len.min(1024));
        // Unique items are drawn again while they repeat, a few times over
        // (an enum of 12 values drawn 12 times rarely gives all 12).
        let mut draws_left = if unique { len.saturating_mul(8) } else { len };
        while items.len() < len && draws_left > 0 {
            draws_left -= 1;
            let schemas = positions
                .tuples
                .get(items.len())
                .cloned()
                .unwrap_or_else(|| positions.rest.clone());
            let item = self.value(schemas, depth + 1);
            if !unique || !items.contains(&item) {
                items.push(item);
            }
        }
        let contains: Vec<NodeId> = parts
            .iter()
            .filter_map(|p| self.nodes.links(*p).contains)
            .collect();
        if !contains.is_empty() && self.rng.chance(80) {
            let value = self.value(contains, depth + 1);
            let at = self.rng.below(items.len());
            match items.get_mut(at) {
                Some(slot) => *slot = value,
                None => items.push(value),
            }
        }
        if unique {
            // The `contains` value may repeat one drawn already.
            let mut kept: Vec<Value> = Vec::with_capacity(items.len());
            for item in items {
                if !kept.contains(&item) {
                    kept.push(item);
                }
            }
            items = kept;
        }
        Value::Array(items)
    }

    fn object(&mut self, parts: &[NodeId], depth: usize) -> Value {
        let shape = self.shape(parts);
        let deep = depth >= self.limits.depth;
        let everything = self.rng.chance(20);
        let nothing = deep || self.rng.chance(20);
        // Each name drawn, with its place among the declared ones.
        let mut names: Vec<(&'r str, Option<usize>)> = shape.required.clone();
        for (index, (name, _, required)) in shape.declared.iter().enumerate() {
            let take = everything || (!nothing && self.rng.chance(50));
            if take && !required {
                names.push((name, Some(index)));
            }
        }
        // What a present field requires comes too.
        let mut index = 0;
        while let Some((name, _)) = names.get(index).copied() {
            for (trigger, needs) in &shape.dependent {
                if *trigger == name {
                    for need in needs {
                        if !names.iter().any(|(name, _)| name == need) {
                            names.push((need, shape.declared_at(need)));
                        }
                    }
                }
            }
            index += 1;
        }
        let mut map = Map::new();
        for (name, declared) in names {
            // A name only a pattern matches has no declared schemas of its own.
            let mut schemas = declared
                .and_then(|index| shape.declared.get(index))
                .map(|(_, schemas, _)| schemas.clone())
                .unwrap_or_default();
            if schemas.is_empty() {
                schemas.extend(shape.additional.iter().cloned());
            }
            let value = self.value(schemas, depth + 1);
            map.insert(name.to_string(), value);
        }
        if !deep {
            self.extra_fields(&shape, &mut map, depth);
        }
        let mut filler = 0;
        while (map.len() as u64) < shape.min_properties.min(256) {
            let name = format!("p{filler}");
            filler += 1;
            if !map.contains_key(&name) {
                let value = self.value(shape.additional.clone(), depth + 1);
                map.insert(name, value);
            }
        }
        Value::Object(map)
    }

    /// Now and then a field named by a pattern, and one no schema names
    /// (where the object is open).
    fn extra_fields(
        &mut self,
        shape: &ObjectShape<'r>,
        map: &mut Map<String, Value>,
        depth: usize,
    ) {
        if !shape.patterns.is_empty() && self.rng.chance(40) {
            if let Some((pattern, schema)) = self.rng.pick(&shape.patterns).cloned() {
                if let Some(name) = pattern::matching(pattern, &mut self.rng) {
                    let value = self.value(vec![schema], depth + 1);
                    map.insert(name, value);
                }
            }
        }
        if !shape.closed && self.rng.chance(20) {
            let name = format!("extra{}", self.rng.below(10));
            let value = if shape.additional.is_empty() {
                any_value(&mut self.rng, 2)
            } else {
                self.value(shape.additional.clone(), depth + 1)
            };
            map.insert(name, value);
        }
    }

    /// What the parts of an array schema say about its positions.
    fn positions(&mut self, parts: &[NodeId]) -> Positions {
        let mut positions = Positions {
            tuples: Vec::new(),
            rest: Vec::new(),
            closed_after: None,
        };
        for part in parts {
            let links = self.nodes.links(*part);
            match links.rest {
                Some(Beyond::Closed) => {
                    let tuple = links.tuple.len();
                    positions.closed_after =
                        Some(positions.closed_after.map_or(tuple, |c| c.min(tuple)));
                }
                Some(Beyond::Schema(schema)) => positions.rest.push(schema),
                None => {}
            }
            for (index, schema) in links.tuple.iter().enumerate() {
                match positions.tuples.get_mut(index) {
                    Some(slot) => slot.push(*schema),
                    None => positions.tuples.push(vec![*schema]),
                }
            }
        }
        positions
    }

    /// What the parts of an object schema say about its members, worked out
    /// once per conjunction.
    fn shape(&mut self, parts: &[NodeId]) -> Arc<ObjectShape<'r>> {
        if let Some(shape) = self.shapes.get(parts) {
            return shape.clone();
        }
        let mut declared: BTreeMap<&'r str, Vec<NodeId>> = BTreeMap::new();
        let mut shape = ObjectShape {
            declared: Vec::new(),
            patterns: Vec::new(),
            additional: Vec::new(),
            closed: false,
            required: Vec::new(),
            dependent: Vec::new(),
            min_properties: 0,
        };
        let mut required: Vec<&'r str> = Vec::new();
        for part in parts {
            let links = self.nodes.links(*part);
            for (name, schema) in &links.properties {
                declared.entry(*name).or_default().push(*schema);
            }
            shape.patterns.extend(links.patterns.iter().copied());
            match links.additional {
                Some(Beyond::Closed) => shape.closed = true,
                Some(Beyond::Schema(schema)) => shape.additional.push(schema),
                None => {}
            }
            let words = self.words(*part);
            for name in &words.required {
                if !required.contains(name) {
                    required.push(name);
                }
            }
            shape.dependent.extend(words.dependent.iter().cloned());
            if let Some(min) = words.min_properties {
                shape.min_properties = shape.min_properties.max(min);
            }
        }
        shape.declared = declared
            .into_iter()
            .map(|(name, schemas)| (name, schemas, required.contains(&name)))
            .collect();
        shape.required = required
            .into_iter()
            .map(|name| (name, shape.declared_at(name)))
            .collect();
        let shape = Arc::new(shape);
        if self.shapes.len() >= MAX_SHAPES {
            self.shapes.clear();
        }
        self.shapes.insert(parts.to_vec(), shape.clone());
        shape
    }
}

/// What the parts of an array schema say about its positions.
struct Positions {
    /// The schemas for each leading position.
    tuples: Vec<Vec<NodeId>>,
    /// The schemas for the positions after them.
    rest: Vec<NodeId>,
    /// Where a part allows no more items.
    closed_after: Option<usize>,
}

/// What the parts of an object schema say about its fields.
struct ObjectShape<'r> {
    /// Each name `properties` declares, in order, with its schemas and
    /// whether it is required.
    declared: Vec<(&'r str, Vec<NodeId>, bool)>,
    patterns: Vec<(&'r str, NodeId)>,
    additional: Vec<NodeId>,
    closed: bool,
    /// The required names, each once, with their places in `declared`.
    required: Vec<(&'r str, Option<usize>)>,
    dependent: Vec<(&'r str, Vec<&'r str>)>,
    min_properties: u64,
}

impl ObjectShape<'_> {
    /// Where `name` is among the declared names.
    fn declared_at(&self, name: &str) -> Option<usize> {
        self.declared
            .binary_search_by(|(declared, _, _)| (*declared).cmp(name))
            .ok()
    }
}

/// The keywords of a node that is not there (which no id names).
static NO_WORDS: Words<'static> = Words::NONE;

/// An integer as JSON writes it: exact where an `i64` or `u64` holds it.
fn integer_value(x: i128) -> Value {
    if let Ok(small) = i64::try_from(x) {
        return json!(small);
    }
    if let Ok(large) = u64::try_from(x) {
        return json!(large);
    }
    Number::from_f64(x as f64).map_or(Value::Null, Value::Number)
}

/// Whether `text` has a length (in characters) within `min..=max`.
/// The lengths a string is held to, and the one it is aimed at, if any.
#[derive(Clone, Copy)]
struct Lengths {
    min: usize,
    max: Option<usize>,
    edge: Option<usize>,
}

impl Lengths {
    fn fit(self, text: &str) -> bool {
        fits(text, self.min, self.max)
    }
}

/// `text` lengthened with `a`s to `chars` characters.
fn pad_to(text: &mut String, chars: usize) {
    let missing = chars.saturating_sub(text.chars().count());
    text.extend(std::iter::repeat_n('a', missing));
}

fn fits(text: &str, min: usize, max: Option<usize>) -> bool {
    let n = text.chars().count();
    n >= min && max.is_none_or(|m| n <= m)
}

/// A value of the named format, where the format is one this knows.
fn format_sample(format: &str, rng: &mut Rng) -> Option<String> {
    let choices: &[&str] = match format {
        "date-time" => &[
            "2026-01-01T00:00:00Z",
            // A leap second, as UTC had one then.
            "1998-12-31T23:59:60Z",
            "2026-06-30T12:34:56.789-07:30",
        ],
        "date" => &["2026-01-01", "2024-02-29"],
        "time" => &["12:00:00Z", "23:59:59.5+02:00"],
        "duration" => &["P1D", "PT1H30M"],
        "email" => &["someone@example.org", "a.b+c@example.co.uk"],
        "idn-email" => &["δοκιμή@παράδειγμα.δοκιμή"],
        "hostname" => &["example.org", "a-b.example"],
        "idn-hostname" => &["παράδειγμα.δοκιμή"],
        "ipv4" => &["192.0.2.1", "0.0.0.0"],
        "ipv6" => &["2001:db8::1", "::1"],
        "uri" => &[
            "https://example.org/a?b=c#d",
            "ftp://example.org/file.iso",
            "urn:isbn:0451450523",
        ],
        "uri-reference" => &["../a.json", "https://example.org/"],
        "iri" => &["https://例え.テスト/パス"],
        "iri-reference" => &["パス/a"],
        "uuid" => &["123e4567-e89b-12d3-a456-426614174000"],
        "uri-template" => &["https://example.org/{id}"],
        "json-pointer" => &["/a/b~1c", ""],
        "relative-json-pointer" => &["0/a", "1#"],
        "regex" => &["^[a-z]+$"],
        _ => return None,
    };
    rng.pick(choices).map(|s| (*s).to_string())
}

/// Any JSON value, nested at most `depth` deep: what a schema of `true` allows.
pub fn any_value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 5 } else { 7 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => integer_value(rng.between(-1000, 1000)),
        3 => Number::from_f64(rng.unit() * 200.0 - 100.0).map_or(Value::Null, Value::Number),
        4 => Value::String(format!("s{}", rng.below(100))),
        5 => Value::Array(
            (0..rng.below(3))
                .map(|_| any_value(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(3))
                .map(|i| (format!("k{i}"), any_value(rng, depth - 1)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(schema: Value) -> Registry<'static> {
        Registry::new()
            .add("https://sample.invalid/s.json", schema)
            .and_then(|builder| builder.prepare())
            .expect("a registry")
    }

    /// Share of `n` draws the validator accepts.
    fn accepted(schema: Value, n: usize) -> usize {
        let registry = registry(schema.clone());
        let validator = jsonschema::options()
            .with_registry(&registry)
            .build(&json!({"$ref": "https://sample.invalid/s.json"}))
            .expect("compiles");
        let mut sampler = Sampler::new(&registry, 11);
        (0..n)
            .filter(|_| {
                let value = sampler
                    .draw("https://sample.invalid/s.json")
                    .expect("draws");
                validator.is_valid(&value)
            })
            .count()
    }

    /// Conditions taken together can ask one string for two lengths (a
    /// checksum's value under two algorithms' rules); the string still
    /// follows the pattern, so a caller that settles the length keeps it.
    #[test]
    fn a_string_whose_lengths_conflict_still_follows_its_pattern() {
        let schema = json!({"type": "string", "pattern": "^[0-9a-f]+$",
            "allOf": [{"minLength": 40, "maxLength": 40}, {"minLength": 32, "maxLength": 32}]});
        let registry = registry(schema);
        let mut sampler = Sampler::new(&registry, 5);
        for _ in 0..200 {
            let value = sampler
                .draw("https://sample.invalid/s.json")
                .expect("draws");
            let text = value.as_str().expect("a string");
            assert!(
                !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()),
                "{text:?}"
            );
        }
    }

    /// A string held to a pattern reaches both its length bounds, as one
    /// without a pattern does: a reader's length check is tried at its edge.
    #[test]
    fn a_patterned_string_reaches_both_its_length_bounds() {
        let schema = json!({"type": "string", "pattern": "^[A-Za-z0-9_-]+$",
            "minLength": 2, "maxLength": 64});
        let registry = registry(schema);
        let mut sampler = Sampler::new(&registry, 9);
        let mut lengths = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let value = sampler
                .draw("https://sample.invalid/s.json")
                .expect("draws");
            lengths.insert(value.as_str().expect("a string").chars().count());
        }
        assert!(lengths.contains(&2) && lengths.contains(&64), "{lengths:?}");
    }

    /// A format the schema's draft does not know (`uuid` before 2019-09)
    /// asserts nothing there, so draws are not held to it: a value that is
    /// no uuid comes up. Where the draft knows it, every draw is one.
    #[test]
    fn a_format_the_draft_does_not_know_is_not_drawn_by() {
        let is_uuid = jsonschema::options()
            .should_validate_formats(true)
            .build(&json!({"format": "uuid"}))
            .expect("compiles");
        let uuids = |schema: &str| {
            let registry = registry(json!({"$schema": schema, "type": "string", "format": "uuid"}));
            let mut sampler = Sampler::new(&registry, 3);
            (0..100)
                .filter(|_| {
                    let value = sampler
                        .draw("https://sample.invalid/s.json")
                        .expect("draws");
                    is_uuid.is_valid(&value)
                })
                .count()
        };
        assert!(uuids("http://json-schema.org/draft-07/schema#") < 50);
        assert_eq!(uuids("https://json-schema.org/draft/2020-12/schema"), 100);
    }

    /// A number as draft 4's `exclusiveMinimum` bounds nothing there (its
    /// validator reads only `true` beside `minimum`): values below it are
    /// drawn, as the validator takes them. In draft 6 it is a bound.
    #[test]
    fn a_numeric_exclusive_bound_bounds_draws_only_where_the_draft_reads_it() {
        let below = |dialect: &str| {
            // Under `$defs`, which draft 4's meta-schema does not check.
            let registry = registry(json!({"$schema": dialect,
                "$defs": {"a": {"type": "number", "exclusiveMinimum": 10, "maximum": 20}},
                "allOf": [{"$ref": "#/$defs/a"}]}));
            let mut sampler = Sampler::new(&registry, 4);
            (0..200)
                .filter_map(|_| sampler.draw("https://sample.invalid/s.json").ok())
                .filter(|value| value.as_f64().is_some_and(|x| x <= 10.0))
                .count()
        };
        assert!(below("http://json-schema.org/draft-04/schema#") > 0);
        assert_eq!(below("http://json-schema.org/draft-06/schema#"), 0);
    }

    /// A schema naming a dialect no draft knows (a `$schema` cut short) is
    /// read as the validator reads it, and drawing from it does not panic.
    #[test]
    fn a_dialect_no_draft_knows_is_drawn_from() {
        for inner in [
            json!({"$schema": "http://json-schema.org/draft-04/schema", "type": "string", "format": "email"}),
            json!({"$id": "inner.json", "$schema": "http://json-schema.org/draft-04/sch", "type": "string", "format": "email"}),
            json!({"$id": "inner.json", "$schema": "", "type": "string", "format": "email"}),
        ] {
            let registry = registry(json!({"properties": {"a": inner}, "required": ["a"]}));
            let mut sampler = Sampler::new(&registry, 3);
            for _ in 0..20 {
                sampler
                    .draw("https://sample.invalid/s.json")
                    .expect("draws");
            }
        }
    }

    #[test]
    fn most_draws_from_ordinary_schemas_are_valid() {
        let cases = [
            json!({"type": "integer", "minimum": 3, "maximum": 9}),
            json!({"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": [1, 2]}}, "required": ["a"], "additionalProperties": false}),
            json!({"type": "array", "items": {"type": "boolean"}, "minItems": 1, "maxItems": 3}),
            json!({"oneOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}),
            json!({"$defs": {"n": {"type": "integer", "multipleOf": 7}}, "$ref": "#/$defs/n"}),
        ];
        for schema in cases {
            let ok = accepted(schema.clone(), 200);
            assert!(ok >= 150, "{ok}/200 valid for {schema}");
        }
    }

    #[test]
    fn every_enum_value_and_branch_comes_up() {
        let registry = registry(json!({"anyOf": [{"enum": ["a", "b", "c"]}, {"type": "boolean"}]}));
        let mut sampler = Sampler::new(&registry, 5);
        let seen: Vec<Value> = (0..200)
            .map(|_| {
                sampler
                    .draw("https://sample.invalid/s.json")
                    .expect("draws")
            })
            .collect();
        for value in [
            json!("a"),
            json!("b"),
            json!("c"),
            json!(true),
            json!(false),
        ] {
            assert!(seen.contains(&value), "{value} never drawn");
        }
    }

    #[test]
    fn a_schema_that_requires_itself_ends() {
        let registry = registry(
            json!({"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#"}}}),
        );
        let mut sampler = Sampler::new(&registry, 1);
        let value = sampler
            .draw("https://sample.invalid/s.json")
            .expect("draws");
        assert!(value.is_object());
    }

    /// Each level of this schema requires two more: drawing what it
    /// requires down to the nesting cap would build 2^64 values.
    #[test]
    fn a_schema_that_requires_itself_twice_ends() {
        let registry = registry(json!({"type": "object", "required": ["a", "b"],
            "properties": {"a": {"$ref": "#"}, "b": {"$ref": "#"}}}));
        let limits = Limits::default();
        let mut sampler = Sampler::new(&registry, 1);
        for _ in 0..3 {
            let value = sampler
                .draw("https://sample.invalid/s.json")
                .expect("draws");
            // Objects built; past the cap the members still asked for are `null`.
            let mut objects = 0;
            let mut stack = vec![&value];
            while let Some(value) = stack.pop() {
                if let Value::Object(members) = value {
                    objects += 1;
                    stack.extend(members.values());
                }
            }
            assert!(
                objects > 1000 && objects <= limits.values,
                "{objects} objects built"
            );
        }
    }

    /// Thousands of strings thousands long each (the schema asks for a
    /// million of a million): one draw built 16 MB, and a search of 64
    /// draws a place took seconds. Long strings count against the cap.
    #[test]
    fn a_draw_of_many_long_strings_stays_small() {
        let registry = registry(json!({"type": "array", "minItems": 1_000_000,
            "items": {"type": "string", "minLength": 1_000_000}}));
        let limits = Limits::default();
        let mut sampler = Sampler::new(&registry, 3);
        for _ in 0..3 {
            let value = sampler
                .draw("https://sample.invalid/s.json")
                .expect("draws");
            let items = value.as_array().expect("an array");
            let bytes: usize = items.iter().filter_map(Value::as_str).map(str::len).sum();
            assert!(
                bytes > 0 && bytes <= limits.values * CHARS_PER_VALUE + MAX_STRING,
                "{bytes} bytes of strings in one draw"
            );
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_values() {
        let schema = json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "string"}}});
        let registry = registry(schema);
        let draw = |seed| {
            let mut sampler = Sampler::new(&registry, seed);
            (0..20)
                .map(|_| {
                    sampler
                        .draw("https://sample.invalid/s.json")
                        .expect("draws")
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(9), draw(9));
        assert_ne!(draw(9), draw(10));
    }

    /// A sampler started again from a seed draws what a new one would,
    /// though it has read the schemas already (and met every branch).
    #[test]
    fn a_reseeded_sampler_draws_what_a_new_one_draws() {
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"x": {"enum": [1, 2, 3]}, "y": {"$ref": "#/$defs/y"}}, "required": ["x"]},
            {"type": "array", "items": {"$ref": "#/$defs/y"}, "maxItems": 4}
        ], "$defs": {"y": {"anyOf": [{"type": "string", "pattern": "^[a-c]{2,5}$"}, {"type": "integer", "minimum": -3}]}}});
        let registry = registry(schema);
        let uri = "https://sample.invalid/s.json";
        let draws = |sampler: &mut Sampler<'_>| {
            (0..50)
                .map(|_| sampler.draw(uri).expect("draws"))
                .collect::<Vec<_>>()
        };
        let mut used = Sampler::new(&registry, 3);
        let before = draws(&mut used);
        used.reseed(4);
        let again = draws(&mut used);
        assert_eq!(again, draws(&mut Sampler::new(&registry, 4)));
        used.reseed(3);
        assert_eq!(draws(&mut used), before);
    }
}
