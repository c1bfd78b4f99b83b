"""A fixed-seed mutation fuzzer over the checkpoint fixtures, loaded in a child process.

Sources: MindSpore 2.10's own files (``params.ckpt``, ``cnn.ckpt``) and the same tensors saved by
Spore (header + records + CRC trailer), plus a Spore file with strings, scalars, bfloat16 and a
tensor split over several records. Mutations: truncation at every record boundary and at random
points, bit flips, byte insertions, edits of every kind of length field, tensor renames (re-encoded,
so the record stays well-formed), dims edits, and whole records dropped.

Every mutated file is loaded by one child process (``ckpt_fuzz_child.py``), which reports per file;
if the child crashes, the file it was loading is recorded and a new child goes on with the rest.
Asserted: no crash, no exception other than a Spore error naming the file, and for Spore-written
files no load that returns anything but exactly the original. MindSpore's files carry no checksum,
so some damage loads silently there; each such case must be one of the kinds the README documents
as undetectable (fewer whole tensors, changed tensor bytes, a renamed tensor, dims with the same
element count), and the counts are printed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from spore import Tensor
from spore.train import checkpoint_schema as schema
from spore.train import load_checkpoint, save_checkpoint

from .helpers import FIXTURES

HERE = Path(__file__).parent
SEED = 20261202
PER_KIND = 16  # random mutations of each kind per source file


@dataclass
class Mutant:
    source: str  # the pristine file's label
    spore: bool  # written by Spore (header + CRC trailer)
    kind: str
    detail: str
    data: bytes


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 values as protobuf encodes them (negative -> 10 bytes)
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def records_of(data: bytes, spore: bool) -> list[tuple[int, int, bytes]]:
    """(start, end, Value payload) of each top-level record of a pristine file."""
    body = data[:-len(schema.crc_trailer(0))] if spore else data
    found = list(schema.iter_records(memoryview(body)))
    ends = [start for _, start, _ in found[1:]] + [len(body)]
    return [(start, end, bytes(payload)) for (_, start, payload), end in zip(found, ends, strict=True)]


def length_fields(data: bytes, spore: bool) -> list[tuple[int, int, int]]:
    """(position, byte length, value) of every length varint: the records', and inside each record
    the tag's, the tensor's, the tensor_type's and the tensor_content's."""
    out = []

    def walk(start: int, end: int, depth: int) -> None:
        pos = start
        while pos < end:
            key, pos = read_varint(data, pos)
            field, wire = key >> 3, key & 7
            if wire == 0:
                _, pos = read_varint(data, pos)
                continue
            assert wire == 2, (key, pos)
            length, body = read_varint(data, pos)
            out.append((pos, body - pos, length))
            if depth == 0 and field == 2:  # Value.tensor: walk the TensorProto too
                walk(body, body + length, 1)
            pos = body + length

    for start, end, _ in records_of(data, spore):
        _, pos = read_varint(data, start)
        length, body = read_varint(data, pos)
        out.append((pos, body - pos, length))
        walk(body, end, 0)
    return out


def reframe(data: bytes, start: int, end: int, value) -> bytes:
    """`data` with the record at [start, end) replaced by `value` (a Value message), re-encoded."""
    payload = value.SerializePartialToString()
    return data[:start] + b"\x0a" + varint(len(payload)) + payload + data[end:]


def mutants(label: str, data: bytes, spore: bool, rng: random.Random) -> list[Mutant]:
    out: list[Mutant] = []

    def add(kind: str, detail: str, new: bytes) -> None:
        if new != data:
            out.append(Mutant(label, spore, kind, detail, new))

    recs = records_of(data, spore)
    cuts = sorted({end for _, end, _ in recs} | {start for start, _, _ in recs} | {len(data) - 17, len(data) - 10})
    for n in cuts:  # every record boundary (and, for Spore files, both edges of the trailer)
        if 0 < n < len(data):
            add("cut at record boundary", f"{n}", data[:n])
    for _ in range(PER_KIND):
        n = rng.randrange(1, len(data))
        add("cut at random point", f"{n}", data[:n])
    # Bit flips: aimed half at the structure (outside tensor contents), half anywhere.
    content = set()
    for start, end, payload in recs:
        c = schema.Value.FromString(payload).tensor.tensor_content
        content.update(range(end - len(c), end))
    structure = [i for i in range(len(data)) if i not in content]
    for pool, kind in ((structure, "bit flip in structure"), (range(len(data)), "bit flip anywhere")):
        for _ in range(PER_KIND):
            damaged = bytearray(data)
            positions = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
            for i in positions:
                damaged[i] ^= 1 << rng.randrange(8)
            add(kind, f"{positions}", bytes(damaged))
    for _ in range(PER_KIND):
        i = rng.choice([rng.randrange(len(data) + 1), rng.choice(structure)])
        extra = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        add("byte insertion", f"{i}:{extra.hex()}", data[:i] + extra + data[i:])
    fields = length_fields(data, spore)
    for _ in range(2 * PER_KIND):
        pos, size, value = rng.choice(fields)
        new = rng.choice([value + 1, value - 1, value + 7, max(0, value - 9), 0, 2**32 + value,
                          rng.randrange(2**31), 2**63 - 1])
        add("length field edit", f"{pos}:{value}->{new}", data[:pos] + varint(max(0, new)) + data[pos + size:])
    names = [schema.Value.FromString(p).tag for _, _, p in recs]
    for _ in range(PER_KIND):
        k = rng.randrange(len(recs))
        start, end, payload = recs[k]
        value = schema.Value.FromString(payload)
        old = value.tag
        choice = rng.randrange(3)
        if choice == 0:  # same length, another letter: the sneakiest rename
            j = rng.randrange(len(old))
            value.tag = old[:j] + ("x" if old[j] != "x" else "y") + old[j + 1:]
        elif choice == 1:
            value.tag = old + ".renamed"
        else:
            value.tag = rng.choice([n for n in names if n != old] or [old + "2"])  # a duplicate name
        add("tensor rename", f"#{k + 1} {old!r}->{value.tag!r}", reframe(data, start, end, value))
    for _ in range(PER_KIND):
        k = rng.randrange(len(recs))
        start, end, payload = recs[k]
        value = schema.Value.FromString(payload)
        dims = list(value.tensor.dims)
        edit = rng.randrange(6)
        if edit == 0 and len(dims) >= 2:
            dims = dims[::-1]  # same element count
        elif edit == 1 and dims:
            dims[rng.randrange(len(dims))] *= 2
        elif edit == 2:
            dims = [0, 2**40, 2**40]
        elif edit == 3:
            dims = dims + [1]  # same element count, one more axis
        elif edit == 4 and dims:
            dims[0] = -dims[0] - 1
        else:
            dims = [2**31, 2**31, 4]
        del value.tensor.dims[:]
        value.tensor.dims.extend(dims)
        add("dims edit", f"#{k + 1} {list(schema.Value.FromString(payload).tensor.dims)}->{dims}",
            reframe(data, start, end, value))
    for k, (start, end, _) in enumerate(recs):
        if len(recs) > 1 and start > (len(schema.SPORE_HEADER) if spore else 0):
            add("record dropped", f"#{k + 1}", data[:start] + data[end:])
    return out


def spore_sources(tmp: Path) -> dict[str, bytes]:
    """The fixtures' tensors saved by Spore, and a file with every other kind of entry."""
    out = {}
    for name in ("params", "cnn"):
        loaded = load_checkpoint(str(FIXTURES / f"{name}.ckpt"))
        save_checkpoint(loaded, str(tmp / f"spore_{name}.ckpt"))
        out[f"spore_{name}"] = (tmp / f"spore_{name}.ckpt").read_bytes()
    old = schema.SLICE_BYTES
    schema.SLICE_BYTES = 64  # MindSpore's 512 MiB slices, scaled down: one tensor over several records
    try:
        save_checkpoint({"big": Tensor(np.arange(60, dtype=np.float32).reshape(6, 10)),
                         "bf": Tensor(np.arange(4).astype(ml_dtypes.bfloat16)),
                         "flag": Tensor(np.array([True, False]))},
                        str(tmp / "spore_mixed.ckpt"), append_dict={"epoch_num": 3, "note": "ünï €", "lr": 0.5})
    finally:
        schema.SLICE_BYTES = old
    out["spore_mixed"] = (tmp / "spore_mixed.ckpt").read_bytes()
    return out


def run_child(manifest: Path, count: int, **env_extra: str) -> tuple[dict[int, dict], list[tuple[int, str]]]:
    """Per-file results of loading every manifest entry, and (index, stderr) for each crash."""
    results: dict[int, dict] = {}
    crashes: list[tuple[int, str]] = []
    start = 0
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **env_extra)
    while start < count:
        proc = subprocess.run([sys.executable, str(HERE / "ckpt_fuzz_child.py"), str(manifest), str(start)],
                              capture_output=True, text=True, env=env, timeout=600)
        last = start
        for line in proc.stdout.splitlines():
            if line.startswith("> "):
                last = int(line[2:])
            elif line:
                r = json.loads(line)
                results[r["i"]] = r
        if proc.returncode == 0:  # the child got through the rest of the list
            break
        if last in results:  # died between files (e.g. at start-up): report the next one
            last += 1
        crashes.append((last, f"exit {proc.returncode}: {proc.stderr[-2000:]}"))
        start = last + 1
    return results, crashes


def _tensor_change(o: list, g: list) -> str:
    """How one loaded tensor differs from the original's: name, dtype, shape and/or bytes."""
    what = [w for w, a, b in zip(("name", "dtype", "shape", "bytes"), o, g, strict=True) if a != b]
    if what == ["shape"] and np.prod(o[2]) == np.prod(g[2]):
        return "dims with the same element count"
    return {("bytes",): "changed tensor bytes", ("name",): "renamed tensor",
            ("name", "bytes"): "renamed tensor"}.get(tuple(what), "other: " + "+".join(what))


def silent_kind(original: list, got: list) -> str | None:
    """None if `got` is exactly `original`; else the kinds of change in it, e.g. 'renamed tensor'."""
    if got == original:
        return None
    if len(got) < len(original) and got == original[:len(got)]:
        return "fewer whole tensors"
    if len(got) == len(original) - 1 and all(g in original for g in got):
        return "fewer whole tensors"
    if len(got) != len(original):
        return "other: a different number of tensors"
    return " + ".join(sorted({_tensor_change(o, g) for o, g in zip(original, got, strict=True) if o != g}))


def test_mutated_checkpoints_never_crash_leak_or_load_silently_changed(tmp_path):
    rng = random.Random(SEED)
    sources = {**spore_sources(tmp_path), "ms_params": (FIXTURES / "params.ckpt").read_bytes(),
               "ms_cnn": (FIXTURES / "cnn.ckpt").read_bytes()}
    pristine = list(sources)
    all_mutants = [m for label, data in sources.items()
                   for m in mutants(label, data, label.startswith("spore_"), rng)]
    paths = []
    for label in pristine:  # the originals first: their loads are the reference
        p = tmp_path / f"{label}.orig.ckpt"
        p.write_bytes(sources[label])
        paths.append(p)
    for i, m in enumerate(all_mutants):
        p = tmp_path / f"m{i:04d}.ckpt"
        p.write_bytes(m.data)
        paths.append(p)
    manifest = tmp_path / "manifest.txt"
    manifest.write_text("\n".join(str(p) for p in paths) + "\n")

    results, crashes = run_child(manifest, len(paths))

    assert len(all_mutants) >= 500
    assert crashes == [], [(str(paths[i]), all_mutants[i - len(pristine)].kind, why) for i, why in crashes]
    assert len(results) == len(paths)
    reference = {}
    for i, label in enumerate(pristine):
        assert "ok" in results[i], (label, results[i])
        reference[label] = results[i]["ok"]
    leaks, unnamed, spore_silent, ms_silent = [], [], [], Counter()
    refused = Counter()
    for i, m in enumerate(all_mutants, start=len(pristine)):
        r = results[i]
        where = (m.source, m.kind, m.detail)
        if "leak" in r:
            leaks.append((*where, r["leak"], r["message"]))
        elif "refused" in r:
            refused[m.spore] += 1
            if not r["names_file"]:
                unnamed.append(where)
        else:
            kind = silent_kind(reference[m.source], r["ok"])
            if kind is not None and m.spore:
                spore_silent.append((*where, kind))
            elif kind is not None:
                ms_silent[(kind, m.kind)] += 1
    assert leaks == []
    assert unnamed == []
    assert spore_silent == []  # every damaged Spore file is refused (or loads exactly the original)
    undetectable = {"fewer whole tensors", "changed tensor bytes", "renamed tensor", "dims with the same element count"}
    assert {part for kind, _ in ms_silent for part in kind.split(" + ")} <= undetectable, ms_silent
    n_spore = sum(m.spore for m in all_mutants)
    print(f"\n{len(all_mutants)} mutated files ({n_spore} of Spore files, {len(all_mutants) - n_spore} of "
          "MindSpore's): "
          f"refused {refused[True]} / {refused[False]}; silent changes in MindSpore files without CRC: "
          f"{sum(ms_silent.values())} {dict(ms_silent)}")
    assert refused[True] == n_spore  # stronger than "no silent change": none of them loads at all


def test_a_crash_of_the_child_is_caught_with_its_file_and_the_rest_still_loaded(tmp_path):
    paths = []
    for k in range(3):
        p = tmp_path / f"f{k}.ckpt"
        save_checkpoint({"w": Tensor(np.full(3, k, np.float32))}, str(p))
        paths.append(p)
    manifest = tmp_path / "manifest.txt"
    manifest.write_text("\n".join(str(p) for p in paths) + "\n")
    results, crashes = run_child(manifest, 3, SPORE_FUZZ_CRASH_AT="1")
    assert [i for i, _ in crashes] == [1]
    assert "exit -11" in crashes[0][1]  # SIGSEGV
    assert sorted(results) == [0, 2] and all("ok" in r for r in results.values())
