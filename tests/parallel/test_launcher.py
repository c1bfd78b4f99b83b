"""`spore-run` (python -m spore.communication.run): the mpirun command it builds, and a real run
with per-rank logs, each rank pinned to its own core with one thread."""

import subprocess
import sys

from .mpi import REPO, mpi_env

SCRIPT = '''
import os, sys
from spore.communication import get_group_size, get_rank, init
init()
print(f"rank={get_rank()} size={get_group_size()} threads={os.environ['OMP_NUM_THREADS']} "
      f"cpus={sorted(os.sched_getaffinity(0))} args={sys.argv[1:]}", flush=True)
print(f"warning from rank {get_rank()}", file=sys.stderr, flush=True)
'''


def _launch(*args, cwd):
    env = mpi_env()
    for k in ("OMPI_MCA_btl", "OMPI_MCA_rmaps_base_oversubscribe", "OMP_NUM_THREADS"):
        env.pop(k, None)
    return subprocess.run([sys.executable, "-m", "spore.communication.run", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(cwd))


def test_dry_run_shows_the_flags_for_one_machine(tmp_path):
    (tmp_path / "t.py").write_text("pass\n")
    proc = _launch("-n", "2", "--timeout", "30", "--dry-run", "t.py", "--lr", "0.1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    cmd = proc.stdout
    assert "mpirun -n 2" in cmd and "--bind-to core" in cmd and "-x OMP_NUM_THREADS" in cmd
    assert "-x SPORE_COMM_TIMEOUT" in cmd and "t.py --lr 0.1" in cmd


def test_hosts_and_bad_arguments(tmp_path):
    (tmp_path / "t.py").write_text("pass\n")
    proc = _launch("-n", "4", "--hosts", "node1,node2", "--dry-run", "t.py", cwd=tmp_path)
    assert "--host node1,node2" in proc.stdout and "btl_tcp_if_include lo" not in proc.stdout
    bad = _launch("-n", "2", "missing.py", cwd=tmp_path)
    assert bad.returncode != 0 and "no such script: missing.py" in bad.stderr
    bad = _launch("-n", "0", "t.py", cwd=tmp_path)
    assert bad.returncode != 0 and "-n must be at least 1" in bad.stderr


def test_two_ranks_pinned_with_one_thread_each_and_a_log_per_rank(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    proc = _launch("-n", "2", "--log-dir", "logs", "train.py", "--epochs", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    logs = {r: (tmp_path / "logs" / f"rank_{r}.log").read_text() for r in (0, 1)}
    for r, text in logs.items():
        assert f"rank={r} size=2 threads=1" in text and "args=['--epochs', '1']" in text
        assert f"warning from rank {r}" in text
    cpus = [logs[r].split("cpus=")[1].split(" args")[0] for r in (0, 1)]
    assert cpus[0] != cpus[1], "ranks must be bound to different cores"
    assert "rank=0" in proc.stdout and "rank=1" not in proc.stdout      # console: rank 0's output
    assert "[rank 1] warning from rank 1" in proc.stderr               # and every rank's errors
    assert str(REPO)
