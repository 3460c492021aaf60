//! The module structure stays acyclic where a review found cycles (issue 11 §3.7): each
//! folder's modules are read as text, the modules each one names (`use super::x`,
//! `crate::{x, y}`) become edges of a petgraph graph, and a topological sort must exist.

use std::collections::BTreeMap;
use std::path::Path;

use petgraph::graphmap::DiGraphMap;

/// The modules each `.rs` file of `dir` names with `prefix` (`super::` or `crate::`),
/// comments left out: `use super::a::f`, `super::{a, b::g}`, `super::a::f()`.
fn module_uses(dir: &str, prefix: &str) -> BTreeMap<String, Vec<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let mut uses = BTreeMap::new();
    for (name, text) in &files {
        let code: String =
            text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        let mut found = Vec::new();
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let items: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())].split(',').collect(),
                None => vec![rest],
            };
            for item in items {
                let id: String =
                    item.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if id != *name && names.contains(&id.as_str()) && !found.contains(&id) {
                    found.push(id);
                }
            }
        }
        found.sort();
        uses.insert(name.clone(), found);
    }
    uses
}

/// A module on a cycle among `only` (every module when empty), if there is one.
fn cycle_among(uses: &BTreeMap<String, Vec<String>>, only: &[&str]) -> Option<String> {
    let keep = |m: &str| only.is_empty() || only.contains(&m);
    let mut g: DiGraphMap<&str, (), std::hash::RandomState> = DiGraphMap::default();
    for (m, targets) in uses.iter().filter(|(m, _)| keep(m)) {
        g.add_node(m);
        for t in targets.iter().filter(|t| keep(t)) {
            g.add_edge(m, t, ());
        }
    }
    petgraph::algo::toposort(&g, None).err().map(|c| c.node_id().to_owned())
}

#[test]
fn the_checker_finds_a_cycle() {
    let mut uses = BTreeMap::new();
    uses.insert("a".to_owned(), vec!["b".to_owned()]);
    uses.insert("b".to_owned(), vec!["a".to_owned()]);
    uses.insert("c".to_owned(), vec!["a".to_owned()]);
    assert!(cycle_among(&uses, &[]).is_some());
    assert_eq!(cycle_among(&uses, &["a", "c"]), None);
}

/// `cycles` and `layering` used each other's compressed adjacency.
#[test]
fn layout_modules_form_no_cycle() {
    let uses = module_uses("src/layout", "super::");
    assert_eq!(cycle_among(&uses, &[]), None, "{uses:?}");
    assert_eq!(uses["cycles"], ["adjacency"]);
    assert_eq!(uses["layering"], ["adjacency"]);
    assert_eq!(uses["adjacency"], Vec::<String>::new());
}

/// The live views were one module; its parts must not lean on each other in a circle.
#[test]
fn live_view_modules_form_no_cycle() {
    let uses = module_uses("src/facade/live", "super::");
    assert_eq!(cycle_among(&uses, &[]), None, "{uses:?}");
}

/// The desktop shell's `actions` called `menu::refresh` while `menu` calls `actions`.
#[test]
fn desktop_actions_and_menu_form_no_cycle() {
    let uses = module_uses("src-tauri/src", "crate::");
    assert_eq!(uses["actions"], ["commands", "dialogs", "ops", "shell"]);
    assert_eq!(uses["menu"], ["actions", "dialogs", "settings", "shell"]);
    assert_eq!(
        cycle_among(&uses, &["actions", "menu", "commands", "dialogs", "ops", "shell", "settings"]),
        None
    );
}
