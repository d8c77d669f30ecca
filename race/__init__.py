"""Crescent Race: race friends at Crescent solitaire on one seeded deal."""

__version__ = "0.1.0"
