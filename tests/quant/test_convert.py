"""`spore-convert` end to end in a subprocess: ckpt or ONNX in, quantized file out, loaded and run
(WEIGHT_QUANT -> .npz; FULL_QUANT with calibration -> QDQ ONNX run by onnxruntime and spore.lite)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore.quant import load_quantized

from .. import ort_oracle

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "spore.quant.convert", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


def _main(capsys, *args: str) -> tuple[int, str]:
    """The CLI in-process (its error paths; the subprocess tests cover the real entry point)."""
    from spore.quant.convert import main

    rc = main(list(args))
    return rc, capsys.readouterr().err


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
    (["--quant", "FULL_QUANT"], "FULL_QUANT needs calibration inputs: --config calib.npz"),
    (["--quant", "FULL_QUANT", "--bit-num", "4"], "FULL_QUANT quantizes to 8 bits only"),
    (["--quant", "FULL_QUANT", "--bitNum=3"], "--bit-num must be 8 or 4"),
    (["--quant", "FULL_QUANT", "--config", "/nonexistent/calib.npz"], "does not exist"),
])
def test_convert_bad_input(ckpt, tmp_path, capsys, extra, msg) -> None:
    _, path = ckpt
    rc, err = _main(capsys, "--model", path, "--network", "examples.train_digits:LeNet", "--output",
                    str(tmp_path / "o"), *extra)
    assert rc == 2 and msg in err, err


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


def _trained_lenet():
    from examples.train_digits import LeNet, load_split  # type: ignore[import-not-found]

    from .training import train as _train

    ms.set_seed(0)
    x_tr, x_te, y_tr, y_te = load_split(0)
    return _train(LeNet(), x_tr, y_tr, epochs=4), x_tr, x_te, y_te


def _ort(path: str, x: np.ndarray) -> np.ndarray:
    s = ort_oracle.session(path)
    return s.run(None, {s.get_inputs()[0].name: x})[0]


def test_full_quant_ckpt_and_onnx_in(tmp_path) -> None:
    import onnx

    from spore import lite
    from spore.onnx import export

    net, x_tr, x_te, y_te = _trained_lenet()
    ckpt = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, ckpt)
    calib = str(tmp_path / "calib.npz")
    np.savez(calib, x=x_tr[:256])
    acc_fp = np.mean(net(ms.Tensor(x_te)).asnumpy().argmax(1) == y_te)
    # ckpt + network in (converter_lite spellings), QDQ ONNX out
    r = _run(f"--modelFile={ckpt}", "--network", "examples.train_digits:LeNet", f"--outputFile={tmp_path / 'q1'}",
             "--quantType=FULL_QUANT", f"--configFile={calib}")
    assert r.returncode == 0, r.stderr
    assert "int8 full quantization" in r.stdout
    q1 = str(tmp_path / "q1.onnx")
    onnx.checker.check_model(onnx.load(q1), full_check=True)
    acc1 = np.mean(_ort(q1, x_te).argmax(1) == y_te)
    assert acc_fp - acc1 < 0.01, (acc_fp, acc1)
    # float ONNX in, with a converter_lite-style INI config (KL calibration)
    fp = export(net, ms.Tensor(x_te[:1]), file_name=str(tmp_path / "fp"), dynamic_axes={"x": {0: "batch"}})
    ini = tmp_path / "calib.cfg"
    ini.write_text("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n[full_quant_param]\n"
                   "activation_quant_method=KL\nper_channel=true\n[data_preprocess_param]\n"
                   "calibrate_path=calib.npz\ncalibrate_size=200\n")
    r = _run("--model", fp, "--quant", "FULL_QUANT", "--config", str(ini), "--output", str(tmp_path / "q2"))
    assert r.returncode == 0, r.stderr
    q2 = str(tmp_path / "q2.onnx")
    got = _ort(q2, x_te)
    assert np.mean(got.argmax(1) == y_te) > acc_fp - 0.01
    m = lite.Model()
    m.build_from_file(q2, lite.ModelType.ONNX)
    np.testing.assert_allclose(m.predict([x_te])[0].get_data_to_numpy(), got, atol=1e-3 * np.abs(got).max())
    assert os.path.getsize(fp) / os.path.getsize(q2) > 2.5


def test_full_quant_bad_calibration(tmp_path, capsys) -> None:
    from examples.train_digits import LeNet  # type: ignore[import-not-found]
    from spore.onnx import export

    ms.set_seed(0)
    net = LeNet()
    ckpt = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, ckpt)
    fp = export(net, ms.Tensor(np.zeros((1, 1, 8, 8), np.float32)), file_name=str(tmp_path / "fp"))
    wrong = str(tmp_path / "wrong.npz")
    np.savez(wrong, x=np.zeros((8, 3, 8, 8), np.float32))
    rc, err = _main(capsys, "--model", fp, "--quant", "FULL_QUANT", "--config", wrong, "--output", str(tmp_path / "o"))
    assert rc == 2 and "does not fit the model's input" in err, err
    rc, err = _main(capsys, "--model", ckpt, "--network", "examples.train_digits:LeNet", "--quant", "FULL_QUANT",
                    "--config", wrong, "--output", str(tmp_path / "o"))
    assert rc == 2 and "does not run on the calibration data" in err, err
    ints = str(tmp_path / "ints.npz")
    np.savez(ints, x=np.zeros((8, 1, 8, 8), np.int64))
    rc, err = _main(capsys, "--model", fp, "--quant", "FULL_QUANT", "--config", ints, "--output", str(tmp_path / "o"))
    assert rc == 2 and "must be a non-empty float array" in err, err
    two = str(tmp_path / "two.npz")
    np.savez(two, a=np.zeros((8, 1, 8, 8), np.float32), b=np.zeros((8, 1, 8, 8), np.float32))
    rc, err = _main(capsys, "--model", fp, "--quant", "FULL_QUANT", "--config", two, "--output", str(tmp_path / "o"))
    assert rc == 2 and "1 input(s)" in err, err
    rc, err = _main(capsys, "--model", fp, "--quant", "FULL_QUANT", "--config", wrong, "--method", "MSE",
                    "--output", str(tmp_path / "o"))
    assert rc == 2 and "activation_quant_method must be" in err, err
    assert not os.path.exists(tmp_path / "o.onnx")
