"""`spore-convert`: weight-only quantization from the command line, echoing `converter_lite`.

    python -m spore.quant.convert --model net.ckpt --network examples.train_digits:LeNet \\
        --quant WEIGHT_QUANT --bit-num 8 --output out
    python -m spore.quant.convert --fmk=ONNX --modelFile=net.onnx --outputFile=out \\
        --quantType=WEIGHT_QUANT --bitNum=4

Writes `out.npz` (see `spore.quant.save_quantized`). Only WEIGHT_QUANT is built; FULL_QUANT (static
PTQ with calibration) is refused with a message saying so.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

_ALIASES = {"--modelFile": "--model", "--outputFile": "--output", "--quantType": "--quant",
            "--bitNum": "--bit-num", "--configFile": "--config"}


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
    p.add_argument("--output", required=True)
    args = p.parse_args(_normalise(sys.argv[1:] if argv is None else argv))
    try:
        if args.bit_num not in (4, 8):
            raise SporeError(f"spore-convert: --bit-num must be 8 or 4, got {args.bit_num}")
        quant = args.quant.upper()
        if quant == "FULL_QUANT":
            raise SporeError("spore-convert: FULL_QUANT (static PTQ with calibration) is not built yet; "
                             "use WEIGHT_QUANT")
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
