"""`spore.ops`: MindSpore's functional ops (`ops.matmul`) and op classes (`ops.MatMul()`).

Both are thin wrappers over the primitive registry in `spore.ops.primitive`: functions come from
the declaration modules listed in `functional`, classes (subclasses of `Operation`) from the
`classes_*` modules.
"""

import importlib as _importlib
import typing as _typing

from .functional import *  # noqa: F401,F403
from .functional import DECLARATION_MODULES, _public_functions
from .operation import Operation
from .primitive import REGISTRY, Primitive, primitive  # noqa: F401

for _m in DECLARATION_MODULES:
    globals().update(_public_functions(_m))

CLASS_MODULES = tuple(_importlib.import_module(f"{__name__}.{n}")
                      for n in ("classes_math", "classes_array", "classes_conv", "classes_norm", "classes_comm",
                                "classes_scatter_linalg", "classes_sort_array", "classes_random",
                                "classes_linalg_decomp", "classes_spatial_unique",
                                "segment_select_extra", "device_io_helpers",
                                "classes_extra", "classes_apply_optimizers", "classes_conv_nd",
                                "classes_sparse", "vision_box_ops",
                                "vision_nms_ops", "p2p_comm_ops", "comm_collective_ops", "box_coder_ops",
                                "fused_norm_color_ops", "gamma_sampling_ops", "im2col_ops",
                                "classes_conv_backprop", "ctc_decode_ops", "extract_patches_ops",
                                "sequence_losses", "fractional_pool", "detection_ops",
                                "dilation2d_ops", "sampling_ops", "misc_ops", "candidate_sampling", "train_misc_ops",
                                "summary_ops", "comm_class_ops", "complex_ops", "fft_ops"))
# MindSpore's higher-order classes and decorators: functional loops, gradient hooks and the custom-primitive
# helpers. They run the user's functions and are not class forms of registry ops, so they are kept apart.
HIGHER_ORDER_MODULES = tuple(_importlib.import_module(f"{__name__}.{n}")
                             for n in ("functional_control", "primitive_helpers"))
_CLASSES = {n: getattr(_m, n) for _m in CLASS_MODULES + HIGHER_ORDER_MODULES for n in _m.__all__}
globals().update(_CLASSES)

from ..tensor import Tensor  # noqa: E402  (MindSpore's ops namespace re-exports Tensor)
from .collective import ReduceOp  # noqa: E402  (ops.AllReduce(ReduceOp.MAX))
from .misc_ops import DataType  # noqa: E402  (named dtype/format pairs for custom-op registration: not an op)
from .p2p_comm_ops import P2POp  # noqa: E402  (batch_isend_irecv's op description: not a class-form op)
from .tcp_store import TCPStore  # noqa: E402  (a key-value store object, not an op)

__all__ = sorted({n for m in DECLARATION_MODULES for n in _public_functions(m)} | set(_CLASSES)
                 | {"Operation", "Primitive", "primitive", "REGISTRY", "ReduceOp", "P2POp", "DataType", "Tensor",
                    "TCPStore"})

from .. import _tensor_api  # noqa: E402,F401  (Tensor.from_numpy and the missing-method error)

if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.ops", name)
