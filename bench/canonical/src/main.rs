//! RFC 8785 canonicalisation: Provex's writer (src/sources/statements/canonical.rs, compiled in here as
//! it is) against `serde_json_canonicalizer`, on the documents of a JSON-lines file, for the
//! whole document and for the bytes a signature covers (two members left out).
#[path = "../../../src/sources/statements/canonical.rs"]
#[allow(dead_code)]
mod canonical;
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let docs: Vec<serde_json::Value> = text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    let rounds = 2000;
    for d in &docs { assert_eq!(canonical::canonicalize(d), serde_json_canonicalizer::to_vec(d).unwrap()); }
    let mut bytes = 0usize;
    let t = Instant::now();
    for _ in 0..rounds { for d in &docs { bytes += canonical::canonicalize(d).len(); } }
    let ours = t.elapsed();
    let t = Instant::now();
    for _ in 0..rounds { for d in &docs { bytes += serde_json_canonicalizer::to_vec(d).unwrap().len(); } }
    let crate_ = t.elapsed();
    // The signature path: leave out two members (ours writes straight; the crate needs a pruned copy).
    let t = Instant::now();
    for _ in 0..rounds { for d in &docs { bytes += canonical::canonicalize_except(d, &["verificationStatus"], ("signature", &["value"])).len(); } }
    let ours_except = t.elapsed();
    let t = Instant::now();
    for _ in 0..rounds { for d in &docs {
        let mut c = d.clone();
        if let Some(m) = c.as_object_mut() { m.remove("verificationStatus"); if let Some(s) = m.get_mut("signature").and_then(|s| s.as_object_mut()) { s.remove("value"); } }
        bytes += serde_json_canonicalizer::to_vec(&c).unwrap().len(); } }
    let crate_except = t.elapsed();
    let n = (rounds * docs.len()) as f64;
    println!("{} documents x {rounds} rounds ({bytes} bytes)", docs.len());
    println!("whole document: ours {:.2} us/doc, serde_json_canonicalizer {:.2} us/doc", ours.as_secs_f64()*1e6/n, crate_.as_secs_f64()*1e6/n);
    println!("signed bytes (two members left out): ours {:.2} us/doc, crate on a pruned copy {:.2} us/doc", ours_except.as_secs_f64()*1e6/n, crate_except.as_secs_f64()*1e6/n);
}
