//! `cargo xtask release`: freezes the current contract under
//! `contracts/released/<VERSION>/` — the schemas, the valid fixtures, and the
//! bindings generated from them (`rust/`, `cpp/include/vdm/`, `ts/`) — once. The frozen bindings
//! are what a lane pinned to that version runs; the top-level `tests/` crate
//! compiles every release's and reads every other release's fixtures with
//! them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

pub fn run(root: &Path) -> anyhow::Result<()> {
    let version = crate::contracts::version(root)?;
    let version = version.as_str();
    compat::declared_bump("0.0.0", version).map_err(anyhow::Error::msg)?;
    let dest = root.join("contracts/released").join(version);
    if dest.exists() {
        bail!("contracts/released/{version} exists: a release is frozen; bump contracts/VERSION for a new one");
    }
    // Before anything is written: a version that does not move past the
    // latest release is refused as it is, with nothing regenerated.
    if let Some((latest, _)) = crate::contracts::latest(root)? {
        compat::declared_bump(&latest, version).map_err(anyhow::Error::msg)?;
    }
    changelog_has(root, version)?;
    // What carries VERSION is regenerated first, so a release made right
    // after bumping VERSION is judged on current files.
    crate::codegen::run(root, crate::codegen::Mode::Write)?;
    crate::gate(root).context("the gate must pass before a release")?;
    // Copy into a temporary folder first, so a failure leaves no half release.
    let staging = root
        .join("contracts/released")
        .join(format!(".{version}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    copy_dir(&root.join("contracts/schema"), &staging.join("schema"))?;
    copy_dir(&root.join("conformance/valid"), &staging.join("valid"))?;
    freeze_bindings(&staging, version, &|_| false)?;
    crate::frozen::seal(&staging)?;
    std::fs::rename(&staging, &dest)
        .with_context(|| format!("moving the release into {}", dest.display()))?;
    sayln!("released {version} into contracts/released/{version}");
    // vdm-conform compiles every release in: its embedded list grows.
    crate::codegen::run(root, crate::codegen::Mode::Write)?;
    Ok(())
}

/// The changelog's entry for `version` is written before the release
/// (README, "Changing the contract", step 7): it is what the other lanes
/// read of it.
fn changelog_has(root: &Path, version: &str) -> anyhow::Result<()> {
    let path = root.join("contracts/CHANGELOG.md");
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let text = contract::utf8(&path, &bytes)?;
    let heading = format!("## {version}");
    if !text.lines().any(|line| heads_section_of(line, version)) {
        bail!(
            "contracts/CHANGELOG.md has no `{heading}` section: write the release's entry from \
             `cargo xtask compat` first (README, \"Changing the contract\", step 7)"
        );
    }
    Ok(())
}

/// Whether `line` is the heading of `version`'s section: `## 1.2.0`, and
/// as other changelogs write it, `## [1.2.0]`, `## 1.2.0 - 2026-12-04` or
/// `## 1.2.0 (2026-12-04)` — but not `## 1.2.0.1` or `## 1.2.01`.
fn heads_section_of(line: &str, version: &str) -> bool {
    let Some(rest) = line.strip_prefix("## ") else {
        return false;
    };
    let (rest, bracketed) = match rest.trim_start().strip_prefix('[') {
        Some(inner) => (inner, true),
        None => (rest.trim_start(), false),
    };
    let Some(rest) = rest.strip_prefix(version) else {
        return false;
    };
    let rest = match (bracketed, rest.strip_prefix(']')) {
        (true, Some(after)) => after,
        (true, None) => return false,
        (false, _) => rest,
    };
    rest.is_empty() || rest.starts_with(char::is_whitespace)
}

/// Where a release keeps its frozen Rust bindings.
pub const BINDINGS_DIR: &str = "rust";

/// The folders inside a release that hold each language's frozen bindings.
const LANGUAGES: [&str; 3] = [BINDINGS_DIR, "cpp/include/vdm", "ts"];

/// What a release's generated files say they came from.
fn origin(version: &str) -> crate::codegen::Origin {
    crate::codegen::Origin {
        command: "cargo xtask release",
        schemas: format!("contracts/released/{version}/schema/"),
    }
}

/// Each language's folder and the files the generator writes into it from
/// `<release>/schema/`.
type Bindings = Vec<(&'static str, Vec<(&'static str, String)>)>;

fn schemas_of(release: &Path, version: &str) -> anyhow::Result<contract::SchemaSet> {
    contract::SchemaSet::load(&release.join("schema"))
        .with_context(|| format!("loading the schemas of {version}"))
}

fn bindings_of(release: &Path, version: &str) -> anyhow::Result<Bindings> {
    let set = schemas_of(release, version)?;
    let origin = origin(version);
    let [cpp, ts] = crate::codegen::cpp_and_ts_bindings(&set, version, &origin)?;
    let rust = crate::codegen::rust_bindings(&set, &origin)?;
    Ok(LANGUAGES.into_iter().zip([rust, cpp, ts]).collect())
}

/// Writes each language's bindings from `<release>/schema/`, skipping the
/// folders `keep` says exist already.
fn freeze_bindings(
    release: &Path,
    version: &str,
    keep: &dyn Fn(&str) -> bool,
) -> anyhow::Result<()> {
    for (folder, files) in bindings_of(release, version)? {
        if keep(folder) {
            continue;
        }
        let dir = release.join(folder);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        for (file, text) in files {
            std::fs::write(dir.join(file), text)
                .with_context(|| format!("writing {}", dir.join(file).display()))?;
        }
    }
    write_packages(release, version, false)?;
    Ok(())
}

/// The frozen C++ and TypeScript binding folders that differ from what the
/// generator writes today from their release's schemas (blanks at line ends
/// aside), as `(version, folder)`: a reader fix made since has not reached
/// the lanes pinned to that release. (The Rust bindings read through today's `proto::wire`,
/// so its fixes reach them; their own code stays as frozen.)
pub fn lagging(root: &Path) -> anyhow::Result<Vec<(String, &'static str)>> {
    let mut out = Vec::new();
    for (version, release) in crate::contracts::releases(root)? {
        let set = schemas_of(&release, &version)?;
        let [cpp, ts] = crate::codegen::cpp_and_ts_bindings(&set, &version, &origin(&version))?;
        let [_, cpp_dir, ts_dir] = LANGUAGES;
        for (folder, files) in [(cpp_dir, cpp), (ts_dir, ts)] {
            let dir = release.join(folder);
            // Blanks at the ends of lines aside: what lanes build is the same.
            let lines = |text: &str| -> Vec<String> {
                text.lines()
                    .map(|line| line.trim_end().to_string())
                    .collect()
            };
            let current = files.iter().all(|(file, text)| {
                std::fs::read_to_string(dir.join(file))
                    .is_ok_and(|frozen| lines(&frozen) == lines(text))
            });
            if !current {
                out.push((version.clone(), folder));
            }
        }
    }
    Ok(out)
}

/// Names each frozen binding folder that [`lagging`] finds. Not a failure:
/// a release's bindings are frozen until someone chooses to give its lanes
/// today's readers.
pub fn notice_lagging(root: &Path) -> anyhow::Result<()> {
    for (version, folder) in lagging(root)? {
        sayln!(
            "notice: the {folder} bindings of {version} are not what codegen writes from its schemas \
             today; to give lanes pinned to it today's readers and writers, remove \
             contracts/released/{version}/{folder} and run `cargo xtask release --backfill-bindings`"
        );
    }
    Ok(())
}

/// Writes the CMake target and the npm manifest of a release (only those
/// missing, unless `all`).
fn write_packages(release: &Path, version: &str, all: bool) -> anyhow::Result<Vec<&'static str>> {
    let mut written = Vec::new();
    for (file, text) in crate::codegen::release_packages(version, &origin(version)) {
        let path = release.join(file);
        if !all && path.exists() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written.push(file);
    }
    Ok(written)
}

/// `cargo xtask release --backfill-bindings`: gives each release frozen
/// before a language's bindings were frozen with it that language's folder,
/// from its own schemas, and its CMake target and npm manifest. What exists
/// is left alone; a folder removed first is generated again (how a reader
/// fix reaches a release's C++ and TypeScript bindings).
pub fn backfill_bindings(root: &Path) -> anyhow::Result<()> {
    let dir = root.join("contracts/released");
    for (version, release) in crate::contracts::releases(root)? {
        // Which folders exist is settled before the packages are written:
        // an npm manifest makes a `ts/` folder of its own.
        let had: Vec<&str> = LANGUAGES
            .into_iter()
            .filter(|folder| release.join(folder).exists())
            .collect();
        let has = |folder: &str| had.contains(&folder);
        // The list is written again below: a file edited since the release
        // was frozen must not be sealed in with what this adds. What this
        // writes again may be gone: a removed language folder, a package.
        let packages =
            crate::codegen::release_packages(&version, &origin(&version)).map(|(file, _)| file);
        let regenerated = |path: &str| {
            packages.contains(&path)
                || LANGUAGES
                    .iter()
                    .any(|folder| !has(folder) && path.starts_with(&format!("{folder}/")))
        };
        let differences = crate::frozen::differences(&release)?;
        let unsealed = differences
            .iter()
            .any(|d| matches!(d, crate::frozen::Difference::Unsealed));
        let kept: Vec<String> = differences
            .iter()
            .filter(|d| match d {
                crate::frozen::Difference::Unsealed => false,
                crate::frozen::Difference::Gone(path) => !regenerated(path),
                _ => true,
            })
            .map(|d| d.shown(&release))
            .collect();
        if !kept.is_empty() {
            bail!(
                "{version} differs from what was frozen, so nothing is added to it:\n{}",
                kept.join("\n")
            );
        }
        for file in write_packages(&release, &version, false)? {
            sayln!("gave {version} its {file}");
        }
        if LANGUAGES.iter().all(|folder| has(folder)) {
            crate::frozen::seal(&release)?;
            if unsealed {
                sayln!(
                    "sealed {version} as it is: contracts/released/{version}/{}",
                    crate::frozen::SUMS
                );
            }
            continue;
        }
        // Written beside, then renamed, so a failure leaves no half folder.
        let staging = dir.join(format!(".{version}.bindings.partial"));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging)?;
        copy_dir(&release.join("schema"), &staging.join("schema"))?;
        freeze_bindings(&staging, &version, &has)?;
        for folder in LANGUAGES.iter().filter(|folder| !has(folder)) {
            let target = release.join(folder);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            if target.exists() {
                // Only what `write_packages` put there: the files join it.
                for entry in std::fs::read_dir(staging.join(folder))? {
                    let entry = entry?;
                    std::fs::rename(entry.path(), target.join(entry.file_name()))?;
                }
            } else {
                std::fs::rename(staging.join(folder), &target)?;
            }
            sayln!("froze the {folder} bindings of {version} into contracts/released/{version}/{folder}");
        }
        std::fs::remove_dir_all(&staging)?;
        crate::frozen::seal(&release)?;
    }
    Ok(())
}

/// Copies a folder's files and folders. Links to folders are followed, as
/// the schema loader follows them, each real folder once: one met again
/// (a link back up) is an error, not a copy without end.
pub(crate) fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    copy_dir_once(from, to, &mut std::collections::HashSet::new())
}

fn copy_dir_once(
    from: &Path,
    to: &Path,
    copied: &mut std::collections::HashSet<PathBuf>,
) -> anyhow::Result<()> {
    let real =
        std::fs::canonicalize(from).with_context(|| format!("reading {}", from.display()))?;
    if !copied.insert(real) {
        bail!(
            "{}: a folder already copied, reached again through a symbolic link",
            from.display()
        );
    }
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir_once(&entry.path(), &target, copied)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use anyhow::Context;

    use crate::scratch::{said, Scratch};

    /// A linked-in folder is copied; a link back up is named, and the copy
    /// stops instead of nesting copies until paths grow too long.
    #[cfg(unix)]
    #[test]
    fn a_folder_linked_back_up_is_named_not_copied_without_end() -> anyhow::Result<()> {
        use std::os::unix::fs::symlink;
        let dir = std::env::temp_dir().join(format!("xtask-copy-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (from, shared) = (dir.join("from"), dir.join("shared"));
        std::fs::create_dir_all(&from)?;
        std::fs::create_dir_all(&shared)?;
        std::fs::write(shared.join("a.json"), "{}")?;
        symlink(&shared, from.join("types"))?;
        let linked = super::copy_dir(&from, &dir.join("linked"));
        let copied = std::fs::read_to_string(dir.join("linked/types/a.json"));
        symlink("..", shared.join("up"))?;
        let looped = super::copy_dir(&from, &dir.join("looped"));
        let _ = std::fs::remove_dir_all(&dir);
        linked?;
        assert_eq!(copied?, "{}");
        let err = looped.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.ends_with("a folder already copied, reached again through a symbolic link"),
            "{err}"
        );
        Ok(())
    }

    /// What a step of the README's "Changing the contract" does, read from
    /// its text.
    #[derive(Debug, PartialEq)]
    enum Step {
        Edit,
        Compat,
        Bump,
        Codegen,
        Fixtures,
        Gate,
        Changelog,
        Release,
    }

    /// The README's numbered steps under "Changing the contract", in order.
    fn readme_steps(readme: &str) -> anyhow::Result<Vec<Step>> {
        let section = readme
            .split("## Changing the contract\n")
            .nth(1)
            .context("the README has a \"Changing the contract\" section")?;
        let mut steps = Vec::new();
        for line in section.lines().take_while(|line| !line.starts_with('#')) {
            let Some((number, text)) = line.split_once(". ") else {
                continue;
            };
            if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let step = [
                ("Edit the schema", Step::Edit),
                ("`cargo xtask compat`", Step::Compat),
                ("Bump `contracts/VERSION`", Step::Bump),
                ("`cargo xtask codegen`", Step::Codegen),
                ("Add valid fixtures", Step::Fixtures),
                ("`cargo xtask gate`", Step::Gate),
                ("CHANGELOG", Step::Changelog),
                ("`cargo xtask release`", Step::Release),
            ]
            .into_iter()
            .find(|(words, _)| text.contains(words))
            .map(|(_, step)| step)
            .with_context(|| format!("the walk does not know README step {number}: {text}"))?;
            steps.push(step);
        }
        Ok(steps)
    }

    /// Runs `cargo xtask ARGS` in the copy; whether it passed, with what it
    /// printed when it did not.
    fn xtask(scratch: &Scratch, args: &[&str]) -> anyhow::Result<bool> {
        let output = scratch.xtask(args)?;
        if !output.status.success() {
            tell!("cargo xtask {}:\n{}", args.join(" "), said(&output));
        }
        Ok(output.status.success())
    }

    /// A changelog section is found under the headings changelogs write,
    /// and not under another version's that starts alike.
    #[test]
    fn a_section_is_found_under_the_usual_headings() {
        for line in [
            "## 1.2.0",
            "## 1.2.0  ",
            "## [1.2.0]",
            "## [1.2.0] - 2026-12-04",
            "## 1.2.0 - 2026-12-04",
            "## 1.2.0 (2026-12-04)",
        ] {
            assert!(super::heads_section_of(line, "1.2.0"), "{line}");
        }
        for line in [
            "## 1.2.0.1",
            "## 1.2.01",
            "## [1.2.0",
            "## 11.2.0",
            "### 1.2.0",
            "- 1.2.0",
            "## [1.2.0.1]",
        ] {
            assert!(!super::heads_section_of(line, "1.2.0"), "{line}");
        }
    }

    /// A release without its changelog entry is refused before anything
    /// is written.
    #[test]
    fn a_release_without_its_changelog_entry_is_refused() -> anyhow::Result<()> {
        let copy = Scratch::new("release-no-changelog")?;
        std::fs::write(copy.dir.join("contracts/VERSION"), "1.9.0\n")?;
        let Err(err) = super::run(&copy.dir) else {
            panic!("released without a changelog entry");
        };
        assert!(
            format!("{err:#}").contains("contracts/CHANGELOG.md has no `## 1.9.0` section"),
            "{err:#}"
        );
        assert!(!copy.dir.join("contracts/released/1.9.0").exists());
        assert!(!copy.dir.join("contracts/released/.1.9.0.partial").exists());
        Ok(())
    }

    /// A VERSION behind the latest release is refused before anything is
    /// regenerated: the files that carry VERSION are left as they were.
    #[test]
    fn a_version_behind_the_latest_release_is_refused_with_nothing_written() -> anyhow::Result<()> {
        let copy = Scratch::new("release-behind")?;
        std::fs::write(copy.dir.join("contracts/VERSION"), "0.0.1\n")?;
        // With its changelog entry, so only the version's order stops it.
        let changelog = copy.dir.join("contracts/CHANGELOG.md");
        let text = std::fs::read_to_string(&changelog)?;
        std::fs::write(&changelog, format!("{text}\n## 0.0.1\n\nA patch.\n"))?;
        let carrier = copy.dir.join("bindings/ts/index.js");
        let before = std::fs::read(&carrier)?;
        let Err(err) = super::run(&copy.dir) else {
            panic!("released a version behind the latest release");
        };
        assert!(
            format!("{err:#}").contains("0.0.1") && format!("{err:#}").contains("older"),
            "{err:#}"
        );
        assert_eq!(std::fs::read(&carrier)?, before, "index.js was regenerated");
        assert!(!copy.dir.join("contracts/released/0.0.1").exists());
        Ok(())
    }

    /// `--backfill-bindings` generates a removed language folder again and
    /// seals the release with it; a release edited since it was frozen is
    /// refused, naming the file, and nothing is written.
    #[test]
    fn backfill_regenerates_a_removed_folder_and_refuses_an_edited_release() -> anyhow::Result<()> {
        let copy = Scratch::new("release-backfill")?;
        let (_, release) = crate::contracts::latest(&copy.dir)?.context("a release")?;
        std::fs::remove_dir_all(release.join("ts"))?;
        super::backfill_bindings(&copy.dir)?;
        assert!(release.join("ts/index.js").is_file());
        assert!(release.join("ts/package.json").is_file());
        crate::frozen::check(&copy.dir)?;
        let schema = release.join("schema/types/TaskId.json");
        let text = std::fs::read_to_string(&schema)?;
        std::fs::write(&schema, text.replace("\"pattern\"", "\"$comment\""))?;
        std::fs::remove_dir_all(release.join("ts"))?;
        let Err(err) = super::backfill_bindings(&copy.dir) else {
            panic!("backfilled an edited release");
        };
        let said = format!("{err:#}");
        assert!(
            said.contains("schema/types/TaskId.json: changed since the release was frozen"),
            "{said}"
        );
        assert!(!release.join("ts").exists());
        Ok(())
    }

    /// The README's release steps, walked in its order on a scratch copy of
    /// the repository with a new optional field: each step passes, the gate
    /// passes after the release, and the release holds every language.
    #[test]
    fn the_readme_release_steps_keep_the_gate_green() -> anyhow::Result<()> {
        let root = crate::root();
        let steps = readme_steps(&std::fs::read_to_string(root.join("README.md"))?)?;
        assert_eq!(steps.len(), 8, "{steps:?}");
        let copy = Scratch::new("release-walk")?;
        let scratch = &copy.dir;
        let (latest, _) = crate::contracts::latest(scratch)?.context("a release")?;
        let next = match latest.split('.').collect::<Vec<_>>().as_slice() {
            [major, minor, _] => format!("{major}.{}.0", minor.parse::<u64>()? + 1),
            _ => anyhow::bail!("{latest} is not MAJOR.MINOR.PATCH"),
        };
        let summary = scratch.join("contracts/schema/types/TaskSummary.json");
        // A field TaskSummary does not have yet, whatever later releases add.
        let present: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary)?)?;
        let field = (0..)
            .map(|n| match n {
                0 => "priority".to_string(),
                n => format!("priority{n}"),
            })
            .find(|name| present["properties"].get(name).is_none())
            .context("a free field name")?;
        for step in &steps {
            match step {
                Step::Edit => {
                    let mut doc: serde_json::Value =
                        serde_json::from_str(&std::fs::read_to_string(&summary)?)?;
                    doc["properties"][&field] = serde_json::json!({
                        "type": "integer", "minimum": 0, "maximum": 9,
                        "description": "How soon the daemon starts the task, 0 first.",
                        "x-since": next,
                    });
                    std::fs::write(&summary, serde_json::to_string_pretty(&doc)? + "\n")?;
                }
                // VERSION still names the release: compat asks for the bump.
                Step::Compat => assert!(!xtask(&copy, &["compat"])?, "compat asks for a bump"),
                Step::Bump => {
                    std::fs::write(scratch.join("contracts/VERSION"), format!("{next}\n"))?
                }
                Step::Codegen => assert!(xtask(&copy, &["codegen"])?, "codegen"),
                Step::Fixtures => {
                    let path = scratch.join("conformance/valid/event_task_added.json");
                    let mut fixture: serde_json::Value =
                        serde_json::from_str(&std::fs::read_to_string(&path)?)?;
                    fixture["value"]["body"]["params"]["task"][&field] = serde_json::json!(3);
                    std::fs::write(
                        scratch.join(format!("conformance/valid/event_task_added_{field}.json")),
                        serde_json::to_string_pretty(&fixture)?,
                    )?;
                }
                Step::Gate => assert!(xtask(&copy, &["gate"])?, "the gate before the release"),
                Step::Changelog => {
                    let path = scratch.join("contracts/CHANGELOG.md");
                    let mut text = std::fs::read_to_string(&path)?;
                    text.push_str(&format!("\n## {next}\n\n- TaskSummary gains `{field}`.\n"));
                    std::fs::write(&path, text)?;
                }
                Step::Release => assert!(xtask(&copy, &["release"])?, "the release"),
            }
        }
        assert!(xtask(&copy, &["gate"])?, "the gate after the release");
        let release = scratch.join("contracts/released").join(&next);
        for folder in super::LANGUAGES {
            assert!(release.join(folder).is_dir(), "{folder} frozen");
        }
        for file in ["cpp/CMakeLists.txt", "ts/package.json"] {
            assert!(release.join(file).is_file(), "{file} written");
        }
        Ok(())
    }

    /// A frozen binding that is not what the generator writes today is
    /// named (a notice, not a failure), and regenerating it clears that.
    #[test]
    fn bindings_older_than_the_generator_are_named() -> anyhow::Result<()> {
        let copy = Scratch::new("frozen-lagging")?;
        let (version, release) =
            crate::contracts::latest(&copy.dir)?.ok_or_else(|| anyhow::anyhow!("no release"))?;
        let header = release.join("cpp/include/vdm/frame.hpp");
        let mut text = std::fs::read_to_string(&header)?;
        text.push_str("// written by an older generator\n");
        std::fs::write(&header, text)?;
        crate::frozen::seal(&release)?;
        let lagging = super::lagging(&copy.dir)?;
        assert!(
            lagging.contains(&(version.clone(), "cpp/include/vdm")),
            "{lagging:?}"
        );
        super::notice_lagging(&copy.dir)?;
        crate::frozen::check(&copy.dir)?;
        std::fs::remove_dir_all(release.join("cpp/include/vdm"))?;
        super::backfill_bindings(&copy.dir)?;
        // Only the folder regenerated is asked about: another language's
        // frozen files lag whenever its generator has changed since.
        let lagging = super::lagging(&copy.dir)?;
        assert!(
            !lagging.contains(&(version.clone(), "cpp/include/vdm")),
            "{lagging:?}"
        );
        Ok(())
    }
}
