"""`%load_ext spore_kernel` gives a stock IPython kernel the Spore displays and magics."""

import pytest

from .harness import Kernel


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    k = Kernel(tmp_path_factory.mktemp("stock"), kernel_name="stock")
    yield k
    k.close()


def test_stock_kernel_is_not_spore_until_the_extension_loads(stock):
    assert stock.info["implementation"] != "spore"
    before = stock.ok("import numpy as np\nimport spore as ms\nt = ms.Tensor(np.ones((2, 3), np.float32))\nt")
    assert "application/vnd.spore.tensor+json" not in before.result_data()
    stock.ok("%load_ext spore_kernel")
    after = stock.ok("t")
    data = after.result_data()
    assert "application/vnd.spore.tensor+json" in data
    assert "2×3" in data["text/plain"] or "[2, 3]" in data["text/plain"] or "(2, 3)" in data["text/plain"]
    mode = stock.ok("%spore_mode")
    assert "pynative" in mode.stdout.lower()
