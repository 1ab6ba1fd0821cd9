"""``python -m icml26``: see :mod:`icml26.cli`."""

import sys

from icml26.cli import main

sys.exit(main())
