"""SentencePiece in ``spore.dataset.text`` (issue 14, data slice): `SentencePieceVocab` (trained
from a dataset column or from text files, saved as a ``.model`` file), `SentencePieceTokenizer`
and the enums `SentencePieceModel`, `SPieceTokenizerOutType`, `SPieceTokenizerLoadType`.

MindSpore wraps Google's SentencePiece C++ library; Spore wraps the same library through its
``sentencepiece`` PyPI package (imported when first used; a clear ImportError says to install it
otherwise). Training runs in memory (no temporary files): the corpus is fed sentence by sentence
and the model proto is kept as bytes, so a vocab pickles to worker processes and saves with
`SentencePieceVocab.save_model` to a file the SentencePiece tools (and MindSpore) load.
``params`` passes further trainer options through, as MindSpore does (``{"input_sentence_size":
1000}``...).
"""

from __future__ import annotations

import enum
import io
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .transforms.base import TensorOperation

__all__ = ["SPieceTokenizerLoadType", "SPieceTokenizerOutType", "SentencePieceModel", "SentencePieceTokenizer",
           "SentencePieceVocab"]


def _spm() -> Any:
    try:
        import sentencepiece
    except ImportError as e:
        raise ImportError("SentencePiece needs the 'sentencepiece' package: pip install sentencepiece") from e
    return sentencepiece


class SentencePieceModel(enum.IntEnum):
    """The subword algorithm a `SentencePieceVocab` is trained with (WORD needs pre-tokenized text)."""

    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(enum.IntEnum):
    """What `SentencePieceTokenizer` outputs: the pieces (STRING) or their ids (INT, int32)."""

    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where a tokenizer's model comes from: a model file (FILE) or a `SentencePieceVocab` (MODEL)."""

    FILE = 0
    MODEL = 1


def _model_type(model_type: Any) -> str:
    """The trainer's name of a model type: a SentencePieceModel (or its int), or the trainer's own
    name ('unigram', 'bpe', 'char', 'word')."""
    if isinstance(model_type, str) and model_type.upper() in SentencePieceModel.__members__:
        return model_type.lower()
    try:
        if isinstance(model_type, bool):
            raise ValueError
        return SentencePieceModel(model_type).name.lower()
    except ValueError:
        raise ValueError(f"SentencePieceVocab: model_type must be a SentencePieceModel (UNIGRAM, BPE, CHAR, WORD), "
                         f"got {model_type!r}") from None


def _check_common(vocab_size: Any, character_coverage: Any, params: Any) -> dict[str, Any]:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)) or vocab_size <= 0:
        raise ValueError(f"SentencePieceVocab: vocab_size must be a positive int, got {vocab_size!r}")
    if isinstance(character_coverage, bool) or not isinstance(character_coverage, (int, float)) or \
            not 0.98 <= float(character_coverage) <= 1.0:
        raise ValueError("SentencePieceVocab: character_coverage must be a number in [0.98, 1.0] (SentencePiece's "
                         f"range), got {character_coverage!r}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TypeError(f"SentencePieceVocab: params must be a dict of trainer options, got {type(params).__name__}")
    return dict(params)


class SentencePieceVocab:
    """A trained SentencePiece model (MindSpore's ``text.SentencePieceVocab``): build it with
    `from_dataset` or `from_file`, tokenize with `SentencePieceTokenizer`, save with `save_model`."""

    def __init__(self) -> None:
        self._proto: bytes | None = None

    @classmethod
    def _train(cls, sentences: Iterator[str] | None, files: list[str] | None, vocab_size: int,
               character_coverage: float, model_type: Any, params: dict[str, Any]) -> SentencePieceVocab:
        spm = _spm()
        out = io.BytesIO()
        options: dict[str, Any] = {"vocab_size": int(vocab_size), "character_coverage": float(character_coverage),
                                   "model_type": _model_type(model_type), "model_writer": out,
                                   "minloglevel": 2}
        options.update(params)
        if files is not None:
            options["input"] = ",".join(files)
        else:
            options["sentence_iterator"] = sentences
        try:
            spm.SentencePieceTrainer.train(**options)
        except (RuntimeError, ValueError, OSError) as e:
            raise ValueError(f"SentencePieceVocab: training failed: {e}") from e
        vocab = cls()
        vocab._proto = out.getvalue()
        return vocab

    @classmethod
    def from_dataset(cls, dataset: Any, col_names: Sequence[str], vocab_size: int, character_coverage: float,
                     model_type: Any, params: dict[str, Any]) -> SentencePieceVocab:
        """Train on the strings of ``col_names`` (one sentence per row and column) of one epoch of
        ``dataset``."""
        from .core import Dataset

        if not isinstance(dataset, Dataset):
            raise TypeError(f"SentencePieceVocab.from_dataset: dataset must be a Dataset, got {type(dataset).__name__}")
        names = [col_names] if isinstance(col_names, str) else list(col_names)
        have = dataset.get_col_names()
        missing = [c for c in names if c not in have]
        if not names or missing:
            raise ValueError(f"SentencePieceVocab.from_dataset: col_names {names} must name columns of the dataset "
                             f"{have}")
        options = _check_common(vocab_size, character_coverage, params)

        def sentences() -> Iterator[str]:
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                for c in names:
                    arr = np.asarray(row[c])
                    for s in arr.reshape(-1):
                        yield s.decode("utf-8") if isinstance(s, bytes) else str(s)

        return cls._train(sentences(), None, vocab_size, character_coverage, model_type, options)

    @classmethod
    def from_file(cls, file_path: Sequence[str], vocab_size: int, character_coverage: float, model_type: Any,
                  params: dict[str, Any]) -> SentencePieceVocab:
        """Train on the lines of the text files ``file_path`` (a list of paths)."""
        paths = [file_path] if isinstance(file_path, (str, os.PathLike)) else list(file_path)
        for p in paths:
            if not os.path.isfile(p):
                raise FileNotFoundError(f"SentencePieceVocab.from_file: no file {os.fspath(p)!r}")
        options = _check_common(vocab_size, character_coverage, params)
        return cls._train(None, [os.fspath(p) for p in paths], vocab_size, character_coverage, model_type, options)

    @classmethod
    def save_model(cls, vocab: SentencePieceVocab, path: str, filename: str) -> None:
        """Write ``vocab``'s model to ``path/filename`` (a SentencePiece ``.model`` file)."""
        if not isinstance(vocab, SentencePieceVocab) or vocab._proto is None:
            raise TypeError("SentencePieceVocab.save_model: vocab must be a trained SentencePieceVocab")
        if not os.path.isdir(path):
            raise ValueError(f"SentencePieceVocab.save_model: path {os.fspath(path)!r} is not a directory")
        with open(os.path.join(path, filename), "wb") as f:
            f.write(vocab._proto)

    def _processor(self) -> Any:
        if self._proto is None:
            raise ValueError("SentencePieceVocab: this vocab is empty; build it with from_dataset or from_file")
        sp = _spm().SentencePieceProcessor()
        sp.LoadFromSerializedProto(self._proto)
        return sp


class SentencePieceTokenizer(TensorOperation):
    """Tokenize one string with a SentencePiece model: ``mode`` is a `SentencePieceVocab` or the
    path of a ``.model`` file; ``out_type`` STRING gives the pieces (a 1-D string array), INT their
    ids (1-D int32)."""

    def __init__(self, mode: Any, out_type: SPieceTokenizerOutType) -> None:
        if isinstance(mode, SentencePieceVocab):
            self.load_type = SPieceTokenizerLoadType.MODEL
            self._sp_proto = mode._processor().serialized_model_proto()
        elif isinstance(mode, (str, os.PathLike)):
            if not os.path.isfile(mode):
                raise ValueError(f"SentencePieceTokenizer: mode {os.fspath(mode)!r} is not a model file")
            self.load_type = SPieceTokenizerLoadType.FILE
            with open(mode, "rb") as f:
                self._sp_proto = f.read()
        else:
            raise TypeError("SentencePieceTokenizer: mode must be a SentencePieceVocab or the path of a model file, "
                            f"got {type(mode).__name__}")
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(f"SentencePieceTokenizer: out_type must be an SPieceTokenizerOutType, got {out_type!r}")
        self.mode, self.out_type = mode, out_type
        self._sp: Any = None
        self._load()

    def _load(self) -> None:
        sp = _spm().SentencePieceProcessor()
        try:
            sp.LoadFromSerializedProto(self._sp_proto)
        except (RuntimeError, OSError) as e:
            raise ValueError(f"SentencePieceTokenizer: cannot load the model: {e}") from e
        self._sp = sp

    def __getstate__(self) -> dict[str, Any]:  # the C++ processor does not pickle; its proto does
        state = dict(self.__dict__)
        state["_sp"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._load()

    def _apply(self, text: Any) -> np.ndarray:
        arr = np.asarray(text)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf-8")
        if arr.dtype.kind != "U" or arr.ndim != 0:
            raise TypeError(f"SentencePieceTokenizer: expected one string (a 0-d string array), got "
                            f"{arr.dtype} of shape {arr.shape}")
        if self.out_type == SPieceTokenizerOutType.INT:
            return np.asarray(self._sp.EncodeAsIds(str(arr)), np.int32)
        pieces = self._sp.EncodeAsPieces(str(arr))
        return np.array(pieces, dtype=str) if pieces else np.zeros(0, dtype=str)
