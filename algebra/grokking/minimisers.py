"""Zero-loss points of the grokking network's training loss, reached numerically and tested exactly.

The paper's LLC estimator (Appendix B.1) "fixes a local minimizer of L_n", and
Theorem F.1 needs ``L_n(w*) = min L_n``; a trained checkpoint is neither (the
checker proves ``grad L_n != 0`` at the committed ones).  Two steps towards a
proven minimiser:

1. :func:`levenberg_marquardt`: full-batch Levenberg-Marquardt (Nielsen's
   damping rule) on the *unregularised* centred loss
   ``L_n = 1/(2n) ||P_perp (Y - Y_hat)||_F^2`` from a checkpoint, recording the
   phase before and after from the exact accuracies
   (:func:`algebra.grokking.checkpoints.exact_accuracies`).  A float point with
   a tiny ``L_n`` is not a proof of anything.
2. :func:`last_layer_system`: ``Y_hat = (W^T x)^2 V^T`` is linear in ``V``.
   With ``W`` fixed at its binary64 (dyadic rational) values, zero loss is the
   linear system ``P_perp Phi V^T = P_perp Y`` over ``Q`` (``Phi = (W^T x)^2``,
   ``n x K``): ``p (n - 1)`` independent equations after centring (``n - 1`` per
   output) in ``p K`` unknowns (``K`` per output).  It has an exact rational
   solution exactly when ``rank [C | P_perp Y] = rank C`` (``C = P_perp Phi``),
   decided here in exact integer arithmetic (python-flint ``fmpz_mat.rank``);
   where it has one, the solution is returned and its loss re-evaluated in
   :class:`fractions.Fraction` arithmetic: ``L_n = 0`` exactly, a global
   minimiser of ``L_n >= 0``.  Where ``n - 1 > K`` the system is overdetermined
   and a generic ``W`` admits no exact ``V``.

Nothing here writes a certificate: the float iterates depend on the CPU's
kernels, and the exact verdict is about the rounded point it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.exact.field import FloatField
from algebra.grokking.checkpoints import exact_accuracies, phase
from algebra.grokking.local_rank import dyadic_point
from algebra.grokking.network import CentredLoss, parameter_count, split
from algebra.grokking.references import DataRestrictedQuadratic
from algebra.grokking.task import ModularAddition
from algebra.models.base import positive_int

__all__ = ["Descent", "levenberg_marquardt", "LastLayer", "last_layer_system", "exact_training_loss"]


@dataclass(frozen=True)
class Descent:
    """What :func:`levenberg_marquardt` did: the point reached, ``steps`` taken (accepted or not), the losses
    ``L_n`` (float) before and after, and the exact ``(train, validation)`` accuracies and phases before and
    after (:func:`~algebra.grokking.checkpoints.phase`)."""

    theta: np.ndarray
    steps: int
    accepted: int
    loss_before: float
    loss_after: float
    accuracy_before: tuple
    accuracy_after: tuple
    phase_before: str
    phase_after: str

    @property
    def phase_kept(self) -> bool:
        return self.phase_before == self.phase_after


def _residual_and_jacobian(model: DataRestrictedQuadratic, Yc: np.ndarray, theta: np.ndarray):
    """``r = P_perp (Y_hat - Y)`` flattened sample-major and its Jacobian ``d r / d theta`` (float64)."""
    F = FloatField()
    n = model.n
    r = model.forward(theta, None, F).ravel() / n - Yc
    return r, model.jacobian(theta, None, F) / n


def levenberg_marquardt(task: ModularAddition, width: int, theta, *, steps: int = 100,
                        loss_floor: float = 1e-28) -> Descent:
    """Full-batch Levenberg-Marquardt on the unregularised training loss from ``theta``.

    Each step solves ``(J^T J + mu I) delta = -J^T r`` for the centred residual ``r`` of the training samples
    (``L_n = ||r||^2 / (2n)``) and adapts ``mu`` by Nielsen's rule (a step is accepted when the loss drops;
    ``mu`` shrinks by ``max(1/3, 1 - (2 rho - 1)^3)`` then, doubles its growth otherwise).  It stops after
    ``steps`` steps or once ``L_n <= loss_floor``.  ``J^T J`` is ``P x P`` (``P = 3 p K``), so this is for the
    small presets (``P`` of a few thousand).

    Parameters
    ----------
    task : ModularAddition
        The training samples are ``task.train``; the validation accuracy is taken on ``task.val``.
    width : int
        ``K``.
    theta : array (3pK,)
        The start (a checkpoint).
    steps : int
        At most this many steps (``>= 1``).
    loss_floor : float
        Stop once ``L_n`` is at most this (a float target, not a proof).

    Examples
    --------
    >>> from algebra.grokking.task import modular_addition
    >>> from algebra.grokking.network import init_params
    >>> t = modular_addition(5, 0.8, 0)
    >>> d = levenberg_marquardt(t, 8, init_params(5, 8, np.random.default_rng(0)), steps=60)
    >>> d.loss_after < 1e-3 * d.loss_before, d.accuracy_after[0]
    (True, Fraction(1, 1))
    >>> levenberg_marquardt(t, 8, np.zeros(3), steps=1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid theta=(3,): expected a vector of 3pK = 120 entries
    """
    K = positive_int("width", width)
    steps = positive_int("steps", steps)
    theta = np.array(theta, dtype=float).ravel()
    P = parameter_count(task.p, K)
    if theta.size != P or not np.all(np.isfinite(theta)):
        raise InputError("theta", theta.shape if theta.size != P else "non-finite",
                         f"a vector of 3pK = {P} entries" if theta.size != P else "finite entries")
    tr = np.asarray(task.train)
    model = DataRestrictedQuadratic(task.p, K, task.a[tr], task.b[tr])
    loss = CentredLoss(task.p, K, task.a[tr], task.b[tr], task.c[tr])
    Y = loss.Y
    Yc = (Y - Y.mean(axis=0, keepdims=True)).ravel()
    n = model.n
    acc0 = exact_accuracies(task, K, theta)
    r, J = _residual_and_jacobian(model, Yc, theta)
    L0 = L = float(r @ r) / (2 * n)
    A, g = J.T @ J, J.T @ r
    mu, nu, accepted, done = 1e-3 * float(np.max(np.diag(A))), 2.0, 0, 0
    for done in range(1, steps + 1):
        if L <= loss_floor:
            done -= 1
            break
        delta = np.linalg.solve(A + mu * np.eye(P), -g)
        trial = theta + delta
        r_new, J_new = _residual_and_jacobian(model, Yc, trial)
        L_new = float(r_new @ r_new) / (2 * n)
        predicted = -(delta @ g + 0.5 * delta @ (A @ delta)) / n
        rho = (L - L_new) / predicted if predicted > 0 else -1.0
        if rho > 0:
            theta, r, J, L = trial, r_new, J_new, L_new
            A, g = J.T @ J, J.T @ r
            mu *= max(1 / 3, 1 - (2 * rho - 1) ** 3)
            nu, accepted = 2.0, accepted + 1
        else:
            mu, nu = mu * nu, 2 * nu
    acc1 = exact_accuracies(task, K, theta)
    return Descent(theta, done, accepted, L0, L, acc0, acc1, _phase(acc0), _phase(acc1))


def _phase(acc) -> str:
    tr, va = acc
    return phase(tr, va) if va is not None else ("untrained" if tr < Fraction(99, 100) else "untested")


@dataclass(frozen=True)
class LastLayer:
    """The zero-loss system in ``V`` with ``W`` fixed (:func:`last_layer_system`).

    ``equations = p (n - 1)`` (independent rows after centring), ``unknowns = p K``; ``rank`` is
    ``rank_Q(P_perp Phi)`` and ``augmented`` ``rank_Q [P_perp Phi | P_perp Y]``, both exact; ``exact`` says
    whether a rational ``V`` with ``L_n = 0`` exists at this ``W``, and ``V`` is one (a ``p x K`` list of
    :class:`~fractions.Fraction`, free unknowns set to 0) or ``None``."""

    n: int
    equations: int
    unknowns: int
    rank: int
    augmented: int
    exact: bool
    V: list | None


def _centred_integers(p: int, K: int, a, b, theta):
    """``(C, s)``: ``C = n 2^(2s) P_perp Phi`` as a list of integer rows, for
    ``W = M / 2^s`` the dyadic values of ``theta``'s first ``2pK`` entries."""
    M, s = dyadic_point(np.asarray(theta, dtype=float)[: 2 * p * K])
    W = np.array(M, dtype=object).reshape(2 * p, K)
    H = W[a] + W[p + np.asarray(b)]
    Phi = [[int(h) * int(h) for h in row] for row in H]
    n = len(Phi)
    col = [sum(row[k] for row in Phi) for k in range(K)]
    C = [[n * row[k] - col[k] for k in range(K)] for row in Phi]
    return C, s


def last_layer_system(task: ModularAddition, width: int, theta) -> LastLayer:
    """Decide exactly whether some rational ``V`` gives ``L_n = 0`` with ``W`` fixed at ``theta``'s values.

    ``Y_hat = Phi V^T`` with ``Phi = (W^T x)^2`` exact (``W`` dyadic); zero centred loss is
    ``P_perp Phi V^T = P_perp Y``, one system ``C v_j = y_j`` per output ``j`` with the same matrix
    ``C = P_perp Phi`` (``n x K``, rank at most ``min(n - 1, K)``).  Ranks are exact
    (``flint.fmpz_mat.rank`` on the integer-scaled matrices); where the ranks agree, a solution is read off
    the exact reduced row echelon form of ``[C | P_perp Y]`` and its loss checked in
    :class:`~fractions.Fraction` arithmetic.

    Examples
    --------
    Four training samples and width 4: three independent centred equations per output, four unknowns, so
    any ``W`` whose ``C`` has rank 3 has an exact ``V``:

    >>> from algebra.grokking.task import modular_addition
    >>> from algebra.grokking.network import init_params
    >>> t = modular_addition(3, 0.5, 0)
    >>> len(t.train)
    4
    >>> s = last_layer_system(t, 4, init_params(3, 4, np.random.default_rng(0)))
    >>> s.equations, s.unknowns, s.rank, s.augmented, s.exact
    (9, 12, 3, 3, True)
    >>> exact_training_loss(t, 4, init_params(3, 4, np.random.default_rng(0)), s.V)
    Fraction(0, 1)

    Width 2 is overdetermined (three equations, two unknowns per output): no exact ``V``.

    >>> last_layer_system(t, 2, init_params(3, 2, np.random.default_rng(0))).exact
    False
    """
    import flint

    K = positive_int("width", width)
    p = task.p
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.size != parameter_count(p, K):
        raise InputError("theta", theta.shape, f"a vector of 3pK = {parameter_count(p, K)} entries")
    tr = np.asarray(task.train)
    a, b, c = task.a[tr], task.b[tr], task.c[tr]
    C, s = _centred_integers(p, K, a, b, theta)
    n = len(C)
    counts = np.bincount(c, minlength=p)
    scale = 1 << (2 * s)  # C = n 2^(2s) P_perp Phi, so the right side is n 2^(2s) P_perp Y
    R = [[(n * int(c[i] == j) - int(counts[j])) * scale for j in range(p)] for i in range(n)]
    rank = flint.fmpz_mat(C).rank() if n and K else 0
    aug = flint.fmpz_mat([C[i] + R[i] for i in range(n)])
    augmented = aug.rank()
    if augmented != rank:
        return LastLayer(n, p * (n - 1), p * K, rank, augmented, False, None)
    E, r = flint.fmpq_mat([C[i] + R[i] for i in range(n)]).rref()
    V = [[Fraction(0)] * K for _ in range(p)]
    for i in range(r):
        lead = next(k for k in range(K) if E[i, k] != 0)  # a pivot of C (the ranks agree: never in R's columns)
        for j in range(p):
            q = E[i, K + j]
            V[j][lead] = Fraction(int(q.p), int(q.q))
    return LastLayer(n, p * (n - 1), p * K, rank, augmented, True, V)


def exact_training_loss(task: ModularAddition, width: int, theta, V=None) -> Fraction:
    """``L_n`` on the training samples, exactly, at ``W`` = ``theta``'s dyadic values and ``V`` (``p x K``
    rationals; default: ``theta``'s own ``V``).

    Examples
    --------
    >>> from algebra.grokking.task import modular_addition
    >>> t = modular_addition(3, 0.5, 0)
    >>> th = np.random.default_rng(0).standard_normal(9)
    >>> L = exact_training_loss(t, 1, th)
    >>> fl = CentredLoss(3, 1, t.a[t.train], t.b[t.train], t.c[t.train]).loss(th)[0]
    >>> L > 0, bool(abs(float(L) - fl) <= 1e-12 * fl)
    (True, True)
    """
    K = positive_int("width", width)
    p = task.p
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.size != parameter_count(p, K):
        raise InputError("theta", theta.shape, f"a vector of 3pK = {parameter_count(p, K)} entries")
    M, s = dyadic_point(theta[: 2 * p * K])
    W = np.array(M, dtype=object).reshape(2 * p, K)
    if V is None:
        V = [[Fraction(float(x)) for x in row] for row in split(theta, p, K)[1][0]]
    tr = np.asarray(task.train)
    a, b, c = task.a[tr], task.b[tr], task.c[tr]
    den = Fraction(1, 1 << (2 * s))
    rows = []
    for i in range(len(tr)):
        h = [int(x) for x in W[a[i]] + W[p + b[i]]]
        phi = [x * x * den for x in h]
        rows.append([sum((v * f for v, f in zip(V[j], phi)), Fraction(0)) - (1 if c[i] == j else 0) for j in range(p)])
    n = len(rows)
    means = [sum(row[j] for row in rows) / n for j in range(p)]
    return sum(((row[j] - means[j]) ** 2 for row in rows for j in range(p)), Fraction(0)) / (2 * n)
