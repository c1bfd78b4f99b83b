"""Start real MPI jobs from tests: ``mpirun -n N python script args`` on loopback, with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

WORKERS = Path(__file__).parent / "workers"
REPO = Path(__file__).resolve().parents[2]


def mpi_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                "OMPI_MCA_btl": "self,tcp", "OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_oob_tcp_if_include": "lo",
                "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "PYTHONPATH": str(REPO)})
    env.update(extra or {})
    return env


def mpirun(n: int, script: str, *args: str, timeout: float = 120,
           env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `script` (a file in tests/parallel/workers) on `n` ranks; raises on timeout (a hung job)."""
    cmd = ["mpirun", "-n", str(n), "--oversubscribe", "--bind-to", "none", sys.executable, str(WORKERS / script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=mpi_env(env), cwd=str(REPO))


def single(script: str, *args: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    """The same script as one plain process (no launcher)."""
    return subprocess.run([sys.executable, str(WORKERS / script), *args], capture_output=True, text=True,
                          timeout=timeout, env=mpi_env(env), cwd=str(REPO))


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, (f"exit {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\n"
                                  f"stderr:\n{proc.stderr[-5000:]}")
    return proc


def rank_results(stdout: str) -> list[dict]:
    """Every `RESULT {json}` a rank printed. mpirun merges the ranks' stdout, and two ranks' lines can
    land on one line without a newline between them, so objects are decoded where each marker starts."""
    import json

    decoder = json.JSONDecoder()
    out, at = [], stdout.find("RESULT ")
    while at >= 0:
        obj, end = decoder.raw_decode(stdout, at + len("RESULT "))
        out.append(obj)
        at = stdout.find("RESULT ", end)
    return out
