//! The tamper-evident log's tree and proofs checked against an independent verifier
//! written here from RFC 9162 §2.1 (the Merkle tree hash, §2.1.3.2 inclusion and §2.1.4.2
//! consistency verification), against the RFC 6962 test vectors used by Certificate
//! Transparency implementations, and over random tree sizes.

use proptest::prelude::*;
use provex::tlog::{self, Frontier, Hash, StoredHashes};
use sha2::{Digest, Sha256};

fn leaf(data: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

fn node(l: &[u8; 32], r: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(l);
    h.update(r);
    h.finalize().into()
}

/// RFC 9162 §2.1.1: MTH over leaf hashes.
fn mth(leaves: &[[u8; 32]]) -> [u8; 32] {
    match leaves.len() {
        0 => Sha256::digest([]).into(),
        1 => leaves[0],
        n => {
            let k = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
            node(&mth(&leaves[..k]), &mth(&leaves[k..]))
        }
    }
}

/// RFC 9162 §2.1.3.2.
fn verify_inclusion(index: u64, size: u64, leaf_hash: [u8; 32], path: &[[u8; 32]], root: [u8; 32]) -> bool {
    if index >= size {
        return false;
    }
    let (mut f, mut s, mut r) = (index, size - 1, leaf_hash);
    for p in path {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            r = node(p, &r);
            if f & 1 == 0 {
                while f & 1 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            r = node(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    s == 0 && r == root
}

/// RFC 9162 §2.1.4.2.
fn verify_consistency(
    first: u64,
    second: u64,
    first_hash: [u8; 32],
    second_hash: [u8; 32],
    path: &[[u8; 32]],
) -> bool {
    if first == second {
        return path.is_empty() && first_hash == second_hash;
    }
    if first == 0 || first > second {
        return false;
    }
    let mut path = path.to_vec();
    if first.is_power_of_two() {
        path.insert(0, first_hash);
    }
    if path.is_empty() {
        return false;
    }
    let (mut f, mut s) = (first - 1, second - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (path[0], path[0]);
    for c in &path[1..] {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            fr = node(c, &fr);
            sr = node(c, &sr);
            if f & 1 == 0 {
                while f & 1 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            sr = node(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    fr == first_hash && sr == second_hash && s == 0
}

/// A log built by Provex's frontier: its stored hashes and each size's root.
fn build(leaves: &[[u8; 32]]) -> (Vec<u8>, Vec<[u8; 32]>) {
    let mut f = Frontier::default();
    let mut stored = Vec::new();
    let mut roots = vec![f.root().0];
    for l in leaves {
        f.append(Hash(*l), &mut stored);
        roots.push(f.root().0);
    }
    (stored, roots)
}

fn raw(p: &[Hash]) -> Vec<[u8; 32]> {
    p.iter().map(|h| h.0).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The RFC 6962 test vectors of Certificate Transparency's implementations: eight leaves
/// and the root of each prefix.
#[test]
fn the_ct_test_vectors_give_their_roots() {
    let data: [&[u8]; 8] = [
        b"",
        &[0x00],
        &[0x10],
        &[0x20, 0x21],
        &[0x30, 0x31],
        &[0x40, 0x41, 0x42, 0x43],
        &[0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57],
        &[0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f],
    ];
    let roots = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ];
    let leaves: Vec<[u8; 32]> = data.iter().map(|d| leaf(d)).collect();
    let (stored, ours) = build(&leaves);
    assert_eq!(hex(&ours[0]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    for (n, want) in roots.iter().enumerate() {
        assert_eq!(hex(&ours[n + 1]), *want, "root of {} leaves", n + 1);
        assert_eq!(hex(&mth(&leaves[..n + 1])), *want);
    }
    // Every inclusion and consistency proof of these sizes holds for the RFC's verifier.
    for size in 1..=8u64 {
        for i in 0..size {
            let p = tlog::prove_record(size, i, &StoredHashes(&stored)).unwrap();
            assert!(
                verify_inclusion(i, size, leaves[i as usize], &raw(&p), ours[size as usize]),
                "{i} in {size}"
            );
        }
        for old in 1..size {
            let p = tlog::prove_tree(size, old, &StoredHashes(&stored)).unwrap();
            assert!(verify_consistency(old, size, ours[old as usize], ours[size as usize], &raw(&p)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random sizes: the frontier's root is RFC 9162's MTH, every proof Provex builds holds
    /// for the independent verifier, and a proof with a changed hash, index or size fails
    /// both there and in the checker Provex uses.
    #[test]
    fn proofs_hold_for_the_rfc_verifier(size in 1u64..600, pick in any::<u64>(), old_pick in any::<u64>(), flip in 0usize..32) {
        let leaves: Vec<[u8; 32]> = (0..size).map(|i| leaf(&i.to_le_bytes())).collect();
        let (stored, roots) = build(&leaves);
        prop_assert_eq!(roots[size as usize], mth(&leaves));
        let i = pick % size;
        let root = roots[size as usize];
        let p = tlog::prove_record(size, i, &StoredHashes(&stored)).unwrap();
        prop_assert!(verify_inclusion(i, size, leaves[i as usize], &raw(&p), root));
        prop_assert!(tlog::check_record(&p, size, Hash(root), i, Hash(leaves[i as usize])).is_ok());
        let mut wrong = leaves[i as usize];
        wrong[flip] ^= 1;
        prop_assert!(!verify_inclusion(i, size, wrong, &raw(&p), root));
        prop_assert!(tlog::check_record(&p, size, Hash(root), i, Hash(wrong)).is_err());
        if size > 1 {
            let other = (i + 1) % size;
            if leaves[other as usize] != leaves[i as usize] {
                prop_assert!(!verify_inclusion(other, size, leaves[i as usize], &raw(&p), root) || p.is_empty());
            }
        }
        let old = 1 + old_pick % size;
        let c = tlog::prove_tree(size, old, &StoredHashes(&stored)).unwrap();
        prop_assert!(verify_consistency(old, size, roots[old as usize], root, &raw(&c)));
        prop_assert!(tlog::check_tree(&c, size, Hash(root), old, Hash(roots[old as usize])).is_ok());
        if old < size {
            // A rewritten earlier log is not extended by this one.
            let mut changed = leaves.clone();
            changed[(pick % old) as usize][flip] ^= 1;
            let forged_old = mth(&changed[..old as usize]);
            prop_assert!(!verify_consistency(old, size, forged_old, root, &raw(&c)));
            prop_assert!(tlog::check_tree(&c, size, Hash(root), old, Hash(forged_old)).is_err());
        }
    }
}
