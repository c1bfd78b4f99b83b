"""`spore-run` (also ``python -m spore.communication.run``): launch a training script on N ranks.

    spore-run -n 2 train.py --epochs 3                 # one machine: ranks pinned to their own cores
    spore-run -n 4 --hosts node1,node2 train.py        # several machines (or --hostfile FILE)

It calls Open MPI's ``mpirun`` (what MindSpore's ``msrun`` is to MindSpore) with the flags a run
needs: ``--allow-run-as-root`` when run as root; on one machine each rank bound to
``cores // n`` cores of its own with ``OMP_NUM_THREADS`` (and the BLAS thread counts) set to that
many threads, so ranks do not oversubscribe the CPU (``--oversubscribe`` and one thread each when
there are more ranks than cores), and traffic kept on loopback and shared memory; the
communication timeout (``--timeout``, ``SPORE_COMM_TIMEOUT``) passed to every rank. Each rank's
output goes to ``<log-dir>/rank_<r>.log``; the console shows rank 0's output and every rank's errors.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spore-run", description="Run a Spore training script on N MPI ranks.")
    p.add_argument("-n", "--np", dest="n", type=int, required=True, help="number of ranks")
    p.add_argument("--hosts", help="comma-separated host names (each may end in :slots)")
    p.add_argument("--hostfile", help="an Open MPI hostfile")
    p.add_argument("--log-dir", default="spore_logs", help="where rank_<r>.log files go (default: spore_logs)")
    p.add_argument("--threads", type=int, help="threads per rank (default: cores // n on one machine)")
    p.add_argument("--timeout", type=float, help="seconds a collective may wait before the job is aborted")
    p.add_argument("--mpirun", default="mpirun", help="the mpirun executable")
    p.add_argument("--dry-run", action="store_true", help="print the mpirun command and exit")
    p.add_argument("script", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def build_command(argv: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The mpirun command line and environment for `argv` (spore-run's arguments)."""
    a = _parser().parse_args(list(argv))
    if a.n < 1:
        raise SystemExit(f"spore-run: -n must be at least 1, got {a.n}")
    if a.hosts and a.hostfile:
        raise SystemExit("spore-run: give --hosts or --hostfile, not both")
    if a.threads is not None and a.threads < 1:
        raise SystemExit(f"spore-run: --threads must be at least 1, got {a.threads}")
    if not os.path.isfile(a.script):
        raise SystemExit(f"spore-run: no such script: {a.script}")
    if shutil.which(a.mpirun) is None:
        raise SystemExit(f"spore-run: {a.mpirun!r} not found; install Open MPI (Debian: apt-get install "
                         "openmpi-bin libopenmpi-dev)")
    env = dict(os.environ)
    cmd = [a.mpirun, "-n", str(a.n)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    single = not (a.hosts or a.hostfile)
    if single:
        cores = _cores()
        if a.n <= cores:
            threads = a.threads or max(1, cores // a.n)
            cmd += ["--map-by", f"slot:PE={threads}", "--bind-to", "core"]
        else:
            threads = a.threads or 1
            cmd += ["--oversubscribe", "--bind-to", "none"]
        cmd += ["--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo",
                "--mca", "oob_tcp_if_include", "lo"]
    else:
        threads = a.threads or 1
        cmd += ["--host", a.hosts] if a.hosts else ["--hostfile", a.hostfile]
        cmd += ["--bind-to", "core"]
    for var in _THREAD_VARS:
        env[var] = str(threads)
    if a.timeout is not None:
        if a.timeout <= 0:
            raise SystemExit(f"spore-run: --timeout must be positive, got {a.timeout}")
        env["SPORE_COMM_TIMEOUT"] = str(a.timeout)
    forwarded = [*_THREAD_VARS, "PYTHONPATH", "SPORE_COMM_TIMEOUT"]
    for var in forwarded:
        if var in env:
            cmd += ["-x", var]
    log_dir = os.path.abspath(a.log_dir)
    cmd += [sys.executable, "-m", "spore.communication._rank_entry", log_dir, a.script, *a.args]
    return cmd, env


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``spore-run``: run mpirun and return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd, env = build_command(argv)
    if _parser().parse_args(argv).dry_run:
        print(" ".join(cmd))
        return 0
    os.makedirs(cmd[cmd.index("spore.communication._rank_entry") + 1], exist_ok=True)
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
