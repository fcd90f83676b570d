"""``python -m llm_errors``: the ``llm-errors`` command line."""

from llm_errors.logs._cli import main

raise SystemExit(main())
