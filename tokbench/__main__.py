"""``python -m tokbench``: the command line."""

import sys

from tokbench.cli import main

sys.exit(main())
