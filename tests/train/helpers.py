"""Shared by the checkpoint tests: where MindSpore's reference files are, and exact comparison."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

# Files written by real MindSpore 2.10 (copied from shared/fixtures into the repo, see the README there)
_IN_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore-2.10"
FIXTURES = Path(os.environ.get("SPORE_MS_FIXTURES", _IN_REPO))
PARAMS_CKPT = FIXTURES / "params.ckpt"


def expected_params() -> dict[str, np.ndarray]:
    """params_expected.npz with its names restored (``__`` stands for ``.``), in file order."""
    with np.load(FIXTURES / "params_expected.npz", allow_pickle=False) as z:
        return {k.replace("__", "."): z[k] for k in z.files}


def assert_exact(got: np.ndarray, want: np.ndarray, name: str = "") -> None:
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), name
