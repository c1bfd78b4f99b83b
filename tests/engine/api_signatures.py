"""Reading MindSpore's signature strings (as `inspect.signature` printed them in MindSpore 2.10) and
checking that a Spore callable accepts the same calls.

The strings are not always Python: defaults print as ``<Inter.BILINEAR: 2>``, ``<class
'numpy.float32'>`` or ``<function <lambda> at 0x...>``, and annotations name MindSpore's classes.
So they are split by hand (commas outside brackets, quotes and ``<...>``) rather than parsed by
`ast`; a default that is not a Python literal is kept as its text and only "has a default" is
checked for it.
"""

from __future__ import annotations

import ast
import enum
import inspect
import math
from dataclasses import dataclass
from typing import Any

NOT_LITERAL = object()  # a MindSpore default that is not a literal (an enum, a dtype, a function)


@dataclass(frozen=True)
class MsParam:
    name: str
    kind: str                 # "positional" (may be passed by position or name), "keyword", "var_pos", "var_kw"
    has_default: bool
    default: Any = None       # the literal value, or NOT_LITERAL
    default_text: str = ""


def _split_top(text: str) -> list[str]:
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _split_default(piece: str) -> tuple[str, str | None]:
    """`name: ann = default` -> (`name: ann`, `default`): the first `=` outside brackets."""
    depth, quote = 0, ""
    for i, ch in enumerate(piece):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "=" and depth == 0:
            return piece[:i].strip(), piece[i + 1:].strip()
    return piece.strip(), None


def parse_signature(text: str) -> list[MsParam]:
    """MindSpore's parameters from its signature text, without `self`."""
    body = text.strip()
    if body.startswith("("):
        body = body[1:body.rindex(")")]
    out: list[MsParam] = []
    keyword_only = False
    for piece in _split_top(body):
        if piece == "/":
            continue
        if piece == "*":
            keyword_only = True
            continue
        head, default = _split_default(piece)
        name = head.split(":", 1)[0].strip()
        if name.startswith("**"):
            out.append(MsParam(name[2:], "var_kw", False))
            continue
        if name.startswith("*"):
            out.append(MsParam(name[1:], "var_pos", False))
            keyword_only = True
            continue
        if name in ("self", "cls"):
            continue
        kind = "keyword" if keyword_only else "positional"
        if default is None:
            out.append(MsParam(name, kind, False))
            continue
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError):
            value = NOT_LITERAL
        out.append(MsParam(name, kind, True, value, default))
    return out


def _same_default(ms_value: Any, ours: Any) -> bool:
    if ms_value is NOT_LITERAL:
        return True
    if isinstance(ours, enum.Enum):
        ours = ours.value
    if isinstance(ms_value, float) and isinstance(ours, (int, float)) and not isinstance(ours, bool):
        return math.isclose(ms_value, ours, rel_tol=1e-12, abs_tol=0.0) or (math.isnan(ms_value) and math.isnan(ours))
    if isinstance(ms_value, (list, tuple)) and isinstance(ours, (list, tuple)):
        return len(ms_value) == len(ours) and all(_same_default(a, b) for a, b in zip(ms_value, ours))
    if type(ms_value) is bool or type(ours) is bool:
        return type(ms_value) is type(ours) and ms_value == ours
    return ms_value == ours


def signature_problems(obj: Any, ms_text: str) -> list[str]:
    """How `obj`'s signature fails to accept MindSpore's calls: each MindSpore parameter must exist
    under its name (or be taken by ``**kwargs``), in MindSpore's position when it can be passed by
    position, with the same default; a parameter Spore requires must be one MindSpore requires."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError) as err:
        return [f"no signature: {err}"]
    ours = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    by_name = {p.name: p for p in ours}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in ours)
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in ours)
    positional = [p for p in ours if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    ms = parse_signature(ms_text)
    problems = []
    ms_positional = [m for m in ms if m.kind == "positional"]
    for i, m in enumerate(ms_positional):
        if i < len(positional):
            if positional[i].name != m.name and m.name in by_name:
                problems.append(f"{m.name!r} is positional parameter {i} in MindSpore, {positional[i].name!r} in Spore")
        elif not var_pos and m.name not in by_name:
            problems.append(f"MindSpore's positional parameter {m.name!r} (#{i}) has no place")
    for m in ms:
        if m.kind in ("var_pos", "var_kw"):
            continue
        p = by_name.get(m.name)
        if p is None or p.kind is p.POSITIONAL_ONLY:
            if not var_kw:
                problems.append(f"no parameter {m.name!r}")
            continue
        if m.has_default:
            if p.default is p.empty:
                problems.append(f"{m.name!r} has MindSpore default {m.default_text} but is required in Spore")
            elif not _same_default(m.default, p.default):
                problems.append(f"{m.name!r} defaults to {p.default!r}, MindSpore {m.default_text}")
    ms_names = {m.name for m in ms}
    ms_takes_any = any(m.kind == "var_kw" for m in ms)
    for p in ours:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        if p.name not in ms_names and not ms_takes_any and not any(m.kind == "var_pos" for m in ms):
            problems.append(f"Spore requires {p.name!r}, which MindSpore does not have")
        elif p.name in ms_names and next(m for m in ms if m.name == p.name).has_default:
            pass  # reported above
    return problems
