"""Certificates: emit (heavy side), catalogue of paper claims, export to Singular/Macaulay2.

The independent checker lives in :mod:`algebra.checker` and imports nothing
from here.  See ``docs/certificate-format.md``.

Entry points for the user's own questions (each writes one certificate
atomically; ``neuroalgebra verify FILE`` re-checks it):

* :func:`certify_model` ``(model, path, *, seed=0, claimed=None, relation="==", quantity="dimension")``
  -- any model object, user polynomial maps included;
* :func:`certify_secant` ``(atom, k, path, *, seed=0, claimed=None, relation="==")`` -- a secant variety;
* :func:`certify_formula` ``(name, args, path)`` -- a closed-form learning coefficient.

A ``claimed`` value is recorded in the file as data (its ``claimed`` member); the checker derives the
verdict on it from the proven bounds, and ``verify`` prints it.
"""

from algebra.certify.emit import certify_formula, certify_model, certify_secant

__all__ = ["certify_model", "certify_secant", "certify_formula"]
