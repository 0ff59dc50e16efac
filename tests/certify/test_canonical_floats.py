"""Every certificate producer writes its binary64 numbers in the one spelling the checker accepts (issue 32).

A certificate denotes exact reals: ``-0.0`` and ``0.0`` are the one real 0, which the checker
(:func:`algebra.checker.attention.exact_number`) spells unsigned and refuses as ``-0x0p+0``.  Whether a
BLAS/LAPACK kernel returns ``-0.0`` or ``0.0`` depends on the CPU (an AVX-512 machine wrote ``-0x0p+0``
into the ``R`` factor of ``identity_sharp``), so each producer is fed signed zeros, subnormals, values near
``2^1023`` and ``2^-1074`` and ordinary values; what it writes must be read back by the checker from the
file alone, and each binary64 given must come back exactly.  The other CPU is imitated by an SVD that
returns every zero as ``-0.0``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import algebra
from algebra.attention_rank import certificates as C
from algebra.certify.attention import attention_rank_certificate
from algebra.certify.canonical import render
from algebra.certify.local_rank import local_rank_certificate
from algebra.certify.representation import representation_certificate
from algebra.checker import check_file
from algebra.checker.core import exact_number
from algebra.errors import InputError
from algebra.exact.rounding import binary64_hex

TINY = math.ulp(0.0)                       # 2^-1074, the least subnormal
MIN_NORMAL = 2.0 ** -1022
EDGES = [0.0, -0.0, TINY, -TINY, 3 * TINY, MIN_NORMAL - TINY, -(MIN_NORMAL - TINY), MIN_NORMAL,
         2.0 ** 1023, -(2.0 ** 1023), math.nextafter(math.inf, 0.0), -math.nextafter(math.inf, 0.0),
         1.0, -1.5, 0.1, 3.0]
#: the edges often, any finite binary64 otherwise
VALUES = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=False, allow_infinity=False))
SMALL = settings(max_examples=12, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _same(written: list, given: list) -> bool:
    """The strings denote exactly the given binary64 numbers (a zero of either sign as 0)."""
    return [float.fromhex(s) for s in written] == [float(v) for v in given]


def _verified(cert: dict, directory: Path, name: str) -> bool:
    """Write ``cert`` as the catalogue does and check the file as a reader will."""
    path = directory / f"{name}.json"
    path.write_bytes(render(cert))
    ok, reason = check_file(str(path))
    assert ok, reason
    return ok


@settings(max_examples=300, deadline=None, database=None)
@given(VALUES, st.sampled_from(["short", "full"]))
def test_the_one_spelling_is_the_one_the_checker_reads(x, form):
    s = binary64_hex(x, form=form)
    v = exact_number(s, hex_form=form)  # refuses any spelling that is not its canonical one
    assert v == x and math.copysign(1.0, v) == (1.0 if x == 0 else math.copysign(1.0, x))
    assert binary64_hex(np.float64(x), form=form) == s


def test_only_binary64_numbers_are_spelled():
    assert binary64_hex(np.float32(-0.0)) == binary64_hex(-0.0) == "0x0p+0"
    assert binary64_hex(Fraction(-3, 4), form="full") == "-0x1.8000000000000p-1"
    for bad in (Fraction(1, 3), 2**1024, math.inf, "0x1p+0", True):
        with pytest.raises(InputError):
            binary64_hex(bad)
    with pytest.raises(InputError):
        binary64_hex(1.0, form="decimal")


def test_no_producer_spells_a_float_itself():
    """``float.hex`` is called only inside :func:`binary64_hex` (the checker, apart, has its own reader)."""
    root = Path(algebra.__file__).parent
    spellers = {str(p.relative_to(root)) for p in root.rglob("*.py") if "checker" not in p.parts
                for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.Attribute) and n.attr == "hex"}
    assert spellers == {"exact/rounding.py"}


def _matrix(rows: int, cols: int):
    return st.lists(st.lists(VALUES, min_size=cols, max_size=cols), min_size=rows, max_size=rows).map(
        lambda r: np.array(r, dtype=np.float64))


#: the key entries before their column's scale: signed zeros, subnormals and ordinary numbers
KEY_ENTRIES = st.one_of(st.sampled_from([0.0, -0.0, TINY, -TINY, MIN_NORMAL - TINY, 0.1, 1.0, -1.5, 3.0]),
                        st.floats(-4.0, 4.0))


@st.composite
def _attention_inputs(draw):
    """``Q`` of any finite entries; each key column scaled by a power of two to ``|Q_ik K_jk| <= 4``.

    The scores stay small (``|beta Q K^T| <= 96``) while the entries span binary64: a query column near
    ``2^1023`` meets keys near ``2^-1024`` (subnormal), a column of zeros and subnormals meets keys near
    ``2^1022``.  (Scores near ``1e23`` are out of the 80-bit checker's reach whatever the spelling.)
    """
    m, n, d = (draw(st.integers(1, 3)) for _ in range(3))
    Q = draw(_matrix(m, d))
    K = np.array(draw(st.lists(st.lists(KEY_ENTRIES, min_size=d, max_size=d), min_size=n, max_size=n)))
    top = np.frexp(np.abs(Q).max(axis=0))[1]  # |Q[:, k]| < 2^top[k]
    K = np.ldexp(K, np.minimum(-top, 1020)[None, :])
    beta = draw(st.sampled_from([-0.0, 0.0, TINY, 1.0, 8.0]))
    eps = draw(st.sampled_from([Fraction(1, 4), 0.15, Fraction(1, 2)]))
    return Q, K, beta, eps


@SMALL
@given(_attention_inputs())
def test_attention_rank_producer(tmp_path_factory, case):
    Q, K, beta, eps = case
    cert = attention_rank_certificate(Q, K, beta, eps)
    assert _verified(cert, tmp_path_factory.mktemp("attention"), "attention")
    M = cert["matrix"]
    assert _same(M["Q"]["data"], Q.ravel()) and _same(M["K"]["data"], K.ravel()) and _same([M["beta"]], [beta])
    # the older payload route: the checker's one ball evaluator reads the same spellings
    out = C.approximation_rank_certificates(Q, K, beta, eps)
    for key in ("upper_svd", "upper_representative", "lower"):
        if out[key] is not None:
            assert C.check_interval_inequality(out[key])["verified"], key


def _helmert_svd(A):
    """The SVD of ``a I + b J`` (``a > 0``, ``a + n b > 0``: the softmax of ``beta I``) in one fixed basis, or None.

    Its ``n - 1`` equal singular values leave LAPACK free to return any basis of their space, and which one
    decides whether the rank ``n - 1`` truncation is within ``eps`` (the max-row-l1 error is not rotation
    invariant): measured, OpenBLAS's SkylakeX kernels give rank 7 on ``softmax(I_8)`` and Haswell's rank 8.  So
    the test fixes the basis itself: ``1/sqrt(n)`` first, then the Helmert vectors ``(1, ..., 1, -k, 0, ...) /
    sqrt(k (k + 1))`` for ``k = n - 1, ..., 1`` (the last, dropped first, is ``(1, -1, 0, ...) / sqrt 2``), with
    exact zeros whatever the CPU.
    """
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    if A.ndim != 2 or A.shape != (n, n) or n < 2:
        return None
    a_plus_b, b = A[0, 0], A[0, 1]
    if not (np.all(np.diag(A) == a_plus_b) and np.all(A[~np.eye(n, dtype=bool)] == b)):
        return None
    a = a_plus_b - b
    if not (a > 0 and a + n * b > 0 and a + n * b >= a):
        return None
    H = [np.full(n, 1 / math.sqrt(n))]
    for k in range(n - 1, 0, -1):
        h = np.zeros(n)
        h[:k], h[k] = 1.0, -float(k)
        H.append(h / math.sqrt(k * (k + 1)))
    V = np.array(H).T
    s = np.array([a + n * b] + [a] * (n - 1))
    return V, s, V.T.copy()


def test_an_svd_that_returns_negative_zeros(monkeypatch, tmp_path):
    """The other CPU, imitated: every zero of the SVD's factors is ``-0.0`` (a kernel may write either)."""
    svd, zeros = np.linalg.svd, []

    def negative_zeros(A, *args, **kwargs):
        U, s, Vt = _helmert_svd(A) or svd(A, *args, **kwargs)
        zeros.append(int((U == 0).sum() + (Vt == 0).sum()))
        return np.where(U == 0, -0.0, U), s, np.where(Vt == 0, -0.0, Vt)

    monkeypatch.setattr(np.linalg, "svd", negative_zeros)
    # the certificate: factors of rank 7 whose SVD has exact zeros (the identity's symmetry)
    cert = attention_rank_certificate(np.eye(8), np.eye(8), 1.0, Fraction(1, 4))
    up = cert["approximant"]
    assert up["method"] == "factors" and zeros[-1] > 0 and "0x0p+0" in up["L"]["data"] + up["R"]["data"]
    assert _verified(cert, tmp_path, "factors")
    # the payload route on identity_sharp (tests/attention_rank/test_certificates.py), where AVX-512 wrote -0x0p+0
    out = C.approximation_rank_certificates(np.eye(6), np.eye(6), 8.0, 0.25)
    assert zeros[-1] > 0 and "0x0p+0" in out["upper_svd"]["arrays"]["R"]["data"]
    assert C.check_interval_inequality(out["upper_svd"])["verified"]


@SMALL
@given(st.lists(VALUES, min_size=6, max_size=6))
def test_local_rank_producer(tmp_path_factory, theta):
    """The grokking network ``p = 2``, ``K = 1`` (``3pK = 6`` parameters) at ``theta``."""
    e = local_rank_certificate(2, 1, [0, 0, 1], [0, 1, 0], theta)
    assert _verified(e.certificate, tmp_path_factory.mktemp("local_rank"), "local_rank")
    assert _same(e.certificate["network"]["theta"], theta)


@functools.cache
def _design():
    from algebra.graph.attention import make_design
    from algebra.graph.groups import parse_graph

    return make_design(parse_graph("cyclic:3"), 2, 1, 1, num_draws=1)


@SMALL
@given(st.lists(VALUES, min_size=6, max_size=6), st.lists(VALUES, min_size=9, max_size=9))
def test_representation_producer(tmp_path_factory, features, bias):
    """A ``cyclic:3`` design (every node sees every node) whose features and biases are the drawn numbers."""
    D = _design()
    F, B = np.array(features).reshape(D.features.shape), np.array(bias).reshape(D.bias.shape)
    with np.errstate(all="ignore"):  # the design's own float quantities may overflow; only its data is written
        D = dataclasses.replace(D, features=F, bias=B)
    e = representation_certificate(D)
    assert _verified(e.certificate, tmp_path_factory.mktemp("representation"), "representation")
    design = e.certificate["representation"]["design"]
    (first,) = [x for x in design["inputs"] if x["label"] == [0, 0]]  # element 0 is the identity
    assert _same([s for row in first["features"] for s in row], features)
    assert _same([s for row in design["bias"] for s in row], bias)
