"""The runnable examples train for real: the demo's accuracy bar and the migration example's learning curve.

The examples are scripts, not a package, so each test loads the file by path and calls its `main`
(the same function `python examples/<name>.py` runs), shortened only where the full run is slow.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str) -> ModuleType:
    """Import examples/<name>.py as a module (fresh each time, so no state leaks between tests)."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"spore_example_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_digits_demo_reaches_95_percent_test_accuracy():
    digits = load_example("train_digits")
    acc = digits.main(verbose=False)
    assert acc >= 0.95, f"make demo's digits CNN reached only {acc:.1%} test accuracy"


def test_digits_demo_is_deterministic_under_a_seed(capsys):
    digits = load_example("train_digits")

    def printed_run() -> str:
        digits.main(epochs=2, seed=3)
        return re.sub(r"\(?\d+\.\d+s\)?", "<time>", capsys.readouterr().out)  # wall times differ, nothing else

    first = printed_run()
    assert "epoch  2/2  loss" in first
    assert printed_run() == first


def test_simple_cnn_migration_loss_falls_and_accuracy_beats_chance():
    cnn = load_example("simple_cnn_migration")
    hist = cnn.main(verbose=False)  # the script's own default run: 5 epochs over 1024 images
    losses, accs = hist["loss"], hist["accuracy"]
    assert len(losses) == 5 and all(math.isfinite(l) for l in losses), losses
    assert losses[-1] < 0.5 * losses[0], f"loss did not fall: {losses}"
    assert hist["final_accuracy"] >= 0.5, f"accuracy {accs} is not clearly above chance (10%)"
    assert accs[-1] > accs[0], f"accuracy did not rise: {accs}"
    assert hist["final_accuracy"] > hist["initial_accuracy"] + 0.3, hist


def test_simple_cnn_migration_synthetic_data_is_balanced_and_seeded():
    cnn = load_example("simple_cnn_migration")
    x1, y1 = cnn.make_images(200, seed=5)
    x2, y2 = cnn.make_images(200, seed=5)
    assert x1.shape == (200, 3, 32, 32) and x1.dtype.name == "float32" and y1.dtype.name == "int32"
    assert (x1 == x2).all() and (y1 == y2).all()
    assert set(y1.tolist()) == set(range(10))
    assert abs(float(x1.std()) - 1.0) < 0.1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
