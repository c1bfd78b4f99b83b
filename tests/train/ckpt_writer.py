"""Child process of the kill-mid-save test: saves a large checkpoint to one path again and again.

    python ckpt_writer.py PATH STOP

Iteration i saves ``payload(i)`` to PATH and prints ``saved i``. In iteration STOP, once the
first records are in the temp file, it prints ``inside-write`` and blocks reading stdin, which the
parent never writes to: the parent then SIGKILLs it at that known point inside the write. The
stop is placed by wrapping the record encoder that `save_checkpoint` streams into the file.
"""

from __future__ import annotations

import sys

import numpy as np

from spore import Tensor

N_TENSORS = 6
SIZE = 512 * 1024  # float32 elements: 2 MiB per tensor, 12 MiB per checkpoint
STOP_AFTER_RECORDS = 3


def payload(i: int) -> list[dict]:
    """Iteration i's tensors: exact small integers in float32, different in every iteration."""
    base = np.arange(SIZE, dtype=np.float32)
    return [{"name": f"layer{j}.weight", "data": Tensor(base * (j + 1) + i)} for j in range(N_TENSORS)]


def main() -> None:
    from spore.train import checkpoint, save_checkpoint

    path, stop = sys.argv[1], int(sys.argv[2])
    encode = checkpoint.encode_entries
    iteration = -1

    def encode_then_stop(entries):
        for k, chunk in enumerate(encode(entries), start=1):
            yield chunk
            if iteration == stop and k == STOP_AFTER_RECORDS:  # k records handed to the file
                print("inside-write", flush=True)
                sys.stdin.buffer.read()  # blocks: the parent kills us here
                raise SystemExit("stdin closed: the parent was expected to kill this process")

    checkpoint.encode_entries = encode_then_stop
    for iteration in range(stop + 1):
        save_checkpoint(payload(iteration), path)
        print(f"saved {iteration}", flush=True)


if __name__ == "__main__":
    main()
