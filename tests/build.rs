//! Mounts every release's frozen Rust bindings (`contracts/released/<v>/rust/`)
//! as a module of this crate, and lists them in `RELEASES`, so a new release
//! joins the cross-release tests without an edit here.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let released = manifest.join("../contracts/released").canonicalize()?;
    println!("cargo:rerun-if-changed={}", released.display());
    let mut versions: Vec<((u64, u64, u64), String)> = Vec::new();
    for entry in std::fs::read_dir(&released)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let parts: Vec<Option<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
        if let [Some(a), Some(b), Some(c)] = parts.as_slice() {
            versions.push(((*a, *b, *c), name));
        }
    }
    versions.sort();
    let mut modules = String::new();
    let mut rows = String::new();
    for (_, version) in &versions {
        let dir = released.join(version);
        let bindings = dir.join("rust");
        if !bindings.join("types.rs").is_file() {
            return Err(format!(
                "contracts/released/{version} has no frozen Rust bindings; run `cargo xtask release --backfill-bindings`"
            )
            .into());
        }
        let module = format!("v{}", version.replace('.', "_"));
        writeln!(
            modules,
            "#[allow(clippy::all, clippy::pedantic, missing_docs, rustdoc::all, dead_code)]\npub mod {module} {{\n    #[path = {types:?}]\n    pub mod types;\n    #[path = {tables:?}]\n    pub mod tables;\n}}",
            types = bindings.join("types.rs").display().to_string(),
            tables = bindings.join("tables.rs").display().to_string(),
        )?;
        writeln!(
            rows,
            "    Bindings {{ version: {version:?}, dir: {dir:?}, read: |type_name, value| crate::read_with::<{module}::tables::Envelope>({module}::tables::reserialize, type_name, value) }},",
            dir = dir.display().to_string(),
        )?;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("releases.rs");
    std::fs::write(
        out,
        format!("{modules}\n/// Every release's frozen bindings, oldest first.\npub const RELEASES: &[Bindings] = &[\n{rows}];\n"),
    )?;
    Ok(())
}
