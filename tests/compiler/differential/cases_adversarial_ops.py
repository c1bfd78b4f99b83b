"""Adversarial differential cases (Graph vs PyNative) for the ops added in issue 14's vision, sequence-loss,
misc and quant slices: the tame cases of cases_vision_ops.py / cases_api_misc.py call each op once on
well-inside values; these differentiate through the ops inside the compiled construct (ms.grad /
value_and_grad), put grid coordinates exactly on the -1/1 corners and far outside, give RoI lists that are
empty or outside the image, CTC targets that are blank-only, zero-length or impossible (with and without
zero_infinity), flipped crop boxes, integer / float16 / float64 inputs, batch 1 and keyword arguments, and
write through the view ops. Each must be "identical", "refused" on the user's line or "both_raise".

Multi-call behaviour (randomness advancing, Parameters updated in place over several steps) cannot be
expressed as one harness case; tests/engine/test_adversarial_today.py checks it, with NumPy oracles.
"""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl, it


def fixed(a: np.ndarray) -> G:
    """The same value for every rng (boundary values must stay on the boundary)."""
    return G(lambda r: a.copy())


def log_probs(t: int, n: int, c: int, dt: type = np.float32) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        x = r.standard_normal((t, n, c))
        return (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(dt)
    return G(make)


# grid points exactly on the corners / edges of [-1, 1] and just past them, then far outside
CORNERS = np.array([[[[-1, -1], [1, 1]], [[-1, 1], [1, -1]], [[0, 0], [1.0000001, -1.0]]]], np.float32)
OUTSIDE = np.array([[[[-3.1, 2.7], [1.5, -1.9]], [[5.0, 0.3], [-1.0, 1.0]]]], np.float32)


# --- helpers Graph mode compiles as user code (their gradients run inside the compiled construct) -----------
def gs_grad_reflection(x, g):
    return ms.grad(lambda a, b: (ops.grid_sample(a, b, "bilinear", "reflection", False) ** 2).sum(), (0, 1))(x, g)


def gs_grad_reflection_corners(x, g):
    return ms.grad(lambda a, b: (ops.grid_sample(a, b, "bilinear", "reflection", True) ** 2).sum(), (0, 1))(x, g)


def gs_grad_border(x, g):
    return ms.grad(lambda a, b: (ops.grid_sample(a, b, "bilinear", "border", True) ** 2).sum(), (0, 1))(x, g)


def gs_grad_nearest(x, g):
    return ms.grad(lambda a, b: (ops.grid_sample(a, b, "nearest", "zeros", False) * 3).sum(), (0, 1))(x, g)


def gs_grad_3d(x, g):
    return ms.grad(lambda a, b: (ops.grid_sample(a, b) ** 2).sum(), (0, 1))(x, g)


ROI_ADAPTIVE = ops.ROIAlign(2, 2, 1.0, 0)
ROI_FIXED = ops.ROIAlign(2, 2, 0.5, 2)


def roi_adaptive_grad(x, rois):
    return ms.grad(lambda a: (ROI_ADAPTIVE(a, rois) ** 2).sum())(x)


def roi_adaptive_value_and_grad(x, rois):
    return ms.value_and_grad(lambda a: (ROI_ADAPTIVE(a, rois) * 2).sum())(x)


def roi_fixed_grad(x, rois):
    return ms.grad(lambda a: (ROI_FIXED(a, rois) ** 2).sum())(x)


def crop_grad(x, boxes, idx):
    return ms.grad(lambda a, b: (ops.crop_and_resize(a, b, idx, (3, 2)) ** 2).sum(), (0, 1))(x, boxes)


def deform_grad(x, w, off):
    return ms.grad(lambda a, ww, oo: (ops.deformable_conv2d(a, ww, oo, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)) ** 2).sum(),
                   (0, 1, 2))(x, w, off)


MSDA_SHAPES, MSDA_STARTS = ms.Tensor(np.array([[3, 4], [2, 2]])), ms.Tensor(np.array([0, 12]))


def msda_grad(value, loc, attn):
    return ms.grad(lambda v, lo, at: (ops.multi_scale_deformable_attn_function(v, MSDA_SHAPES, MSDA_STARTS, lo, at)
                                      ** 2).sum(), (0, 1, 2))(value, loc, attn)


def ctc_grad_zero_length(lp, t):
    return ms.grad(lambda a: ops.ctc_loss(a, t, (5, 5), (3, 0), 0, "mean", True)[0])(lp)


def ctc_grad_impossible(lp, t):
    """Both rows need more frames than they have (inf loss): zero_infinity=False keeps the nan/inf gradient."""
    return ms.grad(lambda a: ops.ctc_loss(a, t, (4, 4), (3, 3), 0, "sum", False)[0])(lp)


def ctc_grad_impossible_zero_inf(lp, t):
    return ms.grad(lambda a: ops.ctc_loss(a, t, (4, 2), (2, 2), 0, "sum", True)[0])(lp)


CTC_TF = ops.CTCLoss()
RNNT = ops.RNNTLoss()


def ctc_tf_grad(x, ind, val, seq):
    return ms.grad(lambda a: CTC_TF(a, ind, val, seq)[0].sum())(x)


def rnnt_grad(x, labels, act_lens, label_lens):
    return ms.grad(lambda a: RNNT(a, labels, act_lens, label_lens)[0].sum())(x)


SELECT, TRANSPOSE, SWAP, COPY = ops.SelectView(), ops.TransposeView(), ops.TransposeExtView(), ops.CopyWithSlice()


def select_view_write(x):
    v = SELECT(x, 0, 1)
    v[0] = 5.0
    return x


def select_view_add_(x):
    v = SELECT(x, 1, 0)
    v.add_(1.0)
    return x, v


def transpose_view_write(x):
    v = TRANSPOSE(x, (1, 0))
    v[0, 1] = 7.0
    return x


def swap_view_mul_(x):
    SWAP(x, 0, 1).mul_(2.0)
    return x


def copy_into_view(x, src):
    COPY(SELECT(x, 0, 0), src)
    return x


def copy_grad(x, src):
    return ms.grad(lambda a, b: (COPY(a * 1, b) * a).sum(), (0, 1))(x, src)


EVP = ops.ExtractVolumePatches(2, 1, "VALID")
SAT = ops.ScaleAndTranslate()


def volume_patches_grad(x):
    return ms.grad(lambda a: (EVP(a) ** 2).sum())(x)


def scale_translate_grad(x, scale, shift):
    return ms.grad(lambda a: (SAT(a, ms.Tensor(np.array([3, 5], np.int32)), scale, shift) ** 2).sum())(x)


SGD_OP = ops.SGD(0.0, 0.01, True)


def sgd_then_read(w, g, acc, stat):
    """The step writes `w`, `acc` and `stat` in place; what the construct reads after it must be the new
    values, and a second step must start from them."""
    before = w * 1
    out = SGD_OP(w, g, 0.1, acc, 0.9, stat)
    mid = w * 1
    SGD_OP(w, g * 0.5, 0.1, acc, 0.9, stat)
    return before, out, mid, w + 0, acc + 0, stat + 0


DA = ops.ApplyAdagradDA()


def adagrad_da_twice(var, ga, gs, grad):
    (v1,) = DA(var, ga, gs, grad, 0.1, 0.01, 0.001, 1)
    mid = var * 1
    (v2,) = DA(var, ga, gs, grad * 0.5, 0.1, 0.0, 0.001, 2)
    return v1, mid, v2, ga + 0, gs + 0


LARS = ops.LARSUpdate(1e-5, 0.01, True)


def lars_of_grad(w, x):
    g = ms.grad(lambda a: ((a * x) ** 2).sum())(w)
    return LARS(w, g, ops.reduce_sum(w * w), ops.reduce_sum(g * g), 0.01, 0.1)


def gs_second_order_input(x, g):
    """d/dx of the sum of d/dx: grid_sample is linear in the input, so this is zero, through two tapes."""
    return ms.grad(lambda a: ms.grad(lambda b: (ops.grid_sample(b, g, "bilinear", "reflection", True) ** 2).sum())(a)
                   .sum())(x)


def gs_second_order_grid(x, g):
    return ms.grad(lambda gg: ms.grad(lambda b: (ops.grid_sample(x, b) ** 2).sum())(gg).sum())(g)


def gs_vmap(x, g):
    return ops.vmap(lambda a, b: ops.grid_sample(a[None], b[None])[0])(x, g)


def roi_vmap(x, rois):
    return ops.vmap(lambda rr: ROI_FIXED(x, rr[None])[0])(rois)


def roi_kwargs(x, rois):
    return ROI_FIXED(features=x, rois=rois)


GS2D_CORNERS = ops.GridSampler2D("bilinear", "zeros", True)


def gridsampler_kwargs(x, g):
    return GS2D_CORNERS(input_x=x, grid=g)


CTC_FLAGS = ops.CTCLoss(preprocess_collapse_repeated=True, ctc_merge_repeated=False,
                        ignore_longer_outputs_than_inputs=True)


def ctc_flags_kwargs(x, ind, val, seq):
    return CTC_FLAGS(x=x, labels_indices=ind, labels_values=val, sequence_length=seq)


def crop_grad_int_image(x, boxes, idx):
    return ms.grad(lambda a: ops.crop_and_resize(a, boxes, idx, (2, 2)).sum())(x)


def sgd_tensor_hyper(w, g, acc, stat, lr, mom):
    """Learning rate and momentum as tensors (momentum 0 in one case: the kernel's `momentum > 0` test
    runs on the value)."""
    return ops.SGD()(w, g, lr, acc, mom, stat), w + 0


def _rois_changing(r: np.random.Generator) -> np.ndarray:
    """Two RoIs whose sizes (so the adaptive sample counts) change with the rng."""
    return np.concatenate([np.zeros((2, 1)), r.uniform(0, 1, (2, 2)), r.uniform(2, 7, (2, 2))], 1).astype(np.float32)


@_functions
def _adversarial_sampling_functions() -> list:
    return [
        C("ops.grid_sample[adv grad reflection]", gs_grad_reflection, fl(1, 2, 3, 4), fl(1, 3, 2, 2, lo=-2.5, hi=2.5)),
        C("ops.grid_sample[adv grad reflection corners]", gs_grad_reflection_corners, fl(1, 2, 3, 4),
          fl(1, 3, 2, 2, lo=-2.5, hi=2.5)),
        C("ops.grid_sample[adv grad border]", gs_grad_border, fl(2, 1, 3, 3), fl(2, 2, 2, 2, lo=-1.5, hi=1.5)),
        C("ops.grid_sample[adv grad nearest]", gs_grad_nearest, fl(1, 1, 3, 3), fl(1, 2, 2, 2, lo=-1.2, hi=1.2)),
        C("ops.grid_sample[adv grad 3d]", gs_grad_3d, fl(1, 1, 2, 3, 2), fl(1, 2, 1, 2, 3, lo=-1.2, hi=1.2)),
        C("ops.grid_sample[adv corners zeros]", ops.grid_sample, fl(1, 2, 3, 4), fixed(CORNERS), "bilinear", "zeros",
          True),
        C("ops.grid_sample[adv corners reflection]", ops.grid_sample, fl(1, 2, 3, 4), fixed(CORNERS), "bilinear",
          "reflection", False),
        C("ops.grid_sample[adv outside reflection nearest]", ops.grid_sample, fl(1, 1, 4, 3), fixed(OUTSIDE),
          "nearest", "reflection", True),
        C("ops.grid_sample[adv outside border]", ops.grid_sample, fl(1, 1, 4, 3), fixed(OUTSIDE), "bilinear", "border"),
        C("ops.grid_sample[adv float64]", ops.grid_sample, fl(1, 1, 3, 3, dt=np.float64),
          fl(1, 2, 2, 2, lo=-1, hi=1, dt=np.float64)),
        C("ops.grid_sample[adv float16]", ops.grid_sample, fl(1, 1, 3, 3, dt=np.float16),
          fl(1, 2, 2, 2, lo=-1, hi=1, dt=np.float16), rtol=1e-2, atol=1e-2),
        C("ops.grid_sample[adv kwargs]", ops.grid_sample, fl(1, 1, 3, 3), fl(1, 2, 2, 2, lo=-1, hi=1),
          kw={"padding_mode": "border", "align_corners": True}),
        C("ops.grid_sample[adv bicubic refused by both]", ops.grid_sample, fl(1, 1, 4, 4),
          fl(1, 2, 2, 2, lo=-1.3, hi=1.3), "bicubic"),
        C("ops.crop_and_resize[adv grad]", crop_grad, fl(2, 4, 4, 2),
          fixed(np.array([[0.1, 0.0, 0.8, 0.9], [-0.2, 0.3, 1.2, 0.7]], np.float32)),
          fixed(np.array([1, 0], np.int32))),
        C("ops.crop_and_resize[adv flipped box]", ops.crop_and_resize, fl(1, 4, 4, 1),
          fixed(np.array([[0.9, 0.8, 0.1, 0.2]], np.float32)), fixed(np.array([0], np.int32)), (3, 3)),
        C("ops.crop_and_resize[adv 1x1 crop]", ops.crop_and_resize, fl(1, 4, 4, 1),
          fixed(np.array([[0.1, 0.1, 0.9, 0.6]], np.float32)), fixed(np.array([0], np.int32)), (1, 1)),
        C("ops.crop_and_resize[adv int image]", ops.crop_and_resize, it(0, 9, 1, 4, 4, 1),
          fixed(np.array([[0.1, 0.1, 0.9, 0.6]], np.float32)), fixed(np.array([0], np.int32)), (2, 2)),
        C("ops.crop_and_resize[adv no boxes]", ops.crop_and_resize, fl(1, 4, 4, 2), fixed(np.zeros((0, 4), np.float32)),
          fixed(np.zeros((0,), np.int32)), (2, 2)),
        C("ops.deformable_conv2d[adv grad all inputs]", deform_grad, fl(1, 2, 4, 4), fl(3, 2, 2, 2),
          fl(1, 12, 3, 3, lo=-1.5, hi=1.5)),
        C("ops.multi_scale_deformable_attn_function[adv grad]", msda_grad, fl(1, 16, 2, 3),
          fl(1, 2, 2, 2, 2, 2, lo=-0.1, hi=1.1), fl(1, 2, 2, 2, 2, lo=0, hi=1)),
        C("ops.grid_sample[adv second order input]", gs_second_order_input, fl(1, 1, 3, 3),
          fl(1, 2, 2, 2, lo=-1.5, hi=1.5)),
        C("ops.grid_sample[adv second order grid]", gs_second_order_grid, fl(1, 1, 3, 3),
          fl(1, 2, 2, 2, lo=-0.9, hi=0.9)),
        C("ops.grid_sample[adv vmap]", gs_vmap, fl(2, 1, 3, 3), fl(2, 2, 2, 2, lo=-1, hi=1)),
        C("ops.crop_and_resize[adv grad int image]", crop_grad_int_image, it(0, 9, 1, 4, 4, 1),
          fixed(np.array([[0.1, 0.1, 0.9, 0.6]], np.float32)), fixed(np.array([0], np.int32))),
    ]


@_classes
def _adversarial_sampling_classes() -> list:
    return [
        K("GridSampler2D[adv batch1 outside]", ops.GridSampler2D("bilinear", "reflection", False), fl(1, 1, 3, 3),
          fixed(OUTSIDE)),
        K("ROIAlign[adv adaptive grad]", roi_adaptive_grad, fl(1, 2, 6, 6),
          fixed(np.array([[0, 0.5, 0.5, 4.0, 5.0], [0, 1, 1, 1.2, 1.3]], np.float32))),
        K("ROIAlign[adv adaptive rois change]", ROI_ADAPTIVE, fl(1, 1, 8, 8), G(_rois_changing)),
        K("ROIAlign[adv adaptive value_and_grad]", roi_adaptive_value_and_grad, fl(1, 2, 6, 6),
          fixed(np.array([[0, 0.5, 0.5, 4.0, 5.0]], np.float32))),
        K("ROIAlign[adv grad degenerate roi]", roi_fixed_grad, fl(2, 1, 5, 5),
          fixed(np.array([[1, 0.5, 0.5, 8.0, 9.0], [0, 0, 0, 0, 0]], np.float32))),
        K("ROIAlign[adv no rois]", ROI_FIXED, fl(1, 1, 5, 5), fixed(np.zeros((0, 5), np.float32))),
        K("ROIAlign[adv adaptive no rois]", ROI_ADAPTIVE, fl(2, 1, 4, 4, dt=np.float64),
          fixed(np.zeros((0, 5), np.float64))),
        K("ROIAlign[adv rois outside]", ROI_FIXED, fl(1, 1, 5, 5),
          fixed(np.array([[0, 20, 20, 30, 30], [0, -10, -10, -5, -5]], np.float32))),
        K("ExtractVolumePatches[adv grad]", volume_patches_grad, fl(1, 1, 3, 3, 3)),
        K("ExtractVolumePatches[adv float16]", EVP, fl(1, 1, 2, 3, 3, dt=np.float16)),
        K("ExtractVolumePatches[adv int]", EVP, it(0, 9, 1, 1, 2, 3, 3)),
        K("ScaleAndTranslate[adv grad]", scale_translate_grad, fl(1, 4, 4, 1), fixed(np.array([0.8, 1.3], np.float32)),
          fixed(np.array([0.5, -0.5], np.float32))),
        K("ScaleAndTranslate[adv lanczos5 upscale]", ops.ScaleAndTranslate("lanczos5"), fl(1, 4, 4, 1),
          fixed(np.array([2, 7], np.int32)), fixed(np.array([0.5, 1.7], np.float32)), fixed(np.zeros(2, np.float32))),
        K("ScaleAndTranslate[adv int image]", ops.ScaleAndTranslate("keyscubic"), it(0, 255, 1, 4, 4, 2),
          fixed(np.array([5, 3], np.int32)), fixed(np.array([1.2, 0.7], np.float32)),
          fixed(np.array([0.3, 0.1], np.float32))),
        K("GridSampler2D[adv kwargs]", gridsampler_kwargs, fl(1, 1, 3, 3), fl(1, 2, 2, 2, lo=-1, hi=1)),
        K("ROIAlign[adv kwargs]", roi_kwargs, fl(1, 1, 5, 5), fixed(np.array([[0, 0, 0, 3, 3]], np.float32))),
        K("ROIAlign[adv vmap over rois]", roi_vmap, fl(1, 1, 5, 5),
          fixed(np.array([[0, 0, 0, 3, 3], [0, 1, 1, 4, 2]], np.float32))),
        K("ExtractGlimpse[adv window outside]", ops.ExtractGlimpse(True, True, False, "zero"), fl(1, 4, 4, 1),
          fixed(np.array([3, 3], np.int32)), fixed(np.array([[1.5, -3.0]], np.float32))),
    ]


# --- sequence losses ---------------------------------------------------------------------------------------
@_functions
def _adversarial_sequence_functions() -> list:
    return [
        C("ops.ctc_loss[adv grad zero-length target]", ctc_grad_zero_length, log_probs(5, 2, 4), it(1, 4, 2, 3)),
        C("ops.ctc_loss[adv grad impossible inf]", ctc_grad_impossible, log_probs(4, 2, 3),
          fixed(np.array([[1, 1, 1], [2, 2, 2]], np.int64))),
        C("ops.ctc_loss[adv grad impossible zero_infinity]", ctc_grad_impossible_zero_inf, log_probs(4, 2, 3),
          fixed(np.array([[1, 1], [2, 2]], np.int64))),
        C("ops.ctc_loss[adv impossible zero_infinity mean]", ops.ctc_loss, log_probs(3, 2, 3),
          fixed(np.array([[1, 1, 1], [2, 0, 0]], np.int64)), (3, 3), (3, 1), 0, "mean", True),
        C("ops.ctc_loss[adv blank-only targets]", ops.ctc_loss, log_probs(4, 2, 3), fixed(np.zeros((2, 2), np.int64)),
          (4, 4), (0, 0), 0, "none"),
        C("ops.ctc_loss[adv float64]", ops.ctc_loss, log_probs(4, 2, 3, np.float64), it(1, 3, 2, 2), (4, 3), (2, 1)),
        C("ops.ctc_loss[adv tensor lengths]", ops.ctc_loss, log_probs(4, 2, 3), it(1, 3, 2, 2),
          fixed(np.array([4, 2], np.int32)), fixed(np.array([2, 0], np.int32))),
        C("ops.ctc_loss[adv int32 targets blank 1]", ops.ctc_loss, log_probs(5, 1, 4),
          fixed(np.array([[2, 0, 3]], np.int32)), (5,), (3,), 1),
        C("ops.ctc_loss[adv batch1 kwargs]", ops.ctc_loss, log_probs(3, 1, 3), it(1, 3, 1, 2),
          kw={"input_lengths": (3,), "target_lengths": (2,), "blank": 0, "reduction": "sum", "zero_infinity": True}),
    ]


@_classes
def _adversarial_sequence_classes() -> list:
    return [
        K("CTCLoss[adv grad]", ctc_tf_grad, fl(4, 2, 3), fixed(np.array([[0, 0], [0, 1], [1, 0]], np.int64)),
          fixed(np.array([1, 1, 0], np.int32)), fixed(np.array([4, 3], np.int32))),
        K("CTCLoss[adv blank-class label]", ops.CTCLoss(), fl(3, 2, 3), fixed(np.array([[0, 0]], np.int64)),
          fixed(np.array([1], np.int32)), fixed(np.array([3, 3], np.int32))),
        K("RNNTLoss[adv grad]", rnnt_grad, fl(2, 3, 3, 4), it(1, 4, 2, 2), fixed(np.array([3, 2], np.int32)),
          fixed(np.array([2, 1], np.int32))),
        K("CTCLoss[adv flags kwargs]", ctc_flags_kwargs, fl(3, 2, 4),
          fixed(np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]], np.int64)),
          fixed(np.array([1, 1, 2, 2, 0], np.int32)), fixed(np.array([3, 2], np.int32))),
        K("CTCLoss[adv no merge]", ops.CTCLoss(False, True, False), fl(3, 2, 4),
          fixed(np.array([[0, 0], [0, 1], [1, 0]], np.int64)), fixed(np.array([1, 1, 2], np.int32)),
          fixed(np.array([3, 2], np.int32))),
        K("CTCLoss[adv labels longer than input]", ops.CTCLoss(False, True, False), fl(2, 1, 4),
          fixed(np.array([[0, 0], [0, 1], [0, 2]], np.int64)), fixed(np.array([1, 2, 0], np.int32)),
          fixed(np.array([2], np.int32))),
        K("CTCLoss[adv labels longer than input ignored]", ops.CTCLoss(False, True, True), fl(2, 1, 4),
          fixed(np.array([[0, 0], [0, 1], [0, 2]], np.int64)), fixed(np.array([1, 2, 0], np.int32)),
          fixed(np.array([2], np.int32))),
        K("RNNTLoss[adv blank last]", ops.RNNTLoss(blank_label=3), fl(1, 3, 3, 4), it(0, 3, 1, 2),
          fixed(np.array([3], np.int32)), fixed(np.array([2], np.int32))),
        K("RNNTLoss[adv float16]", ops.RNNTLoss(), fl(1, 3, 3, 4, dt=np.float16), it(1, 4, 1, 2),
          fixed(np.array([3], np.int32)), fixed(np.array([2], np.int32))),
        K("RNNTLoss[adv empty label]", ops.RNNTLoss(), fl(1, 2, 1, 3), fixed(np.zeros((1, 0), np.int32)),
          fixed(np.array([2], np.int32)), fixed(np.array([0], np.int32))),
        K("EditDistance[adv empty hypothesis]", ops.EditDistance(), fixed(np.zeros((0, 2), np.int64)),
          fixed(np.zeros((0,), np.int64)), fixed(np.array([2, 3], np.int64)),
          fixed(np.array([[0, 0], [1, 0]], np.int64)), fixed(np.array([1, 2], np.int64)),
          fixed(np.array([2, 1], np.int64))),
        K("EditDistance[adv float values]", ops.EditDistance(), fixed(np.array([[0, 0], [0, 1]], np.int64)),
          fixed(np.array([1.5, 2.0], np.float32)), fixed(np.array([1, 2], np.int64)),
          fixed(np.array([[0, 0]], np.int64)), fixed(np.array([1.5], np.float32)), fixed(np.array([1, 1], np.int64))),
    ]


# --- misc, detection, optimizer-step primitives -------------------------------------------------------------
_UNIT_BOX = np.tile(np.array([0, 0, 1, 1], np.float32), (1, 3, 1, 1))
_SAME_BOXES = np.array([[[1.0, 1.0, 2.0, 1.0, 30.0], [0, 0, 0, 0, 0], [5, 5, 1, 1, 90]]], np.float32)


@_classes
def _adversarial_misc_classes() -> list:
    return [
        K("SelectView[adv write through view]", select_view_write, fl(3, 4)),
        K("SelectView[adv add_ on view]", select_view_add_, fl(3, 4)),
        K("TransposeView[adv write through view]", transpose_view_write, fl(3, 4)),
        K("TransposeExtView[adv mul_ on view]", swap_view_mul_, fl(3, 4)),
        K("CopyWithSlice[adv into a view]", copy_into_view, fl(2, 3), fl(3)),
        K("CopyWithSlice[adv grad]", copy_grad, fl(2, 3), fl(3)),
        K("FloatStatus[adv nan]", ops.FloatStatus(), fixed(np.array([1.0, np.nan, 2.0], np.float32))),
        K("FloatStatus[adv inf float16]", ops.FloatStatus(), fixed(np.array([1.0, np.inf], np.float16))),
        K("CompareAndBitpack[adv float16]", ops.CompareAndBitpack(), fl(2, 8, dt=np.float16),
          fixed(np.array(0.0, np.float16))),
        K("CompareAndBitpack[adv int]", ops.CompareAndBitpack(), it(0, 5, 16), fixed(np.array(2, np.int32))),
        K("CompareAndBitpack[adv bool]", ops.CompareAndBitpack(), G(lambda r: r.random(8) > 0.5),
          fixed(np.array(False))),
        K("CombinedNonMaxSuppression[adv all below threshold]", ops.CombinedNonMaxSuppression(), fixed(_UNIT_BOX),
          fl(1, 3, 2, lo=0.0, hi=0.05), 2, 3, 0.5, 0.1),
        K("CombinedNonMaxSuppression[adv tied scores]", ops.CombinedNonMaxSuppression(), fixed(_UNIT_BOX),
          fixed(np.full((1, 3, 2), 0.7, np.float32)), 2, 4, 0.5, 0.1),
        K("CombinedNonMaxSuppression[adv zero-area boxes]", ops.CombinedNonMaxSuppression(False, True),
          fixed(np.zeros((1, 3, 1, 4), np.float32)), fixed(np.array([[[0.9], [0.8], [0.7]]], np.float32)),
          3, 3, 0.5, 0.0),
        K("ComputeAccidentalHits[adv repeated sampled]", ops.ComputeAccidentalHits(2),
          fixed(np.array([[1, 2], [0, 3]], np.int64)), fixed(np.array([2, 0, 3, 2], np.int64))),
        K("SGD[adv in-place then read, twice]", sgd_then_read, fl(3), fl(3), fl(3), fixed(np.ones(3, np.float32))),
        K("SGD[adv tensor hyper-parameters]", sgd_tensor_hyper, fl(3), fl(3), fl(3), fixed(np.ones(3, np.float32)),
          fixed(np.array(0.1, np.float32)), fixed(np.array(0.5, np.float32))),
        K("SGD[adv tensor momentum 0]", sgd_tensor_hyper, fl(3), fl(3), fl(3), fixed(np.zeros(3, np.float32)),
          fixed(np.array(0.1, np.float32)), fixed(np.array(0.0, np.float32))),
        K("ApplyAdagradDA[adv twice]", adagrad_da_twice, fl(3), fl(3), fl(3, lo=0.1, hi=1.0), fl(3)),
        K("LARSUpdate[adv of an in-graph gradient]", lars_of_grad, fl(3), fl(3)),
    ]


@_functions
def _adversarial_detection_functions() -> list:
    return [
        C("ops.rotated_iou[adv identical and zero boxes]", ops.rotated_iou, fixed(_SAME_BOXES), fixed(_SAME_BOXES)),
        C("ops.rotated_iou[adv empty boxes]", ops.rotated_iou, fixed(np.zeros((1, 0, 5), np.float32)),
          fixed(_SAME_BOXES)),
    ]
