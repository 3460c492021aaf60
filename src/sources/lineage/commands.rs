//! The `provex lineage` commands built on the lineage reads: inspect (history back to the
//! root), replay (the lineage in time order, each step's confidence recomputed), stats,
//! compare (with the suggested type and the word diff) and similar.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use uuid::Uuid;

use super::ops::{children_of, parse_prompt_id};
use crate::error::{Error, Result};
use crate::sources::lineage::similar::SimilarIndex;
use crate::sources::lineage::views::{
    Comparison, DiffOp, HistoryStep, Inspection, LineageStats, PromptView, ReplayEdge, ReplayStep, SimilarHit,
};
use crate::sources::lineage::Breakdown;
use crate::sources::Session;

/// The rule `lineage compare --suggest-type` applies, in the agent's words (its
/// `suggest_evolution_type`): refines when the edit ratio is over 0.7 and the Jaccard over
/// 0.6; evolves when the Jaccard is over 0.3 and under 0.7; derives otherwise.
pub const SUGGESTION_RULE: &str =
    "refines if edit_ratio > 0.7 and jaccard > 0.6; else evolves if 0.3 < jaccard < 0.7; else derives";

/// The evolution type the rule proposes.
pub fn suggest_type(b: &Breakdown) -> &'static str {
    if b.edit_ratio > 0.7 && b.jaccard > 0.6 {
        "refines"
    } else if b.jaccard > 0.3 && b.jaccard < 0.7 {
        "evolves"
    } else {
        "derives"
    }
}

/// A word-level diff from `a` to `b`: runs of removed and added words (the spaces between
/// changed words kept inside the runs, so a rewritten phrase reads as one removal and one
/// addition), between runs of equal text.
pub fn word_diff(a: &str, b: &str) -> Vec<DiffOp> {
    fn push(out: &mut Vec<DiffOp>, op: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(last) if last.op == op => last.text.push_str(text),
            _ => out.push(DiffOp { op: op.to_owned(), text: text.to_owned() }),
        }
    }
    let diff = similar::TextDiff::from_words(a, b);
    let mut out: Vec<DiffOp> = Vec::new();
    let (mut del, mut ins, mut gap) = (String::new(), String::new(), String::new());
    for change in diff.iter_all_changes() {
        let v = change.value();
        match change.tag() {
            similar::ChangeTag::Equal if v.trim().is_empty() && !(del.is_empty() && ins.is_empty()) => {
                gap.push_str(v)
            }
            similar::ChangeTag::Equal => {
                push(&mut out, "delete", &std::mem::take(&mut del));
                push(&mut out, "insert", &std::mem::take(&mut ins));
                push(&mut out, "equal", &std::mem::take(&mut gap));
                push(&mut out, "equal", v);
            }
            tag => {
                let (mine, other) = if tag == similar::ChangeTag::Delete {
                    (&mut del, &mut ins)
                } else {
                    (&mut ins, &mut del)
                };
                if !gap.is_empty() {
                    if !mine.is_empty() {
                        mine.push_str(&gap);
                    }
                    if !other.is_empty() {
                        other.push_str(&gap);
                    }
                    if mine.is_empty() && other.is_empty() {
                        push(&mut out, "equal", &gap);
                    }
                    gap.clear();
                }
                mine.push_str(v);
            }
        }
    }
    push(&mut out, "delete", &del);
    push(&mut out, "insert", &ins);
    push(&mut out, "equal", &gap);
    out
}

/// A cached similarity index of one graph, valid while its prompt count is unchanged.
#[derive(Default)]
pub(crate) struct SimilarCache {
    by_graph: std::sync::Mutex<HashMap<String, (u64, Arc<SimilarIndex>)>>,
}

impl Session {
    /// A prompt, its history from the root, its children and its lineage's heads.
    pub async fn lineage_inspect(&self, graph: &str, id: &str) -> Result<Inspection> {
        let g = self.lineage_graph(graph, id).await?;
        let by_id: HashMap<&str, &PromptView> = g.prompts.iter().map(|p| (p.id.as_str(), p)).collect();
        let prompt = by_id
            .get(g.focus.as_str())
            .map(|p| (*p).clone())
            .ok_or_else(|| Error::NotFound { what: "prompt", name: g.focus.clone() })?;
        // Back to the root along the first parent (the earliest edge into each prompt).
        let mut history = Vec::new();
        let mut at = g.focus.clone();
        let mut seen = HashSet::new();
        while seen.insert(at.clone()) {
            let Some(p) = by_id.get(at.as_str()) else { break };
            let into = || g.evolutions.iter().filter(|e| e.child == at);
            let edge = into().find(|e| e.primary).or_else(|| into().next()).cloned();
            history.push(HistoryStep { evolution: edge.clone(), prompt: (*p).clone() });
            match edge {
                Some(e) => at = e.parent,
                None => break,
            }
        }
        history.reverse();
        let children = children_of(&g)
            .get(g.focus.as_str())
            .map(|v| v.iter().map(|e| (*e).clone()).collect())
            .unwrap_or_default();
        let heads = g.prompts.iter().filter(|p| p.is_head).map(|p| p.id.clone()).collect();
        Ok(Inspection { prompt, history, children, heads })
    }

    /// The lineage of a prompt as it was created, in time order, each edge's confidence
    /// recomputed from the two texts.
    pub async fn lineage_replay(&self, graph: &str, id: &str) -> Result<Vec<ReplayStep>> {
        let g = self.lineage_graph(graph, id).await?;
        let by_id: HashMap<&str, &PromptView> = g.prompts.iter().map(|p| (p.id.as_str(), p)).collect();
        let mut steps = Vec::new();
        for (i, p) in g.prompts.iter().enumerate() {
            let mut from = Vec::new();
            for e in g.evolutions.iter().filter(|e| e.child == p.id) {
                let parent = by_id.get(e.parent.as_str()).and_then(|x| x.content.clone()).unwrap_or_default();
                let child = p.content.clone().unwrap_or_default();
                let (computed, note) = self.lineage_breakdown(&parent, &child).await;
                from.push(ReplayEdge { edge: e.clone(), computed, note });
            }
            steps.push(ReplayStep { step: i as u32 + 1, prompt: p.clone(), from });
        }
        Ok(steps)
    }

    /// Counts of a graph's lineages, or of one prompt's lineage.
    pub async fn lineage_stats(&self, graph: &str, id: Option<&str>) -> Result<LineageStats> {
        let (prompts, evolutions, lineage_id) = match id {
            Some(id) => {
                let g = self.lineage_graph(graph, id).await?;
                (g.prompts, g.evolutions, Some(g.lineage_id))
            }
            None => {
                let q = format!(
                    "MATCH (p:Prompt) WHERE p.lineage_id IS NOT NULL RETURN p.id, p.lineage_id, p.version, p.timestamp, \
                     p.chain_position, p.is_root, p.is_head, p.branch, p.model, null LIMIT {}",
                    super::ops::MAX_LINEAGE * 20
                );
                let prompts = self
                    .store
                    .compact_ro(graph, &q)
                    .await?
                    .iter()
                    .filter_map(|r| crate::sources::lineage::stored::prompt_row(r))
                    .collect();
                let q = "MATCH (c:Prompt)-[e]->(p:Prompt) WHERE e.`prov:base_type` = 'WAS_DERIVED_FROM' RETURN c.id, p.id, \
                         e.`lineage:evolution_type`, type(e), e.`lineage:confidence`, e.`lineage:similarity_score`, null AS reason, null AS created_at, e.`lineage:primary`";
                let evolutions = self
                    .store
                    .compact_ro(graph, q)
                    .await?
                    .iter()
                    .filter_map(|r| crate::sources::lineage::stored::edge_row(r))
                    .collect();
                (prompts, evolutions, None)
            }
        };
        let mut st = LineageStats {
            lineage_id,
            prompts: prompts.len() as u64,
            lineages: prompts.iter().map(|p| p.lineage_id.as_str()).collect::<HashSet<_>>().len() as u64,
            by_evolution_type: BTreeMap::new(),
            depth_distribution: BTreeMap::new(),
            max_depth: 0,
            heads: prompts.iter().filter(|p| p.is_head).count() as u64,
            branch_points: 0,
            branches: Vec::new(),
            mean_confidence: None,
            rejected_by_code: self.lineage_rejects(graph).await?,
        };
        for p in &prompts {
            *st.depth_distribution.entry(p.chain_position).or_default() += 1;
            st.max_depth = st.max_depth.max(p.chain_position);
            if let Some(b) = &p.branch {
                if !st.branches.contains(b) {
                    st.branches.push(b.clone());
                }
            }
        }
        st.branches.sort();
        let mut children: HashMap<&str, u32> = HashMap::new();
        let (mut sum, mut n) = (0.0, 0u64);
        for e in &evolutions {
            *st.by_evolution_type.entry(e.evolution_type.clone()).or_default() += 1;
            *children.entry(e.parent.as_str()).or_default() += 1;
            if let Some(c) = e.confidence {
                sum += c;
                n += 1;
            }
        }
        st.branch_points = children.values().filter(|c| **c > 1).count() as u64;
        st.mean_confidence = (n > 0).then(|| sum / n as f64);
        Ok(st)
    }

    /// Compares two prompts: Jaccard, edit ratio, semantic, confidence; optionally the type
    /// the rule suggests and a word diff.
    pub async fn lineage_compare(
        &self,
        graph: &str,
        a: &str,
        b: &str,
        suggest: bool,
        detailed: bool,
    ) -> Result<Comparison> {
        let pa = self.lineage_prompt(graph, a).await?;
        let pb = self.lineage_prompt(graph, b).await?;
        let (ta, tb) = (pa.content.unwrap_or_default(), pb.content.unwrap_or_default());
        let (bd, note) = self.lineage_breakdown(&ta, &tb).await;
        Ok(Comparison {
            a: pa.id,
            b: pb.id,
            jaccard: bd.jaccard,
            edit_ratio: bd.edit_ratio,
            semantic: bd.semantic,
            confidence: bd.confidence,
            note,
            suggested_type: suggest.then(|| suggest_type(&bd).to_owned()),
            suggestion_rule: suggest.then(|| SUGGESTION_RULE.to_owned()),
            diff: detailed.then(|| word_diff(&ta, &tb)),
        })
    }

    /// The similarity index of a graph's prompts, built on first use and again when the
    /// number of prompts changes.
    pub async fn similar_index(&self, graph: &str) -> Result<Arc<SimilarIndex>> {
        let rows = self
            .store
            .compact_ro(graph, "MATCH (p:Prompt) WHERE p.lineage_id IS NOT NULL RETURN count(p)")
            .await?;
        let count = rows.first().and_then(|r| r.first()).and_then(|v| v.as_u64()).unwrap_or(0);
        if let Some((n, idx)) = self.similar.by_graph.lock().expect("similar").get(graph) {
            if *n == count {
                return Ok(idx.clone());
            }
        }
        let rows = self
            .store
            .compact_ro(graph, "MATCH (p:Prompt) WHERE p.lineage_id IS NOT NULL RETURN p.id, p.content")
            .await?;
        let mut idx = SimilarIndex::new();
        for r in rows {
            let (Some(id), Some(text)) =
                (r.first().and_then(|v| v.as_str()), r.get(1).and_then(|v| v.as_str()))
            else {
                continue;
            };
            if let Ok(id) = Uuid::parse_str(id) {
                idx.add(id, Arc::from(text));
            }
        }
        let idx = Arc::new(idx);
        self.similar.by_graph.lock().expect("similar").insert(graph.to_owned(), (count, idx.clone()));
        Ok(idx)
    }

    /// The prompts most like one (confidence at least `threshold`, best `limit`).
    pub async fn lineage_similar(
        &self,
        graph: &str,
        id: &str,
        threshold: f64,
        limit: usize,
    ) -> Result<Vec<SimilarHit>> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::BadRequest(format!(
                "VALIDATION_ERROR: threshold {threshold} is outside [0, 1]"
            )));
        }
        let p = self.lineage_prompt(graph, id).await?;
        let uuid = parse_prompt_id(id)?;
        let idx = self.similar_index(graph).await?;
        Ok(idx.query(p.content.as_deref().unwrap_or(""), Some(uuid), threshold, limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diff gives both texts back: A from equal + delete runs, B from equal + insert.
    #[test]
    fn a_word_diff_rebuilds_both_texts() {
        for (a, b) in [
            (
                "Keep it under 300 words. Cover every item.",
                "Keep it under 200 words, as bullets. Cover every item.",
            ),
            ("", "new text"),
            ("old text", ""),
            ("a b c", "x y z"),
        ] {
            let d = word_diff(a, b);
            let side =
                |skip: &str| d.iter().filter(|o| o.op != skip).map(|o| o.text.as_str()).collect::<String>();
            assert_eq!(side("insert"), a);
            assert_eq!(side("delete"), b);
        }
        let d = word_diff("under 300 words today", "under 200 pages today");
        assert_eq!(d.iter().filter(|o| o.op == "delete").count(), 1, "one run: {d:?}");
        assert_eq!(d.iter().find(|o| o.op == "delete").unwrap().text, "300 words");
    }
}
