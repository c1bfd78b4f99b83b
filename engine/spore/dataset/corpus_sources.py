"""Text and audio corpora read from their releases' local files (issue 14, dataset slice).

Text: SQuAD (``train-v1.1.json``/``dev-v1.1.json`` or v2.0), CoNLL-2000 chunking (``train.txt``/
``test.txt``), UDPOS (``en-ud-tag.v2.{train,dev,test}.txt``), SST-2 (``train.tsv``/``dev.tsv``/
``test.tsv``). Audio: YesNo (``*.wav`` named by their eight 0/1 labels), LJSpeech
(``metadata.csv`` + ``wavs/``), CMU ARCTIC (``cmu_us_<name>_arctic/etc/txt.done.data`` + ``wav/``).

Audio files are PCM WAV read with the standard library's ``wave`` module; ``waveform`` is float32
(channels, samples) scaled to [-1, 1) as torchaudio's loader does (8-bit unsigned, 16/24/32-bit
signed PCM). Every read or parse error is a DatasetError naming the file (and line or row).
"""

from __future__ import annotations

import json
import os
import wave
from typing import Any

import numpy as np

from .errors import DatasetError
from .file_sources import _Columns, _read_lines, _strings, _usages
from .more_sources import Shuffle, _shuffle_flag
from .vision_folders import _check_dir

__all__ = ["CMUArcticDataset", "CoNLL2000Dataset", "LibriTTSDataset", "LJSpeechDataset", "SQuADDataset", "SST2Dataset",
           "UDPOSDataset", "YesNoDataset", "read_wav"]


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """(float32 (channels, samples) in [-1, 1), sample rate) of a PCM WAV file."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            raw = w.readframes(n)
    except (OSError, EOFError, wave.Error) as e:
        raise DatasetError(f"cannot read WAV file {path}: {type(e).__name__}: {e}") from e
    if width == 1:
        data = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        data = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        data = (np.where(v >= 1 << 23, v - (1 << 24), v)).astype(np.float32) / float(1 << 23)
    elif width == 4:
        data = (np.frombuffer(raw, "<i4").astype(np.float64) / 2147483648.0).astype(np.float32)
    else:
        raise DatasetError(f"cannot read WAV file {path}: {8 * width}-bit samples are not PCM 8/16/24/32")
    if data.size % channels:
        raise DatasetError(f"cannot read WAV file {path}: it is truncated")
    return np.ascontiguousarray(data.reshape(-1, channels).T), rate


class _WavReader:
    """Row i -> (waveform, sample_rate, *extra[k][i]); reads the WAV file on demand."""

    def __init__(self, files: list[str], extra: list[Any]) -> None:
        self.files, self.extra = files, extra

    def __call__(self, index: int) -> tuple[Any, ...]:
        try:
            wav, rate = read_wav(self.files[index])
        except DatasetError as e:
            raise DatasetError(f"{e.reason} (row {index})") from e
        return (wav, np.uint32(rate), *(col[index] for col in self.extra))


class _Audio(_Columns):
    def _audio(self, names: list[str], files: list[str], extra: list[Any], num_samples: int | None, shuffle: Any,
               sampler: Any, num_shards: int | None, shard_id: int | None, workers: int | None) -> None:
        self._wav_files, self._extra = files, extra
        self._init_columns(names, [files], num_samples, shuffle, sampler, num_shards, shard_id, workers)

    def _reader(self) -> _WavReader:  # type: ignore[override]
        return _WavReader(self._wav_files, self._extra)


class YesNoDataset(_Audio):
    """YesNo: ``waveform``, ``sample_rate`` and ``label`` (eight uint32 0/1 from the file name
    ``0_1_0_0_1_0_1_1.wav``) for every WAV file in ``dataset_dir``."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "YesNoDataset")
        files, labels = [], []
        for name in sorted(os.listdir(root)):
            if not name.endswith(".wav"):
                continue
            try:
                lab = np.array([int(p) for p in name[:-4].split("_")], np.uint32)
            except ValueError:
                raise DatasetError(f"YesNoDataset: {os.path.join(root, name)}: the name is not 0/1 labels "
                                   "joined by '_'") from None
            files.append(os.path.join(root, name))
            labels.append(lab)
        self._audio(["waveform", "sample_rate", "label"], files, [labels], num_samples, shuffle, sampler, num_shards,
                    shard_id, num_parallel_workers)


class LJSpeechDataset(_Audio):
    """LJSpeech: ``waveform``, ``sample_rate``, ``transcription``, ``normalized_transcription`` from
    ``metadata.csv`` (``id|transcription|normalized``) and ``wavs/<id>.wav``."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "LJSpeechDataset")
        meta = os.path.join(root, "metadata.csv")
        files, trans, norm = [], [], []
        for line_no, line in enumerate(_read_lines(meta, "LJSpeechDataset"), 1):
            if not line.strip():
                continue
            parts = line.split("|")
            if len(parts) != 3:
                raise DatasetError(f"LJSpeechDataset: {meta}, line {line_no}: expected 'id|transcription|normalized'")
            files.append(os.path.join(root, "wavs", parts[0] + ".wav"))
            trans.append(parts[1])
            norm.append(parts[2])
        self._audio(["waveform", "sample_rate", "transcription", "normalized_transcription"], files,
                    [_strings(trans), _strings(norm)], num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class CMUArcticDataset(_Audio):
    """CMU ARCTIC speaker ``name`` (default 'aew'): ``waveform``, ``sample_rate``, ``transcript``,
    ``utterance_id`` from ``cmu_us_<name>_arctic/etc/txt.done.data`` and its ``wav/`` folder."""

    def __init__(self, dataset_dir: str, name: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "CMUArcticDataset")
        speaker = os.path.join(root, f"cmu_us_{name or 'aew'}_arctic")
        listing = os.path.join(speaker, "etc", "txt.done.data")
        files, texts, ids = [], [], []
        for line_no, line in enumerate(_read_lines(listing, "CMUArcticDataset"), 1):
            line = line.strip()
            if not line:
                continue
            if not (line.startswith("(") and line.endswith(")")) or '"' not in line:
                raise DatasetError(f"CMUArcticDataset: {listing}, line {line_no}: expected '( id \"text\" )'")
            uid, rest = line[1:-1].strip().split(" ", 1)
            files.append(os.path.join(speaker, "wav", uid + ".wav"))
            texts.append(rest.strip().strip('"'))
            ids.append(uid)
        self._audio(["waveform", "sample_rate", "transcript", "utterance_id"], files, [_strings(texts), _strings(ids)],
                    num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class SQuADDataset(_Columns):
    """SQuAD 1.1/2.0: ``context``, ``question``, ``text`` (the answers' strings) and
    ``answer_start`` (uint32) per question, from ``train-v*.json`` / ``dev-v*.json``."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "SQuADDataset")
        cols: list[list[Any]] = [[], [], [], []]
        for u in _usages(usage, ("train", "dev"), "SQuADDataset"):
            names = [n for n in sorted(os.listdir(root)) if n.startswith(f"{u}-v") and n.endswith(".json")]
            if not names:
                raise DatasetError(f"SQuADDataset: no {u}-v1.1.json or {u}-v2.0.json in {root}")
            path = os.path.join(root, names[0])
            try:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)["data"]
                for article in data:
                    for para in article["paragraphs"]:
                        for qa in para["qas"]:
                            answers = qa.get("answers", [])
                            cols[0].append(para["context"])
                            cols[1].append(qa["question"])
                            # an unanswerable (v2.0) question: one empty answer at -1 (0xFFFFFFFF as uint32)
                            cols[2].append(_strings([a["text"] for a in answers] or [""]))
                            cols[3].append(np.array([a["answer_start"] for a in answers] or [-1], np.int64)
                                           .astype(np.uint32))
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise DatasetError(f"SQuADDataset: cannot read {path}: {type(e).__name__}: {e}") from e
        self._init_columns(["context", "question", "text", "answer_start"],
                           [_strings(cols[0]), _strings(cols[1]), cols[2], cols[3]], num_samples,
                           _shuffle_flag(shuffle, "SQuADDataset"), None, num_shards, shard_id, num_parallel_workers)


def _token_columns(path: str, ncols: int, sep: str | None, owner: str) -> list[list[np.ndarray]]:
    """Sentences of a one-token-per-line file (blank lines between sentences), column by column."""
    sentences: list[list[np.ndarray]] = [[] for _ in range(ncols)]
    current: list[list[str]] = []

    def flush() -> None:
        if current:
            for c in range(ncols):
                sentences[c].append(_strings([row[c] for row in current]))
            current.clear()

    for line_no, line in enumerate(_read_lines(path, owner), 1):
        if not line.strip():
            flush()
            continue
        parts = line.split(sep)
        if len(parts) != ncols:
            raise DatasetError(f"{owner}: {path}, line {line_no}: {len(parts)} field(s), expected {ncols}")
        current.append(parts)
    flush()
    return sentences


class CoNLL2000Dataset(_Columns):
    """CoNLL-2000 chunking: per sentence ``word``, ``pos_tag``, ``chunk_tag`` string arrays."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "CoNLL2000Dataset")
        cols: list[list[np.ndarray]] = [[], [], []]
        for u in _usages(usage, ("train", "test"), "CoNLL2000Dataset"):
            part = _token_columns(os.path.join(root, f"{u}.txt"), 3, None, "CoNLL2000Dataset")
            for c in range(3):
                cols[c] += part[c]
        self._init_columns(["word", "pos_tag", "chunk_tag"], cols, num_samples,
                           _shuffle_flag(shuffle, "CoNLL2000Dataset"), None, num_shards, shard_id,
                           num_parallel_workers)


class UDPOSDataset(_Columns):
    """UDPOS: per sentence ``word``, ``universal``, ``stanford`` tag arrays, from
    ``en-ud-tag.v2.{train,dev,test}.txt`` (tab-separated)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "UDPOSDataset")
        cols: list[list[np.ndarray]] = [[], [], []]
        for u in _usages(usage, ("train", "valid", "test"), "UDPOSDataset"):
            name = "dev" if u == "valid" else u
            part = _token_columns(os.path.join(root, f"en-ud-tag.v2.{name}.txt"), 3, "\t", "UDPOSDataset")
            for c in range(3):
                cols[c] += part[c]
        self._init_columns(["word", "universal", "stanford"], cols, num_samples, _shuffle_flag(shuffle, "UDPOSDataset"),
                           None, num_shards, shard_id, num_parallel_workers)


class SST2Dataset(_Columns):
    """SST-2: ``sentence`` and ``label`` (uint32) from ``train.tsv``/``dev.tsv`` (header line
    ``sentence\\tlabel``); ``test.tsv`` (``index\\tsentence``) has no labels, so usage='test' gives
    ``sentence`` only."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "SST2Dataset")
        usage = "train" if usage is None else usage
        if usage not in ("train", "dev", "test"):
            raise ValueError(f"SST2Dataset: usage must be 'train', 'dev' or 'test', got {usage!r}")
        path = os.path.join(root, f"{usage}.tsv")
        lines = _read_lines(path, "SST2Dataset")[1:]
        sentences, labels = [], []
        for line_no, line in enumerate(lines, 2):
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2:
                raise DatasetError(f"SST2Dataset: {path}, line {line_no}: {len(parts)} field(s), expected 2")
            if usage == "test":
                sentences.append(parts[1])
            else:
                try:
                    labels.append(int(parts[1]))
                except ValueError:
                    raise DatasetError(f"SST2Dataset: {path}, line {line_no}: label {parts[1]!r} is not an int") \
                        from None
                sentences.append(parts[0])
        names, cols = (["sentence"], [_strings(sentences)]) if usage == "test" else (
            ["sentence", "label"], [_strings(sentences), np.asarray(labels, np.uint32)])
        self._init_columns(names, cols, num_samples, _shuffle_flag(shuffle, "SST2Dataset"), None, num_shards,
                           shard_id, num_parallel_workers)


class LibriTTSDataset(_Audio):
    """LibriTTS: ``waveform``, ``sample_rate``, ``original_text``, ``normalized_text``,
    ``speaker_id`` and ``chapter_id`` (uint32), ``utterance_id`` (string) for every
    ``<usage>/<speaker>/<chapter>/<utterance>.wav`` with its ``.original.txt`` and
    ``.normalized.txt``, under ``dataset_dir`` (or its ``LibriTTS`` folder). ``usage``: one of the
    release's subsets ('dev-clean', 'train-clean-100', ...) or 'all'."""

    _USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
               "train-other-500")

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "LibriTTSDataset")
        if os.path.isdir(os.path.join(root, "LibriTTS")):
            root = os.path.join(root, "LibriTTS")
        usages = _usages(usage, self._USAGES, "LibriTTSDataset")
        if usage in (None, "all"):
            usages = [u for u in usages if os.path.isdir(os.path.join(root, u))]
        files: list[str] = []
        cols: list[list[Any]] = [[], [], [], [], []]
        for u in usages:
            base = os.path.join(root, u)
            if not os.path.isdir(base):
                raise DatasetError(f"LibriTTSDataset: no folder {u} in {root}")
            for speaker in sorted(os.listdir(base), key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s)):
                sdir = os.path.join(base, speaker)
                if not os.path.isdir(sdir):
                    continue
                for chapter in sorted(os.listdir(sdir)):
                    cdir = os.path.join(sdir, chapter)
                    if not os.path.isdir(cdir):
                        continue
                    for name in sorted(n for n in os.listdir(cdir) if n.endswith(".wav")):
                        uid = name[:-4]
                        texts = []
                        for kind in ("original", "normalized"):
                            tpath = os.path.join(cdir, f"{uid}.{kind}.txt")
                            lines = _read_lines(tpath, "LibriTTSDataset")
                            texts.append(" ".join(line.strip() for line in lines).strip())
                        try:
                            spk, chap = int(speaker), int(chapter)
                        except ValueError:
                            raise DatasetError(f"LibriTTSDataset: {cdir}: speaker and chapter folders must be "
                                               "numbers") from None
                        files.append(os.path.join(cdir, name))
                        cols[0].append(texts[0])
                        cols[1].append(texts[1])
                        cols[2].append(np.uint32(spk))
                        cols[3].append(np.uint32(chap))
                        cols[4].append(uid)
        self._audio(["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                     "utterance_id"], files, [_strings(cols[0]), _strings(cols[1]), cols[2], cols[3],
                                              _strings(cols[4])],
                    num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
