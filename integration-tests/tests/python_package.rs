//! The Python client is versioned with the workspace: its package version (read by setuptools
//! from `tuios.__version__`) is the `[workspace.package]` version of Cargo.toml.

use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The quoted value of `key = "..."` on the first line of `text` (after `start`) that sets it.
fn quoted_value(text: &str, start: usize, key: &str) -> Option<String> {
    text[start..].lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix('=')?;
        let rest = rest.trim().strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    })
}

#[test]
fn the_python_client_has_the_workspace_version() {
    let cargo = read("Cargo.toml");
    let section = cargo
        .find("[workspace.package]")
        .expect("Cargo.toml has a [workspace.package] table");
    let workspace = quoted_value(&cargo, section, "version").expect("a workspace version");

    let init = read("clients/python/src/tuios/__init__.py");
    let python = quoted_value(&init, 0, "__version__").expect("tuios.__version__ is set");
    assert_eq!(
        python, workspace,
        "clients/python/src/tuios/__init__.py has __version__ = \"{python}\" but the workspace \
         is at {workspace}: set __version__ = \"{workspace}\""
    );

    let pyproject = read("clients/python/pyproject.toml");
    assert!(
        pyproject.contains("dynamic = [\"version\"]")
            && pyproject.contains("version = { attr = \"tuios.__version__\" }"),
        "clients/python/pyproject.toml must take its version from tuios.__version__, not state its own"
    );
}
