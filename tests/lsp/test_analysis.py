"""The per-document analysis, in process: the support check over only the compiled functions finds exactly
what the whole-file check finds; set_context facts; notebook line mapping; the last good parse is kept."""

from pathlib import Path

import pytest

from spore import ide
from spore_lsp import graph_rules
from spore_lsp.analysis import AnalysisCache, analyse
from spore_lsp.documents import from_cells, from_text

ROOT = Path(__file__).resolve().parents[2]
NESTED = ("import spore as ms\nfrom spore import nn\nclass A(nn.Cell):\n    def construct(self, x):\n"
          "        class B(nn.Cell):\n            def construct(self, y):\n                print(y)\n"
          "        print(x)\n        return x\n")
SOURCES = sorted(ROOT.glob("tests/compiler/*.py")) + sorted(ROOT.glob("examples/*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_checking_only_the_compiled_functions_finds_what_the_whole_file_check_finds(path):
    text = path.read_text()
    an = analyse(from_text("file:///x.py", text, 1), None)
    assert ide.check(graph_rules._compiled_only(an)) == ide.check(text)
    assert graph_rules.findings(an) == ide.check(text), "function by function, as cached"
    moved = "\n\n\n" + text  # every function three lines down: cached findings are re-used, moved with them
    assert graph_rules.findings(analyse(from_text("file:///x.py", moved, 2), None)) == ide.check(moved)


def test_a_cell_nested_in_construct_is_checked_once():
    an = analyse(from_text("file:///x.py", NESTED, 1), None)
    assert ide.check(graph_rules._compiled_only(an)) == ide.check(NESTED) == graph_rules.findings(an)
    assert [(i.code, i.line) for i in an.issues] == [("graph-class_def", 4), ("graph-print", 6), ("graph-print", 7)]


def test_context_facts_in_a_file_and_in_a_notebook():
    text = "import spore as ms\nms.set_context(mode=ms.GRAPH_MODE)\nms.set_context(jit_syntax_level=ms.STRICT)\n"
    an = analyse(from_text("file:///x.py", text, 1), None)
    assert an.context_before(0) == ("GRAPH_MODE", "STRICT"), "a file: its last set_context applies"
    nb = from_cells("file:///n.ipynb", 1, [("c1", "import spore as ms\n", 1), ("c2", "x = 1\ny = 2\n", 1),
                                           ("c3", "ms.set_context(mode=0)\n", 1)])
    an = analyse(nb, None)
    assert an.context_before(1) == ("PYNATIVE_MODE", "LAX"), "a later cell has not run yet"
    assert an.context_before(3) == ("GRAPH_MODE", "LAX")
    assert [nb.to_local(i) for i in range(4)] == [("c1", 0), ("c2", 0), ("c2", 1), ("c3", 0)]
    assert nb.to_program("c3", 0) == 3


def test_the_cache_analyses_once_per_version_and_keeps_the_last_good_parse():
    cache = AnalysisCache()
    good = from_text("file:///x.py", NESTED, 1)
    first = cache.get(good)
    assert cache.get(from_text("file:///x.py", NESTED, 1)) is first
    broken = cache.get(from_text("file:///x.py", NESTED + "def (:\n", 2))
    assert broken.stale and broken.syntax_error[0] == NESTED.count("\n")
    assert [i.code for i in broken.issues] == [i.code for i in first.issues]


def test_a_failing_handler_is_logged_and_answered_with_its_default():
    from lsprotocol import types

    from spore_lsp.server import guarded

    class FakeServer:
        def __init__(self):
            self.logged = []

        def log(self, message, kind):
            self.logged.append((message, kind))

    @guarded(default=[])
    def handler(ls, params):
        raise KeyError("boom")

    ls = FakeServer()
    assert handler(ls, None) == []
    ((message, kind),) = ls.logged
    assert "handler failed" in message and "KeyError: 'boom'" in message and kind == types.MessageType.Error
