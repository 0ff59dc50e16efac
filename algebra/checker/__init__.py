"""The independent certificate checker (imports nothing from the rest of :mod:`algebra`).

``python -m algebra.checker FILE...`` prints ``VERIFIED`` or
``NOT VERIFIED: reason`` for each file and exits 0 only when all verify.
The whole checker is the single module :mod:`algebra.checker.kernel`.
"""

from algebra.checker.kernel import Reject, check, check_file, main

__all__ = ["Reject", "check", "check_file", "main"]
