//! Small modules and short functions, as the house asks: no module over 500 lines and no
//! Rust function over 120 lines in the code (`src/`, `src-tauri/src/`, `examples/`, `fuzz/`,
//! `bench/canonical/`, and the modules of `ui/src/`), and tests (`tests/`, `src-tauri/tests/`,
//! `ui/tests/`, `ui/e2e/`, `src-tauri/e2e/`) no more than half as long again. A function is measured from its
//! `fn` to its closing brace (doc comments and attributes left out). Generated files and
//! data tables are allowed by name below. The TypeScript functions of `ui/src` are measured
//! by `ui/tests/sizes.test.ts`; `scripts/sizes.sh` runs both and lists everything over the
//! limits, allowed or not.

use std::path::{Path, PathBuf};

use crate::modules::lex::{lex, Tok};

const MODULE_LINES: usize = 500;
const FUNCTION_LINES: usize = 120;
/// Tests may be this much longer (in tenths): half as long again.
const TESTS_LOOSER: usize = 15;

/// Modules allowed over the limit, and why.
const LONG_MODULES: &[(&str, &str)] =
    &[("ui/src/api/contract.ts", "generated from the operations' declarations by `provex contract`")];

/// Functions allowed over the limit (`path::name`), and why.
const LONG_FUNCTIONS: &[(&str, &str)] =
    &[("src/demo/council/scenario.rs::build", "the council demo's script: a data table, line by line")];

/// Where source files are looked for: a folder (or a file) of the repository, and whether
/// it holds tests.
const AREAS: &[(&str, bool)] = &[
    ("src", false),
    ("src-tauri/src", false),
    ("src-tauri/build.rs", false),
    ("examples", false),
    ("fuzz/fuzz_targets", false),
    ("bench/canonical", false),
    ("ui/src", false),
    ("tests", true),
    ("src-tauri/tests", true),
    ("ui/tests", true),
    ("ui/e2e", true),
    ("src-tauri/e2e", true),
];

/// Folders never read: build output, installed packages, screenshots.
const SKIP: &[&str] = &["target", "node_modules", "dist", "artifacts"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A source file's language: Rust, or TypeScript and JavaScript (ES modules); else none.
fn is_rust(p: &Path) -> Option<bool> {
    match p.extension()?.to_str()? {
        "rs" => Some(true),
        "ts" | "tsx" | "mjs" | "js" => Some(false),
        _ => None,
    }
}

/// Every source file under `path` (itself, when it is a file), sorted.
fn sources(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        if is_rust(path).is_some() {
            out.push(path.to_owned());
        }
        return;
    }
    let Ok(dir) = std::fs::read_dir(path) else { return };
    let mut entries: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && SKIP.contains(&name) {
            continue;
        }
        sources(&p, out);
    }
}

/// The Rust functions with a body in `text`: name, first line and number of lines.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let toks = lex(text);
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let (Tok::Ident(kw), Some(Tok::Ident(name))) = (&t.tok, toks.get(i + 1).map(|n| &n.tok)) else {
            continue;
        };
        if kw != "fn" {
            continue;
        }
        // The body is the first `{` outside the signature's brackets; a `;` first means none.
        let mut depth = 0usize;
        let mut body = None;
        for (k, s) in toks.iter().enumerate().skip(i + 2) {
            match s.tok {
                Tok::Open('{') if depth == 0 => {
                    body = Some(k);
                    break;
                }
                Tok::Punct(';') if depth == 0 => break,
                Tok::Open(_) => depth += 1,
                Tok::Close(_) => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        let Some(open) = body else { continue };
        let mut depth = 0usize;
        for s in &toks[open..] {
            match s.tok {
                Tok::Open(_) => depth += 1,
                Tok::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((name.clone(), t.line, s.line - t.line + 1));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// How a test's looser limit is named in the list.
fn test_note(tests: bool, max: usize) -> String {
    if tests {
        format!(", a test: up to {max}")
    } else {
        String::new()
    }
}

/// What is over the code's limits: (allowed, line) pairs, e.g. `src/a.rs: 612 lines (over 500)`;
/// a test within its looser limit is allowed.
fn over_the_limits() -> Vec<(bool, String)> {
    let root = repo();
    let mut found = Vec::new();
    for &(area, tests) in AREAS {
        let (module_max, function_max) = if tests {
            (MODULE_LINES * TESTS_LOOSER / 10, FUNCTION_LINES * TESTS_LOOSER / 10)
        } else {
            (MODULE_LINES, FUNCTION_LINES)
        };
        let mut files = Vec::new();
        sources(&root.join(area), &mut files);
        for file in files {
            let name = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let lines = text.lines().count();
            if lines > MODULE_LINES {
                let allowed = lines <= module_max || LONG_MODULES.iter().any(|(m, _)| *m == name);
                found.push((
                    allowed,
                    format!("{name}: {lines} lines (over {MODULE_LINES}{})", test_note(tests, module_max)),
                ));
            }
            if is_rust(&file) != Some(true) {
                continue;
            }
            for (f, line, n) in functions(&text) {
                if n > FUNCTION_LINES {
                    let allowed =
                        n <= function_max || LONG_FUNCTIONS.iter().any(|(x, _)| *x == format!("{name}::{f}"));
                    let note = test_note(tests, function_max);
                    found.push((
                        allowed,
                        format!("{name}:{line} fn {f}: {n} lines (over {FUNCTION_LINES}{note})"),
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn no_module_or_function_is_over_its_limit() {
    let found = over_the_limits();
    for (allowed, what) in &found {
        println!("{}{what}", if *allowed { "allowed: " } else { "" });
    }
    let bad: Vec<&str> = found.iter().filter(|(allowed, _)| !allowed).map(|(_, w)| w.as_str()).collect();
    assert!(
        bad.is_empty(),
        "split these (or, for a data table, name it in tests/it/sizes.rs):\n{}",
        bad.join("\n")
    );
    // A name kept after its module or function shrank or went would let another grow unseen.
    for (name, _) in LONG_MODULES {
        assert!(
            found.iter().any(|(a, w)| *a && w.starts_with(&format!("{name}: "))),
            "{name} is no longer long"
        );
    }
    for (name, _) in LONG_FUNCTIONS {
        let (file, f) = name.rsplit_once("::").unwrap();
        let hit = found
            .iter()
            .any(|(a, w)| *a && w.starts_with(&format!("{file}:")) && w.contains(&format!(" fn {f}: ")));
        assert!(hit, "{name} is no longer long");
    }
}

#[test]
fn functions_are_measured_from_fn_to_their_closing_brace() {
    let text = "/// doc\nfn a() -> [u8; 2] {\n    let s = \"}\";\n    [0, 1]\n}\ntrait T {\n    fn b(&self);\n    \
                fn c(&self) where Self: Sized {\n        let f = |x: u8| { x };\n    }\n}\nfn d<F: Fn() -> u8>(_: F) {}\n";
    assert_eq!(functions(text), [("a".to_owned(), 2, 4), ("c".to_owned(), 8, 3), ("d".to_owned(), 12, 1)]);
}
