"""``python -m llm_errors``: the ``llm-errors`` command line."""

from llm_errors._cli import main

raise SystemExit(main())
