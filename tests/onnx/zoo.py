"""The Graph-mode zoo the ONNX tests export (tests/compiler/test_zoo.py's nets, plus a tensor
`while`), each with an input shape."""

from spore import nn, ops

from ..compiler.test_zoo import MLP, BNNet, Encoder, LeNet, LSTMNet, ShapeIf, ValueIf
from ..nets import SimpleCNN


class ValueWhile(nn.Cell):
    """A loop on a tensor value: halves the activations until their sum is small."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        h = self.fc(x)
        while ops.reduce_sum(ops.abs(h)) > 1.0:
            h = h * 0.5
        return h


ZOO = {
    "mlp": (MLP, (8, 20)),
    "lenet": (LeNet, (4, 1, 8, 8)),
    "simplecnn": (SimpleCNN, (2, 3, 32, 32)),
    "shape_if_wide": (ShapeIf, (2, 5, 8, 8)),
    "shape_if_narrow": (ShapeIf, (2, 3, 8, 8)),
    "value_if": (ValueIf, (3, 6)),
    "value_while": (ValueWhile, (3, 4)),
    "lstm": (LSTMNet, (6, 2, 5)),
    "encoder": (Encoder, (5, 2, 16)),
    "batchnorm_eval": (BNNet, (4, 3, 6, 6)),
}
