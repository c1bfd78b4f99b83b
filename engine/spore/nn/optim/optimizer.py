"""`Optimizer`: the base of Spore's optimizers, with MindSpore's `nn.Optimizer` behaviour.

What it settles for every subclass, as MindSpore does:

- **parameters**: a list of Parameters, or a list of group dicts with the keys ``'params'``,
  ``'lr'``, ``'weight_decay'``, ``'grad_centralization'``, plus at most one ``{'order_params': ...}``
  that fixes the final order. `optimizer.parameters` is a ParameterTuple in that order, and
  ``optimizer(grads)`` takes the gradients in the same order (what ``ms.grad(..., weights=
  optimizer.parameters)`` returns).
- **learning_rate**: a float/int (stored as the float32 Parameter ``learning_rate``, so callbacks
  can ``assign`` it), a 0-d Tensor (fixed), a list/tuple/1-D Tensor (step ``i`` uses element ``i``)
  or a `LearningRateSchedule` (called with `global_step`). With a dynamic rate the int32 Parameter
  ``global_step`` counts steps; it advances only when the learning rate or weight decay is dynamic,
  exactly as in MindSpore. `get_lr()` returns the current rate (and advances the step, as MindSpore's
  does); `get_lr_parameter(param)` returns the rate object of a parameter.
- **weight_decay**: without groups it applies to every parameter whose name contains neither
  ``'beta'`` nor ``'gamma'`` (BatchNorm/LayerNorm scales and shifts; note ``'bias'`` is *not*
  excluded). With groups each group decays all its parameters by its own value (default: the
  optimizer's). A `LearningRateSchedule` gives a per-step weight decay.
- **loss_scale**: gradients are divided by it (after weight decay is added as ``wd * loss_scale *
  w``, which nets out to ``g / loss_scale + wd * w``).

An Optimizer is a plain class with the Cell conveniences a training loop needs (`construct`,
``__call__``, `parameters_and_names`, `trainable_params`, `set_train`), not an `nn.Cell`: it must
not depend on the Cell machinery. Its state (moments, beta powers, ``learning_rate``,
``global_step``) lives in Parameters named as MindSpore names them (``moment1.fc1.weight``, ...),
listed by `parameters_and_names()` so a checkpoint can save and restore them.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ...errors import ShapeError, located
from ...ops.primitive import TRACING, Primitive, register
from ...tensor import Parameter, ParameterTuple, Tensor
from ..learning_rate_schedule import LearningRateSchedule
from . import _fused
from ._rates import _FixedRate, _IteratorLearningRate, rate_value

__all__ = ["Optimizer", "opt_init_args_register"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")
_TRUE = np.array(True)
_TRUE.setflags(write=False)


def opt_init_args_register(fn: Callable) -> Callable:
    """Decorator for an optimizer's ``__init__`` (MindSpore's): records the call's arguments as
    ``self.init_params = {"params": ...}`` and ``self.init_args`` (the rest, defaults filled in), which
    tools use to rebuild an optimizer of the same configuration."""

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self", None)
        if "params" in arguments:
            self.init_params = {"params": arguments.pop("params")}
        self.init_args = arguments
        return fn(self, *args, **kwargs)

    return deco


class Optimizer:
    """Base class of optimizers (MindSpore's ``nn.Optimizer(learning_rate, parameters, weight_decay=0.0,
    loss_scale=1.0)``). Subclasses implement ``construct(gradients)``; see the module docstring.

    ``optimizer.use_fused`` (default True) selects the fused C++ update where a subclass has one and
    the buffers are float32; set it to False to run the NumPy formulation (same results to float32
    rounding), e.g. to compare the two.
    """

    def __init__(self, learning_rate: Any, parameters: Any, weight_decay: Any = 0.0, loss_scale: float = 1.0) -> None:
        params = self._parameters_base_check(parameters, "parameters")
        if not all(isinstance(x, Parameter) for x in params) and not all(isinstance(x, dict) for x in params):
            kinds = sorted({type(x).__name__ for x in params})
            raise TypeError(f"For '{self.cls_name}', 'parameters' must be a list of Parameters or a list of group "
                            f"dicts, but it holds {', '.join(kinds)}; pass net.trainable_params()")
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, (int, float)):
            raise TypeError(f"For '{self.cls_name}', 'loss_scale' must be a float, got {type(loss_scale).__name__}")
        if not loss_scale > 0:
            raise ValueError(f"For '{self.cls_name}', 'loss_scale' must be greater than 0, got {loss_scale}")
        self.loss_scale = float(loss_scale)
        self.need_scale = self.loss_scale != 1.0
        self._grad_scale = 1.0 / self.loss_scale
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        self.grad_centralization = False
        self.global_step = Parameter(np.zeros([1], dtype=np.int32), name="global_step", requires_grad=False)
        self.use_fused = True  # the fused C++ update when the buffers allow it; False forces the NumPy path

        learning_rate = self._preprocess_single_lr(learning_rate)
        default_wd = self._preprocess_weight_decay(weight_decay)
        if isinstance(params[0], dict):
            self.is_group = True
            plist, lrs, wds, gcs = self._init_group_params(params, learning_rate, default_wd)
        else:
            plist = params
            lrs = [self._build_single_lr(learning_rate, "learning_rate")] * len(plist)
            wds = [default_wd] * len(plist)
            gcs = [False] * len(plist)
        self._check_unique(plist)
        for p in plist:  # the update kernels compute in a real dtype: a complex weight would lose its imaginary part
            if p._data.dtype.kind == "c":
                raise TypeError(f"{type(self).__name__}: parameter {p.name!r} is {p.dtype}; Spore's optimizers update "
                                "real parameters (as MindSpore's CPU kernels); keep the real and imaginary parts as "
                                "two real Parameters and combine them with ops.Complex()(re, im)")
        for p in plist:  # the fused updates need C-contiguous buffers; same values, same Parameter
            if not p._data.flags.c_contiguous:
                p._data = np.ascontiguousarray(p._data)

        self.parameters = ParameterTuple(plist)
        self._params = list(plist)
        self.param_length = len(plist)
        if self.is_group_lr:
            self.learning_rate = tuple(lrs) if self.dynamic_lr else ParameterTuple(lrs)
        else:
            self.learning_rate = lrs[0]
        self._lr_unique: list[Any] = []
        self._lr_index: list[int] = []
        for src in lrs:
            for j, u in enumerate(self._lr_unique):
                if u is src:
                    self._lr_index.append(j)
                    break
            else:
                self._lr_unique.append(src)
                self._lr_index.append(len(self._lr_unique) - 1)

        if self.is_group:
            self.weight_decay = tuple(wds)
            self.decay_flags = tuple(not isinstance(w, float) or w > 0 for w in wds)
        else:
            self.weight_decay = default_wd
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in plist)
        self._wd_sources = list(wds)
        self.exec_weight_decay = any(self.decay_flags) and any(not isinstance(w, float) or w > 0 for w in wds)
        self._wd_static = None if self.dynamic_weight_decay else \
            [float(w) if f else 0.0 for w, f in zip(wds, self.decay_flags)]
        self.grad_centralization_flags = tuple(gcs)
        self._gc_any = any(gcs)
        self._state_tuples: list[tuple[str, ParameterTuple]] = []
        self._state_params: list[Parameter] = []

    # --- construction helpers -----------------------------------------------------------------
    @property
    def cls_name(self) -> str:
        return type(self).__name__

    def _parameters_base_check(self, parameters: Any, what: str) -> list:
        if parameters is None:
            raise ValueError(f"For '{self.cls_name}', '{what}' can not be None; pass net.trainable_params()")
        if isinstance(parameters, (Parameter, dict)) or not isinstance(parameters, Iterable):
            raise TypeError(f"For '{self.cls_name}', '{what}' must be a list (of Parameters or group dicts), "
                            f"got {type(parameters).__name__}")
        out = list(parameters)
        if not out:
            raise ValueError(f"For '{self.cls_name}', '{what}' must not be empty")
        return out

    def _check_unique(self, plist: Sequence[Parameter]) -> None:
        seen: dict[int, int] = {}
        for i, p in enumerate(plist):
            if id(p) in seen:
                raise RuntimeError(f"For '{self.cls_name}', the parameter {p.name!r} is given twice (positions "
                                   f"{seen[id(p)]} and {i}); it would be updated twice per step")
            seen[id(p)] = i

    def _preprocess_single_lr(self, lr: Any) -> Any:
        """float for a fixed rate, a float32 0-d/1-D Tensor, or a LearningRateSchedule."""
        if isinstance(lr, bool):
            raise TypeError(f"For '{self.cls_name}', 'learning_rate' must be a float, a Tensor, a list or a "
                            "LearningRateSchedule, got bool")
        if isinstance(lr, numbers.Real):
            lr = float(lr)
            if lr < 0:
                raise ValueError(f"For '{self.cls_name}', 'learning_rate' must be at least 0, got {lr}")
            return lr
        if isinstance(lr, Tensor):
            if lr.ndim == 0:
                return Tensor(lr._data.astype(np.float32))
            if lr.ndim > 1:
                raise ValueError(f"For '{self.cls_name}', a Tensor 'learning_rate' must be 0-D or 1-D, "
                                 f"got shape {lr.shape}")
            self.dynamic_lr = True
            return Tensor(lr._data.astype(np.float32))
        if isinstance(lr, LearningRateSchedule):
            self.dynamic_lr = True
            return lr
        if isinstance(lr, Iterable) and not isinstance(lr, (str, bytes, dict)):
            values = np.array(list(lr), dtype=np.float32)
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"For '{self.cls_name}', a list 'learning_rate' must be a non-empty flat list "
                                 f"of numbers (one per step), got shape {values.shape}")
            self.dynamic_lr = True
            return Tensor(values)
        raise TypeError(f"For '{self.cls_name}', 'learning_rate' must be a float, a Tensor, a list or a "
                        f"LearningRateSchedule, got {type(lr).__name__}")

    def _build_single_lr(self, lr: Any, name: str) -> Any:
        """The rate object stored on the optimizer: a Parameter, an iterator schedule or the schedule."""
        if isinstance(lr, float) or (isinstance(lr, Tensor) and lr.ndim == 0):
            value = lr._data if isinstance(lr, Tensor) else np.array(lr, dtype=np.float32)
            param = Parameter(np.array(value, dtype=np.float32), name=name, requires_grad=False)
            return _FixedRate(param) if (self.is_group_lr and self.dynamic_lr) else param
        if isinstance(lr, Tensor):
            return _IteratorLearningRate(lr, name)
        return lr

    def _preprocess_weight_decay(self, wd: Any) -> Any:
        if isinstance(wd, bool):
            raise TypeError(f"For '{self.cls_name}', 'weight_decay' must be a float or a schedule, got bool")
        if isinstance(wd, numbers.Real):
            wd = float(wd)
            if wd < 0:
                raise ValueError(f"For '{self.cls_name}', 'weight_decay' must be at least 0, got {wd}")
            return wd
        if isinstance(wd, LearningRateSchedule) or (callable(wd) and hasattr(wd, "construct")):
            self.dynamic_weight_decay = True  # MindSpore takes any Cell mapping global_step to a decay
            return wd
        raise TypeError(f"For '{self.cls_name}', 'weight_decay' must be a float, an int or a schedule "
                        f"(a LearningRateSchedule or Cell called with global_step), got {type(wd).__name__}")

    def _init_group_params(self, groups: list[dict], default_lr: Any,
                           default_wd: Any) -> tuple[list, list, list, list]:
        order = None
        tensor_len = default_lr.size if isinstance(default_lr, Tensor) and default_lr.ndim == 1 else 0
        parsed_lr: dict[int, Any] = {}
        for gi, group in enumerate(groups):
            bad = [k for k in group if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"For '{self.cls_name}', group {gi} has unknown keys {bad}; the keys are "
                               f"{list(_GROUP_KEYS)}")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"For '{self.cls_name}', the 'order_params' dict must hold only that key, "
                                     f"got {list(group)}")
                order = self._parameters_base_check(group["order_params"], "order_params")
                self.is_group_params_ordered = True
                continue
            if "params" not in group:
                raise KeyError(f"For '{self.cls_name}', group {gi} has no 'params' key")
            plist = self._parameters_base_check(group["params"], f"group {gi} 'params'")
            for j, p in enumerate(plist):
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{self.cls_name}', group {gi} 'params'[{j}] must be a Parameter, "
                                    f"got {type(p).__name__}")
            if "lr" in group:
                self.is_group_lr = True
                parsed_lr[gi] = self._preprocess_single_lr(group["lr"])
                glr = parsed_lr[gi]
                if isinstance(glr, Tensor) and glr.ndim == 1:
                    if tensor_len and glr.size != tensor_len:
                        raise ValueError(f"For '{self.cls_name}', every list learning rate must have the same "
                                         f"length: group {gi} has {glr.size}, another has {tensor_len}")
                    tensor_len = glr.size
        default = self._build_single_lr(default_lr, "learning_rate")
        plist_all, lrs, wds, gcs = [], [], [], []
        for gi, group in enumerate(groups):
            if "order_params" in group:
                continue
            lr = self._build_single_lr(parsed_lr[gi], f"learning_rate_group_{gi}") if gi in parsed_lr else default
            wd = self._preprocess_weight_decay(group["weight_decay"]) if "weight_decay" in group else default_wd
            gc = group.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"For '{self.cls_name}', group {gi} 'grad_centralization' must be a bool, "
                                f"got {type(gc).__name__}")
            self.grad_centralization = self.grad_centralization or gc
            for p in group["params"]:
                plist_all.append(p)
                lrs.append(lr)
                wds.append(wd)
                gcs.append(gc)
        if order is not None:
            plist_all, lrs, wds, gcs = self._order_group_params(order, plist_all, lrs, wds, gcs)
        return plist_all, lrs, wds, gcs

    def _order_group_params(self, order: list, plist: list, lrs: list, wds: list, gcs: list) -> tuple:
        if len(order) != len(plist):
            raise ValueError(f"For '{self.cls_name}', 'order_params' has {len(order)} parameters but the groups "
                             f"hold {len(plist)}; it must list exactly the grouped parameters")
        where = {id(p): i for i, p in enumerate(order)}
        slots: list[Any] = [None] * len(plist)
        for p, lr, wd, gc in zip(plist, lrs, wds, gcs):
            if id(p) not in where:
                raise ValueError(f"For '{self.cls_name}', parameter {p.name!r} is in a group but not in "
                                 "'order_params'")
            slots[where[id(p)]] = (p, lr, wd, gc)
        if any(s is None for s in slots):
            missing = [order[i].name for i, s in enumerate(slots) if s is None]
            raise ValueError(f"For '{self.cls_name}', 'order_params' lists {missing} that no group holds")
        return tuple(list(col) for col in zip(*slots))

    def _clone_state(self, prefix: str, fill: float = 0.0) -> ParameterTuple:
        """One state buffer per parameter, named ``prefix.<param name>`` (C-contiguous, param dtype)."""
        states = ParameterTuple(
            Parameter(np.full(p._data.shape, fill, dtype=p.dtype.np), name=f"{prefix}.{p.name}",
                      requires_grad=False)
            for p in self._params)
        self._state_tuples.append((prefix, states))
        return states

    def _scalar_state(self, name: str, value: float, dtype: Any = np.float32) -> Parameter:
        p = Parameter(np.array(value, dtype=dtype), name=name, requires_grad=False)
        self._state_params.append(p)
        return p

    # --- learning rate and weight decay -------------------------------------------------------
    def get_lr(self) -> Any:
        """The learning rate of the current step (a tuple, one per parameter, with group rates).

        With a dynamic rate this also advances `global_step`, as MindSpore's `get_lr` does (the
        optimizer calls it once per step).
        """
        lr = self.learning_rate
        if self.dynamic_lr:
            step = int(self.global_step._data[0])
            if self.is_group_lr:
                lr = tuple(Tensor(np.float32(rate_value(s, step))) for s in self.learning_rate)
            else:
                lr = Tensor(np.float32(rate_value(self.learning_rate, step)))
        if self.dynamic_lr or self.dynamic_weight_decay:
            self.global_step._data += 1
        return lr

    def get_lr_parameter(self, param: Parameter | list[Parameter]) -> Any:
        """The learning-rate object of `param` (a Parameter, or the schedule when dynamic); a list for a list."""
        if isinstance(param, Parameter):
            plist, single = [param], True
        elif isinstance(param, list):
            plist, single = param, False
        else:
            raise TypeError(f"For 'get_lr_parameter', 'param' must be a Parameter or a list, "
                            f"got {type(param).__name__}")
        ids = [id(p) for p in self._params]
        out = []
        for p in plist:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'get_lr_parameter', expected Parameters, got {type(p).__name__}")
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name!r} is not in this optimizer")
            src = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            out.append(src.learning_rate if isinstance(src, (_FixedRate, _IteratorLearningRate)) else src)
        return out[0] if single else out

    def get_weight_decay(self) -> Any:
        """The weight decay of the current step: a float (a tuple, one per parameter, with groups)."""
        step = int(self.global_step._data[0])
        if self.is_group:
            return tuple(rate_value(w, step) for w in self._wd_sources)
        return rate_value(self.weight_decay, step)

    def _step_lrs(self) -> list[float]:
        """The rates of this step (one value, or one per parameter), advancing global_step if dynamic."""
        step = int(self.global_step._data[0]) if self.dynamic_lr else 0
        values = [rate_value(src, step) for src in self._lr_unique]
        if self.dynamic_lr or self.dynamic_weight_decay:
            self.global_step._data += 1
        if len(values) == 1:
            return values
        return [values[j] for j in self._lr_index]

    def _decays(self) -> list[float]:
        """Per-parameter weight decay of this step, 0.0 where a parameter is not decayed.

        Read before `_step_lrs` advances global_step: MindSpore decays, then fetches the rate.
        """
        if self._wd_static is not None:
            return self._wd_static
        step = int(self.global_step._data[0])
        cache: dict[int, float] = {}
        out = []
        for src, flag in zip(self._wd_sources, self.decay_flags):
            if not flag:
                out.append(0.0)
                continue
            key = id(src)
            if key not in cache:
                cache[key] = rate_value(src, step)
            out.append(cache[key])
        return out

    # --- gradients ----------------------------------------------------------------------------
    def _prepare(self, gradients: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(parameter arrays, gradient arrays) of this step, checked: one gradient per parameter,
        each of its parameter's shape, centralized where a group asks for it."""
        params = self._params
        try:
            n = len(gradients)
        except TypeError:
            raise TypeError(f"{self.cls_name}: expected a tuple of gradients (one per parameter), got "
                            f"{type(gradients).__name__}") from None
        if n != len(params):
            raise located(ShapeError(
                self.cls_name, f"{len(params)} gradients, one per parameter in optimizer.parameters",
                f"{n}", hint="compute gradients with weights=optimizer.parameters so count and order match"))
        pdata = [p._data for p in params]
        gdata = [g._data if isinstance(g, Tensor) else g for g in gradients]
        for i, (pa, ga) in enumerate(zip(pdata, gdata)):
            if type(ga) is not np.ndarray or ga.shape != pa.shape:
                gdata[i] = self._grad_array(i, ga, pa)
        if self._gc_any:
            gdata = [_centralize(g) if f else g for g, f in zip(gdata, self.grad_centralization_flags)]
        return pdata, gdata

    def _grad_array(self, i: int, g: Any, pa: np.ndarray) -> np.ndarray:
        name = self._params[i].name
        if g is None:
            raise located(ShapeError(self.cls_name, f"a gradient for parameter {name!r} (position {i})", "None",
                                     hint="every parameter needs a gradient; pass zeros for unused ones"))
        arr = np.asarray(g)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{self.cls_name}: the gradient of parameter {name!r} (position {i}) has dtype "
                            f"{arr.dtype}; expected a float Tensor")
        if arr.shape != pa.shape:
            raise located(ShapeError(
                self.cls_name, f"gradient of shape {pa.shape} for parameter {name!r} (position {i})",
                f"shape {arr.shape}", hint="gradients must come in the order of optimizer.parameters"))
        return arr

    def decay_weight(self, gradients: tuple) -> tuple:
        """``g + wd * loss_scale * w`` for the decayed parameters (for custom optimizers on this base).

        The decay is scaled like the gradients, so `scale_grad` afterwards yields ``g / loss_scale +
        wd * w``, the order MindSpore's optimizers use.
        """
        if not self.exec_weight_decay:
            return tuple(gradients)
        wds = self._decays()
        out = []
        for p, g, wd in zip(self._params, gradients, wds):
            ga = g._data if isinstance(g, Tensor) else np.asarray(g)
            out.append(Tensor._wrap(ga + np.asarray(wd * self.loss_scale, ga.dtype) * p._data) if wd else g)
        return tuple(out)

    def scale_grad(self, gradients: tuple) -> tuple:
        """Gradients divided by `loss_scale` (for custom optimizers)."""
        if not self.need_scale:
            return tuple(gradients)
        return tuple(Tensor._wrap((g._data if isinstance(g, Tensor) else np.asarray(g)) *
                                  np.asarray(self._grad_scale, np.float32)) for g in gradients)

    def gradients_centralization(self, gradients: tuple) -> tuple:
        """Centralized gradients for the groups that set ``grad_centralization`` (for custom optimizers)."""
        if not self._gc_any:
            return tuple(gradients)
        return tuple(Tensor._wrap(_centralize(g._data if isinstance(g, Tensor) else np.asarray(g))) if f else g
                     for g, f in zip(gradients, self.grad_centralization_flags))

    def _fused_ok(self, name: str) -> Any:
        """The fused kernel to try this step, or None for the NumPy path."""
        return _fused.kernel(name) if self.use_fused else None

    @staticmethod
    def _success() -> Tensor:
        """MindSpore's optimizers return a True bool Tensor (used with ops.depend)."""
        return Tensor._wrap(_TRUE)

    # --- Cell-like conveniences ---------------------------------------------------------------
    def construct(self, gradients: tuple) -> Any:
        """Apply one update from `gradients` (in the order of `parameters`). Subclasses implement it."""
        raise TypeError(f"{self.cls_name} must implement construct(gradients)")

    def __call__(self, gradients: tuple) -> Any:
        if TRACING.builder is not None:  # inside a compiled training step: one graph equation
            return _record_step(self, tuple(gradients))
        return self.construct(gradients)

    def _refresh_state_names(self) -> None:
        """Re-derive state names from the parameters' current names (a Cell may rename them later)."""
        for prefix, states in self._state_tuples:
            for p, s in zip(self._params, states):
                s.name = f"{prefix}.{p.name}"

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(name, Parameter) for the parameters it updates, then its own state, each once (checkpointing)."""
        self._refresh_state_names()
        seen: set[int] = set()
        owned: list[Parameter] = list(self._params)
        lrs = self.learning_rate if isinstance(self.learning_rate, tuple) else (self.learning_rate,)
        for src in lrs:
            lr_param = src if isinstance(src, Parameter) else getattr(src, "learning_rate", None)
            if isinstance(lr_param, Parameter):
                owned.append(lr_param)
        owned.append(self.global_step)
        owned += self._state_params
        for _, states in self._state_tuples:
            owned += list(states)
        for p in owned:
            if id(p) not in seen:
                seen.add(id(p))
                yield (f"{name_prefix}.{p.name}" if name_prefix else p.name), p

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters() if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters() if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> dict[str, Parameter]:
        return {p.name: p for p in self.get_parameters()}

    def set_train(self, mode: bool = True) -> Optimizer:
        return self

    @property
    def target(self) -> str:
        """Where the update runs: always the host CPU in Spore."""
        return "CPU"

    def __repr__(self) -> str:
        if "learning_rate" not in self.__dict__:  # still in __init__ (e.g. an error message being built)
            return f"{self.cls_name}<uninitialised>"
        lr = "dynamic" if self.dynamic_lr else ("per group" if self.is_group_lr else
                                                f"{float(self.learning_rate._data):g}")
        return f"{self.cls_name}<{self.param_length} parameters, learning_rate={lr}>"


def _centralize(g: np.ndarray) -> np.ndarray:
    """Gradient centralization as MindSpore applies it: subtract the mean over all axes but the first,
    for tensors of rank >= 2 whose second dimension is a multiple of 16 (others pass unchanged)."""
    if g.ndim < 2 or g.shape[1] % 16 != 0:
        return g
    return g - g.mean(axis=tuple(range(1, g.ndim)), keepdims=True)


def _step_infer(*tensors: Any, optimizer: Any = None) -> Any:
    from ...common.dtype import bool_
    from ...ops.primitive import Aval

    return Aval((), bool_)


def _step_impl(*arrays: np.ndarray, optimizer: Any = None) -> np.ndarray:
    n = len(optimizer._params)
    optimizer.construct(tuple(Tensor._wrap(a) for a in arrays[:n]))
    return np.asarray(True)


# Graph mode's view of `optimizer(grads)`: a state-writing equation that runs the optimizer's own
# (fused) update with the gradients the graph computed, each time the graph runs. The parameters
# are inputs too, so the equation is ordered after every read of the old weights.
_OPTIMIZER_STEP = register(Primitive("OptimizerStep", _step_infer, _step_impl, None,
                                     "Applies an optimizer update to its parameters (a compiled "
                                     "`optimizer(grads)`).", nondiff=True, side_effect=True, internal=True))


def _record_step(optimizer: Optimizer, gradients: tuple) -> Tensor:
    if len(gradients) != len(optimizer._params):
        raise located(ShapeError(optimizer.cls_name, f"{len(optimizer._params)} gradients (one per parameter)",
                                 f"{len(gradients)}"))
    return TRACING.builder.bind(_OPTIMIZER_STEP, list(gradients) + list(optimizer._params), {"optimizer": optimizer})
