"""The independent certificate checker (imports nothing from the rest of :mod:`algebra`).

``python -m algebra.checker PATH...`` prints ``VERIFIED`` or ``NOT VERIFIED: reason`` for each file and exits 0
only when all verify.  What a referee must trust for one file is the core and that file's kind's plug-in
(docs/certificate-format.md, "What to trust", gives the files and their line counts):

* :mod:`algebra.checker.core`: reading the file (limits, strict JSON), the seal, canonical readers, the exact
  arithmetic (primes, elimination, det and rank modulo a prime), the budget, the kind registry and the verdict;
* one plug-in per kind, importing the core (and, where it builds on another, that one): :mod:`~.rank` with
  :mod:`~.model` (rank lower/upper bound, dimension, defect; :mod:`~.cnn` adds the CNN and differential
  families), :mod:`~.formula` (formula; ``regular_model`` builds on :mod:`~.rank`), :mod:`~.attention`
  (interval_inequality, attention_rank: ball arithmetic), :mod:`~.representation` (score_representation),
  :mod:`~.local_rank` (local_rank), :mod:`~.block_rank` (block_rank);
* :mod:`~.files` and :mod:`~.index`: which files a directory holds and whether its ``index.json`` says what they
  prove (never a single file's claim).

Each plug-in registers its kinds in the core's registry when this package imports it; the core imports none of
them.  The rest of :mod:`algebra` imports only the names of :data:`__all__` (``tests/test_layers.py``): the
verdict entry points, :func:`derive_claim` (the claim a producer writes is the checker's derivation), the
model counts a producer chooses witnesses by, the ball evaluator, and the limits and citations producers must
respect.
"""

# the plug-ins register their kinds (and cnn its model families) in the core when imported
from algebra.checker import attention, block_rank, cnn, formula, local_rank, rank, representation  # noqa: F401
from algebra.checker.attention import MAX_ENTRIES as ATTENTION_MAX_ENTRIES
from algebra.checker.attention import MAX_PRODUCT as ATTENTION_MAX_PRODUCT
from algebra.checker.attention import MAX_SIDE as ATTENTION_MAX_SIDE
from algebra.checker.attention import evaluate_program
from algebra.checker.core import (MAX_FILE_BYTES, Reject, check, check_file, check_file_verdict, check_verdict,
                                  derive_claim)
from algebra.checker.files import certificate_files, exit_status, main, render_row, scan, verify_paths
from algebra.checker.formula import CITATION, FORMULA_SOURCES
from algebra.checker.model import Model as _Model
from algebra.checker.model import expected_count as _expected_count


def ambient_count(spec: dict) -> tuple:
    """``(count, status)`` of the model ``spec`` as the checker counts it (``status``: ``"exact"``, ``"above P"``
    or ``"unknown"``; :meth:`algebra.checker.model.Model.ambient_count`); :class:`Reject` for a bad spec.

    Examples
    --------
    >>> ambient_count({"family": "qk", "d": 3, "k": 2})
    (9, 'exact')
    """
    return _Model(spec).ambient_count()


def expected_count(spec: dict) -> int:
    """The expected dimension ``min(ambient, P - symmetries)`` the checker measures a ``defect`` against
    (:func:`algebra.checker.model.expected_count`); :class:`Reject` when it derives none.

    Examples
    --------
    >>> expected_count({"family": "qk", "d": 3, "k": 2})
    8
    """
    return _expected_count(_Model(spec))


__all__ = ["Reject", "check", "check_verdict", "check_file", "check_file_verdict", "derive_claim", "main",
           "verify_paths", "scan", "certificate_files", "exit_status", "render_row", "evaluate_program",
           "ambient_count", "expected_count", "MAX_FILE_BYTES", "ATTENTION_MAX_ENTRIES", "ATTENTION_MAX_PRODUCT",
           "ATTENTION_MAX_SIDE", "FORMULA_SOURCES", "CITATION"]
