"""Subcommands of ``python -m race``; see :mod:`race.cli`."""
