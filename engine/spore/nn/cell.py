"""`Cell`: the building block of networks, with MindSpore's API.

A Cell registers the Parameters and child Cells assigned to its attributes, names parameters by
their path ("conv1.weight", "layers.0.bias") the moment a child is attached, and runs `construct`
when called.

Speed matters here: `__call__` and attribute access run for every layer on every step. So
Parameters and child Cells live both in the `_params`/`_cells` registries (for listing) and in the
instance `__dict__` (so `self.fc` is a plain dict hit, never `__getattr__`), and `__call__` is one
flag test away from `construct` unless hooks or `to_float` are in use.

The compiler sees a Cell only through its public contract: `run_eager` (construct the PyNative way,
hooks and casts included), `has_hooks`, `cast_type` and `input_cast`; `spore.errors.is_engine_code`
tells Spore's own Cells (run directly over tracers) from the user's (interpreted). In Graph mode a
Cell asks the compiler for its compiled construct (`compiler.jit.compile_cell`) and keeps it
(`compiled_construct`, `drop_compiled`); the compiler owns compiling and the per-signature cache.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from .. import context
from ..common import dtype as mstype
from ..common.tree import map_leaves
from ..errors import SporeError, located
from ..ops.input_check import cell_input_error, layer_input_error
from ..ops.observers import OBSERVERS
from ..ops.primitive import TRACING
from ..tensor import Parameter, ParameterTuple, Tensor

_DEFAULT_PARAM_NAME = "Parameter"
_hook_ids = itertools.count()

# True while Graph mode is on, a graph is being compiled, or a profiler runs: then `__call__` takes
# the slow path that compiles, routes into the compiler, or records scopes. Kept as one flag so the
# ordinary PyNative call pays a single test.
_SPECIAL = [False]
_SCOPES: list[str] = []
# What Graph mode keeps in a Cell's __dict__: its compiled construct, and the compiled @jit methods
# bound to it (JitFunction.__get__'s per-instance cache). Copies and pickles of a Cell leave them out.
_COMPILED_STATE = ("_graph_fn", "_jit_bound")


def refresh_call_path() -> None:
    """Recompute `_SPECIAL`; `context.call_state_changed` calls it when the mode, the graph being
    compiled or the execution observers (the profiler, a debugger) change: observers see the Cell
    scope of each op, which the slow path records."""
    _SPECIAL[0] = (context._CONTEXT["mode"] == context.GRAPH_MODE or TRACING.builder is not None
                   or bool(OBSERVERS.active))


context.on_call_state_change(refresh_call_path)


def current_scope() -> str:
    """Path of the Cell whose construct is running in PyNative (for the profiler); "" outside Cells."""
    return _SCOPES[-1] if _SCOPES else ""


def _note_cell(err: SporeError, cell: Cell, cells: list | None = None) -> None:
    """Note on an error leaving `cell` that it came through it: ``err.cells`` lists the Cells, innermost
    first, so Graph mode can name the layer an error came from (``Net.block.2.fc``)."""
    noted = err.__dict__.setdefault("cells", list(cells or ()))
    if not noted or noted[-1] is not cell:
        noted.append(cell)


class HookHandle:
    """Returned by `register_forward_hook` and friends; `remove()` unregisters the hook."""

    __slots__ = ("_cell", "_table", "_id")

    def __init__(self, cell: Cell, table: str, hook_id: int) -> None:
        self._cell, self._table, self._id = cell, table, hook_id

    def remove(self) -> None:
        hooks = self._cell.__dict__[self._table]
        if hooks.pop(self._id, None) is not None:
            self._cell._refresh_plain()


def _cast_inputs(args: tuple, dst: mstype.DType) -> tuple:
    """Cast floating-point inputs (nested in tuples/lists too) to `dst`, as MindSpore's to_float."""
    from ..ops.array import cast

    def one(a: Any) -> Any:
        if isinstance(a, Tensor):
            return cast(a, dst) if a.dtype.is_float and a.dtype is not dst else a
        return Tensor(a, dst) if isinstance(a, float) else a

    return tuple(map_leaves(one, a) for a in args)


class Cell:
    """Base class of every network and layer (MindSpore's ``nn.Cell(auto_prefix=True, flags=None)``).

    Subclasses define ``construct``; calling the cell runs it. Cells start in inference mode
    (``training == False``) as in MindSpore: call ``set_train()`` before training so Dropout and
    BatchNorm behave as in training.
    """

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None) -> None:
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_params_list"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["_name_prefix"] = ""        # prefix of this cell's own parameter names, e.g. "backbone.conv1."
        d["_forward_pre_hooks"] = {}
        d["_forward_hooks"] = {}
        d["_cast_type"] = None        # set by to_float
        d["_plain"] = True            # no hooks, no cast: __call__ goes straight to construct
        d["_phase"] = "train"
        d["_mindspore_flags"] = {}
        d["training"] = False
        d["requires_grad"] = False
        if flags:
            self.add_flags(**flags)

    # --- calling ------------------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        """The forward computation; subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} does not define construct()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            if args and type(args[0]) is not Tensor and not isinstance(args[0], Tensor):  # data that is no Tensor
                bad = layer_input_error(self, args, kwargs)
                if bad is not None:
                    raise located(bad)
            if _SPECIAL[0]:
                return self._special_call(args, kwargs)
            if self.__dict__["_plain"]:
                return self.construct(*args, **kwargs)
            return self._call_with_extras(args, kwargs)
        except Exception as err:  # costs nothing unless raised: then, was an argument not a Tensor?
            bad = cell_input_error(self, args, kwargs, err)
            if bad is None:
                if isinstance(err, SporeError):
                    _note_cell(err, self)
                raise
            _note_cell(bad, self, getattr(err, "cells", None))
            raise located(bad).with_traceback(None) from None

    def run_eager(self, *args: Any, **kwargs: Any) -> Any:
        """Run construct the PyNative way: forward pre-hooks, to_float input casts, construct, forward
        hooks — never compiled, whatever the mode.

        This is how Graph mode runs Spore's own Cells over tracers while compiling (their construct is
        written for it), and what any caller that must not recompile (a tool, a comparison) can use.
        """
        if self.__dict__["_plain"]:
            return self.construct(*args, **kwargs)
        return self._call_with_extras(args, kwargs)

    @property
    def has_hooks(self) -> bool:
        """Whether forward (pre-)hooks are registered: Graph mode refuses to compile a call to such a
        Cell (a hook is arbitrary Python around it)."""
        d = self.__dict__
        return bool(d["_forward_pre_hooks"] or d["_forward_hooks"])

    @property
    def cast_type(self) -> mstype.DType | None:
        """The dtype `to_float` set for this Cell's computation, or None (no cast)."""
        return self.__dict__["_cast_type"]

    def input_cast(self, args: tuple) -> tuple:
        """`args` as construct receives them under `to_float`: floating-point tensors and Python floats
        (nested in tuples/lists too) cast to `cast_type`; unchanged when there is no cast. The
        compiler applies it to a user Cell it interprets, so both modes cast the same way."""
        dst = self.__dict__["_cast_type"]
        return args if dst is None else _cast_inputs(args, dst)

    @property
    def compiled_construct(self) -> Any:
        """The compiled construct Graph mode runs for this Cell (a `compiler.jit.JitFunction`, which
        keeps one compiled graph per input signature), or None before the first Graph-mode call or
        after `drop_compiled`."""
        return self.__dict__.get("_graph_fn")

    def set_jit_config(self, jit_config: Any) -> None:
        """Compile options for this Cell's Graph-mode construct (`ms.JitConfig`). As in MindSpore, the
        first setting stays: a second one is ignored with a warning. ``jit_syntax_level="STRICT"``
        makes the construct compile as one graph or refuse on the user's line."""
        from ..jit_config import JitConfig

        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"set_jit_config: expected a JitConfig, got {type(jit_config).__name__}")
        if self.__dict__.get("_jit_config") is not None:
            warnings.warn("For Cell, jit config can only be set once, ignore this setting.", stacklevel=2)
            return
        self.__dict__["_jit_config"] = jit_config
        self.drop_compiled()

    def get_jit_config(self) -> dict:
        """The `jit_config_dict` given to `set_jit_config` ({} when none was)."""
        cfg = self.__dict__.get("_jit_config")
        return dict(cfg.jit_config_dict) if cfg is not None else {}

    def drop_compiled(self, recurse: bool = False) -> None:
        """Forget this Cell's compiled construct and compiled @jit methods (with ``recurse``, those of
        every Cell below it too): the next Graph-mode call compiles afresh. Parameters are untouched."""
        for _, cell in (self.cells_and_names() if recurse else [("", self)]):
            for key in _COMPILED_STATE:
                cell.__dict__.pop(key, None)

    def __getstate__(self) -> Any:
        # Copies (copy.copy/deepcopy) and pickles leave compiled graphs behind: they belong to this
        # Cell (they run its construct with it as `self`) and are rebuilt on the copy when needed.
        state = super().__getstate__()
        d = state[0] if isinstance(state, tuple) else state
        if d and any(key in d for key in _COMPILED_STATE):
            d = {k: v for k, v in d.items() if k not in _COMPILED_STATE}
            state = (d,) + state[1:] if isinstance(state, tuple) else d
        return state

    def _special_call(self, args: tuple, kwargs: dict) -> Any:
        __tracebackhide__ = True  # pytest and IPython hide engine frames from compile errors
        builder = TRACING.builder
        if builder is not None:  # called while a graph is being compiled: the compiler decides
            return builder.call_cell(self, args, kwargs)
        if context._CONTEXT["mode"] == context.GRAPH_MODE:
            return self._graph_call(args, kwargs)
        _SCOPES.append(self.__dict__["_name_prefix"].rstrip(".") or type(self).__name__)
        try:
            return self.run_eager(*args, **kwargs)
        finally:
            _SCOPES.pop()

    def _graph_call(self, args: tuple, kwargs: dict) -> Any:
        """Graph mode: run `construct` compiled (per input signature), hooks and casts around it."""
        __tracebackhide__ = True
        d = self.__dict__
        jf = d.get("_graph_fn")
        if jf is None:
            from ..compiler.jit import compile_cell

            cfg = d.get("_jit_config")
            jf = d["_graph_fn"] = compile_cell(self, fullgraph=cfg is not None and cfg.strict)
        if d["_plain"]:
            return jf(*args, **kwargs)
        return self._call_with_extras(args, kwargs, body=jf)

    def _call_with_extras(self, args: tuple, kwargs: dict, body: Callable | None = None) -> Any:
        """The slow path of __call__: forward pre-hooks, input casts of to_float, forward hooks."""
        d = self.__dict__
        for fn, with_kwargs in list(d["_forward_pre_hooks"].values()):
            if with_kwargs:
                res = fn(self, args, kwargs)
                if res is not None:
                    args, kwargs = res
                    args = args if isinstance(args, tuple) else (args,)
            else:
                res = fn(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        if d["_cast_type"] is not None:
            args = _cast_inputs(args, d["_cast_type"])
        out = (body or self.construct)(*args, **kwargs)
        for fn, with_kwargs in list(d["_forward_hooks"].values()):
            res = fn(self, args, kwargs, out) if with_kwargs else fn(self, args, out)
            if res is not None:
                out = res
        return out

    def _refresh_plain(self) -> None:
        context.bump_structure_version()
        d = self.__dict__
        d["_plain"] = not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_cast_type"] is not None)

    def register_forward_pre_hook(self, hook_fn: Callable, with_kwargs: bool = False) -> HookHandle:
        """Run ``hook_fn(cell, args)`` before construct; a non-None result replaces the inputs.

        With ``with_kwargs=True`` the hook is ``hook_fn(cell, args, kwargs)`` and may return
        ``(args, kwargs)``.
        """
        if not callable(hook_fn):
            raise TypeError(f"register_forward_pre_hook: hook_fn must be callable, got {type(hook_fn).__name__}")
        hid = next(_hook_ids)
        self.__dict__["_forward_pre_hooks"][hid] = (hook_fn, with_kwargs)
        self._refresh_plain()
        return HookHandle(self, "_forward_pre_hooks", hid)

    def register_forward_hook(self, hook_fn: Callable, with_kwargs: bool = False) -> HookHandle:
        """Run ``hook_fn(cell, args, output)`` after construct; a non-None result replaces the output."""
        if not callable(hook_fn):
            raise TypeError(f"register_forward_hook: hook_fn must be callable, got {type(hook_fn).__name__}")
        hid = next(_hook_ids)
        self.__dict__["_forward_hooks"][hid] = (hook_fn, with_kwargs)
        self._refresh_plain()
        return HookHandle(self, "_forward_hooks", hid)

    # --- attributes ---------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        # Only reached for names not in __dict__: parameters of a to_float cell (returned cast),
        # ParameterTuple attributes, and genuinely missing attributes.
        d = self.__dict__
        params = d.get("_params")
        if params is not None:
            if name in params:
                return self._cast_param(params[name])
            plist = d["_params_list"]
            if name in plist:
                return plist[name] if d["_cast_type"] is None else tuple(self._cast_param(p) for p in plist[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _cast_param(self, p: Any) -> Any:
        ct = self.__dict__["_cast_type"]
        if ct is None or p is None or not p.dtype.is_float or p.dtype is ct:
            return p
        from ..ops.array import cast

        out = cast(p, ct)
        if not out._traced:  # ops.dense fuses a Dense layer on casts it can trace to their Parameter
            out.__dict__["_amp_src"] = (p, p._version)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_params")
        if params is None:
            raise AttributeError(f"{type(self).__name__}: cannot set attribute {name!r} before "
                                 "Cell.__init__() has run; call super().__init__() first in __init__")
        if isinstance(value, Parameter):
            if name in d["_cells"]:
                raise TypeError(f"{type(self).__name__}.{name} is a Cell; cannot replace it with a Parameter")
            if name in d and name not in params:
                del d[name]
            self.insert_param_to_cell(name, value)
        elif isinstance(value, Cell):
            if name in params:
                raise TypeError(f"{type(self).__name__}.{name} is a Parameter; cannot replace it with a Cell")
            if name in d and name not in d["_cells"]:
                del d[name]
            self._attach(name, value)
        elif name in params:
            if isinstance(value, Tensor) and params[name] is not None:
                params[name].set_data(value)  # MindSpore: a Tensor assigned to a Parameter updates it
            elif value is None:
                params[name] = None
                d.pop(name, None)
            else:
                raise TypeError(f"{type(self).__name__}.{name} is a Parameter; assign a Parameter or a "
                                f"Tensor to it, not {type(value).__name__}")
        elif name in d["_cells"]:
            if value is not None:
                raise TypeError(f"{type(self).__name__}.{name} is a Cell; assign a Cell or None to it, "
                                f"not {type(value).__name__}")
            d["_cells"][name] = None
            d[name] = None
        elif isinstance(value, ParameterTuple):
            self._set_param_tuple(name, value)
        else:
            if name in d["_params_list"]:
                del d["_params_list"][name]
            object.__setattr__(self, name, value)

    def _set_param_tuple(self, name: str, value: ParameterTuple) -> None:
        """Register each member (by its own name, as MindSpore does) so it is listed and saved."""
        d = self.__dict__
        seen: set[int] = set()
        for p in value:
            if id(p) in seen:
                continue
            seen.add(id(p))
            key = p.name
            if key in d["_params"] and d["_params"][key] is not p:
                raise ValueError(f"{type(self).__name__}.{name}: a parameter named {key!r} is already "
                                 "registered in this cell; give the ParameterTuple's members unique names")
            d["_params"][key] = p
        d.pop(name, None)
        d["_params_list"][name] = value

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d["_params"]:
            del d["_params"][name]
            d.pop(name, None)
        elif name in d["_cells"]:
            del d["_cells"][name]
            d.pop(name, None)
        elif name in d["_params_list"]:
            del d["_params_list"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._params) | set(self._params_list))

    def _attach(self, name: str, cell: Cell | None) -> None:
        """Register a child and, with auto_prefix, name its parameters under this cell's path."""
        context.bump_structure_version()
        d = self.__dict__
        d["_cells"][name] = cell
        d[name] = cell
        if cell is not None and d["_auto_prefix"]:
            cell.update_parameters_name(d["_name_prefix"] + name + ".")

    def insert_child_to_cell(self, child_name: str, child_cell: Cell | None) -> None:
        """Add a child cell under `child_name` (no dots), as an attribute assignment would."""
        if not isinstance(child_name, str):
            raise TypeError(f"insert_child_to_cell: child_name must be a str, got {type(child_name).__name__}")
        if not child_name or "." in child_name:
            raise KeyError(f"insert_child_to_cell: child_name {child_name!r} must be non-empty and contain no '.'")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: child_cell must be a Cell, got {type(child_cell).__name__}")
        d = self.__dict__
        if child_name in d and child_name not in d["_cells"] or child_name in d["_params"]:
            raise KeyError(f"insert_child_to_cell: {type(self).__name__} already has an attribute {child_name!r}")
        self._attach(child_name, child_cell)

    def insert_param_to_cell(self, param_name: str, param: Parameter | None,
                             check_name_contain_dot: bool = True) -> None:
        """Add a Parameter under `param_name`; an unnamed Parameter takes its path as name."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"insert_param_to_cell: param_name must be a non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: param_name {param_name!r} must not contain '.'")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: param must be a Parameter, got {type(param).__name__}")
        d = self.__dict__
        if param_name in d["_cells"] or (param_name in d and param_name not in d["_params"]):
            raise KeyError(f"insert_param_to_cell: {type(self).__name__} already has an attribute {param_name!r}")
        if param is not None and param.name == _DEFAULT_PARAM_NAME:
            param.name = d["_name_prefix"] + param_name
        d["_params"][param_name] = param
        if d["_cast_type"] is None and "." not in param_name:
            d[param_name] = param

    # --- naming -------------------------------------------------------------------------------
    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Name every parameter ``prefix + path`` (path from this cell, e.g. "conv1.weight").

        Cells with ``auto_prefix=False`` (training wrappers) add no segment of their own, so the
        network inside keeps its names.
        """
        if not isinstance(prefix, str):
            raise TypeError(f"update_parameters_name: prefix must be a str, got {type(prefix).__name__}")
        seen: set[int] = set()
        stack: list[tuple[Cell, str]] = [(self, prefix)]
        visited: set[int] = set()
        while stack:
            cell, pre = stack.pop()
            if id(cell) in visited:
                continue
            visited.add(id(cell))
            cd = cell.__dict__
            cd["_name_prefix"] = pre
            for key, p in cd["_params"].items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    p.name = pre + key
            if not recurse:
                break
            for name, child in reversed(cd["_cells"].items()):
                if child is not None:
                    stack.append((child, pre + name + "." if cd["_auto_prefix"] else pre))

    @property
    def param_prefix(self) -> str:
        """The prefix this cell gives its own parameters' names (e.g. "backbone.conv1.")."""
        return self.__dict__["_name_prefix"]

    @property
    def auto_prefix(self) -> bool:
        return self.__dict__["_auto_prefix"]

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def phase(self) -> str:
        return self.__dict__["_phase"]

    @phase.setter
    def phase(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"Cell.phase must be a str, got {type(value).__name__}")
        self.__dict__["_phase"] = value

    # --- listing ------------------------------------------------------------------------------
    def cells_and_names(self, cells: set | None = None, name_prefix: str = "") -> Iterator[tuple[str, Cell]]:
        """This cell and every cell below it, once each, with its dotted path."""
        seen = cells if cells is not None else set()
        if self in seen:
            return
        seen.add(self)
        yield name_prefix, self
        for name, cell in self.__dict__["_cells"].items():
            if cell is not None:
                yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    __hash__ = object.__hash__

    def name_cells(self) -> OrderedDict:
        """The direct children by name (each cell once)."""
        out: OrderedDict = OrderedDict()
        seen: set[int] = set()
        for name, cell in self.__dict__["_cells"].items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                out[name] = cell
        return out

    def cells(self) -> Any:
        """The direct children."""
        return self.name_cells().values()

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(path, Parameter) for this cell's parameters (and its children's with `expand`), each once."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen: set[int] = set()
        for cell_name, cell in cells:
            for key, p in cell.__dict__["_params"].items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{cell_name}.{key}" if cell_name else key), p

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        """The parameters of this cell (and its children with `expand`)."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        """Parameters with ``requires_grad=True`` (what an optimizer should update)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        """Parameters with ``requires_grad=False`` (e.g. BatchNorm's moving statistics)."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        """Parameters keyed by their names."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def check_names(self) -> None:
        """Raise if two parameters share a name (a checkpoint could not tell them apart)."""
        names: dict[str, str] = {}
        for path, p in self.parameters_and_names():
            if p.name in names:
                raise ValueError(f"parameters {names[p.name]!r} and {path!r} are both named {p.name!r}")
            names[p.name] = path

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """Parameters are initialised eagerly in Spore; returns {param: param} as MindSpore's mapping."""
        return {p: p for p in self.get_parameters()}

    # --- modes and flags ----------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> Cell:
        """Training (True) or inference (False) mode for this cell and all below it."""
        context.bump_structure_version()
        self.__dict__["_phase"] = "train" if mode else "predict"
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        """Mark the cell as needing gradients (kept for MindSpore compatibility; PyNative records on demand)."""
        self.__dict__["requires_grad"] = requires_grad
        return self

    def add_flags(self, **flags: Any) -> Cell:
        self.__dict__["_mindspore_flags"].update(flags)
        for k, v in flags.items():
            object.__setattr__(self, k, v)
        return self

    def add_flags_recursive(self, **flags: Any) -> Cell:
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return self.__dict__["_mindspore_flags"]

    def to_float(self, dst_type: Any) -> Cell:
        """Run this cell and all below it in `dst_type` (float16/bfloat16/float32).

        Floating-point inputs of every cell, and the parameters it reads, are cast on the fly;
        the stored parameters keep their dtype and gradients flow back to them through the casts.
        """
        dst = mstype.to_dtype(dst_type)
        context.bump_structure_version()
        if dst not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError(f"to_float: dst_type must be float16, bfloat16 or float32, got {dst}")
        for _, cell in self.cells_and_names():
            d = cell.__dict__
            d["_cast_type"] = dst
            for key in d["_params"]:
                d.pop(key, None)  # reads go through __getattr__, which casts
            cell._refresh_plain()
        return self

    def apply(self, fn: Callable[[Cell], Any]) -> Cell:
        """Call ``fn`` on every child (recursively) and then on this cell."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def set_inputs(self, *inputs: Any, **kwargs: Any) -> None:
        """Declare dynamic-shape inputs for Graph-mode compilation; PyNative takes any shape."""
        self.__dict__["_dynamic_inputs"] = inputs

    def get_inputs(self) -> tuple | None:
        return self.__dict__.get("_dynamic_inputs")

    def recompute(self, **kwargs: Any) -> Cell:
        """Recomputation is a memory trade-off of graph compilation; PyNative keeps activations."""
        return self

    def shard(self, *args: Any, **kwargs: Any) -> Cell:
        return self

    # --- printing -----------------------------------------------------------------------------
    def extend_repr(self) -> str:
        """Extra text inside ``ClassName<...>`` in the repr; layers override it with their settings."""
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        children = self.name_cells()
        if not children:
            return f"{type(self).__name__}<{extra}>"
        body = "\n"
        if extra:
            body += extra + "\n"
        for key, cell in children.items():
            body += f"({key}): {cell!r}\n"
        return f"{type(self).__name__}<" + body.replace("\n", "\n  ") + ">"

    def __str__(self) -> str:
        return self.__repr__()
