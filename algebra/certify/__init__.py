"""Certificates: the producing side (one module per kind), catalogue of paper claims, export to Singular/Macaulay2.

One module per certificate kind, each sealing and self-checking its files
through the one envelope, :mod:`algebra.certify.envelope` (header, claimed
member, self-check, verdicts, the atomic write): :mod:`~algebra.certify.rank`
(``rank_lower_bound``, ``rank_upper_bound``, ``dimension``, ``defect``),
:mod:`~algebra.certify.formula`, :mod:`~algebra.certify.interval`,
:mod:`~algebra.certify.attention` (``attention_rank``),
:mod:`~algebra.certify.subnetwork` (a ``rank_lower_bound`` about a CNN's
``differential``), :mod:`~algebra.certify.representation`
(``score_representation``) and :mod:`~algebra.certify.local_rank`.  A model is
written in its family's own form (:mod:`algebra.models.registry`).  The
independent checker lives in :mod:`algebra.checker` and imports nothing from
here.  See ``docs/certificate-format.md``.

Entry points for the user's own questions (each writes one certificate
atomically; ``neuroalgebra verify FILE`` re-checks it):

* :func:`certify_model` ``(model, path, *, seed=0, claimed=None, relation="==", quantity="dimension")``
  -- any model object, user polynomial maps included;
* :func:`certify_secant` ``(atom, k, path, *, seed=0, claimed=None, relation="==")`` -- a secant variety;
* :func:`certify_formula` ``(name, args, path)`` -- a closed-form learning coefficient.

A ``claimed`` value is recorded in the file as data (its ``claimed`` member); the checker derives the
verdict on it from the proven bounds, and ``verify`` prints it.
"""

from algebra.certify.questions import certify_formula, certify_model, certify_secant

__all__ = ["certify_model", "certify_secant", "certify_formula"]
