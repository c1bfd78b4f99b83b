"""PyNative: a value that is not a Tensor where a Cell or an op takes one is refused with an
`InputTypeError` naming the argument, the function and the user's line (issue 15, "Errors on wrong
inputs"). MindSpore refuses these too (its ops raise TypeError for a numpy.ndarray input)."""

import inspect

import numpy as np
import pytest

import spore.nn as nn
from spore import Tensor, ops
from spore.errors import InputTypeError, ShapeError, SporeError


def here() -> int:
    """The line of the caller (the test's own call of the Cell)."""
    return inspect.currentframe().f_back.f_lineno


def arr(*shape):
    return np.ones(shape, np.float32)


def test_dense_given_a_numpy_array_says_expected_a_tensor_on_the_callers_line():
    dense = nn.Dense(3, 2)
    with pytest.raises(InputTypeError) as info:
        line = here(); dense(arr(2, 3))  # noqa: E702
    err = info.value
    assert str(err).splitlines()[0] == "expected a Tensor, got numpy.ndarray for argument `x` of Dense.construct"
    assert (err.loc.file, err.loc.line) == (__file__, line)
    assert isinstance(err, TypeError) and isinstance(err, SporeError)
    assert "ms.Tensor(x)" in err.hint
    assert "dtype" not in str(err).splitlines()[0]  # never "expected inputs of one dtype, got float32 and Float32"


@pytest.mark.parametrize("value, kind", [([1.0, 2.0, 3.0], "list"), ([[1.0, 2.0, 3.0]], "list"),
                                         ((1, 2, 3), "tuple"), (3.0, "float")])
def test_dense_given_python_numbers_is_refused_not_an_attribute_error(value, kind):
    with pytest.raises(InputTypeError, match=rf"expected a Tensor, got {kind} for argument `x` of Dense.construct"):
        nn.Dense(3, 2)(value)


def test_an_array_of_the_wrong_shape_is_still_refused_for_being_an_array():
    with pytest.raises(InputTypeError, match="got numpy.ndarray"):
        nn.Dense(4, 2)(arr(2, 3))


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.ReLU(), (2, 3)), (lambda: nn.Flatten(), (2, 3, 4)), (lambda: nn.Dropout(p=0.5), (2, 3)),
    (lambda: nn.Conv2d(1, 1, 3), (1, 1, 4, 4)), (lambda: nn.BatchNorm1d(3), (2, 3))])
def test_spore_layers_refuse_arrays_even_where_numpy_could_run_them(make, shape):
    """Flatten would reshape an array with NumPy's own method and Dropout (inference) return it as it
    is: both hand back an ndarray instead of refusing it."""
    cell = make()
    with pytest.raises(InputTypeError) as info:
        cell(arr(*shape))
    assert info.value.function == f"{type(cell).__name__}.construct"
    assert info.value.actual == "numpy.ndarray"


def test_a_container_names_its_own_argument_not_the_inner_layers():
    seq = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    with pytest.raises(InputTypeError) as info:
        seq(arr(2, 3))
    assert (info.value.function, info.value.argument) == ("SequentialCell.construct", "input_data")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return ops.relu(self.fc(x))


class Literal(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        return self.fc([1.0, 2.0]) + x  # the list is the mistake, on this line


def test_a_user_cell_whose_argument_reaches_a_layer_names_that_argument():
    with pytest.raises(InputTypeError) as info:
        Net()(arr(2, 3))
    assert (info.value.function, info.value.argument) == ("Net.construct", "x")


def test_a_list_made_inside_a_user_construct_is_named_at_the_layer_it_reaches():
    with pytest.raises(InputTypeError) as info:
        Literal()(Tensor(arr(2, 2)))
    err = info.value
    assert (err.function, err.argument, err.actual) == ("Dense.construct", "x", "list")
    src = inspect.getsource(Literal.construct).splitlines()
    assert err.loc.line == inspect.getsourcelines(Literal.construct)[1] + 1 and "self.fc([1.0" in src[1]


def test_a_registered_op_given_an_array_names_the_op_and_its_input():
    """The op dispatcher (`bind`) is the one check every primitive shares: the input is named from
    the op's declared rule."""
    from spore.ops.primitive import REGISTRY

    with pytest.raises(InputTypeError) as info:
        line = here(); REGISTRY["MatMul"](Tensor(arr(2, 3)), [[1.0], [2.0], [3.0]])  # noqa: E702
    err = info.value
    assert (err.function, err.argument, err.actual) == ("MatMul", "b", "list")
    assert err.loc.line == line


def test_an_array_passed_through_a_user_cell_to_a_primitive_names_the_cells_argument():
    from spore.ops.primitive import REGISTRY

    class Raw(nn.Cell):
        def construct(self, x):
            return REGISTRY["ReLU"](x)

    with pytest.raises(InputTypeError) as info:
        Raw()(arr(2, 3))
    assert (info.value.function, info.value.argument) == ("Raw.construct", "x")


def test_a_user_cell_that_converts_its_array_itself_still_runs():
    class Converts(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        def construct(self, x):
            return self.fc(Tensor(x))

    out = Converts()(arr(2, 3))
    assert isinstance(out, Tensor) and out.shape == (2, 2)


def test_errors_that_are_not_about_input_types_are_unchanged():
    with pytest.raises(ShapeError, match=r"Dense: expected input of shape \(\.\.\., 4\)"):
        nn.Dense(4, 2)(Tensor(arr(2, 3)))
    with pytest.raises(TypeError) as info:  # a wrong call is Python's own TypeError, not ours
        nn.Dense(3, 2)(Tensor(arr(2, 3)), Tensor(arr(2, 3)))
    assert not isinstance(info.value, InputTypeError)


def test_optional_tensor_arguments_may_still_be_none():
    layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0)
    out = layer(Tensor(arr(3, 2, 4)), None)
    assert out.shape == (3, 2, 4)


def test_the_error_is_plain_data_for_the_ide():
    with pytest.raises(InputTypeError) as info:
        nn.Dense(3, 2)(arr(2, 3))
    d = info.value.to_dict()
    assert d["type"] == "InputTypeError" and d["function"] == "Dense.construct" and d["argument"] == "x"
    assert d["actual"] == "numpy.ndarray" and d["expected"] == "a Tensor" and d["line"] == info.value.loc.line


def test_a_correct_call_is_not_checked(monkeypatch):
    """The checks run only once something failed (or for a first argument that is not a Tensor):
    an ordinary call pays nothing for them."""
    import spore.nn.cell as cell_mod
    from spore.ops import input_check

    calls = []

    def counting(name):
        real = getattr(input_check, name)
        return lambda *a, **k: calls.append(name) or real(*a, **k)

    monkeypatch.setattr(cell_mod, "cell_input_error", counting("cell_input_error"))
    monkeypatch.setattr(cell_mod, "layer_input_error", counting("layer_input_error"))
    monkeypatch.setattr(input_check, "op_input_error", counting("op_input_error"))
    seq = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    seq(Tensor(arr(2, 3)))
    assert calls == []
    with pytest.raises(InputTypeError):
        seq(arr(2, 3))
    assert "layer_input_error" in calls
