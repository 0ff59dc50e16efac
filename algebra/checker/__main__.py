"""``python -m algebra.checker FILE...``."""

import sys

from algebra.checker.kernel import main

sys.exit(main())
