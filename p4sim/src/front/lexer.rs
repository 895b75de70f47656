//! The P4_16 lexer.
//!
//! It serves both the preprocessor and the parser, so it never fails: text it
//! cannot read becomes a [`TokenKind::Invalid`] token, which is an error only
//! if it survives preprocessing (inside `#if 0` it is harmless, as in cpp).
//!
//! Backslash-newline pairs are spliced out before lexing, and comments become
//! whitespace. A newline inside a block comment does not end the logical line
//! (as in cpp), which matters only for where a directive ends.
//!
//! `>>` is never one token: the parser joins two adjacent `>` into a shift, so
//! `bit<bit<8>>` closes two type argument lists.

use std::fmt;
use std::sync::Arc;

use crate::front::source::{FileId, SourceFile, Span, clamp_u32};

/// Why a piece of text could not be lexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LexErrorKind {
    /// A character that starts no token.
    UnexpectedChar,
    /// A string literal without its closing quote.
    UnterminatedString,
    /// A `/*` comment without its `*/`.
    UnterminatedComment,
}

impl LexErrorKind {
    /// A plain-language description.
    pub fn message(self) -> &'static str {
        match self {
            LexErrorKind::UnexpectedChar => "unexpected character",
            LexErrorKind::UnterminatedString => "unterminated string literal",
            LexErrorKind::UnterminatedComment => "unterminated `/*` comment",
        }
    }
}

macro_rules! token_kinds {
    (
        words { $($kw:ident = $kwtext:literal,)* }
        puncts { $($p:ident = $ptext:literal,)* }
    ) => {
        /// The kind of a token. Keywords and punctuation have one variant each.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum TokenKind {
            /// An identifier (including contextual keywords such as `apply`,
            /// `key`, `state`, `type`, `entries`, `priority`).
            Ident,
            /// An integer literal as written, e.g. `8w0xFF`; validated by
            /// [`parse_int_literal`].
            Int,
            /// A string literal, quotes included.
            Str,
            /// `_`
            DontCare,
            $(
                #[doc = concat!("`", $kwtext, "`")]
                $kw,
            )*
            $(
                #[doc = concat!("`", $ptext, "`")]
                $p,
            )*
            /// Text that could not be lexed.
            Invalid(LexErrorKind),
            /// End of input.
            Eof,
        }

        impl TokenKind {
            /// The keyword with this spelling, if it is one.
            pub fn keyword(text: &str) -> Option<TokenKind> {
                match text {
                    $($kwtext => Some(TokenKind::$kw),)*
                    _ => None,
                }
            }

            /// Fixed spelling of keywords and punctuation.
            pub fn fixed_text(self) -> Option<&'static str> {
                match self {
                    $(TokenKind::$kw => Some($kwtext),)*
                    $(TokenKind::$p => Some($ptext),)*
                    TokenKind::DontCare => Some("_"),
                    _ => None,
                }
            }

            /// Whether this is a reserved keyword.
            pub fn is_keyword(self) -> bool {
                matches!(self, $(TokenKind::$kw)|*)
            }
        }

        /// Punctuation spellings, longest first, for maximal munch.
        const PUNCTS: &[(&str, TokenKind)] = &[$(($ptext, TokenKind::$p),)*];
    };
}

token_kinds! {
    words {
        Abstract = "abstract",
        Action = "action",
        Bit = "bit",
        Bool = "bool",
        Break = "break",
        Const = "const",
        Continue = "continue",
        Control = "control",
        Default = "default",
        Else = "else",
        Enum = "enum",
        Error = "error",
        Exit = "exit",
        Extern = "extern",
        False = "false",
        For = "for",
        Header = "header",
        HeaderUnion = "header_union",
        If = "if",
        In = "in",
        Inout = "inout",
        Int_ = "int",
        MatchKind = "match_kind",
        Out = "out",
        Package = "package",
        Parser = "parser",
        Return = "return",
        Select = "select",
        String_ = "string",
        Struct = "struct",
        Switch = "switch",
        Table = "table",
        This = "this",
        Transition = "transition",
        True = "true",
        Tuple = "tuple",
        Typedef = "typedef",
        Varbit = "varbit",
        ValueSet = "value_set",
        Void = "void",
    }
    puncts {
        PlusSatAssign = "|+|=",
        MinusSatAssign = "|-|=",
        Mask = "&&&",
        Ellipsis = "...",
        PlusSat = "|+|",
        MinusSat = "|-|",
        ShlAssign = "<<=",
        AndAnd = "&&",
        OrOr = "||",
        DotDot = "..",
        Shl = "<<",
        Le = "<=",
        Ge = ">=",
        EqEq = "==",
        Ne = "!=",
        PlusPlus = "++",
        PlusAssign = "+=",
        PlusColon = "+:",
        MinusAssign = "-=",
        StarAssign = "*=",
        SlashAssign = "/=",
        PercentAssign = "%=",
        AmpAssign = "&=",
        PipeAssign = "|=",
        CaretAssign = "^=",
        HashHash = "##",
        LParen = "(",
        RParen = ")",
        LBracket = "[",
        RBracket = "]",
        LBrace = "{",
        RBrace = "}",
        Lt = "<",
        Gt = ">",
        Assign = "=",
        Not = "!",
        Amp = "&",
        Pipe = "|",
        Caret = "^",
        Tilde = "~",
        Plus = "+",
        Minus = "-",
        Star = "*",
        Slash = "/",
        Percent = "%",
        Dot = ".",
        Colon = ":",
        Semicolon = ";",
        Comma = ",",
        Question = "?",
        At = "@",
        Hash = "#",
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Ident => f.write_str("identifier"),
            TokenKind::Int => f.write_str("integer literal"),
            TokenKind::Str => f.write_str("string literal"),
            TokenKind::Invalid(k) => f.write_str(k.message()),
            TokenKind::Eof => f.write_str("end of input"),
            other => write!(f, "`{}`", other.fixed_text().unwrap_or("?")),
        }
    }
}

/// One token with its original position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its spelling as written (string literals include the quotes).
    pub text: Arc<str>,
    /// Where it was written; for macro-expanded tokens, the invocation site.
    pub span: Span,
    /// First token of a logical line (directives start only there).
    pub line_start: bool,
    /// Whitespace or a comment comes right before it.
    pub space_before: bool,
}

impl Token {
    /// Whether the token is spelled like an identifier (identifiers,
    /// keywords and `_`); the preprocessor treats all of these as names.
    pub fn is_word(&self) -> bool {
        matches!(self.kind, TokenKind::Ident | TokenKind::DontCare) || self.kind.is_keyword()
    }

    /// Whether no whitespace separates this token from the one before it
    /// (how `>` `>` is told apart from `> >`).
    pub fn glued(&self) -> bool {
        !self.space_before
    }
}

/// Maps offsets in spliced text back to offsets in the file.
struct Splices {
    /// (offset in spliced text, bytes removed before it), ascending.
    points: Vec<(u32, u32)>,
}

impl Splices {
    fn original(&self, spliced: usize) -> u32 {
        let s = clamp_u32(spliced);
        let idx = self.points.partition_point(|&(at, _)| at <= s);
        let removed = if idx == 0 { 0 } else { self.points[idx - 1].1 };
        s.saturating_add(removed)
    }
}

/// Removes backslash-newline pairs, remembering where they were.
fn splice(text: &str) -> (String, Splices) {
    if !text.contains('\\') {
        return (text.to_string(), Splices { points: Vec::new() });
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut points = Vec::new();
    let mut removed = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let skip = if bytes.get(i + 1) == Some(&b'\n') {
                2
            } else if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') {
                3
            } else {
                0
            };
            if skip > 0 {
                removed += skip;
                i += skip as usize;
                points.push((clamp_u32(out.len()), removed));
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    // Only ASCII bytes were removed, so the rest is still valid UTF-8.
    let spliced = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (spliced, Splices { points })
}

/// Lexes a whole file. The last token is always [`TokenKind::Eof`].
pub fn lex_file(file_id: FileId, file: &SourceFile) -> Vec<Token> {
    let (text, splices) = splice(&file.text);
    Lexer {
        text: &text,
        pos: 0,
        file_id,
        file,
        splices: &splices,
        tokens: Vec::new(),
    }
    .run()
}

/// Lexes a free-standing string (used for `##` pasting); spans point at
/// `at`.
pub(crate) fn lex_fragment(text: &str, at: Span) -> Vec<Token> {
    let file = SourceFile::new("<paste>", None, Arc::from(text));
    let mut toks = lex_file(at.file, &file);
    for t in &mut toks {
        t.span = at;
    }
    toks
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    file_id: FileId,
    file: &'a SourceFile,
    splices: &'a Splices,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn run(mut self) -> Vec<Token> {
        let bytes = self.text.as_bytes();
        let mut line_start = true;
        let mut space_before = false;
        loop {
            // Skip whitespace and comments.
            while self.pos < bytes.len() {
                match bytes[self.pos] {
                    b'\n' => {
                        line_start = true;
                        space_before = true;
                        self.pos += 1;
                    }
                    b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                        space_before = true;
                        self.pos += 1;
                    }
                    b'/' if bytes.get(self.pos + 1) == Some(&b'/') => {
                        while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                            self.pos += 1;
                        }
                        space_before = true;
                    }
                    b'/' if bytes.get(self.pos + 1) == Some(&b'*') => {
                        let start = self.pos;
                        match self.text[self.pos + 2..].find("*/") {
                            Some(end) => {
                                self.pos += 2 + end + 2;
                                space_before = true;
                            }
                            None => {
                                self.pos = bytes.len();
                                let kind = TokenKind::Invalid(LexErrorKind::UnterminatedComment);
                                self.push(kind, start, start + 2, line_start, true);
                                return self.finish();
                            }
                        }
                    }
                    _ => break,
                }
            }
            if self.pos >= bytes.len() {
                return self.finish();
            }
            let start = self.pos;
            let kind = self.next_kind();
            self.push(kind, start, self.pos, line_start, space_before);
            line_start = false;
            space_before = false;
        }
    }

    fn finish(mut self) -> Vec<Token> {
        let end = self.text.len();
        self.push(TokenKind::Eof, end, end, true, true);
        self.tokens
    }

    fn push(&mut self, kind: TokenKind, lo: usize, hi: usize, line_start: bool, space: bool) {
        let olo = self.splices.original(lo);
        // `hi` maps from the last byte so a splice right after a token
        // does not stretch the token over it.
        let ohi = if hi > lo {
            self.splices.original(hi - 1) + 1
        } else {
            olo
        };
        let (line, col) = self.file.line_col(olo);
        let text: Arc<str> = Arc::from(self.text.get(lo..hi).unwrap_or(""));
        self.tokens.push(Token {
            kind,
            text,
            span: Span {
                file: self.file_id,
                lo: olo,
                hi: ohi,
                line,
                col,
            },
            line_start,
            space_before: space,
        });
    }

    fn next_kind(&mut self) -> TokenKind {
        let bytes = self.text.as_bytes();
        let c = bytes[self.pos];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = self.pos;
            while self.pos < bytes.len()
                && (bytes[self.pos].is_ascii_alphanumeric() || bytes[self.pos] == b'_')
            {
                self.pos += 1;
            }
            let word = &self.text[start..self.pos];
            if word == "_" {
                return TokenKind::DontCare;
            }
            return TokenKind::keyword(word).unwrap_or(TokenKind::Ident);
        }
        if c.is_ascii_digit() {
            // A number is a digit followed by letters, digits and `_`; the
            // parser checks the spelling (`8w5`, `0x1F`, `4s0b1_0`).
            while self.pos < bytes.len()
                && (bytes[self.pos].is_ascii_alphanumeric() || bytes[self.pos] == b'_')
            {
                self.pos += 1;
            }
            return TokenKind::Int;
        }
        if c == b'"' {
            self.pos += 1;
            while self.pos < bytes.len() {
                match bytes[self.pos] {
                    b'\\' if bytes.get(self.pos + 1).is_some_and(|&b| b != b'\n') => self.pos += 2,
                    b'"' => {
                        self.pos += 1;
                        return TokenKind::Str;
                    }
                    // As after cpp, a string ends with its line.
                    b'\n' => break,
                    _ => self.pos += 1,
                }
            }
            self.pos = self.pos.min(bytes.len());
            while !self.text.is_char_boundary(self.pos) {
                self.pos += 1;
            }
            return TokenKind::Invalid(LexErrorKind::UnterminatedString);
        }
        let rest = &self.text[self.pos..];
        for (spelling, kind) in PUNCTS {
            if rest.starts_with(spelling) {
                self.pos += spelling.len();
                return *kind;
            }
        }
        // Skip one whole character so the token stays valid UTF-8.
        let width = rest.chars().next().map_or(1, char::len_utf8);
        self.pos += width;
        TokenKind::Invalid(LexErrorKind::UnexpectedChar)
    }
}

/// The value of an integer literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IntLiteral {
    /// Magnitude, big-endian, without leading zero bytes (`[]` is zero).
    pub magnitude: Vec<u8>,
    /// Width from a `Nw`/`Ns` prefix.
    pub width: Option<u32>,
    /// `true` for an `Ns` prefix.
    pub signed: bool,
}

impl IntLiteral {
    /// A literal with no width prefix.
    pub fn from_u128(value: u128) -> IntLiteral {
        let bytes = value.to_be_bytes();
        let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
        IntLiteral {
            magnitude: bytes[first..].to_vec(),
            width: None,
            signed: false,
        }
    }

    /// The magnitude as a `u128`, if it fits.
    pub fn to_u128(&self) -> Option<u128> {
        if self.magnitude.len() > 16 {
            return None;
        }
        Some(
            self.magnitude
                .iter()
                .fold(0u128, |acc, &b| (acc << 8) | u128::from(b)),
        )
    }
}

/// Parses the spelling of a P4 integer literal: `[width(w|s)][0x|0o|0b|0d]digits`
/// with `_` separators.
pub fn parse_int_literal(text: &str) -> Result<IntLiteral, String> {
    let (width, signed, body) = match text.find(['w', 's']) {
        Some(i) if i > 0 && text[..i].bytes().all(|b| b.is_ascii_digit()) => {
            let width: u32 = text[..i]
                .parse()
                .map_err(|_| format!("width of `{text}` is too large"))?;
            if width == 0 && &text[i..i + 1] == "s" {
                return Err(format!(
                    "`{text}`: a signed literal needs a width of at least 1"
                ));
            }
            (Some(width), &text[i..i + 1] == "s", &text[i + 1..])
        }
        _ => (None, false, text),
    };
    let (radix, digits) = match body.get(..2) {
        Some("0x" | "0X") => (16, &body[2..]),
        Some("0o" | "0O") => (8, &body[2..]),
        Some("0b" | "0B") => (2, &body[2..]),
        Some("0d" | "0D") => (10, &body[2..]),
        _ => (10, body),
    };
    let mut magnitude: Vec<u8> = Vec::new();
    let mut any = false;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c
            .to_digit(radix)
            .ok_or_else(|| format!("invalid digit `{c}` in integer literal `{text}`"))?;
        any = true;
        // magnitude = magnitude * radix + d, little loop over bytes.
        let mut carry = d;
        for byte in magnitude.iter_mut().rev() {
            let v = u32::from(*byte) * radix + carry;
            *byte = (v & 0xff) as u8;
            carry = v >> 8;
        }
        while carry > 0 {
            magnitude.insert(0, (carry & 0xff) as u8);
            carry >>= 8;
        }
    }
    if !any {
        return Err(format!("integer literal `{text}` has no digits"));
    }
    let first = magnitude
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(magnitude.len());
    magnitude.drain(..first);
    Ok(IntLiteral {
        magnitude,
        width,
        signed,
    })
}

/// Decodes the escapes of a string literal token (quotes included).
pub fn unquote(text: &str) -> String {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> Vec<Token> {
        let file = SourceFile::new("t.p4", None, Arc::from(text));
        lex_file(FileId(0), &file)
    }

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex(text).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn operators_use_maximal_munch() {
        use TokenKind::*;
        assert_eq!(
            kinds("a &&& b .. c ++ d |+| e |-| f << g >> h"),
            vec![
                Ident, Mask, Ident, DotDot, Ident, PlusPlus, Ident, PlusSat, Ident, MinusSat,
                Ident, Shl, Ident, Gt, Gt, Ident, Eof
            ]
        );
        assert_eq!(kinds("x...y"), vec![Ident, Ellipsis, Ident, Eof]);
        assert_eq!(kinds("a>=b"), vec![Ident, Ge, Ident, Eof]);
    }

    #[test]
    fn keywords_and_contextual_words() {
        use TokenKind::*;
        assert_eq!(
            kinds("header apply key _ state value_set"),
            vec![Header, Ident, Ident, DontCare, Ident, ValueSet, Eof]
        );
    }

    #[test]
    fn positions_are_one_based_and_survive_comments() {
        let toks = lex("// c\n  /* x\n */ foo\tbar");
        assert_eq!(toks[0].span.line, 3);
        assert_eq!(toks[0].span.col, 5);
        assert!(toks[0].line_start);
        assert_eq!(toks[1].span.col, 9);
        assert!(!toks[1].line_start);
    }

    #[test]
    fn block_comment_newline_does_not_start_a_line() {
        let toks = lex("a /*\n*/ b\nc");
        assert!(!toks[1].line_start);
        assert!(toks[2].line_start);
    }

    #[test]
    fn splices_keep_original_positions() {
        let toks = lex("ab\\\ncd e\\\n\nf");
        assert_eq!(&*toks[0].text, "abcd");
        assert_eq!((toks[0].span.lo, toks[0].span.hi), (0, 6));
        assert_eq!((toks[1].span.line, toks[1].span.col), (2, 4));
        assert_eq!((toks[2].span.line, toks[2].span.col), (4, 1));
        assert!(toks[2].line_start);
    }

    #[test]
    fn literals_parse_with_widths_and_bases() {
        let v = parse_int_literal("8w0xF_F").unwrap();
        assert_eq!(
            (v.to_u128(), v.width, v.signed),
            (Some(255), Some(8), false)
        );
        let v = parse_int_literal("4s0b101").unwrap();
        assert_eq!((v.to_u128(), v.width, v.signed), (Some(5), Some(4), true));
        assert_eq!(parse_int_literal("0o17").unwrap().to_u128(), Some(15));
        assert_eq!(parse_int_literal("0d99").unwrap().to_u128(), Some(99));
        assert_eq!(parse_int_literal("1_000").unwrap().to_u128(), Some(1000));
        let big = parse_int_literal("0xffffffffffffffffffffffffffffffffff").unwrap();
        assert_eq!(big.magnitude.len(), 17);
        assert_eq!(big.to_u128(), None);
        assert!(parse_int_literal("0xZZ").is_err());
        assert!(parse_int_literal("12ab").is_err());
        assert!(parse_int_literal("0x").is_err());
        assert!(parse_int_literal("0s1").is_err());
        assert_eq!(parse_int_literal("0").unwrap().magnitude, Vec::<u8>::new());
    }

    #[test]
    fn bad_text_becomes_invalid_tokens() {
        let toks = lex("a $ \"open");
        assert_eq!(
            toks[1].kind,
            TokenKind::Invalid(LexErrorKind::UnexpectedChar)
        );
        assert_eq!(
            toks[2].kind,
            TokenKind::Invalid(LexErrorKind::UnterminatedString)
        );
        let toks = lex("x /* never closed");
        assert_eq!(
            toks[1].kind,
            TokenKind::Invalid(LexErrorKind::UnterminatedComment)
        );
        assert_eq!(toks.last().map(|t| t.kind), Some(TokenKind::Eof));
        // Non-ASCII characters are one token each and never split.
        let toks = lex("é");
        assert_eq!(&*toks[0].text, "é");
    }

    #[test]
    fn strings_unquote() {
        let toks = lex(r#""a\"b\\c""#);
        assert_eq!(toks[0].kind, TokenKind::Str);
        assert_eq!(unquote(&toks[0].text), "a\"b\\c");
    }
}
