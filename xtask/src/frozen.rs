//! A release is frozen: `contracts/released/<version>/SHA256SUMS` lists the
//! SHA-256 of every file the release holds (`sha256sum -c SHA256SUMS` reads
//! it too), and the gate refuses a release whose files differ from it. An
//! edit there would otherwise pass unseen: compat judges the working tree
//! against the latest release's schemas, so a breaking change copied into
//! the release reads as no change at all.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context};
use sha2::{Digest, Sha256};

/// The file in each release's folder that lists its files' hashes.
pub const SUMS: &str = "SHA256SUMS";

/// Every file under `release` but the list itself, as `(relative path with
/// '/', SHA-256 in hex)`, sorted by path.
fn hashes(release: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    collect(release, "", &mut files)?;
    files.retain(|(path, _)| path != SUMS);
    files.sort();
    Ok(files)
}

fn collect(dir: &Path, prefix: &str, out: &mut Vec<(String, String)>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // No release holds a hidden file; a desktop's `.DS_Store` or an
        // editor's swap file beside the frozen ones is nothing anything reads.
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = format!("{prefix}{name}");
        // The entry's own type: a link to a folder is not followed, so a
        // link back up cannot make the walk endless.
        let kind = entry
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        if kind.is_dir() {
            collect(&path, &format!("{rel}/"), out)?;
        } else {
            // A FIFO would block the read, a folder behind a link fail it.
            if !std::fs::metadata(&path).is_ok_and(|meta| meta.is_file()) {
                bail!("{}: not a regular file", path.display());
            }
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let mut hex = String::with_capacity(64);
            for byte in Sha256::digest(&bytes) {
                let _ = write!(hex, "{byte:02x}");
            }
            out.push((rel, hex));
        }
    }
    Ok(())
}

/// Writes `release`'s list from the files it holds now.
pub fn seal(release: &Path) -> anyhow::Result<()> {
    let mut text = String::new();
    for (path, hex) in hashes(release)? {
        // `sha256sum`'s own format: hash, two spaces, path.
        let _ = writeln!(text, "{hex}  {path}");
    }
    let path = release.join(SUMS);
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

/// How a release's files differ from its list.
#[derive(Debug)]
pub enum Difference {
    /// The release has no list.
    Unsealed,
    /// A line of the list that is not `hash  path`, with its number.
    Malformed(usize),
    /// A listed file whose bytes are not the ones listed.
    Changed {
        path: String,
        now: String,
        listed: String,
    },
    /// A listed file that is not there.
    Gone(String),
    /// A file the list does not name.
    Unlisted(String),
}

impl Difference {
    /// The message for `release`'s folder, naming the file.
    pub fn shown(&self, release: &Path) -> String {
        let at = |rel: &str| format!("{}/{rel}", release.display());
        match self {
            Difference::Unsealed => format!(
                "{}: missing, so nothing says what the release froze; \
                 `cargo xtask release --backfill-bindings` writes it from the files as they are",
                at(SUMS)
            ),
            Difference::Malformed(line) => {
                format!("{}:{line}: not `SHA-256  path`", at(SUMS))
            }
            Difference::Changed { path, now, listed } => format!(
                "{}: changed since the release was frozen (its SHA-256 is {now}, {SUMS} says {listed})",
                at(path)
            ),
            Difference::Gone(path) => format!("{}: frozen in the release, and gone", at(path)),
            Difference::Unlisted(path) => format!(
                "{}: not part of the release as frozen ({SUMS} does not list it)",
                at(path)
            ),
        }
    }
}

/// How `release`'s files differ from its list; empty when they match.
pub fn differences(release: &Path) -> anyhow::Result<Vec<Difference>> {
    let list = release.join(SUMS);
    let bytes = match std::fs::read(&list) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(vec![Difference::Unsealed])
        }
        Err(err) => bail!("reading {}: {err}", list.display()),
    };
    let text = contract::utf8(&list, &bytes)?;
    let mut listed: Vec<(&str, &str)> = Vec::new();
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        match line.split_once("  ") {
            Some((hex, path)) if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                listed.push((path, hex));
            }
            _ => found.push(Difference::Malformed(index + 1)),
        }
    }
    let present = hashes(release)?;
    for (path, hex) in &listed {
        match present.iter().find(|(p, _)| p == path) {
            None => found.push(Difference::Gone(path.to_string())),
            Some((_, now)) if !now.eq_ignore_ascii_case(hex) => found.push(Difference::Changed {
                path: path.to_string(),
                now: now.clone(),
                listed: hex.to_string(),
            }),
            Some(_) => {}
        }
    }
    for (path, _) in &present {
        if !listed.iter().any(|(p, _)| p == path) {
            found.push(Difference::Unlisted(path.clone()));
        }
    }
    Ok(found)
}

/// Every release's files match its list.
pub fn check(root: &Path) -> anyhow::Result<()> {
    let mut count = 0;
    let releases = crate::contracts::releases(root)?;
    for (_, release) in &releases {
        for difference in differences(release)? {
            tell!(
                "{}",
                crate::lint::relative(root, &difference.shown(release))
            );
            count += 1;
        }
    }
    if count > 0 {
        bail!(
            "releases: {count} difference(s) from what was frozen; a release is never edited: \
             undo the change, or bump contracts/VERSION and release anew"
        );
    }
    sayln!("releases: {} frozen as listed", releases.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scratch::Scratch;

    /// An edited, removed or added file in a release is named; the list
    /// written from the files as they are then matches.
    #[test]
    fn a_release_edited_after_it_was_frozen_is_named() -> anyhow::Result<()> {
        let copy = Scratch::new("frozen-edited")?;
        let (_, release) =
            crate::contracts::latest(&copy.dir)?.ok_or_else(|| anyhow::anyhow!("no release"))?;
        let shown = |found: Vec<super::Difference>| -> Vec<String> {
            found.iter().map(|d| d.shown(&release)).collect()
        };
        assert_eq!(shown(super::differences(&release)?), Vec::<String>::new());
        let schema = release.join("schema/types/TaskId.json");
        let text = std::fs::read_to_string(&schema)?;
        std::fs::write(&schema, text.replace("\"pattern\"", "\"$comment\""))?;
        std::fs::remove_file(release.join("ts/package.json"))?;
        std::fs::write(release.join("valid/extra.json"), "{}")?;
        std::fs::write(release.join("ts/.DS_Store"), "")?;
        // A link back up is named, not walked for ever.
        #[cfg(unix)]
        {
            let link = release.join("cpp/loop");
            std::os::unix::fs::symlink(&release, &link)?;
            let Err(err) = super::differences(&release) else {
                panic!("a link to a folder was walked");
            };
            assert!(
                format!("{err:#}").contains("cpp/loop: not a regular file"),
                "{err:#}"
            );
            std::fs::remove_file(&link)?;
        }
        let found = shown(super::differences(&release)?);
        let at = |rel: &str| format!("{}/{rel}", release.display());
        let [changed, gone, extra] = found.as_slice() else {
            panic!("three differences: {found:#?}");
        };
        assert!(changed.starts_with(&format!(
            "{}: changed since the release was frozen",
            at("schema/types/TaskId.json")
        )));
        assert_eq!(
            *gone,
            format!("{}: frozen in the release, and gone", at("ts/package.json"))
        );
        assert_eq!(
            *extra,
            format!(
                "{}: not part of the release as frozen (SHA256SUMS does not list it)",
                at("valid/extra.json")
            )
        );
        let Err(gate) = crate::gate(&copy.dir) else {
            panic!("the gate passed with an edited release");
        };
        assert!(format!("{gate:#}").contains("releases"), "{gate:#}");
        super::seal(&release)?;
        assert_eq!(shown(super::differences(&release)?), Vec::<String>::new());
        Ok(())
    }
}
