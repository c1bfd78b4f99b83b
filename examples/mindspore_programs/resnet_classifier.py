"""A ResNet-style image classifier written for MindSpore 2.10, in the style of its ResNet tutorial:
residual blocks with BatchNorm, a `dataset.vision` augmentation pipeline, `Model.train` with a
`LossMonitor`, `Model.eval`, and a checkpoint saved and loaded back.

This file imports `mindspore`. tests/examples/test_mindspore_programs.py changes only the import
lines (`mindspore` -> `spore`) and runs it. The images are generated (three classes of coloured
stripes and blobs), so nothing is downloaded.

    python resnet_classifier.py [epochs] [checkpoint path]
"""

import json
import sys

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
import numpy as np
from mindspore import nn, ops

ms.set_seed(1)


def make_images(n, seed):
    """n 32x32 RGB uint8 images: horizontal stripes, vertical stripes or a bright square, with noise."""
    rng = np.random.default_rng(seed)
    images = np.empty((n, 32, 32, 3), np.uint8)
    labels = rng.integers(0, 3, n).astype(np.int64)
    yy, xx = np.mgrid[0:32, 0:32]
    for i, label in enumerate(labels):
        phase, color = rng.integers(0, 8), rng.uniform(0.4, 1.0, 3)
        if label == 0:
            pattern = ((yy + phase) // 4) % 2
        elif label == 1:
            pattern = ((xx + phase) // 4) % 2
        else:
            cy, cx = rng.integers(8, 24, 2)
            pattern = (abs(yy - cy) < 6) & (abs(xx - cx) < 6)
        img = pattern[..., None] * color * 200 + rng.uniform(0, 55, (32, 32, 3))
        images[i] = img.astype(np.uint8)
    return images, labels


class Images:
    """A random-access source for GeneratorDataset."""

    def __init__(self, n, seed):
        self.images, self.labels = make_images(n, seed)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


def create_dataset(n, seed, train, batch_size=32):
    data = ds.GeneratorDataset(Images(n, seed), column_names=["image", "label"], shuffle=train)
    ops_list = [vision.RandomCrop(32, padding=4), vision.RandomHorizontalFlip()] if train else []
    ops_list += [vision.Rescale(1.0 / 255.0, 0.0),
                 vision.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]),
                 vision.HWC2CHW()]
    data = data.map(operations=ops_list, input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=train)


class ResidualBlock(nn.Cell):
    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, out_channel, 3, stride=stride)
        self.bn1 = nn.BatchNorm2d(out_channel)
        self.conv2 = nn.Conv2d(out_channel, out_channel, 3)
        self.bn2 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([nn.Conv2d(in_channel, out_channel, 1, stride=stride),
                                                        nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    def __init__(self, num_classes=3):
        super().__init__()
        self.stem = nn.SequentialCell([nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU()])
        self.layer1 = ResidualBlock(16, 16)
        self.layer2 = ResidualBlock(16, 32, stride=2)
        self.layer3 = ResidualBlock(32, 32, stride=2)
        self.fc = nn.Dense(32, num_classes)

    def construct(self, x):
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        x = ops.mean(x, (2, 3))
        return self.fc(x)


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    ckpt = sys.argv[2] if len(sys.argv) > 2 else "resnet_classifier.ckpt"
    ms.set_context(mode=ms.GRAPH_MODE)
    train_ds = create_dataset(384, seed=0, train=True)
    test_ds = create_dataset(192, seed=1, train=False)
    net = ResNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = ms.Model(net, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"})
    model.train(epochs, train_ds, callbacks=[ms.LossMonitor(6)])
    acc = model.eval(test_ds)["accuracy"]
    ms.save_checkpoint(net, ckpt)

    restored = ResNet()
    ms.load_param_into_net(restored, ms.load_checkpoint(ckpt))
    restored.set_train(False)
    net.set_train(False)
    images = ms.Tensor(next(test_ds.create_tuple_iterator())[0].asnumpy())
    same = bool(np.array_equal(net(images).asnumpy(), restored(images).asnumpy()))
    print("RESULT " + json.dumps({"accuracy": float(acc), "restored_equal": same}))


if __name__ == "__main__":
    main()
