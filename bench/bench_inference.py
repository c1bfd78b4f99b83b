"""Benchmark: ONNX and inference — (1) the ONNX backend node suite through Spore and onnxruntime in
the same run; (2) latency and throughput at batch 1 and 32 for the Graph-mode zoo (tests/onnx/zoo.py):
Spore Graph mode, spore.lite float and int8 (QDQ made by onnxruntime.quantization.quantize_static),
onnxruntime float and int8, and PyTorch eager when torch imports (a twin of each net with Spore's
weights copied by name, timed only after its output matches Spore's within 1e-4; "not installed"
otherwise); (3) `import spore.lite` time and RSS vs `import spore`
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
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
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
            row.update(_time_torch(torch, name, net, x, budget))
            rows.append(row)
            print(f"  {name} b{batch}: " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in row.items()
                                                    if isinstance(v, float) and k != "torch_maxdiff"),
                  file=sys.stderr)
    return rows


def _time_torch(torch, name: str, net, x: np.ndarray, budget: float) -> dict:
    """The PyTorch column of one row: eager under inference_mode, 1 thread, timed only when the
    twin's output equals Spore's (PyNative) within 1e-4; otherwise a reason instead of a time."""
    if torch is None:
        return {"torch": "not installed"}
    import spore as ms

    module, why = torch_twin(name, net)
    if module is None:
        return {"torch": f"n/a: {why}"}
    tx = torch.from_numpy(x)
    with torch.inference_mode():
        got = module(tx).numpy()
    want = net(ms.Tensor(x)).asnumpy()
    if got.shape != want.shape:
        return {"torch": f"n/a: output shape {got.shape} vs Spore {want.shape}"}
    diff = float(np.max(np.abs(got - want)))
    if not diff <= 1e-4:
        return {"torch": f"n/a: output differs from Spore's by {diff:.2e}", "torch_maxdiff": diff}

    def run():
        with torch.inference_mode():
            return module(tx)

    return {"torch": measure(run, budget).median_s, "torch_maxdiff": diff}


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


# ---- PyTorch twins of the zoo (built only when torch imports) ----------------------------------

# Spore parameter name -> torch state_dict name, where they differ (MindSpore's BatchNorm/LayerNorm
# names); everything else (Conv (out, in, kh, kw), Dense (out, in), LSTM's i, f, g, o gate blocks,
# MultiheadAttention's packed in_proj) has the same name and layout in both.
_TORCH_RENAMES = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
                  "moving_variance": "running_var"}


def torch_twin(name: str, net) -> tuple:
    """A torch.nn.Module computing what the Spore zoo net `name` computes, with `net`'s weights.

    Returns (module, None) or (None, reason) when no faithful twin exists. Built from the zoo's
    definitions in tests/compiler/test_zoo.py, tests/nets.py and tests/onnx/zoo.py: MindSpore's
    defaults are spelled out where they differ from torch's (Conv2d pad_mode="same" and no bias,
    LayerNorm epsilon 1e-7, BatchNorm momentum 0.9 = torch's 0.1)."""
    import torch
    from torch import nn as tnn

    class MLP(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = tnn.Linear(20, 32), tnn.Linear(32, 16), tnn.Linear(16, 4)

        def forward(self, x):
            return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    class LeNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(1, 6, 3, padding=1, bias=False)
            self.conv2 = tnn.Conv2d(6, 16, 3, padding=1, bias=False)
            self.fc1, self.fc2 = tnn.Linear(64, 32), tnn.Linear(32, 10)

        def forward(self, x):
            x = torch.max_pool2d(torch.relu(self.conv1(x)), 2, 2)
            x = torch.max_pool2d(torch.relu(self.conv2(x)), 2, 2)
            return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))

    class SimpleCNN(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 16, 3, padding=1, bias=False)
            self.fc = tnn.Linear(16 * 16 * 16, 10)

        def forward(self, x):
            return self.fc(torch.flatten(torch.max_pool2d(torch.relu(self.conv1(x)), 2, 2), 1))

    class ShapeIf(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 8, 3, padding="same", bias=False)

        def forward(self, x):
            if x.shape[1] > 3:
                x = x[:, :3]
            return torch.relu(self.conv1(x))

    class ValueIf(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(6, 6)

        def forward(self, x):
            h = self.fc(x)
            return h * 0.9 if h.sum() > 0 else h * 1.1

    class ValueWhile(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            while h.abs().sum() > 1.0:
                h = h * 0.5
            return h

    class LSTMNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = tnn.LSTM(input_size=5, hidden_size=7, num_layers=2)
            self.fc = tnn.Linear(7, 3)

        def forward(self, x):
            output, (_, c_n) = self.lstm(x)
            return self.fc(output[-1]) + c_n.sum()

    class Encoder(tnn.Module):
        def __init__(self):
            super().__init__()
            self.attention = tnn.MultiheadAttention(embed_dim=16, num_heads=4)
            self.norm = tnn.LayerNorm(16, eps=1e-7)
            self.ffn = tnn.Linear(16, 16)

        def forward(self, x):
            attn_output, _ = self.attention(x, x, x, need_weights=False)
            x = self.norm(x + attn_output)
            return x + self.ffn(x)

    class BNNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(3, 4, 3, padding="same", bias=True)
            self.bn = tnn.BatchNorm2d(4, eps=1e-5, momentum=0.1)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    classes = {"mlp": MLP, "lenet": LeNet, "simplecnn": SimpleCNN, "shape_if_wide": ShapeIf,
               "shape_if_narrow": ShapeIf, "value_if": ValueIf, "value_while": ValueWhile,
               "lstm": LSTMNet, "encoder": Encoder, "batchnorm_eval": BNNet}
    if name not in classes:
        return None, f"no PyTorch twin written for zoo net {name!r}"
    module = classes[name]()
    state = {}
    for pname, p in net.parameters_and_names():
        head, _, leaf = pname.rpartition(".")
        state[(head + "." if head else "") + _TORCH_RENAMES.get(leaf, leaf)] = torch.from_numpy(p.asnumpy().copy())
    want = module.state_dict()
    missing = sorted(set(want) - set(state) - {k for k in want if k.endswith("num_batches_tracked")})
    extra = sorted(set(state) - set(want))
    if missing or extra:
        return None, f"weights do not map by name (torch lacks {extra}, Spore lacks {missing})"
    for k, v in state.items():
        if tuple(v.shape) != tuple(want[k].shape):
            return None, f"{k}: Spore shape {tuple(v.shape)} vs torch {tuple(want[k].shape)}"
    module.load_state_dict(state, strict=False)
    return module.eval(), None


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
                  "| net | batch | " + " | ".join(cols) + " | torch | lite_float samples/s | lite int8 ops |",
                  "|---|---:|" + "---:|" * (len(cols) + 3)]
        for r in res["latency"]:
            t = r.get("torch")
            t = f"{t * 1e3:.3f}" if isinstance(t, float) else "n/a" if str(t).startswith("n/a") else "-"
            lines.append(f"| {r['net']} | {r['batch']} | " + " | ".join(f"{r[c] * 1e3:.3f}" for c in cols)
                         + f" | {t} | {r['batch'] / r['lite_float']:.0f} | {r['int8_ops']} |")
        lines += ["", "Ratios (time / onnxruntime float time; < 1 is faster than onnxruntime float):", "",
                  "| net | batch | spore_graph | lite_float | lite_int8 | ort_int8 | lite_int8 / lite_float |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for r in res["latency"]:
            o = r["ort_float"]
            lines.append(f"| {r['net']} | {r['batch']} | {r['spore_graph'] / o:.2f} | {r['lite_float'] / o:.2f} | "
                         f"{r['lite_int8'] / o:.2f} | {r['ort_int8'] / o:.2f} | "
                         f"{r['lite_int8'] / r['lite_float']:.2f} |")
    if res.get("latency") and all(r.get("torch") == "not installed" for r in res["latency"]):
        lines.append("\nPyTorch: not installed.\n")
    elif res.get("latency"):
        lines += ["", "PyTorch eager (torch.inference_mode, 1 thread) on a twin of each net carrying Spore's weights:",
                  "", "| net | batch | torch ms | torch / ort_float | torch / spore_graph | max abs diff vs Spore |",
                  "|---|---:|---:|---:|---:|---:|"]
        for r in res["latency"]:
            t = r.get("torch", "not installed")
            d = f"{r['torch_maxdiff']:.1e}" if "torch_maxdiff" in r else "-"
            if isinstance(t, float):
                lines.append(f"| {r['net']} | {r['batch']} | {t * 1e3:.3f} | {t / r['ort_float']:.2f} | "
                             f"{t / r['spore_graph']:.2f} | {d} |")
            else:
                lines.append(f"| {r['net']} | {r['batch']} | {t} | - | - | {d} |")
        lines.append("")
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
