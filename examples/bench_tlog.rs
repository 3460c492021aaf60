//! The tamper-evident log's benchmark (docs/BENCHMARKS.md, "Tamper-evident log"): leaves
//! appended per second on one core (leaf hash of a 300-byte record, frontier update,
//! stored hashes written to memory as the store receives them), then the time of inclusion
//! and consistency proofs at that size (built from the stored hashes, then checked).
//! `bench_tlog [LEAVES]` (default 1,000,000).

use std::time::Instant;

use provex::tlog::{self, Frontier, StoredHashes};

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let record = [b'x'; 300];
    let mut f = Frontier::default();
    let mut stored = Vec::with_capacity((n as usize) * 64);
    let start = Instant::now();
    for i in 0..n {
        f.append(tlog::leaf_hash("events.jsonl", 1_763_798_400_000 + i, &record), &mut stored);
    }
    let secs = start.elapsed().as_secs_f64();
    println!("append: {n} leaves in {secs:.3} s = {:.0} leaves/s", n as f64 / secs);
    let root = f.root();
    let reader = StoredHashes(&stored);
    let mut times = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..1000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let i = state % n;
        let t = Instant::now();
        let p = tlog::prove_record(n, i, &reader).unwrap();
        let leaf = tlog::Hash(stored[(tlog_index(i) * 32) as usize..][..32].try_into().unwrap());
        tlog::check_record(&p, n, root, i, leaf).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    println!("inclusion proof + check at {n}: p50 {:.1} µs, p99 {:.1} µs", times[500], times[990]);
    let t = Instant::now();
    let old = n / 3 + 1;
    let c = tlog::prove_tree(n, old, &reader).unwrap();
    let old_root = {
        let mut g = Frontier::default();
        let mut scratch = Vec::new();
        for i in 0..old {
            g.append(
                tlog::Hash(stored[(tlog_index(i) * 32) as usize..][..32].try_into().unwrap()),
                &mut scratch,
            );
        }
        g.root()
    };
    let built = t.elapsed();
    tlog::check_tree(&c, n, root, old, old_root).unwrap();
    println!(
        "consistency proof {old} → {n}: {} hashes (with re-building the old root: {built:.2?})",
        c.len()
    );
}

/// Where leaf `i`'s hash is among the stored hashes.
fn tlog_index(i: u64) -> u64 {
    i * 2 - u64::from(i.count_ones())
}
