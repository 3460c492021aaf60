//! The module graph of every crate of the workspace is a DAG, at every level: the
//! top-level modules of a crate, and inside each module its submodules (files, folders,
//! inline modules). The module tree is walked from the crate root through its `mod`
//! declarations (so a new folder such as `src/sources/<name>/` is checked without being
//! listed here); every `crate::`, `super::` and `self::` path, `use` trees and macro
//! bodies included, is resolved to the module that defines what it names (through `use`
//! and `pub use` re-exports, globs too); and each reference from inside submodule `a` of
//! a module to inside its submodule `b` is an edge `a → b`. A cycle fails the test, naming
//! its modules and, for each edge, a line that makes it. Modules compiled only for tests
//! (`#[cfg(test)]`) are left out: a test may reach across the layers it checks.

pub(crate) mod lex;
mod paths;
mod scc;
mod tree;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use scc::cycles;
use tree::Crate;

fn read_disk(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The edges between the submodules of `level` in the crate at `root`.
fn edges_at(root: &str, level: &[&str]) -> Vec<(String, String)> {
    let krate = Crate::load(&repo(root), &read_disk);
    let level: Vec<String> = level.iter().map(|s| s.to_string()).collect();
    krate.levels().remove(&level).unwrap_or_default().into_keys().collect()
}

fn from_memory(files: &[(&str, &str)]) -> Crate {
    let files: HashMap<PathBuf, String> =
        files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    Crate::load(Path::new("src/lib.rs"), &|p| files.get(p).cloned())
}

#[test]
fn the_checker_finds_cycles_through_reexports_globs_and_groups() {
    let krate = from_memory(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\nmod c;\npub use b::Thing;\n"),
        ("src/a/mod.rs", "mod x;\nmod y;\npub use x::*;\n"),
        ("src/a/x.rs", "pub struct X;\nuse super::y::Y;\n"),
        // `super::X` reaches `x` through the glob re-export of `a`.
        ("src/a/y.rs", "pub struct Y;\n// use crate::b; in a comment\nfn f() -> super::X { todo!(\"crate::c\") }\n"),
        ("src/b.rs", "pub struct Thing;\nfn g() { let _ = crate::a::X; }\n#[cfg(test)]\nmod tests { use crate::c::*; }\n"),
        ("src/c.rs", "use crate::{Thing, a::{self}};\n"),
    ]);
    let cycles = krate.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:#?}");
    assert!(cycles[0].starts_with("in a: x → y → x"), "{}", cycles[0]);
    assert!(cycles[0].contains("y → x: src/a/y.rs:3 `a::X`"), "{}", cycles[0]);
    let top = krate.levels().remove(&Vec::new()).unwrap();
    let top: Vec<_> = top.into_keys().collect();
    // `crate::Thing` is `b`'s; the test module of `b` is not part of the graph.
    assert_eq!(
        top,
        [
            ("b".to_owned(), "a".to_owned()),
            ("c".to_owned(), "a".to_owned()),
            ("c".to_owned(), "b".to_owned())
        ]
    );
}

#[test]
fn the_checker_names_a_cycle_of_three() {
    let found = cycles(
        [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")].iter().map(|(a, b)| (a.to_string(), b.to_string())),
    );
    assert_eq!(found, [["a", "b", "c", "a"]]);
}

/// The library: its top-level modules, and inside every folder its files, form no cycle.
#[test]
fn the_library_module_graph_is_a_dag() {
    let krate = Crate::load(&repo("src/lib.rs"), &read_disk);
    assert!(krate.modules.len() > 100, "the module tree was not walked: {}", krate.modules.len());
    let cycles = krate.cycles();
    assert!(cycles.is_empty(), "module cycles in the library:\n{}", cycles.join("\n"));
}

/// The `provex` binary (the CLI) and the desktop shell form no cycle either.
#[test]
fn the_binaries_module_graphs_are_dags() {
    for root in ["src/main.rs", "src-tauri/src/lib.rs"] {
        let cycles = Crate::load(&repo(root), &read_disk).cycles();
        assert!(cycles.is_empty(), "module cycles in {root}:\n{}", cycles.join("\n"));
    }
}

/// The sources sit below the ingest pipeline, the facade, the API and the transports: a
/// source's operations are methods of `sources::Session` (which the facade's `Provex`
/// dereferences to), never of the facade. The DAG test alone would let a source reach the
/// facade as long as nothing of the facade it reaches reached back; this keeps the layers of
/// docs/ARCHITECTURE.md in that order.
#[test]
fn sources_reach_nothing_above_them() {
    let edges = edges_at("src/lib.rs", &[]);
    let above = ["ingest", "facade", "api", "graphql", "serve", "ask", "demo"];
    let up: Vec<_> = edges.iter().filter(|(a, b)| a == "sources" && above.contains(&b.as_str())).collect();
    assert!(up.is_empty(), "the sources reach above them: {up:?}");
    for from in ["ingest", "facade"] {
        assert!(edges.contains(&(from.to_owned(), "sources".to_owned())), "{from} → sources: {edges:?}");
    }
}

/// `cycles` and `layering` used each other's compressed adjacency.
#[test]
fn layout_modules_lean_on_adjacency() {
    let edges = edges_at("src/lib.rs", &["layout"]);
    let from = |m: &str| edges.iter().filter(|(a, _)| a == m).map(|(_, b)| b.as_str()).collect::<Vec<_>>();
    assert_eq!(from("cycles"), ["adjacency"]);
    assert_eq!(from("layering"), ["adjacency"]);
    assert_eq!(from("adjacency"), Vec::<&str>::new());
}

/// The desktop shell's `actions` called `menu::refresh` while `menu` calls `actions`.
#[test]
fn desktop_menu_calls_actions_not_back() {
    let edges = edges_at("src-tauri/src/lib.rs", &[]);
    assert!(edges.contains(&("menu".to_owned(), "actions".to_owned())), "{edges:?}");
    assert!(!edges.contains(&("actions".to_owned(), "menu".to_owned())), "{edges:?}");
}
