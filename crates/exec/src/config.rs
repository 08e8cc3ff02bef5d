//! The tool set an operator configures: which tools this machine runs, with
//! which argv, where, and for how long.
//!
//! These types describe `contracts/schema/config/ToolSet.json`, a contract
//! file like the others (a test checks that [`schema`] is exactly that
//! file); loading checks a file against that schema first, so every refusal names a JSON pointer, then
//! checks what a schema cannot say (unique names, an `inputSchema` that
//! compiles).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The deadline of a tool whose entry names none.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(120);

/// The longest deadline an entry may name (a day): past that a call is lost, not slow.
pub const MAX_DEADLINE_SECS: u64 = 86_400;

/// The tools this executor may run. Anything not listed is refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ToolSet", extend("x-since" = "1.0.0"))]
pub struct ToolSet {
    /// The tools, each with a name unique in the set.
    pub tools: Vec<Tool>,
}

/// One tool: a name callers use, and how this machine runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Tool {
    /// The name `tool.invoke` calls it by.
    #[schemars(length(min = 1, max = 128))]
    pub name: String,
    /// The argv, spawned directly: no shell, and the call's input never
    /// appears here (it goes to the tool's standard input).
    #[schemars(length(min = 1))]
    pub command: Vec<String>,
    /// The absolute directory the tool runs in (the executor's own when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Whether a call may name its own working directory (`tool.invoke`'s `cwd`).
    #[serde(default)]
    pub subject_cwd: bool,
    /// A JSON Schema the call's input must pass before the tool runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Names of the executor's environment variables passed through to the
    /// tool, beside the default allow-list (PATH, LANG, LC_ALL, HOME, TZ).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Seconds the whole call may take, capture included (120 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 86_400))]
    pub deadline_secs: Option<u64>,
}

impl Tool {
    /// How long one call of the tool may take: `deadlineSecs`, else 120 s.
    pub fn deadline(&self) -> Duration {
        self.deadline_secs
            .map_or(DEFAULT_DEADLINE, Duration::from_secs)
    }
}

/// A tool set that could not be loaded: where, and why. Shown with what
/// came from the file (a member name in the pointer, a schema quoted by
/// the validator) escaped, so it is one line that says only what it says;
/// the fields keep it as it is.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}#{}: {}",
    proto::wire::printable(&.file.display().to_string()),
    proto::wire::printable(.pointer),
    proto::wire::printable(.reason)
)]
pub struct ConfigError {
    /// The tool-set file.
    pub file: PathBuf,
    /// JSON pointer to the offending place (empty for the whole file).
    pub pointer: String,
    /// What is wrong there.
    pub reason: String,
}

/// The schema of the tool-set file, from these types (equal to
/// `contracts/schema/config/ToolSet.json`).
pub fn schema() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<ToolSet>()
        .to_value();
    if let Value::Object(map) = &mut schema {
        map.insert(
            "$id".into(),
            Value::String("https://schemas.vdm.invalid/config/ToolSet.json".into()),
        );
    }
    schema
}

/// A loaded tool set, with each input schema compiled once.
#[derive(Debug)]
pub struct Loaded {
    /// The tools as the file gives them.
    pub set: ToolSet,
    validators: BTreeMap<String, jsonschema::Validator>,
}

impl Loaded {
    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.set.tools.iter().find(|tool| tool.name == name)
    }

    /// The compiled `inputSchema` of a tool, if it has one.
    pub fn input_validator(&self, name: &str) -> Option<&jsonschema::Validator> {
        self.validators.get(name)
    }
}

/// The largest tool-set file [`load`] reads: far above any set written by
/// hand, and a bound on what a wrong path (a device such as `/dev/zero`,
/// a log) costs before it is refused.
pub const MAX_FILE: u64 = 16 << 20;

/// Reads and checks a tool-set file.
pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
    let error = |pointer: &str, reason: String| ConfigError {
        file: path.to_path_buf(),
        pointer: pointer.into(),
        reason,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE + 1).read_to_end(&mut bytes))
        .map_err(|err| error("", format!("cannot read: {err}")))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(error(
            "",
            format!(
                "larger than {} MiB, far more than any tool set: is it the right file?",
                MAX_FILE >> 20
            ),
        ));
    }
    if let Some(told) = proto::text::wide_text(&bytes) {
        return Err(error(
            "",
            format!(
                "not JSON: the file is {}, not UTF-8 ({}); save it as UTF-8",
                told.name, told.why
            ),
        ));
    }
    // Bytes that are not UTF-8 are named where they stand, by the policy
    // `parse` holds too.
    proto::text::check(&bytes).map_err(|err| error("", format!("not JSON: {err}")))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|err| error("", format!("not UTF-8 at byte {}", err.valid_up_to())))?;
    parse(path, text)
}

/// Checks a tool set given as text; `path` only names it in errors.
pub fn parse(path: &Path, text: &str) -> Result<Loaded, ConfigError> {
    let error = |pointer: String, reason: String| ConfigError {
        file: path.to_path_buf(),
        pointer,
        reason,
    };
    // The wire's JSON text policy holds here too: a member named twice
    // would let a reviewer read one command while the executor runs the
    // other (serde keeps the last).
    proto::text::check(text.as_bytes())
        .map_err(|err| error(String::new(), format!("not JSON: {err}")))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|err| error(String::new(), format!("not JSON: {err}")))?;
    let validator = jsonschema::validator_for(&schema()).map_err(|err| {
        error(
            String::new(),
            format!("the tool-set schema does not compile: {err}"),
        )
    })?;
    if let Some(first) = validator.iter_errors(&value).next() {
        let pointer = first.instance_path().as_str().to_string();
        let reason = match first.kind() {
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                format!("unknown field(s) {}: a tool-set file has only the fields of contracts/schema/config/ToolSet.json", unexpected.join(", "))
            }
            _ => first.to_string(),
        };
        return Err(error(pointer, reason));
    }
    let set: ToolSet =
        serde_json::from_value(value).map_err(|err| error(String::new(), err.to_string()))?;
    let mut validators = BTreeMap::new();
    for (index, tool) in set.tools.iter().enumerate() {
        let at = |field: &str| format!("/tools/{index}/{field}");
        if let Some(first) = set
            .tools
            .iter()
            .position(|other| other.name == tool.name)
            .filter(|first| *first != index)
        {
            return Err(error(
                at("name"),
                format!(
                    "the name {:?} is already used by /tools/{first}; names must be unique",
                    tool.name
                ),
            ));
        }
        if tool
            .command
            .first()
            .is_none_or(|program| program.is_empty())
        {
            return Err(error(
                at("command"),
                "the argv is empty: give at least the program to run".into(),
            ));
        }
        if let Some(cwd) = &tool.cwd {
            if !cwd.is_absolute() {
                return Err(error(
                    at("cwd"),
                    format!("{:?} is relative; it would resolve against wherever the executor was started, so give an absolute path", cwd.display().to_string()),
                ));
            }
        }
        // A name no variable can have passes nothing, silently: `TOKEN=abc`
        // reads as a value set here, which the file cannot do.
        for (item, name) in tool.env.iter().enumerate() {
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(error(
                    format!("{}/{item}", at("env")),
                    format!(
                        "{:?} is no variable name: env names variables of the executor's own environment to pass through (no `=`, no NUL); a value cannot be set here",
                        proto::wire::shortened(name, 200)
                    ),
                ));
            }
        }
        if tool.deadline_secs == Some(0) {
            return Err(error(
                at("deadlineSecs"),
                "a deadline of 0 seconds would refuse every call; give at least 1".into(),
            ));
        }
        if let Some(input_schema) = &tool.input_schema {
            // The `regex` engine matches in time linear in the input. The
            // default one backtracks where a pattern has a back-reference or
            // a lookaround, bounded only per match: under `not` and
            // `^(a|a)+\1$`, a call of 2,000 strings of 18 characters (44 KB)
            // took 31 s, and a frame holds 20 times as many. A pattern only
            // the backtracking engine reads is refused here, when the
            // operator loads the file.
            //
            // Formats are asserted, as every other validator here asserts
            // them, and a format no validator knows is refused: read as an
            // annotation, a typo in one would let every input through.
            let compiled = jsonschema::options()
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .should_validate_formats(true)
                .should_ignore_unknown_formats(false)
                .build(input_schema)
                .map_err(|err| {
                    let (inside, reason) = input_schema_refusal(input_schema, &err);
                    error(format!("{}{inside}", at("inputSchema")), reason)
                })?;
            if let Some((inside, why)) = crate::keywords::asks_nothing(input_schema) {
                return Err(error(format!("{}{inside}", at("inputSchema")), why));
            }
            validators.insert(tool.name.clone(), compiled);
        }
    }
    Ok(Loaded { set, validators })
}

/// Where inside an `inputSchema` it fails to compile (a JSON pointer, empty
/// for the whole), and why, in the operator's words rather than the
/// validator's. The schema is the operator's, not a caller's, so it may be
/// quoted.
fn input_schema_refusal(schema: &Value, err: &jsonschema::ValidationError) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as Kind;
    use jsonschema::ReferencingError as Referencing;
    let inside = err.instance_path().as_str().to_string();
    let quoted = || {
        schema
            .pointer(&inside)
            .map(Value::to_string)
            .unwrap_or_default()
    };
    let reason = match err.kind() {
        Kind::Format { format } if format == "regex" => format!(
            "the pattern {} is not a regular expression the executor reads: it matches in linear time, so a back-reference or a lookaround is refused too (one call could otherwise hold the executor for minutes)",
            // The pattern itself: under `patternProperties` the place is
            // its key, not a value.
            err.instance()
        ),
        // The validator's only refusal of a `format` keyword while it
        // compiles: a name it does not know.
        Kind::Custom { .. }
            if inside.ends_with("/format")
                && schema.pointer(&inside).is_some_and(Value::is_string) =>
        {
            format!(
            "the format {} is none the executor knows, and formats are checked, not ignored: check its spelling (\"date-time\", \"email\", \"uri\", \"uuid\", …)",
            quoted()
        )
        }
        Kind::Referencing(Referencing::Unretrievable { uri, .. }) => format!(
            "refers to {uri:?}, which the executor never fetches: put that schema in this one (under \"$defs\") and refer to it there"
        ),
        Kind::Referencing(Referencing::UnknownSpecification { specification }) => format!(
            "\"$schema\" names {specification:?}, a dialect the executor does not know: give draft 2020-12, 2019-09, 7, 6 or 4"
        ),
        Kind::Referencing(
            Referencing::PointerToNowhere { .. }
            | Referencing::NoSuchAnchor { .. }
            | Referencing::InvalidAnchor { .. }
            | Referencing::InvalidArrayIndex { .. },
        ) => format!("a reference leads nowhere: {err}"),
        _ => format!("is not a JSON Schema: {err}"),
    };
    (
        inside,
        proto::wire::shortened(&reason, proto::wire::SENTENCE_CHARS).into_owned(),
    )
}
