"""MindSpore's functional op names (`ops.matmul`, `ops.relu`, ...), gathered from the declaration
modules: every public function defined in one of them is exported here. Each is a thin wrapper
over registered primitives. A new declaration module is added to `DECLARATION_MODULES` below.
"""

from __future__ import annotations

import importlib
import types

_MODULE_NAMES = (
    "array", "elementwise", "linalg", "reduction",      # core (engine skeleton)
    "math_ops", "activation", "comparison",             # elementwise math, activations, comparisons
    "shape_ops", "indexing", "creation",                # movement, indexing, tensor creation
    "conv_pool",                                        # conv / pooling (oneDNN kernels)
    "normalization", "loss_ops", "nn_misc",             # batch/layer norm, losses, dropout/embedding
    "state",                                            # in-place state updates (assign)
    "resize",                                           # interpolate (separable resampling)
    "math_extra",                                       # inverse trig, erfc, cummax/cummin, addmm
    "composite_extra",                                  # mm, tril, hypot, nansum, diff, rot90, cdist, ...
    "conv_pool_nd",                                     # conv3d, transposed convs, 1-d/3-d/adaptive/LP pools, fold
    "scatter_segment_ops", "activation_shrink_margin",  # scatter/segment reductions; softsign, selu, margin losses
    "linalg_det_inverse",                               # inverse, slogdet, matrix_power, lgamma, zeta, ...
    "sort_stats_ops", "array_sequence_ops",             # median/quantile/searchsorted/norms; reverse_sequence, ...
    "random_distribution_ops",                          # laplace, gamma, poisson, multinomial, categorical, shuffle
    "tensor_inplace_fill_ops",                          # mul_/sub_/masked_fill_/scatter_, zero_/normal_/uniform_, lcm
    "linalg_decompositions",                            # svd, qr, pinv, lstsq, matrix_exp, lu_solve, matrix_diag, pdist
    "spatial_unique_ops",                               # mirror_pad, space_to_batch_nd, lrn, unique_consecutive, ...
    "segment_select_extra",                             # Segment*, sparse_segment_mean, renorm, kthvalue, ListDiff
    "device_io_helpers",                                # move_to, tensordump, real, Tensor.to_dlpack
    "special_functions",                                # Bessel, digamma, erfinv, igamma/igammac, Betainc
    "bitwise_ops",                                      # bitwise and/or/xor/shifts, gcd, fmax/fmin
    "activation_loss_extra",                            # celu, glu, hardtanh, huber/hinge/gaussian-nll losses, ...
    "linalg_extra",                                     # einsum, cholesky*, det, cross, cov, diagonal*, block_diag, ...
    "tensor_misc_ops",                                  # aliases, clipping, in-place methods, bincount, windows, ...
    "random_sampling", "index_update_ops",              # bernoulli, gumbel_softmax; inplace_*, index_put, ...
    "framework_helpers", "array_layout_ops",            # ops.grad, constexpr; batch_to_space_nd, geqrf, ...
    "grid_choose_ops",                                  # affine_grid, Tensor.choose/index_copy_/H, get_world_size
    "sparse_ops",                                       # coo_*/csr_* on COOTensor/CSRTensor values, csr_mv/mm, ...
    "vision_box_ops",                                   # iou, rotary_position_embedding; Mod, RGBToHSV, ...
    "vision_nms_ops",                                   # NMSWithMask, RaggedRange, NoRepeatNGram, is_initialized
    "p2p_comm_ops",                                     # send/recv, isend/irecv, reduce, scatter_tensor, *_object_list
    "tensor_select",                                    # Tensor.select (dim, index) / (condition, y)
    "comm_collective_ops",                              # all_reduce, all_gather*, broadcast*, barrier, all_to_all*, ...
    "box_coder_ops",                                    # bounding_box_encode/decode
    "fused_norm_color_ops",                             # add_rms_norm, add_layer_norm, bidense; HSVToRGB, AdjustHue
    "gamma_sampling_ops",                               # gamma(shape, alpha, beta), Gamma
    "im2col_ops",                                       # col2im, Im2Col, Col2Im (4-D layouts of unfold/fold)
    "ctc_decode_ops",                                   # ctc_greedy_decoder, CTCGreedyDecoder
    "sampling_ops",                                     # grid_sample, crop_and_resize, deformable_conv2d
    "sequence_losses",                                  # ctc_loss (CTCLossV2), CTCLoss, RNNTLoss, EditDistance
    "fractional_pool",                                  # fractional_max_pool2d/3d, FractionalMax/AvgPool, *FixedKsize
    "detection_ops",                                    # rotated_iou, CombinedNonMaxSuppression
    "misc_ops",                                         # choice_with_mask, coalesce, make_row_tensor; Tensor internals
    "candidate_sampling",                               # uniform/log_uniform_candidate_sampler
    "functional_control", "primitive_helpers",          # ForiLoop/Scan, jet/linearize, hooks; PrimitiveWithInfer, ...
    "complex_ops", "fft_ops",                           # complex dtype ops (angle, imag, polar, ...); fft family
)
DECLARATION_MODULES: tuple[types.ModuleType, ...] = tuple(
    importlib.import_module(f"{__package__}.{n}") for n in _MODULE_NAMES)


def _public_functions(module: types.ModuleType) -> dict:
    return {n: v for n, v in vars(module).items()
            if not n.startswith("_") and isinstance(v, types.FunctionType) and v.__module__ == module.__name__}


__all__: list[str] = []  # what `from spore.ops.functional import *` exports: the ops, nothing else
for _m in DECLARATION_MODULES:
    globals().update(_public_functions(_m))
    __all__.extend(_public_functions(_m))
__all__ = sorted(set(__all__))
importlib.import_module(f"{__package__}.complex_ops")._guard_registry()  # complex in/refused: all modules loaded

_binary = importlib.import_module(f"{__package__}.elementwise")._binary
