"""ms.set_cpu_affinity binds the process with os.sched_setaffinity (run in a child process, so the
test runner keeps its own binding)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import spore as ms

CHILD = textwrap.dedent("""
    import os, json
    import spore as ms
    from spore.cpu_affinity import cpu_affinity_config
    before = sorted(os.sched_getaffinity(0))
    out = {"before": before}
    ms.set_cpu_affinity(True, affinity_cpu_list=[f"{before[0]}"])
    out["one"] = sorted(os.sched_getaffinity(0))
    ms.set_cpu_affinity(True, module_to_cpu_dict={"main": [before[-1]], "minddata": [before[0]]})
    out["main"] = sorted(os.sched_getaffinity(0))
    out["config"] = cpu_affinity_config()
    ms.set_cpu_affinity(True)
    out["all"] = sorted(os.sched_getaffinity(0))
    ms.set_cpu_affinity(False)
    out["restored"] = sorted(os.sched_getaffinity(0))
    print(json.dumps(out))
""")


def test_binds_and_restores_in_a_child_process():
    import json

    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    before = out["before"]
    assert out["one"] == [before[0]]
    assert out["main"] == [before[-1]]
    assert out["config"]["modules"] == {"main": [before[-1]], "minddata": [before[0]]}
    assert out["all"] == before and out["restored"] == before


def test_bad_arguments_are_refused_without_binding():
    mine = set(os.sched_getaffinity(0))
    with pytest.raises(ValueError, match="not available"):
        ms.set_cpu_affinity(True, affinity_cpu_list=["100000-100001"])
    with pytest.raises(ValueError, match="'N' or 'A-B'"):
        ms.set_cpu_affinity(True, affinity_cpu_list=["x"])
    with pytest.raises(ValueError, match="bind_file"):
        ms.set_cpu_affinity(True, bind_file="b.json")
    with pytest.raises(ValueError, match="keys"):
        ms.set_cpu_affinity(True, module_to_cpu_dict={"gpu": [0]})
    with pytest.raises(TypeError, match="enable_affinity"):
        ms.set_cpu_affinity("yes")
    assert set(os.sched_getaffinity(0)) == mine
