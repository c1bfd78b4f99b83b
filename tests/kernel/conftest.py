"""One real spore kernel per test module (kernels take a second or two to start on two cores)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from .harness import ROOT, Kernel

# The unit tests import spore_kernel directly; the kernel process gets the same path via its spec.
sys.path.insert(0, str(ROOT / "kernel"))


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    k = Kernel(tmp_path_factory.mktemp("spore-kernel"))
    try:
        yield k
    finally:
        k.close()
