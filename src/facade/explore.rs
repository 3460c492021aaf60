//! The facade's reads for exploring UIs: search over names, claims and quotes, a source
//! document's full text (to show a quote in its transcript), and what a UI learns at start.

use std::path::PathBuf;

use super::Provex;
use crate::api::{Health, SearchHit, SourceText};
use crate::error::{Error, Result};

/// Most search hits a caller may ask for.
pub const MAX_HITS: u32 = 500;
/// Characters of context either side of a match in a snippet.
const SNIPPET_CONTEXT: usize = 60;

/// A snippet of `text` around the first match of `needle_lower` (already lowercase).
fn snippet(text: &str, needle_lower: &str) -> String {
    let lower = text.to_lowercase();
    // Lowercasing may change byte lengths; fall back to the start when it does.
    let at = match lower.find(needle_lower) {
        Some(i) if lower.len() == text.len() && text.is_char_boundary(i) => i,
        _ => 0,
    };
    let start = text[..at].char_indices().rev().nth(SNIPPET_CONTEXT).map_or(0, |(i, _)| i);
    let end_from = (at + needle_lower.len()).min(text.len());
    let end_from = (end_from..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    let end = text[end_from..].char_indices().nth(SNIPPET_CONTEXT).map_or(text.len(), |(i, _)| end_from + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(text[start..end].trim());
    if end < text.len() {
        out.push('…');
    }
    out.replace('\n', " ")
}

/// Characters of a claim or quote quoted after a problem.
const PROBLEM_TEXT: usize = 90;

/// A node found by a problem: the problem in words, who (for a verification), and the claim
/// or quote it concerns.
fn problem_hit(p: crate::store::problems::ProblemHit) -> SearchHit {
    let mut out = p.problem.describe.to_owned();
    if let Some(agent) = &p.agent {
        out.push_str(&format!(" · by {agent}"));
    }
    if let Some(text) = p.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        let cut: String = text.chars().take(PROBLEM_TEXT).collect();
        let more = if cut.len() < text.len() { "…" } else { "" };
        out.push_str(&format!(" · “{}{more}”", cut.replace('\n', " ")));
    }
    SearchHit { id: p.name, label: p.label, field: p.problem.field.to_owned(), snippet: out }
}

/// A safe local name for an uploaded file: its base name, with anything unusual replaced.
fn upload_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("upload");
    let clean: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .collect();
    let clean = clean.trim_start_matches('.');
    if clean.is_empty() {
        "upload.jsonl".to_owned()
    } else {
        clean.to_owned()
    }
}

impl Provex {
    /// First the nodes with the verdict, signature or evidence status `q` names ("forged",
    /// "challenged", "mismatch": see [`crate::store::problems`]), then those whose name,
    /// claim, quote or content contains `q` (any case), each in creation order, with the
    /// field that matched and a snippet.
    pub async fn search(&self, graph: &str, q: &str, limit: u32) -> Result<Vec<SearchHit>> {
        crate::store::validate_graph_name(graph)?;
        let q = q.trim();
        if q.is_empty() {
            return Ok(Vec::new());
        }
        let limit = limit.clamp(1, MAX_HITS);
        let needle = q.to_lowercase();
        let mut hits: Vec<SearchHit> =
            self.store.search_problems(graph, q, limit).await?.into_iter().map(problem_hit).collect();
        let rows = self.store.search(graph, q, limit).await?;
        for (id, label, values) in rows {
            if hits.len() >= limit as usize {
                break;
            }
            if hits.iter().any(|h| h.id == id) {
                continue;
            }
            let (field, text) = values
                .into_iter()
                .find(|(_, v)| v.to_lowercase().contains(&needle))
                .unwrap_or_else(|| ("name".to_owned(), id.clone()));
            hits.push(SearchHit { snippet: snippet(&text, &needle), id, label, field });
        }
        Ok(hits)
    }

    /// A source document's full text, from the A2AP documents stored in the graph.
    pub async fn source_text(&self, graph: &str, id: &str) -> Result<SourceText> {
        let text = self.with_ledger(graph, |l| {
            l.source(id).map(|d| SourceText {
                id: d.id.clone(),
                title: d.title.clone(),
                text: d.text.clone(),
            })
        });
        text.await?.ok_or_else(|| Error::NotFound { what: "source document", name: id.to_owned() })
    }

    /// What a UI shows about the backend.
    pub fn health(&self, auth: bool) -> Health {
        // The replicas' lag is measured again for the next ask (this answer gives the last).
        if let (true, Ok(rt)) = (self.store.reads_from_replicas(), tokio::runtime::Handle::try_current()) {
            let store = self.store.clone();
            rt.spawn(async move { store.replica_lag(None).await });
        }
        Health {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            database: self.url(),
            private_server: self.server.is_some(),
            auth,
            replica: self.store.last_replica_lag(),
        }
    }

    /// A new file in the uploads folder for an upload called `name`: its base name made
    /// safe, after a timestamp. Both UIs save uploads here before ingesting them. When paths
    /// are limited ([`Provex::restrict_paths`]), the folder must lie inside the allowed ones.
    pub fn new_upload_path(&self, name: &str) -> Result<PathBuf> {
        let dir = self.uploads_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let dir = self.paths.check(&dir, "the uploads folder")?;
        let stamp =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
        Ok(dir.join(format!("{stamp}-{}", upload_name(name))))
    }

    /// Where files uploaded through a UI are kept: the data folder of the private server,
    /// or a folder in the system's temporary directory with a shared server.
    pub fn uploads_dir(&self) -> PathBuf {
        match &self.data_dir {
            Some(d) => d.join("uploads"),
            None => std::env::temp_dir().join("provex-uploads"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{snippet, upload_name};

    #[test]
    fn upload_names_stay_in_the_uploads_folder() {
        assert_eq!(upload_name("../../etc/passwd"), "passwd");
        assert_eq!(upload_name("C:\\runs\\a b.jsonl"), "a_b.jsonl");
        assert_eq!(upload_name(".hidden"), "hidden");
        assert_eq!(upload_name(""), "upload.jsonl");
        assert_eq!(upload_name("run—1.jsonl"), "run_1.jsonl");
    }

    #[test]
    fn snippet_centres_on_the_match_and_marks_cuts() {
        let text = format!("{}needle in the middle{}", "a".repeat(100), "b".repeat(100));
        let s = snippet(&text, "needle");
        // 60 characters either side of the match, plus the one at the cut.
        assert_eq!(s, format!("…{}needle in the middle{}…", "a".repeat(61), "b".repeat(46)));
        assert_eq!(snippet("short text", "text"), "short text");
    }

    #[test]
    fn snippet_is_safe_with_multibyte_text() {
        let text = "Riverton — “the vote” — ends";
        assert_eq!(snippet(text, "vote"), text);
        // Lowercasing that changes lengths (İ is 2 bytes, its lowercase 3) falls back to
        // the start, and does not split a character.
        assert_eq!(snippet("İİİ needle", "needle"), "İİİ needle");
        let long = format!("{}needle{}", "İ".repeat(100), "x".repeat(100));
        assert_eq!(snippet(&long, "needle"), format!("{}…", "İ".repeat(63)));
    }
}
