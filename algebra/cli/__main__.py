"""``python -m algebra.cli`` is the same as the ``neuroalgebra`` command."""

import sys

from algebra.cli import main

sys.exit(main())
