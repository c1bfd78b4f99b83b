"""Optimizers with MindSpore's names, arguments and update formulas (`spore.nn.SGD`, `nn.Adam`, ...).

Each optimizer updates its Parameters in place when called with a tuple of gradients in the order
of ``optimizer.parameters``. SGD, Momentum, Adam and AdamWeightDecay run one fused C++ pass over all
parameters per step (`spore._kernels.*_update_multi`); other dtypes and Adagrad/RMSProp use NumPy.
"""

from .ada_grad import Adagrad
from .adadelta import Adadelta
from .adafactor_lars import LARS, AdaFactor
from .adam import Adam, AdamW, AdamWeightDecay
from .momentum import Momentum
from .more_optimizers import ASGD, FTRL, AdaMax, Lamb, LazyAdam, ProximalAdagrad, Rprop
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "Adagrad", "Adadelta", "RMSProp",
           "AdaMax", "ASGD", "Rprop", "ProximalAdagrad", "LazyAdam", "Lamb", "FTRL", "AdaFactor", "LARS"]
