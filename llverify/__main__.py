"""``python -m llverify``: the ``llverify`` command (:func:`llverify.cli.main`)."""

import sys

from llverify.cli.main import main

sys.exit(main())
