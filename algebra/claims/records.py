"""The record types of paper claims: one :class:`Claim` base, one subclass per kind of statement.

Every claim says *what* a paper states (``statement``), *where*
(``paper``, ``location``) and about which object; none stores a computed
value.  The kinds differ only in the object and the stated value:

=============================  ==================================  ===========================
kind                           object                              stated
=============================  ==================================  ===========================
:class:`DimensionClaim`        a parametrization map (``model``)   ``dim`` (``==``, ``>=``, ``<=``)
:class:`LambdaClaim`           a model regular in its coordinates  ``lambda`` or a range
:class:`FormulaClaim`          a closed form of :mod:`algebra.slt.formulas`  its ``lambda``, ``m``
:class:`RepresentationClaim`   a graph-attention design            Lemma 1, (13)-(15)
:class:`AttentionRankClaim`    ``softmax_rows(beta Q K^T)``         ``r_eps``
:class:`SubnetworkClaim`       a CNN and a point of a subnetwork   ``rank d phi > dim F'``
:class:`BasinClaim`            a grokking run's checkpoints        lambda drops when it groks
:class:`EstimatePremiseClaim`  a grokking run's checkpoints        an estimate's premise holds
:class:`DataDimensionClaim`    the grokking network on its data    ``dim`` of the data map
=============================  ==================================  ===========================

A claim's hypotheses (:class:`Hypothesis`) are decided, never assumed: by
arithmetic or by a certified dimension.  How each kind is judged lives in
:mod:`algebra.certify.catalogue`.

Examples
--------
>>> from algebra.models import QueryKey
>>> c = DimensionClaim("graph-thm1-rank-d3-k2", "symmetries-singularities-graph-attention-llc", "Theorem 1",
...                    "rank 2dk - k^2", QueryKey(3, 2), 8, group="query-key")
>>> isinstance(c, Claim), c.relation, c.source["location"], c.notes
(True, '==', 'Theorem 1', {})
>>> c.claimed = 9
Traceback (most recent call last):
...
dataclasses.FrozenInstanceError: cannot assign to field 'claimed'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.models.base import Model
from algebra.models.cnn import CNN

__all__ = ["Claim", "Hypothesis", "DimensionClaim", "LambdaClaim", "FormulaClaim", "RepresentationClaim",
           "AttentionRankClaim", "SubnetworkClaim", "BasinClaim", "EstimatePremiseClaim", "DataDimensionClaim"]


@dataclass(frozen=True)
class Claim:
    """What every paper claim has: where it is stated, in words, and how the index groups it.

    Parameters
    ----------
    id : str
        Stable identifier, used as the certificate file name (``[a-z0-9_-]+``).
    paper : str
        The paper's key (:data:`algebra.claims.PAPERS`, the file stem in ``../shared/papers/``).
    location : str
        Section/equation/theorem, e.g. ``"Appendix B.10"``, ``"Corollary 4.2"``.
    statement : str
        The claim in words (informational: the certificate proves its own rendering).
    group : str
        Catalogue section (keyword only; each kind has its default).
    notes : dict
        Informational facts for the index (how the claim was found, how to reproduce it; keyword only).
    """

    id: str
    paper: str
    location: str
    statement: str
    group: str = field(default="claim", kw_only=True)
    notes: dict = field(default_factory=dict, kw_only=True)

    @property
    def source(self) -> dict:
        """``{"id", "paper", "location", "statement"}``: what a certificate records of where it comes from."""
        return {"id": self.id, "paper": self.paper, "location": self.location, "statement": self.statement}


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a claim: either decided by arithmetic (``holds``) or by a certified dimension
    (``nondefective``: the model must reach its expected count ``min(ambient, P - symmetries)``;
    ``injective``: the model -- a linear map -- must have Jacobian rank equal to its parameter count)."""

    text: str
    holds: bool | None = None
    nondefective: Model | None = None
    injective: Model | None = None


@dataclass(frozen=True)
class DimensionClaim(Claim):
    """The neuromanifold of ``model`` has dimension ``claimed`` (or at least / at most).

    Parameters
    ----------
    model : Model
        The parametrization map the claim is about.
    claimed : int
        The dimension the paper states (or implies).
    relation : str
        ``"=="`` (default), ``">="`` or ``"<="``.
    assumes_nondefective : bool
        The paper states ``claimed`` only for non-defective architectures: a
        certified defect then makes the verdict ``hypothesis fails``.
    """

    model: Model
    claimed: int
    relation: str = "=="
    group: str = field(default="dimension", kw_only=True)
    assumes_nondefective: bool = False


@dataclass(frozen=True)
class LambdaClaim(Claim):
    """A learning coefficient a paper states for a model regular in its identifiable coordinates.

    ``stated`` is ``{"lambda": Fraction, "where": str}`` or ``{"lower": .., "upper": .., "where": ..}``;
    the true value is ``rank / 2`` of the certified Jacobian rank of ``model``
    (:func:`algebra.certify.formula.rlct_certificate`).  ``hypotheses``
    (:class:`Hypothesis`) are decided before the value.
    """

    model: Model
    stated: dict
    hypotheses: tuple = ()
    group: str = field(default="lambda", kw_only=True)


@dataclass(frozen=True)
class FormulaClaim(Claim):
    """A closed-form learning coefficient stated by a paper (checked by re-evaluation).

    ``formula`` names a function of :mod:`algebra.slt.formulas`, ``args`` its
    arguments.  ``hypotheses`` (:class:`Hypothesis`) are decided before the
    value: a false one makes the verdict ``hypothesis fails``.
    """

    formula: str
    args: tuple
    group: str = field(default="formula", kw_only=True)
    hypotheses: tuple = ()


@dataclass(frozen=True)
class RepresentationClaim(Claim):
    """Lemma 1 and (13)-(15) on a design of :data:`~algebra.claims.graph_attention.GRAPH_DESIGNS`.

    Certified as a ``score_representation`` certificate: the checker derives the
    group, ``rho_score``, the commutation (14) for every teacher and the projectors
    (15) with their ranks from the design's exact data; the verdict is the derived
    claim's (:func:`algebra.certify.representation.representation_certificate`).
    """

    graph: str
    d: int
    k: int
    r: int
    options: dict = field(default_factory=dict)
    group: str = field(default="graph-assumption1", kw_only=True)


@dataclass(frozen=True)
class AttentionRankClaim(Claim):
    """A stated approximation rank ``r_eps RELATION claimed`` of ``softmax_rows(beta Q K^T)``.

    Certified as an ``attention_rank`` certificate (Q, K, beta exact; the
    checker rebuilds the matrix in ball arithmetic and derives both bounds).
    """

    Q: tuple
    K: tuple
    beta: float
    eps: float
    claimed: int
    relation: str = "=="
    group: str = field(default="attention-rank", kw_only=True)


@dataclass(frozen=True)
class SubnetworkClaim(Claim):
    """Appendix C for one CNN subnetwork: ``rank d phi > dim F'`` at a point of ``F'`` (no proximity bias).

    ``model`` is the full CNN, ``inactive`` the subnetwork's channels, ``theta``
    the point of ``F'`` (their outgoing weights zero).  Certified natively by
    :func:`algebra.certify.subnetwork.subnetwork_certificate`; judged by
    :func:`algebra.certify.subnetwork.judge_subnetwork`.
    """

    model: CNN
    inactive: dict
    theta: tuple
    group: str = field(default="cnn", kw_only=True)


@dataclass(frozen=True)
class BasinClaim(Claim):
    """Grokking as basin selection: the generalising basin has a lower local learning coefficient than the
    memorising basin the run leaves (the grokking paper's thesis).

    ``checkpoints`` is a committed file of :mod:`algebra.grokking.checkpoints` (the run's configuration,
    its last memorising and first generalising checkpoints, written by ``neuroalgebra grok basin``) and
    ``sha256`` the file's, checked on every read: training is not bit-reproducible across CPUs, so the
    claim is about these exact weights, never a re-trained run.  Both checkpoints are certified as
    ``local_rank`` certificates and compared where Theorem F.1 gives their lambda
    (:func:`algebra.certify.local_rank.judge_basin`).
    """

    checkpoints: str
    sha256: str
    group: str = field(default="basin", kw_only=True)


@dataclass(frozen=True)
class EstimatePremiseClaim(Claim):
    """A sampled LLC estimate a paper reports at a run's checkpoints, whose estimator fixes its point as a local
    minimiser of ``L_n`` (``premise``, e.g. the grokking paper's Appendix B.1, "Fix a local minimizer").

    ``checkpoints`` and ``sha256`` are as in :class:`BasinClaim`.  The sampled numbers are not certified; the
    premise is decided at each committed checkpoint from its ``local_rank`` certificate: the checker's exact
    ``grad L_n != 0`` proves the point is no local minimiser, and the verdict is then ``hypothesis fails``
    (:func:`algebra.certify.local_rank.judge_estimate_premise`).
    """

    checkpoints: str
    sha256: str
    premise: str
    group: str = field(default="basin", kw_only=True)


@dataclass(frozen=True)
class DataDimensionClaim(Claim):
    """A dimension a paper states for the modular-addition network on its training data, at a size the dense
    routes cannot reach (the paper's experiment).

    The object is the data map ``theta -> Y_hat P_perp`` of the network of width ``width`` mod ``p`` on the
    training pairs of :func:`algebra.grokking.task.modular_addition` ``(p, train_fraction, split_seed)``;
    ``claimed`` (with ``relation``) is the paper's value of its dimension (twice its lambda, Theorem F.1).
    Certified as a ``block_rank`` certificate (:func:`algebra.certify.block_rank.judge_data_dimension`);
    ``hypotheses`` (:class:`Hypothesis`, decided by arithmetic) are decided before the value.
    """

    p: int
    width: int
    train_fraction: float
    split_seed: int
    claimed: int
    relation: str = "=="
    hypotheses: tuple = ()
    group: str = field(default="lambda", kw_only=True)
