"""A text classifier written for MindSpore 2.10, in the style of its sentiment-analysis (RNN)
tutorial: a `dataset.text` pipeline (whitespace tokenizer, a `Vocab` built from the training
data, `Lookup`, padding), `nn.Embedding` + `nn.LSTM`, and a functional training loop with
`value_and_grad`.

This file imports `mindspore`. tests/examples/test_mindspore_programs.py changes only the import
lines (`mindspore` -> `spore`) and runs it. The sentences are generated from two small topic
vocabularies, so nothing is downloaded.

    python text_classifier.py [epochs] [checkpoint path]
"""

import json
import sys

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.text as text
import mindspore.dataset.transforms as transforms
import numpy as np
from mindspore import nn

ms.set_seed(2)
MAX_LEN = 12
TOPICS = [
    "goal match team score player coach league win season stadium".split(),
    "recipe oven flour butter bake sugar dough taste kitchen salt".split(),
]
FILLER = "the a and of was very this that with for it really".split()


def make_sentences(n, seed):
    rng = np.random.default_rng(seed)
    sentences, labels = [], []
    for _ in range(n):
        label = int(rng.integers(0, 2))
        length = int(rng.integers(5, MAX_LEN + 3))        # some are longer than MAX_LEN: truncated
        words = [TOPICS[label][rng.integers(0, 10)] if rng.uniform() < 0.35 else FILLER[rng.integers(0, 12)]
                 for _ in range(length)]
        sentences.append(" ".join(words))
        labels.append(label)
    return sentences, labels


class Sentences:
    def __init__(self, n, seed):
        self.sentences, self.labels = make_sentences(n, seed)

    def __getitem__(self, index):
        return np.array(self.sentences[index]), np.array(self.labels[index], np.int32)

    def __len__(self):
        return len(self.labels)


def create_dataset(n, seed, vocab=None, shuffle=False, batch_size=16):
    data = ds.GeneratorDataset(Sentences(n, seed), column_names=["text", "label"], shuffle=shuffle)
    data = data.map(operations=text.WhitespaceTokenizer(), input_columns="text")
    if vocab is None:
        vocab = text.Vocab.from_dataset(data, columns=["text"], special_tokens=["<pad>", "<unk>"])
    pad = vocab.tokens_to_ids("<pad>")
    data = data.map(operations=[text.Lookup(vocab, unknown_token="<unk>"),
                                transforms.Slice(slice(0, MAX_LEN)),
                                transforms.PadEnd([MAX_LEN], pad_value=pad),
                                transforms.TypeCast(ms.int32)], input_columns="text")
    return data.batch(batch_size), vocab


class LSTMClassifier(nn.Cell):
    def __init__(self, vocab_size, embed_dim=16, hidden=24, num_classes=2, pad_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_idx)
        self.lstm = nn.LSTM(embed_dim, hidden, batch_first=True)
        self.fc = nn.Dense(hidden, num_classes)

    def construct(self, ids):
        out, (h, _) = self.lstm(self.embedding(ids))
        return self.fc(h[-1])


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    train_ds, vocab = create_dataset(320, seed=0, shuffle=True)
    test_ds, _ = create_dataset(160, seed=1, vocab=vocab)
    net = LSTMClassifier(len(vocab.vocab()), pad_idx=vocab.tokens_to_ids("<pad>"))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)

    def forward_fn(ids, label):
        logits = net(ids)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(ids, label):
        (loss, _), grads = grad_fn(ids, label)
        optimizer(grads)
        return loss

    losses = []
    for epoch in range(epochs):
        net.set_train()
        total = [float(train_step(ids, label).asnumpy()) for ids, label in train_ds.create_tuple_iterator()]
        losses.append(sum(total) / len(total))
        print(f"epoch {epoch + 1}: loss {losses[-1]:.4f}")

    net.set_train(False)
    correct = count = 0
    for ids, label in test_ds.create_tuple_iterator():
        pred = net(ids).argmax(1)
        correct += int((pred == label).asnumpy().sum())
        count += label.shape[0]
    if len(sys.argv) > 2:
        ms.save_checkpoint(net, sys.argv[2])
    print("RESULT " + json.dumps({"accuracy": correct / count, "first_loss": losses[0], "last_loss": losses[-1],
                                  "vocab": len(vocab.vocab())}))


if __name__ == "__main__":
    main()
