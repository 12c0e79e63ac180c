//! The layering rule of `src/lib.rs` ("each module depends only on those below it") checked on the
//! source: the layer list is read from lib.rs's doc comment, and every `crate::name` path (and
//! every name in a `crate::{...}` group) in a module's code, comments excluded, must name a module
//! listed below it. Also: every module lib.rs declares is listed (or test-only), and every listed
//! module exists. Reading text, not types: a path the compiler accepts through a re-export still
//! has to name its real module.

use std::fs;
use std::path::{Path, PathBuf};

/// Modules that may read everything: the consistency checker and the unit tests.
const TEST_ONLY: [&str; 2] = ["validate", "tests"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer list of lib.rs, top first, as module names (`lib` for lib.rs itself).
fn layers() -> Vec<String> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let start = lib.find("//! ```text").expect("lib.rs has no ```text layer block");
    let mut out = Vec::new();
    for line in lib[start..].lines().skip(1) {
        let body = line.trim_start_matches("//!").trim();
        if body.starts_with("```") {
            break;
        }
        let file = body.split_whitespace().next().unwrap_or("");
        out.push(file.trim_end_matches(".rs").trim_end_matches('/').to_string());
    }
    assert!(out.len() > 3, "layer block of lib.rs too short: {out:?}");
    out
}

/// The source files of module `m`: `src/m.rs`, or every file under `src/m/`.
fn files_of(m: &str) -> Vec<PathBuf> {
    let single = src().join(format!("{m}.rs"));
    if single.exists() {
        return vec![single];
    }
    let dir = src().join(m);
    assert!(dir.is_dir(), "module `{m}` listed in lib.rs has no src/{m}.rs or src/{m}/");
    let mut v: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

/// The code of a file without `//` comments (doc comments included) and string literals.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = c;
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Every name that follows `prefix` (`crate::`, or `super::` in a file directly under src/, where
/// it is the crate root too) in `code`; a `{...}` group gives each of its names.
fn refs_after(code: &str, prefix: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for (i, _) in code.match_indices(prefix) {
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let body = &group[..group.find('}').expect("unclosed crate::{ group")];
            refs.extend(body.split(',').map(|p| ident(p.trim())).filter(|s| !s.is_empty()));
        } else {
            refs.push(ident(rest));
        }
    }
    refs
}

#[test]
fn each_module_uses_only_modules_below_it() {
    let layers = layers();
    let mut broken = Vec::new();
    for (rank, m) in layers.iter().enumerate().skip(1) {
        for f in files_of(m) {
            let code = code_of(&fs::read_to_string(&f).unwrap());
            let mut refs = refs_after(&code, "crate::");
            if f.parent() == Some(&src()) {
                // `super::name` in a top-level file is the crate root's `name` (an inner test
                // module's `use super::*` names no module and is not counted).
                refs.extend(refs_after(&code, "super::").into_iter().filter(|r| layers.contains(r)));
            }
            for r in refs {
                let below = layers.iter().position(|l| *l == r).is_some_and(|p| p > rank);
                if r != *m && !below {
                    broken.push(format!("{} uses crate::{r}, which is not below `{m}`", f.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering rule of src/lib.rs broken:\n{}", broken.join("\n"));
}

#[test]
fn every_declared_module_is_in_the_layer_list() {
    let layers = layers();
    let lib = code_of(&fs::read_to_string(src().join("lib.rs")).unwrap());
    for line in lib.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("mod ").or_else(|| line.strip_prefix("pub mod ")) {
            let name = name.trim_end_matches(';').trim();
            assert!(
                layers.iter().any(|l| l == name) || TEST_ONLY.contains(&name),
                "module `{name}` is declared in lib.rs but missing from its layer list"
            );
        }
    }
}
