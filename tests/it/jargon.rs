//! No planning jargon reaches users or contributors: the product's code and comments, its
//! CLI help, UI text and docs never cite "seed 00x", "issue N" or the planning copy of the
//! formats spec ("formats.md §N"); they name formats by what they are and cite
//! `docs/FORMATS.md` by section name. Tests may name the finding they guard, so test files
//! and the `#[cfg(test)]` part of a source file are not read.

use std::path::{Path, PathBuf};

/// Where a line cites planning: the phrase found, if any.
fn jargon(line: &str) -> Option<&'static str> {
    let lower = line.to_lowercase();
    let followed_by_digit = |needle: &str| {
        lower.match_indices(needle).any(|(at, _)| {
            let before_ok = at == 0 || !lower[..at].ends_with(|c: char| c.is_alphanumeric());
            before_ok && lower[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit())
        })
    };
    if followed_by_digit("seed 00") || followed_by_digit("seeds 00") {
        Some("seed 00x")
    } else if followed_by_digit("issue ") {
        Some("issue N")
    } else if lower.contains("formats.md §") || lower.contains("formats.md` §") {
        Some("formats.md §N")
    } else {
        None
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file below `dir` (relative to the repository) whose name ends in one of `exts`,
/// leaving out installed packages (`node_modules`).
fn files(dir: &str, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![repo().join(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    stack.push(path);
                }
            } else if exts.iter().any(|e| path.to_string_lossy().ends_with(e)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo()).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// The lines of `text` that cite planning, as `where:line: phrase: text`.
fn findings(place: &str, text: &str, stop_at_tests: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if stop_at_tests && line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        if let Some(phrase) = jargon(line) {
            out.push(format!("{place}:{}: {phrase}: {}", i + 1, line.trim()));
        }
    }
    out
}

#[test]
fn the_matcher_finds_what_it_should_and_nothing_else() {
    assert_eq!(jargon("// Prompt lineage (seed 002): the agent's records"), Some("seed 00x"));
    assert_eq!(jargon("/// As Issue 14 §3 says"), Some("issue N"));
    assert_eq!(jargon("# Seed 001 §5.1 over this graph"), Some("seed 00x"));
    assert_eq!(jargon("see `formats.md` §4"), Some("formats.md §N"));
    assert_eq!(jargon("// the random seed 42 of the run"), None);
    assert_eq!(jargon("an issue of ordering, RFC 8032 §5.1.7"), None);
    assert_eq!(jargon("tissue 3"), None);
}

#[test]
fn code_ui_text_and_docs_cite_no_planning() {
    let mut found = Vec::new();
    let sources = files("src", &[".rs"]).into_iter().chain(files("src-tauri/src", &[".rs"]));
    for path in sources {
        let place = relative(&path);
        if place.ends_with("tests.rs") {
            continue;
        }
        found.extend(findings(&place, &std::fs::read_to_string(&path).unwrap(), true));
    }
    // The UI's source and its pages (not `ui/dist`, `node_modules` or the tests).
    let pages = std::fs::read_dir(repo().join("ui")).unwrap().map(|e| e.unwrap().path());
    let ui = files("ui/src", &[".ts", ".css", ".html"])
        .into_iter()
        .chain(pages.filter(|p| p.extension().is_some_and(|x| x == "html")));
    for path in ui {
        let place = relative(&path);
        found.extend(findings(&place, &std::fs::read_to_string(&path).unwrap(), false));
    }
    let docs = files("docs", &[".md", ".graphql"]).into_iter().chain([repo().join("README.md")]);
    for path in docs {
        found.extend(findings(&relative(&path), &std::fs::read_to_string(&path).unwrap(), false));
    }
    assert!(found.is_empty(), "planning jargon:\n{}", found.join("\n"));
}

/// What a contributor reads to run and measure it: the benchmark drivers and their scripts,
/// the examples, the set-up scripts and the fuzz targets.
#[test]
fn benchmarks_examples_and_scripts_cite_no_planning() {
    let kinds = [".rs", ".sh", ".mjs", ".py", ".md", ".yaml", ".toml"];
    let mut found = Vec::new();
    for dir in ["bench", "examples", "scripts", "fuzz/fuzz_targets"] {
        for path in files(dir, &kinds) {
            found.extend(findings(&relative(&path), &std::fs::read_to_string(&path).unwrap(), true));
        }
    }
    assert!(found.is_empty(), "planning jargon:\n{}", found.join("\n"));
}

/// The help of `provex` and of every subcommand, found by walking the "Commands:" lists.
#[test]
fn cli_help_cites_no_planning() {
    let mut found = Vec::new();
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        seen += 1;
        let out =
            assert_cmd::Command::cargo_bin("provex").unwrap().args(&path).arg("--help").output().unwrap();
        assert!(out.status.success(), "provex {} --help", path.join(" "));
        let text = String::from_utf8(out.stdout).unwrap();
        found.extend(findings(&format!("provex {} --help", path.join(" ")), &text, false));
        let commands = text.split("Commands:").nth(1).unwrap_or("");
        let commands = commands.split("\n\n").next().unwrap_or("");
        for line in commands.lines() {
            let Some(name) = line.split_whitespace().next() else { continue };
            if name != "help" {
                pending.push(path.iter().cloned().chain([name.to_owned()]).collect());
            }
        }
    }
    assert!(seen > 20, "only {seen} help pages: the Commands: lists were not read");
    assert!(found.is_empty(), "planning jargon in the CLI help:\n{}", found.join("\n"));
}
