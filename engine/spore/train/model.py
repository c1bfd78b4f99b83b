"""`Model`: MindSpore's high-level train / eval / predict API (``mindspore.train.Model``).

    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"accuracy"})
    model.train(10, train_ds, callbacks=[LossMonitor(), ModelCheckpoint()])
    model.eval(test_ds)        # {'accuracy': 0.97}

The training network is built as MindSpore builds it: ``TrainOneStepCell(WithLossCell(net, loss_fn),
optimizer)`` (through `spore.amp.build_train_network` for mixed precision), or ``WithLossCell``
without an optimizer, or `network` itself when it already computes and applies its loss. One step
is one call of that Cell. In Graph mode (``set_context(mode=GRAPH_MODE)``) a Cell call compiles
its construct (once per input signature), so forward, backward and the optimizer update run as one
compiled graph; callbacks always run in Python between steps.

Datasets: a `spore.dataset` Dataset (each row a list of Tensors), or any re-iterable of tuples such
as ``[(x, y), ...]`` (NumPy arrays become Tensors; a one-shot iterator is read once into a list so
every epoch sees the same batches). ``dataset_sink_mode=True`` is accepted and runs like
``False``: sinking feeds an accelerator's queue, and Spore runs on the host CPU, as MindSpore
itself does on CPU. `sink_size` is likewise ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import closing
from typing import Any

import numpy as np

from ..tensor import Tensor
from .callback._callback import LEGACY_HOOKS, Callback, CallbackList, RunContext, _InternalCallbackParam
from .callback.checkpoint_cb import ModelCheckpoint
from .callback.time_monitor import TimeMonitor
from .metrics import Loss, Metric, get_metric_fn, get_metrics

logger = logging.getLogger("spore.train")

_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_BOOST_LEVELS = ("O0", "O1", "O2")
# cast_model_type is Spore's addition (MindSpore's Model takes only the other three): it is how
# `Model(..., amp_level="O2", cast_model_type=ms.bfloat16)` trains in bfloat16.
_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "cast_model_type")


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"For 'Model', '{name}' must be an int >= {minimum}, but got {value!r}.")
    return value


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For 'Model', '{name}' must be a bool, but got {type(value).__name__}.")
    return value


def _as_tensor(x: Any) -> Any:
    if isinstance(x, np.ndarray) or (isinstance(x, np.generic) and not isinstance(x, np.str_)):
        return Tensor(x)
    return x


def _as_tuple(element: Any) -> tuple:
    """A dataset row as the tuple of network inputs (a lone Tensor becomes a 1-tuple)."""
    if isinstance(element, dict):
        element = list(element.values())
    if isinstance(element, (list, tuple)):
        return tuple(_as_tensor(x) for x in element)
    return (_as_tensor(element),)


class _Batches:
    """One interface over spore datasets and plain iterables: the size and one epoch of rows."""

    def __init__(self, dataset: Any, what: str) -> None:
        self.source = dataset
        self._rows: Any = None
        if hasattr(dataset, "create_tuple_iterator"):
            return
        if not isinstance(dataset, Iterable):
            raise TypeError(f"For 'Model', '{what}' must be a spore.dataset Dataset or an iterable of (data, label) "
                            f"tuples, but got {type(dataset).__name__}.")
        self._rows = list(dataset) if iter(dataset) is dataset else dataset  # one-shot iterators: read once

    def size(self) -> int | None:
        if self._rows is None:
            n = self.source.get_dataset_size()
            return n if n >= 0 else None
        return len(self._rows) if hasattr(self._rows, "__len__") else None

    def epoch(self) -> Iterator[tuple]:
        if self._rows is not None:
            for row in self._rows:
                yield _as_tuple(row)
            return
        it = self.source.create_tuple_iterator(num_epochs=1)
        try:
            for row in it:
                yield _as_tuple(row)
        finally:
            it.stop()


def _is_builtin(cb: Callback) -> bool:
    return type(cb).__module__.startswith("spore.train.callback")


class Model:
    """High-level training and inference (MindSpore's ``Model``; see the module docstring).

    Args:
        network: the network (a Cell).
        loss_fn: the loss Cell; None when `network` computes its own loss.
        optimizer: the optimizer; None when `network` updates its own weights (or only evaluates).
        metrics: a set of metric names (``{"accuracy", "loss"}``) or a dict name -> Metric, for `eval`.
        eval_network: the evaluation Cell; by default ``WithEvalCell(network, loss_fn)``.
        eval_indexes: positions of (loss, prediction, label) in `eval_network`'s outputs.
        amp_level: mixed precision ("O0" off; others build through `spore.amp.build_train_network`).
        boost_level: MindSpore's Ascend boost modes; accepted, only "O0" behaviour exists in Spore.
        kwargs: ``loss_scale_manager``, ``keep_batchnorm_fp32``, ``boost_config_dict``, and Spore's
            ``cast_model_type`` (float16 or bfloat16, for amp_level O2/O3; MindSpore's Model lacks it).
    """

    def __init__(self, network: Any, loss_fn: Any = None, optimizer: Any = None, metrics: Any = None,
                 eval_network: Any = None, eval_indexes: list[int] | None = None, amp_level: str = "O0",
                 boost_level: str = "O0", **kwargs: Any) -> None:
        if not callable(network):
            raise TypeError(f"For 'Model', 'network' must be a Cell, but got {type(network).__name__}.")
        unknown = [k for k in kwargs if k not in _KWARGS]
        if unknown:
            raise ValueError(f"The argument in 'kwargs' should be 'loss_scale_manager' or 'keep_batchnorm_fp32' or "
                             f"'boost_config_dict', but got '{unknown[0]}'.")
        if amp_level not in _AMP_LEVELS:
            raise ValueError(f"For 'Model', 'amp_level' must be one of {_AMP_LEVELS}, but got {amp_level!r}.")
        if boost_level not in _BOOST_LEVELS:
            raise ValueError(f"For 'Model', 'boost_level' must be one of {_BOOST_LEVELS}, but got {boost_level!r}.")
        if boost_level != "O0":
            logger.warning("Model: boost_level=%r is an Ascend feature; Spore trains as with 'O0'.", boost_level)
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None. Please set "
                             "amp_level='O0' to disable auto mixed precision or set 'optimizer' not be None.")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._loss_scale_manager_set = "loss_scale_manager" in kwargs
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32", amp_level not in ("O0", "O3"))
        self._boost_config = kwargs.get("boost_config_dict", "")
        self._cast_model_type = kwargs.get("cast_model_type")
        self._metric_fns: dict[str, Metric] = get_metrics(metrics) or {}
        self._eval_network = eval_network
        self._eval_indexes: list[int] | None = None
        self._train_network = self._build_train_network()
        self._build_eval_network(eval_network, eval_indexes)
        self._predict_network = network
        self._current_epoch_num = 0
        self._current_step_num = 0

    # --- networks -----------------------------------------------------------------------------
    @property
    def train_network(self) -> Any:
        """The Cell one training step calls."""
        return self._train_network

    @property
    def eval_network(self) -> Any:
        return self._eval_network

    @property
    def predict_network(self) -> Any:
        return self._predict_network

    def _build_train_network(self) -> Any:
        """The training Cell (MindSpore's wrappers); the hook mixed precision builds through."""
        from ..nn.wrap import TrainOneStepCell, WithLossCell

        if self._loss_scale_manager_set and self._optimizer is None:
            raise ValueError("The argument 'optimizer' can not be None when set 'loss_scale_manager'.")
        if self._optimizer is None:
            return WithLossCell(self._network, self._loss_fn) if self._loss_fn is not None else self._network
        if self._amp_level != "O0" or self._loss_scale_manager_set:
            options: dict[str, Any] = {"level": self._amp_level, "boost_level": self._boost_level,
                                       "keep_batchnorm_fp32": self._keep_bn_fp32}
            if self._loss_scale_manager_set:
                options["loss_scale_manager"] = self._loss_scale_manager
            if self._cast_model_type is not None:
                options["cast_model_type"] = self._cast_model_type
            from ..amp import build_train_network

            return build_train_network(self._network, self._optimizer, self._loss_fn, **options)
        network = WithLossCell(self._network, self._loss_fn) if self._loss_fn is not None else self._network
        return TrainOneStepCell(network, self._optimizer)

    def _build_eval_network(self, eval_network: Any, eval_indexes: list[int] | None) -> None:
        from ..nn.wrap import WithEvalCell

        if not self._metric_fns:
            return
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, list) and len(eval_indexes) == 3):
                raise ValueError("The argument 'eval_indexes' must be a list or None. If 'eval_indexes' is a list, "
                                 f"length of it must be three. But got 'eval_indexes' {eval_indexes}")
            self._eval_network, self._eval_indexes = eval_network, eval_indexes
            return
        if self._loss_fn is None:
            raise ValueError("If `metrics` is set, `eval_network` must not be None. For the simple scenario with "
                             "one data, one label and one logits, give `loss_fn` instead and Model builds the "
                             "evaluation network from `network` and `loss_fn`.")
        self._eval_network = WithEvalCell(self._network, self._loss_fn, self._amp_level in ("O2", "O3", "auto"))
        self._eval_indexes = [0, 1, 2]

    @staticmethod
    def _run(network: Any, inputs: tuple) -> Any:
        """One step: a call of the Cell, which compiles itself (once per input signature) in Graph mode."""
        return network(*inputs)

    # --- training -----------------------------------------------------------------------------
    def train(self, epoch: int, train_dataset: Any, callbacks: Any = None, dataset_sink_mode: bool = False,
              sink_size: int = -1, initial_epoch: int = 0) -> None:
        """Train for epochs ``initial_epoch + 1 .. epoch`` over `train_dataset`, calling `callbacks`."""
        self._check_train_args(epoch, dataset_sink_mode, sink_size, initial_epoch)
        batches = _Batches(train_dataset, "train_dataset")
        if batches.size() == 0:
            raise ValueError("There is no valid data in dataset, please check dataset file firstly.")
        self._check_callbacks(callbacks, "train")
        self._train(epoch, batches, callbacks, initial_epoch, None)

    def fit(self, epoch: int, train_dataset: Any, valid_dataset: Any = None, valid_frequency: int | list = 1,
            callbacks: Any = None, dataset_sink_mode: bool = False, valid_dataset_sink_mode: bool = False,
            sink_size: int = -1, initial_epoch: int = 0) -> None:
        """Train, and evaluate on `valid_dataset` after every `valid_frequency`-th epoch (or the listed epochs).

        Each evaluation puts ``metrics`` and ``eval_results`` (metrics plus ``eval_loss``) into
        cb_params for the ``on_train_epoch_end`` callbacks (LossMonitor prints them, EarlyStopping
        monitors them, History records them).
        """
        self._check_train_args(epoch, dataset_sink_mode, sink_size, initial_epoch)
        _check_bool(valid_dataset_sink_mode, "valid_dataset_sink_mode")
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
            raise TypeError("For 'Model.fit', the type of 'valid_frequency' must be a list or an integer, but got "
                            f"type {type(valid_frequency).__name__}.")
        if isinstance(valid_frequency, int) and valid_frequency < 1:
            raise ValueError(f"For 'Model.fit', 'valid_frequency' must be >= 1, got {valid_frequency}.")
        if valid_dataset is not None and not self._metric_fns:
            raise ValueError("For 'Model.fit', if valid_dataset is not None, the model argument 'metrics' can not be "
                             "None or empty, you should set the argument 'metrics' for model.")
        batches = _Batches(train_dataset, "train_dataset")
        if batches.size() == 0:
            raise ValueError("There is no valid data in dataset, please check dataset file firstly.")
        valid = _Batches(valid_dataset, "valid_dataset") if valid_dataset is not None else None
        self._check_callbacks(callbacks, "fit")
        self._train(epoch, batches, callbacks, initial_epoch, (valid, valid_frequency) if valid else None)

    @staticmethod
    def _check_train_args(epoch: int, sink: bool, sink_size: int, initial_epoch: int) -> None:
        _check_bool(sink, "dataset_sink_mode")
        _check_int(epoch, "epoch", 1)
        _check_int(initial_epoch, "initial_epoch", 0)
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"For 'Model.train', The argument 'sink_size' must be -1 or positive, "
                             f"but got {sink_size}.")
        if initial_epoch >= epoch:
            raise ValueError(f"For 'Model.train', the parameter 'epoch' must bigger than parameter 'initial_epoch', "
                             f"but got the parameter 'epoch' is {epoch}, 'initial_epoch' is {initial_epoch}.")
        if sink:
            logger.info("Dataset sink mode feeds an accelerator; Spore runs on the CPU, so the data is not sunk.")

    @staticmethod
    def _callback_list(callbacks: Any) -> list[Callback]:
        from ..parallel.training import rank_callbacks  # data parallel: writers run on rank 0

        if callbacks is None:
            return []
        if isinstance(callbacks, Callback):
            return rank_callbacks([callbacks])
        if isinstance(callbacks, Iterable):
            return rank_callbacks(list(callbacks))
        raise TypeError(f"The 'callbacks' is not a Callback or a list of Callback, got {type(callbacks).__name__}.")

    def _check_callbacks(self, callbacks: Any, mode: str) -> None:
        """MindSpore's rule for user callbacks that define 1.x hook names (begin, step_end, ...)."""
        for cb in self._callback_list(callbacks):
            legacy = sorted(set(type(cb).__dict__) & LEGACY_HOOKS) if not _is_builtin(cb) else []
            if not legacy:
                continue
            message = (f"For {type(cb).__name__} callback, {legacy} methods may not be supported in later version, "
                       "Use methods prefixed with 'on_train' or 'on_eval' instead when using customized callbacks.")
            if mode == "fit":
                raise ValueError(message)
            logger.warning(message)

    def _train(self, epoch: int, batches: _Batches, callbacks: Any, initial_epoch: int,
               valid: tuple[_Batches, Any] | None) -> None:
        cb_params = _InternalCallbackParam()
        cb_params.train_network = self._train_network
        cb_params.epoch_num = epoch - initial_epoch
        cb_params.initial_epoch = initial_epoch
        cb_params.batch_num = batches.size()
        cb_params.mode = "train"
        cb_params.loss_fn = self._loss_fn
        cb_params.optimizer = self._optimizer
        from ..parallel.training import parallel_info

        cb_params.parallel_mode, cb_params.device_number = parallel_info()
        cb_params.train_dataset = batches.source
        cb_params.list_callback = self._callback_list(callbacks)
        cb_params.train_dataset_element = None
        cb_params.network = self._network
        cb_params.last_save_ckpt_step = None
        cb_params.latest_ckpt_file = None
        cb_params.dataset_sink_mode = False
        cb_params.cur_step_num = 0
        cb_params.net_outputs = None
        list_callback = CallbackList(cb_params.list_callback)
        try:
            with list_callback:
                self._train_process(epoch, batches, list_callback, cb_params, initial_epoch, valid)
        except BaseException:
            self._save_on_exception(cb_params.list_callback)
            raise

    def _train_process(self, epoch: int, batches: _Batches, list_callback: CallbackList, cb_params: Any,
                       initial_epoch: int, valid: tuple[_Batches, Any] | None) -> None:
        run_context = RunContext(cb_params)
        list_callback.on_train_begin(run_context)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = i + 1
            self._current_epoch_num, self._current_step_num = i + 1, 0
            self._train_network.set_train(True)
            list_callback.on_train_epoch_begin(run_context)
            steps = 0
            with closing(batches.epoch()) as rows:
                for element in rows:
                    if self._loss_fn is not None and len(element) != 2:
                        raise ValueError("When 'loss_fn' is not None, 'train_dataset' should return two elements, "
                                         f"but got {len(element)}, please check the number of elements returned by "
                                         "'train_dataset'")
                    cb_params.cur_step_num += 1
                    steps += 1
                    self._current_step_num = steps
                    cb_params.train_dataset_element = element
                    list_callback.on_train_step_begin(run_context)
                    outputs = self._run(self._train_network, element)
                    cb_params.net_outputs = outputs
                    self._update_loss_scale(outputs)
                    list_callback.on_train_step_end(run_context)
                    if run_context.get_stop_requested():
                        break
            if cb_params.batch_num is None:  # learnt from the first epoch of a sizeless iterable
                cb_params.batch_num = steps
            if valid is not None and self._should_eval(cb_params.cur_epoch_num, valid[1]):
                self._eval_during_train(valid[0], cb_params, list_callback)
            list_callback.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        list_callback.on_train_end(run_context)

    def _update_loss_scale(self, outputs: Any) -> None:
        """With a dynamic loss-scale manager, feed it the step's overflow flag (outputs[1])."""
        lsm = self._loss_scale_manager
        if lsm is None or not getattr(lsm, "get_drop_overflow_update", lambda: False)():
            return
        if isinstance(outputs, (tuple, list)) and len(outputs) > 1:
            flag = outputs[1]
            lsm.update_loss_scale(bool(np.all(flag.asnumpy() if isinstance(flag, Tensor) else flag)))

    @staticmethod
    def _should_eval(epoch: int, frequency: int | list) -> bool:
        return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency

    def _eval_during_train(self, valid: _Batches, cb_params: Any, list_callback: CallbackList) -> None:
        saved = {k: cb_params.get(k) for k in ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")}
        eval_cbs = [cb for cb in list_callback.callbacks if not _is_builtin(cb) or isinstance(cb, TimeMonitor)]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid.source
        self._eval_process(valid, CallbackList(eval_cbs), cb_params, add_eval_loss=True)
        cb_params.mode = "train"
        cb_params.update(saved)
        self._train_network.set_train(True)

    def _save_on_exception(self, callbacks: list[Callback]) -> None:
        for cb in callbacks:
            if isinstance(cb, ModelCheckpoint) and cb._config.exception_save:
                path = cb.save_breakpoint(self._train_network, self._optimizer, self._current_epoch_num,
                                          self._current_step_num)
                logger.warning("Training failed; saved the current parameters to %s", path)

    # --- evaluation ---------------------------------------------------------------------------
    def eval(self, valid_dataset: Any, callbacks: Any = None, dataset_sink_mode: bool = False) -> dict[str, Any]:
        """Run the metrics over `valid_dataset`: ``{"accuracy": 0.97, ...}``."""
        _check_bool(dataset_sink_mode, "dataset_sink_mode")
        if not self._metric_fns:
            raise ValueError("For Model.eval, the model argument 'metrics' can not be None or empty, you should set "
                             "the argument 'metrics' for model.")
        self._check_callbacks(callbacks, "eval")
        valid = _Batches(valid_dataset, "valid_dataset")
        cb_params = _InternalCallbackParam()
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid.source
        cb_params.list_callback = self._callback_list(callbacks)
        cb_params.network = self._network
        with CallbackList(cb_params.list_callback) as list_callback:
            return self._eval_process(valid, list_callback, cb_params)

    def _eval_process(self, valid: _Batches, list_callback: CallbackList, cb_params: Any,
                      add_eval_loss: bool = False) -> dict[str, Any]:
        cb_params.batch_num = valid.size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        cb_params.dataset_sink_mode = False
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = get_metric_fn("loss") if add_eval_loss and self._eval_indexes is not None else None
        run_context = RunContext(cb_params)
        list_callback.on_eval_begin(run_context)
        self._eval_network.set_train(False)
        list_callback.on_eval_epoch_begin(run_context)
        with closing(valid.epoch()) as rows:
            for element in rows:
                cb_params.cur_step_num += 1
                cb_params.eval_dataset_element = element
                list_callback.on_eval_step_begin(run_context)
                outputs = self._run(self._eval_network, element)
                cb_params.net_outputs = outputs
                list_callback.on_eval_step_end(run_context)
                from ..parallel.training import gather_outputs  # data parallel: every rank's batch

                outputs = gather_outputs(outputs)
                self._update_metrics(outputs)
                if eval_loss is not None:
                    eval_loss.update(outputs[self._eval_indexes[0]])
                if run_context.get_stop_requested():
                    break
        if cb_params.batch_num is None:
            cb_params.batch_num = cb_params.cur_step_num
        list_callback.on_eval_epoch_end(run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        if eval_loss is not None:
            cb_params.eval_results = {**metrics, "eval_loss": eval_loss.eval()}
        list_callback.on_eval_end(run_context)
        return metrics

    def _update_metrics(self, outputs: Any) -> None:
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if isinstance(outputs, list):
            outputs = tuple(outputs)
        if not isinstance(outputs, tuple):
            raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs).__name__}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The length of 'outputs' must be >= 3, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # --- inference ----------------------------------------------------------------------------
    def predict(self, *predict_data: Any) -> Any:
        """The network's output for the given inputs, in inference mode (NumPy inputs become Tensors)."""
        inputs = tuple(_as_tensor(x) for x in predict_data)
        for x in inputs:
            if not (x is None or isinstance(x, (Tensor, int, float, str, list, tuple))):
                raise TypeError(f"For 'Model.predict', the inputs must be Tensors, got {type(x).__name__}.")
        self._predict_network.set_train(False)
        return self._run(self._predict_network, inputs)
