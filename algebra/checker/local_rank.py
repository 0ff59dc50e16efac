"""The ``local_rank`` kind: the exact Jacobian rank of the grokking network at a trained point, derived.

Part of the independent checker (plug-in): imports only :mod:`algebra.checker.core`.  The network is
``Y_hat = V (W^T x)^2`` with one-hot ``x = e_a + e_{p+b}``, ``W`` ``(2p, K)``, ``V`` ``(p, K)``, ``theta = (vec W, vec V)``
row-major; the maps are ``theta -> Y_hat P_perp`` on the training pairs (``train``) and on all ``p^2`` pairs
in lexicographic order (``all``).  Fields: ``network`` ``{p, width, train: strictly increasing [a, b] pairs,
theta: 3pK binary64 in short hex}`` and ``witnesses`` ``{prime, train, all, fields}`` (each ``{rows, cols}``;
docs/certificate-format.md); nothing else (a ``tolerance`` is refused as an unknown field).  Derived, without
search:

1. ``theta = M / 2^s`` exactly and ``J(theta) = J(M) / 2^(2s)`` (homogeneous cubic outputs): ranks are those
   of the integer ``J(M)``, row ``i p + j`` centred as ``N d yhat_ij - sum_l d yhat_lj``;
2. lower bound: a witness minor nonzero modulo the prime (a nonzero integer): ``rank >= r`` at and near theta;
3. upper bound: the ``2K`` fields (rescaling ``(W[:, k], -2 V[:, k])``; shift ``+1`` on ``W[:p, k]``, ``-1`` on
   ``W[p:, k]``) are polynomial in theta and this module builds them itself; ``J X = 0`` identically is
   checked at a random point modulo a fresh 200-bit prime (Schwartz--Zippel: the identity's coefficients are
   small integers, so it holds over the integers, at ``M`` in particular); their witness minor gives
   ``rank X >= s`` at and near theta, so ``rank J <= P - s``; and ``rank J <= p (N - 1)`` everywhere (each
   pair has its own monomial ``x_a x_{p+b}``); both bounds meeting the lower one make the rank exact and
   locally constant;
4. ``L_n = 1/(2N) ||(Y - Y_hat) P_perp||^2`` (``Y`` one-hot of ``(a + b) mod p``, ``P_perp`` centring over the
   samples) and ``||grad L_n||^2`` exactly, as integers over powers of two: ``L_n = 0`` is decided exactly
   (every centred residual is the integer 0), and both are rendered as 3-digit decimal upper bounds;
5. Theorem F.1 / Corollary F.2 of the grokking paper (``lambda = r / 2``, ``m = 1`` at a point of locally
   constant rank ``r``) need ``w*`` in ``W_0 = argmin L_n``.  ``L_n >= 0``, so a point with ``L_n = 0``
   exactly is a global minimiser (and critical: the gradient is a sum of residual terms, all 0), and the
   file's data prove nothing weaker: a point with ``L_n > 0`` may or may not be a minimum, and no stated
   gradient tolerance turns a near-critical point into a minimiser (a tolerance would be the file's to
   choose, and Theorem F.1 has none).  Hence: ``L_n = 0`` and a locally constant training rank give
   ``lambda = r / 2``, ``m = 1``; ``L_n = 0`` without a constant rank gives
   ``lower / 2 <= lambda <= (P + upper) / 4`` (Hessian rank at a true solution); ``L_n > 0``: no lambda,
   and the claim says that ``w*`` is not a proven minimiser.

Work (:data:`MAX_WORK` units, docs/certificate-format.md): a unit is one Python integer operation on
word-sized (64-bit) operands, measured at 40-75 ns on the development machine; an operation on ``a``- and
``b``-word integers costs ``1 + a b / 4`` units (the schoolbook word products, divided by 4 as measured; an
overcount where Python switches to Karatsuba), a determinant of side ``r`` modulo a word-sized prime
``r^3 / 128`` (python-flint, measured) or ``r^3`` (the pure-Python fallback).  The integers' sizes are known
before any is built: a binary64 ``n / 2^k`` scaled by ``2^s`` (``s`` the largest ``k``) has
``bitlen(n) + s - k`` bits, so ``theta`` near ``2^1023`` beside a subnormal means ``2^2100``-sized integers,
and the exact gradient's products are charged at their sizes.  Every phase's cost is projected from the
file's sizes (:func:`work_plan`) and the whole check refused before anything is built when the projection
exceeds the budget; each phase charges its cost again where it runs.
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction

from algebra.checker.core import (
    ENVELOPE,
    OPTIONAL,
    SZ_BITS,
    big_int,
    block_fields,
    charge,
    det_mod,
    digest,
    exact_number,
    flint,
    get,
    index_set,
    is_prime,
    need,
    random_prime,
    register_kind,
    small_int,
)

__all__ = ["derive_local_rank_claim", "render_local_rank_claim", "decimal_ceiling", "work_plan", "MAX_P",
           "MAX_WIDTH", "MAX_MINOR", "MAX_WORK"]

MAX_P = 257
MAX_WIDTH = 4096
MAX_PARAMETERS = 200_000
MAX_MINOR = 4096  # side of a witness minor (16.8 million entries)
MAX_WORK = 10**9  # units of one certificate (module docstring, "Work"): about 40-75 ns each, measured
MAPS = ("train", "all")
WORD = 64  # bits of one word of the work unit
FLINT_DET_SPEEDUP = 128  # python-flint nmod_mat det: ~128 multiply-adds per unit (measured: r = 1568 in ~1.3 s)


def decimal_ceiling(x: Fraction, *, square: bool = False) -> str:
    """The least ``d.dd e E`` (three significant digits) at or above ``x`` (``sqrt(x)`` with ``square``).

    Examples
    --------
    >>> decimal_ceiling(Fraction(1, 3)), decimal_ceiling(Fraction(2), square=True), decimal_ceiling(Fraction(0))
    ('3.34e-1', '1.42e0', '0')
    >>> decimal_ceiling(Fraction(1000)), decimal_ceiling(Fraction(999, 10**9))
    ('1.00e3', '9.99e-7')
    """
    if x == 0:
        return "0"
    need(x > 0, "internal: a bound of a negative number")
    num, den = x.numerator, x.denominator
    # want the least m in [100, 999] and exponent e with (m 10^e)^k >= x, k = 2 (square) or 1
    k = 2 if square else 1
    approx = (math.log10(num) - math.log10(den)) / k if num.bit_length() < 1000 and den.bit_length() < 1000 else \
        ((num.bit_length() - den.bit_length()) * math.log10(2)) / k
    e = math.floor(approx) - 2

    def ok(m, e):  # (m 10^e)^k >= num / den, exactly
        lhs = m**k * den * (10 ** (k * e) if e >= 0 else 1)
        rhs = num * (10 ** (-k * e) if e < 0 else 1)
        return lhs >= rhs

    while ok(100, e):  # too large a scale: the value is below 100 10^e
        e -= 1
    while not ok(999, e):
        e += 1
    lo, hi = 100, 999
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid, e) else (mid + 1, hi)
    return f"{lo // 100}.{lo % 100:02d}e{e + 2}"


def _words(bits: int) -> int:
    return max(1, -(-bits // WORD))


def _mul(a_bits: int, b_bits: int) -> int:
    """Units of one operation on an ``a_bits``- and a ``b_bits``-bit integer: 1 for the operation and a quarter
    of the schoolbook word products (measured, module docstring "Work").

    Examples
    --------
    >>> _mul(64, 64), _mul(2098, 2098), _mul(6300, 4200)
    (1, 273, 1634)
    """
    return 1 + _words(a_bits) * _words(b_bits) // 4


def _det_units(r: int) -> int:
    """Units of a determinant of side ``r`` modulo a word-sized prime (module docstring, "Work")."""
    cube = r**3
    return r * r + (cube // FLINT_DET_SPEEDUP if flint is not None else cube)


def scale_bits(values) -> tuple:
    """``(s, B)`` for binary64 ``values``: ``theta = M / 2^s`` with ``s`` the least such and every ``|M_i| < 2^B``,
    from each value's exact ratio ``n / 2^k`` (``bitlen(M_i) = bitlen(n) + s - k``), before ``M`` is built.

    Examples
    --------
    >>> scale_bits([0.75, -2.0, 0.0])
    (2, 4)
    >>> scale_bits([float.fromhex("0x1.fffffffffffffp+1023"), 5e-324])
    (1074, 2098)
    """
    ratios = [x.as_integer_ratio() for x in values if x != 0]
    s = max((d.bit_length() - 1 for _, d in ratios), default=0)
    return s, max((abs(n).bit_length() + s - (d.bit_length() - 1) for n, d in ratios), default=0)


def work_plan(p: int, K: int, n: int, s: int, B: int, minors) -> dict:
    """The projected units of every phase of a check (module docstring, "Work"), before anything is built.

    ``n`` training pairs, ``theta = M / 2^s`` with ``|M_i| < 2^B`` (:func:`scale_bits`), ``minors`` the sides of
    the three witness minors (``train``, ``all``, ``fields``).  Each phase below charges its entry where it runs.

    Examples
    --------
    >>> minors = {"train": 26, "all": 26, "fields": 4}
    >>> plan, extreme = work_plan(5, 2, 15, 55, 56, minors), work_plan(5, 2, 15, 1074, 2098, minors)
    >>> sorted(plan), 500 * plan["gradient"] < extreme["gradient"]
    (['fields at a random point', 'gradient', 'minor all', 'minor fields', 'minor train', 'scaling theta'], True)
    """
    P, Q = 3 * p * K, SZ_BITS + 1
    reduce = P * _words(B)  # M modulo one prime
    out = {"scaling theta": 50 * P + P * _words(B),
           "fields at a random point": 2 * K * p * p * p * 5 * _mul(2 * Q, Q),
           "gradient": _gradient_units(p, K, n, s, B)}
    for m, r in minors.items():
        samples = {"train": n, "all": p * p}.get(m, 0)
        out[f"minor {m}"] = _minor_units(p, K, B, samples, r)
    return out


def _gradient_units(p, K, n, s, B) -> int:
    """Units of the exact gradient and loss (:func:`_gradient`) at the sizes the scale gives."""
    lg = (max(n, K, p) + 1).bit_length() + 2
    hb, ab = B + 1, 2 * B + 2  # H = W[a] + W[p + b], A = H^2
    eb = max(3 * s + 1, ab + B + lg) + 1  # E = D Y - A V^T
    rb = eb + lg  # R = n E - column sums
    gb = rb + ab + lg  # the gradient's entries (before squaring)
    return (n * K * _mul(hb, hb) + n * p * K * _mul(ab, B) + 2 * n * p * _words(rb)
            + p * K * n * _mul(rb, ab) + p * K * _mul(gb, gb)
            + n * K * p * _mul(rb, B) + n * K * _mul(gb, hb) + 2 * p * K * _mul(gb + B, gb + B)
            + n * p * _mul(rb, rb) + 64 * _mul(2 * gb + 10 * s + 4 * lg, 2 * gb + 10 * s + 4 * lg))


def _minor_units(p, K, B, samples, r) -> int:
    """Units of one witness minor of side ``r`` on ``samples`` pairs (0: the kernel fields' minor)."""
    return 3 * p * K * _words(B) + 2 * samples * K + r * r + 3 * K * r + p * r + _det_units(r)


def _network(block):
    block_fields(block, "network", ("p", "width", "train", "theta"))
    p = small_int(get(block, "p", int, "network"), 2, MAX_P, "network.p")
    need(is_prime(p), "network.p must be a prime")
    K = small_int(get(block, "width", int, "network"), 1, MAX_WIDTH, "network.width")
    P = 3 * p * K
    need(P <= MAX_PARAMETERS, f"network: more than {MAX_PARAMETERS} parameters")
    train = get(block, "train", list, "network")
    need(2 <= len(train) <= p * p, "network.train must list 2..p^2 pairs")
    pairs = []
    for t in train:
        need(isinstance(t, list) and len(t) == 2, "network.train: each pair is [a, b]")
        pairs.append((small_int(t[0], 0, p - 1, "pair a"), small_int(t[1], 0, p - 1, "pair b")))
    need(all(x < y for x, y in zip(pairs, pairs[1:])), "network.train must be strictly increasing pairs (a set)")
    theta = get(block, "theta", list, "network")
    need(len(theta) == P, f"network.theta must have 3pK = {P} entries")
    values = []
    for v in theta:
        x = exact_number(v, "theta entry")
        need(isinstance(x, float), "theta entries must be binary64 in short hex (0x1.8p-1)")
        values.append(x)
    return p, K, pairs, values


def _integers(values, s, B, work) -> list:
    """``M = theta 2^s`` (integers of fewer than ``B`` bits, :func:`scale_bits`)."""
    charge(work, 50 * len(values) + len(values) * _words(B), "scaling theta to integers", MAX_WORK)
    out = []
    for x in values:
        n, d = x.as_integer_ratio()
        out.append(n << (s - d.bit_length() + 1))
    return out


def _parts(p, K, M, pairs, m):
    """``W``, ``V``, ``H`` (per sample) as lists of residues modulo ``m`` (``m = 0``: exact integers)."""
    red = (lambda x: x % m) if m else (lambda x: x)
    W = [[red(M[r * K + k]) for k in range(K)] for r in range(2 * p)]
    V = [[red(M[2 * p * K + j * K + k]) for k in range(K)] for j in range(p)]
    H = [[red(W[a][k] + W[p + b][k]) for k in range(K)] for a, b in pairs]
    return W, V, H


def _minor(p, K, M, B, pairs, rows, cols, q, work, what) -> int:
    """``det J(M)[rows, cols]`` modulo ``q`` (``J`` centred, rows ``i p + j``)."""
    n, r = len(pairs), len(rows)
    charge(work, _minor_units(p, K, B, n, r), f"the {r} x {r} minor of {what}", MAX_WORK)
    W, V, H = _parts(p, K, M, pairs, q)
    at = {c: t for t, c in enumerate(cols)}
    Hs = [[0] * K for _ in range(2 * p)]
    Asum = [0] * K
    for (a, b), h in zip(pairs, H):
        for k in range(K):
            Hs[a][k] += h[k]
            Hs[p + b][k] += h[k]
            Asum[k] += h[k] * h[k]
    WK = 2 * p * K
    base = {}  # j -> the row -sum_l d yhat_lj restricted to cols
    flat = []
    for row in rows:
        i, j = divmod(row, p)
        if j not in base:
            out = []
            for c in cols:
                if c < WK:
                    rr, k = divmod(c, K)
                    out.append(-2 * V[j][k] * Hs[rr][k] % q)
                else:
                    jj, k = divmod(c - WK, K)
                    out.append(-Asum[k] % q if jj == j else 0)
            base[j] = out
        line = list(base[j])
        a, b = pairs[i]
        h = H[i]
        for k in range(K):
            g = 2 * n * V[j][k] * h[k]
            for c in (a * K + k, (p + b) * K + k):
                if c in at:
                    line[at[c]] = (line[at[c]] + g) % q
            c = WK + j * K + k
            if c in at:
                line[at[c]] = (line[at[c]] + n * h[k] * h[k]) % q
        flat.append(line)
    return det_mod(flat, q)


def _fields_at(p, K, M, m):
    """The ``2K`` kernel fields at ``M`` (exact integers, or residues modulo ``m``), each ``{parameter: value}``."""
    red = (lambda x: x % m) if m else (lambda x: x)
    WK, out = 2 * p * K, []
    for k in range(K):
        f = {r * K + k: red(M[r * K + k]) for r in range(2 * p)}
        f.update({WK + j * K + k: red(-2 * M[WK + j * K + k]) for j in range(p)})
        out.append(f)
    for k in range(K):
        out.append({r * K + k: red(1 if r < p else -1) for r in range(2 * p)})
    return out


def _fields_in_kernel(p, K, M, pairs, m, work, what) -> None:
    """``J X = 0`` modulo ``m`` for every field and every row of the map on ``pairs`` at the point ``M``
    (residues below ``m``).

    Each field moves one neuron ``k``: the raw derivative of ``yhat_ij`` along it is
    ``2 V[j, k] H[i, k] (X[a_i, k] + X[p + b_i, k]) + X_V[j, k] H[i, k]^2``; it must vanish (then so does
    the centred row)."""
    bits = m.bit_length()
    charge(work, 2 * K * len(pairs) * p * 5 * _mul(2 * bits, bits), f"the kernel fields on {what}", MAX_WORK)
    W, V, H = _parts(p, K, M, pairs, m)
    WK = 2 * p * K
    for t, f in enumerate(_fields_at(p, K, M, m)):
        k = t % K
        for (a, b), h in zip(pairs, H):
            dh = f.get(a * K + k, 0) + f.get((p + b) * K + k, 0)
            for j in range(p):
                d = 2 * V[j][k] * h[k] * dh + f.get(WK + j * K + k, 0) * h[k] * h[k]
                need(d % m == 0, f"kernel field {t} is not in the kernel of J on {what}")


def _field_minor(p, K, M, B, rows, cols, q, work) -> int:
    r = len(rows)
    charge(work, _minor_units(p, K, B, 0, r), "the kernel-field minor", MAX_WORK)
    F = _fields_at(p, K, M, q)
    return det_mod([[F[r].get(c, 0) for c in cols] for r in rows], q)


def _witness(block, what, n_rows, n_cols):
    block_fields(block, what, ("rows", "cols"))
    rows = index_set(get(block, "rows", list, what), 0, n_rows - 1, f"{what}.rows")
    cols = index_set(get(block, "cols", list, what), 0, n_cols - 1, f"{what}.cols", len(rows))
    need(len(rows) <= MAX_MINOR, f"{what}: a minor larger than {MAX_MINOR} x {MAX_MINOR}")
    return rows, cols


def _gradient(p, K, M, s, B, pairs, work):
    """Exact ``(||grad L_n||^2, L_n)`` at ``theta = M / 2^s`` on the training pairs (module docstring, 5)."""
    n = len(pairs)
    charge(work, _gradient_units(p, K, n, s, B), "the exact gradient", MAX_WORK)
    W, V, H = _parts(p, K, M, pairs, 0)
    D = 2 ** (3 * s)
    A = [[x * x for x in h] for h in H]
    E = [[(D if j == (a + b) % p else 0) - sum(Ai[k] * V[j][k] for k in range(K)) for j in range(p)]
         for (a, b), Ai in zip(pairs, A)]
    col = [sum(E[i][j] for i in range(n)) for j in range(p)]
    R = [[n * E[i][j] - col[j] for j in range(p)] for i in range(n)]  # R / (n D) is the centred residual
    # gradient = -G / (n^2 2^(5s)): G_V[j, k] = sum_i R_ij A_ik, G_W[row, k] = sum over samples at row of 2 (R V)_ik H_ik
    g2 = 0
    for j in range(p):
        for k in range(K):
            g2 += sum(R[i][j] * A[i][k] for i in range(n)) ** 2
    GW = [[0] * K for _ in range(2 * p)]
    for i, (a, b) in enumerate(pairs):
        for k in range(K):
            t = 2 * H[i][k] * sum(R[i][j] * V[j][k] for j in range(p))
            GW[a][k] += t
            GW[p + b][k] += t
    g2 += sum(x * x for row in GW for x in row)
    grad2 = Fraction(g2, n**4 * 2 ** (10 * s))
    loss = Fraction(sum(x * x for r in R for x in r), 2 * n * n * n * 2 ** (6 * s))
    return grad2, loss


def render_local_rank_claim(claim: dict) -> str:
    """The canonical text of a ``local_rank`` claim (only numbers and facts the checker derived).

    Examples
    --------
    >>> about = {"network_sha256": "ab" * 32, "p": 5, "width": 2, "parameters": 30, "train_pairs": 10, "scale_bits": 52}
    >>> maps = {"train": {"samples": 10, "lower": 26, "upper": 26, "locally_constant": True},
    ...         "all": {"samples": 25, "lower": 26, "upper": 26, "locally_constant": True}}
    >>> c = {"about": about, "maps": maps, "gradient_norm_at_most": "0", "train_loss_at_most": "0",
    ...      "critical": True, "minimiser": True, "lambda": "13", "multiplicity": 1, "lambda_bounds": None,
    ...      "hypothesis_fails": None}
    >>> render_local_rank_claim(c)[-73:]
    'Theorem F.1 / Corollary F.2 give lambda = 13, m = 1 for L_n at this point'
    >>> fails = ["not a proven minimiser of L_n (Theorem F.1 needs L_n(w*) = min L_n): 0 < L_n <= 2.00e-3"]
    >>> c.update(gradient_norm_at_most="1.00e-2", train_loss_at_most="2.00e-3", critical=False, minimiser=False,
    ...          hypothesis_fails=fails, **{"lambda": None, "multiplicity": None})
    >>> render_local_rank_claim(c)[-40:]
    '0 < L_n <= 2.00e-3; no lambda is derived'
    """
    ab = claim["about"]

    def rank(m):
        x = claim["maps"][m]
        v = f"exactly {x['lower']}" if x["lower"] == x["upper"] else f"between {x['lower']} and {x['upper']} (bounds differ)"
        return (f"on the {x['samples']} {'training' if m == 'train' else ''} pairs".replace("  ", " ")
                + f" the Jacobian rank is {v}" + (", locally constant" if x["locally_constant"] else ""))

    text = (f"at the exact binary64 point of the network sha256 {ab['network_sha256'][:16]}... (modular addition, "
            f"p = {ab['p']}, K = {ab['width']}, {ab['parameters']} parameters, {ab['train_pairs']} training pairs): "
            f"{rank('train')}; {rank('all')}; ||grad L_n|| <= {claim['gradient_norm_at_most']}, "
            f"L_n <= {claim['train_loss_at_most']}; ")
    if claim["lambda"] is not None:
        return text + ("with L_n = 0 exactly (a global minimiser of L_n >= 0) and a locally constant rank, "
                       f"Theorem F.1 / Corollary F.2 give lambda = {claim['lambda']}, m = {claim['multiplicity']} "
                       "for L_n at this point")
    fails = "; ".join(claim["hypothesis_fails"])
    if claim["lambda_bounds"] is not None:
        lo, hi = claim["lambda_bounds"]
        return text + f"hypothesis fails: {fails}; at this minimiser with these ranks {lo} <= lambda <= {hi}"
    return text + f"hypothesis fails: {fails}; no lambda is derived"


def derive_local_rank_claim(cert, notes) -> dict:
    """Derive the claim of a ``local_rank`` certificate (module docstring); raise ``Reject``.

    The work of every phase is projected from the file's sizes (:func:`work_plan`) and the file refused
    before anything is built when it exceeds :data:`MAX_WORK`; a note records the units spent.
    """
    block_fields(cert, "a local_rank certificate", ENVELOPE + ("network", "witnesses"), OPTIONAL + ("seed",))
    net = get(cert, "network", dict)
    p, K, train, values = _network(net)
    P = 3 * p * K
    wit = get(cert, "witnesses", dict)
    block_fields(wit, "witnesses", ("prime",) + MAPS + ("fields",))
    q = big_int(get(wit, "prime", str, "witnesses"), "witnesses.prime")
    need(2 < q < 2**62 and is_prime(q), "witnesses.prime must be an odd prime below 2^62")
    pairs = {"train": train, "all": [(a, b) for a in range(p) for b in range(p)]}
    witness = {"fields": _witness(get(wit, "fields", dict, "witnesses"), "witnesses.fields", 2 * K, P)}
    for m in MAPS:
        witness[m] = _witness(get(wit, m, dict, "witnesses"), f"witnesses.{m}", len(pairs[m]) * p, P)
    # the budget: every phase projected from the sizes, before any integer is built
    s, B = scale_bits(values)
    plan = work_plan(p, K, len(train), s, B, {m: len(rows) for m, (rows, _) in witness.items()})
    total = sum(plan.values())
    worst = max(plan, key=plan.get)
    need(total <= MAX_WORK, f"checking this file would take {total} work units, more than {MAX_WORK} "
         f"(theta = M / 2^{s} with {B}-bit integers; the largest phase, {worst}, {plan[worst]} units)")
    work = [MAX_WORK]
    M = _integers(values, s, B, work)
    # the fields: in the kernel identically (Schwartz-Zippel at a random point), and their rank at theta
    Q = random_prime(SZ_BITS)
    X = [secrets.randbelow(Q) for _ in range(P)]
    _fields_in_kernel(p, K, X, pairs["all"], Q, work, "all pairs at a random point")
    frows, fcols = witness["fields"]
    need(_field_minor(p, K, M, B, frows, fcols, q, work) != 0, f"the kernel-field minor vanishes modulo {q}")
    sfields = len(frows)
    notes.append(f"{2 * K} kernel fields in the kernel of J identically (at a random point modulo a random "
                 f"{SZ_BITS}-bit prime, failure <= 2^-190), rank >= {sfields} at theta")
    maps = {}
    for m in MAPS:
        n = len(pairs[m])
        rows, cols = witness[m]
        need(_minor(p, K, M, B, pairs[m], rows, cols, q, work, f"the {m} map") != 0,
             f"the {len(rows)} x {len(rows)} minor of the {m} map vanishes modulo {q}")
        upper = min(P - sfields, p * (n - 1))
        lower = len(rows)
        need(lower <= upper, f"internal: the {m} map's bounds cross ({lower} > {upper})")
        maps[m] = {"samples": n, "lower": lower, "upper": upper, "locally_constant": lower == upper}
        notes.append(f"{m} map: {lower} <= rank <= {upper} (nonzero minor mod {q}; min(P - {sfields}, p (N - 1)))")
    grad2, loss = _gradient(p, K, M, s, B, train, work)
    minimiser, critical = loss == 0, grad2 == 0
    need(critical or not minimiser, "internal: a zero-loss point with a nonzero gradient")
    fails, lam, mult, bounds = [], None, None, None
    tr = maps["train"]
    loss_text = decimal_ceiling(loss)
    if not minimiser:
        fails.append(f"not a proven minimiser of L_n (Theorem F.1 needs L_n(w*) = min L_n, proven from the file's "
                     f"data only where L_n = 0): 0 < L_n <= {loss_text}")
    if not tr["locally_constant"]:
        fails.append("the training map's rank is not certified locally constant (its bounds differ)")
    if minimiser and tr["locally_constant"]:
        lam, mult = str(Fraction(tr["lower"], 2)), 1
    elif minimiser:
        bounds = [str(Fraction(tr["lower"], 2)), str(Fraction(P + tr["upper"], 4))]
    about = {"network_sha256": digest(net), "p": p, "width": K, "parameters": P, "train_pairs": len(train),
             "scale_bits": s}
    # relation/value: the training map's rank, as every rank kind states it (``==`` when the bounds meet)
    claim = {"about": about, "relation": "==" if tr["locally_constant"] else ">=", "value": tr["lower"],
             "maps": maps, "gradient_norm_at_most": decimal_ceiling(grad2, square=True),
             "train_loss_at_most": loss_text, "critical": critical, "minimiser": minimiser,
             "lambda": lam, "multiplicity": mult, "lambda_bounds": bounds, "hypothesis_fails": fails or None}
    claim["text"] = render_local_rank_claim(claim)
    notes.append(f"local_rank: L_n {'= 0 exactly' if minimiser else '> 0'}, ||grad L_n|| <= "
                 f"{claim['gradient_norm_at_most']}; work {MAX_WORK - work[0]} of {MAX_WORK} units "
                 f"(projected {total})")
    return claim


register_kind("local_rank", derive_local_rank_claim, ("network", "witnesses"))
