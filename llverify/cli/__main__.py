"""``python -m llverify.cli``."""

import sys

from llverify.cli.main import main

sys.exit(main())
