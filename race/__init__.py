"""Crescent Race: race friends at Crescent solitaire on one seeded deal."""

from race import native

__version__ = "0.1.0"
#: "compiled" (mypyc) or "pure": the build of the engine and the solver this process runs.
BUILD = native.choose()
