"""The independent certificate checker (imports nothing from the rest of :mod:`algebra`).

``python -m algebra.checker PATH...`` prints ``VERIFIED`` or
``NOT VERIFIED: reason`` for each file and exits 0 only when all verify.
The checker is :mod:`algebra.checker.kernel` (readers, arithmetic, the rank
and formula kinds, the claims and the dispatch tables),
:mod:`algebra.checker.cnn` (CNN and differential families),
:mod:`algebra.checker.attention` (its one ball-arithmetic evaluator: interval
and attention-rank kinds), :mod:`algebra.checker.representation`
(``score_representation``), :mod:`algebra.checker.local_rank`
(``local_rank``: the grokking network's rank at a trained point), :mod:`algebra.checker.files` (which files a
directory holds) and :mod:`algebra.checker.index` (its ``index.json``: typed, each row re-derived).  Each kind and family module imports the kernel
and registers itself in its tables here, when the package loads; the kernel
imports none of them back.
"""

from algebra.checker import attention, cnn, local_rank, representation  # noqa: F401 - they register their kinds and families
from algebra.checker.files import check_file, main
from algebra.checker.kernel import Reject, check, check_verdict

__all__ = ["Reject", "check", "check_verdict", "check_file", "main"]
