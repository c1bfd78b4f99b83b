"""Spore's public API as the server sees it: names, signatures, docs, sources, shape rules.

Built from `spore.ide` (`api_index`, `api_names`, `shape_rules`, `context_options`), which reads
Spore's own objects — never the user's. Loading it imports the engine (about a second cold), so the
server loads it in a background thread after `initialized` and publishes the first diagnostics
without it (Graph-mode diagnostics need only the support table); features that need it wait for it
briefly, then answer without it.
"""

from __future__ import annotations

import difflib
import threading
from typing import Any

from spore import ide

NAMESPACES = ("spore", "ops", "nn", "Tensor")


class ApiIndex:
    """The loaded index (plain data from `spore.ide`)."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = ide.api_index()
        self._names: dict[str, list[str]] = {ns: [] for ns in NAMESPACES}
        for e in self.entries.values():
            self._names[e["namespace"]].append(e["name"])
        for ns in NAMESPACES:
            self._names[ns].sort()
        self.context = ide.context_options()
        self._existing = {ns: set(names) for ns, names in ide.api_names().items()}
        self._shape_rules: dict[str, str] | None = None
        self._lock = threading.Lock()

    def names(self, namespace: str) -> list[str]:
        return self._names.get(namespace, [])

    def extra_names(self, namespace: str) -> set[str]:
        """Every public attribute the namespace has (documented in the index or not)."""
        return self._existing.get(namespace, set())

    def entry(self, qualname: str) -> dict[str, Any] | None:
        return self.entries.get(qualname)

    def shape_rule(self, qualname: str) -> str | None:
        """The shape rule of the op a public name applies (the catalogue is built on first use)."""
        with self._lock:
            if self._shape_rules is None:
                self._shape_rules = ide.shape_rules()
        return self._shape_rules.get(qualname)

    def suggest(self, namespace: str, name: str, n: int = 3) -> list[str]:
        """Close public names for a misspelt one ("did you mean")."""
        names = self.names(namespace)
        lowered = {x.lower(): x for x in names}
        if name.lower() in lowered:
            return [lowered[name.lower()]]
        return difflib.get_close_matches(name, names, n=n, cutoff=0.6)


class ApiLoader:
    """Loads the index once, in the background; `get(timeout)` waits for it at most `timeout` seconds."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._index: ApiIndex | None = None
        self.error: BaseException | None = None
        self._started = False
        self._lock = threading.Lock()

    def start(self, done: Any = None) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True

        def run() -> None:
            try:
                self._index = ApiIndex()
            except BaseException as err:  # noqa: BLE001 - reported through the server's log
                self.error = err
            finally:
                self._ready.set()
                if done is not None:
                    done()
            if self._index is not None:
                try:
                    self._index.shape_rule("ops.matmul")  # build the op catalogue now, not on the first hover
                except Exception as err:  # noqa: BLE001
                    self.error = err

        threading.Thread(target=run, name="spore-api-index", daemon=True).start()

    def get(self, timeout: float = 0.0) -> ApiIndex | None:
        if timeout and not self._ready.is_set():
            self.start()
            self._ready.wait(timeout)
        return self._index

    @property
    def ready(self) -> bool:
        return self._ready.is_set()
