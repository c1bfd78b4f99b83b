"""Layers of `spore.nn`, one module per family (basic, activation, conv, pooling, normalization,
embedding, rnn, transformer)."""

from .activation import *
from .activation import get_activation
from .basic import *
from .conv import *
from .embedding import *
from .normalization import *
from .pooling import *
from .rnn import *
from .transformer import *
