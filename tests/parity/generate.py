"""Writes tests/fixtures/mindspore-2.10/parity.npz with real MindSpore: run once, by hand, in a
throwaway environment. The tests never run it, and Spore is not imported here.

    python3 -m venv /tmp/msvenv && /tmp/msvenv/bin/pip install mindspore==2.10.0 'numpy<2'
    /tmp/msvenv/bin/python -m tests.parity.generate          # from the project root

Keys are "<case>|<field>|<index or parameter name>". The case names and specs are in cases.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from .cases import layer_cases, loss_cases, lr_cases, optim_cases
from .runner import run_layer, run_lr, run_optim

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore-2.10" / "parity.npz"


def main() -> int:
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    arrays: dict[str, np.ndarray] = {}
    failed: dict[str, str] = {}
    for case in layer_cases() + loss_cases():
        try:
            r = run_layer(ms, case)
        except Exception as e:  # noqa: BLE001  (recorded: the case list is fixed to what MindSpore runs)
            failed[case.name] = f"{type(e).__name__}: {e}".splitlines()[0]
            continue
        for field in ("inputs", "outputs", "cots", "grads_in"):
            for i, a in enumerate(r[field]):
                arrays[f"{case.name}|{field}|{i}"] = a
        for field in ("params", "params_after", "grads_w"):
            for name, a in r[field].items():
                arrays[f"{case.name}|{field}|{name}"] = a
    for case in optim_cases():
        try:
            r = run_optim(ms, case)
        except Exception as e:  # noqa: BLE001
            failed[case.name] = f"{type(e).__name__}: {e}".splitlines()[0]
            continue
        arrays[f"{case.name}|losses|0"] = r["losses"]
        for field in ("params", "final"):
            for name, a in r[field].items():
                arrays[f"{case.name}|{field}|{name}"] = a
    for case in lr_cases():
        arrays[f"{case.name}|lr|0"] = run_lr(ms, case)
    meta = {"mindspore": ms.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")
    for name, why in failed.items():
        print(f"MindSpore refused {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
