"""Witnesses for the exact Jacobian rank of the grokking network *at a trained checkpoint*.

A checkpoint ``theta`` is a vector of binary64 numbers, hence an exact dyadic point
``theta = M / 2^s`` with ``M`` integral.  The centred predictions
``theta -> N Y_hat P_perp`` on ``N`` one-hot pairs (:class:`~algebra.grokking.references.DataRestrictedQuadratic`)
are homogeneous cubics, so their Jacobian is a homogeneous quadratic and
``J(theta) = J(M) / 2^(2s)``: the rank at the trained point is the rank of the
integer matrix ``J(M)``.  This module finds, modulo a prime ``q``,

* a nonsingular ``r x r`` minor of ``J(M)`` (``rank_with_witness`` on a random
  subset of the rows, all of them when that is cheap): a nonzero minor modulo
  ``q`` is a nonzero integer, so ``rank J(theta) >= r``, and the minor stays
  nonzero near ``theta``;
* a nonsingular ``s x s`` minor of the ``2K`` kernel fields evaluated at ``M``
  (per neuron the rescaling ``(w, v) -> (t w, v / t^2)`` and the one-hot shift
  ``(u, z) -> (u + c 1, z - c 1)`` of :mod:`algebra.grokking.references`): the
  fields lie in the kernel of ``J`` identically, so ``rank J <= P - s`` at and
  near ``theta``; with the cap ``p (N - 1)`` (the dimension of all centred
  predictions of ``N`` distinct pairs) the upper bound is ``min(p (N - 1), P - s)``.

When the two meet, the rank is exact *and* locally constant (both bounds hold
on a neighbourhood), which is the hypothesis of the paper's Theorem F.1 /
Corollary F.2.  Nothing here is a claim: :mod:`algebra.certify.local_rank`
writes the witnesses into a ``local_rank`` certificate and the independent
checker (:mod:`algebra.checker.local_rank`) derives the ranks from them.

The Jacobian rows are built here directly from their sparse structure (each
uncentred row ``d yhat_ij`` touches only ``W[a_i]``, ``W[p + b_i]`` and
``V[j]``), so only the rows the elimination looks at are ever formed.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algebra.errors import InputError
from algebra.exact.field import DEFAULT_PRIME, MAX_PRIME, is_prime
from algebra.exact.rank import rank_mod_p, rank_with_witness
from algebra.exact.rounding import binary64_hex as short_hex  # the checker's short hex, zero unsigned (re-exported)
from algebra.grokking.network import parameter_count

__all__ = ["MapWitness", "dyadic_point", "all_pairs", "centred_rows", "kernel_fields", "map_witness", "field_witness",
           "short_hex", "block_point", "centred_block", "block_lower_bound",
           "ROW_BUDGET"]

#: At most this many Jacobian entries (rows x P, int64) are formed at once for one elimination (~800 MB).
ROW_BUDGET = 10**8


def dyadic_point(theta) -> tuple:
    """``(M, s)`` with ``theta = M / 2^s`` exactly, ``M`` a list of Python ints and ``s >= 0`` the least such.

    Raises
    ------
    InputError
        If an entry is not a finite number.

    Examples
    --------
    >>> dyadic_point([0.75, -2.0, 0.0])
    ([3, -8, 0], 2)
    >>> dyadic_point([float("nan")])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid theta='nan': expected finite binary64 entries
    """
    fr = []
    for v in np.asarray(theta, dtype=float).ravel():
        if not np.isfinite(v):
            raise InputError("theta", repr(float(v)), "finite binary64 entries")
        fr.append(Fraction(float(v)))
    s = max((f.denominator.bit_length() - 1 for f in fr), default=0)
    return [f.numerator * (2**s // f.denominator) for f in fr], s


def all_pairs(p: int) -> tuple:
    """``(a, b)`` of all ``p^2`` pairs in lexicographic order (the full-data map's samples)."""
    a, b = np.divmod(np.arange(p * p), p)
    return a.astype(np.int64), b.astype(np.int64)


def _residues(M, q: int) -> np.ndarray:
    return np.array([m % q for m in M], dtype=np.int64)


def _blocks(Mq: np.ndarray, p: int, K: int):
    return Mq[: 2 * p * K].reshape(2 * p, K), Mq[2 * p * K:].reshape(p, K)


def centred_rows(p: int, K: int, a, b, Mq: np.ndarray, rows, q: int) -> np.ndarray:
    """Rows ``rows`` (sample-major, ``i p + j``) of ``J(M)`` of ``M -> N Y_hat(M) P_perp`` modulo ``q``.

    Row ``(i, j)`` is ``N d yhat_ij - sum_l d yhat_lj`` with ``d yhat_ij = 2 V[j, k] H[i, k]`` at
    ``W[a_i, k]`` and ``W[p + b_i, k]`` and ``H[i, k]^2`` at ``V[j, k]`` (``H = W[a] + W[p + b]``).

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> from algebra.grokking.references import DataRestrictedQuadratic
    >>> a, b = all_pairs(3); F = PrimeField(101)
    >>> th = np.random.default_rng(0).integers(0, 101, 18)
    >>> J = DataRestrictedQuadratic(3, 2, a, b).jacobian(F.array(th), None, F)
    >>> bool((centred_rows(3, 2, a, b, th, range(27), 101) == J).all())
    True
    """
    if not (2 <= q < MAX_PRIME and is_prime(q)):
        raise InputError("prime", q, f"a prime below {MAX_PRIME}")
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    rows = np.asarray(list(rows), dtype=np.int64)
    n, P = a.size, parameter_count(p, K)
    W, V = _blocks(np.asarray(Mq, dtype=np.int64) % q, p, K)
    H = (W[a] + W[p + b]) % q  # (n, K)
    A = H * H % q
    Hs = np.zeros((2 * p, K), dtype=np.int64)
    np.add.at(Hs, a, H)
    np.add.at(Hs, p + b, H)
    Hs %= q
    Asum = A.sum(axis=0) % q
    i, j = np.divmod(rows, p)
    m, ks = rows.size, np.arange(K)
    out = np.zeros((m, P), dtype=np.int64)
    V2 = 2 * V % q
    # -sum_l d yhat_lj on the W columns: -2 V[j, k] Hs[., k]
    out[:, : 2 * p * K] = (-(V2[j][:, None, :] * Hs[None]) % q).reshape(m, -1)
    G = n % q * (V2[j] * H[i] % q) % q  # (m, K): N 2 V[j, k] H[i, k]
    r = np.arange(m)[:, None]
    out[r, a[i][:, None] * K + ks] += G
    out[r, (p + b[i])[:, None] * K + ks] += G
    out[r, 2 * p * K + j[:, None] * K + ks] = (n % q * A[i] - Asum[None]) % q
    return out % q


def kernel_fields(p: int, K: int, Mq: np.ndarray, q: int) -> np.ndarray:
    """The ``2K`` kernel fields at ``M`` modulo ``q``: rows ``k`` (rescaling of neuron ``k``: ``W[:, k]``,
    ``-2 V[:, k]``) and ``K + k`` (one-hot shift: ``+1`` on ``W[:p, k]``, ``-1`` on ``W[p:, k]``).

    Examples
    --------
    >>> kernel_fields(2, 1, np.array([1, 2, 3, 4, 5, 6]), 101).tolist()
    [[1, 2, 3, 4, 91, 89], [1, 1, 100, 100, 0, 0]]
    """
    W, V = _blocks(np.asarray(Mq, dtype=np.int64) % q, p, K)
    P = parameter_count(p, K)
    S = np.zeros((2 * K, P), dtype=np.int64)
    Widx = np.arange(2 * p * K).reshape(2 * p, K)
    Vidx = 2 * p * K + np.arange(p * K).reshape(p, K)
    for k in range(K):
        S[k, Widx[:, k]] = W[:, k]
        S[k, Vidx[:, k]] = (-2 * V[:, k]) % q
        S[K + k, Widx[:p, k]] = 1
        S[K + k, Widx[p:, k]] = q - 1
    return S


@dataclass(frozen=True)
class MapWitness:
    """A nonsingular minor modulo ``prime``: ``rank`` rows and columns (sorted, global indices)."""

    rank: int
    rows: tuple
    cols: tuple
    prime: int


def field_witness(p: int, K: int, M, *, prime: int = DEFAULT_PRIME) -> MapWitness:
    """A nonsingular minor of the kernel fields at ``M`` modulo ``prime`` (:func:`kernel_fields`).

    Examples
    --------
    >>> w = field_witness(3, 2, list(range(1, 19)))
    >>> w.rank, len(w.cols)
    (4, 4)
    """
    S = kernel_fields(p, K, _residues(M, prime), prime)
    w = rank_with_witness(S, prime)
    return MapWitness(w.rank, tuple(sorted(int(r) for r in w.rows)), tuple(sorted(int(c) for c in w.cols)), prime)


def map_witness(p: int, K: int, a, b, M, *, target: int | None = None, prime: int = DEFAULT_PRIME,
                seed: int = 0) -> MapWitness:
    """A nonsingular minor of ``J(M)`` modulo ``prime``, as large as this elimination finds.

    Rows are a random subset of ``min(N p, target + 64)`` rows (``target``: the proven upper bound; the
    subset is drawn from ``SeedSequence(seed, spawn_key=(23,))``), then of twice as many; when their rank
    falls short of ``target`` the elimination is repeated on every row, if ``N p x P`` fits
    :data:`ROW_BUDGET`.  Any answer is a proven lower bound.

    Examples
    --------
    >>> a, b = all_pairs(5)
    >>> M = list(np.random.default_rng(1).integers(-50, 50, 3 * 5 * 4))
    >>> w = map_witness(5, 4, a, b, M, target=4 * 13)
    >>> w.rank, len(w.rows) == len(w.cols) == w.rank
    (52, True)
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    nrows, P = a.size * p, parameter_count(p, K)
    Mq = _residues(M, prime)
    target = min(nrows, P) if target is None else int(target)
    size = min(nrows, target + 64)
    if size * P > ROW_BUDGET:
        raise InputError("--p/--width", f"{p}/{K}", f"a smaller network: {size:,} Jacobian rows of {P:,} columns "
                         f"exceed ROW_BUDGET = {ROW_BUDGET:,} entries")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(23,)))
    candidates = []
    for m in (size, min(nrows, 2 * size)):
        if m < nrows and m * P <= ROW_BUDGET:
            candidates.append(np.sort(rng.choice(nrows, m, replace=False)))
    if nrows * P <= ROW_BUDGET or not candidates:
        candidates.append(np.arange(nrows))
    best = None
    for rows in candidates:
        w = rank_with_witness(centred_rows(p, K, a, b, Mq, rows, prime), prime)
        found = MapWitness(w.rank, tuple(sorted(int(rows[r]) for r in w.rows)), tuple(sorted(int(c) for c in w.cols)),
                           prime)
        if best is None or found.rank > best.rank:
            best = found
        if best.rank >= target:
            break
    return best


def block_point(p: int, K: int, *, seed: int = 0, bound: int = 2**15) -> tuple:
    """``(W, v)``: the sparse integer point where neuron ``k`` writes to output ``k mod p`` only.

    ``W`` (``2p x K``) and ``v`` (``K``, positive) are random integers in ``[-bound, bound]`` and ``[1, bound]``
    from ``SeedSequence(seed, spawn_key=(29,))``; the point's second layer is ``V[:, k] = v_k e_(k mod p)``.

    Examples
    --------
    >>> W, v = block_point(3, 4, bound=9)
    >>> W.shape, v.shape, bool((abs(W) <= 9).all() and (v >= 1).all())
    ((6, 4), (4,), True)
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(29,)))
    W = rng.integers(-bound, bound + 1, size=(2 * p, K))
    v = rng.integers(1, bound + 1, size=K)
    return W, v


def centred_block(p: int, K: int, a, b, W, v, j: int, prime: int) -> tuple:
    """``(B, cols)``: the centred Jacobian rows of output ``j`` at the point :func:`block_point` on the columns
    that touch only output ``j`` there, modulo ``prime``.

    The columns are ``W[:, k]`` and ``V[j, k]`` for the neurons ``k = j (mod p)``, in that order per neuron;
    ``cols`` are their parameter indices (``vec W`` then ``vec V``, row-major).  Row ``i`` is
    ``N d yhat_ij - sum_l d yhat_lj`` (the centring mixes samples, never outputs).

    Examples
    --------
    >>> W, v = block_point(3, 4)
    >>> B, cols = centred_block(3, 4, [0, 1, 2], [1, 1, 0], W, v, 0, 101)
    >>> B.shape, cols[:3], cols[6], bool((B.sum(axis=0) % 101 == 0).all())
    ((3, 14), [0, 4, 8], 24, True)
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    n = a.size
    ks = np.arange(j, K, p)
    m = ks.size
    H = (W[a][:, ks] + W[p + b][:, ks]) % prime  # (n, m)
    B = np.zeros((n, m * (2 * p + 1)), dtype=np.int64)
    rows, cols = np.arange(n), []
    for t, k in enumerate(ks):
        g = 2 * int(v[k]) % prime * H[:, t] % prime  # d yhat_ij / d W[a_i or p + b_i, k] at output j = j(k)
        base = t * (2 * p + 1)
        B[rows, base + a] += g
        B[rows, base + p + b] += g
        B[:, base + 2 * p] = H[:, t] * H[:, t] % prime  # d yhat_ij / d V[j, k]
        cols += [r * K + int(k) for r in range(2 * p)] + [2 * p * K + j * K + int(k)]
    B %= prime
    return (n * B - B.sum(axis=0, keepdims=True)) % prime, cols


def block_lower_bound(p: int, K: int, a, b, *, prime: int = DEFAULT_PRIME, seed: int = 0, bound: int = 2**15) -> dict:
    """A proven lower bound on the *generic* rank of the data map from a sparse point with a block structure.

    At the point of :func:`block_point` (neuron ``k`` writes to output ``j(k) = k mod p`` only), the
    columns ``W[:, k]`` and ``V[j(k), k]`` of ``J`` are nonzero only on the rows of output ``j(k)`` (the
    centring mixes samples, never outputs), so ``J`` restricted to them is block diagonal with one
    ``N x |{k: j(k) = j}| (2p + 1)`` block per output (:func:`centred_block`).  Hence

        generic rank >= rank J(point) >= sum_j rank (block j)   (each rank modulo ``prime``),

    ``p`` eliminations of ``N x ~(K / p)(2p + 1)`` matrices instead of one of ``N p x 3pK``.  When the sum
    reaches the cap ``p (N - 1)`` (which bounds the rank everywhere) the data dimension is certified
    (a ``block_rank`` certificate, :mod:`algebra.certify.block_rank`, lets the checker re-derive it).

    Returns ``{"lower", "blocks": [rank per output], "cap", "seconds"}``.

    Examples
    --------
    >>> from algebra.grokking.task import modular_addition
    >>> t = modular_addition(7, 0.4)
    >>> r = block_lower_bound(7, 16, t.a[t.train], t.b[t.train])
    >>> r["lower"], r["cap"]                       # the cap 7 (N - 1) binds: certified 126
    (126, 126)
    """
    import time

    t0 = time.perf_counter()
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    W, v = block_point(p, K, seed=seed, bound=bound)
    blocks = []
    for j in range(p):
        B, _ = centred_block(p, K, a, b, W, v, j, prime)
        blocks.append(int(rank_mod_p(B, prime)) if B.size else 0)
    return {"lower": int(sum(blocks)), "blocks": blocks, "cap": int(p * (np.unique(a * p + b).size - 1)),
            "seconds": round(time.perf_counter() - t0, 2)}
