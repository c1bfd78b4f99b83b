"""`Model` under DATA_PARALLEL on 2 real ranks: automatic dataset sharding with one shuffle order
for all ranks, equivalence with one process, rank-0-only checkpoints (and per-rank directories
when asked), eval metrics over the whole validation set on every rank."""

import json

import numpy as np
import pytest

import spore as ms

from .mpi import mpirun, ok, single


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("model")
    one, two = base / "one", base / "two"
    one.mkdir()
    two.mkdir()
    ok(single("model_train.py", "pynative", "16", str(one), "one-shard"))
    ok(mpirun(2, "model_train.py", "pynative", "8", str(two)))
    return one, two


def _result(d, rank):
    return json.loads((d / f"result_rank{rank}.json").read_text())


def test_shards_are_disjoint_cover_the_data_and_share_one_shuffle_per_epoch(runs):
    _, two = runs
    r0, r1 = _result(two, 0)["seen"], _result(two, 1)["seen"]
    for e in range(2):
        assert len(r0[e]) == len(r1[e]) == 32
        assert sorted(r0[e] + r1[e]) == list(range(64))
        interleaved = [i for pair in zip(r0[e], r1[e]) for i in pair]   # shard r takes every 2nd index from r
        assert len(set(interleaved)) == 64
    assert r0[0] != r0[1], "each epoch must reshuffle"


def test_model_train_on_two_ranks_equals_one_process_with_the_global_batch(runs):
    one, two = runs
    a, b = np.load(one / "params.npz"), np.load(two / "params.npz")
    for k in a:
        assert np.abs(a[k] - b[k]).max() <= 1e-5 * np.abs(a[k]).max(), k


def test_eval_metrics_are_those_of_the_whole_set_on_every_rank(runs):
    one, two = runs
    m1, m20, m21 = _result(one, 0)["metrics"], _result(two, 0)["metrics"], _result(two, 1)["metrics"]
    assert m20 == m21
    assert m20["accuracy"] == pytest.approx(m1["accuracy"], abs=1e-12)
    assert m20["loss"] == pytest.approx(m1["loss"], rel=1e-5)


def test_only_rank_zero_writes_checkpoints_unless_every_rank_is_asked_to(runs):
    one, two = runs
    names = sorted(p.name for p in (two / "ckpt").iterdir())
    assert names == sorted(p.name for p in (one / "ckpt").iterdir()) == \
        ["net-1_2.ckpt", "net-1_4.ckpt", "net-2_2.ckpt", "net-2_4.ckpt"]
    assert sorted(p.name for p in (two / "ckpt_all").iterdir()) == ["rank_0", "rank_1"]
    for r in (0, 1):
        assert sorted(p.name for p in (two / "ckpt_all" / f"rank_{r}").iterdir()) == ["net-1_4.ckpt", "net-2_4.ckpt"]
    saved = ms.load_checkpoint(str(two / "ckpt" / "net-2_4.ckpt"))
    final = np.load(two / "params.npz")
    assert np.array_equal(saved["fc1.weight"].asnumpy(), final["fc1.weight"])


def test_loss_monitor_prints_on_rank_zero_only(tmp_path):
    proc = ok(mpirun(2, "model_train.py", "graph", "8", str(tmp_path)))
    lines = [ln for ln in proc.stdout.splitlines() if "loss is" in ln]
    assert len(lines) == 8   # 2 epochs x 4 steps, from one rank
