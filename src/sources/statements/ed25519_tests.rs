//! The verification rule against ed25519-dalek's `verify_strict`, and the batch against the
//! single check, on honest, tampered, malformed and torsion-carrying signatures.

use super::*;
use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use ed25519_dalek::{Signer as _, SigningKey};
use proptest::prelude::*;

fn key(n: u8) -> SigningKey {
    SigningKey::from_bytes(&[n; 32])
}

fn message(i: usize) -> Vec<u8> {
    format!("{{\"@id\":\"urn:uuid:{i}\",\"claim\":\"statement number {i}\"}}").into_bytes()
}

/// A signature whose `R` carries the torsion point `t`: made with the secret key, it passes
/// the cofactored equation and fails the cofactorless one.
fn torsion_signature(sk: &SigningKey, msg: &[u8], t: EdwardsPoint) -> Signature {
    let a = sk.to_scalar();
    let nonce = Scalar::from_bytes_mod_order_wide(&Sha512::digest(msg).into());
    let r = nonce * ED25519_BASEPOINT_POINT + t;
    let r_bytes = r.compress().to_bytes();
    let mut h = Sha512::new();
    h.update(r_bytes);
    h.update(sk.verifying_key().as_bytes());
    h.update(msg);
    let k = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
    let s = nonce + k * a;
    let mut bytes = [0u8; 64];
    bytes[..32].copy_from_slice(&r_bytes);
    bytes[32..].copy_from_slice(s.as_bytes());
    Signature::from_bytes(&bytes)
}

#[test]
fn honest_and_tampered_signatures_agree_with_verify_strict() {
    for n in 1..=8u8 {
        let sk = key(n);
        let vk = sk.verifying_key();
        let msg = message(n as usize);
        let sig = sk.sign(&msg);
        assert!(verify(&vk, &msg, &sig));
        assert!(vk.verify_strict(&msg, &sig).is_ok());
        let mut other = msg.clone();
        other[3] ^= 1;
        assert!(!verify(&vk, &other, &sig));
        assert!(vk.verify_strict(&other, &sig).is_err());
        assert!(!verify(&key(n + 100).verifying_key(), &msg, &sig), "another key");
    }
}

#[test]
fn encodings_verify_strict_refuses_are_refused() {
    let sk = key(7);
    let vk = sk.verifying_key();
    let msg = message(1);
    let sig = sk.sign(&msg).to_bytes();

    // S + L: the same scalar, not canonically encoded.
    // L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    let l: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut s = [0u8; 32];
    s.copy_from_slice(&sig[32..]);
    let (mut carry, mut sum) = (0u16, [0u8; 32]);
    for (i, out) in sum.iter_mut().enumerate() {
        let v = s[i] as u16 + l[i] as u16 + carry;
        *out = v as u8;
        carry = v >> 8;
    }
    let mut bad_s = sig;
    bad_s[32..].copy_from_slice(&sum);
    let bad_s = Signature::from_bytes(&bad_s);
    assert!(vk.verify_strict(&msg, &bad_s).is_err());
    assert!(!verify(&vk, &msg, &bad_s));

    // R of small order.
    let mut small_r = sig;
    small_r[..32].copy_from_slice(EIGHT_TORSION[1].compress().as_bytes());
    assert!(!verify(&vk, &msg, &Signature::from_bytes(&small_r)));

    // A of small order (a weak key): refused whatever the signature.
    let weak = VerifyingKey::from_bytes(EIGHT_TORSION[2].compress().as_bytes()).unwrap();
    assert!(weak.is_weak());
    assert!(!verify(&weak, &msg, &Signature::from_bytes(&sig)));
}

/// The signature ZIP 215 (`ed25519-zebra`, `ed25519-consensus`) accepts for every message
/// under the identity key, `R` = identity and `S` = 0, is refused and never enters a batch.
#[test]
fn the_zip215_identity_forgery_is_refused() {
    let identity = EdwardsPoint::default().compress().to_bytes();
    let key = VerifyingKey::from_bytes(&identity).unwrap();
    let mut bytes = [0u8; 64];
    bytes[..32].copy_from_slice(&identity);
    let forged = Signature::from_bytes(&bytes);
    for i in 0..3 {
        assert!(!verify(&key, &message(i), &forged));
        assert!(prepare(&key, &message(i), &forged).is_none());
    }
}

#[test]
fn only_encodings_below_p_are_canonical() {
    let mut p = [0xffu8; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    assert!(!canonical_y(&p), "p itself");
    let mut p_minus_1 = p;
    p_minus_1[0] = 0xec;
    assert!(canonical_y(&p_minus_1));
    let mut p_plus_1_signed = p;
    p_plus_1_signed[0] = 0xee;
    p_plus_1_signed[31] = 0xff;
    assert!(!canonical_y(&p_plus_1_signed), "the sign bit does not make it canonical");
    assert!(canonical_y(&ED25519_BASEPOINT_POINT.compress().to_bytes()));
}

#[test]
fn a_torsion_carrying_r_gets_the_same_answer_alone_and_in_a_batch() {
    let sk = key(3);
    let vk = sk.verifying_key();
    for (t, torsion) in EIGHT_TORSION.iter().enumerate().skip(1) {
        let msg = message(t);
        let sig = torsion_signature(&sk, &msg, *torsion);
        // The deliberate difference from verify_strict: the cofactored equation holds.
        assert!(vk.verify_strict(&msg, &sig).is_err());
        assert!(verify(&vk, &msg, &sig), "torsion {t}");
        let mut batch: Vec<Prepared> =
            (0..9).map(|i| prepare(&vk, &message(100 + i), &sk.sign(&message(100 + i))).unwrap()).collect();
        batch.insert(4, prepare(&vk, &msg, &sig).unwrap());
        assert!(verify_all(&batch), "torsion {t} in a batch");
        assert_eq!(verify_each(&batch), vec![true; 10]);
    }
}

#[test]
fn a_batch_with_one_bad_signature_fails_and_each_finds_it() {
    let keys: Vec<SigningKey> = (1..=3).map(key).collect();
    let mut batch: Vec<Prepared> = (0..40)
        .map(|i| {
            let sk = &keys[i % 3];
            prepare(&sk.verifying_key(), &message(i), &sk.sign(&message(i))).unwrap()
        })
        .collect();
    assert!(verify_all(&batch));
    let sk = &keys[0];
    let wrong = sk.sign(&message(999));
    batch[17] = prepare(&sk.verifying_key(), &message(17), &wrong).unwrap();
    assert!(!verify_all(&batch));
    let each = verify_each(&batch);
    assert_eq!(each.iter().filter(|ok| !**ok).count(), 1);
    assert!(!each[17]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever signatures are bad (wrong message, wrong key, torsion added after signing),
    /// the batch gives each one the answer the single check gives.
    #[test]
    fn batch_answers_match_single_answers(
        n in 1usize..48,
        damage in proptest::collection::vec(0u8..6, 48),
    ) {
        let keys: Vec<SigningKey> = (1..=4).map(key).collect();
        let batch: Vec<Prepared> = (0..n)
            .filter_map(|i| {
                let sk = &keys[i % 4];
                let msg = message(i);
                let sig = match damage[i] {
                    0 => sk.sign(&message(i + 1000)),
                    1 => keys[(i + 1) % 4].sign(&msg),
                    2 => torsion_signature(sk, &msg, EIGHT_TORSION[1 + i % 7]),
                    _ => sk.sign(&msg),
                };
                prepare(&sk.verifying_key(), &msg, &sig)
            })
            .collect();
        let single: Vec<bool> = batch.iter().map(verify_one).collect();
        prop_assert_eq!(verify_each(&batch), single.clone());
        prop_assert_eq!(verify_all(&batch), single.iter().all(|ok| *ok));
    }
}
