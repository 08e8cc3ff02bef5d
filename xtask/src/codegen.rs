//! `cargo xtask codegen`: everything derived from the schemas.
//!
//! The Rust bindings come from typify, fed one bundled document: typify does
//! not follow a `$ref` into another file, so every file (and every method's and
//! event's `$defs`) becomes one entry under `$defs`, named for the Rust type it
//! becomes, with references rewritten to `#/$defs/<Name>`. The bundle keeps only
//! what describes a *shape*: assertion-only keywords (`if`/`then`/`else`, `not`,
//! patterns, lengths, formats) constrain values, which is the validator's job,
//! and typify either panics on them or would pull in crates for them. Closed
//! objects are opened too: generated types are tolerant readers (`docs/wire.md`),
//! so `additionalProperties: false` must not become `deny_unknown_fields`.
//!
//! What typify cannot say (integer enums with names, tables from annotations)
//! is written by [`tables`] from the same schema set.

#[cfg(test)]
mod broken;
pub mod bundle;
mod cpp;
#[cfg(test)]
mod edits;
pub mod model;
mod package;
#[cfg(test)]
mod patterns;
mod reference;
#[cfg(test)]
mod snapshots;
#[cfg(test)]
mod standalone;
mod tables;
mod ts;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};

pub enum Mode {
    Write,
    Check,
}

/// The command every generated file names in its first line.
pub const COMMAND: &str = "cargo xtask codegen";

/// The folder of generated Rust, relative to the workspace root.
pub const RUST_DIR: &str = "crates/proto/src/generated";

pub fn run(root: &Path, mode: Mode) -> anyhow::Result<()> {
    let outputs = outputs(root)?;
    match mode {
        Mode::Check => {
            let stale = check(root, &outputs)?;
            if !stale.is_empty() {
                bail!(
                    "generated files are stale:\n{}\nrun `{COMMAND}` and commit the result",
                    stale
                        .iter()
                        .map(|line| format!("  {line}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
            }
            sayln!("codegen: {} generated files are current", outputs.len());
        }
        Mode::Write => {
            let written = write(root, &outputs)?;
            sayln!(
                "codegen: wrote {written} file(s), {} current",
                outputs.len() - written
            );
        }
    }
    Ok(())
}

/// Every generated file, by path relative to the root, with its full text.
pub fn outputs(root: &Path) -> anyhow::Result<BTreeMap<PathBuf, String>> {
    let mut out = BTreeMap::new();
    let set = contract::SchemaSet::load(&root.join("contracts/schema"))
        .context("loading contracts/schema")?;
    for (file, text) in rust_bindings(&set, &Origin::working_tree())? {
        out.insert(PathBuf::from(RUST_DIR).join(file), text);
    }
    let version = crate::contracts::version(root)?;
    // One model for the C++ and TypeScript bindings and the reference pages.
    let model = model::model(&set)?;
    for (file, text) in cpp::files(&model, version.trim(), &Origin::working_tree())? {
        out.insert(PathBuf::from(cpp::DIR).join(file), text);
    }
    for (file, text) in ts::files(&model, version.trim(), &Origin::working_tree())? {
        out.insert(PathBuf::from(ts::DIR).join(file), text);
    }
    out.insert(
        PathBuf::from(CMAKE_LISTS),
        package::cmake(version.trim(), &Origin::working_tree()),
    );
    out.extend(reference::pages(root, &set, &model, &version)?);
    out.insert(
        PathBuf::from(SCHEMAS_RS),
        rust_file(
            "the schema set, compiled into the checker",
            &embedded_schemas(root, &set)?,
        )?,
    );
    Ok(out)
}

/// Which command wrote a generated file, from which schemas: its first line says so.
pub struct Origin {
    pub command: &'static str,
    pub schemas: String,
}

impl Origin {
    pub fn working_tree() -> Self {
        Origin {
            command: COMMAND,
            schemas: "contracts/schema/".into(),
        }
    }
}

/// The Rust bindings of a schema set: `types.rs` (typify) and `tables.rs`,
/// by file name. A release freezes these beside its schemas.
pub fn rust_bindings(
    set: &contract::SchemaSet,
    origin: &Origin,
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let bundle = bundle::bundle(set)?;
    let model = model::model(set)?;
    let tables = tables::tables(set, &model, &bundle)?;
    let types = bundle::typify(&bundle, &tables.replaced)?;
    let mut types: syn::File =
        syn::parse2(types).context("typify wrote code that does not parse")?;
    bundle::patch_nullable(&mut types, &bundle.nullable_optional)?;
    bundle::open_enums(&mut types);
    bundle::keep_present_empties(&mut types);
    bundle::refuse_null_where_absent_is_meant(&mut types);
    bundle::open_structs(&mut types);
    let types = quote::ToTokens::to_token_stream(&types);
    Ok(vec![
        (
            "types.rs",
            rust_file_from(
                origin,
                "the contract's types, methods, events and envelope",
                &types,
            )?,
        ),
        (
            "tables.rs",
            rust_file_from(
                origin,
                "the envelope, its bodies, enums typify cannot write, and tables read from schema annotations",
                &tables.tokens,
            )?,
        ),
    ])
}

/// The C++ bindings (`contract.hpp`, `frame.hpp`) and the TypeScript ones
/// (`index.js`, `index.d.ts`) of a schema set, each by file name, from one
/// model of it.
pub fn cpp_and_ts_bindings(
    set: &contract::SchemaSet,
    version: &str,
    origin: &Origin,
) -> anyhow::Result<[Vec<(&'static str, String)>; 2]> {
    let model = model::model(set)?;
    Ok([
        cpp::files(&model, version, origin)?,
        ts::files(&model, version, origin)?,
    ])
}

/// The working tree's C++ bindings as a CMake target.
const CMAKE_LISTS: &str = "bindings/cpp/CMakeLists.txt";

/// What a release freezes beside its bindings so a lane can depend on it:
/// `cpp/CMakeLists.txt` and `ts/package.json`, by path inside the release.
pub fn release_packages(version: &str, origin: &Origin) -> [(&'static str, String); 2] {
    [
        ("cpp/CMakeLists.txt", package::cmake(version, origin)),
        ("ts/package.json", package::npm(version)),
    ]
}

/// The schema sets inside the conformance checker, so a lane installs one
/// binary and needs no files beside it. As bytes: a schema that is not UTF-8
/// is the checker's error, naming the file, not `include_str!`'s, which
/// stopped the crate compiling. The xtask builds the checker without them
/// (feature `embedded`), so a schema renamed or removed, which leaves this
/// file naming what is gone, still lets codegen and the gate run.
const SCHEMAS_RS: &str = "crates/conformance/src/generated/schemas.rs";

fn embedded_schemas(
    root: &Path,
    set: &contract::SchemaSet,
) -> anyhow::Result<proc_macro2::TokenStream> {
    let rels: Vec<&str> = set.docs.iter().map(|doc| doc.rel.as_str()).collect();
    let paths = rels
        .iter()
        .map(|rel| format!("../../../../contracts/schema/{rel}"));
    let version = crate::contracts::version(root)?;
    let version = version.as_str();
    // Every frozen release too, so a lane pinned to one checks against it.
    let mut releases = Vec::new();
    for (name, dir) in crate::contracts::releases(root)? {
        let frozen = contract::SchemaSet::load(&dir.join("schema"))
            .with_context(|| format!("loading contracts/released/{name}/schema"))?;
        let rels: Vec<&str> = frozen.docs.iter().map(|doc| doc.rel.as_str()).collect();
        let paths = rels
            .iter()
            .map(|rel| format!("../../../../contracts/released/{name}/schema/{rel}"));
        releases.push(quote::quote! {
            (#name, &[#((#rels, include_bytes!(#paths).as_slice())),*])
        });
    }
    Ok(quote::quote! {
        /// The working tree's contract version (`contracts/VERSION`).
        pub const VERSION: &str = #version;

        /// Every schema file, by its path under `contracts/schema/`.
        pub const SCHEMAS: &[(&str, &[u8])] = &[#((#rels, include_bytes!(#paths).as_slice())),*];

        /// Every frozen release's schema files, oldest first.
        pub const RELEASES: &[(&str, &[(&str, &[u8])])] = &[#(#releases),*];
    })
}

/// Paths that differ from what codegen would write, with why.
pub fn check(root: &Path, outputs: &BTreeMap<PathBuf, String>) -> anyhow::Result<Vec<String>> {
    let mut stale = Vec::new();
    for (path, text) in outputs {
        match std::fs::read_to_string(root.join(path)) {
            Ok(current) if current == *text => {}
            // A checkout that turned LF into CRLF (core.autocrlf on Windows
            // before .gitattributes said eol=lf) is not a stale file.
            Ok(current) if current.replace("\r\n", "\n") == *text => stale.push(format!(
                "{}: differs only in its line endings (CRLF where codegen writes LF); check it out again with LF, as .gitattributes asks",
                path.display()
            )),
            // The reference pages quote the valid fixtures as examples:
            // an edited fixture makes its page stale too.
            Ok(_) if path.starts_with("docs/reference") => {
                let quoted = reference::quoted_fixtures(text);
                let quotes = if quoted.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", quoted.join(", "))
                };
                stale.push(format!(
                    "{}: differs from what the schemas and the valid fixtures it quotes{quotes} generate",
                    path.display()
                ))
            }
            Ok(_) => stale.push(format!(
                "{}: differs from what the schemas generate",
                path.display()
            )),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                stale.push(format!("{}: missing", path.display()))
            }
            Err(err) => return Err(anyhow!(err).context(format!("reading {}", path.display()))),
        }
    }
    for dir in generated_dirs(outputs) {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten().filter(|e| e.path().is_file()) {
            let path = dir.join(entry.file_name());
            if !outputs.contains_key(&path) {
                stale.push(format!(
                    "{}: not generated by anything; remove it",
                    path.display()
                ));
            }
        }
    }
    stale.sort();
    Ok(stale)
}

/// Writes what changed; each file goes to a temporary sibling first and is
/// renamed into place, so an interrupted run leaves no half-written file.
fn write(root: &Path, outputs: &BTreeMap<PathBuf, String>) -> anyhow::Result<usize> {
    let mut written = 0;
    for (path, text) in outputs {
        let full = root.join(path);
        if std::fs::read_to_string(&full).is_ok_and(|current| current == *text) {
            continue;
        }
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let tmp = full.with_extension("tmp~");
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &full)
            .with_context(|| format!("renaming onto {}", full.display()))?;
        written += 1;
    }
    for dir in generated_dirs(outputs) {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten().filter(|e| e.path().is_file()) {
            if !outputs.contains_key(&dir.join(entry.file_name())) {
                std::fs::remove_file(entry.path())
                    .with_context(|| format!("removing {}", entry.path().display()))?;
                written += 1;
            }
        }
    }
    Ok(written)
}

/// Folders that hold nothing but generated files (so anything else there is stale).
fn generated_dirs(outputs: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = outputs
        .keys()
        .filter_map(|path| path.parent().map(Path::to_path_buf))
        .filter(|dir| {
            dir.ends_with("generated")
                || dir.starts_with(reference::DIR)
                || dir.starts_with(cpp::DIR)
        })
        .collect();
    dirs.dedup();
    dirs
}

/// Formats Rust source: prettyplease gives every token stream a layout, then
/// rustfmt makes it the layout `cargo fmt --check` expects.
fn rust_file(what: &str, tokens: &proc_macro2::TokenStream) -> anyhow::Result<String> {
    rust_file_from(&Origin::working_tree(), what, tokens)
}

fn rust_file_from(
    origin: &Origin,
    what: &str,
    tokens: &proc_macro2::TokenStream,
) -> anyhow::Result<String> {
    let file: syn::File = syn::parse2(tokens.clone()).context("generated code does not parse")?;
    let pretty = prettyplease::unparse(&file);
    let Origin { command, schemas } = origin;
    let header = if *command == COMMAND {
        format!("// @generated by `{command}` from {schemas}: {what}.\n// Do not edit by hand; change the schemas or the generator and run `{command}`.\n\n")
    } else {
        format!("// @generated by `{command}` from {schemas}: {what}.\n// Frozen with the release; never edited.\n\n")
    };
    rustfmt(&format!("{header}{pretty}"))
}

fn rustfmt(source: &str) -> anyhow::Result<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running rustfmt (install it with `rustup component add rustfmt`)")?;
    let mut stdin = child.stdin.take().context("rustfmt stdin")?;
    let input = source.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().context("waiting for rustfmt")?;
    feeder
        .join()
        .map_err(|_| anyhow!("rustfmt feeder thread failed"))??;
    if !output.status.success() {
        bail!(
            "rustfmt failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8(output.stdout).context("rustfmt wrote non-UTF-8")
}

#[cfg(test)]
mod tests {
    /// The drift check as a test: `cargo test` fails on stale output too.
    #[test]
    fn generated_files_are_current() {
        let root = crate::root();
        let outputs = super::outputs(&root).unwrap_or_else(|err| panic!("codegen failed: {err:#}"));
        let stale = super::check(&root, &outputs).unwrap_or_else(|err| panic!("{err:#}"));
        assert!(
            stale.is_empty(),
            "generated files are stale; run `{}`:\n{}",
            super::COMMAND,
            stale.join("\n")
        );
    }

    /// The paths codegen writes, relative to `root`.
    fn generated_paths(root: &std::path::Path) -> Vec<String> {
        let outputs = super::outputs(root).unwrap_or_else(|err| panic!("codegen failed: {err:#}"));
        outputs
            .keys()
            .map(|path| path.to_string_lossy().into_owned())
            .collect()
    }

    /// Git checks every generated file out with LF, as codegen writes it,
    /// whatever `core.autocrlf` says (Git for Windows sets it): otherwise a
    /// Windows lane's gate finds every generated file stale. Frame fixtures
    /// are bytes, never converted.
    #[test]
    fn git_checks_generated_files_out_as_codegen_writes_them() {
        let root = crate::root();
        let mut paths = generated_paths(&root);
        let frames = std::fs::read_dir(root.join("conformance/frames"))
            .unwrap_or_else(|err| panic!("conformance/frames: {err}"));
        let bins: Vec<String> = frames
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".bin"))
            .map(|name| format!("conformance/frames/{name}"))
            .collect();
        assert!(!bins.is_empty(), "no frame fixtures found");
        paths.extend(bins.iter().cloned());
        let attributes = git_attributes(&root, &paths);
        let mut wrong = Vec::new();
        for path in &paths {
            let of = |name: &str| {
                attributes
                    .get(&(path.clone(), name.to_string()))
                    .map(String::as_str)
                    .unwrap_or("(none)")
                    .to_string()
            };
            let (text, eol) = (of("text"), of("eol"));
            let right = if bins.contains(path) {
                text == "unset"
            } else {
                eol == "lf" && text != "unset"
            };
            if !right {
                wrong.push(format!("{path}: text {text}, eol {eol}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// No two files or folders of the tree, nor of what codegen writes,
    /// differ only in case: where case is ignored (macOS's and Windows'
    /// file systems by default) they are one, and a clone keeps one of them.
    #[test]
    fn no_two_paths_of_the_tree_differ_only_in_case() {
        let root = crate::root();
        let mut paths = generated_paths(&root);
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            let entries = std::fs::read_dir(&dir).unwrap_or_else(|err| panic!("{dir:?}: {err}"));
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                if dir == root && (name == "target" || name == ".git") || name == "node_modules" {
                    continue;
                }
                if let Ok(rel) = path.strip_prefix(&root) {
                    paths.push(rel.to_string_lossy().into_owned());
                }
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    pending.push(path);
                }
            }
        }
        paths.sort();
        paths.dedup();
        assert!(paths.len() > 500, "{} paths", paths.len());
        let mut seen = std::collections::BTreeMap::new();
        let mut clashes = Vec::new();
        for path in &paths {
            if let Some(first) = seen.insert(path.to_lowercase(), path) {
                clashes.push(format!("{first} and {path}"));
            }
        }
        assert!(clashes.is_empty(), "{}", clashes.join("\n"));
    }

    /// `git check-attr text eol` of `paths`, by (path, attribute).
    fn git_attributes(
        root: &std::path::Path,
        paths: &[String],
    ) -> std::collections::BTreeMap<(String, String), String> {
        use std::io::Write as _;
        // An empty repository of its own, over the root as its work tree:
        // attributes come from the tree's .gitattributes, so this holds in
        // a copy without .git too (an archive a newcomer downloaded).
        let scratch = std::env::temp_dir().join(format!("vdm-attributes-{}", std::process::id()));
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(&scratch)
            .status()
            .unwrap_or_else(|err| panic!("git init: {err}"));
        assert!(status.success(), "git init: {status}");
        let mut child = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(scratch.join(".git"))
            .arg("--work-tree")
            .arg(root)
            .args(["check-attr", "--stdin", "-z", "text", "eol"])
            .current_dir(root)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("git check-attr: {err}"));
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("git's stdin"));
        let input: String = paths.iter().map(|path| format!("{path}\0")).collect();
        // Written from a thread: git answers as it reads, and a full pipe
        // both ways would block both sides.
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child
            .wait_with_output()
            .unwrap_or_else(|err| panic!("git check-attr: {err}"));
        writer
            .join()
            .unwrap_or_else(|_| panic!("writer"))
            .unwrap_or_else(|err| panic!("writing to git: {err}"));
        let _ = std::fs::remove_dir_all(&scratch);
        assert!(output.status.success(), "git check-attr: {}", output.status);
        let text = String::from_utf8(output.stdout).unwrap_or_else(|err| panic!("{err}"));
        let fields: Vec<&str> = text.split('\0').collect();
        fields
            .chunks_exact(3)
            .map(|chunk| {
                (
                    (chunk[0].to_string(), chunk[1].to_string()),
                    chunk[2].to_string(),
                )
            })
            .collect()
    }

    /// No generated line ends in a blank, and every file ends in a newline:
    /// a lane that vendors the bindings may run a whitespace check on them.
    #[test]
    fn generated_files_have_no_trailing_blanks() {
        let outputs =
            super::outputs(&crate::root()).unwrap_or_else(|err| panic!("codegen failed: {err:#}"));
        let mut found = Vec::new();
        for (path, text) in &outputs {
            if !text.ends_with('\n') {
                found.push(format!("{}: no newline at the end", path.display()));
            }
            for (index, line) in text.lines().enumerate() {
                if line.ends_with([' ', '\t']) {
                    found.push(format!("{}:{}: {line:?}", path.display(), index + 1));
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }

    /// The generated Rust `types.rs` of `set`.
    fn rust_types(set: &contract::SchemaSet) -> String {
        let files = super::rust_bindings(set, &super::Origin::working_tree())
            .unwrap_or_else(|err| panic!("{err:#}"));
        files
            .into_iter()
            .find(|(name, _)| *name == "types.rs")
            .map(|(_, text)| text)
            .unwrap_or_else(|| panic!("types.rs"))
    }

    /// An optional field added (a minor change) leaves the Rust code that
    /// builds and reads the struct as `docs/bindings.md` says compiling:
    /// the struct is `#[non_exhaustive]` and its `new` takes the same
    /// arguments before and after. A required field added changes `new`.
    #[test]
    fn an_added_optional_field_keeps_new_as_it_was() {
        let new_of = |set: &contract::SchemaSet| -> String {
            let types = rust_types(set);
            let at = types
                .find("pub struct DownloadSpec {")
                .unwrap_or_else(|| panic!("DownloadSpec"));
            let before = types.get(..at).unwrap_or_default();
            assert!(
                before.trim_end().ends_with("#[non_exhaustive]"),
                "DownloadSpec is not #[non_exhaustive]"
            );
            let start = types
                .find("impl DownloadSpec {")
                .unwrap_or_else(|| panic!("DownloadSpec::new"));
            let rest = types.get(start..).unwrap_or_default();
            let signature = rest
                .lines()
                .find(|line| line.contains("pub fn new("))
                .unwrap_or_else(|| panic!("new"));
            signature.trim().to_string()
        };
        let dir = crate::root().join("contracts/schema");
        let set = contract::SchemaSet::load(&dir).unwrap_or_else(|err| panic!("{err}"));
        let before = new_of(&set);
        assert_eq!(before, "pub fn new(url: ::std::string::String) -> Self {");
        let with = |required: bool| {
            let mut set = set.clone();
            let spec = set
                .docs
                .iter_mut()
                .find(|doc| doc.rel == "types/DownloadSpec.json")
                .unwrap_or_else(|| panic!("DownloadSpec"));
            spec.value["properties"]["mirror"] =
                serde_json::json!({"type": "string", "maxLength": 10, "description": "x"});
            if required {
                spec.value["required"] = serde_json::json!(["mirror", "url"]);
            }
            new_of(&set)
        };
        assert_eq!(with(false), before);
        assert_ne!(with(true), before);
    }

    /// A field newer than its type says so in its Rust doc comment.
    #[test]
    fn a_field_newer_than_its_type_says_so_in_its_docs() {
        let dir = crate::root().join("contracts/schema");
        let mut set = contract::SchemaSet::load(&dir).unwrap_or_else(|err| panic!("{err}"));
        let spec = set
            .docs
            .iter_mut()
            .find(|doc| doc.rel == "types/DownloadSpec.json")
            .unwrap_or_else(|| panic!("DownloadSpec"));
        spec.value["properties"]["mirror"] = serde_json::json!(
            {"type": "string", "description": "A mirror.", "x-since": "9.8.7"}
        );
        assert!(
            rust_types(&set).contains("///A mirror. (since contract 9.8.7)"),
            "the field's x-since is not in its doc comment"
        );
    }
}

#[cfg(test)]
mod stale {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    /// A stale reference page is said to follow the fixtures it quotes as
    /// well as the schemas, naming them: an edited valid fixture makes it
    /// stale too.
    #[test]
    fn a_stale_file_says_what_it_is_generated_from() {
        let root = std::env::temp_dir().join(format!("vdm-stale-{}", std::process::id()));
        std::fs::create_dir_all(root.join("docs/reference/types")).expect("a scratch folder");
        std::fs::create_dir_all(root.join("bindings/ts")).expect("a scratch folder");
        std::fs::write(root.join("docs/reference/types/Segment.md"), "old").expect("written");
        std::fs::write(root.join("bindings/ts/index.js"), "old").expect("written");
        std::fs::write(root.join("bindings/ts/index.d.ts"), "a\r\nb\r\n").expect("written");
        let outputs: BTreeMap<PathBuf, String> = [
            (
                "docs/reference/types/Segment.md",
                "new\n\nA value (`conformance/valid/segment_complete.json`):\n",
            ),
            ("bindings/ts/index.js", "new"),
            ("bindings/ts/index.d.ts", "a\nb\n"),
        ]
        .into_iter()
        .map(|(path, text)| (PathBuf::from(path), text.to_string()))
        .collect();
        let stale = super::check(&root, &outputs).expect("checked");
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            stale,
            [
                "bindings/ts/index.d.ts: differs only in its line endings (CRLF where codegen writes LF); check it out again with LF, as .gitattributes asks",
                "bindings/ts/index.js: differs from what the schemas generate",
                "docs/reference/types/Segment.md: differs from what the schemas and the valid fixtures it quotes (conformance/valid/segment_complete.json) generate",
            ]
        );
    }
}
