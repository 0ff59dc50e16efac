"""The modular-addition task of the grokking paper (Section 3.1).

``p`` prime; the dataset is every triple ``(a, b, a + b mod p)``, ``p^2`` of
them; a training subset of fraction ``f`` is drawn uniformly without
replacement from one seed, the rest is the validation set.  Inputs are
one-hot ``x = [e_a; e_b]`` in ``R^{2p}`` and targets ``y = e_c`` in ``R^p``.
Because ``x`` is one-hot, ``W^T x = W[a] + W[p + b]``: nothing here builds the
``(N, 2p)`` input matrix unless asked (:meth:`ModularAddition.inputs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError
from algebra.models.base import positive_int

__all__ = ["ModularAddition", "modular_addition", "check_prime", "check_fraction", "train_size"]


#: Largest modulus (exclusive): the task lists all ``p^2`` pairs in a few int64 arrays (``p = 4093``: 134 MB each),
#: so a larger ``p`` is refused before they are allocated (``p = 1000003`` asked for 7.3 TiB).  The papers use
#: ``p <= 113``.
MAX_P = 4096


def check_prime(p, *, argument: str = "--p") -> int:
    """Validate the modulus: a prime ``>= 2`` below :data:`MAX_P` (checked before the ``p^2`` pairs are listed).

    Examples
    --------
    >>> check_prime(7)
    7
    >>> check_prime(9)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --p=9: expected a prime below 4096 (MAX_P)
    >>> check_prime(1000003)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --p=1000003: expected a prime below 4096 (MAX_P)
    """
    return inputs.prime(p, argument, below=MAX_P, allowed=f"a prime below {MAX_P} (MAX_P)")


def check_fraction(f, *, argument: str = "--train-fraction") -> float:
    """Validate the training fraction: a number in ``(0, 1]``.

    Examples
    --------
    >>> check_fraction(0.4)
    0.4
    >>> check_fraction(0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --train-fraction=0: expected a number in (0, 1]
    """
    return inputs.real(f, argument, low=0.0, high=1.0, low_open=True)


def train_size(p: int, f: float) -> int:
    """Number of training triples: ``floor(f p^2)`` (what ``int(f * len(data))`` gives).

    Examples
    --------
    >>> train_size(53, 0.4), train_size(7, 1.0)
    (1123, 49)
    """
    return int(f * p * p)


@dataclass(frozen=True)
class ModularAddition:
    """All ``p^2`` triples and one seeded train/validation split.

    Attributes
    ----------
    p : int
    train_fraction : float
    seed : int
        Root of the :class:`numpy.random.SeedSequence` of the split.
    a, b, c : ndarray (p^2,)
        All triples, in the order ``a * p + b``.
    train, val : ndarray of int
        Indices into the triples (sorted).

    Examples
    --------
    >>> t = modular_addition(5, 0.4, seed=0)
    >>> t.n_train, t.n_val, int(t.c[7])        # triple 7 is (1, 2, 3)
    (10, 15, 3)
    >>> np.array_equal(t.train, modular_addition(5, 0.4, seed=0).train)
    True
    """

    p: int
    train_fraction: float
    seed: int
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    c: np.ndarray = field(repr=False)
    train: np.ndarray = field(repr=False)
    val: np.ndarray = field(repr=False)

    @property
    def n_train(self) -> int:
        return int(self.train.size)

    @property
    def n_val(self) -> int:
        return int(self.val.size)

    def inputs(self, idx) -> np.ndarray:
        """One-hot inputs ``[e_a; e_b]`` of the triples ``idx``, shape ``(len(idx), 2p)``."""
        idx = np.asarray(idx)
        X = np.zeros((idx.size, 2 * self.p))
        X[np.arange(idx.size), self.a[idx]] = 1.0
        X[np.arange(idx.size), self.p + self.b[idx]] = 1.0
        return X

    def targets(self, idx) -> np.ndarray:
        """One-hot targets ``e_c``, shape ``(len(idx), p)``."""
        idx = np.asarray(idx)
        Y = np.zeros((idx.size, self.p))
        Y[np.arange(idx.size), self.c[idx]] = 1.0
        return Y


def modular_addition(p: int, train_fraction: float, seed: int = 0) -> ModularAddition:
    """The task of Section 3.1 with a training subset of fraction ``train_fraction``.

    Parameters
    ----------
    p : int
        A prime.
    train_fraction : float
        In ``(0, 1]``; ``floor(f p^2)`` triples, at least 2 (the centred loss
        needs two samples).
    seed : int
        The split is a permutation drawn from ``SeedSequence(seed)``.

    Raises
    ------
    InputError
        Naming ``--p``, ``--train-fraction`` or ``--seed``.

    Examples
    --------
    >>> modular_addition(4, 0.5)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --p=4: expected a prime below 4096 (MAX_P)
    >>> modular_addition(3, 0.1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --train-fraction=0.1: expected a fraction giving at least 2 of the 9 triples
    """
    p = check_prime(p)
    f = check_fraction(train_fraction)
    seed = positive_int("--seed", seed, minimum=0)
    n = train_size(p, f)
    if n < 2:
        raise InputError("--train-fraction", train_fraction, f"a fraction giving at least 2 of the {p * p} triples")
    grid = np.arange(p * p)
    a, b = grid // p, grid % p
    perm = np.random.default_rng(np.random.SeedSequence(seed)).permutation(p * p)
    return ModularAddition(p, f, seed, a, b, (a + b) % p, np.sort(perm[:n]), np.sort(perm[n:]))
