"""What MindSpore code uses to write its own primitives and composite functions (issue 14):
`PrimitiveWithInfer`, `PrimitiveWithCheck`, `prim_attr_register`, `prim_arg_register`,
`MultitypeFuncGraph`, `HyperMap`, `Map`, `Partial`, `PyFunc`, `Morph`, `custom_info_register`,
`get_vm_impl_fn`, and two CPU ops MindSpore itself writes that way, `MapUniform` and `SubAndFilter`.

A user primitive (a subclass of `PrimitiveWithInfer`/`PrimitiveWithCheck` whose ``__init__`` is
decorated with `prim_attr_register`) runs like this when called:

1. its shape/dtype rules run on the inputs' shapes and dtypes (``infer_shape``/``infer_dtype``,
   or ``__infer__``; ``check_shape``/``check_dtype`` for PrimitiveWithCheck), so bad input fails
   with the user's own message; ``infer_value`` returning a value short-cuts the call;
2. the computation is the Python implementation registered for its name with
   ``vm_impl_registry.register(name_or_class)`` (MindSpore's ``vm_impl_getters``: a getter taking
   the primitive and returning ``impl(*inputs)``), else Spore's class-form op of that name made
   with the primitive's attributes (so MindSpore's own examples, a Python ``Add`` or ``Flatten``
   primitive, run on Spore's kernels), else Spore's registered primitive of that name;
3. the output is checked against what the rules said (shape and dtype).

Its gradient is the registered ``bprop_getters.register(name_or_class)`` rule (a getter returning
``bprop(*inputs, out, dout) -> tuple of input gradients``) when there is one; otherwise the
implementation's own ops are differentiated.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import SporeError, located
from ..tensor import Tensor
from .primitive import REGISTRY, TRACING, Aval, Primitive, register

__all__ = ["PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "prim_arg_register",
           "MultitypeFuncGraph", "HyperMap", "Map", "Partial", "PyFunc", "Morph", "custom_info_register",
           "get_vm_impl_fn", "MapUniform", "SubAndFilter"]


class _Registry:
    """name -> getter, MindSpore's `vm_impl_getters` / `bprop_getters`: ``@reg.register(Prim)``."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._getters: dict[str, Callable] = {}

    def register(self, key: Any) -> Callable:
        name = _name_of(key)

        def deco(getter: Callable) -> Callable:
            self._getters[name] = getter
            return getter

        return deco

    def get(self, key: Any, default: Any = None) -> Any:
        return self._getters.get(_name_of(key), default)


def _name_of(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, type):
        return key.__name__
    return getattr(key, "name", type(key).__name__)


vm_impl_registry = _Registry("vm_impl")
bprop_getters = _Registry("bprop")


def custom_info_register(*reg_info: Any) -> Callable:
    """MindSpore's ``ops.custom_info_register(*reg_info)``: a decorator attaching kernel registration
    info (from ``CustomRegOp(...).get_op_info()`` or a dict/JSON string) to a custom op's function,
    as the ``reg_info`` attribute. Spore's CPU kernels need no registration, so it is kept for
    reading only."""
    def deco(func: Callable) -> Callable:
        infos = list(getattr(func, "reg_info", []))
        for info in reg_info:
            if not isinstance(info, (str, dict)) and not hasattr(info, "get_op_info"):
                raise TypeError(f"custom_info_register: reg_info must be a str, dict or CustomRegOp, "
                                f"got {type(info).__name__}")
            infos.append(info.get_op_info() if hasattr(info, "get_op_info") else info)
        func.reg_info = infos  # type: ignore[attr-defined]
        return func

    return deco


def get_vm_impl_fn(prim: Any) -> Callable | None:
    """MindSpore's ``ops.get_vm_impl_fn(prim)``: the Python implementation of a primitive (object,
    class or name) — the one registered with ``vm_impl_registry`` if any, else Spore's class-form
    op of that name (made with the primitive's attributes), else a function applying Spore's
    registered primitive of that name to Tensors; None when there is none."""
    getter = vm_impl_registry.get(prim)
    if getter is not None:
        return getter(prim) if not isinstance(prim, (str, type)) else getter
    name = _name_of(prim)
    attrs = {k: v for k, v in getattr(prim, "attrs", {}).items() if k not in ("input_names", "output_names")}
    form = _class_form(name, prim, attrs)  # MindSpore's call signature: the class form comes first
    if form is not None:
        return form
    op = REGISTRY.get(name)
    if op is None:
        return None

    @functools.wraps(op.impl)
    def vm_impl(*inputs: Any) -> Any:
        return op(*[x if isinstance(x, Tensor) else Tensor(x) for x in inputs], **attrs)

    return vm_impl


def _class_form(name: str, prim: Any, attrs: dict) -> Callable | None:
    """Spore's class-form op of that name (``ops.Flatten``...), made with the attributes its
    constructor takes; None when there is none (or it is a user primitive itself)."""
    from .. import ops as _ops

    cls = getattr(_ops, name, None) if name.isidentifier() and hasattr(_ops, name) else None
    if not isinstance(cls, type) or issubclass(cls, _UserPrimitive) or cls is type(prim):
        return None
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}
    inst = cls(**{k: v for k, v in attrs.items() if k in params})
    return inst


# --- user primitives ------------------------------------------------------------------------------------
def _custom_infer(*xs: Any, spec: Any) -> tuple[Aval, ...]:
    return tuple(spec.avals)


def _custom_impl(*arrays: np.ndarray, spec: Any) -> list[np.ndarray]:
    from ..autodiff import tape

    depth, tape.STATE.depth = tape.STATE.depth, 0  # the forward runs as a kernel: not recorded
    try:
        out = spec.forward(*[Tensor._wrap(a) for a in arrays])
    finally:
        tape.STATE.depth = depth
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [np.asarray(o.asnumpy() if isinstance(o, Tensor) else o) for o in outs]


def _custom_vjp(cots: tuple, outs: tuple, *inputs: Any, spec: Any) -> tuple:
    out = outs if spec.multi else outs[0]
    dout = cots if spec.multi else cots[0]
    grads = spec.bprop(*inputs, out, dout)
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != len(inputs):
        raise located(SporeError(f"{spec.name}: its bprop returned {len(grads)} gradients for {len(inputs)} inputs"))
    return tuple(grads)


CUSTOM_BPROP = register(Primitive(
    "CustomBprop", _custom_infer, _custom_impl, _custom_vjp,
    "A user function run as one op whose gradient is the user's bprop(*inputs, out, dout).",
    multi_output=True, internal=True))


class _Spec:
    """What CustomBprop runs: the forward, the bprop and the output avals (compared by identity)."""

    def __init__(self, name: str, forward: Callable, bprop: Callable, avals: list[Aval], multi: bool) -> None:
        self.name, self.forward, self.bprop, self.avals, self.multi = name, forward, bprop, avals, multi


def _with_bprop(name: str, forward: Callable, bprop: Callable, inputs: tuple) -> Any:
    """forward(*inputs), differentiated by `bprop`: the output avals come from one run of forward."""
    from ..autodiff import tape

    tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    if TRACING.builder is not None:
        probe = forward(*tensors)  # traced once for the output shapes; the equations are dead code
    else:
        depth, tape.STATE.depth = tape.STATE.depth, 0
        try:
            probe = forward(*tensors)
        finally:
            tape.STATE.depth = depth
    multi = isinstance(probe, (tuple, list))
    probes = probe if multi else (probe,)
    avals = [Aval(tuple(p.shape), p.dtype) for p in probes]
    outs = CUSTOM_BPROP(*tensors, spec=_Spec(name, forward, bprop, avals, multi))
    return tuple(outs) if multi else outs[0]


class _UserPrimitive:
    """Shared base of PrimitiveWithInfer / PrimitiveWithCheck: name, attributes, and the call."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{type(self).__name__}: name must be a str, got {type(name).__name__}")
        self.__dict__.setdefault("attrs", {})
        self.__dict__.setdefault("init_attrs", {})
        self.name = name
        self.instance_name = ""

    # MindSpore's Primitive attribute API
    def add_prim_attr(self, name: str, value: Any) -> _UserPrimitive:
        self.__dict__[name] = value
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name: str) -> _UserPrimitive:
        self.__dict__.pop(name, None)
        self.attrs.pop(name, None)
        return self

    def add_prim_attrs(self, **attrs: Any) -> _UserPrimitive:
        for k, v in attrs.items():
            self.add_prim_attr(k, v)
        return self

    def init_prim_io_names(self, inputs: list[str], outputs: list[str]) -> None:
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_prim_instance_name(self, instance_name: str) -> _UserPrimitive:
        self.instance_name = instance_name
        return self

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.attrs.items() if k not in ("input_names", "output_names")}
        return f"Prim[{self.name}]" + (f"<{', '.join(f'{k}={v!r}' for k, v in shown.items())}>" if shown else "")

    # the call
    def _rules(self, args: tuple) -> tuple[Any, Any]:  # pragma: no cover - overridden
        return None, None

    def __call__(self, *args: Any) -> Any:
        shape, dtype = self._rules(args)
        value = self._infer_value(args)
        if value is not None:
            return value
        impl = get_vm_impl_fn(self)
        if impl is None:
            raise located(SporeError(
                f"{self.name}: no implementation for this primitive",
                hint=f"register one with spore.ops.primitive_helpers.vm_impl_registry.register({self.name!r}) "
                     "(a getter taking the primitive and returning impl(*inputs))"))
        getter = bprop_getters.get(self)
        if getter is not None:
            out = _with_bprop(self.name, impl, getter(self), args)
        else:
            out = impl(*args)
        self._check_out(out, shape, dtype)
        return out

    def _infer_value(self, args: tuple) -> Any:
        fn = getattr(self, "infer_value", None)
        if fn is None or TRACING.builder is not None:
            return None
        vals = [a.asnumpy() if isinstance(a, Tensor) else a for a in args]
        res = fn(*vals)
        return None if res is None else (res if isinstance(res, Tensor) else Tensor(res))

    def _check_out(self, out: Any, shape: Any, dtype: Any) -> None:
        if shape is None and dtype is None:
            return
        outs = out if isinstance(out, (tuple, list)) else (out,)
        shapes = shape if shape is not None and len(outs) > 1 else [shape] * len(outs)
        multi_dt = dtype is not None and len(outs) > 1 and isinstance(dtype, (tuple, list))
        dtypes = dtype if multi_dt else [dtype] * len(outs)
        for o, s, d in zip(outs, shapes, dtypes):
            if not isinstance(o, Tensor):
                continue
            if s is not None and -1 not in tuple(s) and tuple(o.shape) != tuple(s):
                raise located(SporeError(f"{self.name}: the implementation returned shape {tuple(o.shape)}, "
                                         f"its infer_shape said {tuple(s)}"))
            if d is not None and not isinstance(d, (tuple, list)) and mstype.to_dtype(d) is not o.dtype:
                raise located(SporeError(f"{self.name}: the implementation returned {o.dtype}, its infer_dtype "
                                         f"said {mstype.to_dtype(d)}"))


def _shape_of(a: Any) -> Any:
    if isinstance(a, Tensor):
        return list(a.shape)
    if isinstance(a, (tuple, list)):
        return [_shape_of(x) for x in a]
    return []


def _dtype_of(a: Any) -> Any:
    if isinstance(a, Tensor):
        return a.dtype
    if isinstance(a, (tuple, list)):
        return tuple(_dtype_of(x) for x in a)
    return mstype.get_py_obj_dtype(a) if hasattr(mstype, "get_py_obj_dtype") else type(a)


class PrimitiveWithInfer(_UserPrimitive):
    """Base class of primitives written in Python with shape and dtype rules (MindSpore's
    ``ops.PrimitiveWithInfer(name)``): override ``infer_shape(*shapes)`` (lists of ints) and
    ``infer_dtype(*dtypes)``, or ``__infer__(*args)`` returning ``{'shape', 'dtype', 'value'}``,
    and optionally ``infer_value(*values)`` for constant folding. See the module docstring for
    what runs the computation."""

    def _rules(self, args: tuple) -> tuple[Any, Any]:
        cls = type(self)
        if "__infer__" in {k for c in cls.__mro__ if c not in (PrimitiveWithInfer, _UserPrimitive, object)
                           for k in vars(c)}:
            res = self.__infer__(*[{"shape": _shape_of(a), "dtype": _dtype_of(a), "value": None} for a in args])
            return res.get("shape"), res.get("dtype")
        shape = self.infer_shape(*[_shape_of(a) for a in args])
        dtype = self.infer_dtype(*[_dtype_of(a) for a in args])
        return shape, dtype

    def infer_shape(self, *args: Any) -> Any:
        """The output shape from the input shapes (default: the first input's)."""
        return args[0] if args else None

    def infer_dtype(self, *args: Any) -> Any:
        """The output dtype from the input dtypes (default: the first input's)."""
        return args[0] if args else None


class PrimitiveWithCheck(_UserPrimitive):
    """Base class of primitives written in Python that validate their inputs (MindSpore's
    ``ops.PrimitiveWithCheck(name)``): override ``check_shape(*shapes)`` and ``check_dtype(*dtypes)``
    (raise on bad input; their return values are not used), or ``__check__(*args)``. The output
    shape and dtype are whatever the implementation returns."""

    def _rules(self, args: tuple) -> tuple[Any, Any]:
        check = getattr(self, "__check__", None)
        if check is not None and type(self).__check__ is not PrimitiveWithCheck.__check__:
            check(*[{"shape": _shape_of(a), "dtype": _dtype_of(a), "value": None} for a in args])
        else:
            self.check_shape(*[_shape_of(a) for a in args])
            self.check_dtype(*[_dtype_of(a) for a in args])
        return None, None

    def __check__(self, *args: Any) -> None:
        """Checks the inputs' abstract values (default: check_shape and check_dtype)."""
        return None

    def check_shape(self, *args: Any) -> None:
        """Checks the input shapes (default: accepts any)."""
        return None

    def check_dtype(self, *args: Any) -> None:
        """Checks the input dtypes (default: accepts any)."""
        return None


def _bind_init(fn: Callable, self: Any, args: tuple, kwargs: dict) -> dict:
    bound = inspect.signature(fn).bind(self, *args, **kwargs)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop("self", None)
    for name, p in inspect.signature(fn).parameters.items():  # **kwargs collected as one entry: spread it
        if p.kind is inspect.Parameter.VAR_KEYWORD and name in arguments:
            arguments.update(arguments.pop(name))
        elif p.kind is inspect.Parameter.VAR_POSITIONAL and name in arguments:
            arguments[name] = tuple(arguments[name])
    return arguments


def _base_init(self: Any) -> None:
    name = getattr(type(self), "substitute_name", type(self).__name__)
    if isinstance(self, _UserPrimitive):
        _UserPrimitive.__init__(self, name)
    else:  # any object: give it the attribute API's storage
        self.__dict__.setdefault("attrs", {})
        self.__dict__.setdefault("init_attrs", {})
        self.__dict__.setdefault("name", name)


def prim_attr_register(fn: Callable) -> Callable:
    """Decorator for a primitive's ``__init__`` (MindSpore's ``ops.prim_attr_register``): initialises
    the primitive under its class name, then records every ``__init__`` argument (defaults
    included) as a primitive attribute (``self.attrs[name]`` and ``self.<name>``) before the body runs."""
    @functools.wraps(fn)
    def deco(self: Any, *args: Any, **kwargs: Any) -> None:
        _base_init(self)
        for name, value in _bind_init(fn, self, args, kwargs).items():
            if isinstance(self, _UserPrimitive):
                self.add_prim_attr(name, value)
            else:
                self.__dict__[name] = value
                self.attrs[name] = value
            self.init_attrs[name] = value
        fn(self, *args, **kwargs)

    return deco


def prim_arg_register(fn: Callable) -> Callable:
    """Decorator for a primitive's ``__init__`` (MindSpore's ``ops.prim_arg_register``): like
    `prim_attr_register`, but the arguments are recorded as the primitive's init arguments
    (``self.init_attrs`` and ``self.<name>``), not as attributes in ``self.attrs``."""
    @functools.wraps(fn)
    def deco(self: Any, *args: Any, **kwargs: Any) -> None:
        _base_init(self)
        for name, value in _bind_init(fn, self, args, kwargs).items():
            self.__dict__[name] = value
            self.init_attrs[name] = value
        fn(self, *args, **kwargs)

    return deco


# --- MapUniform / SubAndFilter: CPU ops MindSpore writes as PrimitiveWithCheck ---------------------------
def _int_scalar(op: str, name: str, v: Any) -> int:
    if isinstance(v, Tensor):
        if v.size != 1 or not v.dtype.is_int:
            raise TypeError(f"{op}: {name} must be an int, got a {v.dtype} tensor of shape {tuple(v.shape)}")
        if TRACING.builder is not None:
            raise located(SporeError(f"{op}: {name} must be a Python int inside a compiled graph"))
        return int(v.asnumpy().reshape(()))
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: {name} must be an int, got {type(v).__name__}")
    return int(v)


class MapUniform(PrimitiveWithCheck):
    """MindSpore's ``ops.MapUniform()``: ``map_uniform(input, per_group_size, group_num)`` maps each
    key to ``key % group_num * per_group_size + key // group_num`` (same shape and integer dtype)."""

    @prim_attr_register
    def __init__(self) -> None:
        self.init_prim_io_names(inputs=["input", "per_group_size", "group_num"], outputs=["output"])

    def check_dtype(self, input_dtype: Any, per_group_size_dtype: Any, group_num_dtype: Any) -> None:
        if not isinstance(input_dtype, mstype.DType) or not input_dtype.is_int:
            raise TypeError(f"MapUniform: input must be an integer tensor, got {input_dtype}")

    def __call__(self, input: Tensor, per_group_size: Any, group_num: Any) -> Tensor:  # noqa: A002
        from . import functional as F

        if not isinstance(input, Tensor):
            raise TypeError(f"MapUniform: input must be a Tensor, got {type(input).__name__}")
        self._rules((input, per_group_size, group_num))
        size = _int_scalar("MapUniform", "per_group_size", per_group_size)
        num = _int_scalar("MapUniform", "group_num", group_num)
        if num <= 0 or size <= 0:
            raise ValueError(f"MapUniform: per_group_size and group_num must be positive, got {size}, {num}")
        return F.add(F.mul(F.floor_mod(input, num), size), F.floor_div(input, num))


class SubAndFilter(PrimitiveWithCheck):
    """MindSpore's ``ops.SubAndFilter()``: ``sub_and_filter(input_x, max_num, offset)`` returns
    ``(filter_res, filter_idx)``: the values ``input_x - offset`` that fall in ``[0, max_num)`` and
    their positions in `input_x` (a 1-D integer tensor; both outputs keep its dtype). The output
    length depends on the values, so it runs eagerly (not inside a compiled graph)."""

    @prim_attr_register
    def __init__(self) -> None:
        self.init_prim_io_names(inputs=["input_x", "max_num", "offset"], outputs=["sub_res", "sub_idx"])

    def check_dtype(self, input_x_dtype: Any, max_num_dtype: Any, offset_dtype: Any) -> None:
        if not isinstance(input_x_dtype, mstype.DType) or not input_x_dtype.is_int:
            raise TypeError(f"SubAndFilter: input_x must be an integer tensor, got {input_x_dtype}")

    def __call__(self, input_x: Tensor, max_num: Any, offset: Any) -> tuple[Tensor, Tensor]:
        if not isinstance(input_x, Tensor):
            raise TypeError(f"SubAndFilter: input_x must be a Tensor, got {type(input_x).__name__}")
        self._rules((input_x, max_num, offset))
        if TRACING.builder is not None:
            raise located(SporeError("SubAndFilter: the output length depends on the values, which a compiled "
                                     "graph does not know", hint="call it outside the jit function"))
        hi = _int_scalar("SubAndFilter", "max_num", max_num)
        off = _int_scalar("SubAndFilter", "offset", offset)
        x = input_x.asnumpy().reshape(-1)
        shifted = x - off
        keep = (shifted >= 0) & (shifted < hi)
        dt = x.dtype
        return Tensor(shifted[keep].astype(dt)), Tensor(np.nonzero(keep)[0].astype(dt))


# --- function-graph helpers ----------------------------------------------------------------------------------
_TYPE_NAMES: dict[str, Callable[[Any], bool]] = {
    "tensor": lambda v: isinstance(v, Tensor),
    "number": lambda v: isinstance(v, (int, float, complex, np.number)) and not isinstance(v, bool),
    "int": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (float, np.floating)),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "string": lambda v: isinstance(v, str),
    "str": lambda v: isinstance(v, str),
    "tuple": lambda v: isinstance(v, tuple),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "none": lambda v: v is None,
    "function": callable,
}


def _matcher(t: Any) -> Callable[[Any], bool]:
    if isinstance(t, str):
        key = t.lower()
        if key not in _TYPE_NAMES:
            raise ValueError(f"MultitypeFuncGraph.register: unknown type name {t!r}; use one of "
                             f"{', '.join(sorted(_TYPE_NAMES))}")
        return _TYPE_NAMES[key]
    if isinstance(t, type):
        return lambda v: isinstance(v, t)
    name = str(t).lower()  # a MindSpore type object such as mstype.tensor_type / mstype.number
    for key, fn in _TYPE_NAMES.items():
        if key in name:
            return fn
    raise ValueError(f"MultitypeFuncGraph.register: cannot match values against {t!r}")


class MultitypeFuncGraph:
    """A function overloaded on its arguments' types (MindSpore's ``ops.MultitypeFuncGraph(name,
    read_value=False)``): ``@f.register("Tensor", "Number")`` adds an implementation for that type
    signature; calling ``f(*args)`` runs the first registered one whose types match (type names:
    Tensor, Number, Int, Float, Bool, String, Tuple, List, Dict, None, Function; or Python
    classes). `read_value` (compile-time constant reading in MindSpore) has no effect."""

    def __init__(self, name: str, read_value: bool = False) -> None:
        if not isinstance(name, str):
            raise TypeError(f"MultitypeFuncGraph: name must be a str, got {type(name).__name__}")
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple[Any, ...], list[Callable[[Any], bool]], Callable]] = []

    def register(self, *type_names: Any) -> Callable:
        matchers = [_matcher(t) for t in type_names]

        def deco(fn: Callable) -> Callable:
            self.entries.append((type_names, matchers, fn))
            return fn

        return deco

    def __call__(self, *args: Any) -> Any:
        for _, matchers, fn in self.entries:
            if len(matchers) == len(args) and all(m(a) for m, a in zip(matchers, args)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        known = "; ".join("(" + ", ".join(map(str, t)) + ")" for t, _, _ in self.entries) or "none"
        raise TypeError(f"MultitypeFuncGraph {self.name!r}: no implementation for argument types ({got}); "
                        f"registered: {known}")


def _seq_len(op: str, seqs: tuple) -> int:
    n = len(seqs[0])
    for s in seqs[1:]:
        if len(s) != n:
            raise ValueError(f"{op}: the sequences must have the same length, got {[len(x) for x in seqs]}")
    return n


class Map:
    """MindSpore's ``ops.Map(ops=None, reverse=False)``: applies a function to the elements of
    sequences (``Map(f)(xs, ys)`` -> ``[f(x, y) for x, y in zip(xs, ys)]``, a tuple for tuples). Without
    `ops`, the function is the first call argument. `reverse` evaluates from the last element
    (the result keeps the order)."""

    def __init__(self, ops: Callable | None = None, reverse: bool = False) -> None:
        if ops is not None and not callable(ops):
            raise TypeError(f"Map: ops must be a function, got {type(ops).__name__}")
        self.ops = ops
        self.reverse = reverse

    def _split(self, args: tuple) -> tuple[Callable, tuple]:
        if self.ops is not None:
            return self.ops, args
        if not args or not callable(args[0]):
            raise TypeError(f"{type(self).__name__}: without ops, the first argument must be the function to apply")
        return args[0], args[1:]

    def __call__(self, *args: Any) -> Any:
        fn, seqs = self._split(args)
        if not seqs or not all(isinstance(s, (tuple, list)) for s in seqs):
            raise TypeError("Map: the inputs must be tuples or lists")
        n = _seq_len("Map", seqs)
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        res: dict[int, Any] = {i: fn(*[s[i] for s in seqs]) for i in order}
        out = [res[i] for i in range(n)]
        return tuple(out) if isinstance(seqs[0], tuple) else out


class HyperMap(Map):
    """MindSpore's ``ops.HyperMap(ops=None, reverse=False)``: like `Map`, but nested tuples/lists
    (and dicts, by key) are followed down to their leaves, so ``HyperMap(f)(grads, params)`` applies
    `f` to each leaf pair; a non-sequence argument is a leaf."""

    def __call__(self, *args: Any) -> Any:
        fn, seqs = self._split(args)
        if not seqs:
            raise TypeError("HyperMap: give at least one input")
        return self._apply(fn, seqs)

    def _apply(self, fn: Callable, xs: tuple) -> Any:
        first = xs[0]
        if isinstance(first, (tuple, list)) and all(isinstance(x, (tuple, list)) for x in xs):
            n = _seq_len("HyperMap", xs)
            order = range(n - 1, -1, -1) if self.reverse else range(n)
            res = {i: self._apply(fn, tuple(x[i] for x in xs)) for i in order}
            out = [res[i] for i in range(n)]
            return tuple(out) if isinstance(first, tuple) else out
        if isinstance(first, dict) and all(isinstance(x, dict) for x in xs):
            keys = list(first)
            for x in xs[1:]:
                if set(x) != set(keys):
                    raise ValueError("HyperMap: the dicts must have the same keys")
            return {k: self._apply(fn, tuple(x[k] for x in xs)) for k in (reversed(keys) if self.reverse else keys)}
        return fn(*xs)


class Partial:
    """MindSpore's ``ops.Partial()``: ``Partial()(fn, *args)`` fixes the first arguments of `fn` and
    returns the partial function (``functools.partial``)."""

    def __call__(self, *args: Any) -> Callable:
        if not args or not callable(args[0]):
            raise TypeError("Partial: the first input must be a function")
        return functools.partial(args[0], *args[1:])


# --- PyFunc: a Python function as a kernel ----------------------------------------------------------------
def _pyfunc_infer(*xs: Any, spec: Any) -> tuple[Aval, ...]:
    return tuple(spec.avals)


def _pyfunc_impl(*arrays: np.ndarray, spec: Any) -> list[np.ndarray]:
    out = spec.fn(*arrays)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != len(spec.avals):
        raise SporeError(f"PyFunc: the function returned {len(outs)} outputs, out_types names {len(spec.avals)}")
    res = []
    for i, (o, a) in enumerate(zip(outs, spec.avals)):
        arr = np.asarray(o.asnumpy() if isinstance(o, Tensor) else o)
        if tuple(arr.shape) != tuple(a.shape):
            raise SporeError(f"PyFunc: output {i} has shape {tuple(arr.shape)}, out_shapes says {tuple(a.shape)}")
        res.append(arr.astype(a.dtype.np, copy=False))
    return res


PYFUNC = register(Primitive(
    "PyFunc", _pyfunc_infer, _pyfunc_impl, None,
    "Runs a Python function on the inputs' arrays as one kernel (also inside compiled graphs).",
    multi_output=True, nondiff=True, side_effect=True, internal=True))


class _PyFuncSpec:
    def __init__(self, fn: Callable, avals: list[Aval]) -> None:
        self.fn, self.avals = fn, avals


class PyFunc:
    """MindSpore's ``ops.PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)``:
    runs the Python function `fn` on the inputs as NumPy arrays, as one op that also runs inside a
    compiled graph (at run time, in the current Python process). Returns a tuple of Tensors with
    `out_types`/`out_shapes` (checked). Not differentiable; `stateful` ops are never merged or
    dropped by graph passes."""

    def __init__(self, fn: Callable, in_types: Any, in_shapes: Any, out_types: Any, out_shapes: Any,
                 stateful: bool = True) -> None:
        if not callable(fn):
            raise TypeError(f"PyFunc: fn must be a function, got {type(fn).__name__}")
        for name, v in (("in_types", in_types), ("in_shapes", in_shapes), ("out_types", out_types),
                        ("out_shapes", out_shapes)):
            if not isinstance(v, (tuple, list)):
                raise TypeError(f"PyFunc: {name} must be a list or tuple, got {type(v).__name__}")
        if len(in_types) != len(in_shapes) or len(out_types) != len(out_shapes):
            raise ValueError("PyFunc: in_types/in_shapes and out_types/out_shapes must have matching lengths")
        self.fn = fn
        self.in_types = [mstype.to_dtype(t) for t in in_types]
        self.in_shapes = [tuple(s) for s in in_shapes]
        self.out_types = [mstype.to_dtype(t) for t in out_types]
        self.out_shapes = [tuple(s) for s in out_shapes]
        self.stateful = stateful
        self._spec = _PyFuncSpec(fn, [Aval(s, t) for s, t in zip(self.out_shapes, self.out_types)])

    def __call__(self, *args: Any) -> tuple[Tensor, ...]:
        if len(args) != len(self.in_types):
            raise TypeError(f"PyFunc: takes {len(self.in_types)} inputs, got {len(args)}")
        for i, (a, t, s) in enumerate(zip(args, self.in_types, self.in_shapes)):
            if not isinstance(a, Tensor):
                raise TypeError(f"PyFunc: input {i} must be a Tensor, got {type(a).__name__}")
            if a.dtype is not t or tuple(a.shape) != s:
                raise TypeError(f"PyFunc: input {i} is {tuple(a.shape)} {a.dtype}; in_types/in_shapes say {s} {t}")
        return tuple(PYFUNC(*args, spec=self._spec))


# --- Morph ------------------------------------------------------------------------------------------------
class Morph:
    """MindSpore's ``ops.Morph(fn, infer_shape, infer_dtype, bprop_fn=None)``: `fn` applied to the
    inputs as one custom op. ``infer_shape(*shapes)`` and ``infer_dtype(*dtypes)`` give the output's
    (checked against what `fn` returns); with `bprop_fn`, the gradient is
    ``bprop_fn(*inputs, out, dout)`` (a tuple, one per input), else `fn`'s own ops are differentiated.
    MindSpore allows Morph in Graph mode only; Spore runs it in both modes with the same result."""

    def __init__(self, fn: Callable, infer_shape: Callable, infer_dtype: Callable,
                 bprop_fn: Callable | None = None) -> None:
        for name, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise TypeError(f"Morph: {name} must be a function, got {type(f).__name__}")
        if bprop_fn is not None and not callable(bprop_fn):
            raise TypeError(f"Morph: bprop_fn must be a function, got {type(bprop_fn).__name__}")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn
        self.name = "Morph"

    def __call__(self, *args: Any) -> Any:
        shape = self.infer_shape(*[_shape_of(a) for a in args])
        dtype = self.infer_dtype(*[_dtype_of(a) for a in args])
        out = self.fn(*args) if self.bprop_fn is None else _with_bprop("Morph", self.fn, self.bprop_fn, args)
        _UserPrimitive._check_out(self, out, shape, dtype)  # type: ignore[arg-type]
        return out


def _enable_dynamic(**kwargs: Any) -> Callable:
    """MindSpore's ``ms.enable_dynamic(**kwargs)``: marks arguments of a `jit` function as having
    dynamic shapes (``x=Tensor(shape=[None, 3], dtype=...)``) so one compilation serves every
    size. Spore's jit compiles once per input signature, so the marks are checked (the names must
    be parameters of the function, the values Tensors or tuples/lists of them) and kept as
    ``fn.__spore_dynamic__``; the function runs unchanged."""
    for k, v in kwargs.items():
        vals = v if isinstance(v, (tuple, list)) else (v,)
        if not all(isinstance(x, Tensor) or x is None for x in vals):
            raise TypeError(f"enable_dynamic: {k} must be a Tensor (its dynamic shape) or a tuple/list of them, "
                            f"got {type(v).__name__}")

    def deco(fn: Callable) -> Callable:
        target = getattr(fn, "__wrapped__", fn)
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            params = {}
        unknown = [k for k in kwargs if params and k not in params]
        if unknown:
            raise ValueError(f"enable_dynamic: {', '.join(unknown)} not a parameter of {getattr(fn, '__name__', fn)}")
        try:
            fn.__spore_dynamic__ = dict(kwargs)  # type: ignore[attr-defined]
        except AttributeError:
            pass
        return fn

    return deco


class _no_init_parameters:  # noqa: N801  (MindSpore's nn.no_init_parameters is used as a context manager)
    """MindSpore's ``nn.no_init_parameters()``: ``with nn.no_init_parameters(): net = Net()`` defers
    the parameters' initialisation (MindSpore fills them later, in ``net.init_parameters_data()`` or
    when a checkpoint is loaded). Spore initialises a parameter when it is made (cheap on CPU), so
    inside the context nothing changes and the values are the same as outside it; the context is
    accepted so MindSpore code runs unchanged, and ``init_parameters_data()`` works as before."""

    def __enter__(self) -> _no_init_parameters:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None
