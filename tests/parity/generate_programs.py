"""Writes the MindSpore side of tests/examples/test_mindspore_programs.py: run once, by hand, with
real MindSpore (see generate.py for the venv). Spore is not imported here.

    /tmp/msvenv/bin/python -m tests.parity.generate_programs      # from the project root

For each program in examples/mindspore_programs/, it trains the network with MindSpore, keeps the
checkpoint, and records the logits that the trained network gives on the first test batch
(eval mode). The test loads that checkpoint into the same program run under Spore and must get
the same logits.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "examples" / "mindspore_programs"
OUT = ROOT / "tests" / "fixtures" / "mindspore-2.10" / "programs"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, PROGRAMS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod          # MindSpore's Graph mode imports the module by name
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    import mindspore as ms

    OUT.mkdir(parents=True, exist_ok=True)
    for name, epochs in (("resnet_classifier", "3"), ("text_classifier", "6")):
        mod = load(name)
        ckpt = OUT / f"{name}.ckpt"
        sys.argv = [name, epochs, str(ckpt)]
        mod.main()
        if name == "resnet_classifier":
            net = mod.ResNet()
            batch = next(mod.create_dataset(192, seed=1, train=False).create_tuple_iterator())[0]
        else:
            _, vocab = mod.create_dataset(320, seed=0, shuffle=True)
            net = mod.LSTMClassifier(len(vocab.vocab()), pad_idx=vocab.tokens_to_ids("<pad>"))
            batch = next(mod.create_dataset(160, seed=1, vocab=vocab)[0].create_tuple_iterator())[0]
        ms.load_param_into_net(net, ms.load_checkpoint(str(ckpt)))
        net.set_train(False)
        logits = net(batch).asnumpy()
        np.savez_compressed(OUT / f"{name}_ref.npz", inputs=batch.asnumpy(), logits=logits)
        print(f"{name}: {ckpt.stat().st_size} bytes, logits {logits.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
