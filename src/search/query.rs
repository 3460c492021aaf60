//! What a cross-graph search is asked, read into what the index is asked: the whole text,
//! lowercased, for ids matched exactly (a node's name, a trace or span id), and its words for
//! full text. The full-text index has a query language of its own (`-`, `|`, `@field:`,
//! `"…"`, `*`, `%`, `{…}`, `[…]`, `\`): none of it reaches the index, since a word is a run
//! of letters, digits and `_` and the words are only joined by spaces (every word must
//! match; the last one also matches as the start of a word, as it is being typed). Limits
//! keep a query cheap: its length and its number of words.

use crate::error::{Error, Result};

/// The longest search text taken, in characters.
pub const MAX_QUERY_CHARS: usize = 256;
/// The most words a search may have.
pub const MAX_WORDS: usize = 16;
/// Words longer than this are matched only as part of an id (no word of a text is this long).
pub const MAX_WORD_CHARS: usize = 64;
/// The shortest last word matched as the start of a word.
const MIN_PREFIX_CHARS: usize = 2;

/// A search as the index is asked it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// The whole text, trimmed and lowercased, when it has no white space: matched exactly
    /// against ids.
    pub exact: Option<String>,
    /// The words, lowercased, in order, at most [`MAX_WORDS`].
    pub words: Vec<String>,
}

impl Query {
    /// Whether nothing is to be looked for.
    pub fn is_empty(&self) -> bool {
        self.exact.is_none() && self.words.is_empty()
    }

    /// The full-text query: the words joined by spaces, the last one also as a prefix
    /// (`word*`) when it is long enough. `None` without words.
    pub fn fulltext(&self) -> Option<String> {
        let (last, rest) = self.words.split_last()?;
        let mut out: Vec<String> = rest.to_vec();
        if last.chars().count() >= MIN_PREFIX_CHARS {
            // A word typed whole, or the start of one.
            out.push(format!("({last}|{last}*)"));
        } else {
            out.push(last.clone());
        }
        Some(out.join(" "))
    }
}

/// Whether `c` belongs to a word.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads a search text. Refused with a reason: a text over [`MAX_QUERY_CHARS`] characters,
/// or of more than [`MAX_WORDS`] words. Blank text is an empty query (no hits).
pub fn parse(text: &str) -> Result<Query> {
    let chars = text.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(Error::Usage(format!(
            "the search text is {chars} characters long; search with at most {MAX_QUERY_CHARS}"
        )));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(Query::default());
    }
    // No id holds white space or control characters.
    let exact =
        (!trimmed.contains(|c: char| c.is_whitespace() || c.is_control())).then(|| trimmed.to_lowercase());
    let mut words: Vec<String> = Vec::new();
    for word in trimmed.split(|c: char| !word_char(c)).filter(|w| !w.is_empty()) {
        if word.chars().count() > MAX_WORD_CHARS {
            continue;
        }
        let lower = word.to_lowercase();
        // Lowercasing may make a non-word character (`İ` gives `i̇`, with a combining dot).
        let lower: String = lower.chars().filter(|c| word_char(*c)).collect();
        if lower.is_empty() || words.contains(&lower) {
            continue;
        }
        words.push(lower);
        if words.len() > MAX_WORDS {
            return Err(Error::Usage(format!("the search text has more than {MAX_WORDS} words; use fewer")));
        }
    }
    Ok(Query { exact, words })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_matched_whole_and_its_parts_as_words() {
        let q = parse("  4BF92F3577B34DA6A3CE929D0E0E4736 ").unwrap();
        assert_eq!(q.exact.as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(q.words, ["4bf92f3577b34da6a3ce929d0e0e4736"]);
        let q = parse("agent:alice").unwrap();
        assert_eq!(q.exact.as_deref(), Some("agent:alice"));
        assert_eq!(q.words, ["agent", "alice"]);
        assert_eq!(q.fulltext().as_deref(), Some("agent (alice|alice*)"));
    }

    #[test]
    fn the_index_query_language_never_gets_through() {
        let q = parse(r#"park -opens | @text:{x} "may" %fuzz% [1 2] \ * ( ) ' ` $p"#).unwrap();
        assert_eq!(q.exact, None);
        assert_eq!(q.words, ["park", "opens", "text", "x", "may", "fuzz", "1", "2", "p"]);
        assert_eq!(q.fulltext().as_deref(), Some("park opens text x may fuzz 1 2 p"));
        assert_eq!(parse("'}) DETACH DELETE n //").unwrap().words, ["detach", "delete", "n"]);
        assert!(parse("***").unwrap().words.is_empty());
        assert_eq!(parse("***").unwrap().fulltext(), None);
    }

    #[test]
    fn limits_are_said_in_words() {
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        let e = parse(&long).unwrap_err().to_string();
        assert!(e.contains("257 characters") && e.contains("at most 256"), "{e}");
        let many: Vec<String> = (0..=MAX_WORDS).map(|i| format!("w{i}")).collect();
        let e = parse(&many.join(" ")).unwrap_err().to_string();
        assert!(e.contains("more than 16 words"), "{e}");
        assert!(parse(&(0..MAX_WORDS).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")).is_ok());
        assert_eq!(parse("   ").unwrap(), Query::default());
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn words_repeat_once_and_overlong_words_only_match_as_ids() {
        let q = parse("vote Vote VOTE").unwrap();
        assert_eq!(q.words, ["vote"]);
        let long = "x".repeat(MAX_WORD_CHARS + 1);
        let q = parse(&format!("{long} park")).unwrap();
        assert_eq!(q.words, ["park"]);
        let q = parse(&long).unwrap();
        assert!(q.words.is_empty() && q.exact.is_some());
        // A one-letter last word is matched whole only.
        assert_eq!(parse("park a").unwrap().fulltext().as_deref(), Some("park a"));
    }

    mod props {
        use proptest::prelude::*;

        use super::super::*;

        /// Characters of the full-text index's query language, and others that are no word's.
        const SYNTAX: &str = "-|@:{}[]()\"'`\\*%~$;,.<>!#^&+=/?\t\n ";

        fn hostile() -> impl Strategy<Value = String> {
            proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(SYNTAX.chars().collect::<Vec<_>>()),
                    proptest::char::range('a', 'z'),
                    proptest::char::range('0', '9'),
                    any::<char>(),
                ],
                0..400,
            )
            .prop_map(|cs| cs.into_iter().collect())
        }

        proptest! {
            /// Any text reads or is refused for a limit; what reaches the full-text index is
            /// words, spaces and the last word's prefix form, never its syntax.
            #[test]
            fn any_text_gives_only_words_to_the_index(text in hostile()) {
                match parse(&text) {
                    Err(e) => {
                        let m = e.to_string();
                        prop_assert!(text.chars().count() > MAX_QUERY_CHARS || m.contains("words"), "{}", m);
                    }
                    Ok(q) => {
                        prop_assert!(q.words.len() <= MAX_WORDS);
                        for w in &q.words {
                            prop_assert!(w.chars().all(|c| c.is_alphanumeric() || c == '_'), "{:?}", w);
                        }
                        if let Some(ft) = q.fulltext() {
                            let last = q.words.last().unwrap();
                            let body = ft.strip_suffix(format!("({last}|{last}*)").as_str()).unwrap_or(&ft);
                            prop_assert!(body.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ' '), "{:?}", ft);
                        }
                    }
                }
            }

            /// Words joined by any separators are read back, in order, lowercased, once each.
            #[test]
            fn words_between_any_separators_are_read_in_order(
                words in proptest::collection::vec("[a-zA-Z0-9_]{1,12}", 1..=MAX_WORDS),
                seps in proptest::collection::vec(proptest::sample::select(SYNTAX.chars().collect::<Vec<_>>()), MAX_WORDS),
            ) {
                let text: String = words.iter().zip(&seps).map(|(w, s)| format!("{w}{s}")).collect();
                prop_assume!(text.chars().count() <= MAX_QUERY_CHARS);
                let mut expect: Vec<String> = Vec::new();
                for w in &words {
                    let l = w.to_lowercase();
                    if !expect.contains(&l) {
                        expect.push(l);
                    }
                }
                prop_assert_eq!(parse(&text).unwrap().words, expect);
            }
        }
    }
}
