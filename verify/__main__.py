"""``python -m verify`` is the ``dpverify`` command."""

from .cli import main

raise SystemExit(main())
