"""MindSpore's dataset base classes, for the isinstance/issubclass checks ported code makes:
`SourceDataset`, `VisionBaseDataset`, `TextBaseDataset`, `AudioBaseDataset`, `UnionBaseDataset`.

Spore's datasets do not inherit from them (its hierarchy is `Dataset` -> `MappableSource` -> each
source), so each is a class whose checks follow MindSpore's hierarchy instead: a vision source (the
classes of MindSpore's datasets_vision.py) is a VisionBaseDataset only, a text or audio source
likewise, and everything else (GeneratorDataset, NumpySlicesDataset, CSV/TFRecord/Padded sources and
every pipeline stage such as BatchDataset) is a UnionBaseDataset, which in MindSpore derives from all
three. `SourceDataset` is every source (what MindSpore's SourceDataset/MappableDataset are).
"""

from __future__ import annotations

from typing import Any

_TEXT = frozenset({
    "AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset", "DBpediaDataset", "EnWik9Dataset",
    "IMDBDataset", "IWSLT2016Dataset", "IWSLT2017Dataset", "Multi30kDataset", "PennTreebankDataset",
    "SogouNewsDataset", "SQuADDataset", "SST2Dataset", "TextFileDataset", "UDPOSDataset", "WikiTextDataset",
    "YahooAnswersDataset", "YelpReviewDataset"})
_AUDIO = frozenset({
    "CMUArcticDataset", "GTZANDataset", "LibriTTSDataset", "LJSpeechDataset", "SpeechCommandsDataset",
    "TedliumDataset", "YesNoDataset"})
_VISION = frozenset({
    "Caltech101Dataset", "Caltech256Dataset", "CelebADataset", "Cifar10Dataset", "Cifar100Dataset",
    "CityscapesDataset", "CocoDataset", "DIV2KDataset", "EMnistDataset", "FakeImageDataset", "FashionMnistDataset",
    "FlickrDataset", "Flowers102Dataset", "Food101Dataset", "ImageFolderDataset", "KITTIDataset", "KMnistDataset",
    "LFWDataset", "LSUNDataset", "ManifestDataset", "MnistDataset", "OmniglotDataset", "PhotoTourDataset",
    "Places365Dataset", "QMnistDataset", "RandomDataset", "RenderedSST2Dataset", "SBDataset", "SBUDataset",
    "SemeionDataset", "STL10Dataset", "SUN397Dataset", "SVHNDataset", "USPSDataset", "VOCDataset",
    "WIDERFaceDataset"})


def _category(cls: type) -> str | None:
    for k in cls.__mro__:
        name = k.__name__
        for cat, names in (("vision", _VISION), ("text", _TEXT), ("audio", _AUDIO)):
            if name in names and k.__module__.startswith("spore.dataset"):
                return cat
    return None


class _CheckMeta(type):
    def __instancecheck__(cls, obj: object) -> bool:
        return cls.__subclasscheck__(type(obj))

    def __subclasscheck__(cls, sub: Any) -> bool:
        from .core import Dataset

        if not isinstance(sub, type):
            raise TypeError("issubclass() arg 1 must be a class")
        if type.__subclasscheck__(cls, sub):
            return True
        if not issubclass(sub, Dataset):
            return False
        return cls._admits(sub)  # type: ignore[attr-defined]


class _Base(metaclass=_CheckMeta):
    """Shared constructor: these classes exist for type checks; a pipeline starts from a concrete
    source (GeneratorDataset for custom data), so constructing one directly is refused."""

    def __init__(self, children: Any = None, num_parallel_workers: Any = None, cache: Any = None) -> None:
        raise TypeError(f"{type(self).__name__} is a base class for isinstance checks; create a concrete "
                        "dataset (e.g. GeneratorDataset for custom data)")


class UnionBaseDataset(_Base):
    """Datasets that are not tied to one modality (generic sources and every pipeline stage)."""

    @classmethod
    def _admits(cls, sub: type) -> bool:
        return _category(sub) is None


class VisionBaseDataset(_Base):
    """The vision sources, and (as in MindSpore, through UnionBaseDataset) the generic datasets."""

    @classmethod
    def _admits(cls, sub: type) -> bool:
        return _category(sub) in (None, "vision")


class TextBaseDataset(_Base):
    """The text sources, and (as in MindSpore, through UnionBaseDataset) the generic datasets."""

    @classmethod
    def _admits(cls, sub: type) -> bool:
        return _category(sub) in (None, "text")


class AudioBaseDataset(_Base):
    """The audio sources, and (as in MindSpore, through UnionBaseDataset) the generic datasets."""

    @classmethod
    def _admits(cls, sub: type) -> bool:
        return _category(sub) in (None, "audio")


class SourceDataset(metaclass=_CheckMeta):
    """Every dataset that reads data (the leaves of a pipeline), not the stages built on them."""

    def __init__(self, num_parallel_workers: Any = None, num_samples: Any = None, shuffle: Any = True,
                 num_shards: Any = None, shard_id: Any = None, cache: Any = None) -> None:
        raise TypeError("SourceDataset is a base class for isinstance checks; create a concrete source "
                        "(e.g. GeneratorDataset for custom data)")

    @classmethod
    def _admits(cls, sub: type) -> bool:
        from .source_base import MappableSource

        return issubclass(sub, MappableSource)


__all__ = ["AudioBaseDataset", "SourceDataset", "TextBaseDataset", "UnionBaseDataset", "VisionBaseDataset"]
