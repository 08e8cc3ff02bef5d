//! `cargo xtask compat`: which changes the working tree makes over the latest
//! release (or between any two versions, folders or files), whether each
//! holds for new writer → old reader (W) and old writer → new reader (R), and
//! whether `contracts/VERSION` is bumped enough. It also replays the old
//! release's valid fixtures against the new schemas and the new fixtures
//! against the old ones, and calls any disagreement with its own verdict a
//! checker bug.

use std::path::{Path, PathBuf};

use anyhow::bail;
use compat::{Comparison, Formats, Options, Readers, Verdict};
use contract::{DeepDocuments, SchemaSet};
use serde_json::{json, Value};

/// Exit status of a compat run: 0 fine, 1 not (2 is usage, from main).
pub struct Outcome {
    pub ok: bool,
    /// The failure is this checker's own (a verdict a fixture or a drawn
    /// value contradicts), not a change the declared version does not cover.
    pub checker_defect: bool,
}

enum Side {
    Set {
        schemas: PathBuf,
        fixtures: Option<PathBuf>,
        label: String,
    },
    File(PathBuf),
}

fn side(root: &Path, spec: &str) -> anyhow::Result<Side> {
    // A release is named by its folder's name alone: `..` or `a/b` is a
    // path, read from the current folder, never one relative to the releases.
    let one_name = matches!(
        Path::new(spec).components().collect::<Vec<_>>().as_slice(),
        [std::path::Component::Normal(_)]
    );
    let released = root.join("contracts/released").join(spec);
    if one_name && released.join("schema").is_dir() {
        return Ok(Side::Set {
            schemas: released.join("schema"),
            fixtures: Some(released.join("valid")),
            label: spec.to_string(),
        });
    }
    let path = PathBuf::from(spec);
    let path = if path.is_absolute() {
        path
    } else {
        std::env::current_dir()?.join(path)
    };
    if path.is_file() {
        return Ok(Side::File(path));
    }
    if path.is_dir() {
        let schemas = if path.join("schema").is_dir() {
            path.join("schema")
        } else {
            path.clone()
        };
        let fixtures = path.join("valid").is_dir().then(|| path.join("valid"));
        return Ok(Side::Set {
            schemas,
            fixtures,
            label: spec.to_string(),
        });
    }
    let released: Vec<String> = crate::contracts::releases(root)?
        .into_iter()
        .map(|(version, _)| version)
        .collect();
    bail!(
        "{spec:?} is neither a released version (contracts/released/<version>: {}), a folder, nor a schema file",
        if released.is_empty() {
            "none yet".to_string()
        } else {
            released.join(", ")
        }
    )
}

/// How the report is written.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Json,
    Markdown,
    Github,
    Sarif,
}

/// How readers read fields they do not know.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReadersArg {
    Tolerant,
    Strict,
}

/// How `format` is read.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatsArg {
    Assertion,
    Annotation,
}

/// What one run compares, read from the command line.
#[derive(clap::Parser)]
#[command(
    name = "cargo xtask compat",
    about = "The changes between two versions of the contract, W/R/API verdicts, and the bump they need"
)]
struct Request {
    /// The old side: a released version, a folder or a schema file (default: the latest release).
    #[arg(long, value_name = "V|DIR|FILE", conflicts_with = "all_releases")]
    from: Option<String>,
    /// The new side (default: the working tree).
    #[arg(long, value_name = "V|DIR|FILE")]
    to: Option<String>,
    /// Compare with every release in turn.
    #[arg(long = "against-all-releases")]
    all_releases: bool,
    /// How readers read a field they do not know.
    #[arg(long, value_enum, default_value = "tolerant")]
    readers: ReadersArg,
    /// The same as `--readers strict`.
    #[arg(long = "strict-readers")]
    strict_readers: bool,
    /// How `format` is read: as this project's validators read it (assertion) or as 2020-12 does by default.
    #[arg(long, value_enum, default_value = "assertion")]
    formats: FormatsArg,
    /// How the report is written.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Values drawn from each writer whose direction is called compatible, to
    /// refute the verdict (a refuted verdict is reported as a checker defect); 0 for none.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEARCH)]
    search: usize,
}

/// The search the gate runs: a small check of every "compatible".
pub const DEFAULT_SEARCH: usize = 64;

impl Request {
    fn options(&self) -> Options {
        Options {
            readers: if self.strict_readers || self.readers == ReadersArg::Strict {
                Readers::Strict
            } else {
                Readers::Tolerant
            },
            formats: match self.formats {
                FormatsArg::Assertion => Formats::Assertion,
                FormatsArg::Annotation => Formats::Annotation,
            },
            search: self.search,
        }
    }
}

/// The request, or `None` when the arguments asked for help (printed here).
fn request(args: &[&str]) -> anyhow::Result<Option<Request>> {
    use clap::Parser;
    match Request::try_parse_from(std::iter::once("cargo xtask compat").chain(args.iter().copied()))
    {
        Ok(request) => Ok(Some(request)),
        Err(err) if !err.use_stderr() => {
            say!("{err}");
            Ok(None)
        }
        // clap's text starts with its own "error: "; main adds one.
        Err(err) => Err(anyhow::anyhow!(
            "{}",
            err.to_string().trim_start_matches("error: ").trim_end()
        )),
    }
}

pub fn run(root: &Path, args: &[&str]) -> anyhow::Result<Outcome> {
    let Some(request) = request(args)? else {
        return Ok(Outcome {
            ok: true,
            checker_defect: false,
        });
    };
    if !request.all_releases {
        return run_one(root, &request, request.from.clone(), &mut None);
    }
    let (mut ok, mut checker_defect) = (true, false);
    let releases = crate::contracts::releases(root)?;
    if releases.is_empty() {
        tell!("compat: no release yet (contracts/released/ is empty); nothing to compare with");
    }
    // One document for the lot in the formats programs read: one after
    // another would be no JSON document, and no SARIF file an upload takes.
    let mut documents = matches!(request.format, Format::Json | Format::Sarif).then(Vec::new);
    for (version, _) in releases {
        match run_one(root, &request, Some(version), &mut documents) {
            Ok(outcome) => {
                ok &= outcome.ok;
                checker_defect |= outcome.checker_defect;
            }
            Err(err) => {
                write_documents(request.format, documents)?;
                return Err(err);
            }
        }
    }
    write_documents(request.format, documents)?;
    Ok(Outcome { ok, checker_defect })
}

/// Reports of `--against-all-releases` in a format programs read, one a
/// release, as one document: a JSON array, or one SARIF log of one run a
/// release (each run its own category, `vdm-compat/VERSION`: code scanning
/// refuses two runs of one tool and category in one upload).
type Documents = Option<Vec<(String, Value)>>;

fn write_documents(format: Format, documents: Documents) -> anyhow::Result<()> {
    if let Some(documents) = documents {
        sayln!(
            "{}",
            serde_json::to_string_pretty(&combined(format, documents))?
        );
    }
    Ok(())
}

/// The one document [`write_documents`] writes.
fn combined(format: Format, documents: Vec<(String, Value)>) -> Value {
    match format {
        Format::Sarif => compat::report::sarif_log(
            documents
                .into_iter()
                .flat_map(|(from, mut log)| {
                    let mut runs = match log.get_mut("runs").map(Value::take) {
                        Some(Value::Array(runs)) => runs,
                        _ => Vec::new(),
                    };
                    for run in &mut runs {
                        if let Value::Object(run) = run {
                            run.insert(
                                "automationDetails".into(),
                                json!({"id": format!("vdm-compat/{from}/")}),
                            );
                        }
                    }
                    runs
                })
                .collect(),
        ),
        _ => Value::Array(documents.into_iter().map(|(_, value)| value).collect()),
    }
}

/// Prints a report of a format programs read, or keeps it for
/// [`write_documents`].
fn emit(documents: &mut Documents, from: &str, value: Value) -> anyhow::Result<()> {
    match documents {
        Some(kept) => kept.push((from.to_string(), value)),
        None => sayln!("{}", serde_json::to_string_pretty(&value)?),
    }
    Ok(())
}

fn run_one(
    root: &Path,
    request: &Request,
    from: Option<String>,
    documents: &mut Documents,
) -> anyhow::Result<Outcome> {
    let (to, all_releases) = (&request.to, request.all_releases);
    let options = request.options();
    let latest = crate::contracts::latest(root)?;
    // VERSION is judged against the release compared with: the latest one,
    // or each one in turn.
    let defaults = to.is_none() && (from.is_none() || all_releases);
    let old = match &from {
        Some(spec) => side(root, spec)?,
        None => match &latest {
            Some((version, dir)) => Side::Set {
                schemas: dir.join("schema"),
                fixtures: Some(dir.join("valid")),
                label: version.clone(),
            },
            None => {
                sayln!("compat: no release yet (contracts/released/ is empty); nothing to compare with");
                return Ok(Outcome {
                    ok: true,
                    checker_defect: false,
                });
            }
        },
    };
    let new = match &to {
        Some(spec) => side(root, spec)?,
        None => Side::Set {
            schemas: root.join("contracts/schema"),
            fixtures: Some(root.join("conformance/valid")),
            label: "working tree".into(),
        },
    };
    let declared = if defaults {
        let version = crate::contracts::version(root)?;
        let released = from
            .as_deref()
            .or(latest.as_ref().map(|(v, _)| v.as_str()))
            .unwrap_or("0.0.0");
        Some(compat::declared_bump(released, &version).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let (comparison, replay) = match compare(&old, &new, options) {
        Ok(found) => found,
        Err(err) => {
            // Exit 2 and the message on stderr whatever the format; a report
            // read by a program says so in its own form too.
            let (place, message) = (failure_place(root, [&old, &new], &err), format!("{err:#}"));
            let from = label(&old);
            match request.format {
                Format::Github => say!("{}", compat::report::github_failure(place, &message)),
                Format::Sarif => emit(
                    documents,
                    &from,
                    compat::report::sarif_failure(place, &fallback_file(root, &new), &message),
                )?,
                Format::Json => {
                    let (file, line) = place.unzip();
                    let failed = json!({"ok": false, "from": from, "to": label(&new),
                        "error": message, "file": file, "line": line});
                    emit(documents, &from, failed)?;
                }
                Format::Human | Format::Markdown => {}
            }
            return Err(err);
        }
    };
    let shortfall = declared.and_then(|declared| compat::bump_shortfall(&comparison, declared));
    let checker_defect = !replay.is_empty() || !comparison.defects.is_empty();
    let ok = !checker_defect
        && match declared {
            Some(_) => shortfall.is_none(),
            None => [comparison.writer, comparison.reader, comparison.api]
                .iter()
                .all(|verdict| verdict.holds()),
        };
    let judged = Judged {
        comparison,
        declared,
        replay,
        shortfall,
        ok,
    };
    print(root, request, [&old, &new], &judged, documents)?;
    Ok(Outcome { ok, checker_defect })
}

/// The file under the repository, and the line, that an error stopping a
/// comparison names, where it names one.
fn failure_place(
    root: &Path,
    [old, new]: [&Side; 2],
    err: &anyhow::Error,
) -> Option<(String, usize)> {
    let (path, line, pointer) = err.chain().find_map(|cause| {
        if let Some(err) = cause.downcast_ref::<compat::Error>() {
            let (version, file, pointer) = err.place()?;
            let side = if version == compat::Version::Old {
                old
            } else {
                new
            };
            let path = match side {
                Side::Set { schemas, .. } => schemas.join(file),
                Side::File(path) => path.clone(),
            };
            return Some((path, None, Some(pointer)));
        }
        match cause.downcast_ref::<contract::Error>()? {
            contract::Error::Io { path, .. }
            | contract::Error::TooLarge { path }
            | contract::Error::Layout { path, .. }
            | contract::Error::TooDeep { path, .. } => Some((path.clone(), None, None)),
            contract::Error::NotUtf8 { path, line, .. } => Some((path.clone(), Some(*line), None)),
            contract::Error::Json { path, why } => Some((path.clone(), Some(why.line()), None)),
            contract::Error::Registry(_) => None,
        }
    })?;
    let line = match (line, pointer) {
        (Some(line), _) => line,
        (None, Some(pointer)) => {
            std::fs::read_to_string(&path).map_or(1, |text| compat::report::line_of(&text, pointer))
        }
        (None, None) => 1,
    };
    Some((shown(root, &path), line.max(1)))
}

/// A path as reports name it: under the repository, from its root.
fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The file a SARIF result that names no place of its own is shown at:
/// the new schema file of a comparison of two files, `contracts/VERSION`
/// of two sets.
fn fallback_file(root: &Path, new: &Side) -> String {
    match new {
        Side::File(path) => shown(root, path),
        Side::Set { .. } => compat::report::VERSION_FILE.to_string(),
    }
}

/// What one comparison found, and whether it passes.
struct Judged {
    comparison: Comparison,
    /// The bump `contracts/VERSION` declares, when it is judged.
    declared: Option<compat::Bump>,
    /// Fixtures on which the replay disagreed with a verdict.
    replay: Vec<String>,
    /// Why the declared bump is short, when it is.
    shortfall: Option<String>,
    ok: bool,
}

/// Compares two sides (two schema sets, whose fixtures are replayed, or two
/// single files).
fn compare(old: &Side, new: &Side, options: Options) -> anyhow::Result<(Comparison, Vec<String>)> {
    match (old, new) {
        (Side::File(o), Side::File(n)) => {
            let mut comparison = compat::compare_documents(&single(o)?, &single(n)?, options)
                .map_err(|err| named_as_given(err, [o, n]))?;
            // Each change is placed in the files as given, not in the set
            // they stood in; words naming a place name it in the file both
            // sides share a name with, else by its pointer alone.
            let (old_name, new_name) = (file_name(o), file_name(n));
            let either = if old_name == new_name {
                old_name.as_str()
            } else {
                ""
            };
            for change in &mut comparison.changes {
                as_given(&mut change.old_pointer, &old_name);
                as_given(&mut change.new_pointer, &new_name);
                let (why, undecided) = (change.why.as_mut(), change.undecided.as_mut());
                for words in [Some(&mut change.detail), why, undecided]
                    .into_iter()
                    .flatten()
                {
                    *words = words.replace(&format!("{SINGLE}#"), &format!("{either}#"));
                }
            }
            Ok((comparison, Vec::new()))
        }
        (
            Side::Set {
                schemas: o,
                fixtures: of,
                ..
            },
            Side::Set {
                schemas: n,
                fixtures: nf,
                ..
            },
        ) => {
            let (old_set, new_set) = (
                SchemaSet::load_with(o, DeepDocuments::Keep)?,
                SchemaSet::load_with(n, DeepDocuments::Keep)?,
            );
            // An empty folder is a wrong path, not a contract with nothing
            // in it: compared, it would list every part as added or removed.
            for (set, dir) in [(&old_set, o), (&new_set, n)] {
                if set.docs.is_empty() {
                    bail!(
                        "{}: no schema files (types/, methods/, events/, envelope/, config/): not a contract's schema folder",
                        dir.display()
                    );
                }
            }
            let bindings = [&old_set, &new_set].map(crate::codegen::model::surface);
            let comparison = compat::compare_contracts(
                &old_set,
                &new_set,
                options,
                [&bindings[0], &bindings[1]],
            )?;
            let replay = replay(
                &old_set,
                &new_set,
                of.as_deref(),
                nf.as_deref(),
                &comparison,
                options.readers == Readers::Tolerant,
            )?;
            Ok((comparison, replay))
        }
        _ => bail!(
            "--from and --to must both be schema sets (versions or folders) or both single files"
        ),
    }
}

/// Prints the comparison in the format asked for.
fn print(
    root: &Path,
    request: &Request,
    [old, new]: [&Side; 2],
    judged: &Judged,
    documents: &mut Documents,
) -> anyhow::Result<()> {
    let Judged {
        comparison,
        declared,
        replay,
        ok,
        ..
    } = judged;
    let (declared, ok) = (*declared, *ok);
    let (from_label, to_label) = (label(old), label(new));
    let schemas_of = |side: &Side| match side {
        Side::Set { schemas, .. } => schemas.clone(),
        // A path with no parent (`/`) names no folder; the empty path is the
        // current one, where `locate` then finds nothing.
        Side::File(path) => path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let (old_dir, new_dir) = (schemas_of(old), schemas_of(new));
    // `file#pointer` of a change → the file under the repository and the line.
    let locate = |place: &str| -> Option<(String, usize)> {
        let (file, pointer) = place.split_once('#')?;
        let path = [(new, &new_dir), (old, &old_dir)]
            .into_iter()
            .filter_map(|(side, dir)| match side {
                Side::File(single) => {
                    (single.file_name() == Some(file.as_ref())).then(|| single.clone())
                }
                Side::Set { .. } => Some(dir.join(file)),
            })
            .find(|path| path.is_file())?;
        let text = std::fs::read_to_string(&path).ok()?;
        Some((shown(root, &path), compat::report::line_of(&text, pointer)))
    };
    let pair = format!("{from_label} → {to_label}");
    match request.format {
        Format::Markdown => say!("{}", compat::report::markdown(comparison, declared, &pair)),
        Format::Github => say!("{}", compat::report::github(comparison, declared, &locate)),
        Format::Sarif => emit(
            documents,
            &from_label,
            compat::report::sarif(comparison, declared, &locate, &fallback_file(root, new)),
        )?,
        Format::Json => {
            let mut value = serde_json::to_value(comparison)?;
            if let Value::Object(map) = &mut value {
                map.insert(
                    "declared".into(),
                    declared.map_or(Value::Null, |d| json!(d.to_string())),
                );
                map.insert("replayDisagreements".into(), json!(replay));
                map.insert("ok".into(), json!(ok));
                map.insert("from".into(), json!(from_label));
                map.insert("to".into(), json!(to_label));
            }
            emit(documents, &from_label, value)?;
        }
        Format::Human => print_human(&pair, request, judged),
    }
    Ok(())
}

/// The human report: the verdicts, then anything the checker found wrong
/// with itself, then the outcome.
fn print_human(pair: &str, request: &Request, judged: &Judged) {
    let options = request.options();
    let Judged {
        comparison,
        declared,
        replay,
        shortfall,
        ok,
    } = judged;
    sayln!(
        "compat: {pair} ({} readers, formats read as {})",
        if options.readers == Readers::Tolerant {
            "tolerant"
        } else {
            "strict"
        },
        match options.formats {
            Formats::Assertion => "assertions",
            Formats::Annotation => "annotations",
        }
    );
    say!("{}", compat::report::human(comparison, *declared));
    for line in replay {
        sayln!("checker bug: {line}");
    }
    for defect in &comparison.defects {
        sayln!(
            "checker defect: {} {:?} was called compatible, but {} passes the writer and fails the reader ({})",
            defect.group,
            defect.direction,
            compat::report::short(&defect.value),
            defect.why
        );
    }
    if let Some(why) = shortfall {
        sayln!("compat: {why}");
    }
    sayln!("compat: {}", if *ok { "ok" } else { "FAILED" });
}

fn label(side: &Side) -> String {
    match side {
        Side::Set { label, .. } => label.clone(),
        Side::File(path) => path.display().to_string(),
    }
}

/// The place under which [`single`] puts a file.
const SINGLE: &str = "types/Schema.json";

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `types/Schema.json#pointer` → `NAME#pointer`.
fn as_given(place: &mut Option<String>, name: &str) {
    if let Some(pointer) = place.as_deref().and_then(|p| p.strip_prefix(SINGLE)) {
        *place = Some(format!("{name}{pointer}"));
    }
}

/// A refusal of a file compared alone names the file as given, not the
/// place [`single`] put it in.
fn named_as_given(err: compat::Error, [old, new]: [&PathBuf; 2]) -> compat::Error {
    err.renamed(|version, file| {
        let path = match version {
            _ if file != SINGLE => return file.to_string(),
            compat::Version::Old => old,
            compat::Version::New => new,
        };
        path.display().to_string()
    })
}

fn single(path: &Path) -> anyhow::Result<SchemaSet> {
    let bytes = contract::read_file(path)?;
    // The file stands in the set as a type; a load error names the file
    // itself.
    SchemaSet::from_bytes_with(
        path.parent().unwrap_or(path),
        [(SINGLE, bytes.as_slice())],
        DeepDocuments::Keep,
    )
    .map_err(|err| match err {
        contract::Error::NotUtf8 {
            line,
            column,
            offset,
            marked,
            ..
        } => contract::Error::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
            offset,
            marked,
        },
        contract::Error::Json { why, .. } => contract::Error::Json {
            path: path.to_path_buf(),
            why,
        },
        contract::Error::TooDeep { depth, pointer, .. } => contract::Error::TooDeep {
            path: path.to_path_buf(),
            depth,
            pointer,
        },
        other => other,
    })
    .map_err(anyhow::Error::new)
}

/// A schema set as a tolerant reader reads it: no object is closed.
fn opened(set: &SchemaSet) -> SchemaSet {
    let mut set = set.clone();
    for doc in &mut set.docs {
        let draft = jsonschema::Draft::default().detect(&doc.value);
        compat::open_objects(&mut doc.value, draft);
    }
    set
}

/// Valid fixtures of one side, checked against the other side's schemas:
/// disagreements with the comparison's verdict for that direction.
fn replay(
    old: &SchemaSet,
    new: &SchemaSet,
    old_fixtures: Option<&Path>,
    new_fixtures: Option<&Path>,
    comparison: &Comparison,
    tolerant: bool,
) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    let reader_set = |set: &SchemaSet| if tolerant { opened(set) } else { set.clone() };
    for (fixtures, writer, reader, verdict, direction) in [
        (
            old_fixtures,
            old,
            reader_set(new),
            comparison.reader,
            "old fixture against the new schemas (R)",
        ),
        (
            new_fixtures,
            new,
            reader_set(old),
            comparison.writer,
            "new fixture against the old schemas (W)",
        ),
    ] {
        let Some(dir) = fixtures.filter(|d| d.is_dir()) else {
            continue;
        };
        if verdict != Verdict::Compatible {
            continue; // a breaking verdict expects some fixtures to fail
        }
        let own = conformance::Checker::new(writer.clone())?;
        let checker = conformance::Checker::new(reader)?;
        for fixture in conformance::fixtures::load_fixtures(
            dir.parent().unwrap_or(dir),
            dir.file_name().and_then(|n| n.to_str()).unwrap_or("valid"),
        )? {
            if !known_to(&checker, &fixture) {
                continue; // a method or event the reader's version does not have: judged by method.added
            }
            if !own.check(&fixture.type_name, &fixture.value)?.is_empty() {
                continue; // not valid on its own side: the conformance step reports it, and it says nothing of the comparison
            }
            let findings = checker.check(&fixture.type_name, &fixture.value)?;
            if let Some(first) = findings.first() {
                out.push(format!(
                    "{direction}: {} is refused ({} at {}: {}), but the comparison says this direction holds",
                    fixture.path,
                    first.rule,
                    contract::Pointer::from_text(first.pointer.to_string()),
                    first.message
                ));
            }
        }
    }
    Ok(out)
}

/// Whether the reader's schema set has the type, method or event a fixture is about.
fn known_to(checker: &conformance::Checker, fixture: &conformance::fixtures::Fixture) -> bool {
    if checker.require_type(&fixture.type_name).is_err() {
        return false;
    }
    let body = fixture.value.get("body");
    let name = body
        .and_then(|b| b.get("method").or_else(|| b.get("name")))
        .and_then(Value::as_str);
    match name {
        Some(name) => checker.schema_set().docs.iter().any(|doc| doc.name == name),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    /// The gate's compat step as a test: `contracts/VERSION` covers the
    /// changes since the latest release, and the fixture replay agrees with
    /// the verdicts.
    #[test]
    fn the_working_tree_is_covered_by_contracts_version() {
        let outcome = super::run(&crate::root(), &[])
            .unwrap_or_else(|err| panic!("compat could not run: {err:#}"));
        assert!(
            outcome.ok,
            "`cargo xtask compat` fails on the working tree; run it for the report"
        );
    }

    /// The working tree's schemas, each file's text passed through `edit`,
    /// which may also move the file (it returns the new path and text).
    fn edited(edit: impl Fn(&str, String) -> (String, String)) -> contract::SchemaSet {
        let dir = crate::root().join("contracts/schema");
        let set = contract::SchemaSet::load(&dir).unwrap_or_else(|err| panic!("{err}"));
        let texts: Vec<(String, String)> = set
            .docs
            .iter()
            .map(|doc| {
                let text = std::fs::read_to_string(dir.join(&doc.rel))
                    .unwrap_or_else(|err| panic!("{err}"));
                edit(&doc.rel, text)
            })
            .collect();
        contract::SchemaSet::from_texts(
            &dir,
            texts
                .iter()
                .map(|(rel, text)| (rel.as_str(), text.as_str())),
        )
        .unwrap_or_else(|err| panic!("{err}"))
    }

    /// An edit of one file's text.
    fn in_file(
        file: &'static str,
        change: impl Fn(String) -> String,
    ) -> impl Fn(&str, String) -> (String, String) {
        move |rel, text| {
            let text = if rel == file { change(text) } else { text };
            (rel.to_string(), text)
        }
    }

    /// `compare_contracts` with each side's bindings modelled, no search.
    fn with_bindings(old: &contract::SchemaSet, new: &contract::SchemaSet) -> compat::Comparison {
        let bindings = [old, new].map(crate::codegen::model::surface);
        compat::compare_contracts(
            old,
            new,
            compat::Options {
                search: 0,
                ..compat::Options::default()
            },
            [&bindings[0], &bindings[1]],
        )
        .unwrap_or_else(|err| panic!("{err}"))
    }

    /// Changes the wire does not see and code built on the bindings does: a
    /// type renamed (every reference with it), an integer enum value's name
    /// renamed or two names swapped, two string enum values swapped (the C++
    /// and Rust enumerators renumbered), a field made a credential. Each is W and
    /// R compatible and an API break needing a major bump; a description
    /// changed is not.
    #[test]
    fn a_change_only_code_sees_breaks_the_api() {
        let old = edited(|rel, text| (rel.to_string(), text));
        type Edit = Box<dyn Fn(&str, String) -> (String, String)>;
        let cases: [(&str, Edit, Option<&str>); 6] = [
            (
                "a description",
                Box::new(in_file("types/Segment.json", |text| {
                    text.replacen("\"description\": \"", "\"description\": \"Now: ", 1)
                })),
                None,
            ),
            (
                "a variant renamed",
                Box::new(in_file("types/RpcErrorCode.json", |text| {
                    text.replace("\"task_not_found\"", "\"no_such_task\"")
                })),
                Some("value RpcErrorCode::task_not_found is gone"),
            ),
            (
                "two variants swapped",
                Box::new(in_file("types/RpcErrorCode.json", |text| {
                    text.replace("\"task_not_found\"", "\"@\"")
                        .replace("\"invalid_transition\"", "\"task_not_found\"")
                        .replace("\"@\"", "\"invalid_transition\"")
                })),
                Some("value RpcErrorCode::task_not_found: = -32001 → = -32002"),
            ),
            (
                "two string enum values swapped",
                Box::new(in_file("types/TaskState.json", |text| {
                    text.replacen("\"new\",", "\"@\",", 1)
                        .replacen("\"queued\",", "\"new\",", 1)
                        .replacen("\"@\",", "\"queued\",", 1)
                })),
                Some("value TaskState::new: a value, at position 0 → a value, at position 1"),
            ),
            (
                "a type renamed",
                Box::new(|rel: &str, text: String| {
                    let text = text.replace("TaskId.json", "TaskIdent.json");
                    if rel == "types/TaskId.json" {
                        let text =
                            text.replace("\"title\": \"TaskId\"", "\"title\": \"TaskIdent\"");
                        ("types/TaskIdent.json".to_string(), text)
                    } else {
                        (rel.to_string(), text)
                    }
                }),
                Some("type TaskId is gone"),
            ),
            (
                "a field made a secret",
                Box::new(in_file("methods/download.provideAuth.json", |text| {
                    text.replacen("\"username\": {", "\"username\": {\"x-secret\": true,", 1)
                })),
                Some("a string → a string, a secret"),
            ),
        ];
        for (case, edit, said) in cases {
            let comparison = with_bindings(&old, &edited(edit));
            assert!(
                comparison.writer.holds() && comparison.reader.holds(),
                "{case}"
            );
            let api: Vec<_> = comparison
                .changes
                .iter()
                .filter(|c| c.rule == "api.changed")
                .collect();
            match said {
                None => {
                    assert!(api.is_empty(), "{case}: {api:?}");
                    assert!(comparison.api.holds(), "{case}");
                }
                Some(said) => {
                    assert!(!comparison.api.holds(), "{case}");
                    assert_eq!(comparison.bump, compat::Bump::Major, "{case}");
                    assert!(
                        api.iter().any(|c| c.detail.contains(said)),
                        "{case}: {api:?}"
                    );
                    // A VERSION declaring less is told which change needs more.
                    let short = compat::bump_shortfall(&comparison, compat::Bump::Minor)
                        .unwrap_or_else(|| panic!("{case}: a minor bump covers it"));
                    assert!(short.contains("api.changed"), "{case}: {short}");
                }
            }
        }
    }

    /// An integer's bounds choose the type the bindings hold it in (Rust's
    /// narrowest, C++'s signed or unsigned 64 bits). For each pair of bounds
    /// tried on `Segment.index`, the surface names the types the generated
    /// Rust and C++ declare for it, and the API breaks exactly when either
    /// differs from the old bindings' `u8` / `std::uint64_t`.
    #[test]
    fn an_integer_held_in_another_type_breaks_the_api() {
        let old = edited(|rel, text| (rel.to_string(), text));
        let file = |files: &[(&str, String)], wanted: &str| -> String {
            let found = files.iter().find(|(name, _)| *name == wanted);
            found.unwrap_or_else(|| panic!("{wanted}")).1.clone()
        };
        let declared = |text: String, open: &str, member: &str| {
            let from = text.find(open).unwrap_or_else(|| panic!("{open}"));
            let line = text[from..]
                .lines()
                .find(|line| line.contains(member))
                .unwrap_or_else(|| panic!("{member} after {open}"));
            line.trim().to_string()
        };
        for (min, max, rust, cpp) in [
            (0_i64, 31_i64, "u8", "std::uint64_t"),
            (0, 255, "u8", "std::uint64_t"),
            (0, 256, "u16", "std::uint64_t"),
            (1, 31, "u8", "std::uint64_t"),
            (0, 4_294_967_296, "u64", "std::uint64_t"),
            (-1, 31, "i32", "std::int64_t"),
            (-2_147_483_649, 31, "i64", "std::int64_t"),
        ] {
            let case = format!("index in [{min}, {max}]");
            let new = edited(in_file("types/Segment.json", move |text| {
                text.replacen(
                    "\"minimum\": 0,\n      \"maximum\": 31,",
                    &format!("\"minimum\": {min},\n      \"maximum\": {max},"),
                    1,
                )
            }));
            let origin = crate::codegen::Origin::working_tree();
            let rust_files = crate::codegen::rust_bindings(&new, &origin).unwrap();
            assert_eq!(
                declared(
                    file(&rust_files, "types.rs"),
                    "pub struct Segment {",
                    "pub index:"
                ),
                format!("pub index: {rust},"),
                "{case}"
            );
            let [cpp_files, _] =
                crate::codegen::cpp_and_ts_bindings(&new, "0.0.0", &origin).unwrap();
            assert_eq!(
                declared(
                    file(&cpp_files, "contract.hpp"),
                    "struct Segment {",
                    " index{}"
                ),
                format!("{cpp} index{{}};"),
                "{case}"
            );
            let comparison = with_bindings(&old, &new);
            let api: Vec<_> = comparison
                .changes
                .iter()
                .filter(|c| c.rule == "api.changed" && c.detail.contains("Segment.index"))
                .collect();
            if (rust, cpp) == ("u8", "std::uint64_t") {
                assert!(api.is_empty(), "{case}: {api:?}");
            } else {
                assert!(!comparison.api.holds(), "{case}");
                let said = format!(
                    "an integer (u8 in Rust, std::uint64_t in C++) → an integer ({rust} in Rust, {cpp} in C++)"
                );
                assert!(
                    api.iter().any(|c| c.detail.contains(&said)),
                    "{case}: {api:?}"
                );
            }
        }
    }

    /// Every member of every object and every value of every enum of the
    /// contract, wherever it stands, removed in turn (its name from
    /// `required` and its `x-enum-varnames` entry with it): code built on
    /// the old bindings names it, so the API breaks, whatever the wire does.
    /// Places under keywords that only test a value (`not`, `if`,
    /// `contains`, `propertyNames`) or constrain members declared beside them
    /// (`then`, `else`: the contract's rules, which the generator reads as
    /// checks, not as fields) are left out. The bounded run takes every
    /// twelfth removal; `COMPAT_PLACES_EVERY=1` takes all.
    #[test]
    fn a_member_or_value_removed_anywhere_in_the_contract_breaks_the_api() {
        use serde_json::Value;
        let base = edited(|rel, text| (rel.to_string(), text));
        // (file, place, member or enum index)
        let mut removals: Vec<(String, String, Result<String, usize>)> = Vec::new();
        for doc in &base.docs {
            for place in sample::schemas::places(&doc.value) {
                let tested_only = place.split('/').any(|t| {
                    matches!(
                        t,
                        "not" | "if" | "then" | "else" | "contains" | "propertyNames"
                    )
                });
                let Some(map) = doc.value.pointer(&place).and_then(Value::as_object) else {
                    continue;
                };
                if tested_only {
                    continue;
                }
                if let Some(members) = map.get("properties").and_then(Value::as_object) {
                    for name in members.keys() {
                        removals.push((doc.rel.clone(), place.clone(), Ok(name.clone())));
                    }
                }
                if let Some(values) = map.get("enum").and_then(Value::as_array) {
                    if values.len() >= 2 {
                        for index in 0..values.len() {
                            removals.push((doc.rel.clone(), place.clone(), Err(index)));
                        }
                    }
                }
            }
        }
        let every: usize = std::env::var("COMPAT_PLACES_EVERY")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(12);
        let old_bindings = crate::codegen::model::surface(&base);
        let mut missed = Vec::new();
        for (rel, place, what) in removals.iter().step_by(every.max(1)) {
            let mut new = base.clone();
            let Some(doc) = new.docs.iter_mut().find(|d| &d.rel == rel) else {
                continue;
            };
            let Some(Value::Object(map)) = doc.value.pointer_mut(place) else {
                continue;
            };
            match what {
                Ok(name) => {
                    if let Some(Value::Object(members)) = map.get_mut("properties") {
                        members.remove(name);
                    }
                    if let Some(Value::Array(required)) = map.get_mut("required") {
                        required.retain(|r| r.as_str() != Some(name));
                    }
                }
                Err(index) => {
                    for key in ["enum", "x-enum-varnames"] {
                        if let Some(Value::Array(values)) = map.get_mut(key) {
                            if *index < values.len() {
                                values.remove(*index);
                            }
                        }
                    }
                }
            }
            let new_bindings = crate::codegen::model::surface(&new);
            let comparison = compat::compare_contracts(
                &base,
                &new,
                compat::Options {
                    search: 0,
                    ..compat::Options::default()
                },
                [&old_bindings, &new_bindings],
            )
            .unwrap_or_else(|err| panic!("{rel}#{place}: {err}"));
            if comparison.api.holds() {
                missed.push(format!("{rel}#{place}: {what:?} removed"));
            }
        }
        assert!(
            missed.is_empty(),
            "the API said to hold after {} of {} removals:\n{}",
            missed.len(),
            removals.len().div_ceil(every.max(1)),
            missed.join("\n")
        );
    }

    /// A required field added changes what the Rust `new` takes: the API
    /// breaks (as R does), and the change names the type's required fields.
    #[test]
    fn a_required_field_added_breaks_the_api() {
        let old = edited(|rel, text| (rel.to_string(), text));
        let new = edited(in_file("types/DownloadSpec.json", |text| {
            text.replacen("\"url\"\n  ],", "\"mirror\",\n    \"url\"\n  ],", 1)
                .replacen(
                    "\"properties\": {",
                    "\"properties\": {\"mirror\": {\"type\": \"string\", \"maxLength\": 10, \"description\": \"A mirror.\"},",
                    1,
                )
        }));
        let comparison = with_bindings(&old, &new);
        assert!(!comparison.api.holds());
        assert!(
            comparison.changes.iter().any(|c| c.rule == "api.changed"
                && c.detail.contains(
                    "type DownloadSpec: an object (required: url) → an object (required: mirror, url)"
                )),
            "{:#?}",
            comparison.changes
        );
    }

    /// A new side the generator refuses leaves the API undecided (breaking),
    /// naming the generator's reason.
    #[test]
    fn a_side_the_generator_refuses_leaves_the_api_undecided() {
        let old = edited(|rel, text| (rel.to_string(), text));
        let new = edited(in_file("types/Segment.json", |text| {
            text.replacen("\"type\": \"integer\",", "\"type\": \"number\",", 1)
        }));
        let comparison = with_bindings(&old, &new);
        let undecided = comparison
            .changes
            .iter()
            .find(|c| c.rule == "api.changed")
            .unwrap_or_else(|| panic!("no api change: {:?}", comparison.changes));
        assert!(!comparison.api.holds());
        assert!(
            undecided
                .undecided
                .as_deref()
                .is_some_and(|why| why.contains("types/Segment.json#")),
            "{undecided:?}"
        );
    }

    /// The fixture replay holds the verdicts to fixtures that are valid on
    /// their own side: one that is not (the conformance step names it) says
    /// nothing of the comparison and is passed over, while a valid one the
    /// other side refuses is reported where a verdict says it should pass.
    #[test]
    fn the_replay_judges_only_fixtures_valid_on_their_own_side() {
        use serde_json::Value;
        fn first_values_only(value: &mut Value) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::Array(values)) = map.get_mut("enum") {
                        values.truncate(1);
                    }
                    map.values_mut().for_each(first_values_only);
                }
                Value::Array(items) => items.iter_mut().for_each(first_values_only),
                _ => {}
            }
        }
        let new = edited(|rel, text| (rel.to_string(), text));
        // Every enum keeps only its first value: fixtures that use the
        // others are refused by this side.
        let old = edited(|rel, text| {
            let mut value: Value =
                serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}"));
            first_values_only(&mut value);
            (rel.to_string(), value.to_string())
        });
        let fixtures = std::env::temp_dir().join(format!("compat-replay-{}", std::process::id()));
        let valid = fixtures.join("valid");
        let _ = std::fs::remove_dir_all(&fixtures);
        std::fs::create_dir_all(&valid).unwrap_or_else(|err| panic!("{err}"));
        for entry in std::fs::read_dir(crate::root().join("conformance/valid"))
            .unwrap_or_else(|err| panic!("{err}"))
        {
            let path = entry.unwrap_or_else(|err| panic!("{err}")).path();
            if let Some(name) = path.file_name() {
                std::fs::copy(&path, valid.join(name)).unwrap_or_else(|err| panic!("{err}"));
            }
        }
        let broken = r#"{"description": "no envelope", "type": "Envelope", "value": {"v": 1}}"#;
        std::fs::write(valid.join("zz_broken.json"), broken).unwrap_or_else(|err| panic!("{err}"));

        let mut comparison = with_bindings(&old, &new);
        assert_eq!(
            comparison.writer,
            compat::Verdict::Breaking,
            "the edit breaks W"
        );
        // As if the comparison had called the direction compatible.
        comparison.writer = compat::Verdict::Compatible;
        let lines = super::replay(&old, &new, None, Some(&valid), &comparison, false)
            .unwrap_or_else(|err| panic!("{err:#}"));
        let _ = std::fs::remove_dir_all(&fixtures);
        assert!(
            !lines.is_empty(),
            "valid fixtures the old side refuses are reported"
        );
        assert!(
            lines
                .iter()
                .all(|line| line.starts_with("new fixture against the old schemas (W): ")),
            "{lines:#?}"
        );
        assert!(
            !lines.iter().any(|line| line.contains("zz_broken")),
            "a fixture its own side refuses is no evidence against the comparison: {lines:#?}"
        );
    }

    /// A schema file given alone that is not JSON is named as given, with
    /// its cause said once.
    #[test]
    fn one_file_that_is_not_json_is_named_as_given() {
        let dir = std::env::temp_dir().join(format!("compat-single-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("{err}"));
        let file = dir.join("mine.json");
        std::fs::write(&file, r#"{"type": "number", "maximum": 1e400}"#)
            .unwrap_or_else(|err| panic!("{err}"));
        let said = match super::single(&file) {
            Ok(_) => panic!("a file with 1e400 was read as JSON"),
            Err(err) => format!("{err:#}"),
        };
        assert!(
            said.starts_with(&format!("{}: not JSON: ", file.display())),
            "{said}"
        );
        assert_eq!(said.matches("out of range").count(), 1, "{said}");
        std::fs::write(&file, b"{\"description\": \"caf\xe9\"}")
            .unwrap_or_else(|err| panic!("{err}"));
        let err = match super::single(&file) {
            Ok(_) => panic!("a file that is not UTF-8 was read"),
            Err(err) => err,
        };
        assert_eq!(
            format!("{err:#}"),
            format!("{}:1:21: not UTF-8 text (byte offset 20)", file.display())
        );
        // The reports that place an error (github, json, sarif) find the
        // file as given, and the line.
        let side = super::Side::File(file.clone());
        let placed = super::failure_place(&dir, [&side, &side], &err);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(placed, Some(("mine.json".to_string(), 1)));
    }

    /// `--against-all-releases` in a format programs read writes one
    /// document: a JSON array of the reports, each naming its sides, or one
    /// SARIF log whose runs, one a release, each have a category of their
    /// own (code scanning refuses two runs of one category in one upload).
    #[test]
    fn every_release_at_once_is_one_document() {
        let root = crate::root();
        let releases = crate::contracts::releases(&root).unwrap_or_else(|err| panic!("{err}"));
        assert!(releases.len() > 1, "the repository holds releases");
        for format in ["json", "sarif"] {
            let request = super::request(&[
                "--against-all-releases",
                "--search",
                "0",
                "--format",
                format,
            ])
            .unwrap_or_else(|err| panic!("{err}"))
            .unwrap_or_else(|| panic!("a request"));
            let mut documents = Some(Vec::new());
            for (version, _) in &releases {
                super::run_one(&root, &request, Some(version.clone()), &mut documents)
                    .unwrap_or_else(|err| panic!("{err:#}"));
            }
            let kept = documents.unwrap_or_default();
            assert_eq!(kept.len(), releases.len(), "nothing printed one by one");
            let one = super::combined(request.format, kept);
            let text = serde_json::to_string_pretty(&one).unwrap_or_else(|err| panic!("{err}"));
            let read: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}"));
            if format == "json" {
                let froms: Vec<&serde_json::Value> = read
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| &r["from"])
                    .collect();
                let expected: Vec<serde_json::Value> =
                    releases.iter().map(|(v, _)| serde_json::json!(v)).collect();
                assert_eq!(froms, expected.iter().collect::<Vec<_>>());
            } else {
                let runs = read["runs"].as_array().map_or(&[][..], Vec::as_slice);
                let mut categories: Vec<&str> = runs
                    .iter()
                    .filter_map(|run| run["automationDetails"]["id"].as_str())
                    .collect();
                assert_eq!(categories.len(), releases.len(), "{text}");
                categories.dedup();
                assert_eq!(categories.len(), releases.len(), "{text}");
                assert_eq!(read["version"], "2.1.0");
            }
        }
    }

    /// `..` or `a/b` is a path, never a release: `contracts/released/..`
    /// is `contracts/`, whose `schema/` is the working tree's. An empty
    /// folder is refused, not compared as a contract with nothing in it.
    #[test]
    fn a_side_is_a_release_by_its_name_alone_and_a_folder_holds_schemas() {
        let root = crate::root();
        match super::side(&root, "..") {
            Ok(super::Side::Set { schemas, .. }) => assert_ne!(
                schemas.canonicalize().ok(),
                root.join("contracts/schema").canonicalize().ok(),
                "`..` read as the release folder's parent"
            ),
            Ok(_) => panic!("`..` is a folder"),
            Err(err) => panic!("{err:#}"),
        }
        assert!(matches!(
            super::side(&root, "1.0.0"),
            Ok(super::Side::Set { label, .. }) if label == "1.0.0"
        ));
        // No such release, file or folder: the releases there are named.
        match super::side(&root, "0.9.9") {
            Err(err) => assert!(
                format!("{err:#}").contains("(contracts/released/<version>: 1.0.0, "),
                "{err:#}"
            ),
            Ok(_) => panic!("0.9.9 is no release"),
        }
        let empty = std::env::temp_dir().join(format!("compat-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap_or_else(|err| panic!("{err}"));
        let empty_side = super::side(&root, empty.to_str().unwrap_or_default())
            .unwrap_or_else(|err| panic!("{err:#}"));
        let working = super::side(
            &root,
            root.join("contracts/schema").to_str().unwrap_or_default(),
        )
        .unwrap_or_else(|err| panic!("{err:#}"));
        let said = match super::compare(&empty_side, &working, compat::Options::default()) {
            Ok(_) => panic!("an empty folder was compared"),
            Err(err) => format!("{err:#}"),
        };
        let _ = std::fs::remove_dir_all(&empty);
        assert!(said.contains("no schema files"), "{said}");
    }

    /// A file compared alone that its draft's meta-schema refuses is named
    /// as given, on the side it stands, not by the place it stood in.
    #[test]
    fn a_file_that_is_no_schema_is_named_as_given() {
        let dir = std::env::temp_dir().join(format!("compat-no-schema-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("{err}"));
        let (good, bad) = (dir.join("good.json"), dir.join("bad.json"));
        std::fs::write(&good, r#"{"type": "object"}"#).unwrap_or_else(|err| panic!("{err}"));
        std::fs::write(&bad, r#"{"type": 5}"#).unwrap_or_else(|err| panic!("{err}"));
        for (old, new, side) in [(&bad, &good, "old"), (&good, &bad, "new")] {
            let said = match super::compare(
                &super::Side::File(old.clone()),
                &super::Side::File(new.clone()),
                compat::Options::default(),
            ) {
                Ok(_) => panic!("a file with \"type\": 5 was compared"),
                Err(err) => format!("{err:#}"),
            };
            assert!(
                said.starts_with(&format!(
                    "{} ({side} version): not a schema of its draft: ",
                    bad.display()
                )),
                "{said}"
            );
            assert!(said.ends_with("(at /type)"), "{said}");
        }
        // A reference that leads nowhere: the file as given, the `$ref`, the rule.
        std::fs::write(&bad, r##"{"properties": {"a": {"$ref": "#/$defs/gone"}}}"##)
            .unwrap_or_else(|err| panic!("{err}"));
        let said = match super::compare(
            &super::Side::File(good.clone()),
            &super::Side::File(bad.clone()),
            compat::Options::default(),
        ) {
            Ok(_) => panic!("a file whose reference leads nowhere was compared"),
            Err(err) => format!("{err:#}"),
        };
        assert!(
            said.starts_with(&format!(
                "{} (new version): the reference \"#/$defs/gone\" leads nowhere",
                bad.display()
            )) && said.contains("(at /properties/a/$ref, rule lint.ref)"),
            "{said}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two files compared alone are placed in the files as given: a change
    /// names each side's file, not the place it stood in the set.
    #[test]
    fn changes_between_two_files_name_the_files() {
        let dir = std::env::temp_dir().join(format!("compat-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("{err}"));
        let (old, new) = (dir.join("before.json"), dir.join("after.json"));
        for (file, maximum) in [(&old, 10), (&new, 5)] {
            let text =
                format!(r#"{{"type": "object", "properties": {{"n": {{"maximum": {maximum}}}}}}}"#);
            std::fs::write(file, text).unwrap_or_else(|err| panic!("{err}"));
        }
        let compared = super::compare(
            &super::Side::File(old),
            &super::Side::File(new),
            compat::Options::default(),
        );
        let (comparison, _) = compared.unwrap_or_else(|err| panic!("{err:#}"));
        let change = comparison
            .changes
            .first()
            .unwrap_or_else(|| panic!("no change"));
        assert_eq!(
            change.old_pointer.as_deref(),
            Some("before.json#/properties/n/maximum")
        );
        assert_eq!(
            change.new_pointer.as_deref(),
            Some("after.json#/properties/n/maximum")
        );
        // A reason naming a place names it in the file both sides are called.
        let (old_dir, new_dir) = (dir.join("old"), dir.join("new"));
        for (side, kind) in [(&old_dir, "string"), (&new_dir, "integer")] {
            std::fs::create_dir_all(side).unwrap_or_else(|err| panic!("{err}"));
            let text = format!(
                r#"{{"properties": {{"n": {{"unevaluatedItems": {{"type": "{kind}"}}}}}}}}"#
            );
            std::fs::write(side.join("same.json"), text).unwrap_or_else(|err| panic!("{err}"));
        }
        let compared = super::compare(
            &super::Side::File(old_dir.join("same.json")),
            &super::Side::File(new_dir.join("same.json")),
            compat::Options::default(),
        );
        let _ = std::fs::remove_dir_all(&dir);
        let (comparison, _) = compared.unwrap_or_else(|err| panic!("{err:#}"));
        let why = comparison.changes.first().and_then(|c| c.why.clone());
        assert!(
            why.as_deref()
                .is_some_and(|why| why.contains("unevaluatedItems at same.json#/properties/n")),
            "{why:?}"
        );
    }

    /// A comparison that cannot be made at all still gives a lane's review
    /// an annotation, at the file and line the error names and on the side
    /// it names: a file that is not JSON, a document whose `$id` is not its
    /// place.
    #[test]
    fn a_comparison_that_cannot_be_made_is_annotated_where_it_fails() {
        use serde_json::json;
        let root = crate::root();
        let dir = std::env::temp_dir().join(format!("compat-failure-{}", std::process::id()));
        let (old_dir, new_dir) = (dir.join("old"), dir.join("new"));
        for side in [&old_dir, &new_dir] {
            crate::release::copy_dir(&root.join("contracts/schema"), side)
                .unwrap_or_else(|err| panic!("{err:#}"));
        }
        let set = |schemas: &std::path::Path| super::Side::Set {
            schemas: schemas.to_path_buf(),
            fixtures: None,
            label: String::new(),
        };
        let (old, new) = (set(&old_dir), set(&new_dir));
        let annotation = || {
            let options = compat::Options {
                search: 0,
                ..compat::Options::default()
            };
            let err = match super::compare(&old, &new, options) {
                Ok(_) => panic!("compared"),
                Err(err) => err,
            };
            let place = super::failure_place(&root, [&old, &new], &err);
            let sarif = compat::report::sarif_failure(place.clone(), "VERSION", "x");
            let result = &sarif["runs"][0]["results"][0];
            assert_eq!(
                result["locations"][0]["physicalLocation"]["region"]["startLine"],
                json!(place.as_ref().map(|(_, line)| line))
            );
            assert_eq!(
                sarif["runs"][0]["invocations"][0]["executionSuccessful"],
                false
            );
            compat::report::github_failure(place, &format!("{err:#}"))
        };
        let task_id = new_dir.join("types/TaskId.json");
        let text = std::fs::read_to_string(&task_id).unwrap_or_else(|err| panic!("{err}"));
        let line = text
            .lines()
            .position(|line| line.contains("\"$id\""))
            .map(|index| index + 1)
            .unwrap_or_else(|| panic!("no $id"));
        std::fs::write(&task_id, text.replace("TaskId.json", "TaskIdX.json"))
            .unwrap_or_else(|err| panic!("{err}"));
        let own_id = annotation();
        std::fs::write(new_dir.join("types/Broken.json"), "{\n\"type\": [\n")
            .unwrap_or_else(|err| panic!("{err}"));
        let not_json = annotation();
        let _ = std::fs::remove_dir_all(&dir);
        let expected = format!(
            "::error file={},line={line},title=compat::",
            task_id.display()
        );
        assert!(own_id.starts_with(&expected), "{own_id}");
        assert!(own_id.contains("(new version)"), "{own_id}");
        assert!(own_id.contains("rule lint.id"), "{own_id}");
        assert_eq!(own_id.lines().count(), 1, "{own_id}");
        let broken = new_dir.join("types/Broken.json");
        let expected = format!("::error file={},line=3,title=compat::", broken.display());
        assert!(not_json.starts_with(&expected), "{not_json}");
    }
}
