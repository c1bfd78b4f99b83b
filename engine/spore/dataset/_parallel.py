"""Running one function over a stream in worker threads or processes, results in input order.

Both ``map(num_parallel_workers=n)`` and parallel source reads use ``OrderedPool``: it keeps a
bounded window of submitted chunks and yields their results first-in first-out, so the output
order is the input order however the workers interleave. Threads suit NumPy and PIL work (both
release the GIL); processes suit pure-Python work. Processes are started with ``spawn`` on every
platform, so code that works here also works where ``fork`` is unavailable or unsafe: the function
and its payload are pickled once per worker (in the initializer), and each task carries only its
items.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import pickle
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any

from ..errors import SourceLoc
from .errors import DatasetError

_state: dict[str, Any] = {}


class WorkerInitError(RuntimeError):
    """A worker process could not load the pickled operations (raised in the worker)."""


def _proc_init(fn: Callable[[Any, Any], Any], blob: bytes) -> None:
    _state["fn"] = fn
    try:
        _state["payload"] = pickle.loads(blob)
    except BaseException as e:  # report on the first task instead of crashing the pool
        _state["init_error"] = f"{type(e).__name__}: {e}"


def _proc_chunk(items: list[Any]) -> list[Any]:
    if "init_error" in _state:
        raise WorkerInitError(_state["init_error"])
    fn, payload = _state["fn"], _state["payload"]
    return [fn(payload, it) for it in items]


def _thread_chunk(fn: Callable[[Any, Any], Any], payload: Any, items: list[Any]) -> list[Any]:
    return [fn(payload, it) for it in items]


class OrderedPool:
    """``fn(payload, item)`` over a stream of items in ``workers`` threads or processes.

    ``fn`` must be a module-level function (processes find it by name); with processes,
    ``payload`` must pickle. Pools are created on first use and reused across epochs; they shut
    down when the pool object is collected.
    """

    def __init__(self, fn: Callable[[Any, Any], Any], payload: Any, workers: int, processes: bool, label: str,
                 where: SourceLoc | None = None):
        self.fn, self.payload, self.workers, self.processes, self.label = fn, payload, workers, processes, label
        self.where = where  # the user line that built the pipeline, for errors found only at start-up
        self.chunk = 4 if processes else 1
        self.max_inflight = 2 * workers
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    def _get_executor(self) -> Executor:
        with self._lock:
            if self._executor is None:
                if self.processes:
                    try:
                        blob = pickle.dumps(self.payload)
                    except Exception as e:  # PicklingError, AttributeError (local objects), TypeError (locks)
                        raise DatasetError(
                            f"{self.label}(python_multiprocessing=True) sends its work to worker processes, so it "
                            f"must pickle; it does not ({type(e).__name__}: {e})", loc=self.where,
                            hint="define functions and classes at module level, or use "
                                 "python_multiprocessing=False (threads)") from e
                    ex: Executor = ProcessPoolExecutor(
                        max_workers=self.workers, mp_context=mp.get_context("spawn"),
                        initializer=_proc_init, initargs=(self.fn, blob))
                else:
                    ex = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=f"spore-{self.label}")
                self._executor = ex
                weakref.finalize(self, ex.shutdown, wait=False, cancel_futures=True)
            return self._executor

    def _submit(self, ex: Executor, chunk: list[Any]) -> Future:
        if self.processes:
            return ex.submit(_proc_chunk, chunk)
        return ex.submit(functools.partial(_thread_chunk, self.fn, self.payload), chunk)

    def imap(self, items: Iterable[Any]) -> Iterator[Any]:
        """Results of ``fn`` for each item, in item order, with a bounded number in flight."""
        ex = self._get_executor()
        it = iter(items)
        window: deque[Future] = deque()

        def submit_next() -> bool:
            chunk = list(islice(it, self.chunk))
            if chunk:
                window.append(self._submit(ex, chunk))
            return bool(chunk)

        try:
            while len(window) < self.max_inflight and submit_next():
                pass
            while window:
                fut = window.popleft()
                try:
                    results = fut.result()
                except WorkerInitError as e:
                    raise DatasetError(
                        f"{self.label}: a worker process could not load the operations: {e}",
                        hint="functions defined in a notebook, or in a script without an "
                             "`if __name__ == '__main__':` guard, cannot be loaded by spawned processes; "
                             "move them into an importable module, or use python_multiprocessing=False",
                    ) from e
                except BrokenProcessPool as e:
                    self._discard()
                    raise DatasetError(f"{self.label}: a worker process died ({e})",
                                       hint="a crash in native code or running out of memory kills a worker; "
                                            "try python_multiprocessing=False to see the error in-process") from e
                submit_next()
                yield from results
        finally:
            for fut in window:
                fut.cancel()

    def _discard(self) -> None:
        with self._lock:
            ex, self._executor = self._executor, None
        if ex is not None:
            ex.shutdown(wait=False, cancel_futures=True)

    def __getstate__(self) -> dict[str, Any]:  # a pool never travels; a copy starts without one
        state = self.__dict__.copy()
        state["_executor"], state["_lock"] = None, None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def check_picklable(obj: Any) -> Exception | None:
    """The error pickling ``obj`` raises, or None when it pickles."""
    try:
        pickle.dumps(obj)
    except Exception as e:  # PicklingError, AttributeError (local objects), TypeError (locks, ...)
        return e
    return None
