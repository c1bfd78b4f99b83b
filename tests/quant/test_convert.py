"""`spore-convert` end to end in a subprocess: ckpt in, quantized file out, loaded and run."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore.quant import load_quantized

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "spore.quant.convert", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


@pytest.fixture()
def ckpt(tmp_path):
    from examples.train_digits import LeNet  # type: ignore[import-not-found]

    ms.set_seed(0)
    net = LeNet()
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    return net, path


def test_convert_ckpt_converter_lite_flags(ckpt, tmp_path) -> None:
    from examples.train_digits import LeNet  # type: ignore[import-not-found]

    net, path = ckpt
    out = str(tmp_path / "q")
    r = _run(f"--modelFile={path}", "--network", "examples.train_digits:LeNet", f"--outputFile={out}",
             "--quantType=WEIGHT_QUANT", "--bitNum=8")
    assert r.returncode == 0, r.stderr
    q = load_quantized(LeNet(), out + ".npz")
    x = ms.Tensor(np.random.default_rng(0).normal(size=(4, 1, 8, 8)).astype(np.float32))
    a, b = net(x).asnumpy(), q(x).asnumpy()
    assert not np.array_equal(a, b)  # weights really were quantized
    np.testing.assert_allclose(b, a, atol=0.05)


@pytest.mark.parametrize("extra,msg", [
    (["--bit-num", "3"], "--bit-num must be 8 or 4"),
    (["--quant", "HALF"], "--quant must be WEIGHT_QUANT or FULL_QUANT"),
    (["--quant", "FULL_QUANT"], "FULL_QUANT"),
])
def test_convert_bad_input(ckpt, tmp_path, extra, msg) -> None:
    _, path = ckpt
    r = _run("--model", path, "--network", "examples.train_digits:LeNet", "--output", str(tmp_path / "o"), *extra)
    assert r.returncode == 2 and msg in r.stderr, r.stderr


def test_convert_non_model_file(tmp_path) -> None:
    bad = tmp_path / "x.onnx"
    bad.write_bytes(b"garbage")
    r = _run("--model", str(bad), "--output", str(tmp_path / "o"))
    assert r.returncode == 2 and "not a readable ONNX model" in r.stderr, r.stderr


def test_convert_onnx_in(tmp_path) -> None:
    from examples.train_digits import LeNet  # type: ignore[import-not-found]
    from spore.onnx import export, load

    ms.set_seed(0)
    net = LeNet()
    x = ms.Tensor(np.random.default_rng(1).normal(size=(2, 1, 8, 8)).astype(np.float32))
    model = export(net, x, file_name=str(tmp_path / "lenet"))
    r = _run("--fmk=ONNX", f"--modelFile={model}", f"--outputFile={tmp_path / 'q4'}", "--bitNum=4")
    assert r.returncode == 0, r.stderr
    q = load_quantized(load(model), str(tmp_path / "q4.npz"))
    a, b = net(x).asnumpy(), q(x).asnumpy()
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(b, a, atol=0.1)
