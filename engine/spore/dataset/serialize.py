"""`serialize` / `deserialize` / `show` / `compare` and `DeserializedDataset`: a dataset pipeline
as JSON, and back (issue 14, data slice).

A pipeline is written as a tree of nodes, the root first, each ``{"op_type": <class>,
"op_module": <module>, "params": {...}, "children": [...]}`` with the arguments the node was
built with (sources: their constructor's; ``map``/``batch``/``shuffle``/...: the operation's).
Transforms in ``map`` are ``{"tensor_op_name", "python_module", "tensor_op_params"}``, samplers
``{"sampler_name", "sampler_module", "sampler_params"}``; NumPy arrays, dtypes, enums, tuples,
``Vocab`` tables and ``SentencePieceVocab`` models (base64) carry a small tag so they come back
as they were. `deserialize` builds a new pipeline
giving the same rows (under the same ``set_seed`` for random ones).

What JSON cannot hold is marked, never guessed: a Python callable (a lambda, a function, a
``GeneratorDataset`` source, a ``per_batch_map``...) is written as ``{"tensor_op_name":
"PyFunc", "python_function": <its name>, "serializable": false}`` (MindSpore likewise keeps only
the name of a Python function), and `deserialize` refuses such a pipeline with a ValueError naming
the node and the function. Only JSON is ever read: classes are looked up by name among Spore's
own dataset modules (``spore.dataset.*``) and must be datasets, transforms, samplers or enums —
no pickle, no import of a module the JSON names outside Spore.
"""

from __future__ import annotations

import base64
import enum
import importlib
import inspect
import json
import os
from typing import Any

import numpy as np

from ._init_record import FromState, recorded_args
from ._seeding import EpochCtx
from .core import Dataset
from .samplers import Sampler
from .transforms.base import TensorOperation

__all__ = ["DeserializedDataset", "compare", "deserialize", "serialize", "show"]

_FORMAT = "spore.dataset.pipeline/1"
# written as null: a node's source location (for error messages) and the cache server, which Spore has not
_SKIPPED_PARAMS = {"where", "cache"}


class _Unserializable(Exception):
    """Raised inside encoding; turned into a marked entry."""


def _qualname(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or getattr(type(obj), "__qualname__", type(obj).__name__)


def _pyfunc(obj: Any) -> dict[str, Any]:
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return {"tensor_op_name": "PyFunc", "python_module": module, "python_function": _qualname(obj),
            "serializable": False}


def _bound_params(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    sig = inspect.signature(cls.__init__)
    bound = sig.bind(None, *args, **kwargs)
    params = dict(bound.arguments)
    params.pop(next(iter(sig.parameters)))  # self
    return params


def _call_with(cls: type, params: dict[str, Any]) -> Any:
    """``cls(**params)``, spreading *args / **kwargs parameters as their kinds say."""
    sig = inspect.signature(cls.__init__)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, value in params.items():
        p = sig.parameters.get(name)
        if p is None:
            raise ValueError(f"deserialize: {cls.__name__} has no parameter {name!r}")
        if p.kind is p.VAR_POSITIONAL:
            args.extend(value)
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(value)
        elif p.kind is p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[name] = value
    return cls(*args, **kwargs)


class _Encoder:
    """Turns a pipeline into plain JSON values; children are collected per node."""

    def node(self, ds: Dataset) -> dict[str, Any]:
        cls = type(ds)
        out: dict[str, Any] = {"op_type": cls.__name__, "op_module": cls.__module__}
        rec = recorded_args(ds)
        sampler = ds.__dict__.get("sampler")
        children: list[Dataset] = []
        if rec is None:
            out.update(serializable=False, reason=f"{cls.__name__} was not built through its constructor")
            out["children"] = [self.node(c) for c in ds.children]
            return out
        if sampler is not None and ds.__dict__.get("_spore_sampler") is not None and \
                sampler is not ds.__dict__["_spore_sampler"]:
            out.update(serializable=False, reason=f"{cls.__name__} is a part of a split() dataset")
        params = {}
        for name, value in _bound_params(cls, *rec).items():
            if isinstance(value, FromState):  # data the node converted and keeps in its own form
                value = ds._spore_state_param(name)
            params[name] = None if name in _SKIPPED_PARAMS else self.value(value, children)
        out["params"] = params
        out["children"] = [self.node(c) for c in children]
        return out

    def value(self, v: Any, children: list[Dataset]) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, enum.Enum):
            return v
        if isinstance(v, Dataset):
            children.append(v)
            return {"__child__": len(children) - 1}
        if isinstance(v, enum.Enum):
            cls = type(v)
            return {"__enum__": cls.__qualname__, "module": cls.__module__, "name": v.name}
        if isinstance(v, np.ndarray):
            return {"__ndarray__": v.tolist(), "dtype": v.dtype.str}
        if isinstance(v, np.generic):
            return {"__npscalar__": v.item(), "dtype": v.dtype.str}
        if isinstance(v, np.dtype):
            return {"__npdtype__": v.str}
        if isinstance(v, type) and issubclass(v, np.generic):
            return {"__npdtype__": np.dtype(v).str}
        from ..common import dtype as mstype

        if isinstance(v, mstype.DType):
            return {"__mstype__": v.name}
        if isinstance(v, tuple):
            return {"__tuple__": [self.value(x, children) for x in v]}
        if isinstance(v, list):
            return [self.value(x, children) for x in v]
        if isinstance(v, dict):
            return {"__dict__": [[self.value(k, children), self.value(x, children)] for k, x in v.items()]}
        from .text import SentencePieceVocab, Vocab

        if isinstance(v, Vocab):  # Lookup's table: token -> id
            return {"__vocab__": [[t, i] for t, i in v._ids.items()]}
        if isinstance(v, SentencePieceVocab) and v._proto is not None:  # the trained model proto
            return {"__sentencepiece_vocab__": base64.b64encode(v._proto).decode("ascii")}
        if isinstance(v, TensorOperation):
            return self.op(v, children)
        if isinstance(v, Sampler):
            return self.sampler(v)
        if callable(v):
            return _pyfunc(v)
        return {"__unserializable__": type(v).__name__, "serializable": False}

    def op(self, op: TensorOperation, children: list[Dataset]) -> dict[str, Any]:
        cls = type(op)
        out: dict[str, Any] = {"tensor_op_name": cls.__name__, "python_module": cls.__module__}
        rec = recorded_args(op)
        if rec is None and cls.__init__ is object.__init__:  # a transform without arguments
            rec = ((), {})
        if rec is None or not cls.__module__.startswith("spore.dataset"):
            return {**out, "tensor_op_params": {}, "serializable": False}
        out["tensor_op_params"] = {k: self.value(v, children) for k, v in _bound_params(cls, *rec).items()}
        return out

    def sampler(self, s: Sampler) -> dict[str, Any]:
        """A built-in sampler by its constructor's parameters, read back from its attributes and
        checked by building it again; anything else is marked."""
        cls = type(s)
        out: dict[str, Any] = {"sampler_name": cls.__name__, "sampler_module": cls.__module__}
        if not cls.__module__.startswith("spore.dataset"):
            return {**out, "serializable": False}
        names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
        if not all(hasattr(s, n) for n in names) or getattr(s, "_children", None):
            return {**out, "serializable": False}
        params = {n: getattr(s, n) for n in names}
        try:
            again = cls(**params)
        except (TypeError, ValueError):
            return {**out, "serializable": False}
        if _state(again) != _state(s):
            return {**out, "serializable": False}
        out["sampler_params"] = {n: self.value(v, []) for n, v in params.items()}
        return out


def _state(obj: Any) -> Any:
    """A comparable picture of an object's attributes (arrays as lists)."""
    def conv(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return ("nd", v.dtype.str, v.tolist())
        if isinstance(v, (list, tuple)):
            return tuple(conv(x) for x in v)
        if isinstance(v, dict):
            return tuple(sorted((str(k), conv(x)) for k, x in v.items()))
        return v
    return tuple(sorted((k, conv(v)) for k, v in vars(obj).items() if k != "dataset_size"))


def serialize(dataset: Dataset, json_filepath: str = "") -> dict[str, Any]:
    """The JSON description (a dict) of ``dataset``'s pipeline; also written to ``json_filepath``
    when one is given. Python callables are marked ``"serializable": false`` (see the module)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: dataset must be a Dataset, got {type(dataset).__name__}")
    if isinstance(dataset, DeserializedDataset):
        tree = json.loads(json.dumps(dataset.input_dict))
    else:
        tree = {"format": _FORMAT, **_Encoder().node(dataset)}
    if not isinstance(json_filepath, str):
        raise TypeError(f"serialize: json_filepath must be a str, got {type(json_filepath).__name__}")
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(tree, f, indent=2, ensure_ascii=False)
    return tree


def show(dataset: Dataset, indentation: int | None = 2) -> None:
    """Print the JSON description of ``dataset``'s pipeline (``indentation`` None: one line)."""
    if indentation is not None and (isinstance(indentation, bool) or not isinstance(indentation, int)
                                    or indentation < 0):
        raise ValueError(f"show: indentation must be a non-negative int or None, got {indentation!r}")
    print(json.dumps(serialize(dataset), indent=indentation, ensure_ascii=False))


def compare(pipeline1: Dataset, pipeline2: Dataset) -> bool:
    """Whether two pipelines have the same description (same nodes, arguments and transforms).
    Python callables are compared by module and name only (JSON keeps no more of them)."""
    return serialize(pipeline1) == serialize(pipeline2)


# --- deserialize --------------------------------------------------------------------------------

def _spore_class(module: Any, qualname: Any, what: str) -> Any:
    if not isinstance(module, str) or not isinstance(qualname, str) or not (
            module == "spore.dataset" or module.startswith("spore.dataset.") or module == "spore.common.dtype"):
        raise ValueError(f"deserialize: {what} {qualname!r} of module {module!r} is not one of Spore's dataset "
                         "classes; only those are rebuilt")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"deserialize: no {what} {module}.{qualname} in Spore") from e
    return obj


class _Decoder:
    def __init__(self) -> None:
        self.path: list[str] = []

    def fail(self, msg: str) -> ValueError:
        where = " > ".join(self.path) or "the pipeline"
        return ValueError(f"deserialize: {where}: {msg}")

    def node(self, d: Any) -> Dataset:
        if not isinstance(d, dict) or "op_type" not in d:
            raise self.fail(f"expected a node with an 'op_type', got {type(d).__name__}")
        self.path.append(str(d["op_type"]))
        try:
            if d.get("serializable") is False:
                raise self.fail(f"this node cannot be rebuilt ({d.get('reason', 'marked not serializable')})")
            cls = _spore_class(d.get("op_module"), d["op_type"], "dataset")
            if not (isinstance(cls, type) and issubclass(cls, Dataset)):
                raise self.fail(f"{d['op_type']} is not a dataset class")
            children = [self.node(c) for c in d.get("children", [])]
            params = {k: self.value(v, children) for k, v in dict(d.get("params", {})).items()}
            return _call_with(cls, params)
        finally:
            self.path.pop()

    def value(self, v: Any, children: list[Dataset]) -> Any:
        if isinstance(v, list):
            return [self.value(x, children) for x in v]
        if not isinstance(v, dict):
            return v
        if v.get("serializable") is False:
            name = v.get("python_function") or v.get("tensor_op_name") or v.get("sampler_name") or \
                v.get("__unserializable__")
            kind = "the Python function" if v.get("tensor_op_name") == "PyFunc" else \
                "the transform" if "tensor_op_name" in v else "the sampler" if "sampler_name" in v else "the object"
            raise self.fail(f"{kind} {name!r} was marked not serializable: JSON keeps only its name")
        if "__child__" in v:
            return children[int(v["__child__"])]
        if "__tuple__" in v:
            return tuple(self.value(x, children) for x in v["__tuple__"])
        if "__dict__" in v:
            return {self.value(k, children): self.value(x, children) for k, x in v["__dict__"]}
        if "__ndarray__" in v:
            return np.asarray(v["__ndarray__"], dtype=np.dtype(v["dtype"]))
        if "__npscalar__" in v:
            return np.dtype(v["dtype"]).type(v["__npscalar__"])
        if "__npdtype__" in v:
            return np.dtype(v["__npdtype__"])
        if "__vocab__" in v:
            from .text import Vocab

            return Vocab.from_dict({str(t): int(i) for t, i in v["__vocab__"]})
        if "__sentencepiece_vocab__" in v:
            from .text import SentencePieceVocab

            vocab = SentencePieceVocab()
            vocab._proto = base64.b64decode(v["__sentencepiece_vocab__"])
            return vocab
        if "__mstype__" in v:
            from ..common import dtype as mstype

            t = getattr(mstype, str(v["__mstype__"]), None)
            if not isinstance(t, mstype.DType):
                raise self.fail(f"unknown dtype {v['__mstype__']!r}")
            return t
        if "__enum__" in v:
            cls = _spore_class(v.get("module"), v["__enum__"], "enum")
            if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
                raise self.fail(f"{v['__enum__']} is not an enum")
            return cls[v["name"]]
        if "tensor_op_name" in v:
            cls = _spore_class(v.get("python_module"), v["tensor_op_name"], "transform")
            if not (isinstance(cls, type) and issubclass(cls, TensorOperation)):
                raise self.fail(f"{v['tensor_op_name']} is not a transform")
            self.path.append(str(v["tensor_op_name"]))
            try:
                return _call_with(cls, {k: self.value(x, children) for k, x in v.get("tensor_op_params", {}).items()})
            finally:
                self.path.pop()
        if "sampler_name" in v:
            cls = _spore_class(v.get("sampler_module"), v["sampler_name"], "sampler")
            if not (isinstance(cls, type) and issubclass(cls, Sampler)):
                raise self.fail(f"{v['sampler_name']} is not a sampler")
            return cls(**{k: self.value(x, children) for k, x in v.get("sampler_params", {}).items()})
        raise self.fail(f"cannot read the value {v!r}")


def _load(input_dict: Any, json_filepath: Any) -> dict[str, Any]:
    if json_filepath is not None:
        try:
            with open(json_filepath, encoding="utf-8") as f:
                tree = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"deserialize: {json_filepath} is not JSON ({e})") from e
    elif input_dict is not None:
        tree = input_dict
    else:
        raise ValueError("deserialize: give input_dict or json_filepath")
    if not isinstance(tree, dict):
        raise TypeError(f"deserialize: the pipeline must be a dict, got {type(tree).__name__}")
    if tree.get("format") != _FORMAT:
        raise ValueError(f"deserialize: not a pipeline written by spore.dataset.serialize (format "
                         f"{tree.get('format')!r}, expected {_FORMAT!r})")
    return tree


def deserialize(input_dict: dict[str, Any] | None = None, json_filepath: str | None = None) -> Dataset:
    """Build the pipeline ``serialize`` described, from ``json_filepath`` (read first when both are
    given, as MindSpore does) or ``input_dict``."""
    return _Decoder().node(_load(input_dict, json_filepath))


class DeserializedDataset(Dataset):
    """A dataset read from a serialized pipeline (a dict, or the path of a JSON file): its rows are
    those of the rebuilt pipeline."""

    def __init__(self, input_obj: dict[str, Any] | str) -> None:
        if isinstance(input_obj, (str, os.PathLike)):
            tree = _load(None, input_obj)
        else:
            tree = _load(input_obj, None)
        self.input_dict = tree
        self.input_obj = input_obj
        super().__init__([_Decoder().node(tree)])

    def _columns(self) -> list[str]:
        return self.children[0].get_col_names()

    def _size(self) -> int | None:
        return self.children[0].get_dataset_size()

    def _rows(self, ctx: EpochCtx) -> Any:
        rows: Any = self.children[0]._rows(ctx.child(0))
        return rows

    def get_batch_size(self) -> int:
        return self.children[0].get_batch_size()
