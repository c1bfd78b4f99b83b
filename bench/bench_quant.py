"""Benchmark: static int8 post-training quantization — latency at batch 1 and 32 and test accuracy for
two MLPs (64-256-256-10 and the compute-bound 64-1024-1024-10) and LeNet on digits and the
quickstart SimpleCNN (3x32x32, generated data as in tests/quant/test_ptq.py), each trained briefly
here:

- Spore fp32: the float Cell in Graph mode, and in PyNative (spore_fp32_pynative);
- Spore int8: `spore.quant.quantize_static`'s Cell (it always runs PyNative: oneDNN u8 x s8 kernels
  per layer, float32 between layers);
- lite int8: spore.lite running Spore's QDQ export of that Cell;
- lite fp32: spore.lite running the float ONNX;
- ort fp32 / ort int8 (Spore QDQ) / ort int8 (ort quantize_static): onnxruntime on the float ONNX,
  on Spore's QDQ file, and on onnxruntime.quantization.quantize_static's own QDQ file (same
  calibration batches, its defaults otherwise).

One thread everywhere (OMP_NUM_THREADS=1, thread_num=1, intra_op_num_threads=1); latency is the
median of timed calls (bench/timing.measure).

    .venv/bin/python bench/bench_quant.py [--quick] [--json out.json]

Entry points for bench/run.py: `run(quick) -> dict` and `report(dict) -> str`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "engine")]
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from bench.timing import measure  # noqa: E402

COLS = ["spore_fp32", "spore_fp32_pynative", "spore_int8", "lite_int8", "lite_fp32", "ort_fp32", "ort_int8_spore",
        "ort_int8_ortq"]


def _mlp(hidden: int = 256):
    from spore import nn

    return nn.SequentialCell([nn.Flatten(), nn.Dense(64, hidden), nn.ReLU(), nn.Dense(hidden, hidden), nn.ReLU(),
                              nn.Dense(hidden, 10)])


def _nets(quick: bool) -> list[tuple[str, object, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, trained float net, x_train, x_test, y_test, example x) per benchmarked network."""
    import spore as ms
    from examples.train_digits import LeNet, load_split
    from tests.nets import SimpleCNN as _SimpleCNN
    from tests.quant.training import blobs as _blobs
    from tests.quant.training import train as _train

    ms.set_seed(0)
    x_tr, x_te, y_tr, y_te = load_split(0)
    def seeded(make, seed: int = 0):
        ms.set_seed(seed)  # each net's initial weights independent of the others' training
        return make()

    out = [("MLP", _train(seeded(_mlp), x_tr, y_tr, epochs=6), x_tr, x_te, y_te),
           ("MLP-1024", _train(seeded(lambda: _mlp(1024)), x_tr, y_tr, epochs=3, lr=0.001), x_tr, x_te, y_te),
           ("LeNet", _train(seeded(LeNet), x_tr, y_tr, epochs=6), x_tr, x_te, y_te)]
    ms.set_seed(1)
    c_tr, c_ytr = _blobs(800, 1)
    c_te, c_yte = _blobs(400 if quick else 1000, 2)
    out.append(("SimpleCNN", _train(_SimpleCNN(), c_tr, c_ytr, epochs=3, lr=0.002), c_tr, c_te, c_yte))
    return out


def run(quick: bool = False) -> dict:
    """Measure every network x batch x runtime; returns {"rows": [...], "notes": [...]}."""
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat
    from onnxruntime.quantization import quantize_static as ort_quantize

    import spore as ms
    from spore import lite
    from spore.onnx import export
    from spore.quant import export_qdq, quantize_static

    budget = 0.15 if quick else 0.5
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    ctx = lite.Context()
    ctx.cpu.thread_num = 1
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, net, x_tr, x_te, y_te in _nets(quick):
            calib = [x_tr[i:i + 32] for i in range(0, 256, 32)]
            qnet = quantize_static(net, calib)
            dyn = {"x": {0: "batch"}, "y": {0: "batch"}}
            fp = export(net, ms.Tensor(x_te[:1]), file_name=os.path.join(folder, f"{name}.onnx"), dynamic_axes=dyn)
            sq = export_qdq(qnet, ms.Tensor(x_te[:1]), file_name=os.path.join(folder, f"{name}_spore_q"),
                            dynamic_axes=dyn)

            class Reader(CalibrationDataReader):
                def __init__(self) -> None:
                    self.it = iter([{"x": b} for b in calib])

                def get_next(self) -> dict | None:
                    return next(self.it, None)

            oq = os.path.join(folder, f"{name}_ort_q.onnx")
            ort_quantize(fp, oq, Reader(), quant_format=QuantFormat.QDQ)
            sessions = {k: ort.InferenceSession(p, opts, providers=["CPUExecutionProvider"])
                        for k, p in (("ort_fp32", fp), ("ort_int8_spore", sq), ("ort_int8_ortq", oq))}
            lites = {}
            for k, p in (("lite_int8", sq), ("lite_fp32", fp)):
                m = lite.Model()
                m.build_from_file(p, lite.ModelType.ONNX, ctx)
                lites[k] = m

            def runner(key: str):
                if key in ("spore_fp32", "spore_fp32_pynative"):
                    return lambda x: net(ms.Tensor(x)).asnumpy()
                if key == "spore_int8":
                    return lambda x: qnet(ms.Tensor(x)).asnumpy()
                if key in lites:
                    return lambda x, m=lites[key]: m.predict([x])[0].get_data_to_numpy()
                return lambda x, s=sessions[key]: s.run(None, {"x": x})[0]

            acc = {}
            for key in COLS:
                ms.set_context(mode=ms.GRAPH_MODE if key == "spore_fp32" else ms.PYNATIVE_MODE)
                f = runner(key)
                pred = np.concatenate([f(x_te[i:i + 32]).argmax(1) for i in range(0, len(x_te), 32)])
                acc[key] = float(np.mean(pred == y_te))
            for batch in (1, 32):
                x = np.ascontiguousarray(x_te[:batch])
                row = {"net": name, "batch": batch, "acc": acc,
                       "int8_ops": lites["lite_int8"].int8_ops,
                       "size_fp32": os.path.getsize(fp), "size_int8": os.path.getsize(sq)}
                for key in COLS:
                    ms.set_context(mode=ms.GRAPH_MODE if key == "spore_fp32" else ms.PYNATIVE_MODE)
                    f = runner(key)
                    row[key] = measure(lambda f=f: f(x), budget).median_s
                ms.set_context(mode=ms.PYNATIVE_MODE)
                rows.append(row)
                print(f"  {name} b{batch}: " + ", ".join(f"{k} {row[k] * 1e3:.3f} ms" for k in COLS), file=sys.stderr)
    return {"quick": quick, "rows": rows}


def report(res: dict) -> str:
    """Markdown: latency table, ratio table, accuracy and size."""
    lines = ["### int8 PTQ: latency (median ms, 1 thread)", "",
             "| net | batch | " + " | ".join(COLS) + " |", "|---|---:|" + "---:|" * len(COLS)]
    for r in res["rows"]:
        lines.append(f"| {r['net']} | {r['batch']} | " + " | ".join(f"{r[c] * 1e3:.3f}" for c in COLS) + " |")
    lines += ["", "Ratios (< 1 means the int8 runtime is faster than its float32 counterpart):", "",
              "| net | batch | Spore int8 / Spore fp32 Graph | Spore int8 / Spore fp32 PyNative | "
              "lite int8 / lite fp32 | lite int8 / Spore fp32 Graph | "
              "ort int8 (Spore QDQ) / ort fp32 | ort int8 (ort quantize) / ort fp32 |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["rows"]:
        lines.append(f"| {r['net']} | {r['batch']} | {r['spore_int8'] / r['spore_fp32']:.2f} | "
                     f"{r['spore_int8'] / r['spore_fp32_pynative']:.2f} | "
                     f"{r['lite_int8'] / r['lite_fp32']:.2f} | {r['lite_int8'] / r['spore_fp32']:.2f} | "
                     f"{r['ort_int8_spore'] / r['ort_fp32']:.2f} | {r['ort_int8_ortq'] / r['ort_fp32']:.2f} |")
    lines += ["", "Test accuracy (%) and ONNX file size:", "",
              "| net | " + " | ".join(COLS) + " | fp32 .onnx bytes | Spore QDQ bytes | ratio |",
              "|---|" + "---:|" * (len(COLS) + 3)]
    for r in res["rows"]:
        if r["batch"] != 1:
            continue
        a = r["acc"]
        lines.append(f"| {r['net']} | " + " | ".join(f"{100 * a[c]:.2f}" for c in COLS)
                     + f" | {r['size_fp32']} | {r['size_int8']} | {r['size_fp32'] / r['size_int8']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    res = run(args.quick)
    print(report(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
