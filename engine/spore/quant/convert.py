"""`spore-convert`: quantize a model from the command line, echoing `converter_lite`.

    python -m spore.quant.convert --model net.ckpt --network examples.train_digits:LeNet \\
        --quant WEIGHT_QUANT --bit-num 8 --output out                       # -> out.npz (weight-only)
    python -m spore.quant.convert --fmk=ONNX --modelFile=net.onnx --outputFile=out \\
        --quantType=WEIGHT_QUANT --bitNum=4
    python -m spore.quant.convert --model net.onnx --quant FULL_QUANT --config calib.npz \\
        --output out                                                        # -> out.onnx (QDQ int8)

WEIGHT_QUANT writes `out.npz` (see `spore.quant.save_quantized`). FULL_QUANT is static PTQ with
calibration: `--config` (converter_lite's `--configFile`) is an `.npz` holding the calibration
inputs, one array (N, ...) per model input (named as the inputs, or in input order), or a
converter_lite-style INI file whose `[data_preprocess_param] calibrate_path` names that `.npz`
(and whose `[full_quant_param] activation_quant_method` = MAX_MIN / KL / REMOVAL_OUTLIER,
`per_channel`, `[common_quant_param] skip_quant_node`, `[data_preprocess_param] calibrate_size`
are read too). The output is QDQ ONNX that onnxruntime and spore.lite run (`out.onnx`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

_ALIASES = {"--modelFile": "--model", "--outputFile": "--output", "--quantType": "--quant",
            "--bitNum": "--bit-num", "--configFile": "--config", "--activationQuantMethod": "--method"}
_METHODS = {"MAX_MIN": "minmax", "MINMAX": "minmax", "KL": "kl", "REMOVAL_OUTLIER": "percentile",
            "PERCENTILE": "percentile"}


def _normalise(argv: Sequence[str]) -> list[str]:
    out = []
    for a in argv:
        key, eq, val = a.partition("=")
        key = _ALIASES.get(key, key)
        out.append(f"{key}={val}" if eq else key)
    return out


def _load_model(args: argparse.Namespace) -> Any:
    from ..errors import SporeError

    path = args.model
    if not os.path.isfile(path):
        raise SporeError(f"spore-convert: --model {path!r} does not exist")
    fmk = (args.fmk or ("ONNX" if path.endswith(".onnx") else "MINDSPORE")).upper()
    if fmk == "ONNX":
        from ..onnx import load

        try:
            return load(path)
        except Exception as err:
            raise SporeError(f"spore-convert: {path} is not a readable ONNX model ({err})") from err
    if fmk not in ("MINDSPORE", "CKPT"):
        raise SporeError(f"spore-convert: --fmk must be ONNX or MINDSPORE, got {args.fmk!r}")
    if not args.network:
        raise SporeError("spore-convert: a .ckpt holds weights only; give --network module:Class")
    mod, _, cls = args.network.partition(":")
    net = getattr(importlib.import_module(mod), cls)()
    from .. import load_checkpoint

    try:
        load_checkpoint(path, net=net)
    except Exception as err:
        raise SporeError(f"spore-convert: cannot load {path} into {args.network} ({err})") from err
    return net


def _read_config(path: str | None, method: str | None) -> dict[str, Any]:
    """The FULL_QUANT settings: calibration arrays (in file order) plus the INI's options."""
    import configparser

    import numpy as np

    from ..errors import SporeError

    if not path:
        raise SporeError("spore-convert: FULL_QUANT needs calibration inputs: --config calib.npz "
                         "(one array (N, ...) per model input)")
    if not os.path.isfile(path):
        raise SporeError(f"spore-convert: --config {path!r} does not exist")
    cfg: dict[str, Any] = {"method": "minmax", "per_channel": True, "skip": [], "size": None}
    npz = path
    if not path.endswith(".npz"):
        ini = configparser.ConfigParser()
        try:
            ini.read(path)
        except configparser.Error as err:
            raise SporeError(f"spore-convert: --config {path} is neither an .npz nor an INI file ({err})") from err
        full = ini["full_quant_param"] if ini.has_section("full_quant_param") else {}
        common = ini["common_quant_param"] if ini.has_section("common_quant_param") else {}
        pre = ini["data_preprocess_param"] if ini.has_section("data_preprocess_param") else {}
        if "activation_quant_method" in full:
            cfg["method"] = full["activation_quant_method"]
        cfg["per_channel"] = str(full.get("per_channel", "true")).lower() != "false"
        cfg["skip"] = [t.strip() for t in str(common.get("skip_quant_node", "")).split(",") if t.strip()]
        if "calibrate_size" in pre:
            cfg["size"] = int(pre["calibrate_size"])
        npz = str(pre.get("calibrate_path", ""))
        if ":" in npz and not os.path.isfile(npz):  # converter_lite's "input_name:path"
            npz = npz.split(":", 1)[1]
        if not npz:
            raise SporeError(f"spore-convert: {path} has no [data_preprocess_param] calibrate_path (an .npz)")
        if not os.path.isabs(npz):
            npz = os.path.join(os.path.dirname(os.path.abspath(path)), npz)
    if method:
        cfg["method"] = method
    key = _METHODS.get(str(cfg["method"]).upper(), str(cfg["method"]).lower())
    if key not in ("minmax", "kl", "percentile"):
        raise SporeError(f"spore-convert: activation_quant_method must be MAX_MIN, KL or REMOVAL_OUTLIER, "
                         f"got {cfg['method']!r}")
    cfg["method"] = key
    try:
        with np.load(npz, allow_pickle=False) as z:
            cfg["arrays"] = {k: np.asarray(z[k]) for k in z.files}
    except Exception as err:
        raise SporeError(f"spore-convert: cannot read calibration inputs from {npz} ({err})") from err
    if not cfg["arrays"]:
        raise SporeError(f"spore-convert: {npz} holds no arrays")
    for k, a in cfg["arrays"].items():
        if a.dtype.kind != "f" or a.ndim < 1 or len(a) == 0:
            raise SporeError(f"spore-convert: calibration array {k!r} must be a non-empty float array (N, ...), "
                             f"got {a.dtype} {a.shape}")
    return cfg


def _batches(arrays: list[Any], size: int | None, batch: int = 32) -> list[tuple]:
    n = min(len(a) for a in arrays)
    if size is not None:
        n = min(n, size)
    return [tuple(a[i:i + batch].astype("float32") for a in arrays) for i in range(0, n, batch)]


def _full_quant(args: argparse.Namespace) -> str:
    """FULL_QUANT: static PTQ with calibration, QDQ ONNX out."""
    import onnx

    from ..errors import SporeError
    from .qdq_export import export_qdq, quantize_onnx, save_model

    if args.bit_num != 8:
        raise SporeError(f"spore-convert: FULL_QUANT quantizes to 8 bits only, got --bit-num {args.bit_num}")
    cfg = _read_config(args.config, args.method)
    out = args.output if args.output.endswith(".onnx") else args.output + ".onnx"
    path = args.model
    fmk = (args.fmk or ("ONNX" if path.endswith(".onnx") else "MINDSPORE")).upper()
    if fmk == "ONNX":
        if not os.path.isfile(path):
            raise SporeError(f"spore-convert: --model {path!r} does not exist")
        try:
            model = onnx.load(path)
        except Exception as err:
            raise SporeError(f"spore-convert: {path} is not a readable ONNX model ({err})") from err
        inits = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in inits]
        arrays = cfg["arrays"]
        if len(arrays) != len(names):
            raise SporeError(f"spore-convert: the model has {len(names)} input(s) {names}, the calibration file "
                             f"{len(arrays)} array(s) {sorted(arrays)}")
        ordered = [arrays[n] for n in names] if set(names) == set(arrays) else list(arrays.values())
        qmodel = quantize_onnx(model, _batches(ordered, cfg["size"]), cfg["method"], cfg["per_channel"],
                               cfg["skip"])
        return save_model(qmodel, out)
    net = _load_model(args)
    from ..tensor import Tensor
    from .ptq import quantize_static

    batches = _batches(list(cfg["arrays"].values()), cfg["size"])
    q = quantize_static(net, batches, cfg["method"], per_channel=cfg["per_channel"], skip_quant_node=cfg["skip"])
    example = [Tensor(a[:1]) for a in batches[0]]
    return export_qdq(q, *example, file_name=out, dynamic_axes={"x": {0: "batch"}} if len(example) == 1 else None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `spore-convert`; returns the exit status (errors print one line, exit 2)."""
    from ..errors import SporeError
    from .weight import quantize_weights, save_quantized

    p = argparse.ArgumentParser(prog="spore-convert", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--network")
    p.add_argument("--fmk")
    p.add_argument("--quant", default="WEIGHT_QUANT")
    p.add_argument("--bit-num", type=int, default=8)
    p.add_argument("--config")
    p.add_argument("--method", help="FULL_QUANT activation calibration: MAX_MIN (default), KL, REMOVAL_OUTLIER")
    p.add_argument("--output", required=True)
    args = p.parse_args(_normalise(sys.argv[1:] if argv is None else argv))
    try:
        if args.bit_num not in (4, 8):
            raise SporeError(f"spore-convert: --bit-num must be 8 or 4, got {args.bit_num}")
        quant = args.quant.upper()
        if quant == "FULL_QUANT":
            out = _full_quant(args)
            print(f"wrote {out} ({os.path.getsize(out)} bytes, int8 full quantization, QDQ ONNX)")
            return 0
        if quant != "WEIGHT_QUANT":
            raise SporeError(f"spore-convert: --quant must be WEIGHT_QUANT or FULL_QUANT, got {args.quant!r}")
        net = _load_model(args)
        out = save_quantized(net, quantize_weights(net, args.bit_num), args.output)
    except SporeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({os.path.getsize(out)} bytes, int{args.bit_num} weight-only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
