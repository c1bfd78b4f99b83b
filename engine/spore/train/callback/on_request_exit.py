"""`OnRequestExit` and `BackupAndRestore` (issue 14), MindSpore's fault-tolerance callbacks.

OnRequestExit installs a handler for `sig` when training begins; once the signal arrives, the next
step (or epoch) end saves the network — ``<directory>/<file_name>.ckpt`` (and MindIR, exported
here through `spore.export`'s ONNX-based MindIR stand-in, when `save_mindir`) — and asks the loop
to stop. The previous handler comes back when training ends.

BackupAndRestore saves the training network to ``<backup_dir>/backup.ckpt`` every `save_freq`
epochs ('epoch' = 1) with the epoch number; on the next run's start it loads that file back into
the network and sets ``cb_params.cur_epoch_num`` so a resumed loop knows where it stopped; with
`delete_checkpoint` the file is removed after a run completes.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from ._callback import Callback, RunContext

__all__ = ["OnRequestExit", "BackupAndRestore"]


class OnRequestExit(Callback):
    """``OnRequestExit(save_ckpt=True, save_mindir=True, file_name='Net', directory='./',
    config_file=None, sig=signal.SIGTERM)``: on `sig`, save and stop at the next step end."""

    def __init__(self, save_ckpt: bool = True, save_mindir: bool = True, file_name: str = "Net", directory: str = "./",
                 config_file: Any = None, sig: Any = signal.SIGTERM) -> None:
        super().__init__()
        if not isinstance(file_name, str) or not file_name:
            raise ValueError(f"For 'OnRequestExit', 'file_name' must be a non-empty str, got {file_name!r}")
        if not isinstance(directory, str):
            raise ValueError(f"For 'OnRequestExit', 'directory' must be a str, got {directory!r}")
        self.save_ckpt, self.save_mindir = bool(save_ckpt), bool(save_mindir)
        self.file_name, self.directory, self.config_file, self.sig = file_name, directory, config_file, sig
        self.is_exit = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.is_exit = True

    def on_train_begin(self, run_context: RunContext) -> None:
        self.is_exit = False
        self._previous = signal.signal(self.sig, self._handler)

    def _maybe_exit(self, run_context: RunContext) -> None:
        if not self.is_exit:
            return
        net = run_context.original_args().get("train_network") or run_context.original_args().get("network")
        if net is not None:
            os.makedirs(self.directory, exist_ok=True)
            base = os.path.join(self.directory, self.file_name)
            if self.save_ckpt:
                from ..checkpoint import save_checkpoint

                save_checkpoint(net, base + ".ckpt")
            if self.save_mindir:
                inputs = run_context.original_args().get("train_dataset_element")
                if inputs is not None:
                    from ...onnx.ms_api import export

                    export(net, *inputs, file_name=base, file_format="MINDIR")
        run_context.request_stop()

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._maybe_exit(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self._maybe_exit(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        if self._previous is not None:
            signal.signal(self.sig, self._previous)
            self._previous = None


class BackupAndRestore(Callback):
    """``BackupAndRestore(backup_dir, save_freq='epoch', delete_checkpoint=True)``: back the
    training network up every `save_freq` epochs and restore it when a run starts."""

    def __init__(self, backup_dir: str, save_freq: Any = "epoch", delete_checkpoint: bool = True) -> None:
        super().__init__()
        if not isinstance(backup_dir, str) or not backup_dir:
            raise ValueError(f"For 'BackupAndRestore', 'backup_dir' must be a non-empty str, got {backup_dir!r}")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or a positive int, "
                             f"got {save_freq!r}")
        self.backup_dir, self.delete_checkpoint = backup_dir, bool(delete_checkpoint)
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.backup_file = os.path.join(backup_dir, "backup.ckpt")
        self.restored_epoch = 0

    @staticmethod
    def _net(run_context: RunContext) -> Any:
        args = run_context.original_args()
        return args.get("train_network") or args.get("network")

    def on_train_begin(self, run_context: RunContext) -> None:
        if not os.path.exists(self.backup_file):
            return
        from ..checkpoint import load_checkpoint, load_param_into_net

        params = load_checkpoint(self.backup_file)
        epoch = params.pop("epoch_num", None)
        load_param_into_net(self._net(run_context), params)
        self.restored_epoch = int(epoch.asnumpy()) if hasattr(epoch, "asnumpy") else int(epoch or 0)
        run_context.original_args()["cur_epoch_num"] = self.restored_epoch

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        epoch = int(run_context.original_args().get("cur_epoch_num", 0))
        if epoch % self.save_freq == 0:
            from ..checkpoint import save_checkpoint

            os.makedirs(self.backup_dir, exist_ok=True)
            save_checkpoint(self._net(run_context), self.backup_file, append_dict={"epoch_num": epoch})

    def on_train_end(self, run_context: RunContext) -> None:
        if self.delete_checkpoint and os.path.exists(self.backup_file) and not run_context.get_stop_requested():
            os.remove(self.backup_file)
