"""More audio corpora read from their releases' local files (issue 14, data slice): GTZAN
(``<genre>/<genre>.NNNNN.wav``) and TED-LIUM releases 1-3 (NIST SPHERE ``.sph`` talks cut into
utterances by their ``.stm`` transcripts).

WAV files are read with the standard library's ``wave`` module (see ``corpus_sources.read_wav``);
SPHERE files by their 1024-byte text header (``sample_rate``, ``channel_count``,
``sample_n_bytes``, ``sample_byte_format``; PCM only — shorten-compressed files are refused with
a DatasetError). Waveforms are float32 (channels, samples) scaled to [-1, 1).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .corpus_sources import _Audio, read_wav
from .errors import DatasetError
from .file_sources import _read_lines, _strings
from .vision_folders import _check_dir

__all__ = ["GTZANDataset", "TedliumDataset", "read_sph"]

_GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")


class GTZANDataset(_Audio):
    """GTZAN genres: ``waveform``, ``sample_rate`` (uint32) and ``label`` (the genre, a string)
    for every ``<genre>/<genre>.NNNNN.wav`` of the ten genre folders in ``dataset_dir``.

    ``usage`` None or 'all' reads every file. MindSpore's 'train'/'valid'/'test' are the fixed
    "fault-filtered" split of Kereliuk et al., whose file lists Spore does not ship: they raise a
    ValueError saying so (read 'all' and ``split()`` it instead)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        owner = "GTZANDataset"
        root = _check_dir(dataset_dir, owner)
        if usage in ("train", "valid", "test"):
            raise ValueError(f"{owner}: usage {usage!r} is the fault-filtered split, whose file lists Spore does not "
                             "ship; use usage='all' (or None) and split() the dataset")
        if usage not in (None, "all"):
            raise ValueError(f"{owner}: usage must be 'train', 'valid', 'test', 'all' or None, got {usage!r}")
        files, labels = [], []
        for genre in _GENRES:
            folder = os.path.join(root, genre)
            if not os.path.isdir(folder):
                continue
            for name in sorted(n for n in os.listdir(folder) if n.startswith(genre + ".") and n.endswith(".wav")):
                files.append(os.path.join(folder, name))
                labels.append(genre)
        if not files:
            raise DatasetError(f"{owner}: no <genre>/<genre>.NNNNN.wav files in {root} (genres: {', '.join(_GENRES)})")
        self._audio(["waveform", "sample_rate", "label"], files, [_strings(labels)], num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)


def read_sph(path: str) -> tuple[np.ndarray, int]:
    """(float32 (channels, samples) in [-1, 1), sample rate) of a PCM NIST SPHERE file."""
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
            if not head.startswith(b"NIST_1A"):
                raise DatasetError(f"cannot read SPHERE file {path}: it does not start with NIST_1A")
            lines = head.split(b"\n")
            size = int(lines[1].strip())
            if size > len(head):
                head += f.read(size - len(head))
                lines = head.split(b"\n")
            fields: dict[str, str] = {}
            for line in lines[2:]:
                parts = line.decode("ascii", "replace").split(None, 2)
                if not parts or parts[0] == "end_head":
                    break
                if len(parts) == 3:
                    fields[parts[0]] = parts[2].strip()
            f.seek(size)
            raw = f.read()
    except (OSError, ValueError, IndexError) as e:
        raise DatasetError(f"cannot read SPHERE file {path}: {type(e).__name__}: {e}") from e
    coding = fields.get("sample_coding", "pcm")
    if not coding.startswith("pcm") or "shorten" in coding:
        raise DatasetError(f"cannot read SPHERE file {path}: sample_coding {coding!r} is not plain PCM")
    try:
        rate, channels = int(fields["sample_rate"]), int(fields.get("channel_count", "1"))
        width = int(fields.get("sample_n_bytes", "2"))
    except (KeyError, ValueError) as e:
        raise DatasetError(f"cannot read SPHERE file {path}: its header lacks {e}") from None
    order = "<" if fields.get("sample_byte_format", "01") in ("01", "0") else ">"
    if width == 2:
        data = np.frombuffer(raw[: len(raw) // 2 * 2], f"{order}i2").astype(np.float32) / 32768.0
    elif width == 1:
        data = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 4:
        data = (np.frombuffer(raw[: len(raw) // 4 * 4], f"{order}i4").astype(np.float64) / 2147483648.0
                ).astype(np.float32)
    else:
        raise DatasetError(f"cannot read SPHERE file {path}: {8 * width}-bit samples are not supported")
    usable = data.size // channels * channels
    return np.ascontiguousarray(data[:usable].reshape(-1, channels).T), rate


class _UtteranceReader:
    """Row i -> (waveform of talk i's segment [start, end) s, sample_rate, transcript, talk_id,
    speaker_id, identifier); talks are read on demand."""

    def __init__(self, files: list[str], spans: list[tuple[float, float]], extra: list[Any]) -> None:
        self.files, self.spans, self.extra = files, spans, extra

    def __call__(self, index: int) -> tuple[Any, ...]:
        path = self.files[index]
        wav, rate = read_sph(path) if path.endswith(".sph") else read_wav(path)
        start, end = self.spans[index]
        segment = np.ascontiguousarray(wav[:, int(start * rate): int(end * rate)])
        return (segment, np.int32(rate), *(col[index] for col in self.extra))  # int32, as MindSpore documents


class TedliumDataset(_Audio):
    """TED-LIUM ``release`` 'release1', 'release2' or 'release3': one row per ``.stm`` line
    (``talk_id channel speaker_id start end identifier transcript``) with ``waveform`` (that
    segment of the talk's audio), ``sample_rate`` (int32), ``transcript``, ``talk_id``,
    ``speaker_id`` and ``identifier`` (strings). Releases 1 and 2 are read from
    ``TEDLIUM_release{1,2}/<usage>/{sph,stm}`` with ``usage`` 'train', 'dev', 'test' or 'all';
    release 3 from ``TEDLIUM_release-3/data/{sph,stm}`` (``usage`` 'all'); ``dataset_dir`` may be
    the folder holding ``TEDLIUM_release*`` or that release folder itself. Besides MindSpore's
    '.sph', ``extensions='.wav'`` reads PCM WAV talks."""

    def __init__(self, dataset_dir: str, release: str, usage: str | None = None, extensions: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        owner = "TedliumDataset"
        root = _check_dir(dataset_dir, owner)
        folders = {"release1": "TEDLIUM_release1", "release2": "TEDLIUM_release2", "release3": "TEDLIUM_release-3"}
        if release not in folders:
            raise ValueError(f"{owner}: release must be 'release1', 'release2' or 'release3', got {release!r}")
        usage = "all" if usage is None else usage
        if release == "release3":
            if usage != "all":
                raise ValueError(f"{owner}: release3 has one part, so usage must be 'all' or None, got {usage!r}")
            parts = ["data"]
        elif usage == "all":
            parts = ["train", "dev", "test"]
        elif usage in ("train", "dev", "test"):
            parts = [usage]
        else:
            raise ValueError(f"{owner}: usage must be 'train', 'dev', 'test', 'all' or None, got {usage!r}")
        ext = ".sph" if extensions is None else extensions
        if not isinstance(ext, str) or not ext.startswith("."):
            raise ValueError(f"{owner}: extensions must be a file extension such as '.sph', got {extensions!r}")
        base = os.path.join(root, folders[release])
        if not os.path.isdir(base) and any(os.path.isdir(os.path.join(root, p, "stm")) for p in parts):
            base = root  # dataset_dir is the release folder itself
        if not os.path.isdir(base):
            raise DatasetError(f"{owner}: no folder {folders[release]} in {root}")
        files: list[str] = []
        spans: list[tuple[float, float]] = []
        cols: list[list[str]] = [[], [], [], []]
        if usage == "all" and release != "release3":  # 'all' reads the parts that are there
            parts = [p for p in parts if os.path.isdir(os.path.join(base, p, "stm"))] or parts
        for part in parts:
            stm_dir = os.path.join(base, part, "stm")
            if not os.path.isdir(stm_dir):
                raise DatasetError(f"{owner}: no folder {stm_dir}")
            for name in sorted(n for n in os.listdir(stm_dir) if n.endswith(".stm")):
                stm = os.path.join(stm_dir, name)
                audio = os.path.join(base, part, "sph", name[:-4] + ext)
                for line_no, line in enumerate(_read_lines(stm, owner), 1):
                    if not line.strip():
                        continue
                    fields = line.split(" ", 6)
                    try:
                        talk, _, speaker, start, end, ident = fields[:6]
                        span = (float(start), float(end))
                    except ValueError:
                        raise DatasetError(f"{owner}: {stm}, line {line_no}: expected 'talk_id channel speaker_id "
                                           "start end identifier transcript'") from None
                    files.append(audio)
                    spans.append(span)
                    cols[0].append(fields[6].strip() if len(fields) > 6 else "")
                    cols[1].append(talk)
                    cols[2].append(speaker)
                    cols[3].append(ident)
        self._spans = spans
        self._audio(["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"], files,
                    [_strings(c) for c in cols], num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)

    def _reader(self) -> _UtteranceReader:  # type: ignore[override]
        return _UtteranceReader(self._wav_files, self._spans, self._extra)
