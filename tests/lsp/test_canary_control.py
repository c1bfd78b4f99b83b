"""Negative control for the canary test (tests/lsp/test_static_only.py)."""

import subprocess
import sys

from .test_static_only import canary_source


def test_the_canary_source_writes_every_canary_when_it_is_run(tmp_path):
    """Negative control: run as a program, the canary file writes all five canaries, so an empty
    directory after the server has seen it means the server did not run it."""
    script = tmp_path / "run.py"
    script.write_text(canary_source(str(tmp_path / "canary")))
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "canary.construct", "canary.exec", "canary.import", "canary.system", "canary.top", "run.py"]
