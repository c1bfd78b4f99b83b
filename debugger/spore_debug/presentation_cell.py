"""How a debugger shows a Spore Cell: its parameters, sub-cells and training flag, not its `__dict__`.

A Cell's instance dictionary holds the registries the engine keeps (`_params`, `_cells`, hooks,
compiled graphs) beside the user's attributes; pydevd's default view lists all of it. What the
user wants when stopped in `construct` is the network: which layers, which parameters with what
shapes, train or eval mode. So a Cell's children are `training`, its own parameters and its
sub-cells by attribute name (expandable, with evaluate names `self.conv1.weight`), `parameters
(all)` flattened by path when it has sub-cells, and `attributes`: the other public attributes it
was given (hidden sizes, flags...). Only public Cell methods are used.
"""

from __future__ import annotations

from typing import Any

from .presentation import Child

MAX_PARAMS = 1000  # rows of the flattened parameter list (a giant network lists its first ones)


def _attr_suffix(key: str) -> str:
    """`.conv1` for an attribute, `[0]` for a SequentialCell/CellList position."""
    return f"[{key}]" if key.isdigit() else f".{key}"


def cell_summary(cell: Any) -> str:
    """``Net(training=False, 3 sub-cells, 6 parameters, 1,234 values)``."""
    params = list(cell.get_parameters())
    count = sum(int(p.size) for p in params)
    subs = sum(1 for _ in cell.cells_and_names()) - 1
    return (f"{type(cell).__name__}(training={bool(cell.training)}, {subs} sub-cells, {len(params)} parameters, "
            f"{count:,} values)")


class ParameterList:
    """Every parameter of a Cell, by dotted path (`layer1.conv.weight`)."""

    def __init__(self, cell: Any) -> None:
        self.items = list(cell.parameters_and_names())

    def text(self) -> str:
        return f"{len(self.items)} parameters, {sum(int(p.size) for _, p in self.items):,} values"

    def children(self) -> list[Child]:
        out: list[Child] = [(path, p, None) for path, p in self.items[:MAX_PARAMS]]
        if len(self.items) > MAX_PARAMS:
            out.append(("…", f"{len(self.items) - MAX_PARAMS} more parameters", None))
        return out


class Attributes:
    """The public, non-callable attributes a Cell instance was given, other than its parameters
    and sub-cells (found as the names `dir(cell)` has and `dir(type(cell))` has not)."""

    def __init__(self, cell: Any, shown: set[str]) -> None:
        self.cell = cell
        names = sorted(set(dir(cell)) - set(dir(type(cell))) - shown - {"training"})
        self.names = [n for n in names if not n.startswith("_")]

    def text(self) -> str:
        return ", ".join(self.names) if self.names else "(none)"

    def children(self) -> list[Child]:
        out: list[Child] = []
        for name in self.names:
            try:
                value = getattr(self.cell, name)
            except Exception as err:  # a property that fails is shown, not raised
                value = f"<{type(err).__name__}: {err}>"
            if not callable(value):
                out.append((name, value, f".{name}"))
        return out


def cell_children(cell: Any) -> list[Child]:
    """training, own parameters, sub-cells, all parameters (when nested), other attributes."""
    out: list[Child] = [("training", bool(cell.training), ".training")]
    shown: set[str] = set()
    for key, p in cell.parameters_and_names(expand=False):
        out.append((key, p, _attr_suffix(key)))
        shown.add(key)
    subs = cell.name_cells()
    for key, sub in subs.items():
        out.append((key, sub, _attr_suffix(key)))
        shown.add(key)
    if subs:
        out.append(("parameters (all)", ParameterList(cell), None))
    attrs = Attributes(cell, shown)
    if attrs.names:
        out.append(("attributes", attrs, None))
    return out
