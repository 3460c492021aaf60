//! Search by what is said about a node rather than by its text: a verdict ("challenged"), a
//! signature status ("invalid", "forged") or an evidence status ("mismatch", "altered"), in
//! the words the UI uses for them (see docs/FORMATS.md, A2AP signatures and evidence). A
//! word names one or more problems; each problem is a Cypher pattern over the stored
//! properties that the A2AP reader writes (`verdict`, `counted`, `signature_status`,
//! `evidence_status`, `verified`).

use falkordb::FalkorValue;

use super::value::as_string;
use super::Store;
use crate::error::Result;

/// One thing that can be said about a node, and the words that find it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    /// Lowercase words (or phrases) a search for this problem may use.
    pub words: &'static [&'static str],
    /// What the hit's `field` says matched.
    pub field: &'static str,
    /// The problem in words, at the start of the hit's snippet.
    pub describe: &'static str,
    /// `MATCH … WHERE …` binding `n` to the nodes with the problem.
    pub pattern: &'static str,
}

const CHALLENGE: &[&str] = &["challenged", "challenge", "challenges", "disputed"];
const MISMATCH: &[&str] = &["mismatch", "mismatched", "mismatches", "altered", "does not match"];

/// Every problem, in the order its hits are listed.
pub const PROBLEMS: &[Problem] = &[
    Problem {
        words: &["forged", "forgery", "invalid", "tampered", "not counted"],
        field: "signature",
        describe: "Forged verification: its signature does not match (not counted)",
        pattern: "MATCH (n:Verification) WHERE n.signature_status = 'invalid'",
    },
    Problem {
        words: &["altered", "invalid", "tampered"],
        field: "signature",
        describe: "The claim's own signature does not match: altered after signing",
        pattern: "MATCH (n:Statement) WHERE n.signature_status = 'invalid'",
    },
    Problem {
        words: MISMATCH,
        field: "evidence",
        describe: "A quote does not match the transcript",
        pattern: "MATCH (n:Statement) WHERE n.evidence_status = 'mismatch'",
    },
    Problem {
        words: MISMATCH,
        field: "evidence",
        describe: "Quote does not match the transcript",
        pattern: "MATCH (n:Chunk) WHERE n.evidence_status = 'mismatch'",
    },
    Problem {
        words: CHALLENGE,
        field: "verdict",
        describe: "Challenged by a verifier",
        pattern: "MATCH (n:Statement)<-[:VALIDATES]-(v:Verification) \
                  WHERE v.counted = true AND toUpper(v.verdict) IN ['CHALLENGED', 'DISPUTED']",
    },
    Problem {
        words: CHALLENGE,
        field: "verdict",
        describe: "Verdict: challenged",
        pattern: "MATCH (n:Verification) WHERE toUpper(n.verdict) IN ['CHALLENGED', 'DISPUTED']",
    },
    Problem {
        words: &["rejected", "refuted"],
        field: "verdict",
        describe: "Verdict: rejected",
        pattern: "MATCH (n:Verification) WHERE toUpper(n.verdict) IN ['REJECTED', 'REFUTED', 'INVALIDATED']",
    },
    Problem {
        words: &["validated", "confirmed"],
        field: "verdict",
        describe: "Verdict: validated",
        pattern: "MATCH (n:Verification) WHERE toUpper(n.verdict) IN ['VALIDATED', 'VALID', 'CONFIRMED', 'SUPPORTED', 'VERIFIED']",
    },
    Problem {
        words: &["unverified", "not verified"],
        field: "consensus",
        describe: "Not verified: its consensus is below the threshold",
        pattern: "MATCH (n:Statement) WHERE n.verified = false",
    },
    Problem {
        words: &["unknown key", "unknown"],
        field: "signature",
        describe: "Signed with a key the registry does not know",
        pattern: "MATCH (n) WHERE (n:Statement OR n:Verification) AND n.signature_status = 'unknown_key'",
    },
    Problem {
        words: &["untrusted", "untrusted key"],
        field: "signature",
        describe: "Signed with a key the registry does not trust",
        pattern: "MATCH (n) WHERE (n:Statement OR n:Verification) AND n.signature_status = 'untrusted_key'",
    },
    Problem {
        words: &["malformed"],
        field: "signature",
        describe: "The signature block cannot be read",
        pattern: "MATCH (n) WHERE (n:Statement OR n:Verification) AND n.signature_status = 'malformed'",
    },
    Problem {
        words: &["unsigned"],
        field: "signature",
        describe: "Carries no signature",
        pattern: "MATCH (n) WHERE (n:Statement OR n:Verification) AND n.signature_status = 'unsigned'",
    },
];

/// The shortest query that may name a problem (shorter ones would match half the words).
const MIN_QUERY: usize = 3;

/// Whether the search `q` names `p`: a word of `p` starts with it ("forg" finds forged), or
/// one of its words is a word of `p` ("forged verification").
pub fn names(p: &Problem, q: &str) -> bool {
    let q = q.trim().to_lowercase();
    if q.chars().count() < MIN_QUERY {
        return false;
    }
    p.words.iter().any(|w| w.starts_with(&q) || q.split_whitespace().any(|t| t == *w))
}

/// The problems the search `q` names, in listing order.
pub fn named(q: &str) -> Vec<&'static Problem> {
    PROBLEMS.iter().filter(|p| names(p, q)).collect()
}

/// A node found by what is said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProblemHit {
    pub name: String,
    pub label: String,
    pub problem: &'static Problem,
    /// The node's own text, or the claim a verification answers.
    pub text: Option<String>,
    /// The name of the agent that made a verification.
    pub agent: Option<String>,
}

impl Store {
    /// Nodes with the problems `q` names (at most `limit`, each once, in listing order).
    pub async fn search_problems(&self, graph: &str, q: &str, limit: u32) -> Result<Vec<ProblemHit>> {
        let mut out: Vec<ProblemHit> = Vec::new();
        for problem in named(q) {
            if out.len() >= limit as usize {
                break;
            }
            let cypher = format!(
                "{} WITH DISTINCT n \
                 OPTIONAL MATCH (n)-[:VALIDATES]->(s:Statement) \
                 OPTIONAL MATCH (n)-[:PERFORMED_BY]->(a:Agent) \
                 RETURN n.name, labels(n)[0], coalesce(n.claim_text, n.quote_text, n.text, s.claim_text), \
                 a.agent_name ORDER BY id(n) LIMIT {limit}",
                problem.pattern
            );
            let (_, rows) = self.run_ro(graph, &cypher, Vec::<(&str, FalkorValue)>::new()).await?;
            for r in rows {
                let Some(name) = r.first().and_then(as_string) else { continue };
                if out.iter().any(|h| h.name == name) || out.len() >= limit as usize {
                    continue;
                }
                out.push(ProblemHit {
                    name,
                    label: r.get(1).and_then(as_string).unwrap_or_default(),
                    problem,
                    text: r.get(2).and_then(as_string),
                    agent: r.get(3).and_then(as_string),
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns(q: &str) -> Vec<&'static str> {
        named(q).into_iter().map(|p| p.pattern).collect()
    }

    #[test]
    fn the_words_of_the_ui_name_their_problems() {
        let forged = patterns("forged");
        assert_eq!(forged.len(), 1);
        assert!(forged[0].contains("Verification") && forged[0].contains("'invalid'"));
        // "altered": the claim's own signature and the quotes that do not match.
        let altered = patterns("Altered");
        assert!(altered.iter().any(|p| p.contains("n:Statement") && p.contains("signature_status")));
        assert!(altered.iter().any(|p| p.contains("n:Chunk") && p.contains("mismatch")));
        let challenged = patterns("challenged");
        assert!(challenged.iter().any(|p| p.starts_with("MATCH (n:Statement)")));
        assert!(challenged.iter().any(|p| p.starts_with("MATCH (n:Verification)")));
        assert_eq!(patterns("invalid").len(), 2, "forged verifications and altered claims");
        assert_eq!(patterns("mismatch").len(), 2, "claims and quotes");
        // A prefix, a word among others, but not a fragment too short to mean anything.
        assert_eq!(patterns("forg"), forged);
        assert_eq!(patterns("the forged verification"), forged);
        assert!(patterns("in").is_empty() && patterns("").is_empty());
        assert!(patterns("council").is_empty());
    }

    #[test]
    fn every_problem_binds_n_and_filters_it() {
        for p in PROBLEMS {
            assert!(p.pattern.starts_with("MATCH (n") && p.pattern.contains(" WHERE "), "{}", p.pattern);
            assert!(!p.words.is_empty() && p.words.iter().all(|w| *w == w.to_lowercase()));
        }
    }
}
