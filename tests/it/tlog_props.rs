//! Property tests of what the log's witnessing reads from outside (docs/FORMATS.md,
//! "Tamper-evident log"): `add-checkpoint` requests round-trip; a witness cosigns a
//! checkpoint exactly when its log extends the one it last cosigned; a cosignature holds and
//! breaks with any changed byte of what it covers; and any bytes or any JSON in a bundle's
//! `provex:log` section are refused with a reason or checked, never a panic.

use proptest::prelude::*;
use provex::tlog::checkpoint::InstanceKey;
use provex::tlog::witness::{self, AddCheckpoint, Refusal, Seen, WitnessKey};
use provex::tlog::{self, Frontier, Hash, StoredHashes};

use crate::fuzz_regressions::tlog_checks;

fn log_key() -> InstanceKey {
    InstanceKey::from_seed("provex/fuzz", [7; 32]).unwrap()
}

/// A history of `n` leaves whose leaves from `fork` on are of another history (`fork >= n`:
/// none are): its frontier and stored hashes.
fn history(n: u64, fork: u64) -> (Frontier, Vec<u8>) {
    let mut f = Frontier::default();
    let mut stored = Vec::new();
    for i in 0..n {
        let tag = if i < fork { "a" } else { "b" };
        f.append(tlog::leaf_hash(tag, i, b"record"), &mut stored);
    }
    (f, stored)
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[ -~]{0,40}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("checkpoint".to_owned()),
                    Just("verifierKey".to_owned()),
                    Just("records".to_owned()),
                    Just("index".to_owned()),
                    Just("path".to_owned()),
                    "[a-z]{1,8}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn requests_round_trip(old in any::<u64>(), hashes in prop::collection::vec(any::<[u8; 32]>(), 0..=63),
                           size in any::<u64>(), root in any::<[u8; 32]>()) {
        let r = AddCheckpoint {
            old,
            proof: hashes.into_iter().map(Hash).collect(),
            checkpoint: log_key().sign("g", size, Hash(root)).unwrap(),
        };
        prop_assert_eq!(AddCheckpoint::parse(&r.to_bytes()), Ok(r));
    }

    /// The witness cosigns exactly when the new log's first `old` leaves are the ones it
    /// cosigned (or it saw none), whatever the sizes and wherever the histories part.
    #[test]
    fn a_witness_cosigns_exactly_the_extensions(n in 1u64..200, old_frac in 0.0f64..=1.0, fork_frac in 0.0f64..=1.2) {
        let old = ((n as f64) * old_frac) as u64;
        let fork = ((n as f64) * fork_frac) as u64;
        let (cosigned, _) = history(old, u64::MAX);
        let (now, stored) = history(n, fork);
        let proof = if old == 0 || old == n {
            Vec::new()
        } else {
            tlog::prove_tree(n, old, &StoredHashes(&stored)).unwrap()
        };
        let req = AddCheckpoint { old, proof, checkpoint: log_key().sign("g", n, now.root()).unwrap() };
        let seen = (old > 0).then(|| Seen { size: old, root: cosigned.root() });
        let got = witness::decide(&req, &[log_key().verifier_key()], seen);
        let extends = old == 0 || fork >= old;
        prop_assert_eq!(got.is_ok(), extends, "{:?}", got);
        if let Err(r) = got {
            prop_assert!(matches!(r, Refusal::Fork { .. } | Refusal::Inconsistent { .. }), "{:?}", r);
        }
        // Told a smaller size than it keeps, it names its own.
        if old > 0 {
            let stale = AddCheckpoint { old: old - 1, proof: vec![], checkpoint: req.checkpoint.clone() };
            let r = witness::decide(&stale, &[log_key().verifier_key()], seen);
            prop_assert!(matches!(r, Err(Refusal::Stale { have, .. }) if have == old), "{:?}", r);
        }
    }

    /// A cosignature verifies with its witness's key, and any changed byte of the checkpoint
    /// it covers (or of itself) breaks it.
    #[test]
    fn a_cosignature_breaks_with_any_changed_byte(size in any::<u64>(), root in any::<[u8; 32]>(),
                                                   time in 0u64..(i64::MAX as u64), at in any::<prop::sample::Index>(),
                                                   bit in 0u8..8) {
        let w = WitnessKey::from_seed("provex-witness/w", [8; 32]).unwrap();
        let note = log_key().sign("g", size, Hash(root)).unwrap();
        let text = witness::note_text(&note).unwrap();
        let line = w.cosign(&text, time);
        let (cosigned, by) = witness::accept_cosignatures(&note, line.as_bytes(), &w.verifier_key()).unwrap();
        prop_assert_eq!(by.time, time);
        // Flip one bit of the checkpoint's text or of the cosignature's base64 payload.
        let sig_at = cosigned.len() - line.len() + "— provex-witness/w ".len();
        let spots: Vec<usize> = (0..text.len() - 1).chain(sig_at..cosigned.len() - 1).collect();
        let i = spots[at.index(spots.len())];
        let mut changed = cosigned.clone();
        changed[i] ^= 1 << bit;
        prop_assert!(witness::cosigned_by(&changed, &w.verifier_key()).is_err(), "byte {} bit {} still verifies", i, bit);
    }

    /// Any bytes, and a valid request or cosigned checkpoint cut or with bytes changed: the
    /// checks of the `tlog_witness` fuzz target hold.
    #[test]
    fn any_bytes_pass_the_fuzz_checks(bytes in prop::collection::vec(any::<u8>(), 0..400),
                                      cut in any::<prop::sample::Index>(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4)) {
        tlog_checks::tlog_witness(&bytes);
        let note = log_key().sign("g", 5, Hash([3; 32])).unwrap();
        let w = WitnessKey::from_seed("provex-witness/fuzz", [8; 32]).unwrap();
        let cosigned = [note.clone(), w.cosign(&witness::note_text(&note).unwrap(), 9).into_bytes()].concat();
        let request = AddCheckpoint { old: 0, proof: vec![], checkpoint: note }.to_bytes();
        for valid in [request, cosigned] {
            let mut v = valid[..cut.index(valid.len() + 1)].to_vec();
            for (i, b) in &edits {
                if !v.is_empty() {
                    let at = i.index(v.len());
                    v[at] = *b;
                }
            }
            tlog_checks::tlog_witness(&v);
        }
    }

    /// Any JSON as a bundle's `provex:log` section: refused with a reason, or checked with
    /// findings (it cannot carry the witness's cosignature).
    #[test]
    fn any_log_section_is_refused_or_checked(log in json_value()) {
        let bundle = serde_json::json!({
            "@context": "https://provex.dev/ns/audit-bundle/v1",
            "@type": "provex:AuditBundle",
            "provex:log": log,
        });
        tlog_checks::tlog_witness(bundle.to_string().as_bytes());
    }
}
