"""Graph mode and `jit` on wrong inputs (issue 15, "Errors on wrong inputs"): a NumPy array or other
unhashable value is refused on the user's call naming the argument, never passed in as its repr();
an error raised inside one of Spore's layers names the user's line that reached it and the layer's
Cell path. Graph mode stays PyNative's behaviour or refuses on the user's line."""

import inspect
import traceback
import warnings

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import Tensor
from spore.errors import GraphBreakWarning, GraphCompileError, InputTypeError


def here() -> int:
    return inspect.currentframe().f_back.f_lineno


def arr(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


def line_of(fn, text: str) -> int:
    """The file line of the first line of `fn`'s source containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def last_frame(err: BaseException) -> tuple[str, int]:
    tb = traceback.extract_tb(err.__traceback__)[-1]
    return tb.filename, tb.lineno


# --- jit functions ------------------------------------------------------------------------------
@pytest.mark.parametrize("fullgraph", [False, True])
def test_a_jit_function_given_a_numpy_array_refuses_it_and_never_returns_a_string(fullgraph):
    @ms.jit(fullgraph=fullgraph)
    def f(a):
        return a * 2

    with pytest.raises(InputTypeError) as info:
        line = here(); f(arr(3))  # noqa: E702
    err = info.value
    assert str(err).splitlines()[0] == f"expected a Tensor, got numpy.ndarray for argument `a` of {f.name}"
    assert (err.loc.file, err.loc.line) == (__file__, line)
    assert last_frame(err) == (__file__, line)  # the traceback ends on the user's call
    assert "ms.Tensor(a)" in err.hint
    np.testing.assert_array_equal(f(Tensor(arr(3))).asnumpy(), 2 * arr(3))  # a Tensor still compiles


def test_the_argument_is_named_by_its_path_inside_tuples_lists_and_dicts():
    @ms.jit
    def g(pair, opts=None):
        return pair[0] + pair[1]

    with pytest.raises(InputTypeError, match=r"argument `pair\[1\]` of"):
        g((Tensor(arr(2)), arr(2)))
    with pytest.raises(InputTypeError, match=r"argument `opts\['w'\]` of"):
        g((Tensor(arr(2)), Tensor(arr(2))), opts={"w": arr(2)})


def test_other_unhashable_values_are_refused_with_what_a_compiled_function_takes():
    @ms.jit
    def h(x, s):
        return x * len(s)

    with pytest.raises(InputTypeError) as info:
        h(Tensor(arr(2)), {1, 2})
    assert info.value.actual == "set" and "numbers, strings, None" in info.value.hint


def test_lists_and_tuples_of_numbers_are_python_values_as_in_pynative():
    """MindSpore takes tuples/lists of numbers as a compiled function's inputs; Spore compiles for
    their value, so the result is what the Python function gives."""
    def f(a):
        return a * 2

    jf = ms.jit(f)
    assert jf([1.0, 2.0]) == f([1.0, 2.0]) == [1.0, 2.0, 1.0, 2.0]
    assert jf((1, 2)) == f((1, 2))
    assert jf(3.0) == 6.0


def test_a_function_that_fell_back_to_pynative_refuses_arrays_too():
    @ms.jit
    def f(x):
        print("side effect")  # a graph break: this function runs in segments
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f(Tensor(arr(2))).shape == (2,)
        with pytest.raises(InputTypeError, match="argument `x` of"):
            f(arr(2))


def test_a_python_array_alive_across_a_graph_break_is_the_array_itself():
    """A compiled segment whose live variables hold an unhashable value runs as Python (PyNative's
    exact behaviour): the value is never replaced by its repr()."""
    @ms.jit
    def g(x):
        a = np.arange(3, dtype=np.float32)
        print("break")
        y = x + 1
        return y, a

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, a = g(Tensor(arr(3)))
        y2, a2 = g(Tensor(arr(3)))
    assert isinstance(a, np.ndarray) and isinstance(a2, np.ndarray) and a2 is not a
    np.testing.assert_array_equal(a, np.arange(3))
    np.testing.assert_array_equal(y.asnumpy(), 2 * arr(3))


def test_a_fullgraph_function_returning_a_numpy_array_is_refused_on_the_call():
    """The graph would return the one array made while compiling on every call (a write into it would
    show in the next call's result); the Python function makes a new one each time."""
    @ms.jit(fullgraph=True)
    def h(x):
        return x + 1, np.arange(2)

    with pytest.raises(GraphCompileError) as info:
        line = here(); h(Tensor(arr(2)))  # noqa: E702
    assert "returns a numpy.ndarray" in info.value.reason and info.value.loc.line == line


# --- Graph-mode Cells ---------------------------------------------------------------------------
@pytest.mark.parametrize("value, kind", [(arr(2, 3), "numpy.ndarray"), ([1.0, 2.0, 3.0], "list")])
def test_a_graph_mode_layer_given_no_tensor_says_so_on_the_call(value, kind):
    ms.set_context(mode=ms.GRAPH_MODE)
    dense = nn.Dense(3, 2)
    with pytest.raises(InputTypeError) as info:
        line = here(); dense(value)  # noqa: E702
    assert str(info.value).splitlines()[0] == f"expected a Tensor, got {kind} for argument `x` of Dense.construct"
    assert info.value.loc.line == line


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(),
                                       nn.SequentialCell(nn.Dense(8, 3), nn.Dense(5, 2)))

    def construct(self, x):
        y = x * 2
        return self.block(y)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        h = x + 1
        return self.fc(h)


class Literal(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        return self.fc([1.0, 2.0]) + x


def bare_nested():
    return nn.SequentialCell(nn.Dense(4, 8), nn.SequentialCell(nn.Dense(8, 3), nn.Dense(5, 2)))


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
def test_a_shape_mismatch_in_a_bare_nested_sequential_names_the_call_and_the_layer(level):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
    seq = bare_nested()
    with pytest.raises(GraphCompileError) as info:
        line = here(); seq(Tensor(arr(2, 4)))  # noqa: E702
    err = info.value
    assert err.layer == "SequentialCell.1.1" and "(in layer SequentialCell.1.1)" in str(err)
    assert (err.loc.file, err.loc.line) == (__file__, line)
    assert "Dense: expected input of shape (..., 5)" in err.reason and err.rule == "shape"
    assert err.to_dict()["layer"] == "SequentialCell.1.1"


def test_a_shape_mismatch_deep_in_a_users_block_names_the_users_line_and_the_path():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(GraphCompileError) as info:
        Block()(Tensor(arr(2, 4)))
    err = info.value
    assert err.layer == "Block.block.2.1"
    assert (err.loc.file, err.loc.line) == (__file__, line_of(Block.construct, "return self.block(y)"))
    assert err.scope == "Block.construct"
    assert last_frame(err) == (__file__, err.loc.line)


def test_under_lax_the_graph_break_keeps_the_layer_named_by_its_place_in_the_network():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GraphCompileError) as info:
            Block()(Tensor(arr(2, 4)))
    err = info.value
    assert err.layer == "block.2.1"  # the sub-network compiled on its own: named as its parameters are
    assert err.loc.line == line_of(Block.construct, "return self.block(y)")


def test_the_graph_break_warning_names_the_layer_too():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX)
    with pytest.warns(GraphBreakWarning) as record:
        with pytest.raises(GraphCompileError):
            Block()(Tensor(arr(2, 4)))
    assert any("(in layer Block.block.2.1)" in str(w.message) for w in record), [str(w.message) for w in record]


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
def test_an_int32_tensor_into_dense_names_the_users_line_and_the_layer(level):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GraphCompileError) as info:
            Net()(Tensor(arr(2, 4, dtype=np.int32)))
    err = info.value
    # under LAX the statement breaks out of the graph and the layer compiles on its own, named as its
    # parameters are ("fc.weight"); under STRICT it is part of Net's graph
    assert err.layer == ("fc" if level == "LAX" else "Net.fc") and "Int32" in err.reason
    assert err.loc.line == line_of(Net.construct, "return self.fc(h)")


def test_an_int32_tensor_into_a_bare_dense_names_the_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    dense = nn.Dense(4, 2)
    with pytest.raises(GraphCompileError) as info:
        line = here(); dense(Tensor(arr(2, 4, dtype=np.int32)))  # noqa: E702
    assert info.value.layer == "Dense" and info.value.loc.line == line


def test_inside_a_training_step_the_layer_path_runs_from_the_step_down():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(GraphCompileError) as info:
        step(Tensor(arr(2, 4, dtype=np.int32)), Tensor(arr(2, 2)))
    assert info.value.layer == "TrainOneStepCell.network._backbone.fc"
    assert info.value.loc.line == line_of(Net.construct, "return self.fc(h)")


def test_a_list_given_to_a_layer_inside_construct_is_refused_on_that_line():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(GraphCompileError) as info:
        Literal()(Tensor(arr(2, 2)))
    err = info.value
    assert err.reason == "expected a Tensor, got list for argument `x` of Dense.construct"
    assert err.layer == "Literal.fc" and err.loc.line == line_of(Literal.construct, "self.fc([1.0, 2.0])")


def test_pynative_refuses_the_same_list_on_the_same_line():
    """The differential view of the case above: both modes refuse, on the same line."""
    with pytest.raises(InputTypeError) as info:
        Literal()(Tensor(arr(2, 2)))
    assert info.value.loc.line == line_of(Literal.construct, "self.fc([1.0, 2.0])")


def test_a_jit_function_calling_a_layer_names_the_layer_by_the_name_it_is_called():
    seq = bare_nested()

    @ms.jit(fullgraph=True)
    def f(a):
        return seq(a)

    with pytest.raises(GraphCompileError) as info:
        f(Tensor(arr(2, 4)))
    assert info.value.layer == "SequentialCell.1.1"
    assert info.value.loc.line == line_of(f.fn, "return seq(a)")


def test_the_ide_compile_of_a_bare_layer_names_the_layer():
    """`spore.ide.compile_graph` compiles without a call and no user source is compiled for a bare
    Spore layer: the error names the layer; it passes off no line (the kernel's or the viewer's own
    code would be the innermost non-Spore frame) as the user's."""
    from spore import ide

    with pytest.raises(GraphCompileError) as info:
        ide.compile_graph(bare_nested(), (Tensor(arr(2, 4)),))
    assert info.value.layer == "SequentialCell.1.1" and "(in layer SequentialCell.1.1)" in str(info.value)
    assert info.value.loc is None
