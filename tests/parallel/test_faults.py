"""A rank that raises, is killed or hangs ends the whole job within a bounded time with a message
naming it; no rank process is left behind; the last checkpoint written stays loadable. Ranks
that built different networks are stopped at start-up with the mismatch named."""

import os
import time
from pathlib import Path

import pytest

import spore as ms

from .mpi import mpirun

TIMEOUT_S = 4   # SPORE_COMM_TIMEOUT for the hang test


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def _run(kind: str, tmp_path: Path):
    start = time.monotonic()
    proc = mpirun(2, "faults.py", kind, str(tmp_path), timeout=90, env={"SPORE_COMM_TIMEOUT": str(TIMEOUT_S)})
    elapsed = time.monotonic() - start
    pids = [int((tmp_path / f"pid_{r}").read_text()) for r in (0, 1) if (tmp_path / f"pid_{r}").exists()]
    assert len(pids) == 2
    assert not [p for p in pids if _alive(p)], "a rank process outlived the job"
    assert proc.returncode != 0
    assert "finished (the failure did not stop the job)" not in proc.stdout
    return proc, elapsed


def _last_checkpoint_loads(tmp_path: Path) -> None:
    files = sorted((tmp_path / "ckpt").glob("*.ckpt"), key=os.path.getmtime)
    assert files, "rank 0 wrote no checkpoint before the failure"
    params = ms.load_checkpoint(str(files[-1]))
    assert "0.weight" in params


def test_a_rank_that_raises_aborts_the_job_naming_it(tmp_path):
    proc, elapsed = _run("raise", tmp_path)
    assert "[spore rank 1/2] failed with an uncaught exception" in proc.stderr
    assert "boom: rank 1 failed on purpose" in proc.stderr
    assert elapsed < 60
    _last_checkpoint_loads(tmp_path)


def test_a_killed_rank_ends_the_job_naming_it(tmp_path):
    proc, elapsed = _run("kill", tmp_path)
    assert "process rank 1" in proc.stderr and "signal 9" in proc.stderr
    assert elapsed < 60
    _last_checkpoint_loads(tmp_path)


def test_a_hung_rank_is_detected_by_the_timeout_and_the_job_aborted(tmp_path):
    proc, elapsed = _run("hang", tmp_path)
    assert f"did not complete within {TIMEOUT_S} s" in proc.stderr
    assert "rank(s) [1] did not join" in proc.stderr
    assert TIMEOUT_S <= elapsed < TIMEOUT_S + 60
    _last_checkpoint_loads(tmp_path)


@pytest.mark.parametrize("kind", ["mismatch"])
def test_ranks_with_different_parameters_are_stopped_at_start_up(tmp_path, kind):
    proc, _ = _run(kind, tmp_path)
    assert "ParameterMismatchError" in proc.stderr
    assert "parameter '0.weight' on rank 1 is (65, 20)" in proc.stderr
    assert not (tmp_path / "ckpt").exists() or not list((tmp_path / "ckpt").glob("*.ckpt"))
