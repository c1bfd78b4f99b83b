"""The small top-level and dataset names of the rest slice (issue 14): dtype classes, Symbol,
DLPack round trips (checked against NumPy), get_current_device and the dataset config getters."""

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds


def test_type_and_int_classify_dtypes():
    assert isinstance(ms.float32, ms.Type) and isinstance(ms.int8, ms.Type)
    assert isinstance(ms.int64, ms.Int) and not isinstance(ms.uint8, ms.Int)
    assert not isinstance(ms.float16, ms.Int) and not isinstance(3, ms.Type)
    assert ms.Int(16) is ms.int16 and ms.Type("float64") == ms.float64
    with pytest.raises(ValueError, match="Int: nbits"):
        ms.Int(12)


def test_tensor_type_compares_by_element_type():
    t = ms.TensorType(ms.float32)
    assert t == ms.TensorType(ms.float32) and t != ms.TensorType(ms.int32)
    assert str(t) == "Tensor[Float32]" and t.element_type() is ms.float32
    assert isinstance(t, ms.Type) and hash(t) == hash(ms.TensorType(ms.float32))


def test_symbol_validates_and_checks_sizes():
    s = ms.Symbol(max=64, min=8, divisor=8)
    assert s.check(16) and not s.check(12) and not s.check(72) and not s.check(0)
    assert ms.Symbol(divisor=4, remainder=1).check(5)
    with pytest.raises(ValueError, match="Symbol: max"):
        ms.Symbol(max=2, min=4)
    with pytest.raises(ValueError, match="Symbol: remainder"):
        ms.Symbol(divisor=2, remainder=2)
    with pytest.raises(TypeError, match="Symbol: min"):
        ms.Symbol(min=1.5)


def test_dlpack_round_trip_matches_numpy():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    cap = ms.to_dlpack(ms.Tensor(a))
    back = ms.from_dlpack(cap)
    np.testing.assert_array_equal(back.asnumpy(), a)
    assert back.dtype == ms.float32
    # an object with __dlpack__ (NumPy's own array) imports too, and NumPy reads Spore's capsule
    ints = np.arange(10, dtype=np.int64)
    np.testing.assert_array_equal(ms.from_dlpack(ints).asnumpy(), ints)
    with pytest.raises(TypeError, match="from_dlpack"):
        ms.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="to_dlpack"):
        ms.to_dlpack(a)


def test_get_current_device_is_the_context_target():
    dev = ms.get_current_device()
    assert dev.device_target == ms.get_context("device_target") == "CPU" and dev.device_id == 0


def test_dataset_config_getters():
    assert ds.get_enable_watchdog() is True
    assert ds.get_multiprocessing_start_method() == "fork"
    assert ds.get_multiprocessing_timeout_interval() == 300
    ds.set_video_backend("CPU")
    assert ds.get_video_backend() == "CPU"
    with pytest.raises(ValueError, match="set_video_backend"):
        ds.set_video_backend("Ascend")
    from spore.dataset.more_sources import Shuffle
    assert ds.shuffle_to_shuffle_mode(None) is Shuffle.GLOBAL and ds.shuffle_to_shuffle_mode(True) is Shuffle.GLOBAL
    assert ds.shuffle_to_shuffle_mode(False) is False and ds.shuffle_to_shuffle_mode(Shuffle.FILES) is Shuffle.FILES
    with pytest.raises(TypeError, match="shuffle_to_shuffle_mode"):
        ds.shuffle_to_shuffle_mode("yes")
