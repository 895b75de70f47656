//! Source files and positions.
//!
//! Every token and AST node carries a [`Span`] that names the file and the
//! line and column *where the text was written*, even after `#include` and
//! macro expansion, so diagnostics point at what the user typed.

use std::path::PathBuf;
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A range of source text: file, byte offsets and the 1-based line and
/// column of its first byte.
///
/// `lo`/`hi` are byte offsets into the file's text; `line`/`col` are the
/// *presumed* position (after any `#line` directive), with `col` counted in
/// bytes from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// File the text lives in.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub lo: u32,
    /// Byte offset one past the last byte.
    pub hi: u32,
    /// 1-based line of `lo`.
    pub line: u32,
    /// 1-based byte column of `lo`.
    pub col: u32,
}

impl Span {
    /// A span from the start of `self` to the end of `other`, when both lie
    /// in the same file and `other` ends later; otherwise `self`.
    pub fn to(self, other: Span) -> Span {
        if self.file == other.file && other.hi >= self.lo {
            Span {
                hi: other.hi.max(self.hi),
                ..self
            }
        } else {
            self
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u32 {
        self.hi.saturating_sub(self.lo)
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One file known to the front end.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Name shown in diagnostics (the path as given, or `<p4include>/core.p4`).
    pub name: String,
    /// Path on disk, when the file came from the file system.
    pub path: Option<PathBuf>,
    /// Full text as read (before line splicing).
    pub text: Arc<str>,
    /// Byte offset of the start of every line.
    line_starts: Arc<[u32]>,
}

impl SourceFile {
    /// A file with the given display name and text.
    pub fn new(name: impl Into<String>, path: Option<PathBuf>, text: Arc<str>) -> SourceFile {
        let mut starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(clamp_u32(i + 1));
            }
        }
        SourceFile {
            name: name.into(),
            path,
            text,
            line_starts: starts.into(),
        }
    }

    /// The same text under another name (used for `#line "name"`).
    pub fn alias(&self, name: impl Into<String>) -> SourceFile {
        SourceFile {
            name: name.into(),
            path: self.path.clone(),
            text: self.text.clone(),
            line_starts: self.line_starts.clone(),
        }
    }

    /// 1-based physical line and byte column of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(idx).copied().unwrap_or(0);
        (clamp_u32(idx + 1), offset.saturating_sub(start) + 1)
    }

    /// The text of the physical line holding `offset`, without its newline.
    pub fn line_text(&self, offset: u32) -> &str {
        let offset = (offset as usize).min(self.text.len());
        let bytes = self.text.as_bytes();
        let mut start = offset;
        while start > 0 && bytes[start - 1] != b'\n' {
            start -= 1;
        }
        let mut end = offset;
        while end < bytes.len() && bytes[end] != b'\n' {
            end += 1;
        }
        let line = self.text.get(start..end).unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// All files read while preprocessing one program.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(clamp_u32(self.files.len() - 1))
    }

    /// The file with this id, if any.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// Display name of a file (`"<unknown>"` for a bad id).
    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map_or("<unknown>", |f| f.name.as_str())
    }

    /// The source text a span covers (empty for a bad span).
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.file)
            .and_then(|f| f.text.get(span.lo as usize..span.hi as usize))
            .unwrap_or("")
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Saturating conversion for offsets; files over 4 GiB are refused earlier.
pub(crate) fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
