"""The processes under debugpy's adapter (its launcher, the debuggee, their children), so that a
session that ends badly (the client vanished, debugpy hung) leaves nothing running.

psutil when it is installed, else a walk over /proc (Linux); elsewhere, only the direct child is
known and killed."""

from __future__ import annotations

import os
import signal


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid`, parents before children."""
    try:
        import psutil
    except ImportError:
        return _proc_descendants(pid)
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _proc_descendants(pid: int) -> list[int]:
    if not os.path.isdir("/proc"):
        return []
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill(pids: list[int]) -> None:
    """SIGKILL each pid that still exists (children first would not matter: all go at once)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
