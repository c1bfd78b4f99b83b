"""Sources: what each one reads, in which order, with which columns, shapes and dtypes."""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

import spore
import spore.dataset as ds

from .helpers import SquaresSource, write_cifar_bin, write_mnist


def rows(dataset, **kw):
    return list(dataset.create_tuple_iterator(output_numpy=True, **kw))


# --- GeneratorDataset ------------------------------------------------------------------------
def test_generator_function_is_called_again_each_epoch():
    calls = []

    def gen():
        calls.append(1)
        for i in range(4):
            yield np.full((2,), i, np.float32), i

    d = ds.GeneratorDataset(gen, column_names=["x", "y"])
    for _ in range(2):
        got = rows(d)
        assert [int(r[1]) for r in got] == [0, 1, 2, 3]
        np.testing.assert_array_equal(got[2][0], [2.0, 2.0])
    assert len(calls) == 2


def test_generator_random_access_source_shuffles_by_default_and_keeps_every_row():
    d = ds.GeneratorDataset(SquaresSource(20), column_names=["i", "sq"])
    got = rows(d)
    idx = [int(r[0]) for r in got]
    assert sorted(idx) == list(range(20)) and idx != list(range(20))
    assert all(int(r[1]) == int(r[0]) ** 2 for r in got)


def test_generator_iterable_source_and_num_samples():
    d = ds.GeneratorDataset([(1, 2.5), (3, 4.5), (5, 6.5)], column_names=["a", "b"], shuffle=False, num_samples=2)
    got = rows(d)
    assert [(int(a), float(b)) for a, b in got] == [(1, 2.5), (3, 4.5)]
    assert d.get_dataset_size() == 2


def test_generator_one_shot_iterator_is_refused_on_second_epoch():
    d = ds.GeneratorDataset(iter([(1,), (2,)]), column_names=["a"])
    assert [int(r[0]) for r in rows(d)] == [1, 2]
    with pytest.raises(ds.DatasetError, match="already consumed"):
        rows(d)


def test_generator_column_types_cast_each_column():
    d = ds.GeneratorDataset(SquaresSource(3), column_names=["i", "sq"], column_types=[spore.float32, np.int16],
                            shuffle=False)
    assert d.output_types() == [np.dtype(np.float32), np.dtype(np.int16)]


def test_generator_needs_column_names_and_row_width_must_match():
    with pytest.raises(ds.DatasetError, match="column_names"):
        ds.GeneratorDataset(SquaresSource(3))
    d = ds.GeneratorDataset(SquaresSource(3), column_names=["only"], shuffle=False)
    with pytest.raises(ds.DatasetError, match="2 value"):
        rows(d)


def test_generator_shuffle_needs_a_random_accessible_source():
    def gen():
        yield (1,)

    with pytest.raises(ds.DatasetError, match="random-accessible"):
        ds.GeneratorDataset(gen, column_names=["a"], shuffle=True)


def test_generator_batch_sampler_with_collate_fn():
    d = ds.GeneratorDataset(SquaresSource(6), column_names=["i", "sq"], batch_sampler=[[0, 1], [4, 5]],
                            collate_fn=lambda i, sq: (np.sum(i), np.stack(sq)))
    got = rows(d)
    assert [int(r[0]) for r in got] == [1, 9]
    np.testing.assert_array_equal(got[1][1], [16, 25])


# --- NumPy 2 scalar labels ---------------------------------------------------------------------
@pytest.mark.parametrize("label", [3, 3.5, np.int32(3), np.float64(3.5), True])
def test_scalar_labels_work_in_generator_dataset_under_numpy2(label):
    def gen():
        for _ in range(3):
            yield np.zeros((2, 2), np.float32), label

    d = ds.GeneratorDataset(gen, column_names=["image", "label"]).batch(3)
    (image, lab), = rows(d)
    assert image.shape == (3, 2, 2)
    assert lab.shape == (3,) and lab.tolist() == [label] * 3
    assert lab.dtype == np.asarray(label).dtype


def test_scalar_labels_work_in_numpy_slices_dataset_under_numpy2():
    images = np.zeros((4, 2, 2), np.uint8)
    d = ds.NumpySlicesDataset((images, [0, 1, 2, 3]), column_names=["image", "label"], shuffle=False)
    labels = [r[1] for r in d.create_tuple_iterator()]
    assert all(isinstance(t, spore.Tensor) and t.shape == () for t in labels)
    assert [int(t.asnumpy()) for t in labels] == [0, 1, 2, 3]


# --- NumpySlicesDataset --------------------------------------------------------------------------
def test_numpy_slices_list_tuple_and_dict_forms():
    one = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    assert one.get_col_names() == ["column_0"]
    np.testing.assert_array_equal(rows(one)[1][0], [3, 4])
    two = ds.NumpySlicesDataset(([1, 2, 3], [4.0, 5.0, 6.0]), column_names=["a", "b"], shuffle=False)
    assert [(int(a), float(b)) for a, b in rows(two)] == [(1, 4.0), (2, 5.0), (3, 6.0)]
    dct = ds.NumpySlicesDataset({"x": np.arange(3), "y": np.arange(3) * 10}, shuffle=False)
    assert dct.get_col_names() == ["x", "y"] and [int(r[1]) for r in rows(dct)] == [0, 10, 20]


def test_numpy_slices_rejects_columns_of_different_lengths():
    with pytest.raises(ds.DatasetError, match="a: 3, b: 2"):
        ds.NumpySlicesDataset({"a": [1, 2, 3], "b": [1, 2]})


def test_numpy_slices_from_pandas_dataframe_keeps_names_and_dtypes():
    df = pd.DataFrame({"height": [1.5, 1.7, 1.9], "age": [30, 40, 50], "name": ["ann", "bob", "cy"]})
    d = ds.NumpySlicesDataset(df, shuffle=False)
    assert d.get_col_names() == ["height", "age", "name"]
    got = rows(d)
    assert [float(r[0]) for r in got] == [1.5, 1.7, 1.9]
    assert got[1][1].dtype == np.int64 and int(got[1][1]) == 40
    assert str(got[2][2]) == "cy"


# --- Parquet -----------------------------------------------------------------------------------
def test_parquet_dataset_reads_files_columns_lists_and_binary(tmp_path):
    t1 = pa.table({"x": [1.0, 2.0], "tags": [[1, 2], [3]], "blob": [b"ab", b"c"], "s": ["p", "q"]})
    t2 = pa.table({"x": [3.0], "tags": [[4, 5, 6]], "blob": [b"def"], "s": ["r"]})
    pq.write_table(t1, tmp_path / "a.parquet")
    pq.write_table(t2, tmp_path / "b.parquet")
    d = ds.ParquetDataset(str(tmp_path / "*.parquet"), shuffle=False)
    assert d.get_col_names() == ["x", "tags", "blob", "s"] and d.get_dataset_size() == 3
    got = rows(d)
    assert [float(r[0]) for r in got] == [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(got[2][1], [4, 5, 6])
    assert got[2][2].dtype == np.uint8 and got[2][2].tobytes() == b"def"
    assert str(got[1][3]) == "q"
    only = ds.ParquetDataset([str(tmp_path / "a.parquet")], columns=["s"], shuffle=False)
    assert only.get_col_names() == ["s"]


def test_parquet_dataset_equals_the_pandas_route(tmp_path):
    df = pd.DataFrame({"a": np.arange(5, dtype=np.int32), "b": np.linspace(0, 1, 5)})
    df.to_parquet(tmp_path / "t.parquet")
    via_parquet = rows(ds.ParquetDataset(str(tmp_path / "t.parquet"), shuffle=False))
    via_pandas = rows(ds.NumpySlicesDataset(pd.read_parquet(tmp_path / "t.parquet"), shuffle=False))
    for p, q in zip(via_parquet, via_pandas, strict=True):
        assert [v.item() for v in p] == [v.item() for v in q]


def test_parquet_dataset_refuses_nulls_in_integer_columns(tmp_path):
    pq.write_table(pa.table({"a": pa.array([1, None], type=pa.int64())}), tmp_path / "n.parquet")
    with pytest.raises(ds.DatasetError, match="'a'.*null"):
        ds.ParquetDataset(str(tmp_path / "n.parquet"))


# --- ImageFolderDataset ------------------------------------------------------------------------
def _png(color) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(buf, format="PNG")
    return buf.getvalue()


def test_image_folder_labels_sorted_folders_and_reads_bytes(tmp_path):
    for cls, colors in {"dog": [(255, 0, 0), (0, 255, 0)], "cat": [(0, 0, 255)]}.items():
        (tmp_path / cls).mkdir()
        for i, c in enumerate(colors):
            (tmp_path / cls / f"{i}.png").write_bytes(_png(c))
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"])
    assert d.get_class_indexing() == {"cat": 0, "dog": 1}
    got = rows(d)
    assert [int(r[1]) for r in got] == [0, 1, 1] and got[0][1].dtype == np.int32
    assert got[0][0].dtype == np.uint8 and got[0][0].tobytes() == _png((0, 0, 255))
    decoded = rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".PNG"], decode=True))
    assert decoded[1][0].shape == (3, 4, 3)
    np.testing.assert_array_equal(decoded[1][0][0, 0], [255, 0, 0])
    assert ds.ImageFolderDataset(str(tmp_path)).get_dataset_size() == 4  # no extensions: every file


def test_image_folder_class_indexing_selects_and_numbers_folders(tmp_path):
    for cls in ("a", "b", "c"):
        (tmp_path / cls).mkdir()
        (tmp_path / cls / "x.png").write_bytes(_png((1, 2, 3)))
    d = ds.ImageFolderDataset(str(tmp_path), class_indexing={"c": 7, "a": 3}, shuffle=False)
    assert [int(r[1]) for r in rows(d)] == [3, 7]


# --- MnistDataset ------------------------------------------------------------------------------
@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_idx_files(tmp_path, gz):
    tr_img, tr_lab, te_img, te_lab = write_mnist(str(tmp_path), 5, 3, gz=gz)
    train = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    got = rows(train)
    assert len(got) == 5 and train.get_col_names() == ["image", "label"]
    assert got[4][0].shape == (28, 28, 1) and got[4][0].dtype == np.uint8
    np.testing.assert_array_equal(got[4][0][..., 0], tr_img[4])
    assert got[4][1].dtype == np.uint32 and int(got[4][1]) == tr_lab[4]
    both = rows(ds.MnistDataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in both] == list(tr_lab) + list(te_lab)
    np.testing.assert_array_equal(both[5][0][..., 0], te_img[0])


def test_mnist_rejects_a_file_with_the_wrong_magic(tmp_path):
    write_mnist(str(tmp_path), 2, 2)
    os.replace(tmp_path / "train-labels-idx1-ubyte", tmp_path / "keep")
    os.replace(tmp_path / "train-images-idx3-ubyte", tmp_path / "train-labels-idx1-ubyte")
    os.replace(tmp_path / "keep", tmp_path / "train-images-idx3-ubyte")
    with pytest.raises(ds.DatasetError, match="magic number 2049, expected 2051"):
        ds.MnistDataset(str(tmp_path), usage="train")


# --- Cifar10Dataset ----------------------------------------------------------------------------
def test_cifar10_reads_binary_records_as_hwc(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.integers(0, 256, (6, 3, 32, 32), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5, 9])
    write_cifar_bin(str(tmp_path / "data_batch_1.bin"), chw[:4], labels[:4])
    write_cifar_bin(str(tmp_path / "test_batch.bin"), chw[4:], labels[4:])
    train = rows(ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False))
    assert len(train) == 4
    img, lab = train[2]
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8 and lab.dtype == np.uint32 and int(lab) == 4
    assert img[5, 7, 1] == chw[2, 1, 5, 7]  # pixel (row 5, col 7) of the green plane
    everything = rows(ds.Cifar10Dataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in everything] == labels.tolist()
    np.testing.assert_array_equal(everything[5][0], chw[5].transpose(1, 2, 0))


def test_cifar10_python_version_is_refused_without_unpickling(tmp_path):
    # a file that would run code if unpickled: reading it must not happen at all
    (tmp_path / "data_batch_1").write_bytes(b"cos\nsystem\n(S'echo pwned'\ntR.")
    (tmp_path / "batches.meta").write_bytes(b"not read")
    with pytest.raises(ds.DatasetError, match="python\\* version") as info:
        ds.Cifar10Dataset(str(tmp_path), usage="train")
    assert "data_batch_1.bin" in info.value.hint


def test_cifar10_rejects_a_truncated_file(tmp_path):
    (tmp_path / "test_batch.bin").write_bytes(b"\x00" * 3000)
    with pytest.raises(ds.DatasetError, match="3073-byte records"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
