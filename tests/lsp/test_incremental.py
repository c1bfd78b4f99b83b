"""Incremental analysis gives exactly what a fresh analysis gives.

The server analyses a new version by re-parsing only the top-level statements an edit touched
(`spore_lsp.incremental`). These tests apply thousands of seeded random edits to the example files the
fuzz test uses (as text documents and as notebooks) and, after every edit, compare the incremental
analysis with one made from scratch by the whole-text path: the issues with their fixes, the stale
state and syntax error, the facts the features read (imports, set_context calls, compiled functions),
and for the static shapes the inlay-hint steps and the hover answer on a sample of variables. They also
check that the incremental path is really taken (a one-line edit re-parses one statement), and pin the
cases the segmenting must get right: decorators, backslash continuations, strings with lines at column 0,
statements joined by ";", an edit that merges two statements, lone "\\r", notebook cells.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from spore_lsp import graph_rules, tensor_facts
from spore_lsp.analysis import Analysis, AnalysisCache, analyse
from spore_lsp.api import ApiIndex
from spore_lsp.documents import Program, from_cells, from_text
from spore_lsp.shapes import ConstructShapes, label, value_of

from .test_fuzz import EXAMPLES, TOKENS, Change, apply, random_change

ROOT = Path(__file__).resolve().parents[2]
SHAPED = '''import numpy as np
import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)
HIDDEN = 16


def scale(x):
    return x * 2


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, HIDDEN)
        self.relu = nn.ReLU()
        self.out = nn.Dense(HIDDEN, 4)

    def construct(self, x):
        x = self.fc(x)
        x = self.relu(x)
        y = scale(x)
        print(y)
        return self.out(y)


class Other(nn.Cell):
    # spore: input_shape=(B, 3)
    def construct(self, x):
        z = ops.relu(x)
        return z.view(-1)


net = Net()
out = net(ms.Tensor(np.ones((2, 8), np.float32)))
'''
LINE_KINDS = ["dup_line", "drop_line", "blank", "indent", "dedent", "statement", "swap", "join"]


@pytest.fixture(scope="module")
def api() -> ApiIndex:
    return ApiIndex()


def _sources() -> dict[str, str]:
    out = {name: (ROOT / "examples" / name).read_text() for name in EXAMPLES}
    out["shaped.py"] = SHAPED
    return out


def line_change(rng: random.Random, text: str) -> Change:
    """An edit of whole lines, the kind that keeps a file parsing (or nearly): duplicated, dropped, indented,
    swapped or joined lines, a blank line, a new top-level statement."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    start = sum(len(x) + 1 for x in lines[:i])
    end = start + len(lines[i])
    kind = rng.choice(LINE_KINDS)
    if kind == "dup_line":
        return Change(start, start, lines[i] + "\n", False)
    if kind == "drop_line":
        return Change(start, min(end + 1, len(text)), "", False)
    if kind == "blank":
        return Change(start, start, "\n", False)
    if kind == "indent":
        return Change(start, start, "    ", False)
    if kind == "dedent":
        return Change(start, start + min(4, len(lines[i]) - len(lines[i].lstrip(" "))), "", False)
    if kind == "statement":
        return Change(start, start, rng.choice(["x = 1\n", "import torch\n", "@ms.jit\ndef f(x):\n    print(x)\n"
                                                "    return x\n", "ms.set_context(mode=ms.PYNATIVE_MODE)\n",
                                                "y = (1,\n2)\n", "s = '''\nclass Fake:\n'''\n", "a = 1; b = 2\n",
                                                "z = 1 + \\\n    2\n"]), False)
    if kind == "swap" and i + 1 < len(lines):
        return Change(start, start + len(lines[i]) + 1 + len(lines[i + 1]), lines[i + 1] + "\n" + lines[i], False)
    return Change(end, min(end + 1, len(text)), "", False)  # join with the next line


def project(an: Analysis) -> dict:
    """Everything the features read from an analysis, as plain comparable data."""
    fns = []
    for f in an.functions:
        rec = f.facts.get("shapes")
        steps = [(s.name, s.line, s.end_line, s.end_col, label(s.value)) for s in rec.steps] \
            if isinstance(rec, ConstructShapes) else None
        fns.append((f.scope, f.lineno, f.end_lineno, f.jit, f.fullgraph, steps))
    return {"issues": an.issues, "stale": an.stale, "syntax_error": an.syntax_error, "errors": an.errors,
            "api_checked": an.api_checked, "aliases": an.aliases, "is_spore": an.is_spore, "functions": fns,
            "context": [(c.line, c.mode, c.level) for c in an.context_calls],
            "marked": [(type(n).__name__, n.lineno, n.col_offset) for n in an.marked],
            "body": None if an.tree is None else [(s.lineno, s.end_lineno, type(s).__name__) for s in an.tree.body]}


def hovers(an: Analysis, rng: random.Random) -> list:
    """Variable hovers (the static shape at a position) on a sample of the recorded steps."""
    if an.tree is None or an.stale:
        return []
    steps = [s for f in an.functions if isinstance(rec := f.facts.get("shapes"), ConstructShapes) for s in rec.steps]
    sample = rng.sample(steps, min(4, len(steps)))
    return [(s.name, s.line, label(value_of(an, s.name, s.line + 1, 0))) for s in sample]


def cold_caches() -> None:
    """Empty the checks' module-level caches (findings per function text, per helper, per statement), which
    the incremental and the fresh analysis share: the fresh one then computes everything from the text."""
    for cache in (graph_rules._CACHE, graph_rules._DEEP_CACHE, graph_rules._HELPER_CACHE, tensor_facts._PART_CACHE):
        cache.clear()


class Pair:
    """The same program analysed two ways, version after version: incrementally and from scratch."""

    def __init__(self, api: ApiIndex):
        self.api, self.cache, self.fresh_good, self.version = api, AnalysisCache(), None, 0
        self.local = 0  # versions the incremental path handled without parsing the whole text

    def check(self, program: Program, rng: random.Random) -> None:
        inc = self.cache.get(program, self.api)
        cold_caches()  # else a cache keyed on too little gives both analyses the same stale answer
        fresh = analyse(program, self.fresh_good, self.api)
        if fresh.tree is not None and not fresh.stale:
            self.fresh_good = fresh
        tree = self.cache._trees[program.key]
        if not inc.stale and tree.reparsed < len(program.lines):
            self.local += 1
        got, want = project(inc), project(fresh)
        for k in want:
            assert got[k] == want[k], (k, program.version, program.text)
        seed = rng.random()
        assert hovers(inc, random.Random(seed)) == hovers(fresh, random.Random(seed)), program.text


@pytest.mark.parametrize("name", sorted(_sources()))
def test_random_edits_to_a_file_analyse_as_from_scratch(api, name):
    rng = random.Random(f"incremental-{name}")
    text = original = _sources()[name]
    pair = Pair(api)
    pair.check(from_text(f"file:///{name}", text, 1), rng)
    good, broken = text, 0
    for version in range(2, 800):
        if version % 100 == 0:
            text = original  # back to the original in one change (a whole-document sync)
        elif broken > 2:
            text, broken = good, 0  # the user fixes what they broke
        elif rng.random() < 0.6:
            text = apply(text, line_change(rng, text))
        else:
            text = apply(text, random_change(rng, text, kinds=["insert", "insert", "delete", "replace", "brackets",
                                                               "nul", "surrogate"]))
        pair.check(from_text(f"file:///{name}", text, version), rng)
        if pair.fresh_good is not None and pair.fresh_good.program.text == text:
            good, broken = text, 0
        else:
            broken += 1
    assert pair.local > 250, f"only {pair.local} versions were analysed incrementally"


@pytest.mark.parametrize("name", EXAMPLES[:2])
def test_random_edits_to_notebook_cells_analyse_as_from_scratch(api, name):
    rng = random.Random(f"notebook-{name}")
    cells = [c for c in (ROOT / "examples" / name).read_text().split("\n\n\n") if c.strip()]
    cells.insert(1, "%time x = 1\n!pip list")
    pair = Pair(api)
    uris = [f"file:///nb.ipynb#cell{i}" for i in range(len(cells))]
    good, broken = list(cells), 0
    for version in range(1, 400):
        k = rng.randrange(len(cells))
        if broken > 2:
            cells, broken = list(good), 0
        elif rng.random() < 0.7:
            cells[k] = apply(cells[k], line_change(rng, cells[k] or "\n"))
        else:
            cells[k] = apply(cells[k], random_change(rng, cells[k], kinds=["insert", "delete", "replace"]))
        program = from_cells("file:///nb.ipynb", version, [(u, c, version) for u, c in zip(uris, cells)])
        pair.check(program, rng)
        if pair.fresh_good is not None and pair.fresh_good.program.text == program.text:
            good, broken = list(cells), 0
        else:
            broken += 1
    assert pair.local > 100


def test_a_one_line_edit_reparses_one_statement_and_keeps_the_others_nodes(api):
    text = SHAPED * 1
    cache = AnalysisCache()
    first = cache.get(from_text("file:///a.py", text, 1), api)
    before = {type(s).__name__ + str(s.lineno): s for s in first.tree.body}
    edited = text.replace("nn.Dense(HIDDEN, 4)", "nn.Dense(HIDDEN, 5)")
    second = cache.get(from_text("file:///a.py", edited, 2), api)
    tree = cache._trees["file:///a.py"]
    net = next(s for s in second.tree.body if getattr(s, "name", "") == "Net")
    assert tree.reparsed == 15, "the Net class and the two blank lines after it"
    kept = [s for s in second.tree.body if s is not net and before.get(type(s).__name__ + str(s.lineno)) is s]
    assert len(kept) == len(second.tree.body) - 1, "every other statement's tree is the same object"
    third = cache.get(from_text("file:///a.py", "\n\n" + edited, 3), api)
    assert cache._trees["file:///a.py"].reparsed == 3 and third.tree.body[0].lineno == 3
    assert project(third) == project(analyse(from_text("file:///a.py", "\n\n" + edited, 3), None, api))


EDGE_SEQUENCES = {
    "decorator added and removed": ["@ms.jit\n", ""],
    "backslash continuation": ["z = 1 + \\\n", "z = 1 + \\\n    2\n", ""],
    "a statement after ';' and a backslash": ["a = 1; \\\nb = 2\n", "a = 1; \\\nif a:\n    pass\n",
                                              "a = 1; \\\nb = 2\n"],
    "string with column-0 lines": ["s = '''\n", "s = '''\nclass Fake(nn.Cell):\n    def forward(self): pass\n'''\n",
                                   ""],
    "statements joined by ;": ["a = 1; ms.set_context(mode=ms.PYNATIVE_MODE)\n", ""],
    "a def line removed (its body joins the statement above)": None,
    "lone carriage return": ["x = 1\ry = 2\n", ""],
    "form feed and tabs": ["\x0cclass T(nn.Cell):\n\tdef construct(self, x):\n\t\tprint(x)\n\t\treturn x\n", ""],
}


@pytest.mark.parametrize("case", sorted(EDGE_SEQUENCES))
def test_edge_cases_of_segmenting_analyse_as_from_scratch(api, case):
    rng = random.Random(case)
    pair = Pair(api)
    at = SHAPED.index("class Other")
    versions = []
    if EDGE_SEQUENCES[case] is None:
        versions = [SHAPED.replace("    def construct(self, x):\n        z", "z"), SHAPED,
                    SHAPED.replace("class Other(nn.Cell):\n", "")]
    else:
        versions = [SHAPED[:at] + insert + SHAPED[at:] for insert in EDGE_SEQUENCES[case]]
        versions += [SHAPED[:at - 1] + insert + SHAPED[at - 1:] for insert in EDGE_SEQUENCES[case]]
    pair.check(from_text("file:///e.py", SHAPED, 1), rng)
    for v, text in enumerate(versions, start=2):
        pair.check(from_text("file:///e.py", text, v), rng)


def test_tokens_typed_one_character_at_a_time_analyse_as_from_scratch(api):
    """Typing a statement character by character (most prefixes do not parse) and deleting it again."""
    rng = random.Random(7)
    pair = Pair(api)
    at = SHAPED.index("    def construct(self, x):\n        x = self.fc")
    version = 1
    typed = ["        y = ops.reduce_summ(x, (1, 2))\n", "@ms.jit(fullgraph=True)\n", '    """doc\n', *TOKENS[:12]]
    for token in typed:
        for k in range(len(token) + 1):
            version += 1
            pair.check(from_text("file:///t.py", SHAPED[:at] + token[:k] + SHAPED[at:], version), rng)
        for k in range(len(token), -1, -1):
            version += 1
            pair.check(from_text("file:///t.py", SHAPED[:at] + token[:k] + SHAPED[at:], version), rng)


# Edits of what the whole-program checks' caches read besides a construct's own text (graph_rules' per-function
# caches, the shape check's per-segment pass in `shapes.program`): a helper a construct calls (and the helper it
# calls), an import (one naming a training wrapper changes what `mentions_training` looks for), a module
# constant, a call site, set_context, a training call, a `global`. Each is an (anchor, replacement) toggled on
# and off; a version is the base text with the edits that are on, in this order.
FACT_EDITS = [
    ("    return x * 2\n", "    print(x)\n    return x * 2\n"),                       # the helper construct calls
    ("def scale(x):\n", "def scale(x):\n    x = x.asnumpy()\n"),
    ("def scale(x):\n", "def twice(x):\n    return ops.relu(x)\n\n\ndef scale(x):\n    x = twice(x)\n"),
    ("    return ops.relu(x)\n", "    print(x)\n    return ops.relu(x)\n"),           # the helper's helper
    ("def scale(x):\n", "def scale(x):\n    global HIDDEN\n"),
    ("from spore import nn, ops\n", "from spore import nn, ops\nfrom spore.train import Model as Fit\n"),
    ("import numpy as np\n", "import numpy as np\nimport time as t0\n"),
    ("import spore as ms\n", "import spore as ms\nfrom spore import ops as nn\n"),
    ("HIDDEN = 16\n", "HIDDEN = 16\nHIDDEN = 3\n"),                                   # a module constant
    ("HIDDEN = 16\n", "HIDDEN = 12\n"),
    ("np.ones((2, 8), np.float32)", "np.ones((2, 9), np.float32)"),                   # the call sites
    ("np.ones((3, HIDDEN), np.float32)", "np.ones((3, 5), np.float32)"),
    ("out = net(", "Fit(net)\nout = net("),                                            # a (renamed) training wrapper
    ("t = Trained()\n", "t = Trained()\nt.set_train()\n"),
    ("ms.set_context(mode=ms.GRAPH_MODE)\n", "ms.set_context(mode=ms.PYNATIVE_MODE)\n"),
    ("ms.set_context(mode=ms.GRAPH_MODE)\n", "ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n"),
    ("        y = scale(x)\n", "        y = scale(x)\n        y = scale(y)\n"),          # a second call of the helper
    ("        x = self.relu(x)\n", "        x = self.relu(x).view(-1, HIDDEN)\n"),
    ("import numpy as np\n", "import numpy as np\nimport time as tm\n"),           # tm.sleep: time's, or not
    ("step(3)\n", "step(ms.Tensor(np.ones((2,), np.float32)))\n"),                  # x: a tensor, or not
    ("    return x * 2\n", "    tm.sleep(0)\n    return x * 2\n"),                    # in the helper construct calls
]
FACTS_BASE = SHAPED + """

class Trained(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(HIDDEN, 2)

    def construct(self, x):
        if self.training:
            x = ops.concat((x, x), 1)
        return self.fc(scale(x))


t = Trained()
t(ms.Tensor(np.ones((3, HIDDEN), np.float32)))


@ms.jit
def step(x):
    tm.sleep(0)
    return int(x) + 1


step(3)
"""


def _with_edits(on: set[int]) -> str:
    text = FACTS_BASE
    for k in sorted(on):
        old, new = FACT_EDITS[k]
        text = text.replace(old, new, 1)
    return text


def test_edits_of_helpers_imports_constants_call_sites_and_context_analyse_as_from_scratch(api):
    rng = random.Random("facts")
    pair = Pair(api)
    on: set[int] = set()
    pair.check(from_text("file:///f.py", FACTS_BASE, 1), rng)
    for version in range(2, 400):
        on ^= {rng.randrange(len(FACT_EDITS))}
        pair.check(from_text("file:///f.py", _with_edits(on), version), rng)
    assert pair.local > 350


@pytest.mark.parametrize("first, then", [(12, 5), (13, 5), (2, 3), (11, 8), (16, 4), (6, 7), (19, 18), (20, 18)])
def test_a_use_then_what_gives_it_meaning_analyse_as_from_scratch(api, first, then):
    """The order the random toggles may miss: a statement whose meaning an edit elsewhere changes is kept
    from an earlier version (a training wrapper's call, then the import naming it; a helper's call, then the
    helper's body; a call site, then a constant's second binding; a jit function's call with a tensor, then
    the import that makes a call in it time's)."""
    pair = Pair(api)
    rng = random.Random(first * 100 + then)
    for version, on in enumerate([set(), {first}, {first, then}, {then}, set()], start=1):
        pair.check(from_text("file:///u.py", _with_edits(on), version), rng)
    assert pair.local == 4
