"""Graph attention with symmetries (graph-attention paper, seed 004; issue 13).

Modules (import them directly; nothing heavy is imported here):

``groups``      finite groups as permutation groups; Cayley graphs and automorphism
                groups with networkx
``characters``  exact character tables (closed forms, Burnside-Dixon) and their
                orthogonality, verified exactly
``attention``   the learning setup of Section 2: equivariant encoder, visibility,
                pair-orbit biases, orbit-closed design, teacher, population KL (10)
``fisher``      score-space Fisher, rho_score, isotypic projectors, Q and Q_rho
                (Section 3, eqs. 11-20) and Assumption 1 decided
``llc``         teacher-student learning coefficients (Section 4) with the toolkit's
                samplers, beside the exact (44)/(45)
(commands: ``algebra.cli.graph``, ``neuroalgebra graph ...`` and ``neuroalgebra llc graph``)
"""

#: Reference points of ``llc graph`` (:func:`algebra.graph.llc.reference_pair`): the canonical
#: factors (30), a random GL(k) gauge of them, or the paper's open case.  Defined here so the
#: CLI parser does not import networkx.
POINTS = ("canonical", "gauge", "open")

#: Feature laws of the design (:func:`algebra.graph.attention.make_design`): Gaussian, or
#: constant features (a design that fails Assumption 1 on purpose).
FEATURES = ("gaussian", "constant")
