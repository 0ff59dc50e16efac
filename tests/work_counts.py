"""Work, counted the same on every machine and under any load: what a test asserts instead of seconds.

A test that says "refused before it is built" or "decided within its budget" measures the work done
(Python lines executed here; bytes with ``tracemalloc``; steps with the checker's own ``charge``), never
wall-clock time, which a loaded or slower machine inflates.  Timings live in ``benchmarks/``.
"""

from __future__ import annotations

import sys


def lines_run(f) -> int:
    """The number of Python lines ``f()`` executes (``sys.settrace`` line events, in every frame it enters).

    Work in C (numpy, flint) is not counted: pair it with ``tracemalloc`` where such work allocates.

    Examples
    --------
    >>> def loop(n):
    ...     for _ in range(n):
    ...         pass
    >>> lines_run(lambda: loop(1000)) - lines_run(lambda: loop(0))
    2000
    """
    count = 0

    def line(frame, event, arg):
        nonlocal count
        count += event == "line"
        return line

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: line)
    try:
        f()
    finally:
        sys.settrace(previous)
    return count
