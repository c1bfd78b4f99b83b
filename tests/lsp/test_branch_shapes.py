"""Graph mode's refusal of a tensor `if` that leaves a variable with two shapes (`graph-tensor_if`), checked
against the real engine: each program is compiled in GRAPH_MODE under STRICT (the engine's GraphCompileError
gives the rule and the line) and under LAX (a GraphBreakWarning with the rule, inside the `if`), and the
server must report the same rule on the same line with the severity the file's mode implies — and stay
silent wherever the engine compiles the program or the shapes are not certain."""

from __future__ import annotations

import ast
import importlib.util
import itertools
import random
import re
import sys
import warnings

import numpy as np
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

import spore as ms
from spore_lsp import branch_shapes, shapes
from spore_lsp.analysis import Analysis, analyse
from spore_lsp.documents import from_text
from spore_lsp.shapes.values import BranchShapes

from .helpers import by_code, change_text, open_and_diagnose, uri_for, wait_diagnostics
from .test_shapes_random import generate

HEAD = "import os\nimport numpy as np\nimport spore as ms\nfrom spore import nn, ops\n"
MODE = "{mode}\n\n\n"
INIT = '''class Net(nn.Cell):
    def __init__(self, mode=1):
        super().__init__()
        self.fc = nn.Dense(4, 8)
        self.wide = nn.Dense(4, 16)
        self.other = nn.Dense(4, 8)
        self.mode = mode

    def construct(self, x):
'''
CALL = "\n\nnet = Net()\nout = net(ms.Tensor(np.ones((2, 4), np.float32)))\n"
_mods = itertools.count()


def program(body: str, mode: str = "", call: str = CALL) -> str:
    """A file: the set_context line (or a blank one), Net with `body` as its construct, and a call site."""
    lines = "".join(" " * 8 + line + "\n" if line else "\n" for line in body.split("\n"))
    return HEAD + MODE.format(mode=mode) + INIT + lines + call


GRAPH_STRICT = "ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)"
GRAPH_LAX = "ms.set_context(mode=ms.GRAPH_MODE)"

# refused: the engine raises tensor_if on the `if` (the marked line) whether or not the variable is read after
REFUSED = {
    "a layer widens it in one branch, no else": "z = x\nif x.sum() > 0:  # here\n    z = self.fc(x)\nreturn z",
    "nothing reads it after the if": "z = x\nif x.sum() > 0:  # here\n    z = self.fc(x)\nw = x * 2\nreturn w",
    "two layers of different widths": "if x.sum() > 0:  # here\n    z = self.fc(x)\nelse:\n    z = self.wide(x)\n"
                                      "return z.sum()",
    "a reshape changes the rank": "h = x\nif x.mean() > 0.5:  # here\n    h = x.reshape(-1)\nreturn h.sum()",
    "two variables, the first the compiler compares": "if x.sum() > 0:  # here\n    a = self.fc(x)\n    b = x\n"
                                                      "else:\n    a = x\n    b = self.fc(x)\nreturn a.sum() + b.sum()",
    "a dtype differs": "z = x\nif x.sum() > 0:  # here\n    z = ops.cast(x, ms.float16)\nreturn z",
    "in an unrolled loop": "h = x\nfor i in range(2):\n    if h.sum() > 0:  # here\n        h = ops.concat((h, h), 1)\n"
                           "return h",
    "an elif": "z = x\nif x.sum() > 100:\n    z = x * 2\nelif x.sum() > 0:  # here\n    z = self.fc(x)\nreturn z",
}

# accepted by the engine (compiled here under STRICT), or not certain: the server says nothing
ACCEPTED = {
    "same shapes on both branches": "if x.sum() > 0:\n    z = self.fc(x)\nelse:\n    z = self.other(x)\nreturn z",
    "a return in the if (the rest is compiled on each path)": "z = x\nif x.sum() > 0:\n    z = self.fc(x)\n"
                                                               "    return z.sum()\nreturn z.sum()",
    "a return nested in the branch (the compiler compares only what is returned)":
        "z = x\nif x.sum() > 0:\n    z = self.fc(x)\n    if self.mode == 2:\n        return x.sum()\nreturn z.sum()",
    "a static if on a shape": "z = x\nif x.shape[1] == 4:\n    z = self.fc(x)\nreturn z",
    "a static if on a flag": "z = x\nif self.mode == 2:\n    z = self.fc(x)\nreturn z",
}


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def analysed(text: str) -> Analysis:
    """The server's own analysis in this process, with the checks that need the engine (as with the API index)."""
    an = analyse(from_text("file:///branches.py", text, 1), None)
    shapes.check(an)
    branch_shapes.check(an)
    assert not an.errors
    return an


def found(an: Analysis) -> list[tuple[int, str]]:
    return [(i.line + 1, i.severity) for i in an.issues if i.code == "graph-tensor_if"]


def engine(tmp_path, text: str, level: int, *args, cls: str = "Net", ctor: tuple = (),
           mode: int = ms.GRAPH_MODE) -> tuple[str, int] | None:
    """Compile `cls(*ctor)(*args)` in `mode` at `level` with the real engine, from a file holding `text`
    (its own call site and set_context left out, the lines kept): (rule, line) of the refusal (STRICT) or of
    the graph break (LAX), ("fallback", 0) when a @ms.jit function runs in PyNative instead, None when it
    compiles whole."""
    path = tmp_path / f"branch_oracle_{next(_mods)}.py"
    path.write_text(text.split("\n\nnet = ")[0].replace("ms.set_context(", "dict(") + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_context(mode=mode, jit_syntax_level=level)
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                getattr(module, cls)(*ctor)(*args)
            except ms.errors.GraphCompileError as err:
                return err.rule, err.loc.line
        for w in seen:
            if issubclass(w.category, ms.errors.GraphBreakWarning):
                m = re.search(r"\((\w+)\); the statement at", str(w.message))
                return (m.group(1) if m else "?"), w.lineno
            if issubclass(w.category, ms.errors.GraphFallbackWarning) and "in the if branch but" in str(w.message):
                return "fallback", 0
        return None
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
        sys.modules.pop(spec.name, None)


def x24():
    return ms.Tensor(np.ones((2, 4), np.float32))


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_server_reports_tensor_if_where_the_engine_refuses_it(tmp_path, name):
    text = program(REFUSED[name], GRAPH_STRICT)
    line = line_of(text, "# here")
    assert engine(tmp_path, text, ms.STRICT, x24()) == ("tensor_if", line)
    assert found(analysed(text)) == [(line, "error")]
    # under LAX the engine breaks the graph inside that if (its header runs in Python): a warning there
    lax = program(REFUSED[name], GRAPH_LAX)
    rule, at = engine(tmp_path, lax, ms.LAX, x24())
    end = next(n.end_lineno for n in ast.walk(ast.parse(lax)) if isinstance(n, ast.If) and n.lineno == line)
    assert rule == "tensor_if" and line <= at <= end
    assert found(analysed(lax)) == [(line, "warning")]


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_code_the_engine_compiles_gets_no_tensor_if(tmp_path, name):
    text = program(ACCEPTED[name], GRAPH_STRICT)
    assert engine(tmp_path, text, ms.STRICT, x24()) is None
    assert found(analysed(text)) == []


def test_the_message_names_the_variable_both_shapes_and_the_fix():
    text = program(REFUSED["two variables, the first the compiler compares"], GRAPH_STRICT)
    (issue,) = [i for i in analysed(text).issues if i.code == "graph-tensor_if"]
    assert "'a' is (2, 8) f32 in the if branch but (2, 4) f32 in the else branch" in issue.message
    assert "'b' ((2, 4) f32 against (2, 8) f32)" in issue.message
    assert "make both branches produce the same shape for 'a' and 'b'" in issue.message
    assert "ms.set_context(mode=ms.PYNATIVE_MODE)" in issue.message and "GraphCompileError" in issue.message
    assert issue.data["rule"] == "tensor_if" and issue.data["variable"] == "a"
    header = text.split("\n")[issue.line]
    assert header[issue.col:issue.end_col] == "if x.sum() > 0:", "the header, not the comment after it"


def test_a_pynative_file_hears_it_as_information_and_runs():
    text = program(REFUSED["a layer widens it in one branch, no else"])
    assert found(analysed(text)) == [(line_of(text, "# here"), "information")]
    ns: dict = {}
    exec(compile(text, "<pynative>", "exec"), ns)  # noqa: S102 - the test's own program, in PyNative
    assert tuple(ns["out"].shape) == (2, 8)


def test_a_jit_construct_under_strict_falls_back_to_pynative_and_fullgraph_refuses(tmp_path):
    body = REFUSED["a layer widens it in one branch, no else"]
    text = program(body, "ms.set_context(jit_syntax_level=ms.STRICT)").replace(
        "    def construct(self, x):", "    @ms.jit\n    def construct(self, x):")
    assert found(analysed(text)) == [(line_of(text, "# here"), "warning")]
    assert engine(tmp_path, text, ms.STRICT, x24(), mode=ms.PYNATIVE_MODE) == ("fallback", 0)
    full = text.replace("@ms.jit\n", "@ms.jit(fullgraph=True)\n")
    assert found(analysed(full)) == [(line_of(full, "# here"), "error")]
    assert engine(tmp_path, full, ms.STRICT, x24(), mode=ms.PYNATIVE_MODE) == ("tensor_if", line_of(full, "# here"))


def test_a_name_bound_in_one_branch_only_is_the_first_refusal_and_is_not_reported_twice(tmp_path):
    body = "z = x\nif x.sum() > 0:  # here\n    t = self.fc(x)\n    z = t\nreturn z"
    text = program(body, GRAPH_STRICT)
    line = line_of(text, "# here")
    assert engine(tmp_path, text, ms.STRICT, x24()) == ("tensor_if", line)
    (issue,) = [i for i in analysed(text).issues if i.code == "graph-tensor_if"]
    assert issue.line + 1 == line and "'t' is assigned in only one branch" in issue.message


def test_a_condition_of_many_elements_is_the_compilers_other_refusal(tmp_path):
    text = program("z = x\nif x > 0:\n    z = self.fc(x)\nreturn z", GRAPH_STRICT)
    assert engine(tmp_path, text, ms.STRICT, x24()) == ("tensor_condition", line_of(text, "if x > 0"))
    assert found(analysed(text)) == []


def test_symbolic_shapes_that_could_be_equal_stay_silent_and_certain_differences_are_reported(tmp_path):
    two = program("z = x\nif x.sum() > 0:\n    z = y\nreturn z", GRAPH_STRICT, call="\n").replace(
        "def construct(self, x):", "def construct(self, x, y):  # spore: input_shape=((B, 4), (4, 4))")
    assert found(analysed(two)) == []
    # B = 4 compiles, so a report would be a false alarm on some input
    square = ms.Tensor(np.ones((4, 4), np.float32))
    assert engine(tmp_path, two, ms.STRICT, square, square) is None
    one = program("z = x\nif x.sum() > 0:  # here\n    z = self.fc(x)\nreturn z", GRAPH_STRICT, call="\n").replace(
        "def construct(self, x):", "def construct(self, x):  # spore: input_shape=(B, 4)")
    assert found(analysed(one)) == [(line_of(one, "# here"), "error")]  # (B, 8) against (B, 4) for any B
    assert engine(tmp_path, one, ms.STRICT, ms.Tensor(np.ones((3, 4), np.float32)))[0] == "tensor_if"


def test_an_if_inside_a_branch_the_check_cannot_decide_is_not_reported(tmp_path):
    body = "z = x\nif self.mode == 1:\n    if x.sum() > 0:\n        z = self.fc(x)\nreturn z"
    text = program(body, GRAPH_STRICT, call="\n\nnet = Net(int(os.environ.get('SPORE_MODE', '2')))\n"
                                            "out = net(ms.Tensor(np.ones((2, 4), np.float32)))\n")
    assert found(analysed(text)) == []
    assert engine(tmp_path, text, ms.STRICT, x24(), ctor=(2,)) is None  # the inner if is never compiled


@pytest.mark.parametrize("then, orelse, sure", [
    ("(2, 8) f32", "(2, 4) f32", True), ("(8,) f32", "(2, 4) f32", True), ("(B, 8) f32", "(B, 4) f32", True),
    ("(2, ?) f32", "(2, 4) f32", False), ("(2, 8) f32 | (2, 4) f32", "(2, 4) f32", False),
    ("(B, 4) f32", "(4, 4) f32", False), ("(2, 4) f32", "(2, 4) f32", False), ("(2, 4) f16", "(2, 4) f32", True),
])
def test_only_certain_differences_count(then, orelse, sure):
    an = analyse(from_text("file:///labels.py", "import spore\n", 1), None)
    assert branch_shapes._differs(BranchShapes(0, "z", then, orelse), an, []) is sure
    commented = analyse(from_text("file:///labels.py", "x = 1  # spore: input_shape=(2, 4)\n", 1), None)
    assert branch_shapes._differs(BranchShapes(0, "z", then, orelse), commented, []) is (sure and "f16" not in then)


# ---- over stdio: the real server ----------------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_over_stdio_the_severity_follows_the_mode_and_a_fix_clears_it(client: LanguageClient):
    body = REFUSED["two layers of different widths"]
    for mode, severity in ((GRAPH_STRICT, types.DiagnosticSeverity.Error),
                           (GRAPH_LAX, types.DiagnosticSeverity.Warning),
                           ("", types.DiagnosticSeverity.Information)):
        text = program(body, mode)
        uri, diags = await open_and_diagnose(client, "branches.py", text,
                                             lambda ds: bool(by_code(ds, "graph-tensor_if")))
        (d,) = by_code(diags, "graph-tensor_if")
        assert d.range.start.line + 1 == line_of(text, "# here") and d.severity == severity, mode
        assert d.source == "spore" and "'z' is (2, 8) f32 in the if branch but (2, 16) f32" in d.message
        assert not by_code(diags, "shape-mismatch")
    fixed = text.replace("self.wide(x)", "self.other(x)")
    change_text(client, uri, fixed, 2)
    diags = await wait_diagnostics(client, uri, lambda ds: not by_code(ds, "graph-tensor_if"))
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error]


@pytest.mark.asyncio(loop_scope="module")
async def test_over_stdio_in_a_notebook_it_lands_on_its_cell_with_the_mode_of_an_earlier_cell(client: LanguageClient):
    setup = HEAD + GRAPH_LAX + "\n"
    cell = INIT + "".join(" " * 8 + line + "\n" for line in REFUSED["an elif"].split("\n"))
    nb = uri_for("branches.ipynb")
    uris = [f"{nb}#cell{i}" for i in range(3)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, [setup, cell, CALL.strip() + "\n"])]))
    diags = await wait_diagnostics(client, uris[1], lambda ds: bool(by_code(ds, "graph-tensor_if")))
    (d,) = by_code(diags, "graph-tensor_if")
    assert d.range.start.line == cell.split("\n").index("        elif x.sum() > 0:  # here"), "cell-relative"
    assert d.range.start.character == 8 and d.range.end.character == len("        elif x.sum() > 0:")
    assert d.severity == types.DiagnosticSeverity.Warning, "GRAPH_MODE (LAX) set in cell 1"


# ---- random networks: the engine's first refusal, round after round ----------------------------------------
N_RANDOM = 40


@pytest.mark.parametrize("seed", range(N_RANDOM))
def test_a_random_network_gets_tensor_if_only_where_graph_mode_refuses_it(tmp_path, seed):
    """test_shapes_random's networks (ifs and whiles on run-time conditions over two variables), compiled in
    GRAPH_MODE under STRICT. Graph mode compares an if's variables right after tracing its branches, so an if
    that ends before the engine's first refusal was accepted: a flag there is a false alarm. A refused line is
    then neutralised (an if made static, a while never entered, a statement a `pass`) and the next round runs:
    each flag is the engine's refusal on its line, or goes once an earlier line changed. (Offline, 500 seeds:
    see the README's numbers.)"""
    text, n_conds = generate(random.Random(seed))
    conds = [ms.Tensor(np.array(1.0, np.float32))] * n_conds
    for _ in range(8):
        flagged = {line for line, _ in found(analysed(text))}
        first = engine(tmp_path, text, ms.STRICT, x24(), *conds)
        if first is None:
            assert not flagged, f"flagged {flagged}, Graph mode compiles it:\n{text}"
            return
        _, line = first
        ends = {n.lineno: n.end_lineno for n in ast.walk(ast.parse(text)) if isinstance(n, ast.If)}
        assert not [f for f in flagged if ends[f] < line], f"flagged {flagged}, accepted before line {line}:\n{text}"
        lines = text.split("\n")
        stmt = lines[line - 1].lstrip()
        indent = lines[line - 1][:len(lines[line - 1]) - len(stmt)]
        lines[line - 1] = indent + ("if True:" if stmt.startswith("if") else "while False:"
                                    if stmt.startswith("while") else "pass")
        text = "\n".join(lines)
    raise AssertionError(f"not settled after eight rounds:\n{text}")
