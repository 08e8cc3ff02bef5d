//! The state transitions a lane allows, as `--transitions` reads them.

use super::*;

/// The state transitions lanes allow (their decision, not the contract's):
/// a JSON object from each state to the states it may move to.
#[derive(Clone, Debug, Default)]
pub struct Transitions {
    allowed: HashSet<(String, String)>,
    /// The file the table was read from, where known: a move it lacks is
    /// told with the row to add it to.
    file: Option<String>,
}

impl Transitions {
    /// Reads `{"queued": ["probing", "paused", ...], ...}`; every state named,
    /// on either side, is one of `states` (the contract's `TaskState`), so a
    /// misspelt state is refused here rather than flooding the report.
    /// A refusal names the JSON pointer of what is wrong.
    pub fn parse(text: &str, states: &[&str]) -> Result<Self, String> {
        // Read as the schemas are: a state named twice is refused, where
        // serde_json would keep only its last row.
        let value = match contract::read_json(text).map_err(|err| format!("not JSON: {err}"))? {
            Ok(value) => value,
            Err(deep) => {
                return Err(format!(
                    "{}: nests too deep ({} levels)",
                    deep.pointer, deep.depth
                ))
            }
        };
        let map = value
            .as_object()
            .ok_or("a transition table is an object from a state to the states it may move to")?;
        let known = |state: &str, at: &contract::Pointer| {
            if states.contains(&state) {
                Ok(())
            } else {
                Err(format!(
                    "{at}: \"{state}\" is not a TaskState ({})",
                    states.join(", ")
                ))
            }
        };
        let mut allowed = HashSet::new();
        for (from, to) in map {
            let at = contract::Pointer::root().push(from);
            known(from, &at)?;
            let to = to
                .as_array()
                .ok_or_else(|| format!("{at}: a list of the states {from} may move to"))?;
            for (index, state) in to.iter().enumerate() {
                let at = at.push(index);
                let state = state
                    .as_str()
                    .ok_or_else(|| format!("{at}: states are strings"))?;
                known(state, &at)?;
                allowed.insert((from.clone(), state.to_string()));
            }
        }
        Ok(Transitions {
            allowed,
            file: None,
        })
    }

    /// The table, told as read from `file` when a move is not in it.
    #[must_use]
    pub fn read_from(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Where the moves from `from` are listed: the file, where known, and
    /// the row's JSON pointer (`conformance/traces/transitions.json#/running`).
    pub(super) fn row(&self, from: &str) -> String {
        let pointer = contract::Pointer::root().push(from);
        match &self.file {
            Some(file) => format!("{file}#{pointer}"),
            None => format!("the row at {pointer}"),
        }
    }

    /// [`Transitions::parse`] with the states of `checker`'s contract.
    pub fn parse_for(checker: &Checker, text: &str) -> Result<Self, String> {
        Self::parse(text, &states_of(checker))
    }

    /// The states of `checker`'s contract that no row names, as the state
    /// moved from or to: a trace can neither reach nor leave them.
    pub fn unnamed<'c>(&self, checker: &'c Checker) -> Vec<&'c str> {
        states_of(checker)
            .into_iter()
            .filter(|state| {
                !self
                    .allowed
                    .iter()
                    .any(|(from, to)| from == state || to == state)
            })
            .collect()
    }

    pub(super) fn allows(&self, from: &str, to: &str) -> bool {
        self.allowed.contains(&(from.to_string(), to.to_string()))
    }
}

/// The values of the contract's `TaskState`.
fn states_of(checker: &Checker) -> Vec<&str> {
    checker
        .schema_set()
        .get(contract::DocKind::Type, "TaskState")
        .and_then(|doc| doc.value.get("enum"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        // No TaskState enum: no state is one, and every row is refused.
        .unwrap_or_default()
}
