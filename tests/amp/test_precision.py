"""auto_mixed_precision puts each sub-cell in the right dtype per level, keeps float32 master
weights (and their names), and the converted network compiles in Graph mode."""

import numpy as np
import pytest

import spore as ms
from spore import amp, nn, ops

from .nets import MLP, record_dtypes

F16, F32 = ms.float16, ms.float32


def _x(n=8, d=4, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32))


def _net():
    net = MLP()
    net.set_train()
    return net


def test_o0_returns_the_network_untouched():
    net = _net()
    before = net(_x()).asnumpy()
    out = amp.auto_mixed_precision(net, "O0")
    assert out is net
    assert all(c.__dict__["_cast_type"] is None for _, c in net.cells_and_names())
    np.testing.assert_array_equal(out(_x()).asnumpy(), before)


def test_o1_runs_only_white_listed_cells_in_float16():
    net = _net()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn, "relu": net.relu, "fc2": net.fc2})
    out = amp.auto_mixed_precision(net, "O1")(_x())
    assert seen["fc1"] == (F16, F16) and seen["fc2"] == (F16, F16)
    assert seen["bn"] == (F32, F32) and seen["relu"] == (F32, F32)  # the wrapper cast fc1's output back
    assert out.dtype == F32
    assert net.fc1.in_channels == 4  # the wrapper forwards attributes to the Dense inside


def test_o2_keeps_black_listed_cells_in_float32_and_the_rest_in_float16():
    net = _net()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn, "relu": net.relu, "fc2": net.fc2})
    out = amp.auto_mixed_precision(net, "O2")(_x())
    assert seen["fc1"] == (F16, F16) and seen["fc2"] == (F16, F16)
    assert seen["bn"] == (F32, F32)
    assert seen["relu"] == (F16, F16)  # BatchNorm's output was cast back to float16 for the next layer
    assert out.dtype == F32  # the network's output is float32 again


def test_o2_keeps_a_loss_inside_the_network_in_float32():
    net = _net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    seen = record_dtypes({"loss": loss_fn, "fc2": net.fc2})
    with_loss = amp.auto_mixed_precision(nn.WithLossCell(net, loss_fn), "O2")
    loss = with_loss(_x(), ms.Tensor(np.arange(8, dtype=np.int32) % 3))
    assert seen["fc2"][1] == F16
    assert seen["loss"] == (F32, F32) and loss.dtype == F32


def test_o3_runs_every_cell_in_float16():
    net = _net()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn, "relu": net.relu, "fc2": net.fc2})
    out = amp.auto_mixed_precision(net, "O3")(_x())
    assert all(seen[k] == (F16, F16) for k in ("fc1", "bn", "relu", "fc2"))
    assert out.dtype == F32


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_master_weights_stay_float32_and_keep_their_names(level):
    net = _net()
    before = [(p.name, p.dtype) for p in net.get_parameters()]
    out = amp.auto_mixed_precision(net, level)
    assert [(p.name, p.dtype) for p in out.get_parameters()] == before
    assert all(dt == F32 for _, dt in before)
    assert net.fc1.weight.dtype == F16  # what the cell reads is cast on the fly


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_gradients_flow_back_to_float32_master_weights(level):
    net = _net()
    amp_net = amp.auto_mixed_precision(net, level)
    params = net.trainable_params()
    grads = ms.grad(lambda x: ops.sum(amp_net(x)), None, params)(_x())
    assert [g.dtype for g in grads] == [F32] * len(params)
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)
    assert np.abs(grads[0].asnumpy()).sum() > 0


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_mixed_precision_output_is_close_to_float32(level):
    ms.set_seed(3)
    ref = _net()
    ms.set_seed(3)
    net = _net()
    expected = ref(_x()).asnumpy()
    got = amp.auto_mixed_precision(net, level)(_x()).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=2e-2, atol=2e-2)
    assert not np.array_equal(got, expected)  # it really computed in float16


def test_bfloat16_casts_inputs_and_weight_reads_to_bfloat16():
    ms.set_seed(5)
    expected = _net()(_x()).asnumpy()
    ms.set_seed(5)
    net = _net()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    out = amp.auto_mixed_precision(net, "O2", dtype=ms.bfloat16)(_x())
    assert seen["fc1"][0] == ms.bfloat16 and net.fc1.weight.dtype == ms.bfloat16
    assert seen["bn"][0] == F32
    assert out.dtype == F32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=5e-2, atol=5e-2)


def test_containers_are_rewritten_in_place():
    seq = nn.SequentialCell([nn.Dense(4, 6), nn.ReLU(), nn.Dense(6, 2)])
    names = [p.name for p in seq.get_parameters()]
    out = amp.auto_mixed_precision(seq, "O1")
    assert out is seq and len(seq) == 3
    assert type(seq[0]).__name__ == "_OutputCast" and isinstance(seq[1], nn.ReLU)
    assert [p.name for p in seq.get_parameters()] == names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert seq(_x()).dtype == F32


def test_a_shared_cell_is_wrapped_once():
    class Twice(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.again = self.fc

        def construct(self, x):
            return self.again(self.fc(x))

    net = Twice()
    amp.auto_mixed_precision(net, "O1")
    assert net.fc is net.again and type(net.fc).__name__ == "_OutputCast"
    assert len(net.trainable_params()) == 2


def test_a_white_listed_root_is_wrapped_itself():
    dense = nn.Dense(4, 3)
    out = amp.auto_mixed_precision(dense, "O1")
    assert out is not dense and out(_x()).dtype == F32
    assert dense.__dict__["_cast_type"] == F16


def test_custom_lists():
    net = _net()
    seen = record_dtypes({"fc1": net.fc1, "relu": net.relu})
    amp.custom_mixed_precision(net, white_list=[nn.ReLU])(_x())
    assert seen["fc1"] == (F32, F32) and seen["relu"] == (F16, F16)
    net2 = _net()
    seen2 = record_dtypes({"fc1": net2.fc1, "bn": net2.bn})
    amp.custom_mixed_precision(net2, black_list=[nn.Dense])(_x())
    assert seen2["fc1"] == (F32, F32) and seen2["bn"] == (F16, F16)
    with pytest.raises(ValueError, match="exactly one"):
        amp.custom_mixed_precision(_net(), white_list=[nn.Dense], black_list=[nn.ReLU])
    with pytest.raises(TypeError, match="Cell classes"):
        amp.custom_mixed_precision(_net(), white_list=["Dense"])


def test_the_lists_are_copies():
    white = amp.get_white_list()
    assert nn.Dense in white and nn.Conv2d in white and nn.BatchNorm2d not in white
    assert nn.BatchNorm2d in amp.get_black_list() and nn.LayerNorm in amp.get_black_list()
    white.clear()
    assert nn.Dense in amp.get_white_list()


def test_bad_arguments_and_double_conversion_are_rejected():
    with pytest.raises(ValueError, match="amp_level"):
        amp.auto_mixed_precision(_net(), "O4")
    with pytest.raises(ValueError, match="float16 or bfloat16"):
        amp.auto_mixed_precision(_net(), "O2", dtype=ms.float32)
    with pytest.raises(TypeError, match="Cell"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    net = _net()
    converted = amp.auto_mixed_precision(net, "O2")
    for again in (net, converted):
        with pytest.raises(ValueError, match="already converted"):
            amp.auto_mixed_precision(again, "O3")


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_graph_mode_forward_matches_pynative(level):
    net = _net()
    amp_net = amp.auto_mixed_precision(net, level)
    expected = amp_net(_x()).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    got = amp_net(_x())
    assert got.dtype == F32
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-3, atol=1e-3)
    assert amp_net.compiled_construct.cache  # it was compiled, not run eagerly


def test_float16_says_once_that_it_saves_memory_not_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spore computes float16 in float32 on CPU: O2-fp16 is no faster than O0, and the user is told so
    once, at their own line, with the dtype that is faster on this CPU (bfloat16 where oneDNN runs
    bf16 in hardware). O0 and bfloat16 say nothing of it."""
    import warnings

    from spore import _kernels
    from spore.amp import precision

    monkeypatch.setattr(precision, "_SAID_FLOAT16", [])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        amp.auto_mixed_precision(MLP(), "O0")
        amp.auto_mixed_precision(MLP(), "O2", ms.bfloat16)
        assert [str(w.message) for w in seen if "float16 mixed precision" in str(w.message)] == []
        amp.auto_mixed_precision(MLP(), "O2")  # MindSpore's default dtype: float16
        amp.custom_mixed_precision(MLP(), white_list=[nn.Dense])
        amp.build_train_network(MLP(), nn.Momentum(MLP().trainable_params(), 0.1, 0.9), level="O2")
    said = [w for w in seen if "float16 mixed precision" in str(w.message)]
    assert len(said) == 1 and said[0].category is RuntimeWarning
    assert said[0].filename == __file__  # the user's call, not a line inside Spore
    native = _kernels.cpu_isa() in ("avx512_core_bf16", "avx512_core_amx")
    assert ("dtype=ms.bfloat16" in str(said[0].message)) is native
    assert "saves memory, not time" in str(said[0].message)
