"""Containers of cells: `SequentialCell` (runs its cells in order), `CellList` and `CellDict`.

Children are keyed "0", "1", ... (or by the user's names), so parameters read "layers.0.weight".
Edits (append, insert, delete) re-key the positional children and rename their parameters, so
names stay right after any change. Slicing makes a new container that shares the cells without
renaming their parameters: a view of the network must not change the network's checkpoint names.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from .cell import Cell


def _check_cell(obj: Any, where: str) -> Cell:
    if not isinstance(obj, Cell):
        raise TypeError(f"{where}: expected a Cell, got {type(obj).__name__}")
    return obj


def _index(n: int, index: Any, where: str) -> int:
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"{where}: index must be an int or a slice, got {type(index).__name__}")
    if not -n <= index < n:
        raise IndexError(f"{where}: index {index} is out of range for {n} cells")
    return index % n


class _ListLike(Cell):
    """Shared list behaviour: children kept in order, positional names re-keyed on every edit."""

    def __init__(self, auto_prefix: bool = True) -> None:
        super().__init__(auto_prefix)
        d = self.__dict__
        d["_seq"] = []        # the cells in order (what construct and iteration walk)
        d["_fixed"] = []      # user-given name per position, or None for a positional name

    def _rebuild(self, cells: list[Cell], fixed: list[str | None]) -> None:
        d = self.__dict__
        for name in d["_cells"]:
            d.pop(name, None)
        d["_cells"].clear()
        d["_seq"] = list(cells)
        d["_fixed"] = list(fixed)
        for i, (cell, name) in enumerate(zip(cells, fixed)):
            self._attach(name if name is not None else str(i), cell)

    @classmethod
    def _view(cls, cells: list[Cell], names: list[str], fixed: list[str | None]) -> Any:
        """A container over existing cells that leaves their parameter names alone (for slices)."""
        new = cls.__new__(cls)
        _ListLike.__init__(new)
        d = new.__dict__
        for name, cell in zip(names, cells):
            d["_cells"][name] = cell
            d[name] = cell
        d["_seq"] = list(cells)
        d["_fixed"] = list(fixed)
        return new

    def __len__(self) -> int:
        return len(self.__dict__["_seq"])

    def __iter__(self) -> Iterator[Cell]:
        return iter(list(self.__dict__["_seq"]))

    def __getitem__(self, index: Any) -> Any:
        d = self.__dict__
        if isinstance(index, slice):
            names = list(d["_cells"])[index]
            return self._view(d["_seq"][index], names, d["_fixed"][index])
        return d["_seq"][_index(len(d["_seq"]), index, type(self).__name__)]

    def __setitem__(self, index: int, cell: Cell) -> None:
        d = self.__dict__
        i = _index(len(d["_seq"]), index, type(self).__name__)
        cells = list(d["_seq"])
        cells[i] = _check_cell(cell, f"{type(self).__name__}[{index}] = ...")
        self._rebuild(cells, d["_fixed"])

    def __delitem__(self, index: Any) -> None:
        d = self.__dict__
        n = len(d["_seq"])
        drop = set(range(n)[index]) if isinstance(index, slice) else {_index(n, index, type(self).__name__)}
        keep = [i for i in range(n) if i not in drop]
        self._rebuild([d["_seq"][i] for i in keep], [d["_fixed"][i] for i in keep])

    def append(self, cell: Cell) -> Any:
        """Add a cell at the end."""
        d = self.__dict__
        self._rebuild(d["_seq"] + [_check_cell(cell, f"{type(self).__name__}.append")], d["_fixed"] + [None])
        return self

    def extend(self, cells: Iterable[Cell]) -> Any:
        """Add cells at the end."""
        new = [_check_cell(c, f"{type(self).__name__}.extend") for c in cells]
        d = self.__dict__
        self._rebuild(d["_seq"] + new, d["_fixed"] + [None] * len(new))
        return self

    def insert(self, index: int, cell: Cell) -> None:
        """Insert a cell before position `index`."""
        d = self.__dict__
        n = len(d["_seq"])
        i = max(0, min(n, index + n if index < 0 else index))
        cells, fixed = list(d["_seq"]), list(d["_fixed"])
        cells.insert(i, _check_cell(cell, f"{type(self).__name__}.insert"))
        fixed.insert(i, None)
        self._rebuild(cells, fixed)


class SequentialCell(_ListLike):
    """Runs its cells one after another: ``SequentialCell([a, b])(x) == b(a(x))``.

    Takes a list of cells, an OrderedDict of named cells, or the cells as arguments.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], list):
            cells, fixed = list(args[0]), [None] * len(args[0])
        elif len(args) == 1 and isinstance(args[0], dict):
            cells, fixed = list(args[0].values()), [str(k) for k in args[0]]
        else:
            cells, fixed = list(args), [None] * len(args)
        for c in cells:
            _check_cell(c, "SequentialCell")
        self._rebuild(cells, fixed)

    def construct(self, input_data: Any) -> Any:
        for cell in self.__dict__["_seq"]:
            input_data = cell(input_data)
        return input_data


class CellList(_ListLike):
    """Holds cells in a list (indexing, append, extend, insert); it does not run them itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(kwargs.pop("auto_prefix", True))
        if kwargs:
            raise TypeError(f"CellList: unexpected keyword arguments {sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError("CellList takes one iterable of cells")
        if args and args[0] is not None:
            self.extend(args[0])

    def __iadd__(self, cells: Iterable[Cell]) -> CellList:
        return self.extend(cells)

    def construct(self, *inputs: Any) -> Any:
        raise TypeError("CellList only holds cells; iterate over it in your construct to run them")


class CellDict(Cell):
    """Holds cells by name, like a dict whose values are registered children."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(kwargs.pop("auto_prefix", True))
        if kwargs:
            raise TypeError(f"CellDict: unexpected keyword arguments {sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError("CellDict takes one dict or iterable of (name, cell) pairs")
        if args and args[0] is not None:
            self.update(args[0])

    def __getitem__(self, key: str) -> Cell:
        return self.__dict__["_cells"][key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        _check_cell(cell, f"CellDict[{key!r}] = ...")
        if key in self.__dict__["_cells"]:
            del self[key]
        self.insert_child_to_cell(key, cell)

    def __delitem__(self, key: str) -> None:
        del self.__dict__["_cells"][key]
        self.__dict__.pop(key, None)

    def __len__(self) -> int:
        return len(self.__dict__["_cells"])

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.__dict__["_cells"]))

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__["_cells"]

    def keys(self) -> Any:
        return self.__dict__["_cells"].keys()

    def values(self) -> Any:
        return self.__dict__["_cells"].values()

    def items(self) -> Any:
        return self.__dict__["_cells"].items()

    def clear(self) -> None:
        for key in list(self.__dict__["_cells"]):
            del self[key]

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells: Any) -> None:
        pairs = cells.items() if isinstance(cells, (dict, OrderedDict, CellDict)) else cells
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError("CellDict.update: expected (name, cell) pairs")
            self[pair[0]] = pair[1]

    def construct(self, *inputs: Any) -> Any:
        raise TypeError("CellDict only holds cells; call them by name in your construct")
