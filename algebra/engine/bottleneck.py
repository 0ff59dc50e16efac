"""The bottleneck cut: an upper bound on the dimension of a deep polynomial MLP, linear in depth.

Proximity-bias paper (Alexandr et al.), Example B.10.  Cutting a network
at the pre-activations ``z_k`` of hidden layer ``k`` writes the layer-``k+1``
pre-activations as ``z_{k+1} = W_{k+1} s_k(z_k) (+ b_{k+1})`` with ``z_k`` in
the neuromanifold ``F_k`` of the first ``k`` layers.  So ``F_{k+1}`` is the
image of ``F_k x R^{P_{k+1}}`` (``P_{k+1}`` the parameters of layer
``k + 1``) and

    ``dim F_{k+1} <= dim F_k + P_{k+1} - s_k``

where ``s_k`` is the rank at a point of kernel fields of that map tangent to
``F_k x R^{P_{k+1}}``: for a monomial activation ``c t^r`` the neuron
rescalings ``z_i -> s z_i``, ``W_{k+1}[:, i] -> s^-r W_{k+1}[:, i]`` (their
rank is the number of neurons with ``z_i != 0``); for a linear one the
``GL(d_k)`` gauge ``z -> E z``, ``W_{k+1} -> -W_{k+1} E`` (rank
``d_k * dim span(z_1, ..., z_{d_k})``).  ``F_k`` is a cone under each
``z_i``-scaling (scale row ``i`` of ``W_k``, ``b_k``), so the fields are
tangent; their rank at a point is at most their generic rank on the
irreducible ``F_k x R^{P_{k+1}}``.

Each prefix bound ``u_k`` is the smaller of the prefix's own cheap bounds
(ambient, symmetry fields at the point) and ``u_{k-1} + P_k - s_{k-1}``,
computed once (memoized): ``L`` small rank computations for depth ``L``.
(Cutting at an earlier layer ``j < k - 1`` gives nothing more: the upper
network's symmetries between ``j`` and ``k`` are exactly the rescalings
accounted for step by step.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algebra.engine.fields import symmetry_rank
from algebra.exact.rank import rank_mod_p
from algebra.models.mlp import MLP, _monomial

__all__ = ["PrefixBound", "bottleneck_bounds"]


@dataclass(frozen=True)
class PrefixBound:
    """``u_k``: the bound on the first ``k`` layers' neuromanifold and how it was obtained."""

    layer: int
    value: int
    how: str  # "ambient", "symmetry" or "cut"
    model: MLP


def _cheap(net: MLP, theta, F) -> tuple:
    ambient = net.ambient_dimension()
    srank = symmetry_rank(net, theta, F)
    if net.parameter_count - srank < ambient:
        return net.parameter_count - srank, "symmetry"
    return ambient, "ambient"


def bottleneck_bounds(model: MLP, theta, F, rng: np.random.Generator) -> list:
    """The memoized prefix bounds ``[u_1, ..., u_L]`` of ``model`` at the point ``theta`` (mod ``F.p``).

    ``u_L`` bounds ``dim F`` itself.  Prefixes whose bound came from their
    symmetry fields are listed so that the engine can verify those fields.

    Examples
    --------
    >>> from algebra.exact.field import PrimeField
    >>> m = MLP((2, 3, 1, 1), "t^3")                     # Example B.10
    >>> rng = np.random.default_rng(0)
    >>> [(u.value, u.how) for u in bottleneck_bounds(m, m.random_point(rng), PrimeField(1048573), rng)]
    [(6, 'ambient'), (4, 'ambient'), (4, 'cut')]
    """
    net = MLP(model.effective_widths, model.activations, bias=model.bias)
    w = net.effective_widths
    L = len(w) - 1
    X = net.random_inputs(rng, max(4, max(w[1:-1], default=1) + 2))
    _, zs, _ = net._forward_all(theta, X, F)  # zs[k - 1]: pre-activations of layer k at the samples
    offsets = net.offsets()
    bounds = []
    for k in range(1, L + 1):
        prefix = MLP(w[: k + 1], net.activations[: k - 1], bias=net.bias)
        value, how = _cheap(prefix, theta[: prefix.parameter_count], F)
        if k > 1:
            start = offsets[f"W{k}"][0]
            layer_params = prefix.parameter_count - start
            mono = _monomial(net.activations[k - 2])
            Z = zs[k - 2]
            if mono is None:
                s = 0
            elif mono[1] == 1:
                s = w[k - 1] * rank_mod_p(Z.T, F.p)
            else:
                s = int(np.count_nonzero(np.any(Z != 0, axis=0)))
            cut = bounds[-1].value + layer_params - s
            if cut <= value:  # on a tie the cut wins: it rests on no new identity (fields at any degree)
                value, how = cut, "cut"
        bounds.append(PrefixBound(k, value, how, prefix))
    return bounds
