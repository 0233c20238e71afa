"""``python -m indexalg.cli``: the ``indexalg`` command."""

from indexalg.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
