"""``python -m kindling`` runs the command line."""

import sys

from kindling.cli import main

sys.exit(main())
