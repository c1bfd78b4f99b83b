"""The op registry: every primitive is declared once, and every layer of Spore reads that one
declaration.

A declaration is a small class (teenygrad-style), registered with `@primitive`::

    @primitive
    class MatMul:
        '''Matrix product of two tensors.'''          # what hover and completion show

        def infer(a, b, transpose_a=False, transpose_b=False):   # shape/dtype rule on avals
            ...                                                   # raises ShapeError
            return Aval(shape, dtype)

        def impl(a, b, transpose_a=False, transpose_b=False):    # the kernel, on ndarrays
            return ...

        def vjp(g, out, a, b, transpose_a=False, transpose_b=False):  # gradients, with spore ops
            return (ga, gb)

Tensor inputs are positional; everything static (axes, strides, flags) is a keyword attribute.
`infer` sees anything with `.shape` and `.dtype` (a Tensor in PyNative, an abstract value in Graph
mode and in the language server), so one rule serves eager checks, graph compile, LSP shape
inference and ONNX export. `vjp` receives the output cotangent(s), the output(s), then the inputs
and attributes, and returns one cotangent (or None) per tensor input. A primitive with several
outputs sets ``multi_output = True``; its impl returns a tuple, its infer a tuple of Avals and its
vjp receives tuples. ``nondiff = True`` marks outputs that carry no gradient by design;
``side_effect = True`` marks ops that write state in place (`Assign`), which graph passes keep in
program order; ``random = True`` marks ops that draw random numbers (never constant-folded or
merged). An optional ``onnx`` attribute holds the export mapping.

Elementwise ops also say how compiled graphs may run them: ``ufunc`` is a function ``f(*arrays,
out=buf)`` that computes what ``impl`` computes into a given buffer (Graph mode's elementwise fusion
chains these), ``opcode`` is the op's number in the C++ fused kernel (`csrc/fused.cpp`; a test runs
every opcode against ``impl``), and ``inplace = True`` lets the executor write the result over a
dying first input.

``api = Api("sin", cls="Sin", floats=True)`` gives a plain elementwise op its public names from
the declaration alone: the functional wrapper ``ops.sin`` (also the Tensor method, and any
``aliases``), generated with the primitive's docstring by `elementwise._generate_wrappers` (which the
declaring module calls once, at its end), and the class form ``ops.Sin()`` (`classes_math`).
``floats=True`` computes integer and bool inputs in float32, as MindSpore's math functions do; a
binary op's wrapper converts Python numbers and promotes mixed dtypes. Adding such an op is its
declaration and a sample: its stubs (`python -m spore._stubgen`), its catalogue entry and its
differential-test cases follow from them.

``internal = True`` (``@primitive(internal=True)``, or `register` for a `Primitive` built directly)
marks a primitive that only the compiler makes: control flow (`If`, `While`), a compiled
`assert`, an optimizer step inside a training graph, the fused kernels the graph passes create.
Internal primitives live in `INTERNAL`, not `REGISTRY`, so everything that lists the public ops
(docs, the op catalogue, the differential test) never sees them, while the registry coverage test
(which walks both) still holds their `infer` to their `impl`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..autodiff import tape
from ..common.dtype import DType
from ..errors import SporeError, located
from ..tensor import Tensor
from .observers import OBSERVERS, OpEvent, run_observed


@dataclass(frozen=True)
class Api:
    """The public names a plain elementwise op gets from its declaration (see the module docstring)."""

    function: str                      # ops.<function>, and Tensor.<function>
    cls: str | None = None             # the class form ops.<cls>
    aliases: tuple[str, ...] = ()      # more names for the function and the Tensor method
    floats: bool = False               # integer/bool inputs are computed in float32


@dataclass(frozen=True)
class Aval:
    """An abstract value: what is known of a tensor before it is computed."""

    shape: tuple[int, ...]
    dtype: DType

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Primitive:
    """A registered op: name, rules and docs. Calling it applies it (see `bind`)."""

    __slots__ = ("name", "infer", "impl", "vjp", "doc", "onnx", "multi_output", "nondiff", "side_effect",
                 "random", "ufunc", "opcode", "inplace", "api", "internal")

    def __init__(self, name: str, infer: Callable, impl: Callable, vjp: Callable | None,
                 doc: str, onnx: Any = None, multi_output: bool = False, nondiff: bool = False,
                 side_effect: bool = False, random: bool = False, ufunc: Callable | None = None,
                 opcode: int | None = None, inplace: bool = False, internal: bool = False, api: Api | None = None):
        self.name = name
        self.infer = infer
        self.impl = impl
        self.vjp = vjp
        self.doc = doc
        self.onnx = onnx
        self.multi_output = multi_output
        self.nondiff = nondiff  # outputs carry no gradient by design (comparisons, argmax, ...)
        self.side_effect = side_effect  # writes state (Assign): graph passes must keep and not merge it
        self.random = random  # draws random numbers: never folded to a constant or merged with a twin
        self.ufunc = ufunc  # elementwise: f(*arrays, out=buf) computing impl into a buffer (fusion)
        self.opcode = opcode  # elementwise: its number in the C++ fused kernel
        self.inplace = inplace  # elementwise: may write over a dying first input (executor)
        self.internal = internal  # made only by the compiler: kept out of the public REGISTRY
        self.api = api  # plain elementwise: the public names generated from this declaration

    def __call__(self, *inputs: Tensor, **attrs: Any) -> Any:
        return bind(self, *inputs, **attrs)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


REGISTRY: dict[str, Primitive] = {}  # the public ops, by name
INTERNAL: dict[str, Primitive] = {}  # primitives only the compiler makes (see `internal`)
_GRAPH_RUNS = ("GraphCall[", "GraphBackward[")  # compiled graphs called eagerly (compiler/jit.py)


def register(prim: Primitive) -> Primitive:
    """Add `prim` to `REGISTRY`, or to `INTERNAL` when it is internal; names are unique across both."""
    if prim.name in REGISTRY or prim.name in INTERNAL:
        raise ValueError(f"primitive {prim.name} is declared twice")
    (INTERNAL if prim.internal else REGISTRY)[prim.name] = prim
    return prim


class _Tracing:
    """Hook into `bind`: while `builder` is set (Graph mode compiling), ops are recorded instead of
    computed. (What watches each kernel call run is `observers.OBSERVERS`.)"""

    __slots__ = ("builder",)

    def __init__(self) -> None:
        self.builder: Any = None


TRACING = _Tracing()


def primitive(cls: type | None = None, *, internal: bool = False) -> Any:
    """Class decorator: turn a declaration class into a registered `Primitive`.

    ``@primitive`` declares a public op; ``@primitive(internal=True)`` one only the compiler makes.
    """
    if cls is None:
        return lambda c: primitive(c, internal=internal)
    return register(Primitive(
        name=cls.__name__,
        infer=cls.__dict__["infer"],
        impl=cls.__dict__["impl"],
        vjp=cls.__dict__.get("vjp"),
        doc=(cls.__doc__ or "").strip(),
        onnx=cls.__dict__.get("onnx"),
        multi_output=cls.__dict__.get("multi_output", False),
        nondiff=cls.__dict__.get("nondiff", False),
        side_effect=cls.__dict__.get("side_effect", False),
        random=cls.__dict__.get("random", False),
        ufunc=cls.__dict__.get("ufunc"),
        opcode=cls.__dict__.get("opcode"),
        inplace=cls.__dict__.get("inplace", False),
        internal=internal,
        api=cls.__dict__.get("api"),
    ))


def _not_a_tensor(prim: Primitive, inputs: tuple) -> SporeError | None:
    """On a failed op: the `InputTypeError` for an input that is not a Tensor, if that is the cause
    (asked only after a failure, so a correct call pays nothing for the check)."""
    from .input_check import op_input_error

    return op_input_error(prim.name, prim.infer, inputs)


def _one(out: Any) -> list:
    return [out]


def bind(prim: Primitive, *inputs: Tensor, **attrs: Any) -> Any:
    """Apply a primitive eagerly: check with `infer`, run `impl`, record on the tape if needed.

    Errors from the shape rule are re-raised with the user's line attached; the engine frames
    between the user's call and here are left out of the traceback.
    """
    builder = TRACING.builder
    if builder is not None:
        return builder.bind(prim, inputs, attrs)
    try:
        prim.infer(*inputs, **attrs)
    except SporeError as err:
        raise located(_not_a_tensor(prim, inputs) or err).with_traceback(None) from None
    except (AttributeError, TypeError):  # a rule reading .shape/.dtype of something that is no Tensor
        bad = _not_a_tensor(prim, inputs)
        if bad is None:
            raise
        raise located(bad).with_traceback(None) from None
    try:  # kernels validate values (index ranges, labels): their errors name the user's line too
        if not OBSERVERS.active or prim.name.startswith(_GRAPH_RUNS):
            out = prim.impl(*[t._data for t in inputs], **attrs)
        else:  # the graph a GraphCall runs reports its own nodes
            arrays = [t._data for t in inputs]
            out = run_observed(OpEvent(prim.name, "pynative", arrays, attrs), lambda: prim.impl(*arrays, **attrs),
                               list if prim.multi_output else _one)
    except SporeError as err:
        raise located(err).with_traceback(None) from None
    except AttributeError:  # `._data` of an input its rule took for a tensor (an ndarray has .shape/.dtype)
        bad = _not_a_tensor(prim, inputs)
        if bad is None:
            raise
        raise located(bad).with_traceback(None) from None
    if prim.multi_output:
        outs = tuple(Tensor._wrap(o) for o in out)
        if tape.STATE.depth and not prim.nondiff:
            tape.record(prim, inputs, attrs, outs)
        return outs
    res = Tensor._wrap(out)
    if tape.STATE.depth and not prim.nondiff:
        tape.record(prim, inputs, attrs, (res,))
    return res
