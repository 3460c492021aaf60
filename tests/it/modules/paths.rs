//! The paths of a `use` tree or of an expression (`crate::a::{b, c::d}`), made
//! crate-absolute.

use super::lex::{Tok, Token};

pub fn is_sep(toks: &[Token], i: usize) -> bool {
    matches!(
        (toks.get(i).map(|t| &t.tok), toks.get(i + 1).map(|t| &t.tok)),
        (Some(Tok::Punct(':')), Some(Tok::Punct(':')))
    )
}

/// How many tokens a path starting at `toks[0]` spans: segments joined by `::`, ending
/// in a name, `*` or a `{…}` group.
pub fn path_len(toks: &[Token]) -> usize {
    let mut i = 1;
    while is_sep(toks, i) {
        i += 2;
        match toks.get(i).map(|t| &t.tok) {
            Some(Tok::Ident(_)) => i += 1,
            Some(Tok::Punct('*')) => return i + 1,
            Some(Tok::Open('{')) => {
                let mut depth = 0;
                while i < toks.len() {
                    match toks[i].tok {
                        Tok::Open('{') => depth += 1,
                        Tok::Close('}') => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => return i,
        }
    }
    i
}

/// The paths a `use` tree (or a path) brings in, crate-absolute, each with the name it
/// imports (`None` for a glob) and its line. Paths that start at another crate are
/// left out.
pub fn use_tree(
    toks: &[Token],
    scope: &[String],
    prefix: Option<Vec<String>>,
    out: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    // Split on top-level commas.
    let mut parts: Vec<&[Token]> = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Open('{') => depth += 1,
            Tok::Close('}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                parts.push(&toks[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    for part in parts {
        let mut rooted = prefix.is_some();
        let mut path = prefix.clone().unwrap_or_default();
        let mut k = 0;
        while k < part.len() {
            match &part[k].tok {
                Tok::Ident(seg) if seg == "crate" && path.is_empty() && !rooted => rooted = true,
                Tok::Ident(seg) if seg == "super" && (!rooted || path.len() < scope.len()) => {
                    if !rooted {
                        path = scope.to_vec();
                        rooted = true;
                    }
                    path.pop();
                }
                Tok::Ident(seg) if seg == "self" && !rooted => {
                    path = scope.to_vec();
                    rooted = true;
                }
                Tok::Ident(seg) if seg == "self" => {
                    if let Some(name) = path.last().cloned() {
                        out.push((path.clone(), Some(name), part[k].line));
                    }
                }
                Tok::Ident(seg) if seg == "as" => {
                    if let (Some(Tok::Ident(alias)), Some((p, n, _))) =
                        (part.get(k + 1).map(|t| &t.tok), out.last_mut())
                    {
                        if *p == path {
                            *n = Some(alias.clone());
                        }
                    }
                    break;
                }
                Tok::Ident(seg) => {
                    if !rooted {
                        // A path relative to the scope (`use child::x` in a `mod.rs`).
                        path = scope.to_vec();
                        rooted = true;
                    }
                    path.push(seg.clone());
                    if !is_sep(part, k + 1) {
                        out.push((path.clone(), Some(seg.clone()), part[k].line));
                    }
                }
                Tok::Punct('*') if rooted => out.push((path.clone(), None, part[k].line)),
                Tok::Open('{') if rooted => {
                    let close =
                        part.len() - part.iter().rev().position(|t| t.tok == Tok::Close('}')).unwrap_or(0);
                    use_tree(
                        &part[k + 1..close.saturating_sub(1).max(k + 1)],
                        scope,
                        Some(path.clone()),
                        out,
                    );
                    break;
                }
                Tok::Punct(':') => {}
                _ => break,
            }
            k += 1;
        }
    }
}
