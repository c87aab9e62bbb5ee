//! Rust source as the module graph needs it: tokens without comments,
//! strings and `#[cfg(test)]` items, the paths that name a module, and the
//! `use` statements.

use std::collections::BTreeSet;

/// A token: a name, `::`, or one punctuation character.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// A name or keyword.
    Ident(String),
    /// `::`
    PathSep,
    /// Any other character outside comments and literals.
    Punct(char),
}

/// The tokens of Rust source, without comments, strings and characters.
pub fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && starts_raw_or_byte_string(&chars, i)) {
            i = skip_string(&chars, i);
        } else if c == '\'' {
            // A character literal, or a lifetime (left as punctuation).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                out.push(Token::Punct('\''));
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token::PathSep);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// Whether a raw or byte string starts at `i` (`r"`, `r#"`, `b"`, `br"`).
fn starts_raw_or_byte_string(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
        if chars.get(j) == Some(&'\'') {
            return false;
        }
    }
    if chars.get(j) == Some(&'r') {
        j += 1;
        while chars.get(j) == Some(&'#') {
            j += 1;
        }
    }
    j > i && chars.get(j) == Some(&'"')
}

/// The index past the string literal starting at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    let mut raw = false;
    while chars[i] != '"' && chars[i] != '#' {
        raw |= chars[i] == 'r';
        i += 1;
    }
    let mut hashes = 0;
    while chars[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        match chars[i] {
            '\\' if !raw => i += 2,
            '"' if (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) => {
                return i + 1 + hashes;
            }
            _ => i += 1,
        }
    }
    i
}

pub fn is_ident(t: Option<&Token>, name: &str) -> bool {
    matches!(t, Some(Token::Ident(s)) if s == name)
}

pub fn is_punct(t: Option<&Token>, c: char) -> bool {
    t == Some(&Token::Punct(c))
}

/// The tokens without `#[cfg(test)]` items.
pub fn without_tests(tokens: Vec<Token>) -> Vec<Token> {
    let cfg_test = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !tokens[i..].starts_with(&cfg_test) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // Skip the item: up to a `;` or the end of its first block.
        i += cfg_test.len();
        let mut depth = 0i32;
        while i < tokens.len() {
            match &tokens[i] {
                Token::Punct('(' | '[' | '{') => depth += 1,
                Token::Punct(')' | ']') => depth -= 1,
                Token::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// A path read from the source: where it starts and the names after that.
pub struct PathRef {
    /// The index of its first token.
    pub at: usize,
    /// Modules up from the file's own: `None` from the crate root
    /// (`crate::`), `Some(0)` from the file's module (`self::` or a child's
    /// bare name), `Some(n)` for `super::` n times.
    pub up: Option<usize>,
    /// The names after the start, one list for each item of a group
    /// (`crate::{a::b, c}` gives `[a, b]` and `[c]`).
    pub items: Vec<Vec<String>>,
}

/// The names of a path from `i` on (`a::b::{c, d::e}`), one list per item
/// of a group, and the index after the path.
fn path_items(tokens: &[Token], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        match tokens.get(i) {
            Some(Token::Ident(name)) => {
                prefix.push(name.clone());
                i += 1;
                if tokens.get(i) != Some(&Token::PathSep) {
                    return (vec![prefix], i);
                }
                i += 1;
            }
            Some(Token::Punct('{')) => break,
            _ => return (vec![prefix], i),
        }
    }
    // A group: each item's leading names (deeper groups are not followed).
    let mut items = Vec::new();
    let mut item = Vec::new();
    let mut depth = 0;
    let mut collecting = true;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => {
                depth += 1;
                collecting &= depth == 1;
            }
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    i += 1;
                    break;
                }
            }
            Token::Punct(',') if depth == 1 => {
                items.push(std::mem::take(&mut item));
                collecting = true;
            }
            Token::Ident(name) if depth == 1 && collecting => {
                if name != "self" {
                    item.push(name.clone());
                }
                collecting = tokens.get(i + 1) == Some(&Token::PathSep);
            }
            Token::PathSep => {}
            _ => collecting &= depth != 1,
        }
        i += 1;
    }
    items.push(item);
    let items = items
        .into_iter()
        .filter(|item| !item.is_empty())
        .map(|item| [prefix.clone(), item].concat())
        .collect();
    (items, i)
}

/// The paths of a file that name a module of the crate: those that start
/// with `crate::`, `self::` or `super::`, and those that start with the
/// name of one of `children` (the file's submodules).
pub fn module_paths(tokens: &[Token], children: &BTreeSet<String>) -> Vec<PathRef> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(Token::Ident(name)) = tokens.get(i) else {
            i += 1;
            continue;
        };
        let path_start = tokens.get(i + 1) == Some(&Token::PathSep)
            && !(i > 0 && (is_punct(tokens.get(i - 1), '$') || tokens[i - 1] == Token::PathSep));
        let relative = ["crate", "self", "super"].contains(&name.as_str());
        if !path_start || !(relative || children.contains(name)) {
            i += 1;
            continue;
        }
        let at = i;
        let up = if name == "crate" {
            i += 2;
            None
        } else {
            let mut up = 0;
            while is_ident(tokens.get(i), "super") || is_ident(tokens.get(i), "self") {
                up += usize::from(is_ident(tokens.get(i), "super"));
                i += 2;
            }
            Some(up)
        };
        let (items, next) = path_items(tokens, i);
        out.push(PathRef { at, up, items });
        i = next.max(at + 1);
    }
    out
}

/// The token ranges of the file's `use` statements (the path after `use`,
/// up to its `;`), whatever their visibility.
pub fn use_statements(tokens: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t == &Token::Ident("use".into()) {
            let end = (i..tokens.len())
                .find(|&j| is_punct(tokens.get(j), ';'))
                .unwrap_or(tokens.len());
            out.push((i + 1, end));
        }
    }
    out
}

/// Whether the `use` at `start` (the first token of its path) is a
/// re-export: preceded by `pub` or `pub(…)`.
pub fn is_reexport(tokens: &[Token], start: usize) -> bool {
    let before = &tokens[..start - 1];
    match before.last() {
        Some(Token::Ident(p)) if p == "pub" => true,
        Some(Token::Punct(')')) => {
            let open = before.iter().rposition(|t| is_punct(Some(t), '('));
            open.is_some_and(|o| o > 0 && is_ident(before.get(o - 1), "pub"))
        }
        _ => false,
    }
}
