//! Lanes depend on a release as a package: the C++ lane through the CMake
//! target `vdm::contract` beside the headers, the GUI lane through the npm
//! package `@vdm/contract` each release's TypeScript folder is. Each is
//! built or installed here as `docs/bindings.md` tells a lane to, and asked
//! for its contract version.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every release folder, oldest first, with its version.
fn releases() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(Vec<u64>, String, PathBuf)> =
        std::fs::read_dir(root().join("contracts/released"))
            .expect("contracts/released")
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let name = path.file_name()?.to_str()?.to_string();
                let parts: Option<Vec<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
                Some((parts.filter(|p| p.len() == 3)?, name, path))
            })
            .collect();
    out.sort();
    out.into_iter()
        .map(|(_, name, path)| (name, path))
        .collect()
}

/// Runs `command`; its stdout, or a failure that shows what it said.
fn run(command: &mut Command) -> String {
    let what = format!("{command:?}");
    let output = command.output().unwrap_or_else(|err| {
        panic!("{what}: cannot start ({err}); `cargo xtask test` (or .ci/setup) installs it")
    });
    assert!(
        output.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn working_version() -> String {
    std::fs::read_to_string(root().join("contracts/VERSION"))
        .expect("contracts/VERSION")
        .trim()
        .to_string()
}

/// The folder of nlohmann::json's headers the compiler finds
/// (`…/include/nlohmann`).
fn nlohmann_headers() -> PathBuf {
    let mut command = Command::new("g++");
    command.args(["-M", "-x", "c++", "-"]);
    let deps = {
        use std::io::Write as _;
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("g++ starts; `cargo xtask test` (or .ci/setup) installs it");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"#include <nlohmann/json.hpp>\n")
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "g++ finds no nlohmann/json.hpp");
        String::from_utf8(output.stdout).unwrap()
    };
    let json = deps
        .split_whitespace()
        .find(|path| path.ends_with("nlohmann/json.hpp"))
        .expect("nlohmann/json.hpp among g++'s dependencies");
    Path::new(json).parent().unwrap().to_path_buf()
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.is_dir() {
            copy_folder(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// Each release's target and the working tree's build a program as
/// docs/bindings.md says, twice: with the nlohmann::json `find_package`
/// finds, and in a lane that brings its own (nlohmann's `FetchContent` or
/// `add_subdirectory` make a target `nlohmann_json::nlohmann_json` and no
/// package to find: here the package cannot be found at all).
#[test]
fn every_release_and_the_working_tree_are_a_cmake_target_an_example_builds_on() {
    let mut targets: Vec<(String, PathBuf)> = releases()
        .into_iter()
        .map(|(version, dir)| (version, dir.join("cpp")))
        .collect();
    targets.push((working_version(), root().join("bindings/cpp")));
    assert!(targets.len() >= 3, "{targets:?}");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cmake-packages");
    let vendored = scratch.join("vendored-nlohmann");
    let _ = std::fs::remove_dir_all(&vendored);
    copy_folder(&nlohmann_headers(), &vendored.join("include/nlohmann"));
    let own_json = format!(
        "set(CMAKE_DISABLE_FIND_PACKAGE_nlohmann_json TRUE)\n\
         add_library(nlohmann_json INTERFACE)\n\
         add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)\n\
         target_include_directories(nlohmann_json INTERFACE \"{}\")\n",
        vendored.join("include").display()
    );
    let lanes = targets
        .iter()
        .flat_map(|target| [(target, "found", ""), (target, "own", own_json.as_str())]);
    for (index, ((version, cpp), json_is, json)) in lanes.enumerate() {
        let project = scratch.join(format!("{index}-{version}-{json_is}"));
        let _ = std::fs::remove_dir_all(&project);
        std::fs::create_dir_all(&project).expect("project folder");
        // The lines docs/bindings.md gives a lane.
        std::fs::write(
            project.join("CMakeLists.txt"),
            format!(
                "cmake_minimum_required(VERSION 3.14)\nproject(lane CXX)\n{json}\
                 add_subdirectory(\"{}\" vdm_contract)\n\
                 add_executable(lane main.cpp)\n\
                 target_link_libraries(lane PRIVATE vdm::contract)\n",
                cpp.display()
            ),
        )
        .expect("CMakeLists.txt");
        std::fs::write(
            project.join("main.cpp"),
            "#include <iostream>\n#include \"vdm/contract.hpp\"\n\
             int main() { std::cout << vdm::contract::CONTRACT_VERSION << \"\\n\"; }\n",
        )
        .expect("main.cpp");
        let build = project.join("build");
        run(Command::new("cmake")
            .arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(&build));
        run(Command::new("cmake").arg("--build").arg(&build));
        let said = run(&mut Command::new(build.join("lane")));
        assert_eq!(said.trim(), version, "{}", cpp.display());
    }
}

#[test]
fn every_release_is_an_npm_package_the_gui_lane_installs() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-packages");
    let releases = releases();
    assert!(releases.len() >= 2, "{releases:?}");
    for (version, dir) in releases {
        // Conditions are matched in the order written: `types` first,
        // `default` (which always matches) last.
        let manifest = std::fs::read_to_string(dir.join("ts/package.json")).expect("package.json");
        let exports = manifest.split("\"exports\"").nth(1).expect("exports");
        let (types, default) = (exports.find("\"types\""), exports.find("\"default\""));
        assert!(
            types.is_some() && types < default,
            "{version}: `types` after `default`"
        );
        let place = scratch.join(&version);
        let _ = std::fs::remove_dir_all(&place);
        let lane = place.join("gui");
        std::fs::create_dir_all(&lane).expect("lane folder");
        let packed = run(Command::new("npm")
            .args(["pack", "--json", "--pack-destination"])
            .arg(&place)
            .arg(dir.join("ts")));
        let packed: serde_json::Value = serde_json::from_str(&packed).expect("npm pack --json");
        assert_eq!(packed[0]["name"], "@vdm/contract");
        assert_eq!(packed[0]["version"], version.as_str());
        let files: Vec<&str> = packed[0]["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["path"].as_str())
            .collect();
        assert_eq!(files, ["index.d.ts", "index.js", "package.json"]);
        let tarball = place.join(packed[0]["filename"].as_str().expect("filename"));
        std::fs::write(
            lane.join("package.json"),
            r#"{"name": "gui", "private": true, "type": "module"}"#,
        )
        .expect("package.json");
        // The install line docs/bindings.md gives the GUI lane; nothing to fetch.
        run(Command::new("npm")
            .args(["install", "--offline", "--no-audit", "--no-fund"])
            .arg(&tarball)
            .current_dir(&lane));
        let said = run(Command::new("node")
            .args([
                "--input-type=module",
                "-e",
                "import { CONTRACT_VERSION } from '@vdm/contract'; console.log(CONTRACT_VERSION);",
            ])
            .current_dir(&lane));
        assert_eq!(said.trim(), version);
    }
}
