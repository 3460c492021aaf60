//! The checks of the fuzz target `tlog_witness`, shared with the stable replay of its saved
//! inputs (`tests/it/fuzz_regressions.rs`): what a witness and an auditor read from outside
//! in the tamper-evident log's witnessing (docs/FORMATS.md, "Tamper-evident log").

use std::sync::OnceLock;

use provex::tlog::checkpoint::{self, InstanceKey};
use provex::tlog::witness::{self, AddCheckpoint, Seen, WitnessKey};
use provex::tlog::Hash;

/// The log key, witness key and a signed checkpoint the inputs are checked against (the log
/// key is the `tlog_proof` inputs' signer: `provex/fuzz`, seed of 32 bytes of 7).
struct Keys {
    log: String,
    witness: String,
    note: Vec<u8>,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let log = InstanceKey::from_seed("provex/fuzz", [7; 32]).unwrap();
        let w = WitnessKey::from_seed("provex-witness/fuzz", [8; 32]).unwrap();
        Keys {
            log: log.verifier_key(),
            witness: w.verifier_key(),
            note: log.sign("g", 5, Hash([3; 32])).unwrap(),
        }
    })
}

/// The verifier key of the log the saved inputs are of.
pub fn log_key() -> String {
    keys().log.clone()
}

/// The verifier key of the witness the saved inputs are cosigned by.
pub fn witness_key() -> String {
    keys().witness.clone()
}

/// `tlog_witness`: any bytes as a witness's `add-checkpoint` request, as a cosigned
/// checkpoint, as a witness's answer, and as an audit bundle checked for a witness's
/// cosignature (with its `provex:log` section) or kept as an earlier checkpoint. No panic; a
/// refusal has a reason and one of C2SP's statuses; a request read is written back the same;
/// cosigning is only ever granted from the size last cosigned; no answer's lines break the
/// log's own signature.
pub fn tlog_witness(data: &[u8]) {
    let k = keys();
    match AddCheckpoint::parse(data) {
        Err(e) => assert!(!e.trim().is_empty(), "request refused without a reason"),
        Ok(req) => {
            assert!(req.proof.len() <= witness::MAX_PROOF_LINES);
            assert_eq!(AddCheckpoint::parse(&req.to_bytes()).as_ref(), Ok(&req), "request round trip");
            let seen = [
                None,
                Some(Seen { size: req.old, root: Hash([0; 32]) }),
                Some(Seen { size: 1, root: Hash([3; 32]) }),
            ];
            for s in seen {
                match witness::decide(&req, std::slice::from_ref(&k.log), s) {
                    Ok(cp) => {
                        assert_eq!(req.old, s.map_or(0, |s| s.size), "cosigned from another size");
                        assert!(cp.size >= req.old);
                        assert!(checkpoint::open(&req.checkpoint, Some(&k.log)).is_ok());
                    }
                    Err(r) => {
                        assert!(!r.to_string().trim().is_empty(), "refused without a reason");
                        assert!([400, 403, 404, 409, 422].contains(&r.status()), "{r:?}");
                    }
                }
            }
        }
    }
    match witness::cosigned_by(data, &k.witness) {
        Err(e) => assert!(!e.trim().is_empty(), "cosignature refused without a reason"),
        Ok(c) => assert_eq!(c.witness, "provex-witness/fuzz"),
    }
    if let Ok(out) = witness::append_cosignatures(&k.note, data) {
        assert!(checkpoint::open(&out, Some(&k.log)).is_ok(), "appended lines broke the log's signature");
    }
    if let Ok((out, _)) = witness::accept_cosignatures(&k.note, data, &k.witness) {
        assert!(witness::cosigned_by(&out, &k.witness).is_ok());
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    use provex::sources::statements::bundle::{log::Since, verify_witnessed};
    if let Err(reason) = Since::from_bytes(data) {
        assert!(!reason.trim().is_empty(), "earlier checkpoint refused without a reason");
    }
    match verify_witnessed(text, None, None, std::slice::from_ref(&k.witness)) {
        Err(reason) => assert!(!reason.trim().is_empty(), "bundle refused without a reason"),
        Ok(check) => {
            let witnessed = check.log.as_ref().is_some_and(|l| !l.witnessed.is_empty());
            assert!(witnessed || !check.findings.is_empty(), "no cosignature, yet no finding: {check:?}");
        }
    }
}
