"""Broken files on disk: every source's open/read/decode error is a DatasetError naming the file.

A corpus of damaged Parquet, MNIST idx and image files is generated here with fixed seeds (no
network): random bytes, empty files, cuts at many points, bit flips, corrupt pages, headers that
declare impossible sizes. Each case either loads (a flip inside raw values that no checksum covers
cannot be seen) or raises a `DatasetError` whose message names the file; nothing else may escape.
"""

from __future__ import annotations

import gzip
import random
import struct
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

import spore.dataset as ds

SEED = 15


def rows(d) -> list:
    return list(d.create_tuple_iterator(output_numpy=True))


def outcome(make, path: Path) -> str:
    """'ok' if the dataset builds and iterates, 'refused' for a DatasetError naming `path`; anything
    else fails the test with what escaped."""
    try:
        rows(make())
    except ds.DatasetError as e:
        assert str(path) in str(e), f"the error does not name {path}: {e}"
        return "refused"
    except Exception as e:  # the bug this corpus hunts for
        pytest.fail(f"{path.name}: {type(e).__name__} escaped: {e}")
    return "ok"


def flips(data: bytes, rng: random.Random, n: int, lo: int = 0) -> list[bytes]:
    out = []
    for _ in range(n):
        d = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            d[rng.randrange(lo, len(d))] ^= 1 << rng.randrange(8)
        out.append(bytes(d))
    return out


def cuts(data: bytes, n: int) -> list[bytes]:
    step = max(1, len(data) // n)
    return [data[:k] for k in range(0, len(data), step)]


# --- Parquet ---------------------------------------------------------------------------------------

TABLE = pa.table({"x": np.arange(300, dtype=np.int64), "y": np.arange(300) * 0.25,
                  "s": [f"row{i}" for i in range(300)]})


def parquet(tmp_path: Path, compression: str, checksums: bool = False) -> bytes:
    """TABLE as Parquet, 3 row groups; with checksums, plain-encoded so each column chunk is one page."""
    p = tmp_path / "good.parquet"
    pq.write_table(TABLE, p, row_group_size=100, compression=compression, write_page_checksum=checksums,
                   use_dictionary=not checksums)
    return p.read_bytes()


@pytest.mark.parametrize("compression", ["NONE", "snappy", "zstd"])
def test_a_corpus_of_broken_parquet_files_gives_dataset_errors_naming_the_file(tmp_path, compression):
    rng = random.Random(f"{SEED}-{compression}")
    good = parquet(tmp_path, compression)
    corpus = [b"", bytes(rng.randrange(256) for _ in range(4096)), b"PAR1" + bytes(64) + b"PAR1"]
    corpus += cuts(good, 40) + flips(good, rng, 60, lo=4)
    path = tmp_path / "bad.parquet"
    seen = {"ok": 0, "refused": 0}
    for data in corpus:
        path.write_bytes(data)
        seen[outcome(lambda: ds.ParquetDataset(str(path), shuffle=False), path)] += 1
    assert seen["refused"] >= 40 + 3  # every cut, the empty, random and empty-footer files at least
    assert seen["ok"] + seen["refused"] == len(corpus)


def test_random_bytes_and_a_truncated_parquet_file_say_which_file_and_why(tmp_path):
    path = tmp_path / "noise.parquet"
    path.write_bytes(np.random.default_rng(SEED).integers(0, 256, 2048, dtype=np.uint8).tobytes())
    with pytest.raises(ds.DatasetError, match=rf"{path} is not a readable Parquet file \((ArrowInvalid|OSError)"):
        ds.ParquetDataset(str(path))
    good = parquet(tmp_path, "snappy")
    path.write_bytes(good[:len(good) // 2])
    with pytest.raises(ds.DatasetError, match=rf"{path} is not a readable Parquet file") as info:
        ds.ParquetDataset(str(path))
    assert "cut short" in info.value.hint


def test_a_corrupt_page_is_named_by_file_and_row_group(tmp_path):
    good = parquet(tmp_path, "NONE", checksums=True)
    meta = pq.ParquetFile(pa.BufferReader(good)).metadata
    col = meta.row_group(1).column(1)  # column "y" of rows 100-199
    damaged = bytearray(good)
    assert not col.has_dictionary_page
    damaged[col.data_page_offset + col.total_compressed_size - 20] ^= 0x40  # inside the page's values
    path = tmp_path / "pages.parquet"
    path.write_bytes(bytes(damaged))
    with pytest.raises(ds.DatasetError, match=rf"cannot read the data of {path} in row group 1 \(rows 100-199\)"):
        ds.ParquetDataset(str(path))
    # Every flip inside any data page of a checksummed file is caught, wherever it lands.
    rng = random.Random(SEED)
    pages = [(meta.row_group(k).column(c).data_page_offset, meta.row_group(k).column(c).total_compressed_size)
             for k in range(meta.num_row_groups) for c in range(meta.num_columns)]
    for _ in range(30):
        start, size = rng.choice(pages)
        damaged = bytearray(good)
        damaged[start + rng.randrange(size // 2, size)] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(damaged))
        assert outcome(lambda: ds.ParquetDataset(str(path)), path) == "refused"


def test_a_missing_column_and_a_missing_file_are_named(tmp_path):
    parquet(tmp_path, "NONE")
    with pytest.raises(ds.DatasetError, match=r"good.parquet has no column\(s\) \['nope'\]"):
        ds.ParquetDataset(str(tmp_path / "good.parquet"), columns=["nope"])
    with pytest.raises(ds.DatasetError, match="no such file: .*gone.parquet"):
        ds.ParquetDataset(str(tmp_path / "gone.parquet"))


# --- MNIST idx -------------------------------------------------------------------------------------

def idx(magic: int, dims: list[int], data: bytes) -> bytes:
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + data


def mnist_dir(root: Path, images: bytes, labels: bytes, gz: bool = False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, data in (("t10k-images-idx3-ubyte", images), ("t10k-labels-idx1-ubyte", labels)):
        for old in root.glob(name + "*"):
            old.unlink()
        if gz:
            (root / f"{name}.gz").write_bytes(gzip.compress(data, mtime=0))
        else:
            (root / name).write_bytes(data)
    return root


GOOD_IMAGES = idx(2051, [6, 28, 28], np.random.default_rng(SEED).integers(0, 256, 6 * 784, dtype=np.uint8).tobytes())
GOOD_LABELS = idx(2049, [6], bytes(range(6)))


@pytest.mark.parametrize("gz", [False, True])
def test_an_idx_header_with_huge_dims_is_refused_before_any_allocation(tmp_path, gz):
    # 2**31 x 2**31 x 4 bytes is 2**64: an int64 product wraps to 0, which would "match" no data.
    root = mnist_dir(tmp_path / "m", idx(2051, [2**31, 2**31, 4], b""), GOOD_LABELS, gz)
    image_file = next(root.glob("t10k-images*"))
    pattern = ("more than the .*-byte limit for a compressed idx file" if gz
               else r"holds 0 data bytes, its header \(dims \[2147483648, 2147483648, 4\]\) says 18446744073709551616")
    with pytest.raises(ds.DatasetError, match=pattern) as info:
        ds.MnistDataset(str(root), usage="test")
    assert str(image_file) in str(info.value)


def test_idx_files_cut_short_or_with_extra_bytes_name_the_file(tmp_path):
    root = mnist_dir(tmp_path / "m", GOOD_IMAGES[:10], GOOD_LABELS)
    with pytest.raises(ds.DatasetError, match=r"t10k-images-idx3-ubyte ends after 6 of the 12 bytes of its header"):
        ds.MnistDataset(str(root), usage="test")
    mnist_dir(root, GOOD_IMAGES, GOOD_LABELS[:-1], gz=True)
    with pytest.raises(ds.DatasetError, match=r"t10k-labels-idx1-ubyte.gz ends after 5 of the 6 bytes of its data"):
        ds.MnistDataset(str(root), usage="test")
    mnist_dir(root, GOOD_IMAGES, GOOD_LABELS + b"\0", gz=True)
    with pytest.raises(ds.DatasetError, match=r"labels-idx1-ubyte.gz has bytes after the 6 its header"):
        ds.MnistDataset(str(root), usage="test")
    mnist_dir(root, GOOD_IMAGES, GOOD_LABELS)
    assert [r[1].item() for r in rows(ds.MnistDataset(str(root), usage="test", shuffle=False))] == list(range(6))


@pytest.mark.parametrize("gz", [False, True])
def test_a_corpus_of_broken_idx_files_gives_dataset_errors_naming_the_file(tmp_path, gz):
    rng = random.Random(f"{SEED}-{gz}")
    cases = [(b"", GOOD_LABELS), (GOOD_IMAGES, b"")]
    cases += [(c, GOOD_LABELS) for c in cuts(GOOD_IMAGES, 30)] + [(GOOD_IMAGES, c) for c in cuts(GOOD_LABELS, 14)]
    cases += [(f, GOOD_LABELS) for f in flips(GOOD_IMAGES[:16], rng, 30)]  # flips in the image header
    cases += [(GOOD_IMAGES, f) for f in flips(GOOD_LABELS, rng, 20)]
    root = tmp_path / "m"
    seen = {"ok": 0, "refused": 0}
    for images, labels in cases:
        if len(images) == 16:  # a header-only file from flips(...[:16]): give it its data back
            images += GOOD_IMAGES[16:]
        mnist_dir(root, images, labels, gz)
        bad = root / ("t10k-images-idx3-ubyte" if images != GOOD_IMAGES else "t10k-labels-idx1-ubyte")
        bad = bad.with_name(bad.name + ".gz") if gz else bad
        try:
            got = rows(ds.MnistDataset(str(root), usage="test", shuffle=False))
        except ds.DatasetError as e:
            assert str(bad) in str(e) or "images but" in str(e), e
            seen["refused"] += 1
            continue
        except Exception as e:
            pytest.fail(f"{type(e).__name__} escaped: {e}")
        assert len(got) == 6 and all(r[0].shape == (28, 28, 1) for r in got)
        seen["ok"] += 1
    assert seen["refused"] >= 44  # every cut and every empty file at least
    if gz:  # a damaged gzip stream is refused too: flip bytes of the compressed file itself
        mnist_dir(root, GOOD_IMAGES, GOOD_LABELS, gz=True)
        path = root / "t10k-images-idx3-ubyte.gz"
        compressed = path.read_bytes()
        for data in flips(compressed, rng, 40, lo=10) + cuts(compressed, 20)[1:]:
            path.write_bytes(data)
            assert outcome(lambda: ds.MnistDataset(str(root), usage="test"), path) in ("ok", "refused")


# --- images ----------------------------------------------------------------------------------------

def png(width: int, height: int) -> bytes:
    arr = np.random.default_rng(SEED).integers(0, 256, (height, width, 3), dtype=np.uint8)
    from io import BytesIO

    buf = BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def huge_png() -> bytes:
    """A valid PNG header declaring 100000 x 100000 pixels: decoding it would need 30 GB."""
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    idat = chunk(b"IDAT", zlib.compress(b"\0" * 100))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + idat + chunk(b"IEND", b"")


BROKEN_IMAGES = {
    "empty.png": b"",
    "noise.jpg": np.random.default_rng(SEED).integers(0, 256, 3000, dtype=np.uint8).tobytes(),
    "text.png": b"this is not an image\n",
    "cut.png": png(16, 16)[:80],
    "huge.png": huge_png(),
}


@pytest.mark.parametrize("name", list(BROKEN_IMAGES))
def test_an_image_that_cannot_be_decoded_names_the_file_and_the_row(tmp_path, name):
    cls = tmp_path / "imgs" / "cat"
    cls.mkdir(parents=True)
    (cls / "a_good.png").write_bytes(png(8, 8))
    (cls / f"b_{name}").write_bytes(BROKEN_IMAGES[name])
    d = ds.ImageFolderDataset(str(tmp_path / "imgs"), decode=True, shuffle=False)
    with pytest.raises(ds.DatasetError) as info:
        rows(d)
    text = str(info.value)
    assert f"cannot decode {cls / f'b_{name}'} (row 1, {len(BROKEN_IMAGES[name])} bytes)" in text, text
    assert text.count("ImageFolderDataset:") == 1, text
    # Without decode the bytes come out as they are: nothing to refuse.
    assert len(rows(ds.ImageFolderDataset(str(tmp_path / "imgs"), shuffle=False))) == 2


def test_a_corpus_of_damaged_pngs_either_decodes_or_names_the_file(tmp_path):
    rng = random.Random(SEED)
    good = png(12, 10)
    cls = tmp_path / "imgs" / "dog"
    cls.mkdir(parents=True)
    path = cls / "x.png"
    refused = 0
    for data in cuts(good, 25)[1:] + flips(good, rng, 50, lo=8):
        path.write_bytes(data)
        result = outcome(lambda: ds.ImageFolderDataset(str(tmp_path / "imgs"), decode=True), path)
        refused += result == "refused"
    assert refused >= 24  # every cut at least


def test_a_huge_sparse_image_file_is_refused_by_its_size_before_reading(tmp_path):
    cls = tmp_path / "imgs" / "cat"
    cls.mkdir(parents=True)
    with open(cls / "huge.png", "wb") as f:
        f.truncate(32 * 1024**3)  # sparse: no disk space, but f.read() would want 32 GiB
    with pytest.raises(ds.DatasetError, match=rf"cannot read {cls / 'huge.png'} \(row 0\): it is 34359738368 bytes"):
        rows(ds.ImageFolderDataset(str(tmp_path / "imgs")))


def test_an_image_deleted_after_listing_is_named_when_read(tmp_path):
    cls = tmp_path / "imgs" / "cat"
    cls.mkdir(parents=True)
    (cls / "a.png").write_bytes(png(4, 4))
    (cls / "b.png").write_bytes(png(4, 4))
    d = ds.ImageFolderDataset(str(tmp_path / "imgs"), shuffle=False, num_parallel_workers=2)
    (cls / "b.png").unlink()
    with pytest.raises(ds.DatasetError, match=rf"ImageFolderDataset: cannot read {cls / 'b.png'} \(row 1\)"):
        rows(d)


def test_an_empty_or_cut_cifar_batch_names_the_file(tmp_path):
    (tmp_path / "test_batch.bin").write_bytes(b"")
    with pytest.raises(ds.DatasetError, match=r"test_batch.bin is 0 bytes, not a whole number of 3073-byte"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
    (tmp_path / "test_batch.bin").write_bytes(bytes(3073 * 2 - 5))
    with pytest.raises(ds.DatasetError, match=r"test_batch.bin is 6141 bytes"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
    (tmp_path / "test_batch.bin").write_bytes(bytes([3]) + bytes(3072))
    (image, label), = rows(ds.Cifar10Dataset(str(tmp_path), usage="test"))
    assert image.shape == (32, 32, 3) and label == 3
