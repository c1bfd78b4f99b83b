"""The dataset base classes follow MindSpore's hierarchy in isinstance/issubclass (issue 14, rest slice)."""

import numpy as np
import pytest

import spore.dataset as ds


def test_generic_sources_and_stages_are_union_and_every_modality():
    src = ds.NumpySlicesDataset({"a": np.arange(4)}, shuffle=False)
    stage = src.batch(2)
    for d in (src, stage):
        assert isinstance(d, ds.UnionBaseDataset)
        assert isinstance(d, ds.VisionBaseDataset) and isinstance(d, ds.TextBaseDataset)
        assert isinstance(d, ds.AudioBaseDataset)
    assert isinstance(src, ds.SourceDataset) and not isinstance(stage, ds.SourceDataset)


@pytest.mark.parametrize("cls,base", [(ds.MnistDataset, ds.VisionBaseDataset), (ds.FashionMnistDataset,
                                      ds.VisionBaseDataset), (ds.TextFileDataset, ds.TextBaseDataset),
                                      (ds.YesNoDataset, ds.AudioBaseDataset)])
def test_modality_sources_belong_to_their_base_only(cls, base):
    bases = {ds.VisionBaseDataset, ds.TextBaseDataset, ds.AudioBaseDataset}
    assert issubclass(cls, base) and issubclass(cls, ds.SourceDataset)
    assert not any(issubclass(cls, b) for b in bases - {base})
    assert not issubclass(cls, ds.UnionBaseDataset)


def test_non_datasets_are_not_instances():
    assert not isinstance(3, ds.SourceDataset) and not isinstance([], ds.UnionBaseDataset)
    assert not issubclass(int, ds.VisionBaseDataset)
    with pytest.raises(TypeError):
        issubclass(3, ds.SourceDataset)


def test_constructing_a_base_class_is_refused_with_a_hint():
    for cls in (ds.SourceDataset, ds.UnionBaseDataset, ds.VisionBaseDataset):
        with pytest.raises(TypeError, match="GeneratorDataset"):
            cls()
