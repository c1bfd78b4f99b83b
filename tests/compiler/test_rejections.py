"""Every construct in the support table is rejected on the user's line: the GraphCompileError names
the file and line (marked `# <- here` below), carries the table's hint, and its traceback ends in a
frame at that line."""

import inspect
import time
import traceback

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.compiler.jit import jit
from spore.compiler.support import RULES
from spore.errors import GraphCompileError
from spore.ops import functional as F

COUNTER = 0


def r_try(x):
    try:  # <- here
        x = x + 1.0
    except ValueError:
        pass
    return x


def r_with(x):
    with open(__file__) as fh:  # <- here
        del fh
    return x


def r_generator(x):
    yield x  # <- here


async def r_async(x):
    await x  # <- here
    return x


def r_global(x):
    global COUNTER  # <- here
    COUNTER += 1
    return x


OUTER_LAMBDA = lambda y: y * 2.0  # noqa: E731


def r_outer_lambda(x):
    return OUTER_LAMBDA(x)  # <- here


def r_class_def(x):
    class Local:  # <- here
        pass
    return x


def r_value_dependent_shape(x):
    return F.masked_select(x, x > 0)  # <- here


def r_import(x):
    import math  # <- here
    return x * math.pi


def r_impure_call(x):
    return x * time.time()  # <- here


def r_print(x):
    print(x)  # <- here
    return x


def r_python_value_of_tensor(x):
    return x * x.item()  # <- here


def r_dynamic_raise(x):
    if x.shape[0] > 100:
        raise ValueError(f"too big: {x.shape}")  # <- here
    return x


def r_tensor_break(x):
    for _ in range(3):
        if F.reduce_sum(x) > 0:  # <- here
            break
        x = x + 1.0
    return x


class _Opaque:
    def __call__(self, x):
        return x


OPAQUE = _Opaque()


def r_unsupported_call(x):
    return OPAQUE(x)  # <- here


def r_unsupported_syntax(x):
    match x.ndim:  # <- here
        case 1:
            return x
    return x


FUNCTION_CASES = {name[2:]: fn for name, fn in dict(globals()).items() if name.startswith("r_")}


class SelfAssign(nn.Cell):
    def construct(self, x):
        self.last = x * 2.0  # <- here
        return x


class ContainerMutation(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cache = []

    def construct(self, x):
        self.cache.append(x)  # <- here
        return x


class Hooked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.ReLU()
        self.inner.register_forward_hook(lambda cell, args, out: out)

    def construct(self, x):
        return self.inner(x)  # <- here


CELL_CASES = {"self_assign": SelfAssign, "container_mutation": ContainerMutation, "cell_hook": Hooked}


def _marked_line(obj) -> int:
    src, first = inspect.getsourcelines(obj)
    marked = [first + i for i, line in enumerate(src) if "# <- here" in line]
    assert len(marked) == 1
    return marked[0]


def test_every_rule_in_the_table_has_a_case_here():
    assert set(RULES) == set(FUNCTION_CASES) | set(CELL_CASES)


def _check(err: GraphCompileError, tb, rule: str, line: int) -> None:
    assert err.rule == rule
    assert err.loc.file == __file__ and err.loc.line == line
    assert err.hint == RULES[rule].fix
    text = str(err)
    assert f"{__file__}:{line}" in text and "hint:" in text and "^" in text
    last = traceback.extract_tb(tb)[-1]
    assert (last.filename, last.lineno) == (__file__, line), "the traceback ends at the user's line"


@pytest.mark.parametrize("rule", sorted(FUNCTION_CASES))
def test_rejected_in_a_jit_function(rule):
    fn = FUNCTION_CASES[rule]
    with pytest.raises(GraphCompileError) as info:
        jit(fn, fullgraph=True)(ms.Tensor(np.ones(2, np.float32)))
    _check(info.value, info.tb, rule, _marked_line(fn))


@pytest.mark.parametrize("rule", sorted(CELL_CASES))
def test_rejected_in_a_graph_mode_cell(rule):
    cls = CELL_CASES[rule]
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(GraphCompileError) as info:
        cls()(ms.Tensor(np.ones(2, np.float32)))
    _check(info.value, info.tb, rule, _marked_line(cls))


def test_same_cells_run_in_pynative():
    for cls in (SelfAssign, ContainerMutation, Hooked):
        out = cls()(ms.Tensor(np.ones(2, np.float32)))
        np.testing.assert_array_equal(out.asnumpy(), [1.0, 1.0])


SCRIPT = '''import numpy as np
import spore as ms
from spore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = x + 1.0
        self.last = y
        return y


ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
Net()(ms.Tensor(np.ones(2, np.float32)))
'''


def _run_script(tmp_path, env_extra):
    import os
    import subprocess
    import sys

    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)


def test_plain_python_traceback_shows_only_the_users_frames(tmp_path):
    proc = _run_script(tmp_path, {"SPORE_TRACEBACK": ""})
    assert proc.returncode == 1
    frames = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip().startswith('File "')]
    assert len(frames) == 2 and all("user_script.py" in f for f in frames), proc.stderr
    assert frames[-1].endswith("line 9, in Net.construct"), proc.stderr
    assert "hint: return the value from construct" in proc.stderr


def test_spore_traceback_full_keeps_engine_frames(tmp_path):
    proc = _run_script(tmp_path, {"SPORE_TRACEBACK": "full"})
    assert proc.returncode == 1
    assert "engine/spore" in proc.stderr or "spore/compiler" in proc.stderr
