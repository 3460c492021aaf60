//! The TypeScript declarations of the contract's types, collected from the declarations
//! that name them (each operation's request and response, each stream's request and
//! message, the desktop shell's events): every type once, with every type it refers to,
//! so that no list of types is kept by hand.

use std::any::TypeId;
use std::collections::HashSet;

use ts_rs::{Config, TypeVisitor, TS};

/// The declarations collected so far, in the order they were first reached.
pub struct Registry {
    cfg: Config,
    seen: HashSet<TypeId>,
    names: HashSet<String>,
    decls: Vec<(String, String)>,
}

impl Registry {
    pub fn new(cfg: Config) -> Self {
        Registry { cfg, seen: HashSet::new(), names: HashSet::new(), decls: Vec::new() }
    }

    /// Declares `T` (when it is a type of its own, not a list or an option) and every type
    /// it refers to, each once.
    pub fn add<T: TS + 'static + ?Sized>(&mut self) {
        self.visit::<T>();
    }

    /// A name declared by other means (written out by hand): never declared again.
    pub fn declared_elsewhere(&mut self, name: &str) {
        self.names.insert(name.to_owned());
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Every declaration: the type's TypeScript name and its `type X = …` text (in the
    /// order reached, which is not stable between builds: sort before writing).
    pub fn into_decls(self) -> Vec<(String, String)> {
        self.decls
    }
}

impl TypeVisitor for Registry {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        // Only a type declared on its own has a file of its own in ts-rs' terms.
        if T::output_path().is_some() {
            let name = T::ident(&self.cfg);
            if self.names.insert(name.clone()) {
                self.decls.push((name, T::decl(&self.cfg)));
            }
        }
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ApiError, ErrorCode, SearchHit, View};

    #[test]
    fn a_type_brings_what_it_names_once_and_wrappers_bring_their_items() {
        let mut r = Registry::new(Config::new().with_large_int("number"));
        r.add::<Vec<SearchHit>>();
        r.add::<Option<View>>();
        r.add::<ApiError>();
        r.add::<ErrorCode>();
        let names: Vec<String> = r.into_decls().into_iter().map(|(n, _)| n).collect();
        for name in
            ["SearchHit", "View", "ViewNode", "ViewEdge", "ViewMode", "ClusterInfo", "ApiError", "ErrorCode"]
        {
            assert_eq!(names.iter().filter(|n| *n == name).count(), 1, "{name} in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("Array") || n.contains("null")), "{names:?}");
    }
}
