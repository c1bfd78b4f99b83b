"""``spore.dataset``: MindSpore's data pipeline (``import spore.dataset as ds``).

Sources (GeneratorDataset, NumpySlicesDataset, ParquetDataset, ImageFolderDataset, MnistDataset,
Cifar10Dataset), samplers, and the pipeline operations every dataset has (map, batch, shuffle,
repeat, take, skip, zip, concat, split, rename, project, filter, prefetch), iterated as Tensors.
Transforms live in ``spore.dataset.vision`` and ``spore.dataset.transforms``.
"""

import typing as _typing

from . import config, text, transforms, vision
from .base_classes import AudioBaseDataset, SourceDataset, TextBaseDataset, UnionBaseDataset, VisionBaseDataset
from .batch_op import BatchInfo
from .config_rest import (  # noqa: E402
    get_enable_watchdog,
    get_multiprocessing_start_method,
    get_multiprocessing_timeout_interval,
    get_video_backend,
    set_video_backend,
    shuffle_to_shuffle_mode,
)
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

# isort: split
# MindSpore's names for the pipeline's stage classes, the config getters/setters it also exports at
# this level, and more sources (issue 14)
from .batch_op import BatchDataset  # noqa: E402
from .config import get_num_parallel_workers, get_seed, set_seed  # noqa: E402
from .iterators import DictIterator, TupleIterator  # noqa: E402
from .map_op import MapDataset  # noqa: E402
from .more_sources import FashionMnistDataset, KMnistDataset, PaddedDataset, Shuffle, TextFileDataset  # noqa: E402
from .pipeline import (  # noqa: E402
    ConcatDataset,
    FilterDataset,
    ProjectDataset,
    RenameDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
    ZipDataset,
)
from .source_base import MappableSource as MappableDataset  # noqa: E402

# isort: split
# padded/bucketed batches, TFRecord files (issue 14, dataset slice)
from ..tensor import Tensor  # noqa: E402
from .annotated_sources import (  # noqa: E402
    CocoDataset,
    DIV2KDataset,
    FlickrDataset,
    ManifestDataset,
    SBUDataset,
    VOCDataset,
)
from .callbacks import DSCallback, WaitedDSCallback  # noqa: E402
from .config import ErrorSamplesMode, get_callback_timeout, get_debug_mode, get_error_samples_mode  # noqa: E402
from .corpus_sources import (  # noqa: E402
    CMUArcticDataset,
    CoNLL2000Dataset,
    LibriTTSDataset,
    LJSpeechDataset,
    SQuADDataset,
    SST2Dataset,
    UDPOSDataset,
    YesNoDataset,
)
from .file_sources import (  # noqa: E402
    AGNewsDataset,
    AmazonReviewDataset,
    Cifar100Dataset,
    DBpediaDataset,
    EMnistDataset,
    EnWik9Dataset,
    FakeImageDataset,
    IMDBDataset,
    PennTreebankDataset,
    RandomDataset,
    SemeionDataset,
    SogouNewsDataset,
    USPSDataset,
    WikiTextDataset,
    YahooAnswersDataset,
    YelpReviewDataset,
)
from .image_sources import (  # noqa: E402
    Caltech256Dataset,
    CelebADataset,
    OmniglotDataset,
    QMnistDataset,
    RenderedSST2Dataset,
    STL10Dataset,
    SUN397Dataset,
    WIDERFaceDataset,
)
from .line_reader import LineReader  # noqa: E402
from .padding_batch import BucketBatchByLengthDataset, PaddedBatchDataset  # noqa: E402
from .samplers_extra import BuiltinSampler, IterSampler, PKSampler  # noqa: E402
from .sync_wait import SyncWaitDataset  # noqa: E402
from .tfrecord import Schema, TFRecordDataset  # noqa: E402
from .translation_sources import Multi30kDataset  # noqa: E402
from .validator_helpers import replace_none, select_sampler, to_list  # noqa: E402
from .vision.augment import ToNumpy  # noqa: E402
from .worker_errors import ExceptionHandler, Implementation  # noqa: E402

# isort: split
# more readers, debug hooks and dtype helpers (issue 14, data slice)
from .audio_sources_more import GTZANDataset, TedliumDataset  # noqa: E402
from .debug_utils import DebugHook, flatten_single_lists, mstype_to_detype  # noqa: E402
from .image_sources_more import (  # noqa: E402
    Caltech101Dataset,
    CityscapesDataset,
    Flowers102Dataset,
    Food101Dataset,
    KITTIDataset,
    LFWDataset,
    LSUNDataset,
    PhotoTourDataset,
    Places365Dataset,
    SBDataset,
    SVHNDataset,
)
from .serialize import DeserializedDataset, compare, deserialize, serialize, show  # noqa: E402
from .text_corpora_more import CLUEDataset, IWSLT2016Dataset, IWSLT2017Dataset  # noqa: E402
from .text_sentencepiece import SentencePieceModel  # noqa: E402


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
__all__ += ["BatchDataset", "ConcatDataset", "DictIterator", "FashionMnistDataset", "FilterDataset", "KMnistDataset",
            "MapDataset", "MappableDataset", "PaddedDataset", "ProjectDataset", "RenameDataset", "RepeatDataset",
            "Shuffle", "ShuffleDataset", "SkipDataset", "TakeDataset", "TextFileDataset", "TupleIterator",
            "ZipDataset", "get_num_parallel_workers", "get_seed", "set_seed"]
__all__ += ["BucketBatchByLengthDataset", "PaddedBatchDataset", "Schema", "TFRecordDataset"]
__all__ += ["AGNewsDataset", "AmazonReviewDataset", "Cifar100Dataset", "DBpediaDataset", "EMnistDataset",
            "EnWik9Dataset", "FakeImageDataset", "IMDBDataset", "PennTreebankDataset", "RandomDataset",
            "SemeionDataset", "SogouNewsDataset", "USPSDataset", "WikiTextDataset", "YahooAnswersDataset",
            "YelpReviewDataset"]
__all__ += ["BuiltinSampler", "IterSampler", "PKSampler", "CocoDataset", "ManifestDataset", "VOCDataset"]
__all__ += ["CMUArcticDataset", "CoNLL2000Dataset", "LJSpeechDataset", "SQuADDataset", "SST2Dataset", "UDPOSDataset",
            "YesNoDataset", "LibriTTSDataset"]
__all__ += ["Caltech256Dataset", "CelebADataset", "OmniglotDataset", "QMnistDataset", "STL10Dataset",
            "RenderedSST2Dataset", "SUN397Dataset", "WIDERFaceDataset", "DIV2KDataset", "FlickrDataset", "SBUDataset"]
__all__ += ["ErrorSamplesMode", "get_debug_mode", "get_error_samples_mode", "replace_none", "select_sampler",
            "to_list", "ToNumpy", "Tensor", "DSCallback", "WaitedDSCallback", "SyncWaitDataset",
            "get_callback_timeout"]
__all__ += ["get_enable_watchdog", "get_multiprocessing_start_method", "get_multiprocessing_timeout_interval",
            "get_video_backend", "set_video_backend", "shuffle_to_shuffle_mode"]
__all__ += ["ExceptionHandler", "Implementation", "Multi30kDataset", "LineReader"]
__all__ += ["AudioBaseDataset", "SourceDataset", "TextBaseDataset", "UnionBaseDataset", "VisionBaseDataset"]

__all__ += ["CLUEDataset", "Caltech101Dataset", "CityscapesDataset", "DebugHook", "Flowers102Dataset", "Food101Dataset",
            "IWSLT2016Dataset", "IWSLT2017Dataset", "KITTIDataset", "PhotoTourDataset", "Places365Dataset",
            "SVHNDataset", "flatten_single_lists", "mstype_to_detype", "SentencePieceModel",
            "DeserializedDataset", "compare", "deserialize", "serialize", "show", "GTZANDataset", "LFWDataset",
            "SBDataset", "TedliumDataset", "LSUNDataset"]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.dataset", name)
