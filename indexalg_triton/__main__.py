"""``python -m indexalg_triton``: the ``indexalg-triton`` command."""

from indexalg_triton.cli import main

raise SystemExit(main())
