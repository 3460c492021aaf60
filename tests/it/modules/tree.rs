//! A crate's module tree, walked from its root file through its `mod` declarations, with
//! every path written in it resolved to the module that defines what it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::lex::{lex, Tok, Token};
use super::paths::{is_sep, path_len, use_tree};
use super::scc::{cycles, strongly_connected};

/// One module of a crate: where it lives, what it defines and imports.
#[derive(Debug, Default)]
pub struct Module {
    /// Its child modules (files, folders, inline `mod x { … }`), test-only ones left out.
    children: BTreeSet<String>,
    /// The names of the items it defines (`struct X`, `fn x`, `macro_rules! x`, …).
    items: BTreeSet<String>,
    /// `use` imports: the name brought in and the path it comes from (crate-absolute).
    imports: Vec<(String, Vec<String>)>,
    /// `use path::*`: the module paths whose names it brings in.
    globs: Vec<Vec<String>>,
}

/// A path as written at a place: the module it is written in, its crate-absolute
/// segments, and where (for the failure message).
#[derive(Debug)]
struct Reference {
    scope: Vec<String>,
    path: Vec<String>,
    at: String,
}

/// A crate's module tree and every path written in it.
#[derive(Debug, Default)]
pub struct Crate {
    pub modules: BTreeMap<Vec<String>, Module>,
    refs: Vec<Reference>,
}

/// Where a file's `mod x;` children live: `a/mod.rs`, `lib.rs`, `main.rs` → `a/`;
/// `a/b.rs` → `a/b/`.
fn child_dir(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap().to_path_buf();
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => dir,
        Some(stem) => dir.join(stem),
        None => dir,
    }
}

impl Crate {
    /// Reads the crate whose root file is `root`, asking `read` for each file's text.
    pub fn load(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Crate {
        let mut krate = Crate::default();
        krate.modules.insert(Vec::new(), Module::default());
        krate.file(root, Vec::new(), read);
        krate
    }

    fn file(&mut self, file: &Path, module: Vec<String>, read: &dyn Fn(&Path) -> Option<String>) {
        let text = read(file).unwrap_or_else(|| panic!("cannot read {}", file.display()));
        let toks = lex(&text);
        let fname = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(file).display().to_string();
        // Inline modules open at a brace depth; `mod` declarations after `#[path]` or
        // `#[cfg(test)]` attributes.
        let mut scope = module.clone();
        let mut open: Vec<usize> = Vec::new();
        let mut depth = 0usize;
        let mut path_attr: Option<String> = None;
        let mut test_only = false;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            match &t.tok {
                Tok::Close('}') => {
                    depth = depth.saturating_sub(1);
                    if open.last() == Some(&depth) {
                        open.pop();
                        scope.pop();
                    }
                }
                Tok::Punct('#') => {
                    let attr: Vec<&Tok> = toks[i..].iter().take(7).map(|t| &t.tok).collect();
                    if let [_, Tok::Open('['), Tok::Ident(p), Tok::Punct('='), Tok::Str(s), Tok::Close(']'), ..] =
                        attr.as_slice()
                    {
                        if p == "path" {
                            path_attr = Some(s.clone());
                        }
                    }
                    if let [_, Tok::Open('['), Tok::Ident(c), Tok::Open('('), Tok::Ident(x), Tok::Close(')'), ..] =
                        attr.as_slice()
                    {
                        if c == "cfg" && x == "test" {
                            test_only = true;
                        }
                    }
                }
                Tok::Ident(kw) if kw == "mod" => {
                    if let (Some(Tok::Ident(child)), Some(next)) =
                        (toks.get(i + 1).map(|t| &t.tok), toks.get(i + 2).map(|t| &t.tok))
                    {
                        let mut path = scope.clone();
                        path.push(child.clone());
                        if *next == Tok::Open('{') {
                            // An inline module: its body is read as part of this file.
                            open.push(depth);
                            depth += 1;
                            i += 3;
                            if !test_only {
                                self.add_child(&scope, child);
                            }
                            scope = path;
                            if test_only {
                                self.skip_block(&toks, &mut i);
                                scope.pop();
                                open.pop();
                                depth -= 1;
                            }
                            path_attr = None;
                            test_only = false;
                            continue;
                        }
                        if *next == Tok::Punct(';') && !test_only {
                            let mut dir = child_dir(file);
                            for inline in &scope[module.len()..] {
                                dir.push(inline);
                            }
                            let target = match path_attr.take() {
                                Some(p) => file.parent().unwrap().join(p),
                                None if read(&dir.join(format!("{child}.rs"))).is_some() => {
                                    dir.join(format!("{child}.rs"))
                                }
                                None => dir.join(child).join("mod.rs"),
                            };
                            self.add_child(&scope, child);
                            self.file(&target, path, read);
                        }
                        path_attr = None;
                        test_only = false;
                    }
                }
                Tok::Ident(kw) if kw == "fn" && test_only => {
                    // A test function: nothing it names is part of the module graph.
                    i += 1;
                    while i < toks.len() && toks[i].tok != Tok::Open('{') {
                        i += 1;
                    }
                    i += 1;
                    self.skip_block(&toks, &mut i);
                    test_only = false;
                    continue;
                }
                Tok::Ident(kw) if is_item_keyword(kw) => {
                    if let Some(Tok::Ident(item)) = toks.get(i + 1).map(|t| &t.tok) {
                        self.modules.entry(scope.clone()).or_default().items.insert(item.clone());
                    }
                    if kw == "macro_rules" {
                        if let Some(Tok::Ident(item)) = toks.get(i + 2).map(|t| &t.tok) {
                            self.modules.entry(scope.clone()).or_default().items.insert(item.clone());
                        }
                    }
                    test_only = false;
                }
                Tok::Ident(kw) if kw == "use" => {
                    let end =
                        toks[i..].iter().position(|t| t.tok == Tok::Punct(';')).map_or(toks.len(), |e| i + e);
                    let mut found = Vec::new();
                    use_tree(&toks[i + 1..end], &scope, None, &mut found);
                    for (path, name, line) in found {
                        let m = self.modules.entry(scope.clone()).or_default();
                        match name {
                            Some(n) => m.imports.push((n, path.clone())),
                            None => m.globs.push(path.clone()),
                        }
                        self.refs.push(Reference {
                            scope: scope.clone(),
                            path,
                            at: format!("{fname}:{line}"),
                        });
                    }
                    i = end + 1;
                    test_only = false;
                    continue;
                }
                Tok::Ident(kw)
                    if (kw == "crate" || kw == "super" || kw == "self") && is_sep(&toks, i + 1) =>
                {
                    let mut found = Vec::new();
                    let len = path_len(&toks[i..]);
                    use_tree(&toks[i..i + len], &scope, None, &mut found);
                    for (path, _, line) in found {
                        self.refs.push(Reference {
                            scope: scope.clone(),
                            path,
                            at: format!("{fname}:{line}"),
                        });
                    }
                    i += len;
                    continue;
                }
                Tok::Punct(';') | Tok::Open('{') => {
                    if t.tok == Tok::Open('{') {
                        depth += 1;
                    }
                    path_attr = None;
                    test_only = false;
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn add_child(&mut self, parent: &[String], child: &str) {
        self.modules.entry(parent.to_vec()).or_default().children.insert(child.to_owned());
        let mut path = parent.to_vec();
        path.push(child.to_owned());
        self.modules.entry(path).or_default();
    }

    /// Moves `i` past the block whose `{` was just passed.
    fn skip_block(&self, toks: &[Token], i: &mut usize) {
        let mut depth = 1;
        while *i < toks.len() && depth > 0 {
            match toks[*i].tok {
                Tok::Open('{') => depth += 1,
                Tok::Close('}') => depth -= 1,
                _ => {}
            }
            *i += 1;
        }
    }

    /// The module that defines what `path` names: the longest prefix of `path` that is a
    /// module, following imports and globs of the modules on the way.
    fn owner(&self, path: &[String], hops: usize) -> Vec<String> {
        self.resolve(path, hops).0
    }

    /// `owner`, and whether the whole of `path` names that module.
    fn resolve(&self, path: &[String], hops: usize) -> (Vec<String>, bool) {
        let mut cur: Vec<String> = Vec::new();
        for (k, seg) in path.iter().enumerate() {
            let Some(m) = self.modules.get(&cur) else { return (cur, false) };
            if m.children.contains(seg) {
                cur.push(seg.clone());
                continue;
            }
            if hops > 16 || m.items.contains(seg) {
                return (cur, false);
            }
            if let Some((_, from)) = m.imports.iter().find(|(n, _)| n == seg) {
                let mut via = from.clone();
                via.extend(path[k + 1..].iter().cloned());
                return self.resolve(&via, hops + 1);
            }
            for glob in &m.globs {
                if let (module, true) = self.resolve(glob, hops + 1) {
                    if self.provides(&module, seg, hops + 1) {
                        let mut via = module;
                        via.extend(path[k..].iter().cloned());
                        return self.resolve(&via, hops + 1);
                    }
                }
            }
            return (cur, false);
        }
        (cur, true)
    }

    /// Whether `name` can be named in `module`: an item, a child, an import, or through a
    /// glob.
    fn provides(&self, module: &[String], name: &str, hops: usize) -> bool {
        let Some(m) = self.modules.get(module) else { return false };
        m.items.contains(name)
            || m.children.contains(name)
            || m.imports.iter().any(|(n, _)| n == name)
            || (hops < 16
                && m.globs.iter().any(|g| match self.resolve(g, hops + 1) {
                    (g, true) => self.provides(&g, name, hops + 1),
                    _ => false,
                }))
    }

    /// For every module with submodules, the edges between them, each with one line
    /// that makes it.
    pub fn levels(&self) -> BTreeMap<Vec<String>, BTreeMap<(String, String), String>> {
        let mut out: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
        for r in &self.refs {
            let target = self.owner(&r.path, 0);
            let common = r.scope.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common < r.scope.len() && common < target.len() {
                let level = r.scope[..common].to_vec();
                let edge = (r.scope[common].clone(), target[common].clone());
                let why = format!("{} `{}`", r.at, r.path.join("::"));
                out.entry(level).or_default().entry(edge).or_insert(why);
            }
        }
        for (m, module) in &self.modules {
            if module.children.len() > 1 {
                out.entry(m.clone()).or_default();
            }
        }
        out
    }

    /// Every cycle, one per strongly connected set of modules at a level: `level: a → b →
    /// a` with the lines that make each edge.
    pub fn cycles(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (level, edges) in self.levels() {
            for cycle in cycles(edges.keys().cloned()) {
                let place = if level.is_empty() { "the crate".to_owned() } else { level.join("::") };
                let mut text = format!("in {place}: {}", cycle.join(" → "));
                let members = strongly_connected(&edges, &cycle[0]);
                if members.len() > cycle.len() - 1 {
                    text.push_str(&format!(" (all of {} reach each other)", members.join(", ")));
                }
                // Every edge among them, each with a line that makes it.
                for ((a, b), why) in &edges {
                    if members.contains(a) && members.contains(b) {
                        text.push_str(&format!("\n    {a} → {b}: {why}"));
                    }
                }
                out.push(text);
            }
        }
        out
    }
}

fn is_item_keyword(kw: &str) -> bool {
    matches!(kw, "struct" | "enum" | "union" | "trait" | "type" | "fn" | "const" | "static" | "macro_rules")
}
