"""Tests of algebra.grokking.task: the split is a seeded partition of all p^2 triples."""

import numpy as np
import pytest

from algebra.errors import InputError
from algebra.grokking.task import modular_addition, train_size


@pytest.mark.parametrize("p,f,seed", [(2, 1.0, 0), (5, 0.4, 3), (13, 0.6, 1), (23, 0.4, 0)])
def test_split_partitions_all_triples(p, f, seed):
    t = modular_addition(p, f, seed)
    both = np.concatenate([t.train, t.val])
    assert sorted(both.tolist()) == list(range(p * p))
    assert t.n_train == train_size(p, f)
    assert np.array_equal((t.a + t.b) % p, t.c)
    X, Y = t.inputs(t.train), t.targets(t.train)
    assert np.array_equal(X.sum(axis=1), np.full(t.n_train, 2.0)) and np.array_equal(Y.argmax(axis=1), t.c[t.train])


def test_seed_decides_the_split():
    a, b, c = (modular_addition(11, 0.5, s) for s in (0, 0, 1))
    assert np.array_equal(a.train, b.train)
    assert not np.array_equal(a.train, c.train)


@pytest.mark.parametrize("p,f,arg", [(9, 0.5, "--p"), (1, 0.5, "--p"), (7, 0.0, "--train-fraction"),
                                     (7, 1.01, "--train-fraction"), (7, -0.2, "--train-fraction"),
                                     (3, 0.1, "--train-fraction")])
def test_bad_arguments_name_the_argument(p, f, arg):
    with pytest.raises(InputError) as e:
        modular_addition(p, f)
    assert e.value.argument == arg
