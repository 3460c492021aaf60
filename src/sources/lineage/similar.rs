//! `lineage similar`: the prompts closest to one by the lineage confidence (Jaccard and edit
//! ratio, renormalised). An inverted index over token sets gives every prompt's exact
//! Jaccard with the query from the postings of its tokens; prompts are then rescored with the
//! edit ratio in falling Jaccard order, and the walk stops once no prompt left can enter the
//! top `limit` (the confidence is at most (0.40·J + 0.25)/0.65). The result is the exact
//! full scan's, at the cost of a few hundred edit distances.

use std::collections::HashMap;
use std::sync::Arc;

use uuid::Uuid;

use super::confidence::{confidence, edit_ratio, tokens, W_EDIT, W_JACCARD};
use super::views::SimilarHit;

/// Prompts indexed by their tokens.
#[derive(Debug, Default)]
pub struct SimilarIndex {
    ids: Vec<Uuid>,
    texts: Vec<Arc<str>>,
    sizes: Vec<u32>,
    vocab: HashMap<String, u32>,
    postings: Vec<Vec<u32>>,
}

impl SimilarIndex {
    pub fn new() -> SimilarIndex {
        SimilarIndex::default()
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn add(&mut self, id: Uuid, text: Arc<str>) {
        let doc = self.ids.len() as u32;
        let toks = tokens(&text);
        self.sizes.push(toks.len() as u32);
        for t in toks {
            let next = self.postings.len() as u32;
            let at = *self.vocab.entry(t).or_insert(next);
            if at == next {
                self.postings.push(Vec::new());
            }
            self.postings[at as usize].push(doc);
        }
        self.ids.push(id);
        self.texts.push(text);
    }

    /// The text of an indexed prompt.
    pub fn text(&self, id: &Uuid) -> Option<&Arc<str>> {
        self.ids.iter().position(|x| x == id).map(|i| &self.texts[i])
    }

    fn hit(&self, doc: usize, j: f64, query: &str) -> SimilarHit {
        let e = edit_ratio(query, &self.texts[doc]);
        SimilarHit {
            id: self.ids[doc].to_string(),
            jaccard: j,
            edit_ratio: e,
            confidence: confidence(j, e, None),
        }
    }

    /// The best `limit` prompts at or above `threshold`, `exclude` left out, best first.
    pub fn query(&self, text: &str, exclude: Option<Uuid>, threshold: f64, limit: usize) -> Vec<SimilarHit> {
        let q = tokens(text);
        let qn = q.len() as f64;
        // Shared tokens per prompt: a counter per prompt, and the prompts touched.
        let mut counts = vec![0u32; self.ids.len()];
        let mut touched: Vec<u32> = Vec::new();
        for t in &q {
            if let Some(&at) = self.vocab.get(t) {
                for &d in &self.postings[at as usize] {
                    let c = &mut counts[d as usize];
                    if *c == 0 {
                        touched.push(d);
                    }
                    *c += 1;
                }
            }
        }
        let jac = |d: usize, inter: f64| {
            let union = qn + f64::from(self.sizes[d]) - inter;
            if union == 0.0 {
                1.0
            } else {
                inter / union
            }
        };
        let mut order: Vec<(f64, usize)> =
            touched.iter().map(|&d| (jac(d as usize, f64::from(counts[d as usize])), d as usize)).collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let bound = |j: f64| (W_JACCARD * j + W_EDIT) / (W_JACCARD + W_EDIT);
        let mut best: Vec<SimilarHit> = Vec::new();
        let floor = |best: &Vec<SimilarHit>| {
            if best.len() < limit {
                threshold
            } else {
                best.last().map_or(threshold, |h| h.confidence.max(threshold))
            }
        };
        let push = |best: &mut Vec<SimilarHit>, h: SimilarHit| {
            if h.confidence >= threshold {
                let at = best.partition_point(|x| x.confidence >= h.confidence);
                best.insert(at, h);
                best.truncate(limit);
            }
        };
        for &(j, d) in &order {
            if bound(j) < floor(&best) || (best.len() >= limit && bound(j) <= floor(&best)) {
                break;
            }
            if Some(self.ids[d]) == exclude {
                continue;
            }
            push(&mut best, self.hit(d, j, text));
        }
        // Prompts sharing no token have Jaccard 0 (1 when both have none): they can only
        // enter when the bar is that low.
        if bound(if q.is_empty() { 1.0 } else { 0.0 }) >= floor(&best) {
            for (d, shared) in counts.iter().enumerate() {
                if *shared > 0 || Some(self.ids[d]) == exclude {
                    continue;
                }
                let j = if q.is_empty() && self.sizes[d] == 0 { 1.0 } else { 0.0 };
                if bound(j) >= floor(&best) {
                    push(&mut best, self.hit(d, j, text));
                }
            }
        }
        best
    }

    /// The same answer by scoring every prompt (the baseline the index is measured against).
    pub fn scan(&self, text: &str, exclude: Option<Uuid>, threshold: f64, limit: usize) -> Vec<SimilarHit> {
        let mut all: Vec<SimilarHit> = (0..self.ids.len())
            .filter(|&d| Some(self.ids[d]) != exclude)
            .map(|d| self.hit(d, super::confidence::jaccard(text, &self.texts[d]), text))
            .filter(|h| h.confidence >= threshold)
            .collect();
        all.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        all.truncate(limit);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The index finds what the full scan finds (same confidences, in order).
        #[test]
        fn the_index_agrees_with_the_full_scan(
            docs in proptest::collection::vec("(alpha|beta|gamma|delta|summarise|meeting|the| |,){0,12}", 1..40),
            q in "(alpha|beta|gamma|delta|summarise|the| ){0,10}",
            limit in 1usize..6,
            threshold in 0.0f64..0.9,
        ) {
            let mut idx = SimilarIndex::new();
            for (i, d) in docs.iter().enumerate() {
                idx.add(Uuid::from_u128(i as u128), Arc::from(d.as_str()));
            }
            let fast: Vec<f64> = idx.query(&q, None, threshold, limit).iter().map(|h| h.confidence).collect();
            let slow: Vec<f64> = idx.scan(&q, None, threshold, limit).iter().map(|h| h.confidence).collect();
            prop_assert_eq!(fast.len(), slow.len());
            for (a, b) in fast.iter().zip(&slow) {
                prop_assert!((a - b).abs() < 1e-9, "{:?} vs {:?}", fast, slow);
            }
        }
    }
}
