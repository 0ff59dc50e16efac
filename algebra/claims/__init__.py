"""The papers' checkable claims, as data: what each paper says, where, about which model.

Composition on top of the library packages (issue 21): nothing here computes a
verdict or stores a computed value.  :mod:`algebra.certify.catalogue` turns each
claim into a certificate and a verdict, and writes the index.

===================================  ==========================================================
:mod:`~algebra.claims.records`       the :class:`~algebra.claims.records.Claim` base and its
                                     kinds (dimension, learning coefficient, closed form,
                                     representation, attention rank, CNN subnetwork)
:mod:`~algebra.claims.proximity`     proximity-bias paper (MLP, lightning attention, CNN)
:mod:`~algebra.claims.grokking`      grokking paper (quadratic networks, modular addition)
:mod:`~algebra.claims.graph_attention`  graph-attention paper (query-key map, designs)
:mod:`~algebra.claims.softmax_attention`  softmax-attention approximation-rank paper
:mod:`~algebra.claims.alexander_hirschowitz`  the defective Veronese secants (a theorem)
:mod:`~algebra.claims.catalogue`     :func:`~algebra.claims.catalogue.claims`: all of them, in order
:mod:`~algebra.claims.llc_suites`    the LLC suites' model lists and their builders
===================================  ==========================================================

The papers' keys (the file stems in ``../shared/papers/``) are declared here
once; every claim's ``paper`` is one of them.

Examples
--------
>>> PAPERS[0], SOFTMAX in PAPERS, AH in PAPERS
('proximity-bias-submodels', True, False)
"""

from __future__ import annotations

__all__ = ["PROXIMITY", "GROKKING", "GRAPH", "SOFTMAX", "AH", "PAPERS"]

PROXIMITY = "proximity-bias-submodels"
GROKKING = "grokking-basin-selection-llc"
GRAPH = "symmetries-singularities-graph-attention-llc"
SOFTMAX = "softmax-attention-approximation-rank"
#: Alexander & Hirschowitz (J. Algebraic Geom. 4, 1995): a theorem the secant claims cite, not one of the papers.
AH = "alexander-hirschowitz"
#: The papers, in the order the index lists them (claims citing anything else follow, sorted).
PAPERS = (PROXIMITY, GROKKING, GRAPH, SOFTMAX)
