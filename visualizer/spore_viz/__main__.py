"""`python -m spore_viz ...` is the `spore-viz` command."""

import sys

from .cli import main

sys.exit(main())
