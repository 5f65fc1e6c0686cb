"""``python -m episodes.cli``."""

import sys

from episodes.cli import main

sys.exit(main())
