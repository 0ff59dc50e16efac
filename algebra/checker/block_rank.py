"""The ``block_rank`` kind: the generic rank of the grokking network's data map, from block minors at a sparse point.

Part of the independent checker (plug-in): imports only :mod:`algebra.checker.core`.  The network is that of
``local_rank`` (``Y_hat = V (W^T x)^2``, one-hot ``x = e_a + e_{p+b}``, ``W`` ``(2p, K)``, ``V`` ``(p, K)``,
``theta = (vec W, vec V)`` row-major) and the map is ``theta -> Y_hat P_perp`` on the ``N`` training pairs
(``P_perp`` centres over the samples; Jacobian row ``i p + j`` is ``N d yhat_ij - sum_l d yhat_lj``).  Fields
(docs/certificate-format.md): ``data`` ``{p, width, train}``, ``block_point`` ``{W: 2p rows of K integers, v: K
integers}`` (the point's second layer is ``V[:, k] = v_k e_(k mod p)``, implied) and ``blocks`` ``{prime, minors:
p entries {rows, cols}}``.  Derived, without search:

1. at the point, column ``W[r, k]`` of the Jacobian is nonzero only on the rows of output ``k mod p`` (its raw
   entry ``2 V[j, k] H_ik [r in {a_i, p + b_i}]`` needs ``V[j, k] != 0``) and column ``V[j, k]`` only on output
   ``j``'s (at every point); the centring mixes samples, never outputs.  So the submatrix on minor ``j``'s rows
   (samples ``i``, rows ``i p + j``) and columns (each must touch only output ``j``) and the other minors'
   is block diagonal, and its determinant is the product of the ``p`` minors';
2. lower bound: every minor nonzero modulo the prime (a nonzero integer, the point being integral) gives
   ``rank J(point) >= sum_j |rows_j|``, and the generic rank (the dimension of the map's image) is at least the
   rank at any point;
3. upper bound, everywhere: each output's ``N`` centred rows sum to zero, so ``rank <= p (N - 1)``; and
   ``rank <= P = 3 p K``.  Both bounds meeting make the generic rank exact: the claim.

Work (:data:`MAX_WORK` units, the unit of ``local_rank``: one Python integer operation on word-sized operands,
40-75 ns measured): reading the point ``2pK + K``; per minor of side ``r`` over ``n`` neurons, the column sums
``4 N n``, the entries ``r^2 + 3 r n`` and its determinant modulo the (word-sized) prime ``r^2 + r^3 / 128``
(python-flint, measured) or ``r^3`` (the pure-Python fallback).  All of it is projected from the file's sizes
(:func:`work_plan`) and the file refused before the point is read when it exceeds the budget; each phase charges
again where it runs.
"""

from __future__ import annotations

from algebra.checker.core import (
    ENVELOPE,
    OPTIONAL,
    big_int,
    block_fields,
    charge,
    det_mod,
    digest,
    flint,
    get,
    index_set,
    int_list,
    is_prime,
    need,
    register_kind,
    small_int,
)

__all__ = ["derive_block_rank_claim", "render_block_rank_claim", "work_plan", "MAX_P", "MAX_WIDTH", "MAX_MINOR",
           "MAX_ENTRY", "MAX_WORK"]

MAX_P = 257
MAX_WIDTH = 4096
MAX_PARAMETERS = 200_000
MAX_MINOR = 4096  # side of one block minor (16.8 million entries)
MAX_ENTRY = 2**31  # |W|, |v| entries of the point (JSON integers)
MAX_WORK = 10**9  # units of one certificate (module docstring, "Work")
FLINT_DET_SPEEDUP = 128  # python-flint nmod_mat det: ~128 multiply-adds per unit (as local_rank, measured)


def _det_units(r: int) -> int:
    cube = r**3
    return r * r + (cube // FLINT_DET_SPEEDUP if flint is not None else cube)


def work_plan(p: int, K: int, n: int, minors) -> dict:
    """The projected units of every phase (module docstring, "Work"), before the point is read.

    ``minors`` is a list of ``(side, neurons)`` per block (``neurons``: the distinct ``k`` its columns use).

    Examples
    --------
    >>> plan = work_plan(5, 10, 10, [(9, 2)] * 5)
    >>> sorted(plan), plan["point"]
    (['minor 0', 'minor 1', 'minor 2', 'minor 3', 'minor 4', 'point'], 110)
    """
    out = {"point": 2 * p * K + K}
    for j, (r, m) in enumerate(minors):
        out[f"minor {j}"] = 4 * n * m + r * r + 3 * r * m + _det_units(r)
    return out


def _data(block):
    block_fields(block, "data", ("p", "width", "train"))
    p = small_int(get(block, "p", int, "data"), 2, MAX_P, "data.p")
    need(is_prime(p), "data.p must be a prime")
    K = small_int(get(block, "width", int, "data"), 1, MAX_WIDTH, "data.width")
    need(3 * p * K <= MAX_PARAMETERS, f"data: more than {MAX_PARAMETERS} parameters")
    train = get(block, "train", list, "data")
    need(2 <= len(train) <= p * p, "data.train must list 2..p^2 pairs")
    pairs = []
    for t in train:
        need(isinstance(t, list) and len(t) == 2, "data.train: each pair is [a, b]")
        pairs.append((small_int(t[0], 0, p - 1, "pair a"), small_int(t[1], 0, p - 1, "pair b")))
    need(all(x < y for x, y in zip(pairs, pairs[1:])), "data.train must be strictly increasing pairs (a set)")
    return p, K, pairs


def _output(c: int, p: int, K: int) -> int:
    """The one output that parameter ``c``'s column touches at the point (module docstring, 1)."""
    return (c % K) % p if c < 2 * p * K else (c - 2 * p * K) // K


def _minors(block, p, K, n):
    """The ``p`` minors ``(rows, cols)``: sample indices, and parameter indices each touching only that output."""
    block_fields(block, "blocks", ("prime", "minors"))
    q = big_int(get(block, "prime", str, "blocks"), "blocks.prime")
    need(2 < q < 2**62 and is_prime(q), "blocks.prime must be an odd prime below 2^62")
    minors = get(block, "minors", list, "blocks")
    need(len(minors) == p, f"blocks.minors must have one entry per output (p = {p})")
    out = []
    for j, m in enumerate(minors):
        what = f"blocks.minors[{j}]"
        block_fields(m, what, ("rows", "cols"))
        rows = get(m, "rows", list, what)
        need(len(rows) <= min(n, MAX_MINOR), f"{what}: a minor larger than {min(n, MAX_MINOR)} rows")
        rows = index_set(rows, 0, n - 1, f"{what}.rows")
        cols = index_set(get(m, "cols", list, what), 0, 3 * p * K - 1, f"{what}.cols", len(rows))
        need(all(_output(c, p, K) == j for c in cols), f"{what}: a column that does not touch output {j} alone "
             "at the point (W[r, k] needs k = j mod p; V[j', k] needs j' = j)")
        out.append((rows, cols))
    return q, out


def _point(block, p, K, work):
    charge(work, 2 * p * K + K, "reading the point", MAX_WORK)
    block_fields(block, "block_point", ("W", "v"))
    W = get(block, "W", list, "block_point")
    need(len(W) == 2 * p, f"block_point.W must have 2p = {2 * p} rows")
    W = [int_list(row, -MAX_ENTRY, MAX_ENTRY, "block_point.W row", K) for row in W]
    v = int_list(get(block, "v", list, "block_point"), -MAX_ENTRY, MAX_ENTRY, "block_point.v", K)
    return W, v


def _minor(p, K, W, v, pairs, j, rows, cols, q, work) -> int:
    """``det`` of the centred Jacobian at the point on samples ``rows`` (output ``j``) and ``cols``, modulo ``q``."""
    n, r = len(pairs), len(rows)
    ks = sorted({c % K if c < 2 * p * K else (c - 2 * p * K) % K for c in cols})
    charge(work, 4 * n * len(ks) + r * r + 3 * r * len(ks) + _det_units(r), f"the {r} x {r} minor of output {j}",
           MAX_WORK)
    WK = 2 * p * K
    vj = {k: (v[k] % q if k % p == j else 0) for k in ks}  # V[j, k] at the point
    H = {k: [(W[a][k] + W[p + b][k]) % q for a, b in pairs] for k in ks}
    S, A = {}, {}  # the column sums: sum_l d yhat_lj over the samples
    for k in ks:
        A[k] = sum(h * h for h in H[k]) % q
        for (a, b), h in zip(pairs, H[k]):
            g = 2 * vj[k] * h
            S[a, k] = S.get((a, k), 0) + g
            S[p + b, k] = S.get((p + b, k), 0) + g
    at = {c: t for t, c in enumerate(cols)}
    base = [-(A[(c - WK) % K] if c >= WK else S.get((c // K, c % K), 0)) % q for c in cols]
    flat = []
    for i in rows:
        line = list(base)
        a, b = pairs[i]
        for k in ks:
            h = H[k][i]
            g = n * 2 * vj[k] * h
            for c in (a * K + k, (p + b) * K + k):
                if c in at:
                    line[at[c]] = (line[at[c]] + g) % q
            c = WK + j * K + k
            if c in at:
                line[at[c]] = (line[at[c]] + n * h * h) % q
        flat.append(line)
    return det_mod(flat, q)


def render_block_rank_claim(claim: dict) -> str:
    """The canonical text of a ``block_rank`` claim (only numbers the checker derived).

    Examples
    --------
    >>> about = {"data_sha256": "ab" * 32, "p": 5, "width": 10, "parameters": 150, "train_pairs": 10}
    >>> c = {"about": about, "lower": 45, "upper": 45, "relation": "==", "value": 45, "blocks": [9] * 5}
    >>> render_block_rank_claim(c)[-60:]
    ' (N - 1), P) = 45 dimensions: the generic rank is exactly 45'
    """
    ab, lo, hi = claim["about"], claim["lower"], claim["upper"]
    n = ab["train_pairs"]
    text = (f"the data map of the modular-addition network (p = {ab['p']}, K = {ab['width']}, {ab['parameters']} "
            f"parameters) on the {n} training pairs of sha256 {ab['data_sha256'][:16]}...: {ab['p']} block minors at "
            f"a sparse integer point (sides summing to {lo}) give rank >= {lo}; its centred outputs span at most "
            f"min(p (N - 1), P) = {hi} dimensions: ")
    return text + (f"the generic rank is exactly {lo}" if lo == hi else f"{lo} <= generic rank <= {hi}")


def derive_block_rank_claim(cert, notes) -> dict:
    """Derive the claim of a ``block_rank`` certificate (module docstring); raise ``Reject``."""
    block_fields(cert, "a block_rank certificate", ENVELOPE + ("data", "block_point", "blocks"),
                 OPTIONAL + ("seed", "claimed"))
    data = get(cert, "data", dict)
    p, K, pairs = _data(data)
    n, P = len(pairs), 3 * p * K
    q, minors = _minors(get(cert, "blocks", dict), p, K, n)
    neurons = [len({c % K if c < 2 * p * K else (c - 2 * p * K) % K for c in cols}) for _, cols in minors]
    plan = work_plan(p, K, n, [(len(rows), m) for (rows, _), m in zip(minors, neurons)])
    total = sum(plan.values())
    worst = max(plan, key=plan.get)
    need(total <= MAX_WORK, f"checking this file would take {total} work units, more than {MAX_WORK} (the largest "
         f"phase, {worst}, {plan[worst]} units)")
    work = [MAX_WORK]
    W, v = _point(get(cert, "block_point", dict), p, K, work)
    for j, (rows, cols) in enumerate(minors):
        need(_minor(p, K, W, v, pairs, j, rows, cols, q, work) != 0,
             f"the {len(rows)} x {len(rows)} minor of output {j} vanishes modulo {q}")
    lower, upper = sum(len(rows) for rows, _ in minors), min(p * (n - 1), P)
    need(lower <= upper, f"internal: the bounds cross ({lower} > {upper})")
    notes.append(f"block_rank: {p} block minors nonzero mod {q}, rank >= {lower}; rank <= min(p (N - 1), P) = "
                 f"{upper}; work {MAX_WORK - work[0]} of {MAX_WORK} units (projected {total})")
    about = {"data_sha256": digest(data), "p": p, "width": K, "parameters": P, "train_pairs": n}
    claim = {"about": about, "relation": "==" if lower == upper else ">=", "value": lower, "lower": lower,
             "upper": upper, "blocks": [len(rows) for rows, _ in minors]}
    claim["text"] = render_block_rank_claim(claim)
    return claim


register_kind("block_rank", derive_block_rank_claim, ("data", "block_point", "blocks"), quantity="rank")
