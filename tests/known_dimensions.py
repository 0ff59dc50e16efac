"""The table of known neuromanifold dimensions every route must agree on.

Values come from theorems, computed here from their formulas:

* Alexander–Hirschowitz: the affine cone over sigma_h(v_k(P^{n-1})) has
  dimension min(h n, binom(n+k-1, k)), except k = 2 (rank <= h symmetric
  matrices: h n - binom(h, 2) for h <= n) and the four exceptions
  (n, k, h) = (3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7), one less.
* multi-token lightning attention: d^2 + d d' - 1 (t >= 2);
  single-token: d d' + binom(d+1, 2) - 1 (proximity-bias paper, Sec. 4).
* query-key composite A B^T: 2 d k - k^2 (k <= d); deep linear networks:
  r (d_0 + d_L - r) with r the smallest width.
* Example B.10 of the proximity-bias paper: dim F = dim F' = 4, also for the
  depth-16 chain (widths 2,3,1,...,1, t^3): f = a g^(3^13) for a binary cubic g
  (any binary cubic is a sum of three cubes: 4 coefficients), and the scalar a is
  absorbed by scaling g, so dim = 4.
* defective quadratic networks x -> V (W x)^2, (d, p, K) = (4, 3, 5), (3, 6, 5),
  (4, 5, 6), (6, 3, 8): one below the expected min(K(p+d-1), p d(d+1)/2), as
  certified in the catalogue (certificates/grokking-cor42-*.json, replayed by the
  independent checker).
* cases from the issue's cross-check against Macaulay2 that had no upper-bound
  route: single-token attention with rank(A) <= 2, d = 4, d' = 3 (the model sees
  only the symmetric part of A, any symmetric 4x4: d d' + binom(d+1, 2) - 1 = 21);
  affine linear networks 3,2,3 with biases (rank <= 2 maps plus a translation:
  2 (3 + 3 - 2) + 3 = 11); the Segre cone a*c, a*d, b*c, b*d (2 x 2 matrices of
  rank one: 3); mlp 2,3,2,1 with t^2 + t and biases (12: float SVD, exact ranks
  over Q and mod p agree; no closed form).

Each row also says how the CLI reaches it (``argv`` for ``neuroalgebra dim``)
and, where they exist, the ``secant`` and ``rlct`` routes to the same number.
"""

from dataclasses import dataclass
from math import comb
from typing import Callable

from algebra.models import MLP, DeepLinear, LightningAttention, PolynomialMap, QueryKey, quadratic_network, shallow_network
from algebra.models.cnn import CNN

AH_EXCEPTIONS = {(3, 4, 5), (4, 4, 9), (5, 4, 14), (5, 3, 7)}


def alexander_hirschowitz(n: int, k: int, h: int) -> int:
    ambient = comb(n + k - 1, k)
    if k == 1:
        return min(n, ambient) if h >= 1 else 0
    if k == 2:
        return ambient if h >= n else h * n - comb(h, 2)
    generic = min(h * n, ambient)
    return generic - 1 if (n, k, h) in AH_EXCEPTIONS else generic


@dataclass(frozen=True)
class Known:
    """One known dimension and the routes that reach it."""

    name: str
    make: Callable
    value: int
    tight: bool  # the engine must certify it
    argv: tuple  # `neuroalgebra dim ARGV`
    secant: tuple = ()  # `neuroalgebra secant ARGV` (affine cone of the same variety), if any
    rlct: tuple = ()  # `neuroalgebra rlct ARGV` (lambda = value / 2), if any


def _ah(n, k, h):
    return Known(f"shallow n={n} k={k} h={h}", lambda: shallow_network(n, k, h), alexander_hirschowitz(n, k, h), True,
                 ("shallow", "--n", str(n), "--degree", str(k), "--width", str(h)),
                 secant=("--variety", "veronese", "--n", str(n), "--degree", str(k), "--k", str(h)))


def _attention(d, dp, t, rank=None):
    value = d * d + d * dp - 1 if t >= 2 else d * dp + comb(d + 1, 2) - 1
    argv = ("attention", "--d", str(d), "--dout", str(dp), "--tokens", str(t)) + (("--rank", str(rank)) if rank else ())
    label = f"attention d={d} d'={dp} t={t}" + (f" rank={rank}" if rank else "")
    return Known(label, lambda: LightningAttention(d, dp, t, rank=rank), value, True, argv)


def _qk(d, k):
    return Known(f"qk d={d} k={k}", lambda: QueryKey(d, k), 2 * d * min(d, k) - min(d, k) ** 2, True,
                 ("qk", "--d", str(d), "--k", str(k)))


def _linear(*widths):
    r = min(widths)
    return Known("linear " + ",".join(map(str, widths)), lambda: DeepLinear(widths), r * (widths[0] + widths[-1] - r), True,
                 ("linear", "--widths", ",".join(map(str, widths))))


def _quadratic(d, p, K, value):
    return Known(f"quadratic d={d} p={p} K={K}", lambda: quadratic_network(d, p, K), value, True,
                 ("quadratic", "--d", str(d), "--outputs", str(p), "--width", str(K)),
                 secant=("--variety", "segre-veronese", "--factors", f"{p},{d}", "--degrees", "1,2", "--k", str(K)),
                 rlct=("quadratic", "--d", str(d), "--outputs", str(p), "--width", str(K)))


def _mlp(widths, act, value, bias=False, inactive=None):
    argv = ("mlp", "--widths", ",".join(map(str, widths)), "--activation", act) + (("--bias",) if bias else ())
    argv += ("--inactive", ",".join(f"{l}:{n}" for l, ns in inactive.items() for n in ns)) if inactive else ()
    label = "mlp " + ",".join(map(str, widths)) + f" {act}" + (" bias" if bias else "") + (" sub" if inactive else "")
    return Known(label, lambda: MLP(widths, act, bias=bias, inactive=inactive), value, True, argv)


KNOWN_CASES = [
    _ah(2, 3, 1),
    _ah(2, 3, 2),
    _ah(3, 3, 3),
    _ah(3, 3, 4),
    _ah(4, 3, 5),
    _ah(3, 4, 4),
    _ah(3, 4, 5),  # AH exception
    _ah(3, 4, 6),
    _ah(4, 2, 2),  # quadric case
    _ah(4, 2, 5),
    _ah(2, 5, 3),
    _ah(4, 4, 9),  # AH exception
    _ah(5, 3, 7),  # AH exception
    _attention(2, 1, 2),
    _attention(3, 2, 2),
    _attention(2, 3, 3),
    _attention(2, 1, 1),
    _attention(3, 2, 1),
    _attention(4, 1, 1),
    _attention(4, 3, 1, rank=2),  # was 21..23 uncertified
    _qk(3, 1),
    _qk(4, 2),
    _qk(5, 3),
    _qk(3, 3),
    _linear(4, 3, 5),
    _linear(4, 3, 2, 5),
    _linear(2, 5, 2),
    _mlp((2, 3, 1, 1), "t^3", 4),  # Example B.10, F: certified by the bottleneck cut
    _mlp((2, 3, 1, 1), "t^3", 4, inactive={1: [0]}),  # Example B.10, F'
    _mlp((2, 3) + (1,) * 14, "t^3", 4),  # the depth-16 chain
    _mlp((3, 2, 3), "t", 11, bias=True),  # was 11..12 uncertified
    _mlp((2, 3, 2, 1), "t^2+t", 12, bias=True),  # was uncertified
    _quadratic(4, 3, 5, 29),  # was 29..30 uncertified
    _quadratic(3, 6, 5, 35),
    _quadratic(4, 5, 6, 47),
    _quadratic(6, 3, 8, 62),
    Known("polynomial a*c a*d b*c b*d", lambda: PolynomialMap(["a*c", "a*d", "b*c", "b*d"], parameters="a b c d".split()),
          3, True, ("polynomial", "a*c", "a*d", "b*c", "b*d", "--parameters", "a,b,c,d"),
          secant=("--variety", "segre", "--factors", "2,2", "--k", "1")),
    # -- degenerate rows (issue 21, item 5): the edges where a formula is most often off by one --------
    # rank 0: the parameter never enters (f = (x^2, x y) for every a), so the image is one point and the
    # Jacobian is the zero matrix: dimension 0.
    Known("polynomial rank 0 (a unused)", lambda: PolynomialMap(["x^2", "x*y"], parameters=["a"], inputs=["x", "y"]),
          0, True, ("polynomial", "x^2", "x*y", "--parameters", "a", "--inputs", "x,y")),
    # width 1: one neuron c (a . x)^3 is the affine cone over the Veronese variety v_3(P^2), dimension n = 3
    # (Alexander-Hirschowitz with h = 1; the 4 parameters carry one rescaling a -> s a, c -> s^-3 c).
    _ah(3, 3, 1),
    # width 1 in a deep linear network: the 4 x 3 matrices of rank <= 1, r (d_0 + d_L - r) = 1 (3 + 4 - 1) = 6.
    _linear(3, 1, 4),
    # a CNN: three one-channel linear convolutions, stride 1, filters 3, 2, 4 on 8 inputs. The end-to-end
    # filter is the product of the filter polynomials (degrees 2, 1, 3), and real polynomials of degree 6
    # that factor so fill an open set: dimension 1 + sum (k_l - 1) = 7 of 9 parameters (two rescalings;
    # Kohn, Merkh, Montufar, Trager, SIAM J. Appl. Algebra Geom. 6(3), 2022).
    Known("cnn 8 filters 3,2,4 linear", lambda: CNN(8, [3, 2, 4], activations="t"), 7, True,
          ("cnn", "--input", "8", "--filters", "3,2,4", "--activation", "t")),
]

#: The same table as ``(name, make, known, tight)`` rows.
KNOWN = [(c.name, c.make, c.value, c.tight) for c in KNOWN_CASES]
