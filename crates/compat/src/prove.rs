//! Containment: does every value a writer's schema accepts pass a reader's?
//!
//! A "holds" comes from one of four proofs, tried in this order:
//!
//! 1. **Equal**: the two schemas are the same, keyword for keyword, with
//!    references followed in step (a cycle met again is the same cycle;
//!    a `$dynamicRef` only where it can lead to one place alone).
//!    Sound whatever the keywords mean.
//! 2. **Finite writer**: a writer that is an `enum` or `const` sends only
//!    those values, and the validator says whether the reader takes each.
//! 3. **Congruence**: the schemas are taken apart keyword by keyword and
//!    each reader constraint is matched with a writer constraint that
//!    implies it, children compared by this same procedure (covariant
//!    places only: properties, items, `anyOf` branches…; `not` the other
//!    way round; `oneOf` only with its other branches proven disjoint). A
//!    pair met again after reading into the value (a property, an item)
//!    holds by induction on the value's size. Tried before the canonical
//!    form because it works on the parts: a type that many methods reach
//!    is compared as that type, and the canonical form's answer for it
//!    kept, where each method's own canonical form would hold the whole
//!    type again.
//! 4. **Canonical form**: where congruence cannot tell, the `jsonschema`
//!    crate's own set algebra (`jsonschema::canonical`, exact on numbers,
//!    the validator's regex engine and formats) answers `covers` with yes,
//!    no or unknown, kept per pair of places. Asked only when every keyword
//!    either side reaches is one the vocabulary models ([`crate::vocab`]);
//!    otherwise the question is not put.
//!
//! A "breaks" is shown by a value: the writer's validator accepts it and the
//! reader's refuses it, found by the canonical difference or by drawing
//! values from the writer. Anything else is "cannot decide: KEYWORD at
//! POINTER (why)", which counts as breaking. Work is bounded by
//! [`MAX_STEPS`] and [`MAX_DEPTH`]; running out is "cannot decide", never a
//! verdict.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use jsonschema::canonical::{CanonicalSchema, Containment, PreparedDocument};
use jsonschema::Draft;
use serde_json::{Map, Value};

use crate::space::{location, DocId, Place, Role, Space, Version};
use crate::vocab::{self, Handling, Shape};
use crate::Formats;

/// How deep comparisons nest (child pairs of child pairs) before the prover
/// stops and cannot decide.
pub const MAX_DEPTH: usize = 96;

/// How many pairs one top-level comparison may examine.
pub const MAX_STEPS: usize = 4_000;

/// How many of the schemas a writer implies ([`Prover::writer_parts`]: its
/// `allOf` parts, a reference's target, theirs in turn) are each put to a
/// reader keyword the writer's own keywords do not imply.
const MAX_WRITER_PARTS: usize = 32;

/// How many values are drawn from a writer when looking for a counterexample.
pub const WITNESS_DRAWS: usize = 48;

/// Where and why containment fails.
#[derive(Debug, Clone)]
pub struct Break {
    /// JSON pointer into the value, where the reader refuses it.
    pub path: String,
    pub writer_file: String,
    pub writer_pointer: String,
    pub reader_file: String,
    pub reader_pointer: String,
    pub reason: String,
    /// A value the writer accepts and the reader refuses, as the validator says.
    pub witness: Option<Value>,
    pub kind: BreakKind,
}

/// What kind of break a [`Break`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakKind {
    /// The reader refuses values the writer sends (shown by a value where one was found).
    Refused,
    /// Assumed: the prover could not decide (the safe answer).
    Undecided { keyword: String },
}

impl Break {
    /// A break between two places of `space`, at the value's root.
    pub(crate) fn between(
        space: &Space<'_>,
        writer: &Place<'_>,
        reader: &Place<'_>,
        reason: String,
        witness: Option<Value>,
        kind: BreakKind,
    ) -> Box<Self> {
        let (writer_file, writer_pointer) = space.describe(writer);
        let (reader_file, reader_pointer) = space.describe(reader);
        Box::new(Break {
            path: String::new(),
            writer_file,
            writer_pointer,
            reader_file,
            reader_pointer,
            reason,
            witness,
            kind,
        })
    }

    /// The keyword the prover could not reason about, when it could not decide.
    pub fn undecided(&self) -> Option<&str> {
        match &self.kind {
            BreakKind::Undecided { keyword } => Some(keyword),
            BreakKind::Refused => None,
        }
    }
}

pub type Outcome = Result<(), Box<Break>>;

/// Why a pair could not be decided, before it becomes a [`Break`].
#[derive(Clone, Debug)]
struct Stuck {
    keyword: String,
    /// The document and pointer where the keyword stands.
    file: String,
    pointer: String,
    why: String,
}

/// A place as a cache key.
type Key = (DocId, String);

/// What a place reaches, walked once: whether an obstacle stops every
/// proof but equality, and whether every keyword is modelled.
#[derive(Clone, Debug)]
struct Reach {
    obstacles: Result<(), Stuck>,
    vocabulary: Result<(), Stuck>,
    /// Whether no reference cycle it reaches comes back to the same value
    /// without reading into it: on such a cycle the validator's answer
    /// depends on the path it came along, so not even equality proves
    /// anything.
    founded: Result<(), Stuck>,
    /// Whether the validator at this place alone reads what it reads on
    /// any way a value's check comes here: a dynamic reference that may
    /// mean an anchor of a resource passed on the way (one a `$ref`
    /// followed to get here left behind) resolves otherwise from here.
    scoped: Result<(), Stuck>,
}

impl Reach {
    /// An obstacle: nothing but equality can prove anything here. The walk
    /// stopped before it could look for cycles, so equality cannot either.
    fn stopped(stuck: Stuck) -> Self {
        Reach {
            obstacles: Err(stuck.clone()),
            vocabulary: Err(stuck.clone()),
            founded: Err(stuck.clone()),
            scoped: Err(stuck),
        }
    }
}

/// The keywords whose subschemas apply to the value itself, not to a part
/// of it: a cycle of references through these alone never ends.
const SAME_VALUE: [&str; 10] = [
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "$ref",
];

/// The prover over one [`Space`], with what it has learnt cached.
pub struct Prover<'s> {
    space: &'s Space<'s>,
    prepared: RefCell<HashMap<DocId, Option<Rc<PreparedDocument<'s>>>>>,
    canonical: RefCell<HashMap<Key, Option<Rc<CanonicalSchema>>>>,
    covered: RefCell<HashMap<(Key, Key), Containment>>,
    reach: RefCell<HashMap<Key, Reach>>,
    matches: RefCell<HashMap<(String, String), Option<bool>>>,
    /// Each pattern's automaton (`None`: the lint refuses it), built once:
    /// a pattern near the lint's bounds takes milliseconds.
    automata: RefCell<HashMap<String, Option<Rc<contract::Automaton>>>>,
    /// How many schemas of each view declare each `$dynamicAnchor` name.
    anchors: RefCell<HashMap<(Version, Role), Rc<AnchorCounts>>>,
    /// The schemas of each view a dynamic reference may lead to.
    dynamic_anchors: RefCell<HashMap<(Version, Role), DynamicAnchors<'s>>>,
    steps: Cell<usize>,
}

/// How many schemas declare each `$dynamicAnchor` name.
type AnchorCounts = HashMap<String, usize>;

/// The schemas of a view that a dynamic reference may lead to.
type DynamicAnchors<'s> = Rc<Vec<DynamicAnchor<'s>>>;

/// A schema a dynamic reference may lead to.
struct DynamicAnchor<'s> {
    place: Place<'s>,
    /// Its `$dynamicAnchor`.
    name: Option<String>,
    /// Whether it says `$recursiveAnchor: true`.
    recursive: bool,
}

/// Whether the validator of `draft` follows the dynamic reference `key`
/// (`$dynamicRef` or `$recursiveRef`) to validate: 2019-09's follows a
/// `$dynamicRef`, and 2020-12's a `$recursiveRef`, only where
/// `unevaluated*` look past it.
fn validates_through(key: &str, draft: Draft) -> bool {
    !(vocab::handling(draft, key).constrains_nothing()
        || (key == "$dynamicRef" && draft == Draft::Draft201909)
        || (key == "$recursiveRef" && draft == Draft::Draft202012))
}

/// A pair on the way down, and how many times the walk had read into the
/// value when it was met.
type Trail = Vec<((usize, usize), usize)>;

impl<'s> Prover<'s> {
    pub fn new(space: &'s Space<'s>) -> Self {
        Prover {
            space,
            prepared: RefCell::new(HashMap::new()),
            canonical: RefCell::new(HashMap::new()),
            covered: RefCell::new(HashMap::new()),
            reach: RefCell::new(HashMap::new()),
            matches: RefCell::new(HashMap::new()),
            automata: RefCell::new(HashMap::new()),
            anchors: RefCell::new(HashMap::new()),
            dynamic_anchors: RefCell::new(HashMap::new()),
            steps: Cell::new(MAX_STEPS),
        }
    }

    pub fn space(&self) -> &'s Space<'s> {
        self.space
    }

    /// Whether every value `writer` accepts passes `reader`.
    pub fn contains(&self, writer: &Place<'s>, reader: &Place<'s>) -> Outcome {
        self.steps.set(MAX_STEPS);
        self.sub(writer, reader, 0, 0, &mut Vec::new())
    }

    fn sub(
        &self,
        writer: &Place<'s>,
        reader: &Place<'s>,
        depth: usize,
        descents: usize,
        trail: &mut Trail,
    ) -> Outcome {
        let limit = if depth > MAX_DEPTH {
            Some((
                "nesting",
                format!("comparisons nest more than {MAX_DEPTH} deep"),
            ))
        } else if self.steps.get() == 0 {
            Some((
                "size",
                format!("the comparison needs more than {MAX_STEPS} steps"),
            ))
        } else {
            None
        };
        if let Some((keyword, why)) = limit {
            return self.stuck(writer, reader, self.stuck_at(reader, keyword, why));
        }
        self.steps.set(self.steps.get().saturating_sub(1));
        // In a document with an obstacle (a rewrite that could not keep the
        // meaning, say) the obstacle is why a reference fails: the
        // resolver's words would speak of the rewrite, not of the file.
        let failed = |place: &Place<'s>, why: String| {
            self.obstacle_of(place)
                .unwrap_or_else(|| self.stuck_at(place, "$ref", why))
        };
        let (w, r) = match (self.space.follow(writer), self.space.follow(reader)) {
            (Ok(w), Ok(r)) => (w, r),
            (Err(why), _) => return self.stuck(writer, reader, failed(writer, why)),
            (_, Err(why)) => return self.stuck(writer, reader, failed(reader, why)),
        };
        let key = (address(w.value), address(r.value));
        if let Some((_, seen)) = trail.iter().find(|(k, _)| *k == key) {
            if *seen < descents {
                return Ok(()); // met again inside the value: induction on its size
            }
            let why = "a schema that refers to itself without reading into the value".into();
            return self.stuck(&w, &r, self.stuck_at(&r, "$ref", why));
        }
        if let Err(stuck) = self.reach(&w).founded.and_then(|()| self.reach(&r).founded) {
            return self.stuck(&w, &r, stuck);
        }
        if self.equal(&w, &r).is_ok() {
            return Ok(());
        }
        if let Err(stuck) = self.obstacles(&w).and_then(|()| self.obstacles(&r)) {
            return self.stuck(&w, &r, stuck);
        }
        if let Some(values) = finite(&w, self.space.draft(&w)) {
            return self.finite(&w, &r, values);
        }
        trail.push((key, descents));
        let outcome = self.prove(&w, &r, depth, descents, trail);
        trail.pop();
        // The top pair's validators compile everything a proof below it
        // read, so one look here covers them all (the same validators the
        // search of a verdict puts values to).
        if depth == 0 && outcome.is_ok() {
            if let Some(stuck) = self.uncompiled(writer, reader) {
                return self.stuck(writer, reader, stuck);
            }
        }
        outcome
    }

    /// Where the validator refuses to compile the writer's or the reader's
    /// schema. A proof reads the keywords as written; a schema the
    /// validator refuses (an ill-typed keyword where no meta-schema looks,
    /// as in a `$defs` entry of draft 7) each validator reads its own way,
    /// so nothing holds for it.
    fn uncompiled(&self, writer: &Place<'s>, reader: &Place<'s>) -> Option<Stuck> {
        [writer, reader].into_iter().find_map(|place| {
            let (why, at) = self.space.uncompiled(place)?;
            let (schema, keyword) = self.keyword_at(&at);
            Some(self.stuck_at(
                &schema,
                &keyword,
                format!("the validator cannot compile the schema: {why}"),
            ))
        })
    }

    /// The schema object and the keyword of it that `place` stands in or
    /// below, walked from the document's root by the shapes of the
    /// keywords met (a member of `properties` named like a keyword is a
    /// member); `place` itself and `$ref` when it names no keyword.
    fn keyword_at<'p>(&self, place: &Place<'p>) -> (Place<'p>, String)
    where
        's: 'p,
    {
        /// What the next token names.
        #[derive(Clone, Copy, PartialEq)]
        enum Next {
            Keyword,
            Member,
        }
        let draft = self.space.draft(place);
        let mut found = None;
        if let Some(root) = self.space.place(place.doc, "") {
            let (mut value, mut at, mut next) = (root.value, String::new(), Next::Keyword);
            for raw in place.pointer.split('/').skip(1) {
                let token = contract::unescape_pointer_token(raw);
                let below = match value {
                    Value::Object(map) => map.get(&token),
                    Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                    _ => None,
                };
                let Some(below) = below else { break };
                if next == Next::Keyword {
                    found = Some((at.clone(), token.clone()));
                    next = match vocab::shape(draft, &token) {
                        Shape::Value => break,
                        Shape::Schema => Next::Keyword,
                        Shape::SchemaOrList if !below.is_array() => Next::Keyword,
                        _ => Next::Member,
                    };
                } else {
                    next = Next::Keyword;
                }
                at = format!("{at}/{raw}");
                value = below;
                if next == Next::Keyword && !value.is_object() {
                    break;
                }
            }
        }
        found
            .and_then(|(at, keyword)| Some((self.space.place(place.doc, &at)?, keyword)))
            .unwrap_or_else(|| (place.clone(), "$ref".into()))
    }

    /// The proofs that take the pair apart or need the keywords modelled:
    /// congruence, then the canonical form, then a search for a value.
    fn prove(
        &self,
        w: &Place<'s>,
        r: &Place<'s>,
        depth: usize,
        descents: usize,
        trail: &mut Trail,
    ) -> Outcome {
        // Below the top, a pair's outcome only answers a congruence proof
        // yes or no (`inside`): a value showing a break is looked for at the
        // top alone, where the report shows it.
        let top = depth == 0;
        if self.congruent(w, r, depth, descents, trail) {
            return Ok(());
        }
        let modelled = self.vocabulary(w).and_then(|()| self.vocabulary(r));
        if modelled.is_ok() {
            match self.covers(w, r) {
                Containment::Yes => return Ok(()),
                Containment::No if top => return Err(self.refused(w, r)),
                Containment::No => return Err(self.unshown(w, r)),
                Containment::Unknown => {}
            }
        }
        if top {
            if let Some(witness) = self.search(w, r, WITNESS_DRAWS) {
                return Err(self.shown(w, r, witness));
            }
        }
        let stuck = match modelled {
            Err(stuck) => stuck,
            Ok(()) => self.difference(w, r),
        };
        self.stuck(w, r, stuck)
    }

    fn stuck_at(&self, place: &Place<'_>, keyword: &str, why: String) -> Stuck {
        let (file, pointer) = self.space.describe(place);
        Stuck {
            keyword: keyword.into(),
            file,
            pointer,
            why,
        }
    }

    /// A break that is not shown: the prover could not decide.
    fn stuck(&self, writer: &Place<'_>, reader: &Place<'_>, stuck: Stuck) -> Outcome {
        let reason = format!(
            "cannot decide: {} at {}#{} ({}); counted as breaking",
            stuck.keyword, stuck.file, stuck.pointer, stuck.why
        );
        let kind = BreakKind::Undecided {
            keyword: stuck.keyword,
        };
        Err(Break::between(
            self.space, writer, reader, reason, None, kind,
        ))
    }

    /// A break shown by `witness`, which the writer accepts and the reader refuses.
    fn shown(&self, writer: &Place<'_>, reader: &Place<'_>, witness: Value) -> Box<Break> {
        let (path, why) = self
            .space
            .refusal(reader, &witness)
            .unwrap_or_else(|| (String::new(), "the reader refuses it".into()));
        let at = if path.is_empty() {
            String::new()
        } else {
            format!("at {path}: ")
        };
        let reason = format!("{at}{why}");
        let mut shown = Break::between(
            self.space,
            writer,
            reader,
            reason,
            Some(witness),
            BreakKind::Refused,
        );
        shown.path = path;
        shown
    }

    /// A break the canonical form proved; shown by a value when one is
    /// found, drawn from the difference the canonical form gives or from the
    /// writer.
    fn refused(&self, writer: &Place<'s>, reader: &Place<'s>) -> Box<Break> {
        let found = self
            .difference_witness(writer, reader)
            .or_else(|| self.search(writer, reader, WITNESS_DRAWS * 4));
        match found {
            Some(witness) => self.shown(writer, reader, witness),
            None => self.unshown(writer, reader),
        }
    }

    /// A break the canonical form proved, with no value to show it.
    fn unshown(&self, writer: &Place<'s>, reader: &Place<'s>) -> Box<Break> {
        let reason = "the writer allows values the reader refuses (proven; no example found)";
        Break::between(
            self.space,
            writer,
            reader,
            reason.into(),
            None,
            BreakKind::Refused,
        )
    }

    /// Values drawn from `writer` until one the writer accepts is refused by
    /// `reader`, as the validator says.
    pub fn search(&self, writer: &Place<'s>, reader: &Place<'s>, draws: usize) -> Option<Value> {
        self.scoped(writer, reader).ok()?;
        search(self.space, writer, reader, draws)
    }

    /// Whether the validator put to each place alone reads it as a value's
    /// check that comes there does (see [`Reach::scoped`]).
    fn scoped(&self, writer: &Place<'s>, reader: &Place<'s>) -> Result<(), Stuck> {
        self.reach(writer).scoped.and(self.reach(reader).scoped)
    }

    /// A value drawn from "what the writer accepts and the reader does not",
    /// as the canonical form writes it, confirmed by the validator.
    fn difference_witness(&self, writer: &Place<'s>, reader: &Place<'s>) -> Option<Value> {
        self.scoped(writer, reader).ok()?;
        let (w, r) = (self.canonical(writer)?, self.canonical(reader)?);
        let difference = w.subtract(&r).ok()?.to_json_schema();
        let uri = "https://difference.compat.invalid/schema.json";
        let registry = self
            .space
            .registry()
            .add(uri, difference)
            .ok()?
            .prepare()
            .ok()?;
        let (writes, reads) = (self.space.validator(writer)?, self.space.validator(reader)?);
        let mut sampler = sample::Sampler::new(&registry, 0xd1ff);
        (0..WITNESS_DRAWS)
            .filter_map(|_| sampler.draw(uri).ok())
            .find(|value| writes.is_valid(value) && !reads.is_valid(value))
    }

    /// Every value of a finite writer, put to the validator; where draft 4
    /// tells `1` from `1.0`, each written every way its numbers may be.
    fn finite(&self, writer: &Place<'s>, reader: &Place<'s>, values: Vec<&Value>) -> Outcome {
        if let Some(stuck) = self.uncompiled(writer, reader) {
            return self.stuck(writer, reader, stuck);
        }
        if let Err(stuck) = self.scoped(writer, reader) {
            return self.stuck(writer, reader, stuck);
        }
        let (Some(writes), Some(reads)) =
            (self.space.validator(writer), self.space.validator(reader))
        else {
            let stuck = self.stuck_at(
                reader,
                "$ref",
                "the validator cannot compile one of the two schemas".into(),
            );
            return self.stuck(writer, reader, stuck);
        };
        let refused = |value: &Value| writes.is_valid(value) && !reads.is_valid(value);
        let spelled = self.space.spelling_matters();
        for value in values {
            if refused(value) {
                return Err(self.shown(writer, reader, value.clone()));
            }
            if !spelled {
                continue;
            }
            let Some(spellings) = spellings(value) else {
                let why = format!(
                    "{SPELLING}; a value of it holds more than {MAX_SPELLED} such numbers to try \
                     each way"
                );
                return self.stuck(writer, reader, self.stuck_at(writer, "enum", why));
            };
            if let Some(value) = spellings.into_iter().find(|v| refused(v)) {
                return Err(self.shown(writer, reader, value));
            }
        }
        Ok(())
    }

    /// What the places reach, walked once each: a document with an obstacle
    /// or a reference that leads nowhere stops every proof but equality.
    fn obstacles(&self, place: &Place<'s>) -> Result<(), Stuck> {
        self.reach(place).obstacles
    }

    /// The obstacle of the document `place` stands in, if it has one.
    fn obstacle_of(&self, place: &Place<'s>) -> Option<Stuck> {
        let doc = self.space.doc(place.doc)?;
        let obstacle = doc.obstacle.as_ref()?;
        Some(Stuck {
            keyword: obstacle.keyword.clone(),
            file: crate::file_shown(&doc.rel).to_string(),
            pointer: obstacle.pointer.clone(),
            why: obstacle.why.clone(),
        })
    }

    /// Where a `$dynamicRef` at `place` leads, when every validator resolves
    /// it to the one place it names statically. The anchor it may mean is
    /// the name it spells, or, by pointer, the `$dynamicAnchor` of the
    /// schema it points to; when no schema of the view declares that
    /// anchor, or only that schema does, the dynamic scope finds nothing
    /// else whatever path a value takes. A fragment spelled otherwise
    /// (escaped) could mean any anchor.
    fn dynamic_target(&self, place: &Place<'s>, reference: &str) -> Result<Place<'s>, String> {
        let doc = self
            .space
            .doc(place.doc)
            .ok_or_else(|| "no such document".to_string())?;
        let anchors = self.anchors(doc.version, doc.role);
        let target = self.space.resolve(place, reference)?;
        let declared_there = target.value.get("$dynamicAnchor").and_then(Value::as_str);
        let fragment = reference.split_once('#').map_or("", |(_, f)| f);
        let (declared, name) = if fragment.is_empty() || fragment.starts_with('/') {
            let count = declared_there.map_or(0, |name| anchors.get(name).copied().unwrap_or(0));
            (count, declared_there)
        } else if is_anchor_name(fragment) {
            (anchors.get(fragment).copied().unwrap_or(0), Some(fragment))
        } else {
            (anchors.values().sum(), None)
        };
        match (declared, name) {
            (0, _) => Ok(target),
            (1, Some(name)) if declared_there == Some(name) => Ok(target),
            _ => Err(format!(
                "{declared} schemas of this version declare the dynamic anchor it may mean, so \
                 where it leads depends on the path a value takes"
            )),
        }
    }

    /// Every place a dynamic reference at `here` (`$dynamicRef`, or
    /// 2019-09's `$recursiveRef`) may lead to: the one place where it can
    /// lead to one only ([`Prover::dynamic_target`]), else its static target
    /// and every schema of the view that declares an anchor it may mean.
    fn dynamic_reach(
        &self,
        here: &Place<'s>,
        map: &Map<String, Value>,
        draft: Draft,
    ) -> Result<Vec<Place<'s>>, Stuck> {
        let mut targets = Vec::new();
        for key in ["$dynamicRef", "$recursiveRef"] {
            let Some(reference) = map.get(key).and_then(Value::as_str) else {
                continue;
            };
            if !validates_through(key, draft) {
                continue;
            }
            if key == "$dynamicRef" {
                if let Ok(target) = self.dynamic_target(here, reference) {
                    targets.push(target);
                    continue;
                }
            }
            // A reference that does not resolve stops the validator from
            // compiling the schema: no value is put to it.
            if let Ok(target) = self.space.resolve(here, reference) {
                targets.push(target);
            }
            let fragment = reference.split_once('#').map_or("", |(_, f)| f);
            for anchor in self.dynamic_anchors(here)?.iter() {
                let may = match (key, &anchor.name) {
                    ("$recursiveRef", _) => anchor.recursive,
                    (_, Some(name)) => !is_anchor_name(fragment) || name == fragment,
                    (_, None) => false,
                };
                if may {
                    targets.push(anchor.place.clone());
                }
            }
        }
        Ok(targets)
    }

    /// Why a dynamic reference at `here` (`$dynamicRef`, or 2019-09's
    /// `$recursiveRef`) may resolve by the resources a value's check
    /// passed on its way here: its anchor is declared elsewhere too (a
    /// `$recursiveAnchor: true` anywhere, for a `$recursiveRef`). `None`
    /// when it resolves to its one place however the check came.
    fn by_the_way_here(
        &self,
        here: &Place<'s>,
        map: &Map<String, Value>,
        draft: Draft,
    ) -> Result<Option<Stuck>, Stuck> {
        for key in ["$dynamicRef", "$recursiveRef"] {
            let Some(reference) = map.get(key) else {
                continue;
            };
            if !validates_through(key, draft) {
                continue;
            }
            let one_place = match (key, reference.as_str()) {
                ("$dynamicRef", Some(reference)) => self.dynamic_target(here, reference).is_ok(),
                ("$recursiveRef", Some(_)) => !self
                    .dynamic_anchors(here)?
                    .iter()
                    .any(|anchor| anchor.recursive),
                _ => false,
            };
            if !one_place {
                let why = "a dynamic reference that may mean an anchor of a resource a value's \
                           check passed through on its way here, which the validator put to \
                           this place alone does not see"
                    .into();
                return Ok(Some(self.stuck_at(here, key, why)));
            }
        }
        Ok(None)
    }

    /// The schemas of `place`'s view that declare a `$dynamicAnchor` or a
    /// `$recursiveAnchor: true`, found once per view.
    fn dynamic_anchors(&self, place: &Place<'s>) -> Result<DynamicAnchors<'s>, Stuck> {
        let Some(doc) = self.space.doc(place.doc) else {
            return Ok(Rc::new(Vec::new()));
        };
        let view = (doc.version, doc.role);
        if let Some(found) = self.dynamic_anchors.borrow().get(&view) {
            return Ok(Rc::clone(found));
        }
        let mut found = Vec::new();
        for id in self.space.view_docs(view.0, view.1) {
            let (Some(info), Some(root)) = (self.space.doc(id), self.space.root(id)) else {
                continue;
            };
            let Ok(positions) = vocab::positions(root, "", info.draft) else {
                let at = Place {
                    doc: id,
                    pointer: String::new(),
                    value: root,
                };
                let why = format!("schemas nest more than {} levels deep", vocab::MAX_NESTING);
                return Err(self.stuck_at(&at, "nesting", why));
            };
            for position in positions {
                let Value::Object(map) = position.value else {
                    continue;
                };
                let name = map
                    .get("$dynamicAnchor")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let recursive = map.get("$recursiveAnchor") == Some(&Value::Bool(true));
                if name.is_some() || recursive {
                    found.push(DynamicAnchor {
                        place: Place {
                            doc: id,
                            pointer: position.pointer,
                            value: position.value,
                        },
                        name,
                        recursive,
                    });
                }
            }
        }
        let found = Rc::new(found);
        self.dynamic_anchors
            .borrow_mut()
            .insert(view, Rc::clone(&found));
        Ok(found)
    }

    /// How many schemas of a view declare each `$dynamicAnchor` name,
    /// counted in every object of every document (more than the validator
    /// looks at, never fewer).
    fn anchors(&self, version: Version, role: Role) -> Rc<AnchorCounts> {
        if let Some(found) = self.anchors.borrow().get(&(version, role)) {
            return Rc::clone(found);
        }
        let mut counts = AnchorCounts::new();
        let mut stack: Vec<&Value> = self.space.view_roots(version, role);
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(name) = map.get("$dynamicAnchor") {
                        let name = name
                            .as_str()
                            .map_or_else(|| name.to_string(), str::to_string);
                        *counts.entry(name).or_default() += 1;
                    }
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        let counts = Rc::new(counts);
        self.anchors
            .borrow_mut()
            .insert((version, role), Rc::clone(&counts));
        counts
    }

    /// Whether a value may be put to the validator at `place`: nothing it
    /// reaches stops the proofs (a schema nested too deep, or one that comes
    /// back to itself without reading into the value, on which the
    /// validator may overflow its stack).
    pub fn may_validate(&self, place: &Place<'s>) -> bool {
        let reach = self.reach(place);
        reach.founded.is_ok() && reach.obstacles.is_ok() && reach.scoped.is_ok()
    }

    /// Whether every keyword a place reaches is modelled.
    fn vocabulary(&self, place: &Place<'s>) -> Result<(), Stuck> {
        self.reach(place).vocabulary
    }

    fn reach(&self, place: &Place<'s>) -> Reach {
        let key = (place.doc, place.pointer.clone());
        if let Some(found) = self.reach.borrow().get(&key) {
            return found.clone();
        }
        let found = self.walk(place);
        self.reach.borrow_mut().insert(key, found.clone());
        found
    }

    fn walk(&self, place: &Place<'s>) -> Reach {
        let mut unmodelled = Ok(());
        let mut scoped = Ok(());
        let mut queue = vec![place.clone()];
        let mut seen: HashSet<(DocId, String)> = HashSet::new();
        let mut walked = 0usize;
        // Each schema object reached, and the ones that apply to the same
        // value from it (`SAME_VALUE`), references resolved.
        let mut same_value: HashMap<(DocId, String), Vec<(DocId, String)>> = HashMap::new();
        let mut nesting = Nesting::default();
        while let Some(start) = queue.pop() {
            if !seen.insert((start.doc, start.pointer.clone())) {
                continue;
            }
            if self.space.doc(start.doc).is_none() {
                continue;
            }
            if let Some(stuck) = self.obstacle_of(&start) {
                return Reach::stopped(stuck);
            }
            let draft = self.space.draft(&start);
            let positions =
                match vocab::walk(start.value, &start.pointer, draft, vocab::Walk::InPlay) {
                    Ok(positions) => positions,
                    Err(_) => {
                        return Reach::stopped(self.stuck_at(
                            &start,
                            "nesting",
                            format!("schemas nest more than {} levels deep", vocab::MAX_NESTING),
                        ));
                    }
                };
            walked += positions.len();
            let from = nesting.node(&start);
            let own = positions.iter().map(|p| p.depth + 1).max().unwrap_or(1);
            if let Some(slot) = nesting.own.get_mut(from) {
                *slot = own;
            }
            if let Some(slot) = nesting.size.get_mut(from) {
                *slot = positions.len().max(1);
            }
            if walked > vocab::MAX_POSITIONS {
                return Reach::stopped(self.stuck_at(
                    place,
                    "size",
                    format!(
                        "the schemas reached hold more than {} subschemas",
                        vocab::MAX_POSITIONS
                    ),
                ));
            }
            for position in positions {
                let Value::Object(map) = position.value else {
                    continue;
                };
                let here = Place {
                    doc: start.doc,
                    pointer: position.pointer.clone(),
                    value: position.value,
                };
                let draft = vocab::draft_of(map, draft);
                let mut next = Vec::new();
                // The canonical form reads a reference with constraints
                // beside it, inside a resource embedded by an `$id`, as if
                // the identifier were not there (it proved compatible a
                // writer the validator refutes).
                if unmodelled.is_ok()
                    && map.contains_key("$ref")
                    && map.keys().any(|k| {
                        k != "$ref" && matches!(vocab::handling(draft, k), Handling::Modelled)
                    })
                    && self.space.based_elsewhere(&here)
                {
                    unmodelled = Err(self.stuck_at(
                        &here,
                        "$ref",
                        "a reference with constraints beside it inside an embedded resource, \
                         which the canonical form does not resolve against the resource"
                            .into(),
                    ));
                }
                for (key, value) in map {
                    if let Handling::CannotDecide(why) = vocab::handling(draft, key) {
                        if unmodelled.is_ok() {
                            unmodelled = Err(self.stuck_at(&here, key, why.into()));
                        }
                    }
                    // The canonical form reads `enum: [1]` as the integer
                    // alone, where draft 4's validator also takes `1.0`,
                    // which its `type: integer` refuses (it proved an
                    // integer reader takes every value of such an enum).
                    if unmodelled.is_ok()
                        && matches!(key.as_str(), "enum" | "const")
                        && vocab::handling(draft, key) == Handling::Modelled
                        && self.space.spelling_matters()
                        && holds_integral_number(value)
                    {
                        unmodelled = Err(self.stuck_at(&here, key, SPELLING.into()));
                    }
                    // The validator reads a list that names a member twice
                    // as asking for that many members (where no meta-schema
                    // looked: a `$defs` in draft 6), the canonical form as a
                    // set of names.
                    if unmodelled.is_ok()
                        && matches!(
                            key.as_str(),
                            "required" | "dependentRequired" | "dependencies"
                        )
                        && vocab::handling(draft, key) == Handling::Modelled
                        && (names_twice(Some(value))
                            || value
                                .as_object()
                                .is_some_and(|lists| lists.values().any(|v| names_twice(Some(v)))))
                    {
                        unmodelled = Err(self.stuck_at(&here, key, NAMED_TWICE.into()));
                    }
                    // The canonical form divides exactly; the validator
                    // divides by the double nearest a divisor past 2^53, and
                    // rounds the value too (it proved `multipleOf: 2`
                    // takes every multiple of 2^54, and 2^54 + 1 is one).
                    if unmodelled.is_ok()
                        && key == "multipleOf"
                        && vocab::handling(draft, key) == Handling::Modelled
                    {
                        // Where no meta-schema looked (a `$defs` entry in
                        // draft 7) a divisor may be no positive number: the
                        // validator then takes no number at all (0), where
                        // the canonical form proved `multipleOf: 0` takes
                        // every integer.
                        let unread = if !value.as_f64().is_some_and(|f| f > 0.0) {
                            Some(NOT_A_DIVISOR)
                        } else if past_exact_division(value) {
                            Some(ROUNDED_DIVISOR)
                        } else {
                            None
                        };
                        if let Some(why) = unread {
                            unmodelled = Err(self.stuck_at(&here, key, why.into()));
                        }
                    }
                    if SAME_VALUE.contains(&key.as_str()) {
                        for (suffix, _) in vocab::children(draft, key, value) {
                            next.push((start.doc, format!("{}{suffix}", here.pointer)));
                        }
                    }
                }
                // A dynamic reference is followed to every place it may
                // lead: no proof passes one that may lead to two, but the
                // validator does, and a cycle or a depth it meets there
                // must stop the search before a value is put to it.
                let dynamic = match self.dynamic_reach(&here, map, draft) {
                    Ok(targets) => targets,
                    Err(stuck) => return Reach::stopped(stuck),
                };
                if scoped.is_ok() {
                    scoped = match self.by_the_way_here(&here, map, draft) {
                        Ok(None) => Ok(()),
                        Ok(Some(stuck)) | Err(stuck) => Err(stuck),
                    };
                }
                for target in dynamic {
                    next.push((target.doc, target.pointer.clone()));
                    let to = nesting.node(&target);
                    if let Some(edges) = nesting.refs.get_mut(from) {
                        edges.push(to);
                    }
                    queue.push(target);
                }
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    match self.space.resolve(&here, reference) {
                        Ok(target) => {
                            next.push((target.doc, target.pointer.clone()));
                            let to = nesting.node(&target);
                            if let Some(edges) = nesting.refs.get_mut(from) {
                                edges.push(to);
                            }
                            queue.push(target);
                        }
                        Err(why) => return Reach::stopped(self.stuck_at(&here, "$ref", why)),
                    }
                }
                same_value.insert((start.doc, here.pointer), next);
            }
        }
        // The canonical form and the validator recurse into every schema
        // they reach, references included, so a chain of references deeper
        // than one document may nest would overflow the stack.
        let (levels, past, expanded) = nesting.deepest();
        // The validator enters a reference each time it meets it: ten
        // references to a schema holding ten references to another, a few
        // levels down, make every value's check exponential, and with it
        // every counterexample and search.
        if expanded > vocab::MAX_EXPANDED {
            let (file, pointer) = self.space.describe(place);
            return Reach {
                obstacles: Err(self.stuck_at(
                    place,
                    "$ref",
                    format!(
                        "the schemas reached from {file}#{pointer}, each reference followed \
                         where it stands, hold more than {} subschemas: checking one value \
                         against them takes as many steps",
                        vocab::MAX_EXPANDED
                    ),
                )),
                vocabulary: unmodelled,
                founded: self.founded(&same_value),
                scoped,
            };
        }
        if levels > vocab::MAX_NESTING {
            let at = past
                .and_then(|(doc, pointer)| self.space.place(*doc, pointer))
                .unwrap_or_else(|| place.clone());
            let (file, pointer) = self.space.describe(place);
            return Reach {
                obstacles: Err(self.stuck_at(
                    &at,
                    "$ref",
                    format!(
                        "the schemas reached from {file}#{pointer} nest {levels} levels deep \
                         through references, past the {} the prover follows by here",
                        vocab::MAX_NESTING
                    ),
                )),
                vocabulary: unmodelled,
                founded: self.founded(&same_value),
                scoped,
            };
        }
        Reach {
            obstacles: Ok(()),
            vocabulary: unmodelled,
            founded: self.founded(&same_value),
            scoped,
        }
    }

    /// `Err` naming a schema on a cycle of `same_value`, if there is one: a
    /// depth-first search that meets a schema still on its path.
    fn founded(
        &self,
        same_value: &HashMap<(DocId, String), Vec<(DocId, String)>>,
    ) -> Result<(), Stuck> {
        // 1: on the search's path; 2: done, no cycle through it.
        let mut state: HashMap<&(DocId, String), u8> = HashMap::new();
        for start in same_value.keys() {
            if state.contains_key(start) {
                continue;
            }
            state.insert(start, 1);
            let mut path = vec![(start, 0usize)];
            while let Some((node, next)) = path.last_mut() {
                let edges = same_value.get(*node).map_or(&[][..], Vec::as_slice);
                let Some(child) = edges.get(*next) else {
                    state.insert(*node, 2);
                    path.pop();
                    continue;
                };
                *next += 1;
                match state.get(child) {
                    Some(1) => {
                        let (doc, pointer) = child;
                        return Err(Stuck {
                            keyword: "$ref".into(),
                            file: self
                                .space
                                .doc(*doc)
                                .map(|d| crate::file_shown(&d.rel).to_string())
                                .unwrap_or_default(),
                            pointer: pointer.clone(),
                            why: "a reference cycle comes back to this schema without reading \
                                  into the value: its validation never ends, and validators \
                                  answer differently (this one by the path it came along)"
                                .into(),
                        });
                    }
                    Some(_) => {}
                    None => {
                        // Only schema objects have edges; a child that is
                        // not one (a boolean) ends there.
                        if let Some((key, _)) = same_value.get_key_value(child) {
                            state.insert(key, 1);
                            path.push((key, 0));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The canonical form's answer to "does `reader` accept all `writer` does".
    /// Kept per pair of places: many parts reach the same pair of types.
    fn covers(&self, writer: &Place<'s>, reader: &Place<'s>) -> Containment {
        let key = (
            (writer.doc, writer.pointer.clone()),
            (reader.doc, reader.pointer.clone()),
        );
        if let Some(found) = self.covered.borrow().get(&key) {
            return *found;
        }
        let found = match (self.canonical(writer), self.canonical(reader)) {
            (Some(w), Some(r)) => {
                crate::space::unless_it_panics(|| r.covers(&w).ok()).unwrap_or(Containment::Unknown)
            }
            _ => Containment::Unknown,
        };
        self.covered.borrow_mut().insert(key, found);
        found
    }

    fn canonical(&self, place: &Place<'s>) -> Option<Rc<CanonicalSchema>> {
        let key = (place.doc, place.pointer.clone());
        if let Some(found) = self.canonical.borrow().get(&key) {
            return found.clone();
        }
        let made = self
            .prepared(place.doc)
            .and_then(|doc| {
                crate::space::unless_it_panics(|| doc.canonicalize_at(&place.pointer).ok())
            })
            .map(Rc::new);
        self.canonical.borrow_mut().insert(key, made.clone());
        made
    }

    fn prepared(&self, doc: DocId) -> Option<Rc<PreparedDocument<'s>>> {
        if let Some(found) = self.prepared.borrow().get(&doc) {
            return found.clone();
        }
        let info = self.space.doc(doc)?;
        let root = self.space.root(doc)?;
        let prepared = crate::space::unless_it_panics(|| {
            jsonschema::canonical::options()
                .with_registry(self.space.registry())
                .with_base_uri(info.uri.clone())
                .should_validate_formats(self.space.options.formats == Formats::Assertion)
                .prepare(root)
                .ok()
        })
        .map(Rc::new);
        self.prepared.borrow_mut().insert(doc, prepared.clone());
        prepared
    }

    /// Whether two places are the same schema: equal keywords, references
    /// followed in step. `Err` names the first place they differ.
    fn equal(&self, a: &Place<'s>, b: &Place<'s>) -> Result<(), Stuck> {
        self.equal_in(a, b, Compare::Constraints)
    }

    /// [`Prover::equal`], comparing the keywords `compare` names.
    fn equal_in(&self, a: &Place<'s>, b: &Place<'s>, compare: Compare) -> Result<(), Stuck> {
        let mut stack = vec![(a.clone(), b.clone())];
        let mut assumed: HashSet<(usize, usize)> = HashSet::new();
        let mut budget = vocab::MAX_POSITIONS;
        while let Some((a, b)) = stack.pop() {
            budget = budget.checked_sub(1).ok_or_else(|| {
                self.stuck_at(&b, "size", "the schemas are too large to compare".into())
            })?;
            // Following a reference passes over the annotations beside it.
            if compare == Compare::Written && written_beside_ref(&a) != written_beside_ref(&b) {
                return Err(self.stuck_at(&b, "$ref", "what stands beside it changed".into()));
            }
            let (a, b) = match (self.space.follow(&a), self.space.follow(&b)) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Err(self.stuck_at(&b, "$ref", "a reference does not resolve".into())),
            };
            // A pair met again is the same cycle met again.
            if assumed.insert((address(a.value), address(b.value))) {
                self.equal_here(&a, &b, compare, &mut stack)?;
            }
        }
        Ok(())
    }

    /// One pair of [`Prover::equal`]: its keywords compared, its child
    /// pairs pushed.
    fn equal_here(
        &self,
        a: &Place<'s>,
        b: &Place<'s>,
        compare: Compare,
        stack: &mut Vec<(Place<'s>, Place<'s>)>,
    ) -> Result<(), Stuck> {
        let differ = |keyword: &str, why: &str| self.stuck_at(b, keyword, why.into());
        let (draft_a, draft_b) = (self.space.draft(a), self.space.draft(b));
        if draft_a != draft_b {
            return Err(differ("$schema", "the two are read in different drafts"));
        }
        let (ma, mb) =
            match (a.value, b.value) {
                (Value::Object(ma), Value::Object(mb)) => (ma, mb),
                (x, y) if x == y => return Ok(()),
                _ => return Err(differ(
                    "",
                    "one schema is a boolean and the other is not, or both are different booleans",
                )),
            };
        let (ka, kb) = (
            compared_keys(draft_a, ma, compare),
            compared_keys(draft_a, mb, compare),
        );
        if ka != kb {
            // The lists differ, so one key is in only one of them.
            let first = ka
                .iter()
                .chain(kb.iter())
                .find(|k| !(ka.contains(k) && kb.contains(k)))
                .cloned()
                .unwrap_or_default();
            return Err(differ(&first, "present on one side only"));
        }
        for key in kb {
            if let (Some(va), Some(vb)) = (ma.get(&key), mb.get(&key)) {
                self.equal_keyword(a, b, &key, [va, vb], stack)?;
            }
        }
        Ok(())
    }

    /// One keyword present on both sides of [`Prover::equal_here`]: equal
    /// values, or subschemas in the same places (pushed to be compared).
    fn equal_keyword(
        &self,
        a: &Place<'s>,
        b: &Place<'s>,
        key: &str,
        [va, vb]: [&'s Value; 2],
        stack: &mut Vec<(Place<'s>, Place<'s>)>,
    ) -> Result<(), Stuck> {
        let differ = |keyword: &str, why: &str| self.stuck_at(b, keyword, why.into());
        let (draft_a, draft_b) = (self.space.draft(a), self.space.draft(b));
        match (key, vocab::shape(draft_a, key)) {
            ("$dynamicRef", _) => match (va.as_str(), vb.as_str()) {
                (Some(ra), Some(rb)) => {
                    match (self.dynamic_target(a, ra), self.dynamic_target(b, rb)) {
                        (Ok(ta), Ok(tb)) => {
                            stack.push((ta, tb));
                            Ok(())
                        }
                        (Err(why), _) | (_, Err(why)) => Err(differ(key, &why)),
                    }
                }
                _ => Err(differ(key, "not a string")),
            },
            // Where it leads depends on the path a value takes.
            ("$recursiveRef", _) => Err(differ(key, "a dynamic reference")),
            ("$ref", _) => match (va.as_str(), vb.as_str()) {
                (Some(ra), Some(rb)) => {
                    match (self.space.resolve(a, ra), self.space.resolve(b, rb)) {
                        (Ok(ta), Ok(tb)) => {
                            stack.push((ta, tb));
                            Ok(())
                        }
                        _ => Err(differ("$ref", "a reference does not resolve")),
                    }
                }
                _ => Err(differ("$ref", "not a string")),
            },
            (_, Shape::Value) if va != vb => Err(differ(key, "changed")),
            (_, Shape::Value) => Ok(()),
            _ => {
                let (ca, cb) = (
                    vocab::children(draft_a, key, va),
                    vocab::children(draft_b, key, vb),
                );
                let tokens = |c: &Vec<(String, &Value)>| {
                    c.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>()
                };
                if tokens(&ca) != tokens(&cb)
                    || !same_non_schemas(vocab::shape(draft_a, key), va, vb)
                {
                    return Err(differ(key, "changed"));
                }
                for ((token, xa), (_, xb)) in ca.into_iter().zip(cb) {
                    stack.push((
                        Place {
                            doc: a.doc,
                            pointer: format!("{}{token}", a.pointer),
                            value: xa,
                        },
                        Place {
                            doc: b.doc,
                            pointer: format!("{}{token}", b.pointer),
                            value: xb,
                        },
                    ));
                }
                Ok(())
            }
        }
    }

    /// Whether two places are the same schema as written, annotations too
    /// (references followed), so nothing changed there to report.
    pub fn same(&self, a: &Place<'s>, b: &Place<'s>) -> bool {
        self.equal_in(a, b, Compare::Written).is_ok()
    }

    /// Whether the subschemas under `key` are the same on both sides, as
    /// `compare` says (references followed): as written, a change there is
    /// no change; in constraints, only what constrains nothing changed.
    pub fn same_under(&self, a: &Place<'s>, b: &Place<'s>, key: &str, compare: Compare) -> bool {
        let (draft_a, draft_b) = (self.space.draft(a), self.space.draft(b));
        let (Some(va), Some(vb)) = (a.value.get(key), b.value.get(key)) else {
            return false;
        };
        if compare == Compare::Written && va != vb {
            return false;
        }
        if key == "$ref" {
            return match (va.as_str(), vb.as_str()) {
                (Some(ra), Some(rb)) => {
                    match (self.space.resolve(a, ra), self.space.resolve(b, rb)) {
                        (Ok(ta), Ok(tb)) => self.equal_in(&ta, &tb, compare).is_ok(),
                        _ => false,
                    }
                }
                _ => false,
            };
        }
        if draft_a != draft_b
            || vocab::shape(draft_a, key) == vocab::Shape::Value
            || !same_non_schemas(vocab::shape(draft_a, key), va, vb)
        {
            return va == vb;
        }
        let (ca, cb) = (
            vocab::children(draft_a, key, va),
            vocab::children(draft_b, key, vb),
        );
        ca.len() == cb.len()
            && ca.into_iter().zip(cb).all(|((ta, xa), (tb, xb))| {
                ta == tb
                    && self
                        .equal_in(
                            &Place {
                                doc: a.doc,
                                pointer: format!("{}{ta}", a.pointer),
                                value: xa,
                            },
                            &Place {
                                doc: b.doc,
                                pointer: format!("{}{tb}", b.pointer),
                                value: xb,
                            },
                            compare,
                        )
                        .is_ok()
            })
    }

    /// The first place the two differ, as a reason not to decide. A
    /// tolerant reader's view lacks every `additionalProperties: false` the
    /// writer's has, which would always be that place: the reader is
    /// compared as written first, so the reason names what changed.
    fn difference(&self, writer: &Place<'s>, reader: &Place<'s>) -> Stuck {
        let as_written = self.space.doc(reader.doc).and_then(|doc| {
            let twin = self.space.find(doc.version, Role::Written, &doc.rel)?;
            self.space.place(twin, &reader.pointer)
        });
        let compared = match as_written {
            Some(twin) if self.equal(writer, &twin).is_err() => twin,
            _ => reader.clone(),
        };
        match self.equal(writer, &compared) {
            Err(mut stuck) => {
                if stuck.keyword.is_empty() {
                    stuck.keyword = "schema".into();
                }
                stuck.why = format!(
                    "the prover cannot show that every value the writer sends passes the reader here ({})",
                    stuck.why
                );
                stuck
            }
            Ok(()) => self.stuck_at(
                reader,
                "schema",
                "the prover cannot show that every value the writer sends passes".into(),
            ),
        }
    }
}

/// The keywords of `map` that equality judges: those the prover models or
/// cannot decide (annotations are left out), sorted.
/// What [`Prover::equal_in`] compares.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// The keywords that constrain values: the same values pass.
    Constraints,
    /// Every keyword but those that locate schemas: nothing a report could
    /// name changed.
    Written,
}

/// Whether a fragment is spelled as an anchor's name (`[A-Za-z_][-A-Za-z0-9._]*`).
fn is_anchor_name(fragment: &str) -> bool {
    let mut chars = fragment.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

fn compared_keys(draft: Draft, map: &Map<String, Value>, compare: Compare) -> Vec<String> {
    let mut keys: Vec<String> = map
        .keys()
        .filter(|k| match (vocab::handling(draft, k), compare) {
            (Handling::Modelled | Handling::CannotDecide(_), _) => true,
            (Handling::Structure, _) => false,
            (Handling::Annotation | Handling::Meaning(_), Compare::Written) => true,
            (Handling::Annotation | Handling::Meaning(_), Compare::Constraints) => false,
        })
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// The keywords beside a `$ref` that following it passes over (none where
/// the place has no `$ref`).
fn written_beside_ref<'v>(place: &Place<'v>) -> Vec<(&'v String, &'v Value)> {
    match place.value.as_object() {
        Some(map) if map.contains_key("$ref") => {
            map.iter().filter(|(k, _)| k.as_str() != "$ref").collect()
        }
        _ => Vec::new(),
    }
}

/// Why an `enum` or `const` of integral numbers is not read by the
/// canonical form where a document is in draft 4.
const SPELLING: &str = "in draft 4, `1` and `1.0` are one value to `enum` and `const` and two to \
                        `type: integer`, which the canonical form does not tell apart";

/// Most integral numbers one value of a finite writer may hold, each tried
/// written both ways (2^n values), where draft 4 tells them apart.
const MAX_SPELLED: usize = 8;

/// Why a list of names with one named twice is not read by the canonical form.
const NAMED_TWICE: &str = "a list of names holds one twice, which the validator reads as asking \
                           for that many members and the canonical form as one";

/// Whether `names` (a list of member names) holds one twice.
fn names_twice(names: Option<&Value>) -> bool {
    // A set, not a pairwise scan: a list may be as long as the file.
    let mut seen = HashSet::new();
    !contract::string_list(names)
        .into_iter()
        .all(|name| seen.insert(name))
}

/// Why a `multipleOf` past 2^53 is not read by the canonical form.
const ROUNDED_DIVISOR: &str = "the validator divides by the double nearest a divisor past 2^53, \
                               rounding the value too, where the canonical form divides exactly";

/// Why a `multipleOf` that is not a positive number is not read by the
/// canonical form.
const NOT_A_DIVISOR: &str = "a divisor that is not a positive number, which only a meta-schema \
                             refuses, and the validator and the canonical form read apart";

/// The largest divisor the validator divides by exactly: 2^53.
const EXACT_DIVISOR: u64 = 1 << 53;

/// Whether a `multipleOf` is past [`EXACT_DIVISOR`], where the validator
/// divides doubles.
fn past_exact_division(divisor: &Value) -> bool {
    match divisor.as_u64() {
        Some(whole) => whole > EXACT_DIVISOR,
        None => divisor
            .as_f64()
            .is_some_and(|f| f.abs() > EXACT_DIVISOR as f64),
    }
}

/// Whether `value` holds a number with no fraction, at any depth.
fn holds_integral_number(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// Every other way `value` is written with its integral numbers each
/// written as an integer or with a fraction (the value itself left out),
/// each made when asked for;
/// `None` past [`MAX_SPELLED`] such numbers.
fn spellings(value: &Value) -> Option<impl Iterator<Item = Value> + '_> {
    // The pointers of the numbers that have another spelling, and it.
    let mut found: Vec<(String, Value)> = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((at, value)) = stack.pop() {
        match value {
            Value::Number(n) => {
                if let Some(other) = sample::other_spelling(n) {
                    if found.len() == MAX_SPELLED {
                        return None;
                    }
                    found.push((at, other));
                }
            }
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (format!("{at}/{i}"), item)),
            ),
            Value::Object(map) => stack.extend(
                map.iter()
                    .map(|(k, v)| (format!("{at}/{}", contract::escape_pointer_token(k)), v)),
            ),
            _ => {}
        }
    }
    // Made one at a time as they are asked for: each is a whole copy of
    // a value the schema holds, however large.
    Some((1..(1_usize << found.len())).map(move |mask| {
        let mut variant = value.clone();
        for (bit, (at, other)) in found.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                if let Some(slot) = variant.pointer_mut(at) {
                    *slot = other.clone();
                }
            }
        }
        variant
    }))
}

/// The values of a writer that can only send a fixed list.
fn finite<'v>(place: &Place<'v>, draft: Draft) -> Option<Vec<&'v Value>> {
    let map = place.value.as_object()?;
    if vocab::handling(draft, "const") == Handling::Modelled {
        if let Some(value) = map.get("const") {
            return Some(vec![value]);
        }
    }
    map.get("enum")
        .and_then(Value::as_array)
        .map(|values| values.iter().collect())
}

/// Whether what a keyword holds besides its subschemas is the same on both
/// sides: the subschemas are compared one by one elsewhere, anything else
/// only by being equal (a list of names in `dependencies`; a member that is
/// no schema, as `properties: {"a": 0}` where no meta-schema looked, which
/// the validator refuses to compile). An entry on one side only is a
/// difference, whichever side holds it.
fn same_non_schemas(shape: Shape, a: &Value, b: &Value) -> bool {
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    let alike = |x: &Value, y: &Value| (is_schema(x) && is_schema(y)) || x == y;
    match (shape, a, b) {
        (Shape::List | Shape::SchemaOrList, Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| alike(x, y))
        }
        (Shape::Map | Shape::MapOfSchemasOrNames, Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| alike(x, y)))
        }
        (Shape::Schema | Shape::SchemaOrList, x, y) => alike(x, y),
        _ => a == b,
    }
}

fn address(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// The schemas a place reaches as a graph: each one a walk starts from (the
/// place, and every reference's target) with how many levels its own
/// subschemas nest, and the references it holds.
#[derive(Default)]
struct Nesting {
    /// By document and the schema's address.
    index: HashMap<(DocId, usize), usize>,
    own: Vec<usize>,
    /// How many subschemas each holds, itself included.
    size: Vec<usize>,
    refs: Vec<Vec<usize>>,
    keys: Vec<Key>,
}

impl Nesting {
    fn node(&mut self, place: &Place<'_>) -> usize {
        let next = self.own.len();
        *self
            .index
            .entry((place.doc, address(place.value)))
            .or_insert_with(|| {
                self.own.push(1);
                self.size.push(1);
                self.refs.push(Vec::new());
                self.keys.push((place.doc, place.pointer.clone()));
                next
            })
    }

    /// An upper bound on how deep a recursion through the schemas from the
    /// first node goes when it enters no reference target twice on its way
    /// down (the canonical form's rule; the validator enters one again only
    /// after reading into the value): the longest path, each strongly
    /// connected group of schemas counted as all its levels together. With
    /// where, on a deepest path, the levels first pass [`vocab::MAX_NESTING`].
    ///
    /// Also how many subschemas a validation from the first node can meet,
    /// each reference counted where it stands (a group's references among
    /// its own members count once: the validator enters them again only
    /// after reading into the value).
    ///
    /// Tarjan's algorithm, with an explicit stack: it closes each group
    /// after every group it reaches, so their bounds are known by then.
    fn deepest(&self) -> (usize, Option<&Key>, usize) {
        /// Tarjan's marks on one node; `group` is set when its group closes.
        #[derive(Clone, Copy)]
        struct Mark {
            order: usize,
            low: usize,
            open: bool,
            group: Option<usize>,
        }
        // No path is longer than all the levels together, and with no
        // reference met twice nothing is counted twice.
        let all = self.own.iter().fold(0usize, |a, &b| a.saturating_add(b));
        let once = self.size.iter().fold(0usize, |a, &b| a.saturating_add(b));
        let edges = self
            .refs
            .iter()
            .map(Vec::len)
            .fold(0usize, usize::saturating_add);
        if all <= vocab::MAX_NESTING && edges < self.own.len() {
            return (all, None, once);
        }
        let mut expanded: Vec<usize> = Vec::new();
        let mut marks: Vec<Option<Mark>> = vec![None; self.own.len()];
        let mut bound: Vec<usize> = Vec::new();
        let mut open = Vec::new();
        let mut calls: Vec<(usize, usize)> = Vec::new();
        let mut counter = 0usize;
        let mut start = |node: usize, marks: &mut Vec<Option<Mark>>| {
            counter += 1;
            if let Some(slot) = marks.get_mut(node) {
                *slot = Some(Mark {
                    order: counter,
                    low: counter,
                    open: true,
                    group: None,
                });
            }
        };
        start(0, &mut marks);
        open.push(0);
        calls.push((0, 0));
        while let Some((v, edge)) = calls.last_mut() {
            let v = *v;
            let edges = self.refs.get(v).map_or(&[][..], Vec::as_slice);
            if let Some(&w) = edges.get(*edge) {
                *edge += 1;
                match marks.get(w).copied().flatten() {
                    None => {
                        start(w, &mut marks);
                        open.push(w);
                        calls.push((w, 0));
                    }
                    Some(m) if m.open => {
                        if let Some(Some(mv)) = marks.get_mut(v) {
                            mv.low = mv.low.min(m.order);
                        }
                    }
                    Some(_) => {}
                }
                continue;
            }
            calls.pop();
            let Some(Some(mv)) = marks.get(v).copied() else {
                continue;
            };
            if let Some(&(parent, _)) = calls.last() {
                if let Some(Some(mp)) = marks.get_mut(parent) {
                    mp.low = mp.low.min(mv.low);
                }
            }
            if mv.low != mv.order {
                continue;
            }
            let id = bound.len();
            let mut members = Vec::new();
            while let Some(w) = open.pop() {
                if let Some(Some(m)) = marks.get_mut(w) {
                    m.open = false;
                    m.group = Some(id);
                }
                members.push(w);
                if w == v {
                    break;
                }
            }
            let group_of = |w: usize| marks.get(w).copied().flatten().and_then(|m| m.group);
            // Summed over the group's members, and over the groups its
            // references leave it for.
            let total = |per: &[usize]| {
                members
                    .iter()
                    .map(|&m| per.get(m).copied().unwrap_or(1))
                    .fold(0, usize::saturating_add)
            };
            let outside = |of: &[usize]| -> Vec<usize> {
                members
                    .iter()
                    .flat_map(|&m| self.refs.get(m).into_iter().flatten())
                    .filter_map(|&w| match group_of(w) {
                        Some(g) if g != id => of.get(g).copied(),
                        _ => None,
                    })
                    .collect()
            };
            let below = outside(&bound).into_iter().max().unwrap_or(0);
            let reached = outside(&expanded)
                .into_iter()
                .fold(0, usize::saturating_add);
            bound.push(total(&self.own).saturating_add(below));
            expanded.push(total(&self.size).saturating_add(reached));
        }
        let bound_of = |w: usize| {
            marks
                .get(w)
                .copied()
                .flatten()
                .and_then(|m| m.group)
                .and_then(|g| bound.get(g).copied())
                .unwrap_or(0)
        };
        // Down a deepest path, each step to the reference reaching deepest.
        let (mut node, mut sum) = (0, 0usize);
        let mut seen = HashSet::new();
        while seen.insert(node) {
            sum = sum.saturating_add(self.own.get(node).copied().unwrap_or(1));
            if sum > vocab::MAX_NESTING {
                break;
            }
            let next = self.refs.get(node).into_iter().flatten();
            match next.max_by_key(|&&w| bound_of(w)) {
                Some(&w) => node = w,
                None => break,
            }
        }
        let expanded_of_first = marks
            .first()
            .copied()
            .flatten()
            .and_then(|m| m.group)
            .and_then(|g| expanded.get(g).copied())
            .unwrap_or(0);
        (bound_of(0), self.keys.get(node), expanded_of_first)
    }
}

/// Where a congruence proof stands: how deep, and how often it has read
/// into the value (for the induction on its size).
#[derive(Clone, Copy)]
struct Depth {
    depth: usize,
    descents: usize,
}

/// Whether a child pair is of the same value or of a part of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The same value (`allOf`, `not`, conditions).
    Same,
    /// A part of it (a property, an item, a name).
    Into,
}

impl<'s> Prover<'s> {
    /// A child pair of a congruence proof, by the whole procedure.
    fn inside(
        &self,
        a: &Place<'s>,
        b: &Place<'s>,
        step: Step,
        at: Depth,
        trail: &mut Trail,
    ) -> bool {
        let descents = at.descents + usize::from(step == Step::Into);
        self.sub(a, b, at.depth + 1, descents, trail).is_ok()
    }

    /// Whether `writer ⊆ reader` follows from the parts: every constraint of
    /// the reader implied by one of the writer's, children by [`Prover::sub`].
    fn congruent(
        &self,
        w: &Place<'s>,
        r: &Place<'s>,
        depth: usize,
        descents: usize,
        trail: &mut Trail,
    ) -> bool {
        let at = Depth { depth, descents };
        let (Value::Object(mw), Value::Object(mr)) = (w.value, r.value) else {
            return r.value == &Value::Bool(true) || w.value == &Value::Bool(false);
        };
        let draft = self.space.draft(r);
        if self.space.draft(w) != draft {
            return false;
        }
        // A writer's `$ref` with keywords beside it (from 2019-09 on) takes
        // no more than its target: the target inside the reader is enough.
        // Otherwise the reader's keywords are put to the keywords beside it
        // and to the target, each on its own (`writer_parts`).
        if let Some(reference) = mw.get("$ref") {
            let target = reference
                .as_str()
                .and_then(|reference| self.space.resolve(w, reference).ok());
            match target {
                _ if draft <= Draft::Draft7 => return false,
                None => return false,
                Some(target) if self.inside(&target, r, Step::Same, at, trail) => return true,
                Some(_) => {}
            }
        }
        // A reader's `$ref` with keywords beside it (which `follow` keeps
        // where they apply, from 2019-09 on) takes what its target and the
        // keywords beside it both take: the writer inside each.
        let target = match mr.get("$ref") {
            None => None,
            Some(_) if draft <= Draft::Draft7 => return false,
            Some(reference) => match reference
                .as_str()
                .and_then(|reference| self.space.resolve(r, reference).ok())
            {
                Some(target) => Some(target),
                None => return false,
            },
        };
        // A writer's `anyOf`/`oneOf`: each branch on its own inside the reader
        // (the writer's other keywords only narrow a branch further).
        for union in ["anyOf", "oneOf"] {
            let branches = child_list(w, draft, union);
            if !branches.is_empty()
                && branches
                    .iter()
                    .all(|b| self.inside(b, r, Step::Same, at, trail))
            {
                return true;
            }
        }
        // A writer's `allOf`: one part inside the reader is enough.
        if child_list(w, draft, "allOf")
            .iter()
            .any(|part| self.inside(part, r, Step::Same, at, trail))
        {
            return true;
        }
        // A writer's condition that always holds (`if: true`) or never does
        // (`if: false`) applies the branch it takes; and `not: {not: X}`
        // is X. Each, inside the reader, is enough.
        let taken = match mw.get("if") {
            Some(Value::Bool(true)) => child(w, "then"),
            Some(Value::Bool(false)) => child(w, "else"),
            _ => None,
        }
        .filter(|_| draft >= Draft::Draft7 && draft != Draft::Unknown);
        let twice_negated = child(w, "not").and_then(|not| only_negates(&not));
        if [taken, twice_negated]
            .into_iter()
            .flatten()
            .any(|implied| self.inside(&implied, r, Step::Same, at, trail))
        {
            return true;
        }
        let mut parts = None;
        let beside = mr.keys().all(|key| match vocab::handling(draft, key) {
            Handling::Annotation | Handling::Structure | Handling::Meaning(_) => true,
            _ if key == "$ref" && target.is_some() => true,
            // Its meaning may hang on the keywords beside it: only whole
            // schemas that are equal prove anything (see `equal`).
            Handling::CannotDecide(_) => false,
            Handling::Modelled => {
                self.keyword(w, r, key, at, trail)
                    || parts
                        .get_or_insert_with(|| self.writer_parts(w, draft))
                        .iter()
                        .any(|part| self.keyword(part, r, key, at, trail))
            }
        });
        beside
            && target
                .as_ref()
                .is_none_or(|target| self.inside(w, target, Step::Same, at, trail))
    }

    /// The schemas every value of the writer passes besides the writer
    /// itself: its `allOf` parts and the target of a `$ref` beside other
    /// keywords (2019-09 on), theirs in turn, each past plain references.
    /// A reader keyword one of them implies holds for the writer too. Only
    /// ones read in the writer's draft, in documents without an obstacle,
    /// as [`Prover::keyword`] takes its writer (drafts up to 7, which
    /// ignore what stands beside a reference, always follow it).
    fn writer_parts(&self, w: &Place<'s>, draft: Draft) -> Vec<Place<'s>> {
        let implied = |place: &Place<'s>| {
            let mut out = child_list(place, draft, "allOf");
            let target = place
                .value
                .get("$ref")
                .and_then(Value::as_str)
                .filter(|_| draft > Draft::Draft7)
                .and_then(|reference| self.space.resolve(place, reference).ok());
            out.extend(target);
            out
        };
        let mut parts = Vec::new();
        let mut seen = HashSet::from([address(w.value)]);
        let mut todo = implied(w);
        while let Some(part) = todo.pop() {
            if parts.len() >= MAX_WRITER_PARTS {
                break;
            }
            let Ok(part) = self.space.follow(&part) else {
                continue;
            };
            let usable = part.value.is_object()
                && self.space.draft(&part) == draft
                && self.obstacles(&part).is_ok();
            if !usable || !seen.insert(address(part.value)) {
                continue;
            }
            todo.extend(implied(&part));
            parts.push(part);
        }
        parts
    }

    /// Whether no value of the writer `w` has a JSON type `other` admits
    /// (each says `type`; `integer` values are numbers too): then no value
    /// of the writer passes `other`, and every one passes `not: other`.
    fn of_other_types(&self, w: &Place<'s>, other: &Place<'s>) -> bool {
        let Ok(other) = self.space.follow(other) else {
            return false;
        };
        if self.obstacles(&other).is_err() {
            return false;
        }
        let types = |place: &Place<'s>| place.value.get("type").map(type_names).unwrap_or_default();
        let (mine, theirs) = (types(w), types(&other));
        let meet = |a: &str, b: &str| {
            a == b || matches!((a, b), ("integer", "number") | ("number", "integer"))
        };
        !mine.is_empty()
            && !theirs.is_empty()
            && !mine.iter().any(|a| theirs.iter().any(|b| meet(a, b)))
    }

    /// Whether the writer sends only the members it declares, and the
    /// validator finds each declared name valid under `names` (a reader's
    /// `propertyNames`).
    fn declared_names_pass(&self, w: &Place<'s>, names: &Place<'s>) -> bool {
        let Some(declared) = w.value.get("properties").and_then(Value::as_object) else {
            return false;
        };
        writer_sends_only_declared(w)
            && self.reach(names).scoped.is_ok()
            && self.space.validator(names).is_some_and(|validator| {
                declared
                    .keys()
                    .all(|name| validator.is_valid(&Value::String(name.clone())))
            })
    }

    /// One reader keyword, implied by the writer's?
    fn keyword(
        &self,
        w: &Place<'s>,
        r: &Place<'s>,
        key: &str,
        at: Depth,
        trail: &mut Trail,
    ) -> bool {
        let (Value::Object(mw), Value::Object(mr)) = (w.value, r.value) else {
            return false;
        };
        let draft = self.space.draft(r);
        // A keyword that judges values of one JSON type only passes every
        // value of the others: none of the writer's can meet it.
        if judged_type(key).is_some_and(|judged| {
            mw.get("type")
                .map(type_names)
                .is_some_and(|types| !types.is_empty() && !types.iter().any(|t| judged.contains(t)))
        }) {
            return true;
        }
        let same = mw.get(key) == mr.get(key);
        match key {
            "type" => types_within(mw.get("type"), mr.get("type")),
            "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
                bounds_within(mw, mr, draft)
            }
            "minLength" | "minItems" | "minProperties" | "minContains" => {
                count_at_least(mw.get(key), mr.get(key))
            }
            "maxLength" | "maxItems" | "maxProperties" => count_at_most(mw.get(key), mr.get(key)),
            "required" => {
                let have = contract::string_list(mw.get("required"));
                !names_twice(mr.get("required"))
                    && contract::string_list(mr.get("required"))
                        .iter()
                        .all(|n| have.contains(n))
            }
            "uniqueItems" => {
                mr.get(key) != Some(&Value::Bool(true)) || mw.get(key) == Some(&Value::Bool(true))
            }
            "multipleOf" => same || divides(mr.get(key), mw.get(key)),
            "format" => same || self.space.options.formats == Formats::Annotation,
            "pattern" => same || self.pattern_within(mw.get(key), mr.get(key)),
            "dependentRequired" => same || self.dependent_required_within(mw, mr),
            "enum" | "const" | "maxContains" => same,
            "allOf" => child_list(r, draft, "allOf")
                .iter()
                .all(|part| self.inside(w, part, Step::Same, at, trail)),
            "anyOf" => own_index_first(w, child_list(r, draft, "anyOf"))
                .iter()
                .any(|branch| self.inside(w, branch, Step::Same, at, trail)),
            "oneOf" => self.one_of(w, r, at, trail),
            "not" => match (child(w, "not"), child(r, "not")) {
                // not A ⊆ not B exactly when B ⊆ A; and not (not X) is X.
                (nw, Some(nr)) => {
                    nw.is_some_and(|nw| self.inside(&nr, &nw, Step::Same, at, trail))
                        || only_negates(&nr)
                            .is_some_and(|x| self.inside(w, &x, Step::Same, at, trail))
                        || self.of_other_types(w, &nr)
                }
                _ => false,
            },
            "if" | "then" | "else" => self.condition(w, r, at, trail),
            "dependentSchemas" | "dependencies" => self.dependencies(w, r, key, at, trail),
            "properties" | "patternProperties" | "additionalProperties" => {
                self.object(w, r, at, trail)
            }
            "items" | "prefixItems" | "additionalItems" => self.array(w, r, at, trail),
            "contains" => match (child(w, "contains"), child(r, "contains")) {
                // At least as many matches as the reader asks for (one when
                // unsaid), and no ceiling on the reader.
                (Some(cw), Some(cr)) => {
                    // A count the validator reads otherwise (none there is
                    // one) proves nothing.
                    let least = |m: &Map<String, Value>| match m.get("minContains") {
                        None => Some(1),
                        Some(count) => crate::numbers::count(count),
                    };
                    mr.get("maxContains").is_none()
                        && matches!((least(mw), least(mr)), (Some(w), Some(r)) if w >= r)
                        && self.inside(&cw, &cr, Step::Into, at, trail)
                }
                _ => false,
            },
            "propertyNames" => match (child(w, key), child(r, key)) {
                (nw, Some(nr)) => {
                    nw.is_some_and(|nw| self.inside(&nw, &nr, Step::Into, at, trail))
                        || self.declared_names_pass(w, &nr)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// A reader's `oneOf`: the writer inside one branch and provably apart
    /// from every other.
    fn one_of(&self, w: &Place<'s>, r: &Place<'s>, at: Depth, trail: &mut Trail) -> bool {
        let branches = own_index_first(w, child_list(r, self.space.draft(r), "oneOf"));
        branches.iter().enumerate().any(|(i, branch)| {
            self.inside(w, branch, Step::Same, at, trail)
                && branches
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .all(|(_, other)| self.disjoint(w, other))
        })
    }

    /// Whether no value passes both places, as the canonical form proves it
    /// or as their types show.
    fn disjoint(&self, a: &Place<'s>, b: &Place<'s>) -> bool {
        let (Ok(a), Ok(b)) = (self.space.follow(a), self.space.follow(b)) else {
            return false;
        };
        let modelled = |p: &Place<'s>| self.vocabulary(p).is_ok() && self.obstacles(p).is_ok();
        if modelled(&a) && modelled(&b) {
            if let (Some(x), Some(y)) = (self.canonical(&a), self.canonical(&b)) {
                if x.intersect(&y).is_ok_and(|both| {
                    both.satisfiability() == jsonschema::canonical::Satisfiability::No
                }) {
                    return true;
                }
            }
        }
        if let (Some(ta), Some(tb)) = (
            a.value.get("type").map(type_names),
            b.value.get("type").map(type_names),
        ) {
            let overlap = ta.iter().any(|t| {
                tb.contains(t)
                    || (*t == "integer" && tb.contains(&"number"))
                    || (*t == "number" && tb.contains(&"integer"))
            });
            if !overlap {
                return true;
            }
        }
        false
    }

    /// A reader's condition: the same condition on the writer, branch by
    /// branch; or a writer inside both branches.
    fn condition(&self, w: &Place<'s>, r: &Place<'s>, at: Depth, trail: &mut Trail) -> bool {
        // Without an `if` beside them, the reader's `then` and `else` apply
        // to nothing.
        if r.value.get("if").is_none() {
            return true;
        }
        let same_if = match (child(w, "if"), child(r, "if")) {
            (Some(iw), Some(ir)) => self.equal(&iw, &ir).is_ok(),
            (None, None) => true,
            _ => false,
        };
        let mut inside = |wb: Option<Place<'s>>, rb: Option<Place<'s>>| match (wb, rb) {
            (_, None) => true,
            (Some(x), Some(y)) => self.inside(&x, &y, Step::Same, at, trail),
            (None, Some(y)) => self.inside(w, &y, Step::Same, at, trail),
        };
        if same_if && r.value.get("if").is_some() {
            return inside(child(w, "then"), child(r, "then"))
                && inside(child(w, "else"), child(r, "else"));
        }
        [child(r, "then"), child(r, "else")]
            .into_iter()
            .flatten()
            .all(|rb| inside(None, Some(rb)))
    }

    fn dependencies(
        &self,
        w: &Place<'s>,
        r: &Place<'s>,
        key: &str,
        at: Depth,
        trail: &mut Trail,
    ) -> bool {
        let Some(Value::Object(deps)) = r.value.get(key) else {
            return true;
        };
        deps.iter().all(|(trigger, dependency)| {
            // A member the writer never has asks for nothing.
            if w.value
                .as_object()
                .is_some_and(|mw| self.never_has(mw, trigger))
            {
                return true;
            }
            if dependency.is_array() {
                if names_twice(Some(dependency)) {
                    return false;
                }
                let names = contract::string_list(Some(dependency));
                let have = contract::string_list(w.value.get("required"));
                let theirs = contract::string_list(w.value.get(key).and_then(|d| d.get(trigger)));
                return names.iter().all(|n| have.contains(n) || theirs.contains(n));
            }
            let Some(reader) = r.at_path(&[key, trigger]) else {
                return false;
            };
            match w
                .at_path(&[key, trigger])
                .filter(|own| !own.value.is_array())
            {
                Some(writer) => self.inside(&writer, &reader, Step::Same, at, trail),
                None => self.inside(w, &reader, Step::Same, at, trail),
            }
        })
    }

    /// Objects: each property name's schemas on the reader implied by the
    /// writer's, for every declared name, every shared pattern, and the rest.
    fn object(&self, w: &Place<'s>, r: &Place<'s>, at: Depth, trail: &mut Trail) -> bool {
        let patterns = |p: &Place<'s>| -> Vec<String> {
            // No `patternProperties`: no patterns.
            let mut keys: Vec<String> = p
                .value
                .get("patternProperties")
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            keys.sort();
            keys
        };
        // What each side says of a name neither side declares matters only
        // when the writer may send one and the reader asks something of it.
        let undeclared_free = writer_sends_only_declared(w) || reader_asks_nothing_more(r);
        if patterns(w) != patterns(r) && !undeclared_free {
            return false;
        }
        let mut names: Vec<String> = [w, r]
            .iter()
            .flat_map(|p| {
                p.value
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
            })
            .collect();
        names.sort();
        names.dedup();
        for name in &names {
            let (Some(ws), Some(rs)) = (self.schemas_for(w, name), self.schemas_for(r, name))
            else {
                return false;
            };
            for reader in &rs {
                let implied = if ws.is_empty() {
                    reader.value == &Value::Bool(true)
                } else {
                    ws.iter()
                        .any(|writer| self.inside(writer, reader, Step::Into, at, trail))
                };
                if !implied {
                    return false;
                }
            }
        }
        if undeclared_free {
            return true;
        }
        for pattern in patterns(r) {
            match (
                w.at_path(&["patternProperties", &pattern]),
                r.at_path(&["patternProperties", &pattern]),
            ) {
                (Some(x), Some(y)) if self.inside(&x, &y, Step::Into, at, trail) => {}
                _ => return false,
            }
        }
        match (
            child(w, "additionalProperties"),
            child(r, "additionalProperties"),
        ) {
            (_, None) => true,
            (Some(x), Some(y)) => self.inside(&x, &y, Step::Into, at, trail),
            (None, Some(y)) => y.value == &Value::Bool(true),
        }
    }

    /// The schemas that apply to property `name` of a place's objects (an
    /// empty list when anything goes); `None` when that cannot be told.
    fn schemas_for(&self, place: &Place<'s>, name: &str) -> Option<Vec<Place<'s>>> {
        let mut out: Vec<Place<'s>> = place.at_path(&["properties", name]).into_iter().collect();
        let mut matched = false;
        if let Some(Value::Object(patterns)) = place.value.get("patternProperties") {
            for pattern in patterns.keys() {
                if self.pattern_matches(pattern, name)? {
                    matched = true;
                    out.extend(place.at_path(&["patternProperties", pattern]));
                }
            }
        }
        if out.is_empty() && !matched {
            out.extend(child(place, "additionalProperties"));
        }
        Some(out)
    }

    /// Whether every string the writer's `pattern` matches, the reader's
    /// matches too: exact on the patterns `lint.pattern` passes (both as
    /// automata, `contract::Automaton::within`); any other pattern is not
    /// compared here.
    fn pattern_within(&self, writer: Option<&Value>, reader: Option<&Value>) -> bool {
        let automaton = |pattern: Option<&Value>| {
            let pattern = pattern.and_then(Value::as_str)?;
            if let Some(built) = self.automata.borrow().get(pattern) {
                return built.clone();
            }
            let built = contract::pattern_automaton(pattern).ok().map(Rc::new);
            self.automata
                .borrow_mut()
                .insert(pattern.to_string(), built.clone());
            built
        };
        match (automaton(writer), automaton(reader)) {
            (Some(writer), Some(reader)) => writer.within(&reader),
            _ => false,
        }
    }

    /// Each name the reader's `dependentRequired` asks for beside a member
    /// is one the writer requires, or asks for beside that member too, or
    /// the writer never has that member.
    fn dependent_required_within(&self, mw: &Map<String, Value>, mr: &Map<String, Value>) -> bool {
        let Some(Value::Object(wanted)) = mr.get("dependentRequired") else {
            return !mr.contains_key("dependentRequired");
        };
        let required = contract::string_list(mw.get("required"));
        wanted.iter().all(|(trigger, names)| {
            let beside =
                contract::string_list(mw.get("dependentRequired").and_then(|d| d.get(trigger)));
            self.never_has(mw, trigger)
                || !names_twice(Some(names))
                    && contract::string_list(Some(names))
                        .iter()
                        .all(|name| required.contains(name) || beside.contains(name))
        })
    }

    /// Whether an object the writer's schema object accepts never has the
    /// member `name`: its schema there is `false`, or the object is closed
    /// (`additionalProperties: false`) with `name` neither among its
    /// properties nor matched by one of its patterns.
    fn never_has(&self, mw: &Map<String, Value>, name: &str) -> bool {
        let properties = mw.get("properties").and_then(Value::as_object);
        if properties.and_then(|p| p.get(name)) == Some(&Value::Bool(false)) {
            return true;
        }
        mw.get("additionalProperties") == Some(&Value::Bool(false))
            && !properties.is_some_and(|p| p.contains_key(name))
            && mw
                .get("patternProperties")
                .and_then(Value::as_object)
                .is_none_or(|patterns| {
                    patterns
                        .keys()
                        .all(|pattern| self.pattern_matches(pattern, name) == Some(false))
                })
    }

    /// Whether `pattern` matches `name`, as the validator's regex engine says
    /// (`None`: it does not compile the pattern).
    fn pattern_matches(&self, pattern: &str, name: &str) -> Option<bool> {
        let key = (pattern.to_string(), name.to_string());
        if let Some(found) = self.matches.borrow().get(&key) {
            return *found;
        }
        let schema = serde_json::json!({ "patternProperties": { pattern: false } });
        let found = jsonschema::options()
            .build(&schema)
            .ok()
            .map(|validator| !validator.is_valid(&serde_json::json!({ name: null })));
        self.matches.borrow_mut().insert(key, found);
        found
    }

    /// Arrays: the writer's schema for each position inside the reader's.
    fn array(&self, w: &Place<'s>, r: &Place<'s>, at: Depth, trail: &mut Trail) -> bool {
        let (tw, rw) = positions_of(w, self.space.draft(w));
        let (tr, rr) = positions_of(r, self.space.draft(r));
        (0..=tw.len().max(tr.len())).all(|index| {
            let of = |tuple: &Vec<Place<'s>>, rest: &Option<Place<'s>>| {
                tuple.get(index).cloned().or_else(|| rest.clone())
            };
            match (of(&tw, &rw), of(&tr, &rr)) {
                (_, None) => true,
                (Some(x), Some(y)) => self.inside(&x, &y, Step::Into, at, trail),
                (None, Some(y)) => y.value == &Value::Bool(true),
            }
        })
    }
}

/// `(tuple, rest)`: the schemas of an array's leading positions and of the others.
fn positions_of<'s>(place: &Place<'s>, draft: Draft) -> (Vec<Place<'s>>, Option<Place<'s>>) {
    let (tuple_key, rest_key) = if draft <= Draft::Draft201909 {
        ("items", "additionalItems")
    } else {
        ("prefixItems", "items")
    };
    match place.value.get(tuple_key) {
        Some(Value::Array(_)) => (child_list(place, draft, tuple_key), child(place, rest_key)),
        _ if draft <= Draft::Draft201909 => (Vec::new(), child(place, "items")),
        _ => (Vec::new(), child(place, rest_key)),
    }
}

/// Whether every member of an object the place accepts is one its
/// `properties` declares: any other name meets `false`, in
/// `additionalProperties` and in each of `patternProperties`, as written.
fn writer_sends_only_declared(place: &Place<'_>) -> bool {
    place.value.get("additionalProperties") == Some(&Value::Bool(false))
        && place
            .value
            .get("patternProperties")
            .map_or(Some(true), |patterns| {
                patterns
                    .as_object()
                    .map(|patterns| patterns.values().all(|p| p == &Value::Bool(false)))
            })
            .unwrap_or(false)
}

/// Whether the place asks nothing of a member its `properties` does not
/// declare: no `patternProperties`, and `additionalProperties` absent or
/// `true`.
fn reader_asks_nothing_more(place: &Place<'_>) -> bool {
    !place
        .value
        .as_object()
        .is_some_and(|map| map.contains_key("patternProperties"))
        && matches!(
            place.value.get("additionalProperties"),
            None | Some(Value::Bool(true))
        )
}

/// X, for a place that is `{"not": X}` and nothing else.
fn only_negates<'s>(place: &Place<'s>) -> Option<Place<'s>> {
    place
        .value
        .as_object()
        .filter(|map| map.len() == 1)
        .and_then(|_| child(place, "not"))
}

/// The subschema under `key` (an object or a boolean).
fn child<'s>(place: &Place<'s>, key: &str) -> Option<Place<'s>> {
    place
        .at(key)
        .filter(|p| p.value.is_object() || p.value.is_boolean())
}

// No such keyword: no children.
/// A reader's union branches with the one at the writer's own index (the
/// last token of its pointer) first: a union compared with its next version
/// then matches each branch in one try, where trying them in order spends a
/// try on every earlier branch, and a wide union runs out of steps. The
/// order of the tries decides nothing else.
fn own_index_first<'s>(writer: &Place<'_>, mut branches: Vec<Place<'s>>) -> Vec<Place<'s>> {
    let last = |place: &Place<'_>| place.pointer.rsplit('/').next().map(str::to_owned);
    let own = last(writer);
    branches.sort_by_key(|branch| last(branch) != own);
    branches
}

fn child_list<'s>(place: &Place<'s>, draft: Draft, key: &str) -> Vec<Place<'s>> {
    place
        .value
        .get(key)
        .map(|value| {
            vocab::children(draft, key, value)
                .into_iter()
                .map(|(token, value)| Place {
                    doc: place.doc,
                    pointer: format!("{}{token}", place.pointer),
                    value,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn type_names(types: &Value) -> Vec<&str> {
    match types {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The `type` names of the values `key` judges, where it judges values of
/// one JSON type only and passes every other value.
fn judged_type(key: &str) -> Option<&'static [&'static str]> {
    const NUMBERS: &[&str] = &["number", "integer"];
    match key {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            Some(NUMBERS)
        }
        "minLength" | "maxLength" | "pattern" | "format" => Some(&["string"]),
        "items" | "prefixItems" | "additionalItems" | "minItems" | "maxItems" | "uniqueItems"
        | "contains" | "minContains" | "maxContains" => Some(&["array"]),
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "required"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies" => Some(&["object"]),
        _ => None,
    }
}

/// The writer's types all among the reader's (`integer` is a `number`).
fn types_within(writer: Option<&Value>, reader: Option<&Value>) -> bool {
    let Some(reader) = reader.map(type_names) else {
        return true;
    };
    let Some(writer) = writer.map(type_names) else {
        return false;
    };
    !writer.is_empty()
        && writer
            .iter()
            .all(|t| reader.contains(t) || (*t == "integer" && reader.contains(&"number")))
}

/// A count the writer never goes under is at least the reader's minimum.
fn count_at_least(writer: Option<&Value>, reader: Option<&Value>) -> bool {
    match (
        writer.and_then(crate::numbers::count),
        reader.and_then(crate::numbers::count),
    ) {
        (_, None) => reader.is_none(),
        (Some(w), Some(r)) => w >= r,
        (None, Some(r)) => r == 0,
    }
}

/// A count the writer never goes over is at most the reader's maximum.
fn count_at_most(writer: Option<&Value>, reader: Option<&Value>) -> bool {
    match (
        writer.and_then(crate::numbers::count),
        reader.and_then(crate::numbers::count),
    ) {
        (_, None) => reader.is_none(),
        (Some(w), Some(r)) => w <= r,
        (None, Some(_)) => false,
    }
}

/// The reader's `multipleOf` divides the writer's, both integers up to
/// 2^53. Past 2^53 the validator divides doubles (the divisor and the value
/// each rounded), where one divisor dividing another proves nothing.
fn divides(reader: Option<&Value>, writer: Option<&Value>) -> bool {
    match (
        reader.and_then(Value::as_u64),
        writer.and_then(Value::as_u64),
    ) {
        (Some(r), Some(w)) if r > 0 && r <= EXACT_DIVISOR && w <= EXACT_DIVISOR => w % r == 0,
        _ => false,
    }
}

/// The writer's numeric range inside the reader's, compared exactly.
fn bounds_within(w: &Map<String, Value>, r: &Map<String, Value>, draft: Draft) -> bool {
    let (wl, wh) = (
        crate::numbers::lower(w, draft),
        crate::numbers::upper(w, draft),
    );
    let (rl, rh) = (
        crate::numbers::lower(r, draft),
        crate::numbers::upper(r, draft),
    );
    let low_ok = match (wl, rl) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => crate::numbers::at_least(&a, &b),
    };
    let high_ok = match (wh, rh) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => crate::numbers::at_most(&a, &b),
    };
    low_ok && high_ok
}

/// Values drawn from `writer` (a place of `space`) until one the writer
/// accepts is refused by `reader`, as the validator says.
pub fn search(
    space: &Space<'_>,
    writer: &Place<'_>,
    reader: &Place<'_>,
    draws: usize,
) -> Option<Value> {
    let doc = space.doc(writer.doc)?;
    let at = location(&doc.uri, &writer.pointer);
    let (writes, reads) = (space.validator(writer)?, space.validator(reader)?);
    // Seeded by the place, so a report shows the same value every run.
    let seed = at.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut sampler = sample::Sampler::new(space.registry(), seed);
    let refused = |value: &Value| writes.is_valid(value) && !reads.is_valid(value);
    // A value is drawn as its schema writes it (`enum: [1]` gives `1`);
    // where draft 4 tells `1.0` from `1`, the other way is tried too.
    let spelled = space.spelling_matters();
    (0..draws)
        .filter_map(|_| sampler.draw(&at).ok())
        .find_map(|value| {
            if refused(&value) {
                return Some(value);
            }
            let other = spelled.then(|| sample::numbers_respelled(&value))?;
            refused(&other).then_some(other)
        })
}
