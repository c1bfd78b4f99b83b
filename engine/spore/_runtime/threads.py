"""Spore's OpenMP thread policy, applied before libgomp loads (at `import spore`).

Why: Spore runs inside an IDE next to a language server, a browser and a notebook kernel. With
libgomp's default (spin ~300k iterations at every barrier, then sleep) a 2-thread step on 2 busy
cores waits at every small parallel region for a descheduled thread: measured here, MLP 784-256-128-10
b64 under two busy processes ran 199 steps/s on 1 thread and 7 on 2 (PyNative), 534 vs 16 (Graph).
With ``OMP_WAIT_POLICY=passive`` the waiting threads sleep at once and the same runs gave 139 vs 140
and 356 vs 380. The rest of the policy is in the kernels: GEMMs below a grain size run on the
calling thread alone (engine/csrc/kernels.h), elementwise loops already had one.

libgomp reads its environment once, when it is loaded (the first import of `spore._kernels`), so
this only sets defaults in ``os.environ`` and never overrides what a user chose:

- ``OMP_WAIT_POLICY=passive`` unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set, or
  ``SPORE_WAIT_POLICY=active`` asks for libgomp's spinning default;
- ``OMP_NUM_THREADS`` = ``SPORE_NUM_THREADS`` if given, else the number of cores in the process's
  affinity mask (``os.sched_getaffinity``; a process pinned by taskset or a container's cpuset gets
  as many threads as it may run on), unless OMP_NUM_THREADS is set;
- NumPy's own BLAS (OpenBLAS) on one thread, unless OPENBLAS_NUM_THREADS is set: Spore hands it only
  products too small for its own GEMM, and OpenBLAS's spinning workers then compete with Spore's
  thread (measured: MLP PyNative at 2 threads 1,202 steps/s with them, 1,469 without; 1 thread
  1,454). If NumPy was imported before Spore, the limit is applied through threadpoolctl.

The policy changes scheduling only, never which arithmetic runs: the team size decides oneDNN's work
split, whose float32 sums may round differently between 1 and 2 threads (tests hold them to 1e-5),
and the wait policy decides nothing about results at all (bitwise identical; tests check both).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

__all__ = ["configure_environment", "policy", "affinity_cores"]

_POLICY: dict[str, Any] = {}


def affinity_cores() -> int:
    """Cores this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _libgomp_loaded() -> bool:
    """Whether an OpenMP runtime is in the process already (then the environment is read already)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            return "libgomp" in f.read()
    except OSError:
        return False


def _positive_int(name: str, text: str) -> int | None:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        warnings.warn(f"{name}={text!r} is not a positive integer; ignored", RuntimeWarning, stacklevel=3)
        return None
    return n


def configure_environment(environ: Any = None) -> dict[str, Any]:
    """Set the thread policy's defaults in `environ` (os.environ) and return what was decided.

    Idempotent; called from ``spore/__init__.py`` before anything loads the kernels.
    """
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {"affinity_cores": affinity_cores()}
    wait = env.get("SPORE_WAIT_POLICY", "passive").strip().lower()
    if wait not in ("passive", "active"):
        warnings.warn(f"SPORE_WAIT_POLICY={wait!r}: expected 'passive' or 'active'; using passive", RuntimeWarning,
                      stacklevel=2)
        wait = "passive"
    if "OMP_WAIT_POLICY" in env or "GOMP_SPINCOUNT" in env:
        out["wait_policy"] = f"user (OMP_WAIT_POLICY={env.get('OMP_WAIT_POLICY')}, " \
                             f"GOMP_SPINCOUNT={env.get('GOMP_SPINCOUNT')})"
    elif wait == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
        out["wait_policy"] = "passive"
    else:
        out["wait_policy"] = "libgomp default (active spin)"
    if "OMP_NUM_THREADS" in env:
        out["threads"] = f"user (OMP_NUM_THREADS={env['OMP_NUM_THREADS']})"
    else:
        n = _positive_int("SPORE_NUM_THREADS", env["SPORE_NUM_THREADS"]) if "SPORE_NUM_THREADS" in env else None
        env["OMP_NUM_THREADS"] = str(n or out["affinity_cores"])
        out["threads"] = int(env["OMP_NUM_THREADS"])
    if "OPENBLAS_NUM_THREADS" in env:
        out["numpy_blas_threads"] = f"user (OPENBLAS_NUM_THREADS={env['OPENBLAS_NUM_THREADS']})"
    else:
        env["OPENBLAS_NUM_THREADS"] = "1"
        out["numpy_blas_threads"] = 1
        if environ is None and "numpy" in sys.modules:  # OpenBLAS read its environment already
            _limit_loaded_blas()
    if environ is None:
        out["libgomp_loaded_before"] = _libgomp_loaded() and "spore._kernels" not in sys.modules
        if not _POLICY:
            _POLICY.update(out)
    return out


def _limit_loaded_blas() -> None:
    """One thread for a BLAS NumPy has loaded already (the environment variable is too late then)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=1, user_api="blas")


def policy() -> dict[str, Any]:
    """What `configure_environment` decided for this process (for reports and `spore.runcheck`)."""
    return dict(_POLICY)
