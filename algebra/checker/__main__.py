"""``python -m algebra.checker FILE...``."""

import sys

from algebra.checker.files import main

sys.exit(main())
