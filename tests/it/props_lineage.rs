//! Property tests of the lineage graph constraints (seed 002 "Testing Requirements"): random
//! sequences of tracked prompts, each naming a parent that exists or not, a time, an
//! evolution type that is valid or not, and a root flag, are applied one by one; each
//! outcome matches a plain model of the five constraints, and what is kept is a DAG with one
//! root per lineage and parents earlier than children. Confidence parts stay in [0, 1].

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use provex::sources::lineage::{apply, parse_record, Applied, Book, Semantic};
use serde_json::json;
use uuid::Uuid;

#[derive(Debug, Clone)]
struct Step {
    id: u8,
    parent: Option<u8>,
    lineage: u8,
    minute: u16,
    kind: &'static str,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..12,
        proptest::option::weighted(0.8, 0u8..14),
        0u8..2,
        0u16..600,
        prop_oneof![
            4 => Just("refines"), 2 => Just("evolves"), 1 => Just("derives"), 1 => Just("forks"),
            1 => Just("merges"), 1 => Just("reverts"), 1 => Just("mutates")
        ],
    )
        .prop_map(|(id, parent, lineage, minute, kind)| Step { id, parent, lineage, minute, kind })
}

fn uuid(n: u8) -> Uuid {
    Uuid::from_u128(0x1000 + u128::from(n))
}

fn time(minute: u16) -> String {
    format!("2026-11-02T{:02}:{:02}:00Z", minute / 60, minute % 60)
}

/// The agent's LineageOutput for a step.
fn record(s: &Step) -> String {
    let lineage = Uuid::from_u128(0x9000 + u128::from(s.lineage));
    let mut v = json!({
        "lineage_node": {
            "id": uuid(s.id), "session_id": Uuid::from_u128(7), "timestamp": time(s.minute),
            "content": format!("prompt {} at {}", s.id, s.minute),
            "metadata": {"model": "m", "temperature": 0.7},
            "lineage_id": lineage, "lineage_version": {"major": 1, "minor": 0, "patch": 0},
            "chain_position": 1, "is_root": s.parent.is_none(), "is_head": true,
            "lineage_tracked_at": time(s.minute),
        },
        "lineage_id": lineage, "chain_position": 1, "chain_depth": 1, "confidence": 0.8,
        "constraints_applied": [], "warnings": [], "timestamp": time(s.minute),
    });
    if let Some(p) = s.parent {
        v["evolution_edge"] = json!({
            "id": Uuid::from_u128(0x5000 + u128::from(s.id) * 64 + u128::from(p)), "from": uuid(p), "to": uuid(s.id),
            "edge_type": "refines", "evolution_type": s.kind, "similarity_score": 0.5,
            "created_at": time(s.minute),
        });
    }
    v.to_string()
}

/// The plain model: what the constraints say of a step given what was kept before it.
#[derive(Default)]
struct Model {
    prompts: HashMap<u8, (u8, u16)>,
    roots: HashMap<u8, u8>,
    parents: HashMap<u8, HashSet<u8>>,
}

impl Model {
    fn reaches(&self, from: u8, to: u8) -> bool {
        // Is `to` an ancestor of `from` (following child → parent)?
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n) {
                stack.extend(self.parents.get(&n).into_iter().flatten().copied());
            }
        }
        false
    }

    fn expect(&self, s: &Step) -> &'static str {
        // Checked on the record alone, first.
        if s.parent.is_some_and(|p| s.kind == "mutates" || p == s.id) {
            return "INVALID_LINEAGE_RELATIONSHIP";
        }
        if let Some((lineage, minute)) = self.prompts.get(&s.id) {
            if *lineage != s.lineage {
                return "INVALID_LINEAGE_RELATIONSHIP";
            }
            if *minute != s.minute {
                return "VALIDATION_ERROR";
            }
        }
        let Some(p) = s.parent else {
            return match self.roots.get(&s.lineage) {
                Some(r) if *r != s.id => "INVALID_LINEAGE_RELATIONSHIP",
                _ => "ok",
            };
        };
        let Some((_, pt)) = self.prompts.get(&p) else { return "waiting" };
        if !self.parents.get(&s.id).is_some_and(|ps| ps.contains(&p)) && self.reaches(p, s.id) {
            return "INVALID_LINEAGE_RELATIONSHIP";
        }
        if s.minute <= *pt {
            return "VALIDATION_ERROR";
        }
        "ok"
    }

    fn keep(&mut self, s: &Step) {
        self.prompts.insert(s.id, (s.lineage, s.minute));
        match s.parent {
            None => {
                self.roots.entry(s.lineage).or_insert(s.id);
            }
            Some(p) => {
                self.parents.entry(s.id).or_default().insert(p);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_outcome_follows_the_graph_constraints(steps in proptest::collection::vec(step(), 1..40)) {
        let mut book = Book::new();
        let mut model = Model::default();
        for s in &steps {
            let want = model.expect(s);
            let got = match parse_record(&record(s)) {
                Err(e) => e.code.as_str(),
                Ok(r) => match apply(&mut book, &r, &mut |_, _| Semantic::Unconfigured) {
                    Ok(Applied::Done(..)) => "ok",
                    Ok(Applied::Waiting(_)) => "waiting",
                    Err(e) => e.code.as_str(),
                },
            };
            prop_assert_eq!(got, want, "step {:?}", s);
            if got == "ok" {
                model.keep(s);
            }
        }
        // What was kept: no prompt is its own ancestor, one root per lineage.
        for id in model.prompts.keys() {
            for p in model.parents.get(id).into_iter().flatten() {
                prop_assert!(!model.reaches(*p, *id), "cycle through {}", id);
                prop_assert!(model.prompts[p].1 < model.prompts[id].1);
            }
        }
    }

    #[test]
    fn confidence_parts_stay_in_bounds(a in "\\PC{0,60}", b in "\\PC{0,60}", s in proptest::option::of(0.0f64..=1.0)) {
        let semantic = match s { Some(v) => Semantic::Value(v), None => Semantic::Unconfigured };
        let (bd, note) = provex::sources::lineage::apply::breakdown(&a, &b, semantic);
        for x in [bd.jaccard, bd.edit_ratio, bd.confidence] {
            prop_assert!((0.0..=1.0 + 1e-12).contains(&x), "{:?}", bd);
        }
        prop_assert_eq!(note.is_some(), s.is_none());
        if a == b {
            prop_assert!((bd.jaccard - 1.0).abs() < 1e-12 && (bd.edit_ratio - 1.0).abs() < 1e-12);
        }
    }
}
