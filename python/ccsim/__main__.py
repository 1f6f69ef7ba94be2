"""``python -m ccsim`` is the ``ccsim`` command."""

from ccsim.cli import main

raise SystemExit(main())
