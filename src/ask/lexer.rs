//! A Cypher tokenizer just precise enough to judge a generated query: words, numbers,
//! string literals, backtick names, parameters and punctuation, with byte spans, comments
//! dropped. The row limit (`cypher::limited`) is written in by it, so `'CREATE'` in a string, `// SET`
//! in a comment or `n.delete` as a property are never mistaken for clauses.

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword (as written).
    Word,
    /// An integer or decimal literal.
    Number,
    /// A `'…'` or `"…"` literal (unterminated ones run to the end).
    Str,
    /// A `` `…` `` name: never a keyword.
    Quoted,
    /// `$name`.
    Param,
    /// Punctuation: one character, or `..`, `<-`, `->`, `<=`, `>=`, `<>`, `=~`.
    Punct,
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

const TWO_CHAR: &[&str] = &["..", "<-", "->", "<=", ">=", "<>", "=~", "!="];

/// The tokens of `src`, comments left out. Never fails: what is not Cypher becomes
/// punctuation, for the server to refuse.
pub fn tokenize(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(bytes.len());
            continue;
        }
        let kind = if c == b'\'' || c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            Kind::Str
        } else if c == b'`' {
            i += 1;
            loop {
                match bytes.get(i) {
                    None => break,
                    Some(b'`') if bytes.get(i + 1) == Some(&b'`') => i += 2,
                    Some(b'`') => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            Kind::Quoted
        } else if c == b'$' {
            i += 1;
            while i < bytes.len() && is_word_byte(bytes[i]) {
                i += 1;
            }
            Kind::Param
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A decimal point only when a digit follows (`1..5` is a range).
            if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            }
            Kind::Number
        } else if is_word_start(c) {
            while i < bytes.len() && is_word_byte(bytes[i]) {
                i += 1;
            }
            Kind::Word
        } else {
            let two = src.get(i..i + 2);
            if two.is_some_and(|t| TWO_CHAR.contains(&t)) {
                i += 2;
            } else {
                // One character (a whole UTF-8 sequence).
                i += src[i..].chars().next().map_or(1, char::len_utf8);
            }
            Kind::Punct
        };
        // Escapes may step past the end; keep spans on character boundaries.
        let mut end = i.min(bytes.len());
        while !src.is_char_boundary(end) {
            end += 1;
        }
        i = end;
        out.push(Token { kind, start, end });
    }
    out
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(Kind, &str)> {
        tokenize(src).iter().map(|t| (t.kind.clone(), t.text(src))).collect()
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
    }

    #[test]
    fn ranges_escapes_and_params() {
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
        assert_eq!(texts("1.5 $p"), [(Kind::Number, "1.5"), (Kind::Param, "$p")]);
        assert_eq!(texts(r#"'it\'s' x"#), [(Kind::Str, r"'it\'s'"), (Kind::Word, "x")]);
        assert_eq!(texts("`a``b` c"), [(Kind::Quoted, "`a``b`"), (Kind::Word, "c")]);
        assert_eq!(texts("'open"), [(Kind::Str, "'open")]);
        assert_eq!(texts("'\\"), [(Kind::Str, "'\\")]);
        assert_eq!(texts("é<-"), [(Kind::Word, "é"), (Kind::Punct, "<-")]);
    }
}
