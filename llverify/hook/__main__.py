"""``python -m llverify.hook``: run a program and validate every Triton kernel it compiles.

The package's own module is run (``llverify.hook.main``), so that the program's
``import llverify.hook`` (e.g. for ``record_launch``) sees the recorder this run installed.
"""

import sys

from llverify.hook import main

sys.exit(main())
