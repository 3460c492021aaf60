//! Alignment rules (seed 004 "Alignment Integration"): what a `knowledge/update` must respect
//! to be accepted, loaded from `provex serve --alignment FILE` (JSON or YAML). An update that
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
