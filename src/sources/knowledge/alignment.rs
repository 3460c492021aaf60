//! Alignment rules (`docs/FORMATS.md`, knowledge-graph statements, "Alignment"): what a
//! `knowledge/update` must respect to be accepted, loaded from `provex serve --alignment FILE` (JSON or YAML). An update that
//! breaks a rule is refused whole, naming the rule.

use std::path::Path;

use serde::Deserialize;

use super::model::{PatchOp, UpdateParams};
use crate::error::{Error, Result};

/// The rules; each one absent is not checked.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Alignment {
    /// Only these predicates may be added (exact ids).
    #[serde(default, alias = "allowed_predicates")]
    pub allowed_predicates: Option<Vec<String>>,
    /// These predicates may never be added.
    #[serde(default, alias = "forbidden_predicates")]
    pub forbidden_predicates: Vec<String>,
    /// A subject added must start with one of these.
    #[serde(default, alias = "allowed_subject_prefixes")]
    pub allowed_subject_prefixes: Option<Vec<String>>,
    /// A subject added may not start with any of these.
    #[serde(default, alias = "forbidden_subject_prefixes")]
    pub forbidden_subject_prefixes: Vec<String>,
    /// An added statement must state a certainty of at least this.
    #[serde(default, alias = "min_certainty")]
    pub min_certainty: Option<f64>,
    /// Every update must say why (a non-empty `justification`).
    #[serde(default, alias = "justification_required", alias = "requireJustification")]
    pub justification_required: bool,
    /// Only these agents (`sourceAgentId`) may update.
    #[serde(default, alias = "allowed_source_agents")]
    pub allowed_source_agents: Option<Vec<String>>,
}

/// How deep a rules file may nest. The rules are a map of lists of strings (depth 2); the
/// YAML scanner under `serde_norway` looks at every open key at each token, so its time grows
/// with the square of the nesting (20,000 `[` took 24 s): deeper text is refused before it.
pub const MAX_NESTING: usize = 32;

/// Refuses text whose flow collections (`[`, `{`) or block indicators (`- `, `? `, or
/// indentation) nest past [`MAX_NESTING`], in one pass, naming the line. Quoted scalars and
/// comments are skipped, so a `[` inside a string does not count.
fn shallow_enough(text: &str) -> std::result::Result<(), String> {
    let refuse = |line: usize, what: &str| {
        Err(format!("alignment rules: line {line}: {what} nested deeper than {MAX_NESTING} levels"))
    };
    let mut flow = 0usize;
    let mut quote: Option<char> = None;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if quote.is_none() && flow == 0 {
            let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
            let rest = &line[indent..];
            let markers = rest
                .split_inclusive([' ', '\t'])
                .take_while(|t| matches!(t.trim_end(), "-" | "?" | ""))
                .count();
            if indent / 2 + markers > MAX_NESTING {
                return refuse(n, "blocks");
            }
        }
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match quote {
                Some('\'') if c == '\'' => {
                    // '' is an escaped quote inside a single-quoted scalar.
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                    } else {
                        quote = None;
                    }
                }
                Some('"') if c == '\\' => {
                    chars.next();
                }
                Some('"') if c == '"' => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev.is_whitespace() => break,
                    '\'' | '"' => quote = Some(c),
                    '[' | '{' => {
                        flow += 1;
                        if flow > MAX_NESTING {
                            return refuse(n, "brackets");
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = c;
        }
    }
    Ok(())
}

/// A broken rule: its name (as in the rules file) and what broke it.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub rule: &'static str,
    pub details: String,
}

impl Alignment {
    /// Reads a rules file (YAML, of which JSON is a subset).
    pub fn load(path: &Path) -> Result<Alignment> {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.to_owned(), source: e })?;
        Self::parse(&text).map_err(|reason| Error::Input { path: path.to_owned(), reason })
    }

    /// Parses rules; the reason when they are not valid.
    pub fn parse(text: &str) -> std::result::Result<Alignment, String> {
        shallow_enough(text)?;
        let a: Alignment = serde_norway::from_str(text).map_err(|e| format!("alignment rules: {e}"))?;
        if let Some(m) = a.min_certainty {
            if !(0.0..=1.0).contains(&m) {
                return Err(format!("alignment rules: minCertainty {m} is outside [0.0, 1.0]"));
            }
        }
        Ok(a)
    }

    /// The first rule `update` breaks, if any. Removals are checked only for who asks and why.
    pub fn check(&self, update: &UpdateParams) -> Option<Violation> {
        let agent = update.source_agent_id.as_deref().unwrap_or("");
        if let Some(allowed) = &self.allowed_source_agents {
            if !allowed.iter().any(|a| a == agent) {
                let who = if agent.is_empty() {
                    "an update with no sourceAgentId".to_owned()
                } else {
                    format!("agent {agent}")
                };
                return Some(Violation {
                    rule: "allowedSourceAgents",
                    details: format!("{who} is not among the allowed source agents"),
                });
            }
        }
        if self.justification_required && update.justification.as_deref().is_none_or(|j| j.trim().is_empty())
        {
            return Some(Violation {
                rule: "justificationRequired",
                details: "the update has no justification and the rules require one".into(),
            });
        }
        for (i, p) in update.mutations.iter().enumerate().filter(|(_, p)| p.op != PatchOp::Remove) {
            let s = &p.statement;
            let at = format!("mutation {i} ({} {})", p.op.as_str(), s.subject.id);
            if let Some(allowed) = &self.allowed_predicates {
                if !allowed.contains(&s.predicate.id) {
                    return Some(Violation {
                        rule: "allowedPredicates",
                        details: format!("{at}: predicate {} is not allowed", s.predicate.id),
                    });
                }
            }
            if self.forbidden_predicates.contains(&s.predicate.id) {
                return Some(Violation {
                    rule: "forbiddenPredicates",
                    details: format!("{at}: predicate {} is forbidden", s.predicate.id),
                });
            }
            if let Some(prefixes) = &self.allowed_subject_prefixes {
                if !prefixes.iter().any(|x| s.subject.id.starts_with(x.as_str())) {
                    return Some(Violation {
                        rule: "allowedSubjectPrefixes",
                        details: format!("{at}: subject {} has none of the allowed prefixes", s.subject.id),
                    });
                }
            }
            if let Some(x) =
                self.forbidden_subject_prefixes.iter().find(|x| s.subject.id.starts_with(x.as_str()))
            {
                return Some(Violation {
                    rule: "forbiddenSubjectPrefixes",
                    details: format!("{at}: subject {} starts with the forbidden prefix {x}", s.subject.id),
                });
            }
            if let Some(min) = self.min_certainty {
                if s.certainty.is_none_or(|c| c < min) {
                    let c = s.certainty.map_or("no certainty".to_owned(), |c| format!("certainty {c}"));
                    return Some(Violation {
                        rule: "minCertainty",
                        details: format!("{at}: {c} is below the minimum {min}"),
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Fuzz finding: a text 20,000 `[` deep kept the YAML scanner busy for 24 s.
    #[test]
    fn the_fuzzers_deep_input_is_refused_before_the_yaml_scanner() {
        let deep = format!("allowedPredicates: {}x{}", "[".repeat(20_000), "]".repeat(20_000));
        let reason = Alignment::parse(&deep).unwrap_err();
        assert_eq!(reason, "alignment rules: line 1: brackets nested deeper than 32 levels");
        let blocks = format!("a:\n{}x\n", "- ".repeat(20_000));
        assert_eq!(
            Alignment::parse(&blocks).unwrap_err(),
            "alignment rules: line 2: blocks nested deeper than 32 levels"
        );
        let indented = format!("a:\n{}b: 1\n", " ".repeat(100));
        assert!(Alignment::parse(&indented).unwrap_err().contains("line 2: blocks nested"));
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let deep = "[".repeat(100);
        let text = format!(
            "forbiddenPredicates: ['{deep}', \"{deep}\\\"\", 'it''s {deep}']  # {deep}\nminCertainty: 0.5\n"
        );
        let a = Alignment::parse(&text).unwrap();
        assert_eq!(a.forbidden_predicates.len(), 3);
        assert_eq!(a.min_certainty, Some(0.5));
    }

    proptest! {
        /// Refused exactly when deeper than the bound, and otherwise whatever the YAML
        /// reader says.
        #[test]
        fn nesting_is_refused_exactly_past_the_bound(depth in 0usize..80, block in any::<bool>()) {
            let text = if block {
                format!("forbiddenPredicates:\n{}x\n", "- ".repeat(depth))
            } else {
                format!("forbiddenPredicates: {}x{}\n", "[".repeat(depth), "]".repeat(depth))
            };
            let refused = Alignment::parse(&text).err().is_some_and(|r| r.contains("nested deeper"));
            prop_assert_eq!(refused, depth > MAX_NESTING);
            if depth <= MAX_NESTING {
                let direct = serde_norway::from_str::<Alignment>(&text).map_err(|e| format!("alignment rules: {e}"));
                prop_assert_eq!(Alignment::parse(&text), direct);
            }
        }
    }
}
