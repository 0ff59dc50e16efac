"""Teacher–student learning coefficient of the modular-addition network, with its exact value.

A validation model for the sampled LLC (issue 15) from the grokking paper's
architecture (Section 3.1): the quadratic network ``Y_hat = (W^T x)^2 V^T`` on
the one-hot training pairs ``x = [e_a; e_b]`` of
:func:`~algebra.grokking.task.modular_addition`, with the paper's centred
loss, fitted to a *teacher* network instead of the labels.  The loss is the
exact population quantity (noise-free; ``n = None`` as for the graph-attention
models)

    K(w) = 1 / (2 N) || P_perp (Y_hat(w) - Y_hat(w*)) ||_F^2 ,

``P_perp`` centring over the ``N`` training inputs.  This is ``1/(2N)`` times the
squared distance in the image of the data-restricted map
``w -> N Y_hat P_perp`` of :class:`~algebra.grokking.references.DataRestrictedQuadratic`
(up to the factor ``N^2``), so the learning coefficient is exact:

* the engine certifies the generic rank ``r`` of that map;
* the teacher ``w*`` is an *integer* point, and the rank of the Jacobian at
  ``w*`` is computed exactly modulo a prime: a rank ``r`` there is a proven
  lower bound over Q, and ``r`` is the generic rank, so the rank is ``r`` at
  ``w*`` and (lower semicontinuity) on a neighbourhood;
* by the constant-rank theorem the image is near ``f(w*)`` an ``r``-dimensional
  manifold and ``K`` vanishes to order exactly two on the fibre, in ``r``
  transverse coordinates: ``lambda = r / 2``, ``m = 1``.

When the teacher's rank is below ``r`` (a singular teacher) no exact value is
claimed (:func:`teacher_coefficient` raises :class:`~algebra.errors.DomainError`).
The teacher's entries are small non-zero integers drawn from the seed, so no
neuron is switched off.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from algebra.errors import DomainError, InputError
from algebra.exact.field import DEFAULT_PRIME, PrimeField
from algebra.exact.rank import rank_mod_p
from algebra.grokking.network import parameter_count
from algebra.grokking.references import DataRestrictedQuadratic
from algebra.grokking.task import modular_addition
from algebra.numeric.models import RegressionModel

__all__ = ["ModularAdditionTeacher", "teacher_point", "teacher_coefficient"]

#: magnitude of the teacher's integer entries (non-zero, in ``[-TEACHER_MAX, TEACHER_MAX]``)
TEACHER_MAX = 2


def teacher_point(p: int, width: int, seed: int = 0) -> np.ndarray:
    """The teacher ``w* = (vec W, vec V)``: non-zero integers in ``[-2, 2]`` drawn from ``SeedSequence(seed)``.

    Examples
    --------
    >>> w = teacher_point(5, 2, seed=0)
    >>> w.shape, bool(np.all(w != 0)), int(np.abs(w).max()) <= 2
    ((30,), True, True)
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    P = parameter_count(p, width)
    return rng.choice([-2, -1, 1, 2], size=P).astype(np.int64)


def teacher_coefficient(p: int, width: int, train_fraction: float = 1.0, seed: int = 0, *,
                        prime: int = DEFAULT_PRIME) -> dict:
    """``lambda = r / 2``, ``m = 1`` at the integer teacher, with the proof's two ranks.

    Returns
    -------
    dict
        ``lam`` (Fraction), ``multiplicity``, ``generic_rank`` (certified by the
        engine), ``teacher_rank`` (exact rank modulo ``prime`` at the teacher),
        ``n_train``, ``parameters``.

    Raises
    ------
    DomainError
        When the engine cannot certify the generic rank, or the teacher's rank
        is below it (no exact value is claimed there).

    Examples
    --------
    >>> c = teacher_coefficient(5, 2)
    >>> c["lam"], c["multiplicity"], c["generic_rank"], c["teacher_rank"], c["parameters"]
    (Fraction(13, 1), 1, 26, 26, 30)
    """
    from algebra.engine import dimension

    task = modular_addition(p, train_fraction, seed)
    model = DataRestrictedQuadratic(p, width, task.a[task.train], task.b[task.train])
    res = dimension(model, seed=seed, prime=prime)
    if not res.certified:
        raise DomainError(f"the generic rank of the data-restricted map is not certified "
                          f"({res.lower_bound} <= r <= {res.upper_bound}): no exact coefficient")
    F = PrimeField(prime)
    J = model.jacobian(teacher_point(p, width, seed), None, F)
    at_teacher = rank_mod_p(J, prime)
    if at_teacher != res.dimension:
        raise DomainError(f"the teacher is a singular point (rank {at_teacher} < generic rank {res.dimension}): "
                          "lambda is not r/2 there, and no exact value is claimed")
    return {"lam": Fraction(res.dimension, 2), "multiplicity": 1, "generic_rank": res.dimension,
            "teacher_rank": at_teacher, "n_train": model.n, "parameters": model.parameter_count}


class ModularAdditionTeacher:
    """Population loss ``K(w)`` to the integer teacher on the training pairs (module docstring).

    ``w = (vec W, vec V)`` with ``W`` of shape ``(2p, K)`` and ``V`` of shape
    ``(p, K)``, row-major (the layout of :mod:`algebra.grokking.network`).
    Provides what the samplers need: ``w_star``, ``loss``, ``loss_and_grad``
    (vectorised over chains, rows of ``W``), ``hessian_vector``.

    Examples
    --------
    >>> m = ModularAdditionTeacher(5, 2)
    >>> loss, grad = m.loss_and_grad(np.stack([m.w_star, m.w_star + 0.01]))
    >>> m.dim, bool(loss[0] == 0 < loss[1]), grad.shape
    (30, True, (2, 30))
    """

    n = None  # the loss is the exact population quantity (noise-free)
    family = "modadd"

    def __init__(self, p: int, width: int, train_fraction: float = 1.0, seed: int = 0):
        task = modular_addition(p, train_fraction, seed)
        self.p, self.K = task.p, int(width)
        if self.K < 1:
            raise InputError("width", width, "an integer >= 1")
        self.a, self.b = task.a[task.train], task.b[task.train]
        self.N = int(self.a.size)
        self.w_star = teacher_point(self.p, self.K, seed).astype(np.float64)
        self._Y_star = self._centred(self._predict(self.w_star[None]))[0]
        self.name = f"modadd p={self.p} K={self.K} N={self.N} (teacher)"

    @property
    def dim(self) -> int:
        return parameter_count(self.p, self.K)

    def _split(self, W: np.ndarray):
        p, K = self.p, self.K
        return W[:, : 2 * p * K].reshape(-1, 2 * p, K), W[:, 2 * p * K:].reshape(-1, p, K)

    def _hidden(self, Wm: np.ndarray) -> np.ndarray:
        return Wm[:, self.a] + Wm[:, self.p + self.b]  # (chains, N, K)

    def _predict(self, W: np.ndarray) -> np.ndarray:
        Wm, V = self._split(W)
        H = self._hidden(Wm)
        return np.einsum("cnk,cjk->cnj", H * H, V)  # (chains, N, p)

    @staticmethod
    def _centred(Y: np.ndarray) -> np.ndarray:
        return Y - Y.mean(axis=1, keepdims=True)

    def loss(self, W: np.ndarray) -> np.ndarray:
        R = self._centred(self._predict(np.atleast_2d(W))) - self._Y_star
        return 0.5 * np.einsum("cnj,cnj->c", R, R) / self.N

    def loss_and_grad(self, W: np.ndarray, batch=None):
        if batch is not None:
            raise InputError("batch", "minibatch", "None (the population loss is a full finite sum)")
        W = np.atleast_2d(W)
        Wm, V = self._split(W)
        H = self._hidden(Wm)
        A = H * H
        R = self._centred(np.einsum("cnk,cjk->cnj", A, V)) - self._Y_star
        loss = 0.5 * np.einsum("cnj,cnj->c", R, R) / self.N
        R /= self.N  # P_perp is a projection: the gradient of 1/2 |P_perp Y - Y*|^2 is J^T (P_perp Y - Y*)
        gV = np.einsum("cnj,cnk->cjk", R, A)
        gH = 2.0 * H * np.einsum("cnj,cjk->cnk", R, V)
        gW = np.zeros_like(Wm)
        np.add.at(gW, (slice(None), self.a), gH)
        np.add.at(gW, (slice(None), self.p + self.b), gH)
        return loss, np.concatenate([gW.reshape(len(W), -1), gV.reshape(len(W), -1)], axis=1)

    # central differences of the gradient, as for the regression models
    hessian_vector = RegressionModel.hessian_vector
