"""Differential cases for the misc slice of issue 14 (ops/misc_ops.py, spore/tensor_internals.py,
ops/candidate_sampling.py, ops/summary_ops.py, ops/train_misc_ops.py): each runs in PyNative and
in Graph mode and must agree, or Graph mode must refuse at the user's line (host-side reads,
value-dependent shapes, random draws on the host)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

from .cases_ops import EXEMPT_CLASSES, K, _classes, _functions
from .cases_tensor_nn import EXEMPT_METHODS, C, G, fl, it

EXEMPT_METHODS.update({
    "from_dlpack": "a static constructor from a DLPack capsule (shares its memory); no tensor input to trace",
    "convert_bytes_to_tensor": "a static constructor from a bytes object; no tensor input to trace",
})

EXEMPT_CLASSES.update({
    "DataType": "a namespace of (dtype, format) string pairs for custom-op registration, not an op",
    "Tensor": "the Tensor class itself (MindSpore's ops namespace re-exports it); its methods have their own cases",
})

_COO_IDX = G(lambda r: np.array([[0, 1, 0, 2], [1, 0, 1, 2]], np.int64))
_COO_SHAPE = G(lambda r: np.array([3, 3], np.int64))
_BOOLS = G(lambda r: np.eye(3, 4, dtype=bool))


@_functions
def _misc_functions() -> list:
    return [C("ops.choice_with_mask[0]", ops.choice_with_mask, _BOOLS, 4, 3, seeded=True),
            C("ops.coalesce[0]", ops.coalesce, _COO_IDX, fl(4), _COO_SHAPE),
            C("ops.make_row_tensor[0]", row_tensor_dense, G(lambda r: np.array([0, 2], np.int32)), fl(2, 3))]


def row_tensor_dense(indices, values):
    rt = ops.make_row_tensor(indices, values, (4, 3))
    return rt.indices, rt.values, rt.dense_shape


def non_deterministic_zeros(shape):
    out = ops.NonDeterministicInts()(shape)
    return out.shape, out.dtype  # the values are meant to differ on every call


@_classes
def _misc_classes() -> list:
    mask = G(lambda r: np.packbits(r.random(128) < 0.5, bitorder="little"))
    return [K("DType[0]", ops.DType(), fl(2, 3)),
            K("DtypeToEnum[0]", ops.DtypeToEnum(), "Cast", "dtype", ms.float32),
            K("TensorToTuple[0]", ops.TensorToTuple(), it(0, 9, 4)),
            K("FloatStatus[0]", ops.FloatStatus(), fl(2, 3)),
            K("CompareAndBitpack[0]", ops.CompareAndBitpack(), fl(2, 16), 0.25),
            K("CopyWithSlice[0]", ops.CopyWithSlice(), fl(2, 3), fl(3)),
            K("SelectView[0]", ops.SelectView(), fl(2, 3, 4), 1, -1),
            K("TransposeView[0]", ops.TransposeView(), fl(2, 3, 4), (2, 0, 1)),
            K("TransposeExtView[0]", ops.TransposeExtView(), fl(2, 3, 4), 0, 2),
            K("DropoutGenMask[0]", ops.DropoutGenMask(), (4, 5), fl(lo=0.4, hi=0.6), seeded=True),
            K("DropoutDoMask[0]", ops.DropoutDoMask(), fl(4, 5), mask, 0.5),
            C("ops.NonDeterministicInts[0]", non_deterministic_zeros, it(2, 3, 2)),
            K("ParameterizedTruncatedNormal[0]", ops.ParameterizedTruncatedNormal(),
              G(lambda r: np.array([2, 3], np.int64)), fl(2), fl(2, lo=0.5, hi=1.0), fl(2, lo=-3.0, hi=-2.0),
              fl(2, lo=2.0, hi=3.0), seeded=True),
            K("Coalesce[0]", ops.Coalesce(), _COO_IDX, fl(4), _COO_SHAPE)]


def data_ptr_offset(x):
    return x.data_ptr() - x.untyped_storage().data_ptr()  # an address differs from run to run; this does not


def untyped_storage_bytes(x):
    return x.untyped_storage().nbytes()


def storage_size(x):
    return x.storage().size()


def index_two(x, i, j):
    return x.index([i, j])


def index_one(x, i):
    return x.index([i])


def api_misc_tensor_cases() -> list:
    """The Tensor internals, three cases each (cases_tensor_nn adds them)."""
    T = ms.Tensor
    i32 = G(lambda r: np.array([2, 0], np.int32))
    i32b = G(lambda r: np.array([1, 3], np.int32))
    ints = it(0, 9, 2, 3)
    f64 = fl(3, dt=np.float64)
    out = []
    for tag, x in (("f32", fl(2, 3)), ("int", ints), ("f64", f64)):
        out += [C(f"Tensor.data_ptr[{tag}]", data_ptr_offset, x),
                C(f"Tensor.untyped_storage[{tag}]", untyped_storage_bytes, x),
                C(f"Tensor.storage[{tag}]", storage_size, x),
                C(f"Tensor.get_bytes[{tag}]", T.get_bytes, x),
                C(f"Tensor.is_init[{tag}]", T.is_init, x),
                C(f"Tensor.data_sync[{tag}]", T.data_sync, x),
                C(f"Tensor.wait_pipeline[{tag}]", T.wait_pipeline, x),
                C(f"Tensor.flush_from_cache[{tag}]", T.flush_from_cache, x),
                C(f"Tensor.delete_[{tag}]", T.delete_, x)]
    out += [C("Tensor.set_[tensor]", T.set_, fl(2), fl(3, 2)),
            C("Tensor.set_[int]", T.set_, it(0, 5, 4), it(0, 5, 2, 2)),
            C("Tensor.set_[none]", T.set_, fl(3)),
            C("Tensor.set_init_flag[true]", T.set_init_flag, fl(2), True),
            C("Tensor.set_init_flag[false]", T.set_init_flag, fl(2), False),
            C("Tensor.set_init_flag[int tensor]", T.set_init_flag, ints, True),
            C("Tensor.set_param_info[str]", T.set_param_info, fl(2), "info"),
            C("Tensor.set_param_info[none]", T.set_param_info, fl(2), None),
            C("Tensor.set_param_info[dict]", T.set_param_info, ints, {"name": "w"}),
            C("Tensor.set_cast_dtype[f16]", T.set_cast_dtype, fl(2), ms.float16),
            C("Tensor.set_cast_dtype[none]", T.set_cast_dtype, fl(2)),
            C("Tensor.set_cast_dtype[bf16]", T.set_cast_dtype, fl(2, 2), ms.bfloat16),
            C("Tensor.index[two]", index_two, fl(3, 4), i32, i32b),
            C("Tensor.index[leading]", index_one, fl(3, 4), i32),
            C("Tensor.index[3-d]", index_two, fl(3, 4, 2), i32, i32b),
            C("Tensor.getitem_index_info[int slice]", T.getitem_index_info, fl(2, 3), (1, slice(0, 2))),
            C("Tensor.getitem_index_info[ellipsis]", T.getitem_index_info, fl(2, 3, 4), (Ellipsis, -1)),
            C("Tensor.getitem_index_info[none]", T.getitem_index_info, fl(2, 3), (None, 0)),
            C("Tensor.setitem_index_info[row]", T.setitem_index_info, fl(2, 3), 0, fl(3)),
            C("Tensor.setitem_index_info[scalar]", T.setitem_index_info, fl(2, 3), (1, 2), 1.0),
            C("Tensor.setitem_index_info[slice]", T.setitem_index_info, fl(4, 3), slice(1, 3), fl(2, 3)),
            C("Tensor.assign_value_cpp[same]", T.assign_value_cpp, fl(2, 3), fl(2, 3)),
            C("Tensor.assign_value_cpp[reshaped]", T.assign_value_cpp, fl(2, 3), fl(3, 2)),
            C("Tensor.assign_value_cpp[int]", T.assign_value_cpp, ints, ints)]
    return out


_TRUE = G(lambda r: np.array([[1], [3]], np.int64))


@_functions
def _sampler_functions() -> list:
    return [C("ops.uniform_candidate_sampler[0]", ops.uniform_candidate_sampler, _TRUE, 1, 3, True, 6, seeded=True),
            C("ops.log_uniform_candidate_sampler[0]", ops.log_uniform_candidate_sampler, _TRUE, 1, 3, False, 6,
              seeded=True)]


@_classes
def _sampler_classes() -> list:
    sampled = G(lambda r: np.array([3, 1, 2, 0], np.int64))
    return [K("UniformCandidateSampler[avoid]", ops.UniformCandidateSampler(1, 3, True, 8, 0, True), _TRUE,
              seeded=True),
            K("LogUniformCandidateSampler[0]", ops.LogUniformCandidateSampler(1, 4, True, 8), _TRUE, seeded=True),
            K("ComputeAccidentalHits[0]", ops.ComputeAccidentalHits(2),
              G(lambda r: np.array([[1, 2], [0, 3]], np.int64)), sampled)]


def api_misc_cell_cases() -> list:
    """nn.SampledSoftmaxLoss / nn.MultiFieldEmbeddingLookup (cases_tensor_nn adds them)."""
    fixed = (ms.Tensor(np.array([4, 6, 7], np.int64)), ms.Tensor(np.full((3, 1), 0.3, np.float32)),
             ms.Tensor(np.array([0.2, 0.5, 0.25], np.float32)))
    two_true = (fixed[0], ms.Tensor(np.full((3, 2), 0.4, np.float32)), fixed[2])
    labels = G(lambda r: np.array([0, 5, 8], np.int32))
    ids = G(lambda r: r.integers(0, 10, (2, 5)).astype(np.int32))
    fields = G(lambda r: r.integers(0, 3, (2, 5)).astype(np.int32))
    return [C("nn.SampledSoftmaxLoss[fixed]", nn.SampledSoftmaxLoss(3, 9, sampled_values=fixed), fl(9, 4), fl(9),
              labels, fl(3, 4)),
            C("nn.SampledSoftmaxLoss[sampler]", nn.SampledSoftmaxLoss(3, 9, reduction="mean"), fl(9, 4), fl(9),
              labels, fl(3, 4), seeded=True),
            C("nn.SampledSoftmaxLoss[num_true 2]", nn.SampledSoftmaxLoss(3, 9, num_true=2, reduction="sum",
                                                                         sampled_values=two_true),
              fl(9, 4), fl(9), G(lambda r: np.array([[0, 1], [5, 2], [8, 3]], np.int32)), fl(3, 4)),
            C("nn.MultiFieldEmbeddingLookup[sum]", nn.MultiFieldEmbeddingLookup(10, 3, 3), ids, fl(2, 5), fields),
            C("nn.MultiFieldEmbeddingLookup[mean]", nn.MultiFieldEmbeddingLookup(10, 3, 3, operator="MEAN"), ids,
              fl(2, 5), fields),
            C("nn.MultiFieldEmbeddingLookup[max]", nn.MultiFieldEmbeddingLookup(10, 3, 3, operator="MAX"), ids,
              fl(2, 5), fields)]


# --- training primitives (state copied in the function: the ops write it in place) ----------------
def step_sgd(p, g, a, s):
    p2, a2, s2 = p * 1, a * 1, s * 1
    out = ops.SGD(0.1, 0.01)(p2, g, 0.1, a2, 0.9, s2)
    return p2, a2, s2, out


def step_sgd_nesterov(p, g, a, s):
    p2, a2, s2 = p * 1, a * 1, s * 1
    out = ops.SGD(0.0, 0.0, True)(p2, g, 0.1, a2, 0.9, s2)
    return p2, a2, out


def step_adagrad_da(v, ga, gs, g):
    v2, ga2, gs2 = v * 1, ga * 1, gs * 1
    out = ops.ApplyAdagradDA()(v2, ga2, gs2, g, 0.1, 0.05, 0.02, 2)
    return v2, ga2, gs2, out


def lars_update(w, g):
    return ops.LARSUpdate(1e-5, 0.001, True)(w, g, (w * w).sum(), (g * g).sum(), 0.01, 0.5)


@_classes
def _train_classes() -> list:
    from .cases_tensor_nn import pos

    stat = G(lambda r: (r.random((3, 4)) > 0.5).astype(np.float32))
    return [C("ops.SGD[0]", step_sgd, fl(3, 4), fl(3, 4), fl(3, 4), stat),
            C("ops.SGD[nesterov]", step_sgd_nesterov, fl(3, 4), fl(3, 4), fl(3, 4), stat),
            C("ops.ApplyAdagradDA[0]", step_adagrad_da, fl(3, 4), fl(3, 4), pos(3, 4), fl(3, 4)),
            C("ops.LARSUpdate[0]", lars_update, fl(3, 4), fl(3, 4)),
            K("LARSUpdate[default]", ops.LARSUpdate(), fl(3, 4), fl(3, 4), pos(), pos(), 0.01, 0.1),
            K("BasicLSTMCell[0]", ops.BasicLSTMCell(), fl(2, 3), fl(2, 4), fl(2, 4), fl(7, 16), fl(16))]


def summary_then_value(x):
    ops.ScalarSummary()("s", x.sum())
    ops.HistogramSummary()("h", x)
    ops.TensorSummary()("t", x)
    ops.ImageSummary()("i", ops.reshape(x, (1, 1, 2, 3)))
    return x * 2


@_classes
def _summary_classes() -> list:
    return [K("ScalarSummary[0]", ops.ScalarSummary(), "loss", fl()),
            K("HistogramSummary[0]", ops.HistogramSummary(), "w", fl(2, 3)),
            K("TensorSummary[0]", ops.TensorSummary(), "t", fl(3)),
            K("ImageSummary[0]", ops.ImageSummary(), "img", fl(1, 3, 2, 2, lo=0.0, hi=1.0)),
            C("ops.ScalarSummary[in graph]", summary_then_value, fl(2, 3))]


_COMM = ("point-to-point/uneven collective class form: checked against NumPy on 3 real MPI ranks by "
         "tests/parallel/test_api_comm_classes.py (eager, as MindSpore's PyNative communication; a one-process "
         "case has no peer)")
EXEMPT_CLASSES.update({n: _COMM for n in ("Send", "Receive", "NeighborExchange", "BatchISendIRecv",
                                          "ReduceScatterV", "AlltoAllVC")})
EXEMPT_CLASSES["TCPStore"] = ("a key-value store object shared over TCP, not an op: tests/engine/test_tcp_store.py "
                              "checks it across two processes")


@_classes
def _lstm_classes() -> list:
    op = ops.LSTM(3, 2, 1, True, True, 0.0)
    return [K("LSTM[bidirectional]", op, fl(3, 2, 3), fl(2, 2, 2), fl(2, 2, 2), fl(op.weight_size(), lo=-0.5, hi=0.5)),
            K("LSTM[no bias]", ops.LSTM(2, 2, 2, False, False, 0.0), fl(2, 1, 2), fl(2, 1, 2), fl(2, 1, 2),
              fl(ops.LSTM(2, 2, 2, False, False, 0.0).weight_size(), lo=-0.5, hi=0.5))]
