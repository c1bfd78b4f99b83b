"""`set_context`/`get_context`, dtypes and seeds behave like MindSpore's and refuse bad input
with a message that says what is allowed."""

import numpy as np
import pytest

import spore as ms
from spore.errors import ContextError


def test_defaults_match_mindspore():
    assert ms.get_context("mode") == ms.PYNATIVE_MODE == 1
    assert ms.GRAPH_MODE == 0
    assert ms.get_context("device_target") == "CPU"


def test_unknown_key_lists_the_known_ones():
    with pytest.raises(ContextError, match="unknown key 'devise_target'") as info:
        ms.set_context(devise_target="CPU")
    assert "device_target" in info.value.hint


def test_unsupported_device_is_refused():
    with pytest.raises(ContextError, match="device_target 'Ascend' is not supported"):
        ms.set_context(device_target="Ascend")
    assert ms.get_context("device_target") == "CPU"


def test_bad_mode_value_is_refused():
    with pytest.raises(ContextError, match="mode must be"):
        ms.set_context(mode=3)


def test_set_and_get_round_trip():
    ms.set_context(device_target="cpu", save_graphs=True, save_graphs_path="/tmp/x")
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("save_graphs") is True
    assert ms.get_context("save_graphs_path") == "/tmp/x"


def test_dtypes_print_like_mindspore_and_map_to_numpy():
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "Int64"
    assert ms.dtype_to_nptype(ms.float16) is np.float16
    assert ms.pytype_to_dtype(bool) is ms.bool_
    assert ms.bfloat16 is not None and ms.bfloat16.itemsize == 2
    with pytest.raises(TypeError, match="unknown dtype"):
        ms.dtype.get_dtype("float128")


def test_set_seed_makes_initializers_reproducible():
    ms.set_seed(7)
    a = ms.initializer("normal", (4, 3)).asnumpy()
    ms.set_seed(7)
    b = ms.initializer("normal", (4, 3)).asnumpy()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="non-negative int"):
        ms.set_seed(-1)


def test_he_uniform_bound_matches_formula():
    w = ms.initializer(ms.common.initializer.HeUniform(), (200, 50)).asnumpy()
    bound = np.sqrt(2.0) * np.sqrt(3.0 / 50)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound


def test_run_check_reports_success(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert "installed on platform [CPU] successfully" in out
