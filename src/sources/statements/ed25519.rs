//! One Ed25519 verification rule for one signature and for many at once, so that a
//! document's status never depends on which path checked it, and a file of signed documents
//! verifies in batches at a fraction of the cost of one check per signature.
//!
//! The rule is RFC 8032 §5.1.7's cofactored equation `[8][S]B = [8]R + [8][k]A`, with the
//! encoding checks `verify_strict` makes: `S` canonical (`S < L`), `R` canonically encoded,
//! and neither `A` nor `R` of small order. The cofactorless check (`verify_strict`) cannot be
//! batched consistently: a signer can add a small torsion point to `R` so that a random-linear-
//! combination batch accepts the signature with probability 1/8 while the single check rejects
//! it. With the cofactor in both, a batch accepts exactly when every signature in it would be
//! accepted alone, except with probability about 2^-128 (ed25519-dalek's own `verify_batch`
//! is cofactorless, so it is not used). Honest signatures pass every variant alike.
//!
//! The batch's coefficients are derived from everything it checks (Fiat–Shamir, as
//! ed25519-dalek's batch does with merlin), so no random number generator is needed, and the
//! terms of signatures under the same key are merged into one point (files have few keys
//! and many signatures), which halves the multi-scalar multiplication.
//!
//! Why not `ed25519-zebra` or `ed25519-consensus` (ZIP 215, the same cofactored batch
//! equation): their rule accepts what ours refuses. ZIP 215 requires only `S < L`; it accepts
//! non-canonical encodings of `A` and `R` and keys and `R` of small order, so under it the
//! identity key with the signature (`R` = identity, `S` = 0) verifies every message, which
//! `verify_strict`, and so the status an A2AP document gets (`docs/FORMATS.md`, "A2AP
//! documents"), refuses (`encodings_verify_strict_refuses_are_refused` in the tests). Using
//! either crate would keep `prepare`'s checks in front of it and replace only `verify_all`
//! and `coefficients` (about 50 lines), at the cost of decompressing every key and `R` twice, an
//! RNG, and, for `ed25519-consensus` 2.1, a second curve implementation
//! (`curve25519-dalek-ng`) and `sha2` 0.9; `ed25519-zebra` 5 pulls `curve25519-dalek` 5,
//! `sha2` 0.11 and `ed25519` 3 beside the versions `ed25519-dalek` uses (4.2 shares them but
//! adds `rand_core` 0.6 and an entropy source).

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha512};

/// One signature ready to check: its decoded parts and the challenge `k = H(R || A || M)`.
#[derive(Clone)]
pub struct Prepared {
    key: [u8; 32],
    a: EdwardsPoint,
    r_bytes: [u8; 32],
    r: EdwardsPoint,
    s: Scalar,
    k: Scalar,
}

/// Decodes a signature for `message` under `key`; `None` when an encoding check fails
/// (non-canonical `S` or `R`, `R` not on the curve, `A` or `R` of small order), which makes
/// the signature invalid whatever the equation says.
pub fn prepare(key: &VerifyingKey, message: &[u8], signature: &Signature) -> Option<Prepared> {
    if key.is_weak() {
        return None;
    }
    let s = Option::<Scalar>::from(Scalar::from_canonical_bytes(*signature.s_bytes()))?;
    let r_bytes = *signature.r_bytes();
    if !canonical_y(&r_bytes) {
        return None;
    }
    let r = CompressedEdwardsY(r_bytes).decompress()?;
    if r.is_small_order() {
        return None;
    }
    let mut h = Sha512::new();
    h.update(r_bytes);
    h.update(key.as_bytes());
    h.update(message);
    let k = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
    Some(Prepared { key: key.to_bytes(), a: key.to_edwards(), r_bytes, r, s, k })
}

/// Whether a point's encoding has `y < p = 2^255 - 19` (the sign bit aside). The other
/// non-canonical encodings (`x = 0` with the sign bit set) are points of small order, which
/// are refused anyway.
fn canonical_y(bytes: &[u8; 32]) -> bool {
    let top = bytes[31] & 0x7f;
    !(top == 0x7f && bytes[1..31].iter().all(|&b| b == 0xff) && bytes[0] >= 0xed)
}

/// Checks one signature: `[8]([S]B - [k]A - R)` is the identity.
pub fn verify_one(p: &Prepared) -> bool {
    let sb_minus_ka = EdwardsPoint::vartime_double_scalar_mul_basepoint(&p.k, &(-p.a), &p.s);
    (sb_minus_ka - p.r).mul_by_cofactor().is_identity()
}

/// Verifies a signature by the rule above (the single path).
pub fn verify(key: &VerifyingKey, message: &[u8], signature: &Signature) -> bool {
    prepare(key, message, signature).is_some_and(|p| verify_one(&p))
}

/// Checks all signatures at once: `[8](-[Σ z·S]B + Σ z·R + Σ_keys (Σ z·k)·A)` is the identity
/// for 128-bit coefficients `z` derived from the whole batch. `true` means every one is valid
/// (up to probability 2^-128); `false` means at least one is not.
pub fn verify_all(batch: &[Prepared]) -> bool {
    match batch {
        [] => true,
        [one] => verify_one(one),
        _ => {
            let z = coefficients(batch);
            let mut b = Scalar::ZERO;
            let mut keys: Vec<([u8; 32], EdwardsPoint, Scalar)> = Vec::new();
            let mut scalars = Vec::with_capacity(batch.len() + 8);
            let mut points = Vec::with_capacity(batch.len() + 8);
            for (p, z) in batch.iter().zip(&z) {
                b -= z * p.s;
                scalars.push(*z);
                points.push(p.r);
                let zk = z * p.k;
                match keys.iter_mut().find(|(key, ..)| *key == p.key) {
                    Some((.., c)) => *c += zk,
                    None => keys.push((p.key, p.a, zk)),
                }
            }
            scalars.push(b);
            points.push(curve25519_dalek::constants::ED25519_BASEPOINT_POINT);
            for (_, a, c) in keys {
                scalars.push(c);
                points.push(a);
            }
            EdwardsPoint::vartime_multiscalar_mul(scalars, points).mul_by_cofactor().is_identity()
        }
    }
}

/// Which signatures of a batch are valid: one batch check when all are (the common case),
/// otherwise halves checked again down to small groups checked one by one, so a few bad
/// signatures among many cost a few extra batches, not one check each.
pub fn verify_each(batch: &[Prepared]) -> Vec<bool> {
    let mut out = vec![false; batch.len()];
    mark(batch, &mut out);
    out
}

fn mark(batch: &[Prepared], out: &mut [bool]) {
    if batch.len() <= 4 {
        for (p, o) in batch.iter().zip(out.iter_mut()) {
            *o = verify_one(p);
        }
    } else if verify_all(batch) {
        out.fill(true);
    } else {
        let half = batch.len() / 2;
        let (left, right) = out.split_at_mut(half);
        mark(&batch[..half], left);
        mark(&batch[half..], right);
    }
}

/// The batch's coefficients: 128-bit values from SHA-512 over every challenge, `R` and `S`
/// in the batch, so that whoever made the signatures cannot choose them.
fn coefficients(batch: &[Prepared]) -> Vec<Scalar> {
    let mut seed = Sha512::new();
    seed.update(b"provex ed25519 batch");
    for p in batch {
        seed.update(p.k.as_bytes());
        seed.update(p.r_bytes);
        seed.update(p.s.as_bytes());
    }
    let seed = seed.finalize();
    (0..batch.len() as u64)
        .map(|i| {
            let mut h = Sha512::new();
            h.update(seed);
            h.update(i.to_le_bytes());
            let mut z = [0u8; 32];
            z[..16].copy_from_slice(&h.finalize()[..16]);
            Scalar::from_bytes_mod_order(z)
        })
        .collect()
}

#[cfg(test)]
#[path = "ed25519_tests.rs"]
mod tests;
