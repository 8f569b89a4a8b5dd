//! The book's protocol reference (docs/src/reference/) is generated from the verb registry by
//! the binary itself; the committed copy must be what this build generates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tuios_integration_tests::{describe, TestEnv};

const REGENERATE: &str =
    "cargo run -q -p tuios-client --bin tuios -- docs reference --out docs/src/reference";

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference")
}

/// The Markdown files of `dir`, by name.
fn pages(dir: &Path) -> BTreeMap<String, String> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (name, text)
        })
        .collect()
}

#[test]
fn the_committed_protocol_reference_is_what_the_registry_generates() {
    let env = TestEnv::new();
    let out_dir = env.dir().join("reference");
    let out = env.cli(&["docs", "reference", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", describe(&out));
    let fresh = pages(&out_dir);
    let committed = pages(&committed_dir());
    assert!(
        fresh.len() >= 4,
        "too few pages generated: {:?}",
        fresh.keys()
    );
    let fresh_names: Vec<&String> = fresh.keys().collect();
    let committed_names: Vec<&String> = committed.keys().collect();
    assert_eq!(
        committed_names, fresh_names,
        "docs/src/reference/ holds other files than the generator writes; regenerate it \
         (remove the directory first) with:\n  {REGENERATE}"
    );
    for (name, text) in &fresh {
        if committed[name] != *text {
            let line = committed[name]
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| "its length".to_string(), |n| format!("line {}", n + 1));
            panic!(
                "docs/src/reference/{name} is stale (first difference at {line}): the verb \
                 registry changed since it was generated. Regenerate it with:\n  {REGENERATE}"
            );
        }
    }
}
