"""`ModelCheckpoint` and `CheckpointConfig`: save checkpoints during training, named as MindSpore names them.

Files are ``{prefix}-{epoch}_{step}.ckpt`` (step counted within the epoch) in `directory`. If
files with the same prefix already exist there, the prefix becomes ``{prefix}_1`` (``_2``, ...)
so an earlier run is never overwritten, exactly as MindSpore does. At most `keep_checkpoint_max`
files of this callback are kept (the oldest are deleted first). A last checkpoint is written when
training ends, unless the last step was just saved.

Each file holds the network's parameters and the optimizer's state (moments, ``learning_rate``,
``global_step``), as MindSpore's do. MindSpore also writes ``{prefix}-graph.meta`` (a MindIR
graph) in Graph mode; Spore does not, since its compiled graph is not MindIR.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ...tensor import Parameter, Tensor
from ._callback import Callback, RunContext
from .loss_monitor import step_in_epoch

_INFO_KEYS = ("epoch_num", "step_num")


def _non_negative_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"For 'CheckpointConfig', '{name}' must be an int >= 0, but got {value!r}")
    return value


class CheckpointConfig:
    """When to save and how many checkpoints to keep (MindSpore's ``CheckpointConfig``).

    Save every `save_checkpoint_steps` steps, or (if that is 0/None) every `save_checkpoint_seconds`
    seconds. Keep the newest `keep_checkpoint_max` files, or (if that is 0/None) one file per
    `keep_checkpoint_per_n_minutes` minutes. `append_info` adds ``"epoch_num"``/``"step_num"`` and
    a dict of extra values to each file; `saved_network` saves that Cell instead of the training
    network; ``exception_save=True`` writes ``{prefix}-{epoch}_{step}_breakpoint.ckpt`` if training
    raises.
    """

    def __init__(self, save_checkpoint_steps: int | None = 1, save_checkpoint_seconds: int | None = 0,
                 keep_checkpoint_max: int | None = 5, keep_checkpoint_per_n_minutes: int | None = 0,
                 integrated_save: bool = True, async_save: bool = False, saved_network: Any = None,
                 append_info: list | None = None, enc_key: bytes | None = None, enc_mode: str = "AES-GCM",
                 exception_save: bool = False, crc_check: bool = False, remove_redundancy: bool = False,
                 format: str = "ckpt", **kwargs: Any) -> None:
        from ...nn.cell import Cell

        steps = _non_negative_int(save_checkpoint_steps, "save_checkpoint_steps")
        seconds = _non_negative_int(save_checkpoint_seconds, "save_checkpoint_seconds")
        keep_max = _non_negative_int(keep_checkpoint_max, "keep_checkpoint_max")
        keep_minutes = _non_negative_int(keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes")
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError("For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, "
                            f"but got {type(saved_network).__name__}.")
        if not steps and not seconds and not keep_max and not keep_minutes:
            raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                             "can't be all None or 0.")
        for name, value in (("integrated_save", integrated_save), ("async_save", async_save),
                            ("exception_save", exception_save), ("crc_check", crc_check),
                            ("remove_redundancy", remove_redundancy)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CheckpointConfig', '{name}' must be a bool, got {type(value).__name__}")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"For 'CheckpointConfig', 'format' must be 'ckpt' or 'safetensors', got {format!r}")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = None if steps else seconds   # steps win when both are set
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = None if keep_max else keep_minutes
        if not keep_max and not keep_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = self._handle_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self.exception_save = exception_save
        self.crc_check = crc_check
        self.remove_redundancy = remove_redundancy
        self.format = format
        self._kwargs = kwargs

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps, doc="Steps between saves.")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds, doc="Seconds between saves.")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max, doc="Most files kept.")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    append_dict = property(lambda self: self._append_dict, doc="Extra entries written into each file.")

    def get_checkpoint_policy(self) -> dict[str, Any]:
        """The save/keep settings as a dict."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info: list | None) -> dict | None:
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list, "
                            f"but got {type(append_info).__name__}.")
        out: dict[str, Any] = {key: 0 for key in _INFO_KEYS if key in append_info}
        dicts = 0
        for element in append_info:
            if isinstance(element, str):
                if element not in _INFO_KEYS:
                    raise ValueError(f"For 'CheckpointConfig', the value of element in the argument 'append_info' "
                                     f"must be in {list(_INFO_KEYS)}, but got {element!r}.")
            elif isinstance(element, dict):
                dicts += 1
                if dicts > 1:
                    raise TypeError("For 'CheckpointConfig', the element of 'append_info' must has only one dict.")
                for key, value in element.items():
                    if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
                        raise TypeError("For 'CheckpointConfig', the dict in 'append_info' maps str keys to int, "
                                        f"float, bool, str or Tensor values, got {type(key).__name__} -> "
                                        f"{type(value).__name__}")
                    out[key] = value
            else:
                raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' element must be str or dict, "
                                f"but got {type(element).__name__}.")
        return out


def _unique_prefix(directory: str, prefix: str, breakpoint_files: bool = False) -> str:
    """``prefix``, or ``prefix_N`` when checkpoints with that prefix already exist in `directory`."""
    suffix_num = 0
    n = len(prefix)
    for filename in os.listdir(directory):
        is_breakpoint = filename.endswith("_breakpoint.ckpt")
        if breakpoint_files != is_breakpoint or not filename.endswith(".ckpt"):
            continue
        if not filename.startswith(prefix) or len(filename) <= n or filename[n].isalpha():
            continue
        dash = filename[n:].find("-")
        if dash == 0:
            suffix_num = max(suffix_num, 1)
        elif dash > 0 and filename[n + 1:n + dash].isdigit():
            suffix_num = max(suffix_num, int(filename[n + 1:n + dash]) + 1)
    return f"{prefix}_{suffix_num}" if suffix_num else prefix


def checkpoint_contents(network: Any, optimizer: Any = None) -> list[Parameter]:
    """The Parameters a training checkpoint holds: the network's, then the optimizer's state.

    Spore's optimizers are not Cells, so a TrainOneStepCell does not list their state; it is added
    here so a checkpoint can resume training, as a MindSpore checkpoint can.
    """
    seen: set[int] = set()
    out: list[Parameter] = []
    sources = [network.get_parameters()]
    opt = optimizer if optimizer is not None else getattr(network, "optimizer", None)
    if opt is not None and hasattr(opt, "get_parameters"):
        sources.append(opt.get_parameters())
    for source in sources:
        for p in source:
            if id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


class ModelCheckpoint(Callback):
    """Save checkpoints while training (MindSpore's ``ModelCheckpoint(prefix, directory, config)``)."""

    def __init__(self, prefix: str = "CKP", directory: str | os.PathLike | None = None,
                 config: CheckpointConfig | None = None) -> None:
        super().__init__()
        if not isinstance(prefix, str) or "/" in prefix or os.sep in prefix:
            raise ValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it "
                             f"must be string and does not contain '/', but got {prefix!r}.")
        if directory is not None and not isinstance(directory, (str, os.PathLike)):
            raise ValueError(f"For 'ModelCheckpoint', 'directory' must be a str path, got {type(directory).__name__}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError("For 'ModelCheckpoint', the type of argument 'config' should be 'CheckpointConfig', "
                            f"but got {type(config).__name__}.")
        self._directory = os.path.realpath(os.fspath(directory)) if directory is not None else os.getcwd()
        os.makedirs(self._directory, exist_ok=True)
        self._config = config if config is not None else CheckpointConfig()
        self._exception_prefix = prefix
        self._prefix = _unique_prefix(self._directory, prefix)
        self._append_dict = dict(self._config.append_dict or {})
        self._append_epoch_num = self._append_dict.get("epoch_num", 0)
        self._append_step_num = self._append_dict.get("step_num", 0)
        self._last_triggered_step = 0
        self._last_time = time.monotonic()
        self._last_time_for_keep = time.monotonic()
        self._saved: list[tuple[str, float]] = []        # (path, monotonic time) of files this callback wrote
        self._latest_ckpt_file_name = ""

    @property
    def latest_ckpt_file_name(self) -> str:
        """Path of the last checkpoint written ("" before the first)."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context: RunContext) -> None:
        # resuming (initial_epoch) or a second train() call continues from the model's step count
        self._last_triggered_step = run_context.original_args().get("cur_step_num", 0)

    def step_end(self, run_context: RunContext) -> None:
        self._save_ckpt(run_context.original_args())

    def end(self, run_context: RunContext) -> None:
        self._save_ckpt(run_context.original_args(), force_to_save=True)

    # --- internals ----------------------------------------------------------------------------
    def _due(self, cb_params: dict, force_to_save: bool) -> bool:
        cfg = self._config
        if cfg.save_checkpoint_steps:
            return force_to_save or cb_params["cur_step_num"] >= self._last_triggered_step + cfg.save_checkpoint_steps
        if cfg.save_checkpoint_seconds:
            now = time.monotonic()
            if force_to_save or now - self._last_time > cfg.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params: dict, force_to_save: bool = False) -> None:
        from ..checkpoint import save_checkpoint

        cur_step = cb_params.get("cur_step_num", 0)
        if cur_step == self._last_triggered_step or not self._due(cb_params, force_to_save):
            return
        os.makedirs(self._directory, exist_ok=True)
        name = f"{self._prefix}-{cb_params.get('cur_epoch_num')}_{step_in_epoch(cb_params)}.ckpt"
        self._make_room()
        path = os.path.join(self._directory, name)
        self._last_triggered_step = cur_step
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + cb_params.get("cur_epoch_num", 0)
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + cur_step
        save_checkpoint(self._save_obj(cb_params), path, self._config.integrated_save, self._config.async_save,
                        self._append_dict or None, self._config.enc_key, self._config.enc_mode,
                        crc_check=self._config.crc_check, format=self._config.format)
        now = time.monotonic()
        self._saved = [(p, t) for p, t in self._saved if p != path] + [(path, now)]
        self._last_time_for_keep = now
        self._latest_ckpt_file_name = path

    def _save_obj(self, cb_params: dict) -> Any:
        if self._config.saved_network is not None:
            return self._config.saved_network
        return checkpoint_contents(cb_params["train_network"], cb_params.get("optimizer"))

    def _make_room(self) -> None:
        """Delete old files of this callback before a new one is written (keep_checkpoint_* policy)."""
        self._saved = [(p, t) for p, t in self._saved if os.path.exists(p)]
        cfg = self._config
        if cfg.keep_checkpoint_max:
            while len(self._saved) >= cfg.keep_checkpoint_max:
                os.remove(self._saved.pop(0)[0])
        elif cfg.keep_checkpoint_per_n_minutes:
            now, window = time.monotonic(), cfg.keep_checkpoint_per_n_minutes * 60
            if now - self._last_time_for_keep < window:
                recent = [(p, t) for p, t in self._saved if now - t < window]
                for item in recent[1:]:  # keep the oldest file of the current window
                    os.remove(item[0])
                    self._saved.remove(item)

    def save_breakpoint(self, network: Any, optimizer: Any, epoch: int, step: int) -> str:
        """Write ``{prefix}-{epoch}_{step}_breakpoint.ckpt`` (used by `Model` when training raises)."""
        from ..checkpoint import save_checkpoint

        prefix = _unique_prefix(self._directory, self._exception_prefix, breakpoint_files=True)
        path = os.path.join(self._directory, f"{prefix}-{epoch}_{step}_breakpoint.ckpt")
        save_checkpoint(checkpoint_contents(network, optimizer), path, self._config.integrated_save, False,
                        self._append_dict or None)
        return path
