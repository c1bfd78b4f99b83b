"""Parallel map and parallel reads: same rows, same order, same random draws as serial."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import spore.dataset as ds

from .helpers import SquaresSource, crop_flip_pipeline, square_plus_one, with_pid


def values(d, i=0):
    return [r[i] for r in d.create_tuple_iterator(output_numpy=True)]


def images(n=16):
    """n copies of one random image: any difference between outputs comes from random transforms."""
    one = np.random.default_rng(5).integers(0, 256, (8, 8, 3), dtype=np.uint8)
    return ds.NumpySlicesDataset({"image": np.stack([one] * n), "label": np.arange(n)}, shuffle=False)


def test_thread_map_equals_serial_map_in_order():
    data = ds.NumpySlicesDataset({"x": np.linspace(0, 5, 64)}, shuffle=False)
    serial = values(data.map(square_plus_one))
    threaded = values(data.map(square_plus_one, num_parallel_workers=2))
    np.testing.assert_array_equal(threaded, serial)
    np.testing.assert_allclose(serial, np.linspace(0, 5, 64) ** 2 + 1)


def test_thread_map_keeps_input_order_when_later_samples_finish_first():
    def uneven(x):  # early samples do far more work than late ones
        m = np.eye(20) * 1.0001
        for _ in range(int(200 - 6 * x)):
            m = m @ m / np.linalg.norm(m)
        return x

    data = ds.NumpySlicesDataset({"x": np.arange(32)}, shuffle=False)
    assert [int(v) for v in values(data.map(uneven, num_parallel_workers=2))] == list(range(32))


def test_thread_workers_really_run_samples_concurrently():
    barrier = threading.Barrier(2, timeout=20)  # two samples must be inside the op at the same time
    threads = set()

    def meet(x):
        threads.add(threading.get_ident())
        if int(x) < 2:
            barrier.wait()
        return x

    data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False)
    assert [int(v) for v in values(data.map(meet, num_parallel_workers=2))] == list(range(6))
    assert len(threads) == 2 and threading.get_ident() not in threads


def test_random_transforms_give_identical_images_serial_threads_and_processes():
    serial = images().map(crop_flip_pipeline(), input_columns="image")
    threads = images().map(crop_flip_pipeline(), input_columns="image", num_parallel_workers=2)
    procs = images().map(crop_flip_pipeline() + [with_pid], input_columns="image", output_columns=["image", "pid"],
                         num_parallel_workers=2, python_multiprocessing=True)
    a, b = values(serial), values(threads)
    rows = list(procs.create_tuple_iterator(output_numpy=True))
    c, pids = [r[0] for r in rows], {int(r[1]) for r in rows}
    assert a[0].shape == (3, 6, 6)
    assert all(np.array_equal(x, y) and np.array_equal(x, z) for x, y, z in zip(a, b, c, strict=True))
    assert os.getpid() not in pids
    assert len({x.tobytes() for x in a}) > 4  # same input image, different draws per sample


def test_unpicklable_operation_is_refused_before_starting_processes():
    with pytest.raises(ds.DatasetMapError, match="must\\s+pickle") as info:
        images().map(lambda im: im, input_columns="image", num_parallel_workers=2, python_multiprocessing=True)
    assert "module level" in info.value.hint and info.value.loc.file == __file__


@pytest.mark.parametrize("processes", [False, True])
def test_generator_dataset_parallel_reads_match_serial(processes):
    serial = list(ds.GeneratorDataset(SquaresSource(40), ["i", "sq"], shuffle=False)
                  .create_tuple_iterator(output_numpy=True))
    parallel = ds.GeneratorDataset(SquaresSource(40), ["i", "sq"], shuffle=False, num_parallel_workers=2,
                                   python_multiprocessing=processes)
    got = list(parallel.create_tuple_iterator(output_numpy=True))
    assert [(int(a), int(b)) for a, b in got] == [(int(a), int(b)) for a, b in serial]


def test_unpicklable_generator_source_is_refused_for_processes():
    class Local:  # a local class cannot be found by name in a worker process
        def __getitem__(self, i):
            return (i,)

        def __len__(self):
            return 3

    d = ds.GeneratorDataset(Local(), ["i"], num_parallel_workers=2)  # <- built here
    with pytest.raises(ds.DatasetError, match="must pickle") as info:
        list(d)
    assert info.value.loc.file == __file__ and "<- built here" in info.value.loc.text


def test_parallel_map_pool_is_reused_across_epochs():
    d = ds.NumpySlicesDataset({"x": np.arange(10)}, shuffle=False).map(square_plus_one, num_parallel_workers=2)
    first = values(d)
    pool = d._pool
    second = values(d)
    assert d._pool is pool and [int(v) for v in first] == [int(v) for v in second] == [x * x + 1 for x in range(10)]
