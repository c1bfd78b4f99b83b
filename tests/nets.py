"""Networks several test modules share; the seeds' SimpleCNN exactly as the article writes it."""

from spore import nn


class SimpleCNN(nn.Cell):
    """The seeds' network, unchanged apart from the import."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, pad_mode='pad', padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fc = nn.Dense(16 * 16 * 16, 10)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.pool(x)
        x = self.flatten(x)
        return self.fc(x)
