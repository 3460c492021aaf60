//! A Cypher tokenizer that splits text exactly where FalkorDB's parser does (libcypher-parser's
//! grammar, `lib/src/parser.leg`, which FalkorDB builds in), so that the check of a generated
//! query (`check`) and the row limit (`cypher::limited`) see the tokens the server will see:
//!
//! - whitespace is a space, a tab, `\n` or `\r\n` (a lone `\r`, a form feed or any other
//!   control character is an error there, and here an [`Kind::Invalid`] token);
//! - `// …` runs to the end of the line, `/* … */` to the first `*/` (never nested);
//! - a string is `'…'` or `"…"`; its escapes are `\a \b \f \n \r \t \v \\ \' \" \?`, and a
//!   backslash before anything else is a backslash;
//! - a quoted name is `` `…` `` up to the next backtick: no escapes, no doubled backticks
//!   (a backslash in it is a backslash, and the backtick after it closes the name);
//! - a word is `[A-Za-z_][A-Za-z0-9_$]*`; keywords are words, in any case;
//! - numbers are the grammar's integer and float spellings (`1`, `0x1F`, `1.5`, `.5`, `1e3`),
//!   letters after them included, as the server reads them before it judges their value.
//!
//! A NUL byte is invalid anywhere: FalkorDB reads the query as a C string and would stop there.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword (as written).
    Word,
    /// An integer or float literal (as the grammar spells them; the value is not checked).
    Number,
    /// A `'…'` or `"…"` literal.
    Str,
    /// A `` `…` `` name: never a keyword.
    Quoted,
    /// Punctuation: one character, or `..`, `<-`, `->`, `<=`, `>=`, `<>`, `=~`, `+=`.
    Punct,
    /// `// …` (without its line end) or `/* … */`.
    Comment,
    /// Text FalkorDB cannot read: an unterminated string, name or comment (to the end of the
    /// text), a NUL, a lone `\r`, or a character no Cypher token starts with.
    Invalid(&'static str),
}

/// One token: its kind and where it is in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }

    /// A word equal to `kw`, ignoring case.
    pub fn is_word(&self, src: &str, kw: &str) -> bool {
        self.kind == Kind::Word && self.text(src).eq_ignore_ascii_case(kw)
    }

    pub fn is_punct(&self, src: &str, p: &str) -> bool {
        self.kind == Kind::Punct && self.text(src) == p
    }
}

const TWO_CHAR: &[&str] = &["..", "<-", "->", "<=", ">=", "<>", "=~", "+="];
/// Characters that are a token of their own in the grammar.
const ONE_CHAR: &[u8] = b"()[]{},:;.=<>+-*/%^|$";
/// What may follow a backslash in a string.
const ESCAPES: &[u8] = b"abfnrtv\\'\"?";

/// The tokens of `src`, comments left out. Never fails: what FalkorDB cannot read is an
/// [`Kind::Invalid`] token.
pub fn tokenize(src: &str) -> Vec<Token> {
    lex(src).into_iter().filter(|t| t.kind != Kind::Comment).collect()
}

/// The tokens of `src`, comments included.
pub fn lex(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let (kind, end) = match c {
            b' ' | b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'\r' => (Kind::Invalid("a carriage return without a line feed"), i + 1),
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |p| i + p);
                // A `\r` before the `\n` belongs to the line end.
                let end = if end > i + 2 && b[end - 1] == b'\r' && end < b.len() { end - 1 } else { end };
                closed(b, i, end, Kind::Comment)
            }
            b'/' if b.get(i + 1) == Some(&b'*') => match find(b, i + 2, b"*/") {
                Some(p) => closed(b, i, p + 2, Kind::Comment),
                None => (Kind::Invalid("an unterminated comment"), b.len()),
            },
            b'\'' | b'"' => string(b, i),
            b'`' => match b[i + 1..].iter().position(|&x| x == b'`') {
                Some(p) => closed(b, i, i + 1 + p + 1, Kind::Quoted),
                None => (Kind::Invalid("an unterminated quoted name"), b.len()),
            },
            b'0'..=b'9' => (Kind::Number, number(b, i)),
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => (Kind::Number, number(b, i)),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut j = i + 1;
                while j < b.len() && is_sym_part(b[j]) {
                    j += 1;
                }
                (Kind::Word, j)
            }
            0 => (Kind::Invalid("a NUL character"), i + 1),
            _ => {
                if src.get(i..i + 2).is_some_and(|t| TWO_CHAR.contains(&t)) {
                    (Kind::Punct, i + 2)
                } else if ONE_CHAR.contains(&c) {
                    (Kind::Punct, i + 1)
                } else {
                    // One character (a whole UTF-8 sequence).
                    let n = src[i..].chars().next().map_or(1, char::len_utf8);
                    (Kind::Invalid("a character no Cypher token starts with"), i + n)
                }
            }
        };
        out.push(Token { kind, start, end });
        i = end;
    }
    out
}

/// `kind` over `start..end`, or invalid when a NUL is inside.
fn closed(b: &[u8], start: usize, end: usize, kind: Kind) -> (Kind, usize) {
    if b[start..end].contains(&0) {
        (Kind::Invalid("a NUL character"), end)
    } else {
        (kind, end)
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| from + p)
}

/// A string literal starting at `i` (its quote).
fn string(b: &[u8], i: usize) -> (Kind, usize) {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            x if x == quote => return closed(b, i, j + 1, Kind::Str),
            b'\\' if b.get(j + 1).is_some_and(|e| ESCAPES.contains(e)) => j += 2,
            _ => j += 1,
        }
    }
    (Kind::Invalid("an unterminated string"), b.len())
}

fn is_sym_part(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// The end of the number at `i`: the grammar's float spellings, tried first
/// (`[0-9]+ '.'? [0-9]* [eE] [-+]? [0-9] sym*`, then `[0-9]* '.' [0-9] sym*`), else an
/// integer (`[0-9] sym*`).
fn number(b: &[u8], i: usize) -> usize {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let syms = |mut j: usize| {
        while j < b.len() && is_sym_part(b[j]) {
            j += 1;
        }
        j
    };
    // Exponent form.
    let mut j = digits(i);
    if j > i {
        if b.get(j) == Some(&b'.') {
            j += 1;
        }
        j = digits(j);
        if matches!(b.get(j), Some(b'e' | b'E')) {
            let mut k = j + 1;
            if matches!(b.get(k), Some(b'-' | b'+')) {
                k += 1;
            }
            if b.get(k).is_some_and(u8::is_ascii_digit) {
                return syms(k + 1);
            }
        }
    }
    // Decimal point form.
    let j = digits(i);
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        return syms(j + 2);
    }
    syms(i + 1)
}

/// The value of a string literal token (with its quotes) as FalkorDB reads it.
pub fn string_value(literal: &str) -> String {
    let inner = &literal[1..literal.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let e = match chars.peek() {
                Some('a') => '\x07',
                Some('b') => '\x08',
                Some('f') => '\x0c',
                Some('n') => '\n',
                Some('r') => '\r',
                Some('t') => '\t',
                Some('v') => '\x0b',
                Some(&e @ ('\\' | '\'' | '"' | '?')) => e,
                _ => {
                    out.push('\\');
                    continue;
                }
            };
            chars.next();
            out.push(e);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(Kind, &str)> {
        lex(src).iter().map(|t| (t.kind, t.text(src))).collect()
    }

    #[test]
    fn strings_comments_and_names_are_not_words() {
        let src =
            "MATCH (n) // SET n.x = 1\nWHERE n.name = 'CREATE (x)' /* DELETE */ RETURN n.`set` AS \"d\"";
        let words: Vec<&str> =
            texts(src).into_iter().filter(|(k, _)| *k == Kind::Word).map(|(_, t)| t).collect();
        assert_eq!(words, ["MATCH", "n", "WHERE", "n", "name", "RETURN", "n", "AS"]);
        assert!(texts(src).contains(&(Kind::Str, "'CREATE (x)'")));
        assert!(texts(src).contains(&(Kind::Quoted, "`set`")));
        assert!(texts(src).contains(&(Kind::Comment, "// SET n.x = 1")));
        assert!(texts(src).contains(&(Kind::Comment, "/* DELETE */")));
        assert_eq!(tokenize(src).len(), texts(src).len() - 2);
    }

    #[test]
    fn ranges_escapes_and_numbers() {
        assert_eq!(
            texts("[*1..5]"),
            [
                (Kind::Punct, "["),
                (Kind::Punct, "*"),
                (Kind::Number, "1"),
                (Kind::Punct, ".."),
                (Kind::Number, "5"),
                (Kind::Punct, "]")
            ]
        );
        assert_eq!(
            texts("1.5 .5 1e3 1.e-3x 0x1F 1e-"),
            [
                (Kind::Number, "1.5"),
                (Kind::Number, ".5"),
                (Kind::Number, "1e3"),
                (Kind::Number, "1.e-3x"),
                (Kind::Number, "0x1F"),
                (Kind::Number, "1e"),
                (Kind::Punct, "-")
            ]
        );
        assert_eq!(texts("a$b $p"), [(Kind::Word, "a$b"), (Kind::Punct, "$"), (Kind::Word, "p")]);
        assert_eq!(texts(r#"'it\'s' x"#), [(Kind::Str, r"'it\'s'"), (Kind::Word, "x")]);
        assert_eq!(texts("'open"), [(Kind::Invalid("an unterminated string"), "'open")]);
        assert_eq!(texts("'\\"), [(Kind::Invalid("an unterminated string"), "'\\")]);
        assert_eq!(string_value(r#"'a\zb\t\'\\\?'"#), "a\\zb\t'\\?");
    }

    #[test]
    fn a_backslash_in_a_quoted_name_is_a_backslash() {
        // The backtick after the backslash closes the name, as in FalkorDB.
        assert_eq!(
            texts("n.`a\\` AS x CREATE"),
            [
                (Kind::Word, "n"),
                (Kind::Punct, "."),
                (Kind::Quoted, "`a\\`"),
                (Kind::Word, "AS"),
                (Kind::Word, "x"),
                (Kind::Word, "CREATE")
            ]
        );
        // No doubled backticks either: two names side by side.
        assert_eq!(texts("`a``b`"), [(Kind::Quoted, "`a`"), (Kind::Quoted, "`b`")]);
        assert_eq!(texts("`open"), [(Kind::Invalid("an unterminated quoted name"), "`open")]);
    }

    #[test]
    fn what_falkordb_cannot_read_is_invalid() {
        for (src, bad) in [
            ("RETURN\r1", "\r"),
            ("RETURN 1 AS x\0 CREATE", "\0"),
            ("RETURN 'a\0b'", "'a\0b'"),
            ("RETURN é", "é"),
            ("RETURN 1 != 2", "!"),
            ("RETURN 1 /* open", "/* open"),
            ("RETURN\x0c1", "\x0c"),
        ] {
            let t = lex(src).into_iter().find(|t| matches!(t.kind, Kind::Invalid(_)));
            assert_eq!(t.map(|t| t.text(src).to_owned()).as_deref(), Some(bad), "{src:?}");
        }
        // `\r\n` is a line end, inside a line comment too.
        assert_eq!(texts("a // c\r\nb"), [(Kind::Word, "a"), (Kind::Comment, "// c"), (Kind::Word, "b")]);
        // A lone `\r` does not end a line comment.
        assert_eq!(texts("a // c\rb"), [(Kind::Word, "a"), (Kind::Comment, "// c\rb")]);
    }
}
