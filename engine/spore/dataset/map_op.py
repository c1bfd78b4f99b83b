"""``Dataset.map``: user operations over columns, serially or in parallel, in input order.

Every sample goes through ``run_sample`` whatever the mode — inline, in a worker thread or in a
spawned worker process — with its own random source installed (see ``_seeding``), so the three
modes give identical results. A failure inside an operation comes back as a ``Failure`` and is
raised in the consuming thread as a ``DatasetMapError`` naming the operation, the columns, the
sample and the user's line.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .. import errors as _spore_errors
from ._arrays import to_array
from ._parallel import OrderedPool, check_picklable
from ._seeding import EpochCtx, set_sample_entropy
from .config import get_num_parallel_workers
from .core import Dataset, Row, as_names, check_columns
from .errors import DatasetError, DatasetMapError, Failure, capture_failure, portable


def op_name(op: Any) -> str:
    """How an operation is named in messages: a function's qualified name, or a class name."""
    name = getattr(op, "__qualname__", None)
    return name if isinstance(name, str) else type(op).__name__


def run_sample(ops: Sequence[Callable[..., Any]], item: tuple[int, tuple[Any, ...], list[int]]) -> Any:
    """Apply the chain to one sample: a tuple of output arrays, or a Failure."""
    position, args, entropy = item
    set_sample_entropy(entropy)
    step, vals = 0, args
    try:
        for step, op in enumerate(ops):
            out = op(*vals)
            vals = out if isinstance(out, tuple) else (out,)
        step = len(ops)
        return tuple(to_array(v) for v in vals)
    except Exception as e:
        failure = capture_failure(position, e, step, vals)
        return portable(failure) if _in_worker_process() else failure
    finally:
        set_sample_entropy(None)


def _in_worker_process() -> bool:
    import multiprocessing

    return multiprocessing.parent_process() is not None


def _default_inputs(first_op: Any, columns: list[str]) -> list[str]:
    n = getattr(first_op, "_num_inputs", None)
    return columns[:n] if isinstance(n, int) else list(columns)


def resolve_workers(n: int | None, owner: str) -> int:
    """A worker count: the configured default for None, else a positive int."""
    if n is None:
        return get_num_parallel_workers()
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{owner}: num_parallel_workers must be a positive int or None, got {n!r}")
    return n


class MapDataset(Dataset):
    """The node ``map`` builds."""

    def __init__(self, child: Dataset, operations: Any, input_columns: Any, output_columns: Any,
                 num_parallel_workers: int | None, python_multiprocessing: bool,
                 where: _spore_errors.SourceLoc | None, callbacks: Any = None) -> None:
        super().__init__([child], num_parallel_workers)
        from .callbacks import CallbackRunner, check_callbacks

        cbs = check_callbacks(callbacks)
        self._callbacks = CallbackRunner(cbs) if cbs else None
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("map: operations is empty")
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: every operation must be callable, got {op!r}")
        self._ops, self._where = ops, where
        have = child.get_col_names()
        self._in_cols = as_names(input_columns, "map input_columns") or _default_inputs(ops[0], have)
        self._in_idx = check_columns(have, self._in_cols, "map input_columns")
        self._out_cols = as_names(output_columns, "map output_columns") or list(self._in_cols)
        kept = [c for c in have if c not in self._in_cols]
        clash = [c for c in self._out_cols if c in kept]
        if clash:
            raise DatasetError(f"map: output_columns {clash} already exist in the dataset",
                               hint="choose new names, or list those columns in input_columns")
        first = have.index(self._in_cols[0])
        at = sum(1 for c in have[:first] if c not in self._in_cols)
        self._cols = kept[:at] + self._out_cols + kept[at:]
        self._keep_idx = [have.index(c) for c in kept]
        self._at = at
        self._workers = resolve_workers(num_parallel_workers, "map")
        self._processes = bool(python_multiprocessing) and self._workers > 1
        if self._processes:
            self._check_picklable()
        self._pool: OrderedPool | None = None
        self._pool_lock = threading.Lock()

    def _check_picklable(self) -> None:
        for op in self._ops:
            err = check_picklable(op)
            if err is not None:
                raise DatasetMapError(
                    f"map(python_multiprocessing=True) sends its operations to worker processes, so they must "
                    f"pickle; {op_name(op)} does not ({type(err).__name__}: {err})",
                    loc=self._where, operation=op_name(op), columns=tuple(self._in_cols),
                    hint="define the function at module level (lambdas and nested functions cannot be pickled), "
                         "or use python_multiprocessing=False: threads work well for NumPy/PIL operations",
                )

    def _columns(self) -> list[str]:
        return self._cols

    def _size(self) -> int | None:
        return self.children[0].get_dataset_size()

    def _get_pool(self) -> OrderedPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = OrderedPool(run_sample, self._ops, self._workers, self._processes, "map")
            return self._pool

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        rows = self._map_rows(ctx)
        return rows if self._callbacks is None else self._callbacks.wrap(rows, ctx.epoch)

    def _map_rows(self, ctx: EpochCtx) -> Iterator[Row]:
        child = self.children[0]._rows(ctx.child(0))
        pending: deque[Row] = deque()

        def items() -> Iterator[tuple[int, tuple[Any, ...], list[int]]]:
            for pos, row in enumerate(child):
                pending.append(row)
                yield pos, tuple(row[i] for i in self._in_idx), ctx.sample_entropy(pos)

        from .config import debug_hooks

        hooks = debug_hooks()  # debug mode: serial, with the hooks before and after every operation
        self._active_ops = self._ops if hooks is None else [*hooks, *(x for op in self._ops for x in (op, *hooks))]
        if self._workers > 1 and hooks is None:
            results: Iterator[Any] = self._get_pool().imap(items())
        else:
            results = (run_sample(self._active_ops, it) for it in items())
        from .config import ErrorSamplesMode, get_error_samples_mode

        mode = get_error_samples_mode()
        last_good: Row | None = None
        owed = 0  # REPLACE: failed samples seen before the first good one
        first_failure: Failure | None = None
        try:
            for pos, res in enumerate(results):
                row = pending.popleft()
                if isinstance(res, Failure):
                    if mode == ErrorSamplesMode.RETURN:
                        raise self._error(res, ctx) from res.exc
                    if mode == ErrorSamplesMode.REPLACE:
                        if last_good is not None:
                            yield last_good
                        else:
                            owed += 1
                            first_failure = first_failure or res
                    continue  # SKIP: drop the sample
                if len(res) != len(self._out_cols):
                    raise DatasetMapError(
                        f"map: the operations returned {len(res)} value(s) for sample {pos} but "
                        f"output_columns names {len(self._out_cols)}: {self._out_cols}",
                        loc=self._where, operation=op_name(self._ops[-1]), columns=tuple(self._in_cols),
                        hint="return a tuple with one value per output column, or set output_columns")
                kept = [row[i] for i in self._keep_idx]
                last_good = tuple(kept[: self._at]) + res + tuple(kept[self._at :])
                for _ in range(owed + 1):
                    yield last_good
                owed = 0
            if owed and first_failure is not None:  # REPLACE, and no sample of the epoch succeeded
                raise self._error(first_failure, ctx) from first_failure.exc
        finally:
            results.close()  # type: ignore[attr-defined]
            child.close()  # type: ignore[attr-defined]

    def _error(self, f: Failure, ctx: EpochCtx) -> DatasetMapError:
        ops = getattr(self, "_active_ops", self._ops)
        name = op_name(ops[f.step]) if f.step < len(ops) else "output conversion"
        inputs = ", ".join(f"{c}: {d}" for c, d in zip(self._in_cols, f.inputs)) if f.step == 0 else \
            ", ".join(f.inputs)
        msg = (f"map: {name} raised {type(f.exc).__name__}: {f.exc}\n"
               f"  on sample {f.position} of epoch {ctx.epoch}, input column(s) {self._in_cols} ({inputs})")
        hint = None
        loc = f.loc
        if f.step == len(ops):
            name = f"the value returned by {op_name(ops[-1])}"
            detail = f.exc.reason if isinstance(f.exc, DatasetError) else f.exc
            msg = (f"map: {name} is not array-like ({detail})\n"
                   f"  on sample {f.position} of epoch {ctx.epoch}, input column(s) {self._in_cols}")
            hint = "return NumPy arrays, numbers or PIL images (a tuple of them for several output columns)"
            loc = loc or self._where
        elif loc is None:
            loc = self._where
            hint = (f"the error was raised inside {name}, not in code of yours (the line above is where the "
                    "map was built): check its arguments against the input described above")
        if self._processes and f.tb_text:
            f.exc.add_note("traceback in the worker process:\n" + f.tb_text)
        return DatasetMapError(msg, loc=loc, hint=hint, operation=name, columns=tuple(self._in_cols),
                               index=f.position)
