"""serialize / deserialize / show / compare / DeserializedDataset: JSON pipelines that rebuild
into pipelines giving the same rows; Python callables marked and refused, never unpickled."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

import spore.dataset as ds
import spore.dataset.text as text
import spore.dataset.transforms as T
import spore.dataset.vision as vision


def _rows(d):
    return [[np.asarray(c).tolist() for c in r] for r in d.create_tuple_iterator(output_numpy=True)]


def _image_folder(tmp_path):
    rng = np.random.default_rng(0)
    for cls in ("cat", "dog"):
        (tmp_path / cls).mkdir()
        for i in range(3):
            buf = io.BytesIO()
            Image.fromarray(rng.integers(0, 256, (8, 10, 3), dtype=np.uint8)).save(buf, format="PNG")
            (tmp_path / cls / f"{i}.png").write_bytes(buf.getvalue())
    return str(tmp_path)


def test_image_pipeline_round_trips_through_a_json_file(tmp_path):
    (tmp_path / "imgs").mkdir()
    root = _image_folder(tmp_path / "imgs")
    old_seed = ds.config.get_seed()
    ds.config.set_seed(5)
    try:
        d = ds.ImageFolderDataset(root, shuffle=True, decode=True)
        d = d.map([vision.Resize((4, 6), vision.Inter.NEAREST), vision.Normalize([0.5] * 3, [2.0] * 3),
                   vision.HWC2CHW()], input_columns="image")
        d = d.map(T.TypeCast(np.int32), input_columns="label").shuffle(4).batch(2, drop_remainder=True).repeat(2)
        path = tmp_path / "pipeline.json"
        tree = ds.serialize(d, json_filepath=str(path))
        assert json.loads(path.read_text()) == tree
        again = ds.deserialize(json_filepath=str(path))
        assert ds.compare(d, again)
        expected, got = _rows(d), _rows(again)
    finally:
        ds.config.set_seed(old_seed)
    assert len(expected) == 6 and got == expected
    assert tree["op_type"] == "RepeatDataset"
    ops = tree["children"][0]["children"][0]["children"][0]["children"][0]["params"]["operations"]
    assert [o["tensor_op_name"] for o in ops] == ["Resize", "Normalize", "HWC2CHW"]
    assert ops[0]["tensor_op_params"]["interpolation"]["name"] == "NEAREST"


def test_column_ops_samplers_and_dict_round_trip(tmp_path):
    a = ds.NumpySlicesDataset({"x": np.arange(8, dtype=np.float32)},
                              sampler=ds.SubsetSampler([5, 1, 3, 7]))
    b = ds.NumpySlicesDataset({"y": np.arange(10, 18)}, sampler=ds.SequentialSampler(2, 4))
    d = a.zip(b).rename("x", "value").project(["y", "value"]).skip(1).take(2)
    c = ds.NumpySlicesDataset({"y": np.array([100]), "value": np.array([0.5], np.float32)}, shuffle=False)
    d = d.concat(c)
    tree = ds.serialize(d)
    json.dumps(tree)  # plain JSON
    again = ds.deserialize(input_dict=tree)
    assert _rows(again) == _rows(d) == [[13, 1.0], [14, 3.0], [100, 0.5]]
    wrapped = ds.DeserializedDataset(tree)
    assert wrapped.get_col_names() == ["y", "value"] and _rows(wrapped) == _rows(d)
    assert ds.serialize(wrapped) == tree
    assert d.to_json() == tree  # MindSpore's Dataset.to_json
    path = tmp_path / "p.json"
    path.write_text(json.dumps(tree))
    assert _rows(ds.DeserializedDataset(str(path))) == _rows(d)
    assert not ds.compare(d, d.take(1))


def test_python_callables_are_marked_and_refused():
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map(lambda x: x + 1, input_columns="x")
    tree = ds.serialize(d)
    op = tree["params"]["operations"]
    assert op["tensor_op_name"] == "PyFunc" and op["serializable"] is False and "<lambda>" in op["python_function"]
    with pytest.raises(ValueError, match="MapDataset: the Python function '.*<lambda>' was marked not serializable"):
        ds.deserialize(input_dict=tree)

    def gen():
        yield (np.array(1),)

    g = ds.GeneratorDataset(gen, column_names=["x"])
    with pytest.raises(ValueError, match="GeneratorDataset: the Python function"):
        ds.deserialize(input_dict=ds.serialize(g))
    left, _ = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).split([2, 2], randomize=False)
    with pytest.raises(ValueError, match="part of a split"):
        ds.deserialize(input_dict=ds.serialize(left))


def test_only_spore_classes_are_rebuilt(tmp_path):
    tree = ds.serialize(ds.NumpySlicesDataset({"x": np.arange(2)}, shuffle=False))
    evil = dict(tree, op_module="os", op_type="system")
    with pytest.raises(ValueError, match="not one of Spore's dataset classes"):
        ds.deserialize(input_dict=evil)
    not_a_dataset = dict(tree, op_module="spore.dataset.vision", op_type="Resize")
    with pytest.raises(ValueError, match="Resize is not a dataset class"):
        ds.deserialize(input_dict=not_a_dataset)
    with pytest.raises(ValueError, match="not a pipeline written by spore.dataset.serialize"):
        ds.deserialize(input_dict={"op_type": "NumpySlicesDataset"})
    with pytest.raises(ValueError, match="give input_dict or json_filepath"):
        ds.deserialize()
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        ds.deserialize(json_filepath=str(tmp_path / "bad.json"))


def test_show_prints_the_json(capsys):
    d = ds.NumpySlicesDataset({"x": np.arange(2)}, shuffle=False).batch(2)
    ds.show(d, indentation=None)
    out = capsys.readouterr().out
    assert "\n" not in out.strip() and json.loads(out) == ds.serialize(d)
    ds.show(d)
    assert json.loads(capsys.readouterr().out)["params"]["batch_size"] == 2
    with pytest.raises(ValueError, match="indentation must be"):
        ds.show(d, indentation=-1)


def test_text_pipeline_with_a_vocab_round_trips():
    vocab = text.Vocab.from_list(["hello", "world", "<unk>"])
    d = ds.NumpySlicesDataset({"s": np.array(["hello world", "world x"])}, shuffle=False)
    d = d.map([text.WhitespaceTokenizer(), text.Lookup(vocab, unknown_token="<unk>")], input_columns="s")
    again = ds.deserialize(input_dict=json.loads(json.dumps(ds.serialize(d))))
    assert _rows(again) == _rows(d) == [[[0, 1]], [[1, 2]]]


class _WeakList(list):
    """A list that can be weakly referenced (plain lists cannot)."""


def test_recording_keeps_no_copy_of_sliced_data():
    import gc
    import weakref

    data = _WeakList([np.arange(3), np.arange(3) + 10])
    ref = weakref.ref(data)
    d = ds.NumpySlicesDataset(data, column_names=["x"], shuffle=False)
    del data
    gc.collect()
    assert ref() is None  # the converted columns are kept, not the argument
    again = ds.deserialize(input_dict=json.loads(json.dumps(ds.serialize(d))))
    assert _rows(again) == _rows(d) == [[[0, 1, 2]], [[10, 11, 12]]]
