"""Polynomial multilayer perceptrons, shallow networks and quadratic networks.

``f(x) = W_L s_{L-1}( ... s_1(W_1 x + b_1) ... ) + b_L`` with a linear
readout, each hidden activation ``s_l`` a univariate polynomial with rational
coefficients, biases on every layer or on none (proximity-bias paper,
Section 3 and Appendix B.2).  A *submodel with inactive neurons* removes the
chosen hidden neurons (their weights are zero), which is the same as the
network with those neurons deleted; its spec remembers the full widths.

Parameter layout: for each layer ``l = 1..L`` the weight ``W_l`` (shape
``(d_l, d_{l-1})``, row-major), followed by ``b_l`` when biases are on.

Known symmetries (kernel witnesses, verified in the tests):

* neuron rescaling, for a monomial activation ``c t^k``: scale the incoming
  weights and bias of neuron ``i`` by ``s``, its outgoing weights by ``s^-k``;
  the vector field is ``(W_l[i,:], b_l[i]) -> itself``,
  ``W_{l+1}[:, i] -> -k W_{l+1}[:, i]``;
* for a linear activation ``c t`` the whole ``GL(d_l)`` gauge
  ``(W_l, b_l, W_{l+1}) -> (E W_l, E b_l, -W_{l+1} E)``;
* for a pure quadratic activation ``c t^2`` feeding a layer of width one with
  weights ``v``, the orthogonal group of ``diag(v)``: for ``i < j``, rows
  ``(W_l, b_l)[i] -> v_j (W_l, b_l)[j]`` and ``[j] -> -v_i (W_l, b_l)[i]``
  (``sum_i v_i z_i^2`` is invariant).  This accounts for the ``k = 2``
  Alexander–Hirschowitz case ``dim = h n - binom(h, 2)``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, prod
from typing import Mapping, Sequence

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError
from algebra.exact.field import PrimeField
from algebra.models.base import Model, layer_widths, positive_int
from algebra.models.polynomial import MAX_EXPONENT, Polynomial, parse_univariate

__all__ = ["MLP", "shallow_network", "quadratic_network", "parse_activation", "parse_activations", "parse_inactive",
           "activation_list"]


def parse_activation(text: str, *, argument: str = "--activation") -> tuple:
    """Parse one activation ``"t^3+t"`` into its coefficient tuple (Fractions)."""
    return tuple(parse_univariate(text, variable="t", argument=argument))


def parse_activations(text: str, count: int, *, layer: str = "hidden layer", argument: str = "activations") -> tuple:
    """Parse ``"t^2"`` (every layer) or ``"t^2;t^3"`` (one per layer, separated by ``;``) into coefficient tuples.

    The one parser of the activation language: ``MLP(widths, "t^2;t^3")``, ``CNN(..., activations="t;t^2")``,
    ``dim mlp --activation 't^2;t^3'`` and ``dim cnn --activation ...`` all read their text here.

    Parameters
    ----------
    text : str
        One polynomial in ``t``, or ``count`` of them separated by ``;``.
    count : int
        The number of layers that take an activation.
    layer : str
        What those layers are called, for the error message.
    argument : str
        The argument (or option) named when the text is refused.

    Returns
    -------
    tuple of tuple of Fraction
        ``count`` coefficient tuples ``(c0, c1, ...)``.

    Raises
    ------
    InputError
        A polynomial that is not a non-constant polynomial in ``t``, or a number of them other than 1 or ``count``.

    Examples
    --------
    >>> parse_activations("t^2;t^3", 2)
    ((Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)), (Fraction(0, 1), Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)))
    >>> len(parse_activations("t", 3))
    3
    >>> parse_activations("t;t;t", 2)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid activations='t;t;t': expected one activation or 2 separated by ';' (one per hidden layer)
    """
    acts = tuple(parse_activation(a.strip(), argument=argument) for a in str(text).split(";"))
    if len(acts) == 1:
        return acts * count
    if len(acts) != count:
        raise InputError(argument, text, f"one activation or {count} separated by ';' (one per {layer})")
    return acts


def parse_inactive(text: str, n_hidden: int, *, argument: str = "--inactive") -> dict:
    """Parse ``"1:0,1:2,2:1"`` (layer:neuron pairs, layers counted from 1) into a dict.

    Examples
    --------
    >>> parse_inactive("1:0,2:1,1:2", 2)
    {1: (0, 2), 2: (1,)}
    """
    out: dict = {}
    if not text:
        return out
    allowed = "comma-separated LAYER:NEURON pairs, e.g. 1:0,2:3"
    for item in inputs.text(text, argument, allowed).split(","):
        parts = item.strip().split(":")
        if len(parts) != 2:
            raise InputError(argument, text, allowed)
        try:
            layer, neuron = (inputs.parse_integer(p, argument, minimum=0) for p in parts)
        except InputError:
            raise InputError(argument, text, allowed) from None
        if not 1 <= layer <= n_hidden:
            raise InputError(argument, text, f"hidden layers numbered 1..{n_hidden}")
        out.setdefault(layer, set()).add(neuron)
    return {k: tuple(sorted(v)) for k, v in sorted(out.items())}


_ACTIVATIONS = ("a polynomial in t as text ('t^2'), an algebra Polynomial or a list of at most "
                f"{MAX_EXPONENT + 1} finite coefficients (not a function: activations are exact polynomials)")


def _coeffs(act) -> tuple:
    if isinstance(act, str):
        return parse_activation(act, argument="activations")
    if isinstance(act, Polynomial):
        return tuple(act.coefficients_univariate())
    if not isinstance(act, (list, tuple)) or len(act) > MAX_EXPONENT + 1:
        raise InputError("activations", act, _ACTIVATIONS)
    try:
        cs = tuple(Fraction(c) for c in act)
    except (TypeError, ValueError, OverflowError):  # a function, a name, NaN or an infinity
        raise InputError("activations", act, _ACTIVATIONS) from None
    while len(cs) > 1 and cs[-1] == 0:
        cs = cs[:-1]
    if len(cs) < 2:
        raise InputError("activations", act, "a non-constant polynomial")
    return cs


def activation_list(activations, count: int, layer: str = "hidden layer") -> tuple:
    """One activation (text, :class:`Polynomial` or coefficient list) for every layer, or one per layer.

    Shared by the MLP and the CNN (:mod:`algebra.models.cnn`); ``layer`` names
    the layers that take an activation in the error message.

    Examples
    --------
    >>> activation_list("t^2", 2)
    ((Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)), (Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)))
    >>> activation_list(["t", "t"], 1)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid activations=['t', 't']: expected one activation or exactly 1 (one per hidden layer)
    """
    if isinstance(activations, str):
        return parse_activations(activations, count, layer=layer)
    if not isinstance(activations, (Polynomial, list, tuple)) or len(activations) > MAX_EXPONENT + 1 + count:
        raise InputError("activations", activations, f"{_ACTIVATIONS}; or one of those per {layer}")
    if isinstance(activations, Polynomial) or (
        isinstance(activations, (list, tuple)) and activations and not isinstance(activations[0], (str, list, tuple, Polynomial))
    ):
        return (_coeffs(activations),) * count
    acts = tuple(_coeffs(a) for a in activations)
    if len(acts) != count:
        raise InputError("activations", activations, f"one activation or exactly {count} (one per {layer})")
    return acts


def _monomial(cs: tuple):
    """``(c, k)`` if the activation is ``c t^k``, else ``None``."""
    nz = [(k, c) for k, c in enumerate(cs) if c]
    if len(nz) == 1:
        return nz[0][1], nz[0][0]
    return None


def _act_text(cs: tuple) -> str:
    terms = {(k,): c for k, c in enumerate(cs) if c}
    return Polynomial(("t",), terms).to_text()


class MLP(Model):
    """Polynomial MLP with linear readout.

    Parameters
    ----------
    widths : sequence of int
        ``(d_0, ..., d_L)``, ``L >= 1``.
    activations : str, coefficient list, or a sequence of those
        One activation for every hidden layer, or one per hidden layer.
    bias : bool
        Biases on every layer (including the readout) or on none.
    inactive : mapping, optional
        ``{hidden layer (1-based): [neuron indices]}`` removed from the model.

    Examples
    --------
    >>> m = MLP((2, 3, 1), "t^2")
    >>> m.parameter_count, m.ambient_dimension(), m.expected_dimension()
    (9, 3, 3)
    >>> MLP((2, 3, 1, 1), "t^3", inactive={1: [0]}).effective_widths
    (2, 2, 1, 1)
    >>> MLP((2, 0, 1), "t^2")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid widths=(2, 0, 1): expected a sequence of at least 2 positive integers
    """

    family = "mlp"

    def __init__(self, widths: Sequence[int], activations="t^2", *, bias: bool = False, inactive: Mapping | None = None):
        self.widths = layer_widths("widths", widths)
        n_hidden = len(self.widths) - 2
        self.activations = activation_list(activations, n_hidden, "hidden layer")
        if not isinstance(bias, bool):
            raise InputError("bias", bias, "True or False")
        self.bias = bias
        if isinstance(inactive, str):  # the CLI's text, read by the one parser of it
            inactive = parse_inactive(inactive, n_hidden, argument="inactive")
        if inactive is not None and not isinstance(inactive, Mapping):
            raise InputError("inactive", inactive, "a mapping {layer: [neurons]} or text 'LAYER:NEURON,...'")
        inactive = dict(inactive or {})
        clean = {}
        for layer, neurons in inactive.items():
            if isinstance(layer, bool) or not isinstance(layer, int) or not 1 <= layer <= n_hidden:
                raise InputError("inactive", inactive, f"hidden layers numbered 1..{n_hidden}")
            if isinstance(neurons, (int, np.integer)):
                neurons = (neurons,)
            try:
                ns = tuple(sorted(set(inputs.integers(neurons, "inactive", minimum=0,
                                                      max_length=self.widths[layer]))))
            except InputError:
                raise InputError("inactive", inactive, f"neurons of layer {layer} numbered "
                                 f"0..{self.widths[layer] - 1}") from None
            if any(n < 0 or n >= self.widths[layer] for n in ns):
                raise InputError("inactive", inactive, f"neurons of layer {layer} numbered 0..{self.widths[layer] - 1}")
            if len(ns) >= self.widths[layer]:
                raise InputError("inactive", inactive, f"at least one active neuron in layer {layer}")
            if ns:
                clean[layer] = ns
        self.inactive = clean
        eff = list(self.widths)
        for layer, ns in clean.items():
            eff[layer] -= len(ns)
        self.effective_widths = tuple(eff)

    # -- description --------------------------------------------------------
    @property
    def n_layers(self) -> int:
        return len(self.widths) - 1

    def param_blocks(self) -> list:
        w = self.effective_widths
        blocks = []
        for l in range(1, len(w)):
            blocks.append((f"W{l}", (w[l], w[l - 1])))
            if self.bias:
                blocks.append((f"b{l}", (w[l],)))
        return blocks

    def spec(self) -> dict:
        return {
            "family": self.family,
            "widths": list(self.widths),
            "activations": [_act_text(a) for a in self.activations],
            "bias": self.bias,
            "inactive": {str(k): list(v) for k, v in self.inactive.items()},
        }

    # -- certificate form (registered in :mod:`algebra.models.registry`) ------
    def to_spec(self) -> dict:
        """The model in the checker's self-contained form: :meth:`spec` with each activation as its
        exact coefficient list (constant term first).

        Examples
        --------
        >>> m = MLP((2, 3, 1), "t^2 + t/2", bias=True, inactive={1: [2]})
        >>> m.to_spec()["activations"]
        [['0', '1/2', '1']]
        >>> MLP.from_spec(m.to_spec()).spec() == m.spec()
        True
        """
        return dict(self.spec(), activations=[[str(Fraction(c)) for c in a] for a in self.activations])

    @classmethod
    def from_spec(cls, spec: dict) -> "MLP":
        """Inverse of :meth:`to_spec` (a malformed spec raises what indexing it raises; the registry
        turns that into :class:`~algebra.errors.InputError`)."""
        acts = [tuple(Fraction(c) for c in a) for a in spec["activations"]]
        inactive = {int(k): list(v) for k, v in spec["inactive"].items()}
        return cls(tuple(spec["widths"]), acts if acts else "t", bias=spec["bias"], inactive=inactive)

    @property
    def n_inputs(self) -> int:
        return self.widths[0]

    @property
    def n_outputs(self) -> int:
        return self.widths[-1]

    @property
    def degree(self) -> int:
        return prod(len(a) - 1 for a in self.activations)

    @property
    def homogeneous(self) -> bool:
        return not self.bias and all(_monomial(a) is not None for a in self.activations)

    def joint_degree(self) -> int:
        """Total degree in ``(theta, x)``: 2 for ``W_1 x + b_1``, then ``k * deg + 1`` per activation of degree ``k``."""
        deg = 2
        for a in self.activations:
            deg = (len(a) - 1) * deg + 1
        return deg

    def symmetry_degree(self) -> int:
        return 2 if self._orthogonal_layers() else 1

    def _orthogonal_layers(self) -> list:
        """Hidden layers with activation ``c t^2`` followed by a layer of width 1."""
        w = self.effective_widths
        out = []
        for l, a in enumerate(self.activations, start=1):
            mono = _monomial(a)
            if mono and mono[1] == 2 and w[l + 1] == 1:
                out.append(l)
        return out

    def symmetry_count(self) -> int:
        w = self.effective_widths
        count = 0
        for l, a in enumerate(self.activations, start=1):
            mono = _monomial(a)
            if mono is None:
                continue
            count += w[l] ** 2 if mono[1] == 1 else w[l]
        count += sum(comb(w[l], 2) for l in self._orthogonal_layers())
        return count

    def symmetry_names(self) -> list:
        names = []
        for l, a in enumerate(self.activations, start=1):
            mono = _monomial(a)
            if mono is None:
                continue
            names.append(f"GL({self.effective_widths[l]}) gauge of layer {l}" if mono[1] == 1 else f"neuron rescaling in layer {l}")
        names += [f"O(diag v) rotations of layer {l}" for l in self._orthogonal_layers()]
        return names

    # -- evaluation ------------------------------------------------------------
    def _forward_all(self, theta, X, F):
        blocks = self._blocks(theta, F)
        a = F.array(X)
        zs, acts = [], [a]
        L = self.n_layers
        for l in range(1, L + 1):
            z = F.matmul(a, blocks[f"W{l}"].T)
            if self.bias:
                z = F.add(z, blocks[f"b{l}"][None, :])
            zs.append(z)
            if l < L:
                a = F.polyval(self.activations[l - 1], z)
                acts.append(a)
        return blocks, zs, acts

    def forward(self, theta, X, field) -> np.ndarray:
        _, zs, _ = self._forward_all(theta, X, field)
        return zs[-1]

    def jacobian(self, theta, X, field) -> np.ndarray:
        F = field
        blocks, zs, acts = self._forward_all(theta, X, F)
        M = acts[0].shape[0]
        L = self.n_layers
        derivs = [tuple(k * c for k, c in enumerate(a))[1:] for a in self.activations]
        dsig = [F.polyval(derivs[l - 1], zs[l - 1]) for l in range(1, L)]  # s_l'(z_l)
        offsets = self.offsets()
        P = self.parameter_count
        out_dim = self.n_outputs
        J = F.zeros((M, out_dim, P))
        # int64 residues of a prime below 2^21 (PrimeField): products below 2^42, exact in place
        in_place = isinstance(F, PrimeField)
        for o in range(out_dim):
            delta = F.zeros((M, out_dim))
            delta[:, o] = F.scalar(1)
            for l in range(L, 0, -1):
                start, shape = offsets[f"W{l}"]
                a_prev = acts[l - 1]
                width = delta.shape[1] * a_prev.shape[1]
                if in_place:  # the products straight into J's memory (no 3-4 MB temporaries at P ~ 1,000)
                    view = J[:, o, start : start + width].reshape(M, delta.shape[1], a_prev.shape[1])
                    np.multiply(delta[:, :, None], a_prev[:, None, :], out=view)
                    np.remainder(view, F.p, out=view)
                else:
                    J[:, o, start : start + width] = F.mul(delta[:, :, None], a_prev[:, None, :]).reshape(M, -1)
                if self.bias:
                    bstart, _ = offsets[f"b{l}"]
                    J[:, o, bstart : bstart + delta.shape[1]] = delta
                if l > 1:
                    delta = F.mul(F.matmul(delta, blocks[f"W{l}"]), dsig[l - 2])
        return J.reshape(M * out_dim, P)

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        offsets = self.offsets()
        P = self.parameter_count
        w = self.effective_widths
        S = F.zeros((self.symmetry_count(), P))  # one allocation; each field fills its row
        count = 0

        def new_row():
            nonlocal count
            count += 1
            return S[count - 1]

        grids = {name: start + np.arange(int(np.prod(shape))).reshape(shape) for name, (start, shape) in offsets.items()}

        def put(vec, name, index, values):
            vec[np.asarray(grids[name][index]).ravel()] = np.asarray(values).ravel()

        for l, a in enumerate(self.activations, start=1):
            mono = _monomial(a)
            if mono is None:
                continue
            k = mono[1]
            W, Wn = blocks[f"W{l}"], blocks[f"W{l + 1}"]
            b = blocks.get(f"b{l}")
            if k == 1:
                for i in range(w[l]):
                    for j in range(w[l]):
                        vec = new_row()
                        put(vec, f"W{l}", (i, slice(None)), W[j, :])
                        if self.bias:
                            put(vec, f"b{l}", (i,), b[j])
                        put(vec, f"W{l + 1}", (slice(None), j), F.neg(Wn[:, i]))
            else:
                kk = F.scalar(k)
                for i in range(w[l]):
                    vec = new_row()
                    put(vec, f"W{l}", (i, slice(None)), W[i, :])
                    if self.bias:
                        put(vec, f"b{l}", (i,), b[i])
                    put(vec, f"W{l + 1}", (slice(None), i), F.neg(F.mul(Wn[:, i], kk)))
        for l in self._orthogonal_layers():  # all pairs i < j at once, in the order (0,1), (0,2), ..., (1,2), ...
            W, v = blocks[f"W{l}"], blocks[f"W{l + 1}"][0]
            b = blocks.get(f"b{l}")
            I, J = np.triu_indices(w[l], 1)
            rows = np.arange(count, count + I.size)[:, None]
            count += I.size
            S[rows, grids[f"W{l}"][I]] = F.mul(W[J, :], v[J][:, None])
            S[rows, grids[f"W{l}"][J]] = F.neg(F.mul(W[I, :], v[I][:, None]))
            if self.bias:
                S[rows[:, 0], grids[f"b{l}"][I]] = F.mul(b[J], v[J])
                S[rows[:, 0], grids[f"b{l}"][J]] = F.neg(F.mul(b[I], v[I]))
        return S[:count]

    def symmetry_combination(self, theta, c, field) -> np.ndarray:
        """``c^T S``: the combination of the rows of :meth:`symmetry_fields` with coefficients ``c``, without ``S``.

        The fields are linear in the layers' weights, so their combination is
        a few small products: the rescalings ``diag(c) W``, the gauge ``C W``,
        the rotations ``K diag(v) W`` for the skew ``K`` of the pair
        coefficients; the identity test needs only this vector
        (:func:`algebra.engine.identities.kernel_fields_hold`).

        Examples
        --------
        >>> from algebra.exact.field import PrimeField
        >>> m, F = MLP((2, 3, 1), "t^2", bias=True), PrimeField(101)
        >>> th, c = m.random_point(np.random.default_rng(0)), F.array(np.arange(1, 7))
        >>> bool((m.symmetry_combination(th, c, F) == F.matmul(c[None, :], m.symmetry_fields(th, F))[0]).all())
        True
        """
        F = field
        blocks = self._blocks(theta, F)
        offsets = self.offsets()
        w = self.effective_widths
        out = {name: F.zeros(shape) for name, (_, shape) in offsets.items()}
        c = np.asarray(c)
        used = 0

        def take(n):
            nonlocal used
            used += n
            return c[used - n : used]

        def add(name, value):
            out[name] = F.add(out[name], value)

        for l, a in enumerate(self.activations, start=1):
            mono = _monomial(a)
            if mono is None:
                continue
            W, Wn = blocks[f"W{l}"], blocks[f"W{l + 1}"]
            if mono[1] == 1:  # row (i, j): W_l row i += W[j], W_{l+1} column j -= W_{l+1} column i
                C = take(w[l] ** 2).reshape(w[l], w[l])
                add(f"W{l}", F.matmul(C, W))
                if self.bias:
                    add(f"b{l}", F.matmul(C, blocks[f"b{l}"][:, None])[:, 0])
                add(f"W{l + 1}", F.neg(F.matmul(Wn, C)))
            else:  # row i: W_l row i += W[i], W_{l+1} column i -= k W_{l+1} column i
                ci = take(w[l])
                add(f"W{l}", F.mul(W, ci[:, None]))
                if self.bias:
                    add(f"b{l}", F.mul(blocks[f"b{l}"], ci))
                add(f"W{l + 1}", F.neg(F.mul(Wn, F.mul(ci, F.scalar(mono[1]))[None, :])))
        for l in self._orthogonal_layers():  # pair (i < j): W_l row i += v_j W[j], row j -= v_i W[i]
            W, v = blocks[f"W{l}"], blocks[f"W{l + 1}"][0]
            I, J = np.triu_indices(w[l], 1)
            K = F.zeros((w[l], w[l]))
            cij = take(I.size)
            K[I, J] = cij
            K[J, I] = F.neg(cij)
            add(f"W{l}", F.matmul(K, F.mul(W, v[:, None])))
            if self.bias:
                add(f"b{l}", F.matmul(K, F.mul(blocks[f"b{l}"], v)[:, None])[:, 0])
        return np.concatenate([out[name].ravel() for name in offsets])

    @property
    def has_coefficient_jacobian(self) -> bool:
        return len(self.widths) == 3 and self.widths[2] == 1 and not self.bias and _monomial(self.activations[0]) is not None

    def coefficient_jacobian(self, theta, field) -> np.ndarray:
        """Direct coefficient-mode Jacobian for the shallow network ``sum_i v_i (w_i.x)^k``.

        Rows are the monomials of degree ``k`` (graded lexicographic order, as
        :func:`monomials`), columns the parameters.  Uses the multinomial
        expansion ``(w.x)^k = sum_a k!/a! w^a x^a``.  Other architectures
        use unisolvent sample points instead.
        """
        if not self.has_coefficient_jacobian:
            return super().coefficient_jacobian(theta, field)
        c, k = _monomial(self.activations[0])
        F = field
        n, h = self.effective_widths[0], self.effective_widths[1]
        blocks = self._blocks(theta, F)
        W, v = blocks["W1"], blocks["W2"][0]
        E, Em1, multinomials, per_input = _power_layout(n, k)
        multinom = F.array(np.array([F.scalar(m * c) for m in multinomials], dtype=object))
        # powers W[i, j] ** a for a = 0..k
        powers = [F.ones(W.shape)]
        for _ in range(k):
            powers.append(F.mul(powers[-1], W))
        # w_i^a for every monomial a: (N, h)
        wa = F.ones((E.shape[0], h))
        for j in range(n):
            stack = np.stack([powers[a][:, j] for a in range(k + 1)])  # (k+1, h)
            wa = F.mul(wa, stack[E[:, j]])
        N = E.shape[0]
        P = self.parameter_count
        J = F.zeros((N, P))
        # d/dv_i : multinom * w_i^a
        J[:, n * h :] = F.mul(wa, multinom[:, None])
        # d/dW[i, j] : v_i * a_j * multinom(a) * w_i^(a - e_j)
        wam1 = F.ones((Em1.shape[0], h))
        for j in range(n):
            stack = np.stack([powers[a][:, j] for a in range(k + 1)])
            wam1 = F.mul(wam1, stack[Em1[:, j]])
        for j in range(n):
            rows, src, exponents = per_input[j]
            aj = F.array(exponents)
            coef = F.mul(multinom[rows], aj)
            vals = F.mul(F.mul(wam1[src], coef[:, None]), v[None, :])  # (len(rows), h)
            cols = np.arange(h) * n + j
            J[np.ix_(rows, cols)] = vals
        return J


@lru_cache(maxsize=32)
def _power_layout(n: int, k: int) -> tuple:
    """Index tables of :meth:`MLP.coefficient_jacobian` for ``(w.x)^k`` in ``n`` inputs (pure in ``n, k``; cached).

    ``(E, Em1, multinomials, per_input)``: the exponents of degree ``k`` and
    ``k - 1`` (graded lex, read-only arrays), the multinomial coefficients
    ``k!/a!`` (Fractions), and for each input ``j`` the rows with ``a_j > 0``,
    the row of ``a - e_j`` among degree ``k - 1`` and ``a_j`` (read-only).
    """
    exps, exps_m1 = monomials(n, k), monomials(n, k - 1)
    index_m1 = {e: i for i, e in enumerate(exps_m1)}
    fact = [1]
    for i in range(1, k + 1):
        fact.append(fact[-1] * i)
    multinomials = tuple(Fraction(fact[k], prod(fact[a] for a in e)) for e in exps)
    E = np.array(exps, dtype=np.int64).reshape(len(exps), n)
    Em1 = np.array(exps_m1, dtype=np.int64).reshape(len(exps_m1), n)
    per_input = []
    for j in range(n):
        rows = [r for r, e in enumerate(exps) if e[j] > 0]
        src = [index_m1[e[:j] + (e[j] - 1,) + e[j + 1 :]] for e in (exps[r] for r in rows)]
        per_input.append((np.array(rows, dtype=np.intp), np.array(src, dtype=np.intp),
                          np.array([exps[r][j] for r in rows], dtype=np.int64)))
    for arr in (E, Em1, *(a for t in per_input for a in t)):
        arr.flags.writeable = False
    return E, Em1, multinomials, tuple(per_input)


def monomials(n: int, k: int) -> list:
    """Exponent tuples of the degree-``k`` monomials in ``n`` variables (graded lex).

    Examples
    --------
    >>> monomials(2, 2)
    [(2, 0), (1, 1), (0, 2)]
    """
    if n == 0:
        return [()] if k == 0 else []
    if n == 1:
        return [(k,)]
    out = []
    for first in range(k, -1, -1):
        for rest in monomials(n - 1, k - first):
            out.append((first,) + rest)
    return out


def shallow_network(n: int, degree: int, width: int) -> MLP:
    """``x -> sum_{i<=width} v_i (w_i . x)^degree``: the secant of a Veronese variety.

    Examples
    --------
    >>> m = shallow_network(3, 4, 5)
    >>> m.parameter_count, m.ambient_dimension(), m.expected_dimension()
    (20, 15, 15)
    >>> shallow_network(3, 1000, 5)
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid degree=1000: expected an integer between 1 and 64
    """
    n = positive_int("n", n)
    degree = positive_int("degree", degree)
    width = positive_int("width", width)
    if degree > MAX_EXPONENT:  # refused before building a coefficient list of that length
        raise InputError("degree", degree, f"an integer between 1 and {MAX_EXPONENT}")
    acts = [Fraction(0)] * degree + [Fraction(1)]
    return MLP((n, width, 1), tuple(acts), bias=False)


def quadratic_network(d: int, outputs: int, width: int, *, bias: bool = False) -> MLP:
    """Quadratic network ``x -> V (W x + b)^2 + c`` with ``outputs`` outputs (grokking paper, Sec. 4, App. G).

    Examples
    --------
    >>> quadratic_network(4, 3, 5).parameter_count
    35
    """
    d = positive_int("d", d)
    outputs = positive_int("outputs", outputs)
    width = positive_int("width", width)
    return MLP((d, width, outputs), "t^2", bias=bias)
