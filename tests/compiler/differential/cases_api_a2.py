"""Differential cases for slice A2 of the issue-14 ops (ops/box_coder_ops.py: bounding_box_encode /
decode and their classes; ops/comm_collective_ops.py: the torch-style collectives, exempt here and
checked on real MPI ranks): each case runs in PyNative and in Graph mode and must agree."""

from __future__ import annotations

import numpy as np

from spore import ops

from .cases_ops import EXEMPT_CLASSES, EXEMPT_FUNCTIONS, K, _classes, _functions
from .cases_tensor_nn import C, G, fl


def boxes(n: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        lo = r.uniform(0, 20, (n, 2))
        return np.concatenate([lo, lo + r.uniform(1, 10, (n, 2))], 1).astype(np.float32)
    return G(make)


@_functions
def _api_a2_functions() -> list:
    return [C("ops.bounding_box_encode[0]", ops.bounding_box_encode, boxes(4), boxes(4)),
            C("ops.bounding_box_encode[norm]", ops.bounding_box_encode, boxes(3), boxes(3),
              (0.0, 0.1, 0.0, 0.1), (0.1, 0.1, 0.2, 0.2)),
            C("ops.bounding_box_decode[0]", ops.bounding_box_decode, boxes(4), fl(4, 4, lo=-1.0, hi=1.0), (30, 40)),
            C("ops.bounding_box_decode[clip]", ops.bounding_box_decode, boxes(3), fl(3, 4, lo=-3.0, hi=3.0),
              (25, 25), (0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 2.0, 2.0), 0.1)]


@_classes
def _api_a2_classes() -> list:
    return [K("BoundingBoxEncode[0]", ops.BoundingBoxEncode(stds=(0.1, 0.1, 0.2, 0.2)), boxes(4), boxes(4)),
            K("BoundingBoxDecode[0]", ops.BoundingBoxDecode((30, 40), stds=(0.1, 0.1, 0.2, 0.2)), boxes(4),
              fl(4, 4, lo=-1.0, hi=1.0))]


_COLL = ("torch-style collective: checked against NumPy on 3 real MPI ranks by tests/parallel/"
         "test_api_a2_collectives.py (PyNative only, as MindSpore documents; one process has no peers)")
EXEMPT_FUNCTIONS.update({n: _COLL for n in (
    "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_gather_object",
    "broadcast", "broadcast_object_list", "barrier", "gather_into_tensor", "gather_object", "all_to_all",
    "all_to_all_single", "batch_isend_irecv", "all_to_all_v_c", "get_backend")})
EXEMPT_CLASSES.update({n: _COLL for n in ("Barrier", "AlltoAll", "AlltoAllV", "AllGatherV", "CollectiveGather",
                                          "CollectiveScatter")})


@_functions
def _api_a2_norm_functions() -> list:
    return [C("ops.add_rms_norm[0]", ops.add_rms_norm, fl(2, 3, 4), fl(2, 3, 4), fl(4)),
            C("ops.add_rms_norm[2d gamma]", ops.add_rms_norm, fl(2, 3, 4), fl(2, 3, 4), fl(3, 4), 1e-3),
            C("ops.add_layer_norm[0]", ops.add_layer_norm, fl(3, 5), fl(3, 5), fl(5), fl(5)),
            C("ops.add_layer_norm[extra]", ops.add_layer_norm, fl(2, 2, 4), fl(2, 2, 4), fl(4), fl(4), 1e-4, True),
            C("ops.bidense[0]", ops.bidense, fl(3, 4), fl(3, 5), fl(2, 4, 5), fl(2)),
            C("ops.bidense[nobias]", ops.bidense, fl(2, 3, 4), fl(2, 3, 2), fl(3, 4, 2))]


@_classes
def _api_a2_colour_classes() -> list:
    img = fl(2, 3, 4, 3, lo=0.0, hi=1.0)
    return [K("HSVToRGB[0]", ops.HSVToRGB(), img),
            K("AdjustHue[0]", ops.AdjustHue(), img, 0.3),
            K("AdjustHue[neg]", ops.AdjustHue(), img, -0.6),
            K("AdjustSaturation[0]", ops.AdjustSaturation(), img, 1.5),
            K("AdjustSaturation[less]", ops.AdjustSaturation(), img, 0.4)]


@_functions
def _api_a2_gamma_functions() -> list:
    from .cases_api_b import const
    a, b = const(np.array([[0.5], [2.0]], np.float32)), const(np.array([1.0, 3.0], np.float32))
    return [C("ops.gamma[0]", ops.gamma, (2, 2), a, b, **{"seeded": True}),
            C("ops.gamma[seed]", ops.gamma, (3, 1, 1), a, b, 7, **{"seeded": True})]


@_classes
def _api_a2_gamma_classes() -> list:
    from .cases_api_b import const
    return [K("Gamma[0]", ops.Gamma(), (3,), const(np.array([1.5], np.float32)), const(np.array([2.0], np.float32)),
              **{"seeded": True})]


@_functions
def _api_a2_col2im_functions() -> list:
    return [C("ops.col2im[0]", ops.col2im, fl(1, 2, 4, 12), (4, 5), 2, 1, 0, 1),
            C("ops.col2im[pad stride]", ops.col2im, fl(1, 2, 6, 9), (5, 5), (2, 3), 1, 1, 2)]


@_classes
def _api_a2_im2col_classes() -> list:
    return [K("Im2Col[0]", ops.Im2Col(ksizes=2), fl(2, 3, 4, 5)),
            K("Im2Col[pad dil]", ops.Im2Col(ksizes=(2, 3), strides=2, dilations=(1, 2), pads=1), fl(1, 2, 6, 7)),
            K("Col2Im[0]", ops.Col2Im(2), fl(1, 2, 4, 12), G(lambda r: np.array([4, 5], np.int32)))]


def _col2im_method(x):
    return x.col2im((4, 5), 2, 1, 0, 1)


def _col2im_method_padded(x):
    return x.col2im((5, 5), (2, 3), 1, 1, 2)


def _col2im_method_dilated(x):
    return x.col2im((5, 6), 2, 2, 0, 1)


def api_a2_tensor_cases() -> list:
    return [C("Tensor.col2im[0]", _col2im_method, fl(2, 3, 4, 12)),
            C("Tensor.col2im[pad stride]", _col2im_method_padded, fl(1, 2, 6, 9)),
            C("Tensor.col2im[dilation]", _col2im_method_dilated, fl(1, 2, 4, 12))]


@_classes
def _api_a2_conv_classes() -> list:
    return [K("Conv2DBackpropInput[0]", ops.Conv2DBackpropInput(4, 3), fl(2, 4, 3, 3), fl(4, 3, 3, 3), (2, 3, 5, 5)),
            K("Conv2DBackpropInput[pad stride]", ops.Conv2DBackpropInput(2, 2, pad_mode="pad", pad=1, stride=2),
              fl(1, 2, 3, 3), fl(2, 3, 2, 2), (1, 3, 4, 4)),
            K("DepthwiseConv2dNative[0]", ops.DepthwiseConv2dNative(2, 3), fl(1, 3, 5, 5), fl(2, 3, 3, 3)),
            K("DepthwiseConv2dNative[pad]", ops.DepthwiseConv2dNative(1, 2, pad_mode="pad", pad=1, stride=2),
              fl(2, 2, 5, 4), fl(1, 2, 2, 2))]


def _ctc_logits(r: np.random.Generator) -> np.ndarray:
    x = r.normal(size=(6, 3, 4)).astype(np.float32)
    x[1:4, :, 2] += 3.0
    return x


@_functions
def _api_a2_ctc_functions() -> list:
    lens = G(lambda r: np.array([6, 2, 4], np.int32))
    return [C("ops.ctc_greedy_decoder[0]", ops.ctc_greedy_decoder, G(_ctc_logits), lens),
            C("ops.ctc_greedy_decoder[nomerge]", ops.ctc_greedy_decoder, G(_ctc_logits), lens, False)]


@_classes
def _api_a2_ctc_classes() -> list:
    lens = G(lambda r: np.array([5, 6, 1], np.int32))
    return [K("CTCGreedyDecoder[0]", ops.CTCGreedyDecoder(), G(_ctc_logits), lens)]


@_classes
def _api_a2_patches_classes() -> list:
    return [K("ExtractImagePatches[valid]", ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1]),
              fl(1, 2, 4, 5)),
            K("ExtractImagePatches[same]", ops.ExtractImagePatches([1, 1, 3, 2], [1, 1, 2, 2], [1, 1, 1, 2], "SAME"),
              fl(2, 2, 5, 6))]


@_classes
def _api_a2_dilation_classes() -> list:
    return [K("Dilation2D[valid]", ops.Dilation2D(1, 1, "VALID"), fl(1, 2, 5, 5), fl(2, 2, 3)),
            K("Dilation2D[same]", ops.Dilation2D((2, 1), (1, 2), "SAME"), fl(2, 2, 5, 6), fl(2, 3, 2))]
