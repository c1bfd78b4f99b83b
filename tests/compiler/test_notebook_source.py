"""Classes defined in a notebook cell compile: the frontend reads source the way IPython keeps it
(in linecache, under the cell's pseudo file name), not from a file on disk."""

import linecache

import numpy as np
import pytest

import spore as ms

CELL = '''
import spore as ms
from spore import nn

class CellNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        y = self.fc(x)
        try:
            y = y + 1
        except ValueError:
            pass
        return y

class GoodNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        if x.shape[0] > 1:
            return self.fc(x) * 2.0
        return self.fc(x)
'''


def run_cell(source: str, name: str) -> dict:
    """What IPython does with a cell: register its text in linecache, compile under that name, run it."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, name, "exec"), namespace)  # the test's own constant source, as IPython would run a cell
    return namespace


def test_cell_defined_network_compiles_and_matches_pynative():
    ns = run_cell(CELL, "<ipython-input-7-0123456789ab>")
    net = ns["GoodNet"]()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-6)
    assert net.compiled_construct.cache


def test_compile_error_points_into_the_notebook_cell():
    name = "<ipython-input-8-fedcba987654>"
    ns = run_cell(CELL, name)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(ms.GraphCompileError) as info:
        ns["CellNet"]()(ms.Tensor(np.ones((2, 3), np.float32)))
    err = info.value
    assert err.loc.file == name
    assert CELL.splitlines()[err.loc.line - 1].strip() == "try:"
    assert "try:" in str(err) and "hint:" in str(err)
