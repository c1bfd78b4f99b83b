"""What the cursor is on: the dotted name under it, the call it is inside, resolved to Spore's API.

Text based on purpose: while typing (`ops.` or `nn.Conv2d(3, `) the file does not parse, so hover,
completion and signature help read the current line(s) and resolve names through the imports of the
last analysis that parsed (or, with none, through the import lines of the current text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .analysis import Analysis, _aliases, parse
from .documents import Program

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHAIN_BEFORE = re.compile(r"((?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)*[A-Za-z_][A-Za-z0-9_]*)\s*$")
_IMPORT_LINE = re.compile(r"^\s*(import\s+[\w., ]+|from\s+[\w.]+\s+import\s+[\w., ()]+)\s*(#.*)?$")


# How far back the name patterns look. They are anchored at the end (`...$`), so `re.search` tries every
# start position: quadratic in the text searched, minutes on a 100,000-character line (`a.a.a....`).
# No Spore name chain is this long, so only the line's last LOOKBACK characters are searched.
LOOKBACK = 400


def search_tail(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """`pattern.search` over the last LOOKBACK characters of `text` (a pattern anchored with `$`); None when
    the match starts where the window was cut (the name may go on before it: longer than any Spore name)."""
    window = text[-LOOKBACK:]
    m = pattern.search(window)
    if m is None or (m.start() == 0 and len(window) < len(text)):
        return None
    return m


def chain_at(text: str, col: int) -> tuple[str, int, int] | None:
    """(dotted name up to the identifier under `col`, its start col, its end col) on one line."""
    for m in _IDENT.finditer(text):
        if m.start() <= col <= m.end():
            before = search_tail(_CHAIN_BEFORE, text[:m.end()])
            dotted = re.sub(r"\s+", "", before.group(1)) if before else m.group()
            return dotted, m.start(), m.end()
    return None


def chain_before(text: str) -> str | None:
    """The dotted name just before the end of `text` (``ms.ops`` in ``y = ms.ops.``)."""
    m = search_tail(_CHAIN_BEFORE, text)
    return re.sub(r"\s+", "", m.group(1)) if m else None


class Resolver:
    """Resolves dotted names through a file's imports (the analysis's, else the import lines in the text)."""

    def __init__(self, an: Analysis | None, current: Program) -> None:
        if an is not None and an.tree is not None:
            self.an = an
        else:
            lines = [line for line in current.lines if _IMPORT_LINE.match(line)]
            tree, _ = parse(Program(current.key, None, "\n".join(s.strip() for s in lines)))
            self.an = Analysis(current, tree)
            if tree is not None:
                self.an.aliases = _aliases(tree)

    def resolve(self, dotted: str) -> str | None:
        return self.an.resolve(dotted)

    def alias_for(self, module: str) -> str | None:
        return self.an.alias_for(module)


@dataclass
class CallContext:
    callee: str              # the dotted name being called
    arg_index: int           # 0-based index of the argument the cursor is in
    keyword: str | None      # the keyword of that argument, when it is `name=...`
    typed: str               # the text of that argument up to the cursor
    used_keywords: list[str]


def call_at(current: Program, line: int, col: int, max_lines: int = 30) -> CallContext | None:
    """The innermost unclosed call around a program position (looking back at most `max_lines` lines)."""
    first = max(0, line - max_lines)
    text = "\n".join(current.lines[first:line] + [current.line_text(line)[:col]])
    depth = 0
    commas: list[int] = []
    i = len(text) - 1
    quote: str | None = None
    while i >= 0:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None
                callee = chain_before(text[:i])
                if not callee:
                    return None
                args = text[i + 1:]
                parts = _split_top(args)
                typed = parts[-1] if parts else ""
                kw = re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", typed)
                used = [m.group(1) for p in parts[:-1] if (m := re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", p))]
                return CallContext(callee, len(parts) - 1 if parts else 0, kw.group(1) if kw else None, typed, used)
            depth -= 1
        elif ch == "," and depth == 0:
            commas.append(i)
        i -= 1
    return None


def _split_top(args: str) -> list[str]:
    """Split a call's argument text at its top-level commas (brackets and strings respected)."""
    parts, depth, cur, quote = [], 0, [], None
    for ch in args:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def split_signature(sig: str) -> list[tuple[int, int]]:
    """Offsets of each parameter in a signature text ``(a, b=1, *, c)`` (the bare `*` and `/` left out)."""
    inner_start = sig.find("(") + 1
    out, depth, start, quote = [], 0, inner_start, None
    for i in range(inner_start, len(sig)):
        ch = sig[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                out.append((start, i))
                break
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((start, i))
            start = i + 1
    spans = []
    for s, e in out:
        while s < e and sig[s] == " ":
            s += 1
        if sig[s:e].strip() not in ("", "*", "/"):
            spans.append((s, e))
    return spans


@dataclass
class Cursor:
    """A request position in program coordinates, with the program, its analysis and a resolver."""

    program: Program
    analysis: Analysis | None
    line: int
    col: int
    resolver: Resolver

    @property
    def text(self) -> str:
        return self.program.line_text(self.line)


def cursor(ls: object, uri: str, position: object) -> Cursor | None:
    """Where an LSP request points (`ls` is the SporeLanguageServer; a cell position maps into its notebook)."""
    from .documents import from_utf16

    program = ls.program_for(uri)  # type: ignore[attr-defined]
    if program is None:
        return None
    line = program.to_program(uri, position.line)  # type: ignore[attr-defined]
    if line is None:
        return None
    # The names under the cursor are read from the current text; only the imports come from the analysis,
    # so the newest one will do: a hover never waits for a long file to be analysed again.
    an = ls.analyses.latest(program.key) or ls.analyses.get(program, ls.api())  # type: ignore[attr-defined]
    col = from_utf16(program.line_text(line), position.character)  # type: ignore[attr-defined]
    return Cursor(program, an, line, col, Resolver(an, program))
