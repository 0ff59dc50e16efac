"""The independent certificate checker (imports nothing from the rest of :mod:`algebra`).

``python -m algebra.checker FILE...`` prints ``VERIFIED`` or
``NOT VERIFIED: reason`` for each file and exits 0 only when all verify.
The checker is :mod:`algebra.checker.kernel` (every kind, the claims) and
:mod:`algebra.checker.attention` (its one ball-arithmetic evaluator).
"""

from algebra.checker.kernel import Reject, check, check_file, main

__all__ = ["Reject", "check", "check_file", "main"]
