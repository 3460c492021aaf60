//! Just enough of a Rust lexer for the module-graph test: identifiers, punctuation,
//! brackets and string literals with their lines; comments, characters, lifetimes and
//! numbers are dropped, so a path written in a comment or a string is not a dependency.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Punct(char),
    Open(char),
    Close(char),
    /// A string literal's contents (escapes left as written).
    Str(String),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

pub fn lex(src: &str) -> Vec<Token> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    while i < s.len() {
        let c = s[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if at(i + 1) == '/' => {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < s.len() {
                    if s[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if s[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(s[i] == '\n');
                        i += 1;
                    }
                }
            }
            '"' => {
                let start = line;
                let (text, next) = string(&s, i + 1, 0, &mut line);
                out.push(Token { tok: Tok::Str(text), line: start });
                i = next;
            }
            'r' | 'b' | 'c' if raw_start(&s, i).is_some() => {
                let (hashes, open) = raw_start(&s, i).unwrap();
                let start = line;
                let (text, next) = string(&s, open + 1, hashes, &mut line);
                out.push(Token { tok: Tok::Str(text), line: start });
                i = next;
            }
            '\'' => {
                // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
                if at(i + 1) == '\\' {
                    i += 3;
                    while i < s.len() && s[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if at(i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1;
                    while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                        i += 1;
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                    i += 1;
                }
                let word: String = s[start..i].iter().collect();
                if word == "r" && at(i) == '#' && (at(i + 1).is_alphabetic() || at(i + 1) == '_') {
                    // A raw identifier: r#type.
                    let start = i + 1;
                    i = start;
                    while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                        i += 1;
                    }
                    out.push(Token { tok: Tok::Ident(s[start..i].iter().collect()), line });
                } else {
                    out.push(Token { tok: Tok::Ident(word), line });
                }
            }
            c if c.is_ascii_digit() => {
                while i < s.len()
                    && (s[i].is_alphanumeric() || s[i] == '_' || (s[i] == '.' && at(i + 1).is_ascii_digit()))
                {
                    i += 1;
                }
            }
            '(' | '[' | '{' => {
                out.push(Token { tok: Tok::Open(c), line });
                i += 1;
            }
            ')' | ']' | '}' => {
                out.push(Token { tok: Tok::Close(c), line });
                i += 1;
            }
            c => {
                out.push(Token { tok: Tok::Punct(c), line });
                i += 1;
            }
        }
    }
    out
}

/// `r"`, `r#"`, `br"`, `b"`, `c"`, `cr#"` …: the number of `#` and the index of the `"`.
fn raw_start(s: &[char], i: usize) -> Option<(usize, usize)> {
    let mut k = i;
    if s.get(k) == Some(&'b') || s.get(k) == Some(&'c') {
        k += 1;
    }
    let raw = s.get(k) == Some(&'r');
    if raw {
        k += 1;
    }
    let mut hashes = 0;
    while raw && s.get(k) == Some(&'#') {
        hashes += 1;
        k += 1;
    }
    (s.get(k) == Some(&'"') && k > i && (raw || hashes == 0))
        .then_some((if raw { hashes } else { usize::MAX }, k))
}

/// A string's contents from `i` (after the opening quote) and the index after it; `hashes`
/// is the raw string's `#` count, or `usize::MAX` (and 0 for plain strings) when escapes apply.
fn string(s: &[char], mut i: usize, hashes: usize, line: &mut usize) -> (String, usize) {
    let escapes = hashes == 0 || hashes == usize::MAX;
    let hashes = if hashes == usize::MAX { 0 } else { hashes };
    let start = i;
    while i < s.len() {
        match s[i] {
            '\\' if escapes => {
                *line += usize::from(s.get(i + 1) == Some(&'\n'));
                i += 2;
                continue;
            }
            '"' if (0..hashes).all(|h| s.get(i + 1 + h) == Some(&'#')) => {
                return (s[start..i].iter().collect(), i + 1 + hashes);
            }
            '\n' => *line += 1,
            _ => {}
        }
        i += 1;
    }
    (s[start..].iter().collect(), s.len())
}

#[test]
fn strings_comments_and_lifetimes_are_not_code() {
    let toks =
        lex("a /* crate::x /* nested */ */ 'b' '\\'' 'c: r#\"crate::\"y\"# b\"z\" \"q\\\"\" // crate::w\nd");
    let kinds: Vec<Tok> = toks.iter().map(|t| t.tok.clone()).collect();
    assert_eq!(
        kinds,
        [
            Tok::Ident("a".into()),
            Tok::Punct(':'),
            Tok::Str("crate::\"y".into()),
            Tok::Str("z".into()),
            Tok::Str("q\\\"".into()),
            Tok::Ident("d".into())
        ]
    );
    assert_eq!(toks.last().unwrap().line, 2);
}
