"""A *program*: the Python text the server analyses, and where each of its lines came from.

A text document is one program of one chunk. A notebook is one program made of its code cells in
order (cells run top to bottom in one namespace, so a `set_context` in cell 1 governs a Cell defined
in cell 2); every finding is mapped back to its own cell's URI and cell-relative line. IPython
magics and shell escapes (`%time`, `!pip`, `%%bash` cells) are blanked, line for line, so the
rest parses and line numbers stay exact.

Columns: the analysis works in code points of a line; LSP positions count UTF-16 code units by
default. `to_utf16` / `from_utf16` convert at the protocol boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Chunk:
    """One source of lines in a program: a text document or a notebook cell."""

    uri: str
    first_line: int  # 0-based program line where this chunk starts
    n_lines: int
    version: int | None = None


@dataclass
class Program:
    """The text to analyse, made of chunks (one per text document or notebook code cell)."""

    key: str          # the text document's or the notebook's URI
    version: int | None
    text: str
    chunks: list[Chunk] = field(default_factory=list)
    is_notebook: bool = False

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")

    def line_text(self, line: int) -> str:
        """A 0-based program line's text ('' past the end)."""
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def chunk_of(self, line: int) -> Chunk | None:
        """The chunk holding a 0-based program line."""
        for c in self.chunks:
            if c.first_line <= line < c.first_line + c.n_lines:
                return c
        return self.chunks[-1] if self.chunks and line >= self.chunks[-1].first_line else None

    def chunk_index(self, line: int) -> int:
        chunk = self.chunk_of(line)
        return self.chunks.index(chunk) if chunk is not None else -1

    def to_local(self, line: int) -> tuple[str, int]:
        """(document URI, document-relative 0-based line) for a 0-based program line."""
        chunk = self.chunk_of(line)
        if chunk is None:
            return self.key, line
        return chunk.uri, line - chunk.first_line

    def to_program(self, uri: str, line: int) -> int | None:
        """The 0-based program line of a document line, or None when the URI is not in the program."""
        for c in self.chunks:
            if c.uri == uri:
                return c.first_line + line
        return None

    def chunk_by_uri(self, uri: str) -> Chunk | None:
        return next((c for c in self.chunks if c.uri == uri), None)


def _blank_magics(text: str) -> str:
    """IPython syntax blanked line for line (a `%%` cell magic blanks the whole cell)."""
    lines = text.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join("" for _ in lines)
    out = []
    for line in lines:
        s = line.lstrip()
        out.append("" if s.startswith(("%", "!")) or (s.endswith("?") and not s.startswith("#")) else line)
    return "\n".join(out)


def from_text(uri: str, text: str, version: int | None) -> Program:
    n = text.count("\n") + 1
    return Program(uri, version, text, [Chunk(uri, 0, n, version)])


def from_cells(notebook_uri: str, version: int | None, cells: list[tuple[str, str, int | None]]) -> Program:
    """A notebook's code cells, (uri, text, version) in order, as one program."""
    parts: list[str] = []
    chunks: list[Chunk] = []
    line = 0
    for uri, text, cell_version in cells:
        body = _blank_magics(text.rstrip("\n"))
        n = body.count("\n") + 1
        chunks.append(Chunk(uri, line, n, cell_version))
        parts.append(body)
        line += n
    return Program(notebook_uri, version, "\n".join(parts), chunks, is_notebook=True)


def to_utf16(text: str, col: int) -> int:
    """A code-point column of a line as UTF-16 code units."""
    return col + sum(1 for ch in text[:col] if ord(ch) > 0xFFFF)


def from_utf16(text: str, units: int) -> int:
    """A UTF-16 column of a line as a code-point column."""
    n = 0
    for i, ch in enumerate(text):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


def byte_to_char(text: str, col: int) -> int:
    """An `ast` column (UTF-8 bytes) of a line as a code-point column."""
    if text.isascii():
        return col
    return len(text.encode("utf-8", errors="surrogatepass")[:col].decode("utf-8", errors="ignore"))
