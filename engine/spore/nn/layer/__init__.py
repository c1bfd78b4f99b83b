"""Layers of `spore.nn`, one module per family (basic, activation, conv, pooling, normalization,
embedding, rnn, transformer)."""

from . import (
    activation,
    basic,
    combined,
    conv,
    conv_pool_nd,
    embedding,
    extra,
    grad_cells,
    image_quality,
    misc_cells,
    normalization,
    pooling,
    rnn,
    rnn_cells,
    sparse_cells,
    transformer,
    transformer_decoder,
)
from .activation import *
from .activation import get_activation
from .basic import *
from .combined import *
from .conv import *
from .conv_pool_nd import *
from .embedding import *
from .extra import *
from .grad_cells import *
from .image_quality import *
from .misc_cells import *
from .normalization import *
from .pooling import *
from .rnn import *
from .rnn_cells import *
from .sparse_cells import *
from .transformer import *
from .transformer_decoder import *

# what `from spore.nn.layer import *` (and so `spore.nn`) exports: each family's layers
__all__ = []
__all__ += activation.__all__  # get_activation included
__all__ += basic.__all__
__all__ += combined.__all__
__all__ += conv.__all__
__all__ += conv_pool_nd.__all__
__all__ += misc_cells.__all__
__all__ += grad_cells.__all__
__all__ += image_quality.__all__
__all__ += embedding.__all__
__all__ += normalization.__all__
__all__ += pooling.__all__
__all__ += rnn.__all__
__all__ += transformer.__all__
__all__ += transformer_decoder.__all__
__all__ += extra.__all__
__all__ += rnn_cells.__all__
__all__ += sparse_cells.__all__
