"""vision.AutoAugment / AutoAugmentPolicy (issue 14, rest slice): the published policy tables'
shape, single steps against NumPy formulas, and every pipeline output being one of the outcomes the
policy allows (enumerated: each sub-policy x each step applied or not x each sign)."""

import itertools

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import vision
from spore.dataset.vision.auto_augment import _POLICIES, apply_step


def _img(seed=0):
    return np.random.default_rng(seed).integers(0, 256, (12, 14, 3), dtype=np.uint8)


def test_policy_tables_are_25_two_step_sub_policies():
    assert {p.value for p in vision.AutoAugmentPolicy} == {"imagenet", "cifar", "svhn"}
    for subs in _POLICIES.values():
        assert len(subs) == 25
        for sub in subs:
            assert len(sub) == 2
            for _name, p, b in sub:
                assert 0.0 <= p <= 1.0 and (b is None or 0 <= b <= 9)


def test_steps_match_numpy_formulas():
    a = _img(1)
    nearest = vision.Inter.NEAREST
    np.testing.assert_array_equal(apply_step(a, "Invert", None, False, nearest, 0), 255 - a)
    # Posterize bin 8 of 10 keeps 8 - round(8 / (9 / 4)) = 4 bits
    np.testing.assert_array_equal(apply_step(a, "Posterize", 8, False, nearest, 0), a & 0xF0)
    thr = np.linspace(255.0, 0.0, 10)[5]
    np.testing.assert_array_equal(apply_step(a, "Solarize", 5, False, nearest, 0), np.where(a >= thr, 255 - a, a))
    # TranslateX bin 9 moves by 150/331 of the width; the sign flips the direction
    shift = int(150.0 / 331.0 * a.shape[1])
    np.testing.assert_array_equal(apply_step(a, "TranslateX", 9, False, nearest, 0)[:, shift:], a[:, :-shift])
    np.testing.assert_array_equal(apply_step(a, "TranslateX", 9, True, nearest, 0)[:, :-shift], a[:, shift:])


@pytest.mark.parametrize("policy", list(vision.AutoAugmentPolicy))
def test_outputs_are_allowed_outcomes_and_seeded(policy):
    a = _img(2)
    op = vision.AutoAugment(policy)
    allowed = []
    for sub in _POLICIES[policy]:
        for applied in itertools.product((False, True), repeat=2):
            for neg in itertools.product((False, True), repeat=2):
                x = a
                for (name, _p, b), on, n in zip(sub, applied, neg, strict=True):
                    if on:
                        x = apply_step(x, name, b, n, vision.Inter.NEAREST, 0)
                allowed.append(x)

    def run():
        ds.config.set_seed(7)
        d = ds.NumpySlicesDataset({"image": np.stack([a] * 8)}, shuffle=False).map(op)
        return [x for (x,) in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]

    first, again = run(), run()
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)
        assert any(np.array_equal(x, c) for c in allowed)
    assert any(not np.array_equal(x, a) for x in first)


def test_bad_arguments_name_autoaugment():
    with pytest.raises(ValueError, match="AutoAugment: policy"):
        vision.AutoAugment("imagenet2")
    with pytest.raises(ValueError, match="AutoAugment: fill_value"):
        vision.AutoAugment(fill_value=300)
    with pytest.raises(TypeError, match="AutoAugment"):
        vision.AutoAugment()(np.zeros((4, 4, 3), np.float32))
