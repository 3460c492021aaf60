//! Cycles of a directed graph: one per strongly connected set, with its members.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One cycle per strongly connected set of nodes (with more than one), as a closed walk
/// `a → … → a`, smallest node first.
pub fn cycles(edges: impl Iterator<Item = (String, String)>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(b.clone()).or_default();
        next.entry(a).or_default().insert(b);
    }
    // Tarjan's strongly connected components.
    struct Tarjan<'g> {
        next: &'g BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'g str, usize>,
        low: HashMap<&'g str, usize>,
        stack: Vec<&'g str>,
        sccs: Vec<Vec<&'g str>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in &self.next[v] {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w.as_str()]));
                } else if self.stack.contains(&w.as_str()) {
                    self.low.insert(v, self.low[v].min(self.index[w.as_str()]));
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().rposition(|x| *x == v).unwrap();
                self.sccs.push(self.stack.split_off(at));
            }
        }
    }
    let mut t = Tarjan {
        next: &next,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        sccs: Vec::new(),
    };
    for v in next.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    let mut out = Vec::new();
    for scc in t.sccs.into_iter().filter(|s| s.len() > 1) {
        // A shortest way back to the smallest node, breadth first inside the set.
        let start = *scc.iter().min().unwrap();
        let mut from: HashMap<&str, &str> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        'search: while let Some(v) = queue.pop_front() {
            for w in &next[v] {
                if w == start {
                    let mut walk = vec![start.to_owned(), v.to_owned()];
                    let mut at = v;
                    while at != start {
                        at = from[at];
                        walk.push(at.to_owned());
                    }
                    walk.reverse();
                    if walk[0] == walk[1] {
                        walk.remove(0);
                    }
                    out.push(walk);
                    break 'search;
                }
                if scc.contains(&w.as_str()) && !from.contains_key(w.as_str()) && w != start {
                    from.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
    }
    out
}

/// The nodes on a cycle with `start`: reachable from it and reaching it.
pub fn strongly_connected(edges: &BTreeMap<(String, String), String>, start: &str) -> Vec<String> {
    let reach = |forward: bool| {
        let mut seen = BTreeSet::from([start.to_owned()]);
        let mut todo = vec![start.to_owned()];
        while let Some(v) = todo.pop() {
            for (a, b) in edges.keys() {
                let (from, to) = if forward { (a, b) } else { (b, a) };
                if *from == v && seen.insert(to.clone()) {
                    todo.push(to.clone());
                }
            }
        }
        seen
    };
    reach(true).intersection(&reach(false)).cloned().collect()
}
