"""``spore.dataset``: MindSpore's data pipeline (``import spore.dataset as ds``).

Sources (GeneratorDataset, NumpySlicesDataset, ParquetDataset, ImageFolderDataset, MnistDataset,
Cifar10Dataset), samplers, and the pipeline operations every dataset has (map, batch, shuffle,
repeat, take, skip, zip, concat, split, rename, project, filter, prefetch), iterated as Tensors.
Transforms live in ``spore.dataset.vision`` and ``spore.dataset.transforms``.
"""

import typing as _typing

from . import config, text, transforms, vision
from .batch_op import BatchInfo
from .core import Dataset
from .csv_source import CSVDataset
from .errors import DatasetError, DatasetMapError
from .samplers import (
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from .sources import GeneratorDataset, NumpySlicesDataset
from .tabular import ParquetDataset
from .vision_folders import Cifar10Dataset, ImageFolderDataset, MnistDataset


def zip(datasets):  # noqa: A001 - MindSpore's name
    """Rows of ``datasets`` side by side (``ds.zip((ds1, ds2))``)."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("zip: no datasets given")
    return datasets[0].zip(datasets[1:])


__all__ = ["BatchInfo", "CSVDataset",
           "Cifar10Dataset", "Dataset", "DatasetError", "DatasetMapError", "DistributedSampler",
           "GeneratorDataset", "ImageFolderDataset", "MnistDataset", "NumpySlicesDataset", "ParquetDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "SubsetSampler",
           "WeightedRandomSampler", "config", "text", "transforms", "vision", "zip"]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.dataset", name)
