"""device_io_helpers: move_to, tensordump, real, to_dlpack."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops


def test_move_to_and_real(tmp_path):
    x = ms.Tensor(np.arange(6.0).reshape(2, 3))
    assert ops.move_to(x) is x and x.move_to("CPU") is x and ops.MoveTo()(x, "CPU") is x
    with pytest.raises(ValueError, match="CPU only"):
        ops.move_to(x, "Ascend")
    assert ops.real(x) is x and x.real() is x and ops.Real()(x) is x
    ops.tensordump(str(tmp_path / "a"), x)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), x.asnumpy())
    ops.TensorDump()(str(tmp_path / "b.npy"), x)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), x.asnumpy())
    back = np.from_dlpack(_Capsule(x.to_dlpack()))
    np.testing.assert_array_equal(back, x.asnumpy())


class _Capsule:
    """Wraps a raw DLPack capsule in the object protocol np.from_dlpack expects."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU
