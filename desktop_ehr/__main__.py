"""``python -m desktop_ehr``: see :mod:`desktop_ehr.app`."""

import sys

from desktop_ehr.app import main

sys.exit(main())
