"""Secant varieties via Terracini's lemma, with certified defects.

The affine cone over the ``k``-th secant variety ``sigma_k(X)`` of a variety
``X`` (given by a parametrization of its affine cone, an *atom* map) is the
image of the sum map ``(theta_1, ..., theta_k) -> atom(theta_1) + ... +
atom(theta_k)``.  Terracini's lemma says its dimension is the dimension of
the span of the tangent spaces at ``k`` general points, i.e. the generic
rank of the Jacobian of the sum map.  So a secant variety is a neuromanifold
like any other: :class:`~algebra.models.segre_veronese.SecantMap` wraps an
atom model and the dimension engine (:func:`algebra.engine.dimension`)
certifies it with its ladder (the atoms' scaling symmetries give the
*expected* dimension ``min(ambient, k * dim cone X)``; below it, the Cramer
rung certifies the defect).

A *defect* (lower bound below the expected dimension) is only a statement
about one random point until an upper bound below the expected dimension is
proven.  Besides the engine's rungs, :func:`flattening_upper_bound` proves one
deterministically (no identity test) with *left-kernel
witnesses*: a linear map ``L`` from the ambient space to matrices with
``rank L(atom) <= rho`` for every atom (catalecticant / Segre flattenings,
``rho = 1``; Koszul flattenings, ``rho = binom(n - 1, s)``; Landsberg–
Ottaviani, "Equations for secant varieties of Veronese and other varieties",
2013) satisfies ``rank L(y) <= k rho`` on ``sigma_k``, so the
``(k rho + 1)``-minors of ``L`` vanish there.  At a point ``y0`` of the secant
with ``rank L(y0) = k rho`` their gradients span the functionals
``y -> u^T L(y) v`` (``u``, ``v`` in the left and right kernels of
``L(y0)``), and the dimension is at most ``ambient`` minus the rank of
these functionals.  Computed modulo ``p`` this is still sound: when
``rank_p L(y0) = k rho`` the reductions of saturated rational kernel bases
span the kernels modulo ``p``, so the rank modulo ``p`` of the functionals is
a lower bound for their rank over Q.

The Segre–Veronese cones and the secant maps are models
(:mod:`algebra.models.segre_veronese`); this module holds the paper-level
analyses on top of the engine: flattenings, the secant result with its
defect status, and the sweeps.

Examples
--------
>>> r = secant_dimension(veronese(3, 4), 5)          # an Alexander-Hirschowitz exception
>>> r.dimension, r.expected_dimension, r.defect, r.certified
(14, 15, 1, True)
>>> r = secant_dimension(segre_veronese((3, 4), (1, 2)), 5)   # a defective quadratic network
>>> r.dimension, r.expected_dimension, r.engine["rung"]
(29, 30, 'cramer')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations, product
from math import comb
from typing import Sequence

import numpy as np

from algebra.engine import dimension
from algebra.errors import InputError
from algebra.exact.field import DEFAULT_PRIME, PrimeField
from algebra.exact.rank import rank_mod_p, to_nmod_mat
from algebra.models.base import Model, positive_int
from algebra.models.mlp import monomials
from algebra.models.segre_veronese import SecantMap, SegreVeroneseCone, segre, segre_veronese, veronese  # segre: doctests

__all__ = [
    "Flattening",
    "SecantResult",
    "flattenings",
    "flattening_upper_bound",
    "pooled_flattening_bound",
    "secant_dimension",
    "sweep_veronese",
    "sweep_quadratic",
    "MAX_SWEEP_TASKS",
    "MAX_SWEEP_AMBIENT",
    "table_rows",
    "write_table",
]

# -- flattenings: left-kernel witnesses ---------------------------------------------


@dataclass(frozen=True)
class Flattening:
    """A linear map ``y -> L(y)`` from ambient coordinates to matrices, as a signed index map.

    ``L(y)[r, c] = sign[r, c] * y[index[r, c]]`` (zero where ``index < 0``);
    ``atom_rank`` bounds ``rank L(atom)`` for every atom.
    """

    name: str
    index: np.ndarray
    sign: np.ndarray
    atom_rank: int

    @property
    def shape(self) -> tuple:
        return self.index.shape

    def matrix(self, y: np.ndarray, F) -> np.ndarray:
        """``L(y)`` over the field ``F`` (``y`` a vector of field elements)."""
        vals = F.array(np.asarray(y))[np.maximum(self.index, 0)]
        vals = F.mul(vals, F.array(self.sign))
        vals[self.index < 0] = F.scalar(0)
        return vals

    def rank_bound(self, k: int) -> int:
        return k * self.atom_rank

    def informative(self, k: int) -> bool:
        return self.rank_bound(k) < min(self.shape)


def _split_indices(X: SegreVeroneseCone, rows_deg: tuple, cols_deg: tuple, extra: tuple | None = None):
    """Index array of the flattening with row monomials of degrees ``rows_deg``, column ``cols_deg``.

    ``extra`` (a full exponent vector) is added to every entry (used for the
    Koszul factor).
    """
    row_mons = list(product(*[monomials(n, a) for n, a in zip(X.factors, rows_deg)]))
    col_mons = list(product(*[monomials(n, b) for n, b in zip(X.factors, cols_deg)]))
    R = np.array([sum(t, ()) for t in row_mons], dtype=np.int64).reshape(len(row_mons), -1)
    C = np.array([sum(t, ()) for t in col_mons], dtype=np.int64).reshape(len(col_mons), -1)
    tot = R[:, None, :] + C[None, :, :]
    if extra is not None:
        tot = tot + np.asarray(extra, dtype=np.int64)[None, None, :]
    look = X.index
    idx = np.array([[look.get(tuple(int(v) for v in tot[i, j]), -1) for j in range(tot.shape[1])]
                    for i in range(tot.shape[0])], dtype=np.int64)
    return idx


def flattenings(X: SegreVeroneseCone) -> list:
    """The catalecticant/Segre flattenings and the Koszul flattenings of ``X``.

    * catalecticant: split every degree ``d_i = a_i + b_i``; rows are monomials
      of multidegree ``a``, columns of multidegree ``b``; atoms give rank one.
      Only one of ``a``, ``b = d - a`` is listed (the transpose has the same minors).
    * Koszul: for a factor ``i`` with ``n_i >= 2``, ``s = 1..n_i - 1`` and a
      split ``a + b = d - e_i`` of the remaining degrees, the map
      ``Lambda^s C^{n_i} (x) B_a -> Lambda^{s+1} C^{n_i} (x) B_b``,
      ``omega (x) beta -> sum_j (e_j ^ omega) (x) T_j beta``; an atom gives
      ``(v_i ^ .) (x) (rank one)``, of rank ``binom(n_i - 1, s)``.

    Examples
    --------
    >>> [f.name for f in flattenings(veronese(3, 2))][:3]
    ['catalecticant (1)|(1)', 'Koszul s=1 on factor 1, (0)|(1)', 'Koszul s=1 on factor 1, (1)|(0)']
    >>> [(f.shape, f.atom_rank) for f in flattenings(veronese(3, 2))][1:3]
    [((9, 3), 2), ((3, 9), 2)]
    """
    d = X.degrees
    out = []
    seen = set()
    for a in product(*[range(di + 1) for di in d]):
        b = tuple(di - ai for di, ai in zip(d, a))
        if sum(a) == 0 or sum(b) == 0 or (b, a) in seen:
            continue
        seen.add((a, b))
        idx = _split_indices(X, a, b)
        out.append(Flattening(f"catalecticant {a}|{b}".replace(",)", ")"), idx, np.ones_like(idx), 1))
    offs = np.cumsum((0,) + X.factors)
    for i, n in enumerate(X.factors):
        if n < 2:
            continue
        rest = tuple(di - (1 if j == i else 0) for j, di in enumerate(d))
        for s in range(1, n):
            rows_sets = list(combinations(range(n), s + 1))
            cols_sets = list(combinations(range(n), s))
            row_pos = {S: r for r, S in enumerate(rows_sets)}
            for a in product(*[range(ri + 1) for ri in rest]):
                b = tuple(ri - ai for ri, ai in zip(rest, a))
                blocks = {}
                for j in range(n):
                    e = np.zeros(sum(X.factors), dtype=np.int64)
                    e[offs[i] + j] = 1
                    blocks[j] = _split_indices(X, b, a, extra=tuple(e))  # (B_b rows, B_a cols)
                nb, na = blocks[0].shape
                idx = -np.ones((len(rows_sets) * nb, len(cols_sets) * na), dtype=np.int64)
                sgn = np.zeros_like(idx)
                for c, S in enumerate(cols_sets):
                    for j in range(n):
                        if j in S:
                            continue
                        T = tuple(sorted(S + (j,)))
                        r = row_pos[T]
                        sign = -1 if sum(1 for x in S if x < j) % 2 else 1  # e_j ^ e_S
                        idx[r * nb : (r + 1) * nb, c * na : (c + 1) * na] = blocks[j]
                        sgn[r * nb : (r + 1) * nb, c * na : (c + 1) * na] = sign
                name = f"Koszul s={s} on factor {i + 1}, {a}|{b}".replace(",)", ")")
                out.append(Flattening(name, idx, sgn, comb(n - 1, s)))
    return out


def _kernel_basis(M, p: int) -> np.ndarray:
    """Rows spanning the right kernel of ``M`` modulo ``p``."""
    N, nullity = to_nmod_mat(M, p).nullspace()
    nullity = int(nullity)
    n = M.shape[1]
    K = np.array([[int(N[i, j]) for i in range(n)] for j in range(nullity)], dtype=np.int64).reshape(nullity, n)
    return K


def flattening_upper_bound(X: SegreVeroneseCone, k: int, flat: Flattening, *, seed: int = 0, prime: int = DEFAULT_PRIME,
                           max_functionals: int | None = None, return_gradients: bool = False) -> dict:
    """Certified upper bound on ``dim`` of the affine cone over ``sigma_k(X)`` from one flattening.

    Returns a dict with ``upper_bound`` (``None`` when the flattening decides
    nothing: it is not informative, or ``rank L(y0)`` at the random point of
    the secant falls short of ``k * atom_rank``), ``rank_at_point``,
    ``rank_bound``, ``conormal_rank`` and the seed.

    Examples
    --------
    >>> X = veronese(3, 4)
    >>> cat = [f for f in flattenings(X) if f.name == "catalecticant (2)|(2)"][0]
    >>> flattening_upper_bound(X, 5, cat)["upper_bound"]
    14
    """
    k = positive_int("k", k)
    F = PrimeField(prime)
    N = X.ambient_dimension()
    r = flat.rank_bound(k)
    out = {"flattening": flat.name, "shape": list(flat.shape), "rank_bound": r, "seed": seed, "prime": prime,
           "upper_bound": None, "rank_at_point": None, "conormal_rank": 0}
    if not flat.informative(k):
        return out
    rng_point, rng_comb = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    S = SecantMap(X, k)
    theta = S.random_point(rng_point)
    y0 = S.forward(theta, np.zeros((1, 0), dtype=np.int64), F)[0]
    M0 = flat.matrix(y0, F)
    rk = rank_mod_p(M0, prime)
    out["rank_at_point"] = rk
    if rk != r:  # rank_p <= rank_Q <= r: equality pins the rank over Q as well
        return out
    U = _kernel_basis(M0.T, prime)  # left kernel
    V = _kernel_basis(M0, prime)  # right kernel
    pairs = U.shape[0] * V.shape[0]
    R = min(pairs, (max_functionals or N + 8))
    if R == pairs:
        UU = np.repeat(U, V.shape[0], axis=0)
        VV = np.tile(V, (U.shape[0], 1))
    else:  # random rank-one combinations: a subset of the span gives a lower bound on its rank (sound)
        UU = F.matmul(F.array(rng_comb.integers(0, prime, size=(R, U.shape[0]))), U)
        VV = F.matmul(F.array(rng_comb.integers(0, prime, size=(R, V.shape[0]))), V)
    mask = flat.index >= 0
    rr, cc = np.nonzero(mask)
    vals = F.mul(F.mul(UU[:, rr], VV[:, cc]), F.array(flat.sign[rr, cc]))  # (R, nnz)
    G = np.zeros((R, N), dtype=np.int64)
    cols = flat.index[rr, cc]
    for start in range(0, len(cols), 4096):  # scatter-add, reduced each chunk (int64 stays exact)
        sl = slice(start, start + 4096)
        part = np.zeros((R, N), dtype=np.int64)
        np.add.at(part.T, cols[sl], vals[:, sl].T)
        G = F.add(G, F.array(part))
    cr = rank_mod_p(G, prime)
    out["conormal_rank"] = cr
    out["upper_bound"] = N - cr
    if return_gradients:
        out["gradients"] = G
    return out


def pooled_flattening_bound(X: SegreVeroneseCone, k: int, *, target: int = 0, seed: int = 0,
                            prime: int = DEFAULT_PRIME) -> dict | None:
    """The best upper bound from the gradients of several flattenings pooled together.

    All the flattenings' minors vanish on ``sigma_k``, so the rank of the
    union of their gradients bounds the codimension from below.  Flattenings
    are tried most informative first, until the bound reaches ``target``.
    Returns ``None`` when no flattening decides anything, else a dict with
    ``upper_bound``, ``reason``, ``flattenings`` (the ones used) and
    ``conormal_rank``.  Deterministic: no identity test is involved.

    Examples
    --------
    >>> info = pooled_flattening_bound(segre((2, 2, 2, 2)), 3)
    >>> info["upper_bound"], len(info["flattenings"]) >= 2
    (14, True)
    """
    cands = [f for f in flattenings(X) if f.informative(k)]
    cands.sort(key=lambda f: -(min(f.shape) - f.rank_bound(k)))
    N = X.ambient_dimension()
    pooled, used, pooled_rank, best = None, [], 0, None
    for flat in cands:
        info = flattening_upper_bound(X, k, flat, seed=seed, prime=prime, return_gradients=True)
        if info["upper_bound"] is None:
            continue
        G = info.pop("gradients")
        stacked = G if pooled is None else np.concatenate([pooled, G])
        rank = rank_mod_p(stacked, prime)
        if rank == pooled_rank:  # nothing new from this flattening
            continue
        pooled, pooled_rank = stacked, rank
        used.append(info)
        names = ", ".join(u["flattening"] for u in used)
        best = {"upper_bound": N - rank, "conormal_rank": rank, "flattenings": list(used),
                "reason": f"flattening minors ({names}) vanish on sigma_{k}; ambient {N} - rank {rank} of their gradients"}
        if N - rank <= target:
            break
    return best


# -- the secant dimension ----------------------------------------------------------------


@dataclass
class SecantResult:
    """Certified bounds on the dimension of the affine cone over ``sigma_k(X)``."""

    variety: dict
    k: int
    dimension: int
    lower_bound: int
    upper_bound: int
    expected_dimension: int
    ambient_dimension: int
    atom_dimension: int
    certified: bool
    upper_bound_reason: str
    seed: int
    prime: int
    seconds: float
    flattening: dict | None = None
    engine: dict = field(default_factory=dict, repr=False)

    @property
    def defect(self) -> int:
        """``expected - lower_bound``: a *certified* defect when ``certified``, else at a random point."""
        return self.expected_dimension - self.lower_bound

    @property
    def defective(self) -> bool:
        return self.lower_bound < self.expected_dimension

    @property
    def status(self) -> str:
        if not self.defective:
            return "non-defective" if self.certified else "non-defective (lower bound meets expected)"
        if self.upper_bound < self.expected_dimension:
            return "defective (certified)" if self.certified else "defective (certified upper bound, not exact)"
        return "lower bound below expected at a random point (defect not certified)"

    def to_json(self) -> dict:
        return {
            "variety": self.variety,
            "k": self.k,
            "dimension": self.dimension,
            "dimension_status": "certified" if self.certified else "lower bound only",
            "expected_dimension": self.expected_dimension,
            "defect": self.defect,
            "defective": self.defective,
            "status": self.status,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "certified": self.certified,
            "upper_bound_reason": self.upper_bound_reason,
            "rung": "flattenings" if self.flattening and self.upper_bound == self.flattening["upper_bound"]
            else self.engine.get("rung"),
            "failure_probability": None if self.flattening and self.upper_bound == self.flattening["upper_bound"]
            else self.engine.get("failure_probability"),
            "ambient_dimension": self.ambient_dimension,
            "atom_dimension": self.atom_dimension,
            "atom_certified": self.engine.get("atom_certified", True),
            "seed": self.seed,
            "prime": self.prime,
            "field": f"GF({self.prime})",
            "seconds": round(self.seconds, 4),
            "flattening": self.flattening,
        }


def secant_dimension(X: Model, k: int, *, seed: int = 0, prime: int = DEFAULT_PRIME, certify_defect: bool = True) -> SecantResult:
    """Dimension of the affine cone over ``sigma_k(X)`` (Terracini), with certified bounds.

    Parameters
    ----------
    X : Model
        The atom map (a :class:`SegreVeroneseCone` or any model: its ``k``-fold
        sum is taken).
    k : int
        Number of atoms.
    seed, prime
        The random point (``SeedSequence(seed)``) and the modulus.
    certify_defect : bool
        When the lower bound falls below the expected dimension and ``X`` is a
        Segre–Veronese cone, try every informative flattening for a certified
        upper bound.

    Returns
    -------
    SecantResult
        ``dimension`` (certified lower bound), ``upper_bound`` and its reason, ``expected_dimension``
        (``min(k * dim X, ambient)``) and ``status`` (``non-defective``, ``defective (certified)``, ...).

    Raises
    ------
    InputError
        ``k < 1`` or an atom the engine refuses.

    Examples
    --------
    >>> r = secant_dimension(veronese(4, 2), 2)      # rank <= 2 symmetric 4 x 4 matrices
    >>> r.dimension, r.expected_dimension, r.upper_bound, r.status
    (7, 8, 7, 'defective (certified)')
    >>> secant_dimension(veronese(3, 3), 0)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid k=0: expected an integer >= 1

    References
    ----------
    .. [1] Terracini (1911): the tangent space to sigma_k(X) at a generic point is the span of k tangent spaces.
    .. [2] Alexander, Hirschowitz, J. Algebraic Geom. 4 (1995): the defective Veronese secants.
    .. [3] Landsberg, *Tensors: Geometry and Applications*, AMS 2012, Sec. 3.4 (flattenings as upper bounds).
    """
    k = positive_int("k", k)
    t0 = time.perf_counter()
    S = SecantMap(X, k)
    res = dimension(S, seed=seed, prime=prime)
    atom = dimension(X, seed=seed, prime=prime)
    atom_dim = atom.lower_bound  # dim of the cone X (certified for Segre-Veronese cones)
    expected = min(X.ambient_dimension(), k * atom_dim)
    upper, reason = res.upper_bound, res.upper_bound_reason
    flat_info = None
    if certify_defect and isinstance(X, SegreVeroneseCone) and res.lower_bound < upper:
        flat_info = pooled_flattening_bound(X, k, target=res.lower_bound, seed=seed, prime=prime)
        if flat_info is not None and flat_info["upper_bound"] < upper:
            upper, reason = flat_info["upper_bound"], flat_info["reason"]
    return SecantResult(
        variety=X.spec(),
        k=k,
        dimension=res.lower_bound,
        lower_bound=res.lower_bound,
        upper_bound=upper,
        expected_dimension=expected,
        ambient_dimension=X.ambient_dimension(),
        atom_dimension=atom_dim,
        certified=res.lower_bound == upper,
        upper_bound_reason=reason,
        seed=seed,
        prime=res.prime,
        seconds=time.perf_counter() - t0,
        flattening=flat_info,
        engine=dict(res.to_json(), atom_certified=atom.certified),
    )


# -- sweeps -------------------------------------------------------------------------------

#: Most tasks of one sweep (the defaults are 30 and 576), and the largest ambient dimension it may reach
#: (the filling secant's Terracini Jacobian is about that square: 1,000 is a few seconds a task); both are
#: refused, naming the larger grid bound, before the task list is built.
MAX_SWEEP_TASKS = 5_000
MAX_SWEEP_AMBIENT = 1_000


def _refuse_sweep(bounds: dict, tasks: int, ambient) -> None:
    """Refuse a sweep of more than :data:`MAX_SWEEP_TASKS` tasks, or whose largest variety's ambient dimension
    ``ambient()`` is above :data:`MAX_SWEEP_AMBIENT` (``bounds``: argument -> value, the largest is named)."""
    name = max(bounds, key=bounds.get)
    if tasks > MAX_SWEEP_TASKS:
        raise InputError(name, bounds[name], f"a sweep of at most {MAX_SWEEP_TASKS:,} tasks (MAX_SWEEP_TASKS; "
                                             f"asked for {tasks:,})")
    top = ambient()
    if top > MAX_SWEEP_AMBIENT:
        raise InputError(name, bounds[name], f"varieties of ambient dimension at most {MAX_SWEEP_AMBIENT:,} "
                                             f"(MAX_SWEEP_AMBIENT; the largest has {top:,})")



def _veronese_task(item: dict) -> dict:
    """One sweep task: ``k = 1, 2, ...`` for ``veronese(n, d)`` until the secant fills the ambient space."""
    X = veronese(item["n"], item["d"])
    out = []
    for k in range(1, X.ambient_dimension() + 1):
        r = secant_dimension(X, k, seed=item["seed"], prime=item["prime"])
        out.append(r)
        if r.lower_bound >= X.ambient_dimension():
            break
    return {"results": out}


def _quadratic_task(item: dict) -> dict:
    """One sweep task: the quadratic network ``(d, p, K)`` as ``sigma_K(P^{p-1} x v_2(P^{d-1}))``."""
    X = segre_veronese((item["p"], item["d"]), (1, 2))
    return {"results": [secant_dimension(X, item["K"], seed=item["seed"], prime=item["prime"])]}


def _run(task, items: list, desc: str, progress: bool, scheduler: str, workers: int | None) -> list:
    """Run one task per item through :func:`algebra.sweep.run_sweep`; results in item order."""
    from algebra.sweep import run_sweep

    rows = run_sweep(task, items, scheduler=scheduler, workers=workers, progress=progress, desc=desc)
    return [r for row in rows for r in row["results"]]


def sweep_veronese(n_max: int, degree_max: int, *, n_min: int = 1, degree_min: int = 2, seed: int = 0,
                   prime: int = DEFAULT_PRIME, progress: bool = False, scheduler: str = "serial",
                   workers: int | None = None) -> list:
    """``secant_dimension(veronese(n, d), k)`` for ``n <= n_max``, ``d <= degree_max`` and ``k`` up to filling.

    For each ``(n, d)`` the sweep runs ``k = 1, 2, ...`` until the secant
    fills the ambient space (lower bound = ``binom(n + d - 1, d)``), so every
    defective ``k`` is visited (a defective secant never fills).  Each
    ``(n, d)`` is one task of :func:`algebra.sweep.run_sweep`: ``scheduler``
    is ``"serial"`` (this process, the default), ``None`` (a local Dask
    cluster of ``workers`` processes) or a scheduler address; every task
    carries its own seed, so the results are the same on every scheduler.

    Examples
    --------
    >>> [(r.variety["factors"][0], r.variety["degrees"][0], r.k) for r in sweep_veronese(3, 4) if r.defective]
    [(3, 2, 2), (3, 4, 5)]
    """
    n_max = positive_int("n_max", n_max)
    degree_max = positive_int("degree_max", degree_max)
    _refuse_sweep({"n_max": n_max, "degree_max": degree_max},
                  max(0, n_max - n_min + 1) * max(0, degree_max - degree_min + 1),
                  lambda: comb(n_max + degree_max - 1, degree_max))
    items = [{"n": n, "d": d, "seed": seed, "prime": prime}
             for n in range(n_min, n_max + 1) for d in range(degree_min, degree_max + 1)]
    return _run(_veronese_task, items, "veronese secants", progress, scheduler, workers)


def sweep_quadratic(d_max: int, p_max: int, k_max: int, *, seed: int = 0, prime: int = DEFAULT_PRIME,
                    progress: bool = False, scheduler: str = "serial", workers: int | None = None) -> list:
    """Secants of ``P^{p-1} x v_2(P^{d-1})`` (quadratic networks ``(d, p, K)``) over a grid.

    The affine cone over ``sigma_K`` is the neuromanifold of the width-``K``
    quadratic network ``x -> V (W x)^2`` with ``p`` outputs (grokking paper,
    Theorem 4.1 / Appendix G), whose Corollary 4.2 assumes the expected
    dimension ``min(K (p + d - 1), p d (d + 1) / 2)``.  One task per
    ``(d, p, K)``; ``scheduler``/``workers`` as in :func:`sweep_veronese`.

    Examples
    --------
    >>> [(r.variety["factors"], r.k, r.lower_bound, r.expected_dimension) for r in sweep_quadratic(3, 2, 3) if r.defective]
    [([1, 3], 2, 5, 6)]
    """
    d_max = positive_int("d_max", d_max)
    p_max = positive_int("p_max", p_max)
    k_max = positive_int("k_max", k_max)
    _refuse_sweep({"d_max": d_max, "p_max": p_max, "k_max": k_max}, d_max * p_max * k_max,
                  lambda: p_max * d_max * (d_max + 1) // 2)
    items = [{"d": d, "p": p, "K": K, "seed": seed, "prime": prime}
             for d in range(1, d_max + 1) for p in range(1, p_max + 1) for K in range(1, k_max + 1)]
    return _run(_quadratic_task, items, "quadratic-network secants", progress, scheduler, workers)


TABLE_COLUMNS = ("variety", "factors", "degrees", "k", "ambient", "atom_dimension", "expected", "lower_bound",
                 "upper_bound", "defect", "certified", "status", "upper_bound_reason")


def table_rows(results: Sequence[SecantResult]) -> list:
    """One flat dict per result, with the columns :data:`TABLE_COLUMNS`."""
    rows = []
    for r in results:
        fac, deg = r.variety.get("factors", []), r.variety.get("degrees", [])
        name = "veronese" if len(fac) == 1 else ("segre" if all(x == 1 for x in deg) else "segre-veronese")
        rows.append({
            "variety": name, "factors": ",".join(map(str, fac)), "degrees": ",".join(map(str, deg)), "k": r.k,
            "ambient": r.ambient_dimension, "atom_dimension": r.atom_dimension, "expected": r.expected_dimension,
            "lower_bound": r.lower_bound, "upper_bound": r.upper_bound, "defect": r.defect,
            "certified": r.certified, "status": r.status, "upper_bound_reason": r.upper_bound_reason,
        })
    return rows


def write_table(results: Sequence[SecantResult], csv_path, md_path, *, title: str = "Defective secant varieties",
                command: str = "") -> int:
    """Write every result to ``csv_path`` and the defective ones to a Markdown table; returns #defective."""
    import csv
    import io

    from algebra.files import write_atomic

    rows = table_rows(results)
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=TABLE_COLUMNS)
    w.writeheader()
    w.writerows(rows)
    write_atomic(csv_path, buf.getvalue().encode())  # a full disk leaves the old file or none, never 0 bytes
    bad = [row for row, r in zip(rows, results) if r.defective]
    cols = ("variety", "factors", "degrees", "k", "ambient", "expected", "lower_bound", "upper_bound", "defect", "status")
    lines = [f"# {title}", ""]
    if command:
        lines += [f"Produced by `{command}`.", ""]
    lines += [f"{len(bad)} defective of {len(rows)} cases (seed {results[0].seed if results else 0}).", ""]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for row in bad:
        lines.append("| " + " | ".join(str(row[c]) for c in cols) + " |")
    write_atomic(md_path, ("\n".join(lines) + "\n").encode())
    return len(bad)
