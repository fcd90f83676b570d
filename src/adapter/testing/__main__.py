"""``python -m adapter.testing serve …``: a fake Mistral server in its own process."""

import sys

from adapter.testing._process import main

sys.exit(main())
