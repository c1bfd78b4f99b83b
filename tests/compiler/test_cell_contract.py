"""The Cell/compiler contract: the compiler sees a Cell only through its public methods, owns
compiling and caching, and one test (`is_engine_code`) decides what is Spore's own code."""

import ast
import copy
import pathlib
import pickle
from collections import namedtuple

import numpy as np
import pytest

import spore as ms
from spore import context, nn, ops
from spore.common import tree
from spore.compiler.jit import compile_cell
from spore.errors import GraphBreakWarning, GraphCompileError, is_engine_code
from spore.profiler import Profiler

ENGINE = pathlib.Path(ms.__file__).parent


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x) * 2


class Printing(nn.Cell):
    def construct(self, x):
        print("value", x)
        return x + 1


def _x():
    return ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))


def test_run_eager_runs_hooks_and_casts_and_never_compiles():
    net = Net()
    seen = []
    net.register_forward_pre_hook(lambda cell, args: seen.append("pre"))
    net.register_forward_hook(lambda cell, args, out: seen.append("post"))
    net.to_float(ms.float16)
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net.run_eager(_x())
    assert seen == ["pre", "post"] and out.dtype == ms.float16
    assert net.compiled_construct is None


def test_hooks_cast_type_and_input_cast_describe_the_cell():
    net = Net()
    assert not net.has_hooks and net.cast_type is None
    args = (_x(), 1.5, [_x()])
    assert net.input_cast(args) is args
    handle = net.register_forward_hook(lambda cell, args, out: None)
    assert net.has_hooks
    handle.remove()
    assert not net.has_hooks
    net.to_float(ms.float16)
    assert net.cast_type is ms.float16
    cast = net.input_cast((_x(), 1.5, [_x()], 3))
    assert cast[0].dtype == ms.float16 and cast[1].dtype == ms.float16 and cast[2][0].dtype == ms.float16
    assert cast[3] == 3


def test_the_compiled_construct_is_kept_dropped_and_rebuilt():
    net = Net()
    want = net(_x()).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(_x()).asnumpy(), want, rtol=1e-6)
    jf = net.compiled_construct
    assert jf is not None and jf.cache
    net(_x())
    assert net.compiled_construct is jf
    net.drop_compiled()
    assert net.compiled_construct is None
    np.testing.assert_allclose(net(_x()).asnumpy(), want, rtol=1e-6)
    assert net.compiled_construct is not jf


def test_copies_leave_compiled_graphs_behind_and_compile_their_own():
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    want = net(_x()).asnumpy()
    for twin in (copy.deepcopy(net), copy.copy(net), pickle.loads(pickle.dumps(net))):
        assert twin.compiled_construct is None and net.compiled_construct is not None
        np.testing.assert_allclose(twin(_x()).asnumpy(), want, rtol=1e-6)
        assert twin.compiled_construct.self_obj is twin


def test_compile_cell_fullgraph_refuses_what_graph_mode_would_break():
    cell = Printing()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.warns(GraphBreakWarning):
        assert cell(ms.Tensor(1.0)).asnumpy() == 2.0  # LAX: a graph break
    with pytest.raises(GraphCompileError):
        compile_cell(Printing(), fullgraph=True)(ms.Tensor(1.0))


def test_is_engine_code_is_one_test_for_every_kind_of_object():
    def user_fn():
        pass

    assert is_engine_code(nn.Dense) and is_engine_code(nn.Dense.construct) and is_engine_code(ops.matmul)
    assert is_engine_code(nn.Dense(2, 2).construct) and is_engine_code(nn.Dense.construct.__code__)
    assert is_engine_code(nn.__file__) and is_engine_code(str(ENGINE / ".." / "spore" / "tensor.py"))
    assert not is_engine_code(Net) and not is_engine_code(Net.construct) and not is_engine_code(Net().construct)
    assert not is_engine_code(user_fn) and not is_engine_code(user_fn.__code__) and not is_engine_code(__file__)
    assert not is_engine_code("<stdin>") and not is_engine_code(np.add)


def _add_one(x):
    return x + 1


def test_call_state_listeners_hear_mode_compilation_and_profiler_changes(tmp_path):
    calls = []
    listener = context.on_call_state_change(lambda: calls.append(1))
    try:
        calls.clear()
        ms.set_context(mode=ms.GRAPH_MODE)
        assert calls
        calls.clear()
        ms.jit(_add_one)(ms.Tensor(1.0))  # a compilation starts and ends
        assert len(calls) >= 2
        calls.clear()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        prof = Profiler(output_path=str(tmp_path))
        prof.stop()
        assert len(calls) >= 3
    finally:
        context._CALL_STATE_LISTENERS.remove(listener)


def test_compiler_code_uses_only_the_cells_public_contract():
    private_cell_keys = {"_forward_pre_hooks", "_forward_hooks", "_cast_type", "_plain", "_graph_fn", "_params",
                         "_cells", "_name_prefix"}
    for path in sorted((ENGINE / "compiler").rglob("*.py")):
        tree_ = ast.parse(path.read_text())
        for node in ast.walk(tree_):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("nn.cell"):
                bad = [a.name for a in node.names if a.name.startswith("_")]
                assert not bad, f"{path.name}:{node.lineno} imports {bad} from nn.cell"
            if isinstance(node, ast.Constant) and node.value in private_cell_keys:
                raise AssertionError(f"{path.name}:{node.lineno} reads a Cell's {node.value!r}")
            if isinstance(node, ast.Attribute) and node.attr in ("_run_construct", "_call_with_extras"):
                raise AssertionError(f"{path.name}:{node.lineno} calls Cell.{node.attr}")


Point = namedtuple("Point", "x y")


def test_one_tree_flattens_and_rebuilds_nested_structures():
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros(4, np.int32))
    value = ((a, 3, "s"), [b, {"k": a, "n": None}], Point(a, 1.5))
    leaves, t = tree.flatten(value)
    assert [id(x) for x in leaves] == [id(a), id(b), id(a), id(a)]
    hash(t)
    back = tree.unflatten(t, leaves)
    assert isinstance(back[2], Point) and back[1][1]["k"] is a and back[0][1:] == (3, "s")
    assert tree.flatten(value)[1] == t
    other = ((b, 3, "s"), [a, {"k": b, "n": None}], Point(b, 1.5))
    assert tree.flatten(other)[1] != t and tree.layout(tree.flatten(other)[1]) == tree.layout(t)
    assert [id(x) for x in tree.tensors(value)] == [id(a), id(b), id(a)]  # tuples and lists only
    assert tree.map_leaves(lambda v: v * 2 if isinstance(v, int) else v, (1, [2, (3,)])) == (2, [4, (6,)])
