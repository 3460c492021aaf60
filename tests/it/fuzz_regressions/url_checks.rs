//! The checks of the fuzz target `cluster_url`, shared with the stable replay of its saved
//! inputs (`tests/it/fuzz_regressions.rs`): the FalkorDB URL a user gives (one server, or a
//! Redis Cluster by its seed nodes, with `read_from`), read by
//! `provex::store::cluster_url::parse`.

use provex::store::cluster_url::{parse, ReadFrom, MAX_NODES};

/// Any text as a FalkorDB URL: no panic; what is read is one or more `redis://` or
/// `rediss://` URLs, at most `MAX_NODES`, each read again as itself (one server, its
/// `read_from` already taken out); a refusal has a reason at most twice the URL's length
/// (and 400 bytes of words), and never shows a password the URL held.
pub fn cluster_url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse(text) {
        Ok(read) => {
            assert!(!read.nodes.is_empty() && read.nodes.len() <= MAX_NODES, "{} nodes", read.nodes.len());
            for node in &read.nodes {
                let lower = node.get(..9).unwrap_or(node).to_ascii_lowercase();
                assert!(lower.starts_with("redis://") || lower.starts_with("rediss://"), "{node}");
                let again = parse(node).unwrap_or_else(|e| panic!("{node} read from {text} is refused: {e}"));
                assert_eq!(again.nodes, vec![node.clone()], "{node}");
                assert!(!again.declared && again.read_from == ReadFrom::Primaries, "{node}");
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(!message.trim().is_empty(), "refused without a reason");
            // The URL (hidden in part) and at most one piece of it again, with words.
            let bound = 2 * text.len() + 400;
            assert!(message.len() <= bound, "a {}-byte reason for a {}-byte URL", message.len(), text.len());
            if let Some(password) = password(text) {
                assert!(!message.contains(password), "{message:?} shows the password {password:?}");
            }
        }
    }
}

/// The password of a URL as a user writes it (`scheme://user:password@…`, up to the last
/// `@`), when it is long enough to be told apart from the rest of the URL and appears
/// nowhere else in it.
fn password(text: &str) -> Option<&str> {
    let start = text.find("://")? + 3;
    let at = text.rfind('@').filter(|&at| at >= start)?;
    let password = text[start..at].split_once(':')?.1;
    let elsewhere = text[..start].contains(password) || text[at..].contains(password);
    (password.len() >= 6 && !elsewhere).then_some(password)
}
