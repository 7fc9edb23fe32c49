"""``python -m polistemics.testing``: the same as ``python -m polistemics.testing.server``."""

import sys

from polistemics.testing.server import main

sys.exit(main())
