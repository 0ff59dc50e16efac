"""The independent certificate checker (imports nothing from the rest of :mod:`algebra`).

``python -m algebra.checker PATH...`` prints ``VERIFIED`` or
``NOT VERIFIED: reason`` for each file and exits 0 only when all verify.
The checker is :mod:`algebra.checker.kernel` (every kind, the claims),
:mod:`algebra.checker.attention` (its one ball-arithmetic evaluator) and
:mod:`algebra.checker.files` (which files a directory holds, its index).
"""

from algebra.checker.files import check_file, main
from algebra.checker.kernel import Reject, check

__all__ = ["Reject", "check", "check_file", "main"]
