//! The confidence of a lineage edge between two prompt texts ("Computation Methods" of the
//! lineage agent, docs/FORMATS.md "Prompt lineage"): token-set Jaccard 40 %, semantic similarity 35 %, edit-distance
//! ratio 25 %; without an embeddings endpoint, the two others renormalised to their share of
//! 65 %, and the result says so.

use std::collections::BTreeSet;

use serde::Serialize;

/// Weights of the three parts.
pub const W_JACCARD: f64 = 0.40;
pub const W_SEMANTIC: f64 = 0.35;
pub const W_EDIT: f64 = 0.25;

/// Two texts compared: each part and the confidence they make. `semantic` is none when no
/// embeddings endpoint was configured (or it failed), and `confidence` is then renormalised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    pub jaccard: f64,
    pub edit_ratio: f64,
    pub semantic: Option<f64>,
    pub confidence: f64,
}

/// What a confidence says of a lineage step, in the lineage format's bands ("Confidence
/// Semantics", docs/FORMATS.md "Prompt lineage"): `strong` from 0.9, `moderate` from 0.7,
/// `weak` from 0.5, `tentative` from 0.3 ("inspired by"), `minimal` below ("unlikely
/// related").
pub fn band(confidence: f64) -> &'static str {
    match confidence {
        c if c >= 0.9 => "strong",
        c if c >= 0.7 => "moderate",
        c if c >= 0.5 => "weak",
        c if c >= 0.3 => "tentative",
        _ => "minimal",
    }
}

/// A step below 0.5 is a guess: what its headline says first (`None` for 0.5 and above).
pub fn doubt(confidence: f64) -> Option<&'static str> {
    match band(confidence) {
        "tentative" => Some("tentative: inspired by, not derived from"),
        "minimal" => Some("unlikely related"),
        _ => None,
    }
}

/// The text's tokens: lowercased (Unicode), split on every character that is not
/// alphanumeric, empty pieces dropped; as a set.
pub fn tokens(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// |A ∩ B| / |A ∪ B| over the two texts' token sets; 1.0 when both have none.
pub fn jaccard(a: &str, b: &str) -> f64 {
    let (ta, tb) = (tokens(a), tokens(b));
    let union = ta.union(&tb).count();
    if union == 0 {
        return 1.0;
    }
    ta.intersection(&tb).count() as f64 / union as f64
}

/// 1 − levenshtein(a, b) / max(len a, len b), lengths and distance in Unicode scalar values;
/// 1.0 when both are empty.
pub fn edit_ratio(a: &str, b: &str) -> f64 {
    let longest = a.chars().count().max(b.chars().count());
    if longest == 0 {
        return 1.0;
    }
    1.0 - strsim::levenshtein(a, b) as f64 / longest as f64
}

/// Cosine similarity of two embeddings; none when their lengths differ, they are empty, or
/// either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return None;
    }
    Some((dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0))
}

/// The confidence of the three parts; without `semantic`, Jaccard and the edit ratio weighted
/// 0.40/0.65 and 0.25/0.65.
pub fn confidence(jaccard: f64, edit_ratio: f64, semantic: Option<f64>) -> f64 {
    match semantic {
        Some(s) => W_JACCARD * jaccard + W_SEMANTIC * s + W_EDIT * edit_ratio,
        None => (W_JACCARD * jaccard + W_EDIT * edit_ratio) / (W_JACCARD + W_EDIT),
    }
}

/// Two prompt texts compared, with the semantic similarity of their embeddings if known.
pub fn compare(a: &str, b: &str, semantic: Option<f64>) -> Breakdown {
    let (j, e) = (jaccard(a, b), edit_ratio(a, b));
    Breakdown { jaccard: j, edit_ratio: e, semantic, confidence: confidence(j, e, semantic) }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_bands_follow_the_format_and_only_steps_below_a_half_are_doubted() {
        let at = [(1.0, "strong"), (0.9, "strong"), (0.89, "moderate"), (0.7, "moderate"), (0.5, "weak")];
        for (c, b) in at {
            assert_eq!(super::band(c), b, "{c}");
            assert_eq!(super::doubt(c), None, "{c}");
        }
        assert_eq!(super::band(0.42), "tentative");
        assert_eq!(super::doubt(0.3), Some("tentative: inspired by, not derived from"));
        assert_eq!(super::band(0.29), "minimal");
        assert_eq!(super::doubt(0.0), Some("unlikely related"));
    }

    use super::*;
    use proptest::prelude::*;

    const EPS: f64 = 1e-12;

    #[test]
    fn tokens_are_lowercased_alphanumeric_runs() {
        let t: Vec<String> =
            tokens("Summarise THE meeting's minutes—in 3 bullet-points; Ünïcode ok").into_iter().collect();
        assert_eq!(
            t,
            ["3", "bullet", "in", "meeting", "minutes", "ok", "points", "s", "summarise", "the", "ünïcode"]
        );
        assert!(tokens(" ,;— ").is_empty());
    }

    #[test]
    fn worked_examples() {
        // {summarise, the, meeting} vs {summarise, the, council, meeting}: 3 of 4.
        assert!((jaccard("Summarise the meeting", "summarise the council meeting") - 0.75).abs() < EPS);
        assert_eq!(jaccard("", ""), 1.0);
        assert_eq!(jaccard("a", ""), 0.0);
        // kitten → sitting: 3 edits over 7 scalar values.
        assert!((edit_ratio("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < EPS);
        // Scalar values, not bytes: one substitution in a 2-character text.
        assert!((edit_ratio("éa", "éb") - 0.5).abs() < EPS);
        assert_eq!(edit_ratio("", ""), 1.0);
        assert_eq!(edit_ratio("abc", ""), 0.0);
        let with = confidence(0.75, 0.5, Some(0.9));
        assert!((with - (0.4 * 0.75 + 0.35 * 0.9 + 0.25 * 0.5)).abs() < EPS);
        let without = confidence(0.75, 0.5, None);
        assert!((without - (0.4 / 0.65 * 0.75 + 0.25 / 0.65 * 0.5)).abs() < EPS);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 2.0]), Some(0.0));
        assert_eq!(cosine(&[1.0, 1.0], &[2.0, 2.0]).map(|c| (c - 1.0).abs() < 1e-9), Some(true));
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn the_json_has_the_fields_formats_md_names() {
        let v = serde_json::to_value(compare("a b", "a c", None)).unwrap();
        assert_eq!(v["semantic"], serde_json::Value::Null);
        for k in ["jaccard", "edit_ratio", "confidence"] {
            assert!(v[k].is_number(), "{k}: {v}");
        }
    }

    proptest! {
        #[test]
        fn parts_and_confidence_are_bounded_symmetric_and_one_for_equal_texts(
            a in "\\PC{0,40}", b in "\\PC{0,40}", s in prop::option::of(0.0f64..=1.0),
        ) {
            let ab = compare(&a, &b, s);
            let ba = compare(&b, &a, s);
            prop_assert!((ab.jaccard - ba.jaccard).abs() < EPS && (ab.edit_ratio - ba.edit_ratio).abs() < EPS);
            for x in [ab.jaccard, ab.edit_ratio, ab.confidence] {
                prop_assert!((0.0..=1.0 + EPS).contains(&x), "{:?}", ab);
            }
            let same = compare(&a, &a, s.map(|_| 1.0));
            prop_assert!((same.confidence - 1.0).abs() < EPS, "{:?}", same);
        }

        #[test]
        fn without_semantic_the_weights_are_renormalised(j in 0.0f64..=1.0, e in 0.0f64..=1.0) {
            // The renormalised formula is the full one with `semantic` equal to the mean the
            // other two parts give: it lies between them.
            let c = confidence(j, e, None);
            prop_assert!(c >= j.min(e) - EPS && c <= j.max(e) + EPS);
            prop_assert!((c - confidence(j, e, Some(c))).abs() < 1e-9);
        }
    }
}
