"""Headless Debian Chromium for the viewer's tests: load a page, let its scripts run, dump the DOM.

`--dump-dom` needs no network, no driver and no npm package; a page reports what a test needs by
writing it into the DOM (an attribute, a <pre>), which the dump then carries.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,900",
         "--enable-logging=stderr", "--v=0"]


def dump_dom(page: Path, fragment: str = "", budget_ms: int | None = None) -> tuple[str, str]:
    """(DOM after the scripts ran, Chromium's stderr with the console lines)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: the viewer's browser tests need Debian's chromium "
                    "(apt-get install -y chromium; `make sysdeps` installs it)")
    extra = [f"--virtual-time-budget={budget_ms}"] if budget_ms else []
    proc = subprocess.run([CHROMIUM, *FLAGS, *extra, "--dump-dom", page.resolve().as_uri() + fragment],
                          capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def console_errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "CONSOLE" in ln and ("Uncaught" in ln or "Error" in ln)]
