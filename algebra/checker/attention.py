"""The ball-arithmetic kinds ``interval_inequality`` and ``attention_rank`` (plug-in; python-flint ``arb``).

Part of the independent checker: imports only :mod:`algebra.checker.core` (and python-flint).  Every real
number of a certificate is an exact string (a ``float.hex`` binary64, a decimal, an integer or ``p/q``,
read by :func:`algebra.checker.core.exact_number`); it is read as an
``arb`` ball that contains it, and every operation returns a ball containing
the exact result, so an inequality that holds for the balls holds for the
exact reals (Johansson, *Arb: efficient arbitrary-precision midpoint-radius
interval arithmetic*, IEEE Trans. Comput. 2017).  The working precision only
changes the radii, never the verdict's soundness.

Two certificate kinds are checked here:

``attention_rank``
    Bounds on the maximum-row-l1 approximation rank (Sui & Zhang, *The
    Approximation Rank of Softmax Attention*, Section 2.1)

        r_eps(A) = min { rank(B) : max_i ||A_i - B_i||_1 <= eps }

    of ``A = softmax_rows(beta * Q @ K^T)``.  The certificate carries ``Q``,
    ``K`` and ``beta`` exactly; the checker rebuilds ``A`` itself (no program
    in the file says how), derives the bounds below, and refuses the file
    unless its structured claim -- relation, value, the matrix (shape and
    sha256 of the exact data), eps, the norm -- and the claim's text are
    exactly what it derived (:func:`derive_attention_claim` derives, the
    core's ``compare_claim`` compares key for key, text included;
    :func:`render_attention_claim` renders the text).

    * upper bound (block ``approximant``): an explicit ``B`` of rank ``<= k`` for the FULL matrix: factors
      ``B = L @ R`` (``L`` is m x k, ``r_eps <= k``), representative rows
      ``B_i = A_{assign(i)}`` (``rank B <=`` number of distinct rows), or
      ``B = A`` (``rank <= min(m, n)``).  The checker encloses
      ``max_i ||A_i - B_i||_1`` and needs it ``<= eps``: then ``B`` is an
      eps-approximant, so ``r_eps(A) <= rank(B) <= k``.
    * lower bound (block ``selection``): distinct rows ``i_1..i_M`` (a selection ``S``, M x m) and a
      decoder ``dec: keys -> {-1, 0, .., M-1}`` (``D`` is n x M with
      ``D[j, dec(j)] = 1`` and a zero row where ``dec(j) = -1``).  The
      checker encloses ``delta = ||S A D - I_M||_inf`` (max row l1) and needs

          delta + eps < 1.                                            (*)

      Proof that (*) gives ``r_eps(A) >= M``: let ``B`` be any matrix with
      ``max_i ||A_i - B_i||_1 <= eps``.  ``S`` keeps rows and ``D`` adds
      disjoint groups of entries (and drops the rest), so for every row
      vector ``v``, ``||v D||_1 <= ||v||_1``; hence
      ``||S (A - B) D||_inf <= eps`` and ``||S B D - I_M||_inf <= delta + eps
      < 1``.  A matrix within inf-norm distance < 1 of the identity is
      invertible (Neumann series), so ``M = rank(S B D) <= rank(B)``
      (Sui & Zhang, (D.4), (E.17)).  The certificate is on the full matrix;
      a decoder with ``-1`` entries is the same argument on the column
      submatrix ``A[:, dec != -1]`` of the SAME softmax matrix (never
      re-normalised), which the claim does not need to mention because the
      inequality is for the full ``A``.

``interval_inequality``
    A straight-line program over exact real matrices and a relation between
    its 1 x 1 target and a bound (``docs/interval-inequality.md``), evaluated
    by :func:`evaluate_program`.  :func:`derive_interval_claim` derives the
    claim -- the program (sha256 of the payload), its target, the relation and
    the bound -- and :func:`render_interval_claim` its text; the core
    compares them with the file's claim key for key.  Names are identifiers
    (:data:`NAME`), each defined once (a straight-line program in SSA form), so
    the claim's text names no label chosen by the file.

Canonical spelling.  Every block read here is refused unless it is already in
its one canonical form: every object has exactly its documented fields
(:func:`algebra.checker.core.block_fields`), every number is one canonical spelling
(:func:`algebra.checker.core.exact_number`),
indices lie in range and lists that stand for sets are distinct.

Work.  Every loop over file data is charged before it runs (``docs/certificate-format.md``,
"Budgets"): an ``attention_rank`` file is bounded by :data:`MAX_ENTRIES` and
:data:`MAX_PRODUCT`, an ``interval_inequality`` program by :data:`MAX_IV_WORK`, counted
from the shapes of a static pass over the whole program before any ball is built.
"""

from __future__ import annotations

import contextlib
import re
from fractions import Fraction
from functools import reduce

from algebra.checker.core import (ENVELOPE, OPTIONAL, block_fields, charge, digest, exact_number, get, int_list, need,
                                  register_kind, small_int)

try:
    import flint
except ImportError:  # pragma: no cover - python-flint is a core dependency
    flint = None

__all__ = [
    "PRECISION",
    "NAME",
    "ball",
    "softmax_matrix",
    "softmax_rows",
    "matrix_digest",
    "derive_attention_claim",
    "render_attention_claim",
    "read_program",
    "evaluate_program",
    "derive_interval_claim",
    "render_interval_claim",
]

# Working precision in bits.  At the sizes certificates carry (<= 10^6 entries, rows of <= 4096
# keys) 80 bits leave enclosures ~1e-20 wide, far below any margin a producer keeps; raising it
# only slows the check.
PRECISION = 80
MAX_SIDE = 4096  # rows, keys, head size, factor rank
MAX_ENTRIES = 10**6  # entries of any one matrix the checker builds
MAX_PRODUCT = 2 * 10**8  # multiply-adds of one ball matrix product (Q K^T, L R); ~10 s at 80 bits
MAX_IV_STEPS = 10**4
# Ball operations and allocations over a whole program (a matmul r x k x c counts r k c + r k + k c + r c,
# an elementwise op or a copy its output, softmax_rows 6 per entry): also a bound on the balls it holds.
MAX_IV_WORK = 5 * 10**6
NORM = "max_row_l1"
EXPRESSION = "softmax_rows(beta * Q @ K^T)"
#: A name chosen by the file (arrays, scalars, index lists, program values): an ASCII identifier.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_COUNT = re.compile(r"[1-9][0-9]{0,6}")  # identity(n): a positive ASCII decimal without sign or leading zero


@contextlib.contextmanager
def _precision(bits: int = PRECISION):
    """Set flint's (global) working precision for the duration of one check."""
    need(flint is not None, "python-flint is needed to check ball-arithmetic certificates")
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


# -- canonical readers ----------------------------------------------------------------

def ball(x):
    """An ``arb`` ball containing the exact value ``x`` (a float is exact, a Fraction is enclosed).

    Examples
    --------
    >>> from fractions import Fraction
    >>> with _precision():
    ...     b = ball(Fraction(1, 3))
    >>> (3 * b).contains(1), b.is_exact(), ball(0.75).is_exact()
    (True, False, True)
    """
    if isinstance(x, float):
        return flint.arb(x)
    if x.denominator == 1:
        return flint.arb(x.numerator)
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _shape(block, what: str, max_rows: int = MAX_SIDE, max_cols: int = MAX_SIDE) -> tuple:
    """``(rows, cols)`` of a matrix block, bounded before anything is allocated."""
    block_fields(block, what, ("shape", "data"))
    shape = get(block, "shape", list, what)
    need(len(shape) == 2, f"{what}.shape must be [rows, cols]")
    r = small_int(shape[0], 1, max_rows, f"{what} rows")
    c = small_int(shape[1], 1, max_cols, f"{what} cols")
    need(r * c <= MAX_ENTRIES, f"{what} is too large (more than {MAX_ENTRIES} entries)")
    return r, c


def _read_matrix(block, what: str, max_rows: int = MAX_SIDE, max_cols: int = MAX_SIDE):
    """``{"shape": [r, c], "data": [...]}`` (row-major exact numbers) -> ``arb_mat``."""
    r, c = _shape(block, what, max_rows, max_cols)
    data = get(block, "data", list, what)
    need(len(data) == r * c, f"{what}: data length does not match its shape")
    return flint.arb_mat(r, c, [ball(exact_number(s, f"{what} entry")) for s in data])


# -- the attention matrix -----------------------------------------------------------
def softmax_matrix(Q, K, beta):
    """Balls containing ``softmax_rows(beta * Q @ K^T)`` (lists of rows of ``arb``).

    Each row is shifted by an exact constant (its largest score's midpoint)
    before ``exp``: ``exp(s_j - c) / sum_k exp(s_k - c)`` equals the softmax
    for every real ``c``, so the shift only keeps the balls narrow.

    Examples
    --------
    >>> with _precision():
    ...     A = softmax_matrix(flint.arb_mat([[0.0]]), flint.arb_mat([[1.0], [2.0]]), flint.arb(1))
    >>> [x.contains(flint.arb(0.5)) for x in A[0]]
    [True, True]
    """
    return softmax_rows(((Q * K.transpose()) * beta).tolist())


def softmax_rows(rows):
    """Row-wise softmax of a list of rows of balls (each row shifted by its largest midpoint)."""
    out = []
    for row in rows:
        c = flint.arb(max(float(x.mid()) for x in row))
        e = [(x - c).exp() for x in row]
        total = sum(e[1:], e[0])
        out.append([x / total for x in e])
    return out


def _max_row_l1(rows):
    """A ball containing ``max_i sum_j |rows[i][j]|``."""
    sums = [sum((abs(x) for x in r[1:]), abs(r[0])) for r in rows]
    return reduce(lambda a, b: a.max(b), sums)


def matrix_digest(block) -> str:
    """sha256 of the canonical JSON of the ``matrix`` block (``Q``, ``K``, ``beta``)."""
    return digest({k: block[k] for k in ("Q", "K", "beta")})


def _upper(block, A, m, n, eps, notes) -> int:
    """Rank of the stated approximant after checking its error ``<= eps``."""
    method = get(block, "method", str, "approximant")
    extra = {"full": (), "factors": ("L", "R"), "rows": ("assign",)}.get(method)
    need(extra is not None, f"unknown upper method {method[:40]!r} (approximant.method: factors, rows, full)")
    block_fields(block, f"approximant ({method})", ("method",) + extra)
    if method == "full":
        notes.append(f"r_eps <= {min(m, n)}: B = A")
        return min(m, n)
    if method == "factors":
        Lb, Rb = get(block, "L", dict, "approximant"), get(block, "R", dict, "approximant")
        (mL, k), (kR, nR) = _shape(Lb, "approximant.L", m, min(m, n)), _shape(Rb, "approximant.R", min(m, n), n)
        need((mL, kR, nR) == (m, k, n), f"upper bound: approximant.L must be {m} x k and R k x {n}")
        need(m * k * n <= MAX_PRODUCT, f"L R would take more than {MAX_PRODUCT} ball multiply-adds")
        L, R = _read_matrix(Lb, "approximant.L", m, k), _read_matrix(Rb, "approximant.R", k, n)
        E = (flint.arb_mat(A) - L * R).tolist()
        what = f"rank-{k} factors L @ R"
    elif method == "rows":
        assign = int_list(get(block, "assign", list, "approximant"), 0, m - 1, "approximant.assign", m)
        k = len(set(assign))
        E = [[a - b for a, b in zip(A[i], A[assign[i]])] for i in range(m)]
        what = f"{k} representative rows"
    err = _max_row_l1(E)
    need(err <= eps, f"upper bound: the max-row-l1 error of the {what} is {err}, not <= eps = {eps}")
    notes.append(f"r_eps <= {k}: {what}, max-row-l1 error in {err}")
    return k


def _lower(block, A, m, n, eps, notes) -> int:
    """``M`` after checking ``||S A D - I_M||_inf + eps < 1`` (module docstring, (*)).

    ``rows`` is ordered (the decoder's values index it) and must be distinct.
    """
    block_fields(block, "selection", ("rows", "decoder"))
    rows = get(block, "rows", list, "selection")
    M = len(rows)
    need(1 <= M <= min(m, n), f"lower bound: selection needs 1..{min(m, n)} rows")
    rows = int_list(rows, 0, m - 1, "selection.rows")
    need(len(set(rows)) == M, "lower bound: the selected rows must be distinct")
    dec = int_list(get(block, "decoder", list, "selection"), -1, M - 1, "selection.decoder", n)
    groups = [[] for _ in range(M)]
    for j, c in enumerate(dec):
        if c >= 0:
            groups[c].append(j)
    zero = flint.arb(0)
    E = []
    for a, i in enumerate(rows):
        y = [sum((A[i][j] for j in g), zero) for g in groups]
        y[a] -= 1
        E.append(y)
    delta = _max_row_l1(E)
    need(delta + eps < 1, f"lower bound: ||S A D - I_{M}|| is in {delta}, not below 1 - eps = {1 - eps}")
    notes.append(f"r_eps >= {M}: ||S A D - I_{M}||_inf in {delta} < 1 - eps")
    return M


def render_attention_claim(claim: dict) -> str:
    """The canonical text of a structured ``attention_rank`` claim.

    Examples
    --------
    >>> render_attention_claim({"relation": "in", "value": [2, 9], "eps": "1/4", "norm": "max_row_l1",
    ...     "matrix": {"expression": EXPRESSION, "shape": [64, 64], "sha256": "ab" * 32}})
    '2 <= r_eps(A) <= 9 for the 64 x 64 matrix A = softmax_rows(beta * Q @ K^T) (Q, K, beta: sha256 abababababababab...), max-row-l1 error eps = 1/4'
    """
    rel, value, mat = claim["relation"], claim["value"], claim["matrix"]
    bound = f"{value[0]} <= r_eps(A) <= {value[1]}" if rel == "in" else f"r_eps(A) {rel} {value}"
    return (f"{bound} for the {mat['shape'][0]} x {mat['shape'][1]} matrix A = {mat['expression']} "
            f"(Q, K, beta: sha256 {mat['sha256'][:16]}...), max-row-l1 error eps = {claim['eps']}")


def derive_attention_claim(cert, notes) -> dict:
    """Rebuild the matrix, check the bounds' inequalities, return the claim they prove.

    The claim's ``eps`` is the one input taken from the claim (it says which
    question is answered); everything else is derived.  Raises ``Reject``
    when an inequality fails.
    """
    block_fields(cert, "an attention_rank certificate", ENVELOPE + ("matrix",), OPTIONAL + ("selection", "approximant"))
    claim = get(cert, "claim", dict)
    eps_text = get(claim, "eps", str, "claim")
    eps = exact_number(eps_text, "claim.eps")
    eps = Fraction(eps)
    need(0 < eps < 1, "claim.eps must lie in (0, 1)")
    need(eps_text == (str(eps.numerator) if eps.denominator == 1 else f"{eps.numerator}/{eps.denominator}"),
         "claim.eps must be written as a reduced 'p/q'")
    block = block_fields(get(cert, "matrix", dict), "matrix", ("Q", "K", "beta"))
    beta = exact_number(get(block, "beta", str, "matrix"), "matrix.beta")
    need(beta >= 0, "matrix.beta must be >= 0")
    (m, d), (n, d2) = (_shape(get(block, k, dict, "matrix"), f"matrix.{k}") for k in ("Q", "K"))
    need(d == d2, "matrix: Q and K must have the same number of columns")
    need(m * n <= MAX_ENTRIES, f"the attention matrix would exceed {MAX_ENTRIES} entries")
    need(m * n * d <= MAX_PRODUCT, f"Q K^T would take more than {MAX_PRODUCT} ball multiply-adds")
    with _precision():
        Q = _read_matrix(block["Q"], "matrix.Q")
        K = _read_matrix(block["K"], "matrix.K")
        A = softmax_matrix(Q, K, ball(beta))
        e = ball(eps)
        lo = _lower(get(cert, "selection", dict), A, m, n, e, notes) if "selection" in cert else None
        hi = _upper(get(cert, "approximant", dict), A, m, n, e, notes) if "approximant" in cert else None
    need(lo is not None or hi is not None,
         "an attention_rank certificate needs a lower or an upper bound (a selection or an approximant block)")
    need(lo is None or hi is None or lo <= hi, "lower bound above upper bound (impossible)")
    if lo is not None and hi is not None:
        rel, value = ("==", lo) if lo == hi else ("in", [lo, hi])
    else:
        rel, value = (">=", lo) if hi is None else ("<=", hi)
    derived = {"quantity": "r_eps", "relation": rel, "value": value, "eps": eps_text, "norm": NORM,
               "matrix": {"expression": EXPRESSION, "shape": [m, n], "sha256": matrix_digest(block)}}
    derived["text"] = render_attention_claim(derived)
    notes.append(derived["text"])
    return derived


# -- straight-line interval programs (docs/interval-inequality.md) -----------------------
#: op -> number of arguments; ``identity`` takes a literal size, ``take_*`` a matrix and an index-list name.
IV_OPS = {"transpose": 1, "matmul": 2, "add": 2, "sub": 2, "mul": 2, "scale": 2, "exp": 1, "abs": 1,
          "softmax_rows": 1, "row_sums": 1, "max_all": 1, "min_all": 1, "identity": 1, "take_rows": 2,
          "take_cols": 2}
RELATIONS = ("<=", "<", ">=", ">")


def read_program(body) -> dict:
    """The canonical reading of an ``interval_inequality`` payload, every shape and cost known before any ball.

    A static pass: the payload has exactly its fields; every name is a :data:`NAME` defined once
    (arrays, scalars, index lists and step outputs share one namespace); every argument names a
    value defined before it, with shapes that fit; every index is in range.  The work of each step
    (``IV_OPS``; module constant :data:`MAX_IV_WORK`) is charged from the shapes, so a program
    that would exceed it is refused before anything is evaluated.

    Returns ``{"arrays", "scalars", "indices", "steps": [(out, op, args, shape)], "target", "relation", "bound"}``.

    Examples
    --------
    >>> p = read_program({"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
    ...                   "target": "y", "relation": "<", "bound": "1.4"})
    >>> p["steps"], p["work"]
    ([('y', 'exp', ['x'], (1, 1))], 1)
    >>> read_program({"arrays": {}, "scalars": {}, "program": [{"out": "I", "op": "identity", "args": ["01"]}],
    ...               "target": "I", "relation": "<", "bound": "1"})
    Traceback (most recent call last):
    ...
    algebra.checker.core.Reject: identity: the size must be a positive decimal without leading zero, with n^2 <= 1000000
    """
    block_fields(body, "payload", ("arrays", "scalars", "program", "target", "relation", "bound"), ("indices",))
    shapes, work, entries = {}, [MAX_IV_WORK], [MAX_ENTRIES]

    def define(name, shape, what):
        need(isinstance(name, str) and NAME.fullmatch(name) is not None,
             f"{what}: names are identifiers {NAME.pattern}, not {str(name)[:40]!r}")
        need(name not in shapes, f"{what}: the name {name!r} is defined twice (one value per name)")
        shapes[name] = shape

    arrays = get(body, "arrays", dict, "payload")
    for name, block in arrays.items():
        r, c = _shape(block, f"array {str(name)[:40]!r}", MAX_ENTRIES, MAX_ENTRIES)
        charge(entries, r * c, "the arrays", MAX_ENTRIES)
        need(isinstance(block["data"], list) and len(block["data"]) == r * c, f"array {name!r}: data length does not match its shape")
        define(name, (r, c), "arrays")
    scalars = get(body, "scalars", dict, "payload")
    charge(entries, len(scalars), "the arrays and scalars", MAX_ENTRIES)
    for name in scalars:
        define(name, (1, 1), "scalars")
    indices = body.get("indices", {})
    need(isinstance(indices, dict), "indices must be an object")
    top = {}
    for name, ix in indices.items():
        need(isinstance(ix, list) and 0 < len(ix), f"index list {str(name)[:40]!r} must be a non-empty list")
        charge(entries, len(ix), "the arrays, scalars and index lists", MAX_ENTRIES)
        top[name] = max(small_int(i, 0, MAX_ENTRIES - 1, "index") for i in ix)
        define(name, None, "indices")  # an index list is no matrix: shape None
    program = get(body, "program", list, "payload")
    need(len(program) <= MAX_IV_STEPS, f"program too long (more than {MAX_IV_STEPS} steps)")
    steps = []
    for s, step in enumerate(program):
        block_fields(step, f"program step {s}", ("out", "op", "args"))
        op, args, out = get(step, "op", str), get(step, "args", list), get(step, "out", str)
        need(op in IV_OPS, f"unknown op {op[:40]!r}")
        need(len(args) == IV_OPS[op], f"{op}: takes {IV_OPS[op]} argument(s)")

        def mat(i):
            a = args[i]
            need(isinstance(a, str) and shapes.get(a) is not None, f"{op}: argument {i} names no matrix defined before")
            return shapes[a]

        if op == "identity":
            n = args[0]
            need(isinstance(n, str) and _COUNT.fullmatch(n) is not None and int(n) ** 2 <= MAX_ENTRIES,
                 f"identity: the size must be a positive decimal without leading zero, with n^2 <= {MAX_ENTRIES}")
            shape, cost = (int(n), int(n)), int(n) ** 2
        elif op in ("take_rows", "take_cols"):
            (r, c), name = mat(0), args[1]
            need(isinstance(name, str) and name in top and shapes[name] is None, f"{op}: argument 1 names no index list")
            k = len(indices[name])
            need(top[name] < (r if op == "take_rows" else c), f"{op}: an index of {name!r} is out of range")
            shape = (k, c) if op == "take_rows" else (r, k)
            cost = k + shape[0] * shape[1]
        else:
            (r, c) = mat(0)
            B = mat(1) if IV_OPS[op] == 2 else None
            if op == "matmul":
                need(c == B[0], f"matmul: a {r} x {c} by a {B[0]} x {B[1]} matrix")
                shape, cost = (r, B[1]), r * c * B[1] + r * c + B[0] * B[1] + r * B[1]
            elif op == "scale":
                need(B == (1, 1), "scale: the factor is not a scalar")
                shape, cost = (r, c), r * c
            elif B is not None:
                need(B == (r, c), f"{op}: shapes differ")
                shape, cost = (r, c), r * c
            else:
                shape = {"transpose": (c, r), "row_sums": (r, 1), "max_all": (1, 1), "min_all": (1, 1)}.get(op, (r, c))
                cost = 6 * r * c if op == "softmax_rows" else r * c  # max, shift, exp, sum, divide
        need(shape[0] * shape[1] <= MAX_ENTRIES, f"{op}: the result would exceed {MAX_ENTRIES} entries")
        charge(work, cost, f"step {s} ({op})", MAX_IV_WORK)
        define(out, shape, f"program step {s}")
        steps.append((out, op, list(args), shape))
    target = get(body, "target", str, "payload")
    need(shapes.get(target) == (1, 1), "target must name a 1x1 value")
    relation = get(body, "relation", str, "payload")
    need(relation in RELATIONS, f"unknown relation {relation[:40]!r} (one of {', '.join(RELATIONS)})")
    bound = exact_number(get(body, "bound", str, "payload"), "bound")
    return {"arrays": arrays, "scalars": scalars, "indices": indices, "steps": steps, "target": target,
            "relation": relation, "bound": bound, "work": MAX_IV_WORK - work[0]}


def evaluate_program(body, *, prec: int = PRECISION):
    """Evaluate an ``interval_inequality`` payload in balls: ``(target ball, bound ball, relation holds)``.

    The payload is read by :func:`read_program` first (canonical form, shapes, work), so
    evaluation allocates only what was charged.  ``prec`` is the working precision in bits
    (the certificate kind is checked at :data:`PRECISION`).

    Examples
    --------
    >>> p = {"arrays": {}, "scalars": {"x": "1/3"}, "program": [{"out": "y", "op": "exp", "args": ["x"]}],
    ...      "target": "y", "relation": "<", "bound": "1.4"}
    >>> evaluate_program(p)[2]
    True
    >>> evaluate_program(dict(p, bound="1.3"))[2]
    False
    """
    prog = read_program(body)
    with _precision(prec):
        env = {name: _read_matrix(block, f"array {name!r}", MAX_ENTRIES, MAX_ENTRIES).tolist()
               for name, block in prog["arrays"].items()}
        env.update((name, [[ball(exact_number(s, "scalar"))]]) for name, s in prog["scalars"].items())
        for out, op, args, _ in prog["steps"]:
            env[out] = _step(op, args, env, prog["indices"])
        v, b = env[prog["target"]][0][0], ball(prog["bound"])
        test = {"<=": lambda: v <= b, "<": lambda: v < b, ">=": lambda: v >= b, ">": lambda: v > b}[prog["relation"]]
        return v, b, bool(test())


def render_interval_claim(claim: dict) -> str:
    """The canonical text of a structured ``interval_inequality`` claim.

    The target's name stays in ``claim.about`` (an identifier); the text has only what the
    checker derived: the payload's sha256, the relation and the bound (a canonical number).

    Examples
    --------
    >>> render_interval_claim({"about": {"payload_sha256": "ab" * 32, "target": "margin"},
    ...                        "relation": ">", "value": "0"})
    'the target of the straight-line program (payload sha256 abababababababab...) is > 0, enclosed in ball arithmetic'
    """
    about = claim["about"]
    return (f"the target of the straight-line program (payload sha256 {about['payload_sha256'][:16]}...) "
            f"is {claim['relation']} {claim['value']}, enclosed in ball arithmetic")


def derive_interval_claim(cert, notes) -> dict:
    """Evaluate the payload's program in balls; return the claim it proves (raise ``Reject`` if it fails).

    The claim is derived entirely from the payload: the program it is about
    (sha256 of the canonical payload and the target's name), the relation
    and the bound (``value``); a file stating another claim is refused by the
    core's ``compare_claim``.
    """
    block_fields(cert, "an interval_inequality certificate", ENVELOPE + ("payload",), OPTIONAL)
    body = get(cert, "payload", dict)
    v, _, ok = evaluate_program(body)
    rel, bound = body["relation"], body["bound"]
    need(ok, f"the enclosure {v} of the target does not satisfy {rel} {bound}")
    notes.append(f"interval enclosure {v} {rel} {bound}")
    derived = {"about": {"payload_sha256": digest(body), "target": body["target"]}, "relation": rel, "value": bound}
    derived["text"] = render_interval_claim(derived)
    return derived


def _step(op, args, env, indices):
    """One step of a program :func:`read_program` has already checked (names, shapes, ranges, work)."""
    if op == "identity":
        n = int(args[0])
        return flint.arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)]).tolist()
    A = env[args[0]]
    if op in ("take_rows", "take_cols"):
        ix = indices[args[1]]
        return [list(A[i]) for i in ix] if op == "take_rows" else [[r[j] for j in ix] for r in A]
    B = env[args[1]] if IV_OPS[op] == 2 else None
    if op == "matmul":
        return (flint.arb_mat(A) * flint.arb_mat(B)).tolist()
    if op in ("add", "sub", "mul"):
        f = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}[op]
        return [[f(a, b) for a, b in zip(r, s)] for r, s in zip(A, B)]
    if op == "scale":
        return [[a * B[0][0] for a in r] for r in A]
    if op == "transpose":
        return [list(c) for c in zip(*A)]
    if op == "row_sums":
        return [[sum(r[1:], r[0])] for r in A]
    if op in ("exp", "abs"):
        return [[a.exp() if op == "exp" else abs(a) for a in r] for r in A]
    if op == "softmax_rows":
        return softmax_rows(A)
    pick = (lambda a, b: a.max(b)) if op == "max_all" else (lambda a, b: a.min(b))
    return [[reduce(pick, [a for r in A for a in r])]]


register_kind("interval_inequality", derive_interval_claim, ("payload",))
register_kind("attention_rank", derive_attention_claim, ("matrix", "selection", "approximant"))
