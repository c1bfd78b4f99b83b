"""Benchmark: how long a user waits before Spore answers — `import spore`, the engine's first use,
and the Spore Jupyter kernel's start-up — beside `import torch` and a stock ipykernel, in one run.

Each import is timed in a fresh interpreter (`python -c`), minus the interpreter's own start-up
(`python -c pass`), best of `--repeats`; runs of all rows are interleaved so outside load biases
none of them. The kernel time is from `start_kernel` until the kernel_info reply, as a notebook
front end waits for it. Targets (issue 10): `import spore` < 0.3 s, Spore kernel ready < 0.8 s.

    .venv/bin/python bench/bench_startup.py [--repeats 5] [--no-torch]
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
IMPORTS = {
    "python -c pass": "pass",
    "import spore": "import spore",
    "import spore + first Tensor": "import numpy, spore; spore.Tensor(numpy.ones(2, numpy.float32)) + 1",
    "import spore.compiler.support": "import spore.compiler.support",
    "import spore.ide": "import spore.ide",
    "import torch": "import torch",
}


def time_import(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                   env=dict(os.environ, OMP_NUM_THREADS="1"))
    return time.perf_counter() - t0


def has_torch() -> bool:
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def kernel_start(name: str, data_dir: Path) -> float:
    """Seconds from start_kernel to the kernel_info reply of one fresh kernel."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=name, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(data_dir)]))
    km.transport, km.ip = "tcp", "127.0.0.1"
    t0 = time.perf_counter()
    km.start_kernel(stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()
    try:
        kc.kernel_info(reply=True, timeout=120)
        return time.perf_counter() - t0
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def install_specs(tmp: Path) -> Path:
    """The Spore kernelspec (the package's own installer) and a stock ipykernel spec, under tmp."""
    subprocess.run([sys.executable, "-m", "spore_kernel", "install", "--prefix", str(tmp),
                    "--env", "OMP_NUM_THREADS=1"], check=True, capture_output=True)
    kernels = tmp / "share" / "jupyter" / "kernels"
    stock = kernels / "stock"
    stock.mkdir(parents=True, exist_ok=True)
    (stock / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "stock ipykernel", "language": "python"}))
    return kernels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_args(argv)
    rows = dict(IMPORTS)
    if a.no_torch or not has_torch():
        rows.pop("import torch")
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="spore-startup-") as tmp:
        kernels = install_specs(Path(tmp))
        for _ in range(a.repeats):
            for label, code in rows.items():
                best[label] = min(best.get(label, 1e9), time_import(code))
            for label, name in (("Spore kernel ready", "spore"), ("stock ipykernel ready", "stock")):
                best[label] = min(best.get(label, 1e9), kernel_start(name, kernels))
    base = best["python -c pass"]
    print(f"{'start-up (best of ' + str(a.repeats) + ')':<34}{'seconds':>9}   target")
    print("-" * 56)
    targets = {"import spore": 0.3, "Spore kernel ready": 0.8}
    for label, t in best.items():
        if label == "python -c pass":
            continue
        net = t - base if label.startswith("import") else t
        target = targets.get(label)
        mark = "" if target is None else (f"< {target:.1f}  " + ("met" if net < target else "MISSED"))
        print(f"{label:<34}{net:>9.3f}   {mark}")
    print(f"(imports net of the interpreter's own start-up, {base:.3f} s; kernels from start_kernel to kernel_info)")
    if "import torch" not in best:
        print("import torch: n/a (torch not importable here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
