"""MindSpore's top-level `export` and `load`, as `ms.export` / `ms.load`.

`mindspore.export(net, *inputs, file_name, file_format)` writes "AIR", "ONNX" or "MINDIR"; Spore
writes ONNX (through `spore.onnx.export`) and refuses the two formats only MindSpore's own tools
read, saying so. `mindspore.load(file_name)` reads MindIR only; Spore has no MindIR, so it refuses
and points ONNX files to `spore.onnx.load`, which returns a Cell.
"""

from __future__ import annotations

from typing import Any

from ..errors import OnnxError

_ONNX_KWARGS = ("opset_version", "dynamic_axes", "input_names", "output_names")


def export(net: Any, *inputs: Any, file_name: str, file_format: str = "ONNX", **kwargs: Any) -> str:
    """Export `net` for `inputs` to `file_name` (MindSpore's signature); only "ONNX" is written.

    ONNX-specific keywords (`opset_version`, `dynamic_axes`, `input_names`, `output_names`) are
    passed to `spore.onnx.export`. Returns the path written (".onnx" added when missing).
    """
    fmt = str(file_format).upper()
    if fmt in ("MINDIR", "AIR"):
        raise OnnxError(f'file_format="{file_format}" is a MindSpore-only format Spore does not write',
                        hint='use file_format="ONNX": onnxruntime, MindSpore Lite\'s converter and '
                             "spore.onnx.load all read it")
    if fmt != "ONNX":
        raise OnnxError(f"file_format must be 'ONNX' (or MindSpore's 'MINDIR'/'AIR', refused), got {file_format!r}")
    unknown = sorted(set(kwargs) - set(_ONNX_KWARGS))
    if unknown:
        raise OnnxError(f"export() got unexpected keyword arguments {unknown}; ONNX export takes {list(_ONNX_KWARGS)}")
    from .exporter import export as onnx_export

    return onnx_export(net, *inputs, file_name=file_name, **kwargs)


def load(file_name: str, **kwargs: Any) -> Any:
    """MindSpore's `load` reads a MindIR graph; Spore refuses it, pointing to the ONNX importer."""
    raise OnnxError(f"ms.load reads MindIR, which Spore does not have (asked for {file_name!r})",
                    hint="for an ONNX model use spore.onnx.load(path) -> nn.Cell; for weights, ms.load_checkpoint")
