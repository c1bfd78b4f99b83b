"""Benchmark: ONNX and inference — (1) the ONNX backend node suite through Spore and onnxruntime in
the same run; (2) latency and throughput at batch 1 and 32 for the Graph-mode zoo (tests/onnx/zoo.py):
Spore Graph mode, spore.lite float and int8 (QDQ made by onnxruntime.quantization.quantize_static),
onnxruntime float and int8, PyTorch when importable (a model with the same weights is not built
here: PyTorch is reported as absent or skipped); (3) `import spore.lite` time and RSS vs `import spore`
(and vs the training stack a script loads).

Every runtime uses ONE thread (thread_num=1, intra_op_num_threads=1): the machine's 2 cores are
shared, and batch-1 latency is the lite runtime's target. Latency is the median of timed calls
(bench/timing.measure); throughput = batch / median latency.

    .venv/bin/python bench/bench_inference.py [--quick] [--json out.json]

--quick: every 8th node-suite case, a shorter time budget per cell, batch 1 and 32 still.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "engine")]
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from bench.timing import measure  # noqa: E402

# batch axis of each zoo input (LSTM and the encoder take (seq, batch, feature))
BATCH_AXIS = {"lstm": 1, "encoder": 1}


def node_suite(quick: bool) -> dict:
    from spore.onnx.backend import node_cases, run_node_suite

    cases = node_cases()
    if quick:
        cases = cases[::8]
    out = {}
    for rt in ("spore", "onnxruntime"):
        t0 = time.perf_counter()
        r = run_node_suite(cases, runtime=rt)
        out[rt] = {"total": r.total, "passed": r.passed, "failed": len(r.failed),
                   "not_implemented": len(r.not_implemented), "seconds": time.perf_counter() - t0}
    return out


class _Calib:
    def __init__(self, shape: tuple) -> None:
        self.it = iter([{"x": np.random.default_rng(100 + i).standard_normal(shape).astype(np.float32)}
                        for i in range(8)])

    def get_next(self) -> dict | None:
        return next(self.it, None)


def latency(quick: bool, folder: str) -> list[dict]:
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    import spore as ms
    from spore import lite
    from spore.onnx import export
    from tests.onnx.test_export_zoo import _net
    from tests.onnx.zoo import ZOO

    calib_cls = type("Calib", (_Calib, CalibrationDataReader), {})
    try:
        import torch  # noqa: F401
        torch_note = "installed, but no PyTorch twin of the zoo is built here"
    except ImportError:
        torch_note = "not installed"
    budget = 0.15 if quick else 0.6
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    ctx = lite.Context()
    ctx.cpu.thread_num = 1
    rows = []
    for name in ZOO:
        if name in ("shape_if_narrow",):  # same net as shape_if_wide, other branch
            continue
        for batch in (1, 32):
            net, x0 = _net(name)
            shape = list(x0.shape)
            shape[BATCH_AXIS.get(name, 0)] = batch
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            path = export(net, ms.Tensor(x), file_name=os.path.join(folder, f"{name}_b{batch}.onnx"))
            qpath = path[:-5] + "_int8.onnx"
            quantize_static(path, qpath, calib_cls(tuple(shape)), quant_format=QuantFormat.QDQ)
            row = {"net": name, "batch": batch}

            ms.set_context(mode=ms.GRAPH_MODE)
            tx = ms.Tensor(x)
            row["spore_graph"] = measure(lambda: net(tx).asnumpy(), budget).median_s
            ms.set_context(mode=ms.PYNATIVE_MODE)
            for key, p in (("lite_float", path), ("lite_int8", qpath)):
                m = lite.Model()
                m.build_from_file(p, lite.ModelType.ONNX, ctx)
                row[key] = measure(lambda m=m: m.predict([x]), budget).median_s
                if key == "lite_int8":
                    row["int8_ops"] = m.int8_ops
            for key, p in (("ort_float", path), ("ort_int8", qpath)):
                s = ort.InferenceSession(p, opts, providers=["CPUExecutionProvider"])
                row[key] = measure(lambda s=s: s.run(None, {"x": x}), budget).median_s
            row["torch"] = torch_note
            rows.append(row)
            print(f"  {name} b{batch}: " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in row.items()
                                                    if isinstance(v, float)), file=sys.stderr)
    return rows


IMPORTS = {
    "python -c pass": "pass",
    "import spore.lite": "import spore.lite",
    "spore.lite + build + predict (LeNet)": None,  # filled in with a model path
    "import spore": "import spore",
    "import spore + nn + Tensor (training stack)":
        "import numpy, spore; spore.nn.Dense(2, 2)(spore.Tensor(numpy.ones((1, 2), numpy.float32)))",
    "import onnxruntime": "import onnxruntime",
}


def imports(folder: str, repeats: int) -> list[dict]:
    import spore as ms
    from spore.onnx import export
    from tests.onnx.test_export_zoo import _net

    net, x = _net("lenet")
    path = export(net, ms.Tensor(x), file_name=os.path.join(folder, "lenet_imp.onnx"))
    np.save(os.path.join(folder, "x.npy"), x)
    table = dict(IMPORTS)
    table["spore.lite + build + predict (LeNet)"] = (
        "import numpy as np; from spore import lite; m = lite.Model(); "
        f"m.build_from_file({path!r}, lite.ModelType.ONNX); m.predict([np.load({os.path.join(folder, 'x.npy')!r})])")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "engine"), OMP_NUM_THREADS="1")
    # peak RSS of this process image (VmHWM; ru_maxrss would carry the parent's peak across exec)
    probe = ("; import sys; print(next(int(l.split()[1]) for l in open('/proc/self/status') "
             "if l.startswith('VmHWM')), len(sys.modules))")
    best: dict[str, list] = {k: [1e9, 0, 0] for k in table}
    for _ in range(repeats):  # interleaved, best of `repeats`
        for label, code in table.items():
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", code + probe], capture_output=True, text=True, env=env,
                                 check=True)
            dt = time.perf_counter() - t0
            rss_kb, nmod = (int(v) for v in out.stdout.split()[-2:])
            best[label] = [min(best[label][0], dt), rss_kb, nmod]
    base_t, base_rss = best["python -c pass"][0], best["python -c pass"][1]
    return [{"what": k, "seconds": v[0] - base_t, "rss_mb": v[1] / 1024, "extra_rss_mb": (v[1] - base_rss) / 1024,
             "modules": v[2]} for k, v in best.items()]


def report(res: dict) -> str:
    lines = []
    ns = res.get("node_suite")
    if ns:
        lines += ["### ONNX backend node suite (same run)", "",
                  "| runtime | cases | passed | failed | not implemented | pass % of all | time s |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for rt, r in ns.items():
            lines.append(f"| {rt} | {r['total']} | {r['passed']} | {r['failed']} | {r['not_implemented']} | "
                         f"{r['passed'] / r['total']:.1%} | {r['seconds']:.1f} |")
        sp = ns["spore"]
        lines.append(f"\nSpore passes {sp['passed'] / max(sp['passed'] + sp['failed'], 1):.1%}"
                     " of the cases whose ops it declares.\n")
    cols = ["spore_graph", "lite_float", "lite_int8", "ort_float", "ort_int8"]
    if res.get("latency"):
        lines += ["### Latency (median ms, 1 thread) and throughput (samples/s)", "",
                  "| net | batch | " + " | ".join(cols) + " | lite_float samples/s | lite int8 ops |",
                  "|---|---:|" + "---:|" * (len(cols) + 2)]
        for r in res["latency"]:
            lines.append(f"| {r['net']} | {r['batch']} | " + " | ".join(f"{r[c] * 1e3:.3f}" for c in cols)
                         + f" | {r['batch'] / r['lite_float']:.0f} | {r['int8_ops']} |")
        lines += ["", "Ratios (time / onnxruntime float time; < 1 is faster than onnxruntime float):", "",
                  "| net | batch | spore_graph | lite_float | lite_int8 | ort_int8 | lite_int8 / lite_float |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for r in res["latency"]:
            o = r["ort_float"]
            lines.append(f"| {r['net']} | {r['batch']} | {r['spore_graph'] / o:.2f} | {r['lite_float'] / o:.2f} | "
                         f"{r['lite_int8'] / o:.2f} | {r['ort_int8'] / o:.2f} | "
                         f"{r['lite_int8'] / r['lite_float']:.2f} |")
        lines.append(f"\nPyTorch: {res['latency'][0]['torch']}.\n")
    if res.get("imports"):
        lines += ["### Import time and RSS (fresh interpreter, minus `python -c pass`)", "",
                  "| what | import s | max RSS MB | RSS over bare python MB | modules |", "|---|---:|---:|---:|---:|"]
        for r in res["imports"]:
            lines.append(f"| {r['what']} | {r['seconds']:.3f} | {r['rss_mb']:.1f} | {r['extra_rss_mb']:.1f} | "
                         f"{r['modules']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--skip", default="", help="comma list of sections to skip: nodes,latency,imports")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    res: dict = {"quick": args.quick}
    with tempfile.TemporaryDirectory() as folder:
        if "nodes" not in skip:
            res["node_suite"] = node_suite(args.quick)
        if "latency" not in skip:
            res["latency"] = latency(args.quick, folder)
        if "imports" not in skip:
            res["imports"] = imports(folder, 2 if args.quick else 5)
    print(report(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
