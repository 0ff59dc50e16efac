"""The ``local_rank`` kind: the exact Jacobian rank of the grokking network at a trained point, derived.

Imports nothing from :mod:`algebra` outside :mod:`algebra.checker`.  The network is ``Y_hat = V (W^T x)^2``
with one-hot ``x = e_a + e_{p+b}``, ``W`` ``(2p, K)``, ``V`` ``(p, K)``, ``theta = (vec W, vec V)``
row-major; the maps are ``theta -> Y_hat P_perp`` on the training pairs (``train``) and on all ``p^2`` pairs
in lexicographic order (``all``).  Fields: ``network`` ``{p, width, train: strictly increasing [a, b] pairs,
theta: 3pK binary64 in short hex}``, ``tolerance`` (``d[.ddd]eX``), ``witnesses`` ``{prime, train, all,
fields}`` (each ``{rows, cols}``; docs/certificate-format.md).  Derived, without search:

1. ``theta = M / 2^s`` exactly and ``J(theta) = J(M) / 2^(2s)`` (homogeneous cubic outputs): ranks are those
   of the integer ``J(M)``, row ``i p + j`` centred as ``N d yhat_ij - sum_l d yhat_lj``;
2. lower bound: a witness minor nonzero modulo the prime (a nonzero integer): ``rank >= r`` at and near theta;
3. upper bound: the ``2K`` fields (rescaling ``(W[:, k], -2 V[:, k])``; shift ``+1`` on ``W[:p, k]``, ``-1`` on
   ``W[p:, k]``) have ``J(M) X(M) = 0`` exactly and ``J X = 0`` at a random point modulo a fresh 200-bit prime
   (Schwartz--Zippel); their witness minor gives ``rank X >= s`` at and near theta, so ``rank J <= P - s``;
   and ``rank J <= p (N - 1)`` everywhere (each pair has its own monomial ``x_a x_{p+b}``); both bounds
   meeting the lower one make the rank exact and locally constant;
4. ``||grad L_n||^2`` and ``L_n = 1/(2N) ||(Y - Y_hat) P_perp||^2`` (``Y`` one-hot of ``(a + b) mod p``) exactly,
   rendered as 3-digit decimal upper bounds;
5. Theorem F.1 / Corollary F.2 of the grokking paper: ``||grad L_n|| <= tolerance`` (exactly) and a locally
   constant training rank ``r`` give ``lambda = r / 2``, ``m = 1``; critical without a constant rank:
   ``lower / 2 <= lambda <= (P + upper) / 4`` (Hessian rank at a true solution); not critical: no lambda.

Work is charged before it is done (:data:`MAX_WORK`): minors, field checks, the gradient.
"""

from __future__ import annotations

import math
import re
import secrets
from fractions import Fraction

from algebra.checker.attention import ENVELOPE, OPTIONAL, charge, exact_number, fields
from algebra.checker.kernel import (
    SZ_BITS,
    big_int,
    det_mod,
    digest,
    get,
    index_set,
    is_prime,
    need,
    random_prime,
    register_kind,
    small_int,
)

__all__ = ["derive_local_rank_claim", "render_local_rank_claim", "decimal_ceiling", "MAX_P", "MAX_WIDTH",
           "MAX_MINOR", "MAX_WORK"]

MAX_P = 257
MAX_WIDTH = 4096
MAX_PARAMETERS = 200_000
MAX_MINOR = 4096  # side of a witness minor (16.8 million entries)
MAX_WORK = 4 * 10**8  # charged steps of one certificate (module docstring, "Work")
MAPS = ("train", "all")
_TOL = re.compile(r"[1-9](\.[0-9]{0,15}[1-9])?e(0|-?[1-9][0-9]{0,3})")


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


def _tolerance(s) -> Fraction:
    need(isinstance(s, str) and _TOL.fullmatch(s) is not None,
         "tolerance must be a canonical 'd[.ddd]eX' (ASCII digits, no trailing zero, no '+', e.g. '1e-3')")
    mant, _, ex = s.partition("e")
    e = int(ex)
    return Fraction(mant) * (Fraction(10) ** e)


def _network(block, work):
    fields(block, "network", ("p", "width", "train", "theta"))
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
    charge(work, 50 * P, "reading theta", MAX_WORK)
    values = []
    for v in theta:
        x = exact_number(v, "theta entry")
        need(isinstance(x, float), "theta entries must be binary64 in short hex (0x1.8p-1)")
        values.append(Fraction(x))
    s = max(f.denominator.bit_length() - 1 for f in values)
    M = [f.numerator * (2**s // f.denominator) for f in values]
    return p, K, pairs, M, s


def _parts(p, K, M, pairs, m):
    """``W``, ``V``, ``H`` (per sample) as lists of residues modulo ``m`` (``m = 0``: exact integers)."""
    red = (lambda x: x % m) if m else (lambda x: x)
    W = [[red(M[r * K + k]) for k in range(K)] for r in range(2 * p)]
    V = [[red(M[2 * p * K + j * K + k]) for k in range(K)] for j in range(p)]
    H = [[red(W[a][k] + W[p + b][k]) for k in range(K)] for a, b in pairs]
    return W, V, H


def _minor(p, K, M, pairs, rows, cols, q, work, what) -> int:
    """``det J(M)[rows, cols]`` modulo ``q`` (``J`` centred, rows ``i p + j``)."""
    n, r = len(pairs), len(rows)
    charge(work, r * r + 3 * K * r + p * len(cols), f"the {r} x {r} minor of {what}", MAX_WORK)
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
    """``J X = 0`` for every field and every row of the map on ``pairs`` (exact when ``m = 0``, else mod ``m``).

    Each field moves one neuron ``k``: the raw derivative of ``yhat_ij`` along it is
    ``2 V[j, k] H[i, k] (X[a_i, k] + X[p + b_i, k]) + X_V[j, k] H[i, k]^2``; it must vanish (then so does
    the centred row)."""
    charge(work, 2 * K * len(pairs) * p * 4, f"the kernel fields on {what}", MAX_WORK)
    W, V, H = _parts(p, K, M, pairs, m)
    WK = 2 * p * K
    for t, f in enumerate(_fields_at(p, K, M, m)):
        k = t % K
        for (a, b), h in zip(pairs, H):
            dh = f.get(a * K + k, 0) + f.get((p + b) * K + k, 0)
            for j in range(p):
                d = 2 * V[j][k] * h[k] * dh + f.get(WK + j * K + k, 0) * h[k] * h[k]
                need((d % m if m else d) == 0, f"kernel field {t} is not in the kernel of J on {what}")


def _field_minor(p, K, M, rows, cols, q, work) -> int:
    charge(work, len(rows) * len(cols), "the kernel-field minor", MAX_WORK)
    F = _fields_at(p, K, M, q)
    return det_mod([[F[r].get(c, 0) for c in cols] for r in rows], q)


def _witness(block, what, n_rows, n_cols):
    fields(block, what, ("rows", "cols"))
    rows = index_set(get(block, "rows", list, what), 0, n_rows - 1, f"{what}.rows")
    cols = index_set(get(block, "cols", list, what), 0, n_cols - 1, f"{what}.cols", len(rows))
    need(len(rows) <= MAX_MINOR, f"{what}: a minor larger than {MAX_MINOR} x {MAX_MINOR}")
    return rows, cols


def _gradient(p, K, M, s, pairs, work):
    """Exact ``(||grad L_n||^2, L_n)`` at ``theta = M / 2^s`` on the training pairs (module docstring, 5)."""
    n = len(pairs)
    charge(work, 6 * n * p * K, "the exact gradient", MAX_WORK)
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
    """The canonical text of a ``local_rank`` claim (numbers the checker derived, and the stated tolerance).

    Examples
    --------
    >>> about = {"network_sha256": "ab" * 32, "p": 5, "width": 2, "parameters": 30, "train_pairs": 10, "scale_bits": 52}
    >>> maps = {"train": {"samples": 10, "lower": 26, "upper": 26, "locally_constant": True},
    ...         "all": {"samples": 25, "lower": 26, "upper": 26, "locally_constant": True}}
    >>> c = {"about": about, "maps": maps, "gradient_norm_at_most": "1.00e-9", "train_loss_at_most": "2.00e-12",
    ...      "tolerance": "1e-6", "critical": True, "lambda": "13", "multiplicity": 1, "lambda_bounds": None,
    ...      "hypothesis_fails": None}
    >>> render_local_rank_claim(c)[-73:]
    'Theorem F.1 / Corollary F.2 give lambda = 13, m = 1 for L_n at this point'
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
        return text + (f"with ||grad L_n|| <= tolerance {claim['tolerance']} and a locally constant rank, "
                       f"Theorem F.1 / Corollary F.2 give lambda = {claim['lambda']}, m = {claim['multiplicity']} "
                       "for L_n at this point")
    fails = "; ".join(claim["hypothesis_fails"])
    if claim["lambda_bounds"] is not None:
        lo, hi = claim["lambda_bounds"]
        return text + f"hypothesis fails: {fails}; at a critical point with these ranks {lo} <= lambda <= {hi}"
    return text + f"hypothesis fails: {fails}; no lambda is derived"


def derive_local_rank_claim(cert, notes) -> dict:
    """Derive the claim of a ``local_rank`` certificate (module docstring); raise ``Reject``."""
    fields(cert, "a local_rank certificate", ENVELOPE + ("network", "tolerance", "witnesses"), OPTIONAL + ("seed",))
    work = [MAX_WORK]
    net = get(cert, "network", dict)
    p, K, train, M, s = _network(net, work)
    P = 3 * p * K
    tol_text = get(cert, "tolerance", str)
    tol = _tolerance(tol_text)
    wit = get(cert, "witnesses", dict)
    fields(wit, "witnesses", ("prime",) + MAPS + ("fields",))
    q = big_int(get(wit, "prime", str, "witnesses"), "witnesses.prime")
    need(2 < q < 2**62 and is_prime(q), "witnesses.prime must be an odd prime below 2^62")
    pairs = {"train": train, "all": [(a, b) for a in range(p) for b in range(p)]}
    # the fields: in the kernel exactly at theta, identically (Schwartz-Zippel), and their rank at theta
    _fields_in_kernel(p, K, M, pairs["all"], 0, work, "all pairs (the training pairs among them)")
    Q = random_prime(SZ_BITS)
    X = [secrets.randbelow(Q) for _ in range(P)]
    _fields_in_kernel(p, K, X, pairs["all"], Q, work, "all pairs at a random point")
    frows, fcols = _witness(get(wit, "fields", dict, "witnesses"), "witnesses.fields", 2 * K, P)
    need(_field_minor(p, K, M, frows, fcols, q, work) != 0, f"the kernel-field minor vanishes modulo {q}")
    sfields = len(frows)
    notes.append(f"{2 * K} kernel fields in the kernel of J exactly at theta and at a random point modulo a random "
                 f"{SZ_BITS}-bit prime (failure <= 2^-190), rank >= {sfields} at theta")
    maps = {}
    for m in MAPS:
        n = len(pairs[m])
        rows, cols = _witness(get(wit, m, dict, "witnesses"), f"witnesses.{m}", n * p, P)
        need(_minor(p, K, M, pairs[m], rows, cols, q, work, f"the {m} map") != 0,
             f"the {len(rows)} x {len(rows)} minor of the {m} map vanishes modulo {q}")
        upper = min(P - sfields, p * (n - 1))
        lower = len(rows)
        need(lower <= upper, f"internal: the {m} map's bounds cross ({lower} > {upper})")
        maps[m] = {"samples": n, "lower": lower, "upper": upper, "locally_constant": lower == upper}
        notes.append(f"{m} map: {lower} <= rank <= {upper} (nonzero minor mod {q}; min(P - {sfields}, p (N - 1)))")
    grad2, loss = _gradient(p, K, M, s, train, work)
    critical = grad2 <= tol * tol
    fails, lam, mult, bounds = [], None, None, None
    tr = maps["train"]
    if not critical:
        fails.append(f"not a critical point of L_n: ||grad L_n|| > tolerance {tol_text}")
    elif tr["locally_constant"]:
        lam, mult = str(Fraction(tr["lower"], 2)), 1
    else:
        fails.append("the training map's rank is not certified locally constant (its bounds differ)")
        bounds = [str(Fraction(tr["lower"], 2)), str(Fraction(P + tr["upper"], 4))]
    about = {"network_sha256": digest(net), "p": p, "width": K, "parameters": P, "train_pairs": len(train),
             "scale_bits": s}
    # relation/value: the training map's rank, as every rank kind states it (``==`` when the bounds meet)
    claim = {"about": about, "relation": "==" if tr["locally_constant"] else ">=", "value": tr["lower"],
             "maps": maps, "gradient_norm_at_most": decimal_ceiling(grad2, square=True),
             "train_loss_at_most": decimal_ceiling(loss), "tolerance": tol_text, "critical": critical,
             "lambda": lam, "multiplicity": mult, "lambda_bounds": bounds, "hypothesis_fails": fails or None}
    claim["text"] = render_local_rank_claim(claim)
    notes.append(f"local_rank: ||grad L_n|| <= {claim['gradient_norm_at_most']} ({'<=' if critical else '>'} "
                 f"tolerance {tol_text})")
    return claim


register_kind("local_rank", derive_local_rank_claim)
