"""Polynomial convolutional networks (1-D and 2-D, "valid" padding).

``f = D o s_L o C_L o ... o s_1 o C_1`` where each ``C_l`` is a convolution
with ``c_l`` output channels, filters of size ``k_l`` (``k_l = (kh, kw)`` in
2-D) and stride ``s_l``, without padding, plus an optional bias per channel;
``s_l`` is a univariate polynomial activation (parsed like the MLP's,
:func:`algebra.models.mlp.parse_activation`) and ``D`` an optional final
dense layer.  Without ``D`` the last convolution is the linear readout (it
gets no activation) and the outputs are its ``c_L x positions`` values,
channel-major.  Proximity-bias paper, Section 3.1 (last remark) and
Appendix C; Figure 6 is ``CNN(3, [2], activations="t^2", dense=1)``:
``f(x) = c (a x1 + b x2)^2 + e (a x2 + b x3)^2``.

Exact evaluation uses the same field arrays as the MLPs
(:mod:`algebra.exact.field`): a convolution is a matrix product of the
weights with the *patches* of its input (the ``c_{l-1} x k_l`` values each
output position sees, gathered by an index table), and the Jacobian is
back-propagated for all outputs at once, the transposed convolution being a
matrix product with the patches of the back-propagated signal gathered by
the inverse index table.  Nothing is expanded symbolically.

Parameter layout: for each layer ``l`` the filter ``W_l`` of shape
``(c_l, c_{l-1}, *k_l)`` then ``b_l`` (``(c_l,)``) when biases are on; with a
dense layer, ``D`` of shape ``(outputs, c_L * positions_L)`` and ``bD``.
Inputs are ``c_0 x input`` arrays flattened channel-major, row-major.

Known symmetries (kernel witnesses, verified in the tests), one family per
layer followed by an activation:

* channel rescaling, for a monomial activation ``c t^k`` (``k >= 2``): the
  filter and bias of channel ``i`` times ``s``, every weight reading channel
  ``i`` (the next filters' ``[:, i]`` slices, or the dense columns of channel
  ``i``) times ``s^-k``.  The weights are shared over positions, so there is
  one field per channel, not one per position;
* for a linear activation ``c t`` the ``GL(c_l)`` gauge mixing the channels of
  layer ``l``: ``(W_l, b_l) -> E (W_l, b_l)`` on the channel axis and the next
  layer's channel axis by ``-E^T``.

Linear CNNs (Kohn, Merkh, Montúfar, Trager, *Geometry of linear
convolutional networks*, SIAM J. Appl. Algebra Geom. 6(3), 2022).  With one
channel, a composition of convolutions is one convolution whose filter, read
as a polynomial, is the product ``w_1(x) w_2(x^{s_1}) w_3(x^{s_1 s_2}) ...``.
With all strides 1 the end-to-end filter has ``1 + sum_l (k_l - 1)`` taps and
the function space is the set of filters whose polynomial factors with
degrees ``k_l - 1``: a semialgebraic set with nonempty interior in filter
space (real-rooted polynomials factor), of dimension ``1 + sum_l (k_l - 1)``.
With larger strides the end-to-end filter is longer,
``k_1 + sum_{l>=2} (k_l - 1) s_1 ... s_{l-1}`` taps
(:func:`end_to_end_filter_size`), while the dimension stays at most the
parameter count minus the ``L - 1`` rescalings, ``1 + sum_l (k_l - 1)``:
the function space is then a lower-dimensional set in filter space (not
filling), the case that paper treats apart from stride one.  The tests
certify both counts on a table of filter sizes and strides.

Examples
--------
>>> m = CNN(8, [3, 2, 4], activations="t")
>>> m.parameter_count, m.output_shape, m.n_outputs
(9, (2,), 2)
>>> from algebra.exact.field import RationalField
>>> theta = [1, 0, 0] + [1, 0] + [0, 0, 0, 1]      # taps x^0, x^0, x^3: a shift by 3
>>> m.forward(theta, [[1, 2, 3, 4, 5, 6, 7, 8]], RationalField()).tolist()
[[Fraction(4, 1), Fraction(5, 1)]]
>>> CNN(4, [5])
Traceback (most recent call last):
...
algebra.errors.InputError: invalid filters=[5]: expected filters no larger than the input of their layer (layer 1 sees (4,))
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import prod
from typing import Mapping, Sequence

import numpy as np

import algebra.inputs as inputs
from algebra.errors import InputError
from algebra.models.base import MAX_LAYERS, Model, int_list, monomial_count, positive_int
from algebra.models.mlp import MLP, _act_text, _monomial, activation_list, parse_activations

__all__ = ["CNN", "end_to_end_filter_size", "parse_shape", "parse_shapes", "parse_counts", "cnn_from_text"]



def _positive(text: str, argument: str) -> int | None:
    """A positive integer in ASCII digits (:func:`algebra.inputs.parse_integer`: no '²', '٣' or 5000 digits), or
    ``None``: the caller refuses the whole option with its own message."""
    try:
        return inputs.parse_integer(text, argument, minimum=1) if text.strip() == text and text[:1] not in "+-" else None
    except InputError:
        return None

#: Above this many monomials, or this many monomial products to form, the support count gives way
#: to the receptive-field count (large supports exceed the parameter count anyway; ~0.1 s of work).
MAX_SUPPORT = 20_000
MAX_SUPPORT_WORK = 200_000
#: ... and above this many variables written while forming them (a monomial is stored with its degree's
#: worth of variables: twenty layers of ``t^2`` make degree 2^20, and the tuples, not their count, blow up).
MAX_SUPPORT_ENTRIES = 500_000
#: Most entries of the largest array one input's dense Jacobian builds (outputs x positions x channels x taps,
#: quadratic in the positions): 2^26 int64 entries are 512 MiB and a few seconds; larger networks are refused.
MAX_SAMPLE_WORK = 2**26


# -- text arguments ------------------------------------------------------------------------


def parse_shape(text: str, argument: str = "--input") -> tuple:
    """``"8"`` -> ``(8,)``, ``"6x6"`` -> ``(6, 6)``: positive integers in ASCII digits.

    Examples
    --------
    >>> parse_shape("6x6"), parse_shape(" 8 ")
    ((6, 6), (8,))
    >>> parse_shape("٨")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --input='٨': expected N or NxM with positive integers (ASCII digits)
    """
    parts = [p.strip() for p in str(text).strip().lower().split("x")]
    sizes = tuple(_positive(p, argument) for p in parts) if 1 <= len(parts) <= 2 else (None,)
    if None in sizes:
        raise InputError(argument, text, "N or NxM with positive integers (ASCII digits)")
    return sizes


def parse_shapes(text: str, argument: str = "--filters") -> tuple:
    """``"3,2,4"`` -> ``((3,), (2,), (4,))``; ``"3x3,2x2"`` -> ``((3, 3), (2, 2))``.

    Examples
    --------
    >>> parse_shapes("3x3,2x2")
    ((3, 3), (2, 2))
    >>> parse_shapes("3,0")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --filters='3,0': expected N or NxM with positive integers (ASCII digits), separated by commas
    """
    try:
        return tuple(parse_shape(p, argument) for p in str(text).split(","))
    except InputError:
        raise InputError(argument, text, "N or NxM with positive integers (ASCII digits), separated by commas") from None


def parse_counts(text: str, argument: str) -> tuple:
    """``"1,2,2,1"`` -> ``(1, 2, 2, 1)``: positive integers in ASCII digits.

    Examples
    --------
    >>> parse_counts("1,2", "--channels")
    (1, 2)
    >>> parse_counts("1,0", "--strides")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --strides='1,0': expected positive integers (ASCII digits) separated by commas
    """
    counts = tuple(_positive(p.strip(), argument) for p in str(text).split(","))
    if None in counts:
        raise InputError(argument, text, "positive integers (ASCII digits) separated by commas")
    return counts


def _per_layer(values: tuple, ndim: int, argument: str, text: str) -> tuple:
    """Shapes given as ``N`` in 2-D mean ``NxN``; a ``NxM`` in 1-D is refused."""
    out = []
    for v in values:
        if len(v) == 1:
            out.append(v * ndim)
        elif len(v) == ndim:
            out.append(v)
        else:
            raise InputError(argument, text, f"{ndim}-D sizes like the input")
    return tuple(out)


def cnn_from_text(input: str, filters: str, *, channels: str | None = None, strides: str | None = None,
                  activation: str = "t^2", bias: bool = False, dense: int | None = None, inactive: str = "") -> "CNN":
    """Build a :class:`CNN` from command-line text (``dim cnn`` / ``proximity cnn``), naming bad arguments.

    ``activation`` is one polynomial in ``t`` or one per activated layer
    separated by ``;``; ``inactive`` lists ``LAYER:CHANNEL`` pairs (layers from
    1, channels from 0).

    Examples
    --------
    >>> cnn_from_text("6x6", "3x3,2x2", channels="1,2,1").spec()["filters"]
    [[3, 3], [2, 2]]
    >>> cnn_from_text("8", "3,2", strides="1,0")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --strides='1,0': expected N or NxM with positive integers (ASCII digits), separated by commas
    >>> cnn_from_text("6x6", "3x3,2x2", strides="1x2,1").output_shape
    (3, 1)
    >>> cnn_from_text("8", "9")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --filters='9': expected filters no larger than the input of their layer (layer 1 sees (8,))
    """
    from algebra.models.mlp import parse_inactive

    shape = parse_shape(input, "--input")
    ks = _per_layer(parse_shapes(filters, "--filters"), len(shape), "--filters", filters)
    L = len(ks)
    ch = parse_counts(channels, "--channels") if channels else (1,) * (L + 1)
    if len(ch) != L + 1:
        raise InputError("--channels", channels, f"{L + 1} counts (input channels, then one per layer)")
    st = (1,) * L
    if strides:
        st = _per_layer(parse_shapes(strides, "--strides"), len(shape), "--strides", strides)
        if len(st) != L:
            raise InputError("--strides", strides, f"{L} strides, one per layer")
    n_act = L if dense else L - 1
    acts = parse_activations(activation, n_act, layer="activated layer", argument="--activation")
    inact = parse_inactive(inactive or "", max(n_act, 1), argument="--inactive") if inactive else {}
    try:
        return CNN(shape, ks, channels=ch, strides=st, activations=acts, bias=bias, dense=dense, inactive=inact)
    except InputError as exc:
        names = {"filters": "--filters", "strides": "--strides", "channels": "--channels", "inactive": "--inactive",
                 "dense": "--dense", "input_shape": "--input"}
        if exc.argument in names:  # a value the model summarised ("1000 layers") is kept, not the long text
            text = {"filters": filters, "strides": strides, "channels": channels, "inactive": inactive, "dense": dense,
                    "input_shape": input}[exc.argument]
            raise InputError(names[exc.argument], exc.value if isinstance(exc.value, str) else text,
                             exc.allowed) from None
        raise


def end_to_end_filter_size(filters: Sequence[int], strides: Sequence[int] | None = None) -> int:
    """Taps of the single filter a 1-D linear one-channel CNN computes: ``k_1 + sum_{l>=2} (k_l - 1) s_1...s_{l-1}``.

    Kohn, Merkh, Montúfar, Trager (2022): the end-to-end filter is the
    product ``w_1(x) w_2(x^{s_1}) w_3(x^{s_1 s_2}) ...`` of the layer filters
    read as polynomials; with all strides 1 its size is ``1 + sum (k_l - 1)``,
    the dimension of the function space.

    Examples
    --------
    >>> end_to_end_filter_size([3, 2, 4]), end_to_end_filter_size([3, 2, 4], [2, 2, 1])
    (7, 17)
    """
    strides = list(strides) if strides is not None else [1] * len(filters)
    size, step = filters[0], 1
    for k, s in zip(filters[1:], strides[:-1]):
        step *= s
        size += (k - 1) * step
    return size


# -- the model -------------------------------------------------------------------------------


def _shape(name: str, value, ndim: int | None) -> tuple:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * (ndim or 1)
    items = int_list(name, value, minimum=1)
    if ndim is not None and len(items) != ndim:
        raise InputError(name, value, f"{ndim} sizes, like the input")
    return items


class CNN(Model):
    """Polynomial CNN with valid padding, per-layer filters/strides/channels, optional final dense layer.

    Parameters
    ----------
    input_shape : int or tuple
        ``n`` (1-D) or ``(h, w)`` (2-D) positions per input channel.
    filters : sequence
        One filter size per convolution layer (``k`` or ``(kh, kw)``).
    channels : sequence of int, optional
        ``(c_0, c_1, ..., c_L)``: input channels, then output channels of each
        layer (default all 1).
    strides : sequence, optional
        One stride per layer (``s`` or ``(sh, sw)``; default 1).
    activations : str, coefficient list, or a sequence of those
        One activation for every activated layer (all layers when ``dense``
        is given, all but the last otherwise), or one per activated layer.
    bias : bool
        A bias per channel on every layer (and on the dense layer), or none.
    dense : int, optional
        Number of outputs of a final dense (fully connected) layer.
    inactive : mapping, optional
        ``{activated layer (1-based): [channels]}`` removed from the model
        (the subnetwork where those channels are inactive); the spec keeps
        the full channel counts.

    Examples
    --------
    >>> fig6 = CNN(3, [2], activations="t^2", dense=1)          # proximity-bias paper, Figure 6
    >>> fig6.parameter_count, fig6.ambient_dimension(), fig6.symmetry_count()   # x1^2 .. x3^2 but no x1 x3
    (4, 5, 1)
    >>> CNN((6, 6), [(3, 3), (2, 2)], channels=(1, 2, 1)).output_shape
    (3, 3)
    >>> CNN(8, [3], strides=[0])
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid strides=[0]: expected positive integers
    """

    family = "cnn"

    def __init__(self, input_shape, filters: Sequence, *, channels: Sequence[int] | None = None,
                 strides: Sequence | None = None, activations="t^2", bias: bool = False, dense: int | None = None,
                 inactive: Mapping | None = None):
        self.input_shape = _shape("input_shape", input_shape, None)
        if len(self.input_shape) > 2:
            raise InputError("input_shape", input_shape, "1 or 2 sizes (1-D or 2-D convolutions)")
        nd = len(self.input_shape)
        try:
            fl = list(filters)
        except TypeError:
            raise InputError("filters", filters, "a sequence of filter sizes") from None
        if not fl:
            raise InputError("filters", filters, "at least one layer")
        if len(fl) > MAX_LAYERS:  # refused before reading the sizes
            raise InputError("filters", f"{len(fl)} layers", f"at most {MAX_LAYERS} layers (MAX_LAYERS)")
        try:
            self.filters = tuple(_shape("filters", k, nd) for k in fl)
        except InputError:
            raise InputError("filters", filters, f"one size per layer, each a positive integer or {nd} of them") from None
        L = len(self.filters)
        st = [1] * L if strides is None else list(strides)
        if len(st) != L:
            raise InputError("strides", strides, f"{L} strides, one per layer")
        try:
            self.strides = tuple(_shape("strides", s, nd) for s in st)
        except InputError:
            raise InputError("strides", strides, "positive integers") from None
        self.channels = (1,) * (L + 1) if channels is None else int_list("channels", channels, minimum=1)
        if len(self.channels) != L + 1:
            raise InputError("channels", channels, f"{L + 1} positive integers (input channels, then one per layer)")
        self.dense = None if dense is None else positive_int("dense", dense)
        if not isinstance(bias, bool):
            raise InputError("bias", bias, "True or False")
        self.bias = bias
        self.activated = tuple(range(1, L + 1)) if self.dense else tuple(range(1, L))
        self.activations = activation_list(activations, len(self.activated), "activated layer")
        # spatial shapes after each layer
        shapes = [self.input_shape]
        for l, (k, s) in enumerate(zip(self.filters, self.strides), start=1):
            prev = shapes[-1]
            if any(kk > n for kk, n in zip(k, prev)):
                raise InputError("filters", [list(f) if nd > 1 else f[0] for f in self.filters],
                                 f"filters no larger than the input of their layer (layer {l} sees {prev})")
            shapes.append(tuple((n - kk) // ss + 1 for n, kk, ss in zip(prev, k, s)))
        self.shapes = tuple(shapes)
        clean = {}
        for layer, chans in dict(inactive or {}).items():
            if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or int(layer) not in self.activated:
                raise InputError("inactive", inactive, f"activated layers numbered {list(self.activated)}")
            cs = tuple(sorted(set(int(c) for c in chans)))
            if any(c < 0 or c >= self.channels[layer] for c in cs):
                raise InputError("inactive", inactive, f"channels of layer {layer} numbered 0..{self.channels[layer] - 1}")
            if len(cs) >= self.channels[layer]:
                raise InputError("inactive", inactive, f"at least one active channel in layer {layer}")
            if cs:
                clean[int(layer)] = cs
        self.inactive = clean
        self.effective_channels = tuple(c - len(clean.get(l, ())) for l, c in enumerate(self.channels))
        self._refuse_sample_work()
        self._index = [None] + [self._index_tables(l) for l in range(1, L + 1)]
        self._ambient = None

    def _sample_work(self) -> int:
        """Entries of the largest array one input's Jacobian builds: the patches ``(positions, c_{l-1} K)``
        and the back-propagated patches ``(outputs, positions_{l-1}, c_l K)`` (which bound the index tables)."""
        c, O = self.effective_channels, self.n_outputs
        per = O * O if not self.dense else 1  # the identity the back-propagation starts from
        for l in range(1, self.n_layers + 1):
            K = prod(self.filters[l - 1])
            per = max(per, prod(self.shapes[l]) * c[l - 1] * K, O * prod(self.shapes[l - 1]) * c[l] * K)
        return per

    def _refuse_sample_work(self) -> None:
        """Refuse, before any index table is built, a network above :data:`MAX_SAMPLE_WORK` (named by the
        largest of its sizes: the input positions, a channel count or the dense outputs)."""
        per = self._sample_work()
        if per <= MAX_SAMPLE_WORK:
            return
        sizes = {"input_shape": prod(self.input_shape), "channels": max(self.channels), "dense": self.dense or 0}
        name = max(sizes, key=sizes.get)
        value = {"input_shape": list(self.input_shape), "channels": list(self.channels), "dense": self.dense}[name]
        raise InputError(name, value, f"a smaller network: one input's Jacobian builds {per:,} entries "
                                      f"(outputs x positions x channels x taps), above MAX_SAMPLE_WORK = {MAX_SAMPLE_WORK:,}")

    def full(self) -> "CNN":
        """The same architecture with every channel active (the model a subnetwork sits in).

        Examples
        --------
        >>> CNN(6, [2, 2], channels=(1, 3, 1), inactive={1: [0]}).full().effective_channels
        (1, 3, 1)
        """
        return CNN(self.input_shape, self.filters, channels=self.channels, strides=self.strides,
                   activations=self.activations, bias=self.bias, dense=self.dense)

    # -- geometry of the convolutions ---------------------------------------------------
    def _index_tables(self, l: int) -> tuple:
        """``(fwd, bwd)``: ``fwd[p, j]`` = input position read by output ``p`` at tap ``j``;
        ``bwd[q, j]`` = the output that reads input ``q`` at tap ``j`` (``positions`` if none)."""
        prev, out, k, s = self.shapes[l - 1], self.shapes[l], self.filters[l - 1], self.strides[l - 1]
        P = np.indices(out).reshape(len(out), -1)  # (nd, positions)
        U = np.indices(k).reshape(len(k), -1)  # (nd, taps)
        coords = [ss * P[d][:, None] + U[d][None, :] for d, ss in enumerate(s)]
        fwd = np.ravel_multi_index(coords, prev)  # (positions, taps)
        npos, K = fwd.shape
        bwd = np.full((prod(prev), K), npos, dtype=np.int64)
        bwd[fwd, np.arange(K)[None, :]] = np.arange(npos)[:, None]
        return fwd, bwd

    @property
    def n_layers(self) -> int:
        return len(self.filters)

    @property
    def output_shape(self) -> tuple:
        """Spatial shape of the last convolution's output."""
        return self.shapes[-1]

    def receptive_fields(self) -> list:
        """For each output coordinate, the sorted input coordinates (channel-major) it depends on."""
        fields = [frozenset([q]) for q in range(prod(self.input_shape))]
        for l in range(1, self.n_layers + 1):
            fwd = self._index[l][0]
            fields = [frozenset().union(*(fields[q] for q in row)) for row in fwd]
        n0 = prod(self.input_shape)
        spread = [sorted(c * n0 + q for c in range(self.channels[0]) for q in f) for f in fields]
        if self.dense:
            union = sorted(set().union(*spread))
            return [union] * self.dense
        return spread * self.effective_channels[-1]

    # -- description --------------------------------------------------------------------
    def param_blocks(self) -> list:
        c = self.effective_channels
        blocks = []
        for l in range(1, self.n_layers + 1):
            blocks.append((f"W{l}", (c[l], c[l - 1]) + self.filters[l - 1]))
            if self.bias:
                blocks.append((f"b{l}", (c[l],)))
        if self.dense:
            blocks.append(("D", (self.dense, c[-1] * prod(self.output_shape))))
            if self.bias:
                blocks.append(("bD", (self.dense,)))
        return blocks

    def spec(self) -> dict:
        return {
            "family": self.family,
            "input": list(self.input_shape),
            "channels": list(self.channels),
            "filters": [list(k) for k in self.filters],
            "strides": [list(s) for s in self.strides],
            "activations": [_act_text(a) for a in self.activations],
            "bias": self.bias,
            "dense": self.dense,
            "inactive": {str(k): list(v) for k, v in self.inactive.items()},
        }

    # -- certificate form (registered in :mod:`algebra.models.registry`) ------
    def to_spec(self) -> dict:
        """The model in the checker's self-contained form: :meth:`spec` with each activation as its
        exact coefficient list.

        Examples
        --------
        >>> m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1, inactive={1: [0]})
        >>> m.to_spec()["activations"], CNN.from_spec(m.to_spec()).spec() == m.spec()
        ([['0', '0', '1']], True)
        """
        return dict(self.spec(), activations=[[str(Fraction(c)) for c in a] for a in self.activations])

    @classmethod
    def from_spec(cls, spec: dict) -> "CNN":
        """Inverse of :meth:`to_spec` (a malformed spec raises what indexing it raises; the registry
        turns that into :class:`~algebra.errors.InputError`)."""
        acts = [tuple(Fraction(c) for c in a) for a in spec["activations"]]
        return cls(tuple(spec["input"]), [tuple(k) for k in spec["filters"]], channels=spec["channels"],
                   strides=[tuple(s) for s in spec["strides"]], activations=acts or "t", bias=spec["bias"],
                   dense=spec["dense"], inactive={int(k): list(v) for k, v in spec["inactive"].items()})

    def differential_spec(self, theta, subnetwork: "CNN") -> dict:
        """The checker's form of the differential ``d phi`` of this (full) CNN at the integer point
        ``theta`` of ``subnetwork`` (this CNN with some channels inactive; proximity-bias paper,
        Appendix C): the ``differential`` family of a ``rank_lower_bound`` certificate.

        Examples
        --------
        >>> m = CNN(4, [2], channels=(1, 2), activations="t^2", dense=1)
        >>> sub = CNN.from_spec(dict(m.to_spec(), inactive={"1": [0]}))
        >>> s = m.differential_spec([1, 2, 3, 4, 0, 0, 0, 5, 6, 7], sub)
        >>> s["family"], s["at"][:3], s["inactive"]
        ('differential', ['1', '2', '3'], {'1': [0]})
        """
        return {"family": "differential", "of": self.to_spec(), "at": [str(int(v)) for v in theta],
                "inactive": subnetwork.to_spec()["inactive"]}

    @property
    def n_inputs(self) -> int:
        return self.channels[0] * prod(self.input_shape)

    @property
    def n_outputs(self) -> int:
        return self.dense if self.dense else self.effective_channels[-1] * prod(self.output_shape)

    # Degree, homogeneity and joint degree read only ``activations`` and ``bias``: the MLP's formulas
    # (every activation is followed by a layer linear in its own weights, the first layer is bilinear).
    degree = MLP.degree
    homogeneous = MLP.homogeneous
    joint_degree = MLP.joint_degree

    def ambient_dimension(self) -> int:
        """Dimension of a coordinate space known to contain ``span F``: the monomials that can occur.

        Weight sharing and valid padding make the outputs of one channel at
        all positions translates of one *template* polynomial of the window
        at position 0, so without a dense layer the function is determined
        by ``c_L`` templates; with one, each dense output is a combination of
        the last layer's values at all positions.  The monomials that can occur
        are propagated exactly (a convolution takes the union of its taps'
        supports, an activation the sums of up to ``deg`` of them, a bias adds
        ``1``); above :data:`MAX_SUPPORT` monomials (or :data:`MAX_SUPPORT_WORK`
        products to form) the count falls back to all
        monomials of the output degree in the receptive field.  Either is an
        upper bound of ``dim F``, much tighter than ``outputs x monomials(all inputs)``.
        """
        if self._ambient is None:
            rf = self.receptive_fields()
            fallback = len(rf) * monomial_count(len(rf[0]), self.degree, homogeneous=self.homogeneous)
            if not self.dense:
                fallback = self.effective_channels[-1] * monomial_count(len(rf[0]), self.degree, homogeneous=self.homogeneous)
            support = self._support_size()
            self._ambient = fallback if support is None else min(support, fallback)
        return self._ambient

    def ambient_bounds(self) -> tuple:
        """``(low, high)`` with ``low <= ambient_dimension() <= high``, from the shapes alone (no receptive field,
        no monomial is built: nothing proportional to the input positions), for refusing a network before
        :meth:`ambient_dimension` builds one field per position.

        ``high`` is the receptive-field count of :meth:`ambient_dimension` with each field bounded by its span
        (``end_to_end_filter_size`` per axis; with a dense layer, the inputs the outputs reach).  ``low``: when
        every activation has degree >= 1, the support holds the pure power ``x^deg`` of every input variable a
        field reads (a convolution keeps its taps' monomials, an activation raises them to its top degree), and
        the fields read at least ``c_0`` x (taps of the first filter) inputs (without a dense layer, per last
        channel) or ``c_0`` x (output positions) inputs (with one: each output position has its own first input);
        ``low = 1`` otherwise.

        Examples
        --------
        >>> fig6 = CNN(3, [2], activations="t^2", dense=1)
        >>> fig6.ambient_bounds(), fig6.ambient_dimension()
        ((2, 6), 5)
        >>> CNN(10**6, [3], channels=(1, 2), dense=1).ambient_bounds()[0]   # one variable per output position at least
        999998
        """
        nd = len(self.input_shape)
        c0 = self.channels[0]
        steps, spans = [1] * nd, [0] * nd
        for d in range(nd):
            spans[d] = end_to_end_filter_size([k[d] for k in self.filters], [s[d] for s in self.strides])
            steps[d] = prod(s[d] for s in self.strides)
        if self.dense:
            reach = prod(min(n, (o - 1) * st + sp) for n, o, st, sp in zip(self.input_shape, self.output_shape, steps, spans))
            high = self.dense * monomial_count(c0 * reach, self.degree, homogeneous=self.homogeneous)
        else:
            high = self.effective_channels[-1] * monomial_count(c0 * prod(spans), self.degree, homogeneous=self.homogeneous)
        raised = all(len(cs) >= 2 and cs[-1] != 0 for cs in self.activations)
        if not raised or self.degree < 1:
            return 1, high
        low = self.dense * c0 * prod(self.output_shape) if self.dense else \
            self.effective_channels[-1] * c0 * prod(self.filters[0])
        return min(low, high), high

    def _support_size(self) -> int | None:
        """Number of monomials of the template (or of the dense outputs); ``None`` above :data:`MAX_SUPPORT`."""
        nd = len(self.input_shape)

        def shift(mons, offset):
            return {tuple((m[0],) + tuple(x + d for x, d in zip(m[1:], offset)) for m in mono) for mono in mons}

        def degree(mons):  # a monomial is a tuple of its variables with repetition: its length is its degree
            return max(map(len, mons), default=0)

        def product(A, B):
            if len(A) * len(B) > MAX_SUPPORT_WORK or len(A) * len(B) * (degree(A) + degree(B)) > MAX_SUPPORT_ENTRIES:
                return None
            out = {tuple(sorted(a + b)) for a in A for b in B}
            return out if len(out) <= MAX_SUPPORT else None

        # monomials as sorted tuples of variables (channel, *coordinates), with repetition
        support = {((c,) + (0,) * nd,) for c in range(self.channels[0])}
        step = (1,) * nd  # total stride of the previous layer's positions, in input coordinates
        for l in range(1, self.n_layers + 1):
            if prod(self.filters[l - 1]) * len(support) > MAX_SUPPORT_WORK or (
                    prod(self.filters[l - 1]) * len(support) * degree(support) > MAX_SUPPORT_ENTRIES):
                return None
            z = set()
            for u in np.ndindex(self.filters[l - 1]):
                z |= shift(support, tuple(a * b for a, b in zip(u, step)))
            if self.bias:
                z.add(())
            if len(z) > MAX_SUPPORT:
                return None
            step = tuple(a * b for a, b in zip(step, self.strides[l - 1]))
            cs = self._act(l)
            if cs is None:
                support = z
                continue
            support, power = set(), {()}
            for i, c in enumerate(cs):
                if i:
                    power = product(power, z)
                    if power is None:
                        return None
                if c:
                    support |= power
            if len(support) > MAX_SUPPORT:
                return None
        if not self.dense:
            return self.effective_channels[-1] * len(support)
        if prod(self.output_shape) * len(support) > MAX_SUPPORT_WORK or (
                prod(self.output_shape) * len(support) * degree(support) > MAX_SUPPORT_ENTRIES):
            return None
        union = set()
        for p in np.ndindex(self.output_shape):
            union |= shift(support, tuple(a * b for a, b in zip(p, step)))
            if len(union) > MAX_SUPPORT:
                return None
        return self.dense * len(union)

    def symmetry_count(self) -> int:
        count = 0
        for l, a in zip(self.activated, self.activations):
            mono = _monomial(a)
            if mono is not None:
                c = self.effective_channels[l]
                count += c * c if mono[1] == 1 else c
        return count

    def symmetry_names(self) -> list:
        names = []
        for l, a in zip(self.activated, self.activations):
            mono = _monomial(a)
            if mono is not None:
                c = self.effective_channels[l]
                names.append(f"GL({c}) gauge of layer {l}" if mono[1] == 1 else f"channel rescaling in layer {l}")
        return names

    # -- evaluation -------------------------------------------------------------------------
    def _act(self, l: int):
        return self.activations[self.activated.index(l)] if l in self.activated else None

    @staticmethod
    def _patches(a, index):
        """``(..., C, N)`` values and a ``(Q, K)`` index table -> ``(..., Q, C*K)`` patches."""
        g = a[..., index]  # (..., C, Q, K)
        g = np.moveaxis(g, -3, -2)  # (..., Q, C, K)
        return g.reshape(g.shape[:-2] + (-1,))

    def _forward_all(self, theta, X, F):
        blocks = self._blocks(theta, F)
        X = np.asarray(X)
        M = X.shape[0]
        c = self.effective_channels
        a = F.array(X).reshape(M, c[0], -1)
        zs, acts, patches = [], [a], []
        for l in range(1, self.n_layers + 1):
            W = blocks[f"W{l}"].reshape(c[l], -1)
            Pt = self._patches(a, self._index[l][0])  # (M, positions, c_{l-1} K)
            z = np.swapaxes(F.matmul(Pt, W.T), 1, 2)  # (M, c_l, positions)
            if self.bias:
                z = F.add(z, blocks[f"b{l}"][None, :, None])
            zs.append(z)
            patches.append(Pt)
            act = self._act(l)
            a = z if act is None else F.polyval(act, z)
            acts.append(a)
        return blocks, zs, acts, patches

    def forward(self, theta, X, field) -> np.ndarray:
        F = field
        blocks, _, acts, _ = self._forward_all(theta, X, F)
        M = acts[0].shape[0]
        flat = acts[-1].reshape(M, -1)
        if not self.dense:
            return flat
        out = F.matmul(flat, blocks["D"].T)
        return F.add(out, blocks["bD"][None, :]) if self.bias else out

    def _chunk(self) -> int:
        """Samples per Jacobian block: the largest per-sample array (patches, back-propagated patches) times
        the block stays near ``2^19`` entries, which keeps the gathers in cache (5x faster at P ~ 2,600)."""
        per = 1
        for l in range(1, self.n_layers + 1):
            c, K = self.effective_channels, prod(self.filters[l - 1])
            per = max(per, prod(self.shapes[l]) * c[l - 1] * K, self.n_outputs * prod(self.shapes[l - 1]) * c[l] * K)
        return max(1, 2**19 // per)

    def jacobian(self, theta, X, field) -> np.ndarray:
        X = np.asarray(X)
        B = self._chunk()
        if X.shape[0] > B:
            return np.concatenate([self._jacobian(theta, X[i : i + B], field) for i in range(0, X.shape[0], B)])
        return self._jacobian(theta, X, field)

    def _jacobian(self, theta, X, field) -> np.ndarray:
        F = field
        blocks, zs, acts, patches = self._forward_all(theta, X, F)
        M = acts[0].shape[0]
        c = self.effective_channels
        L = self.n_layers
        O = self.n_outputs
        offsets = self.offsets()
        J = F.zeros((M, O, self.parameter_count))

        def dsig(l):  # s_l'(z_l), shape (M, c_l, positions)
            cs = self._act(l)
            return F.polyval(tuple(k * v for k, v in enumerate(cs))[1:] or (0,), zs[l - 1])

        npos = prod(self.output_shape)
        if self.dense:
            flat = acts[-1].reshape(M, -1)
            start, (_, Q) = offsets["D"]
            for o in range(O):
                J[:, o, start + o * Q : start + (o + 1) * Q] = flat
            if self.bias:
                bstart, _ = offsets["bD"]
                for o in range(O):
                    J[:, o, bstart + o] = F.scalar(1)
            D = blocks["D"].reshape(O, c[L], npos)
            delta = F.mul(np.broadcast_to(D, (M,) + D.shape), dsig(L)[:, None])
        else:
            eye = F.array(np.eye(O, dtype=np.int64)).reshape(1, O, c[L], npos)
            delta = np.broadcast_to(eye, (M, O, c[L], npos))
        for l in range(L, 0, -1):
            npos = delta.shape[-1]
            dz = np.ascontiguousarray(delta).reshape(M, O * c[l], npos)
            start, shape = offsets[f"W{l}"]
            size = prod(shape)
            J[:, :, start : start + size] = F.matmul(dz, patches[l - 1]).reshape(M, O, size)
            if self.bias:
                bstart, _ = offsets[f"b{l}"]
                J[:, :, bstart : bstart + c[l]] = F.matmul(dz, F.ones((npos, 1))).reshape(M, O, c[l])
            if l > 1:
                pad = np.concatenate([np.asarray(delta), F.zeros((M, O, c[l], 1))], axis=-1)
                G = self._patches(pad, self._index[l][1])  # (M, O, n_{l-1}, c_l K)
                K = prod(self.filters[l - 1])
                Wt = blocks[f"W{l}"].reshape(c[l], c[l - 1], K).transpose(0, 2, 1).reshape(c[l] * K, c[l - 1])
                back = np.swapaxes(F.matmul(G, Wt), -1, -2)  # (M, O, c_{l-1}, n_{l-1})
                delta = F.mul(back, dsig(l - 1)[:, None])
        return J.reshape(M * O, self.parameter_count)

    def symmetry_fields(self, theta, field) -> np.ndarray:
        F = field
        blocks = self._blocks(theta, F)
        offsets = self.offsets()
        P = self.parameter_count
        c = self.effective_channels
        npos = prod(self.output_shape)
        rows = []

        def put(vec, name, index, values):
            start, shape = offsets[name]
            flat = np.arange(prod(shape)).reshape(shape)[index]
            vec[start + np.asarray(flat).ravel()] = np.asarray(values).ravel()

        def reader(l, i):
            """``(block, index)`` of the weights reading channel ``i`` of layer ``l``."""
            if l < self.n_layers:
                return f"W{l + 1}", (slice(None), i)
            return "D", (slice(None), slice(i * npos, (i + 1) * npos))

        for l, a in zip(self.activated, self.activations):
            mono = _monomial(a)
            if mono is None:
                continue
            W, b = blocks[f"W{l}"], blocks.get(f"b{l}")
            nxt = blocks[reader(l, 0)[0]]
            if mono[1] == 1:
                pairs = [(i, j) for i in range(c[l]) for j in range(c[l])]
            else:
                pairs = [(i, i) for i in range(c[l])]
            kk = F.scalar(mono[1])
            for i, j in pairs:
                vec = F.zeros(P)
                put(vec, f"W{l}", (i,), W[j])
                if self.bias:
                    put(vec, f"b{l}", (i,), b[j])
                name, idx = reader(l, j)
                src = nxt[reader(l, i)[1]]
                put(vec, name, idx, F.neg(src) if mono[1] == 1 else F.neg(F.mul(src, kk)))
                rows.append(vec)
        if not rows:
            return F.zeros((0, P))
        return np.stack(rows)
