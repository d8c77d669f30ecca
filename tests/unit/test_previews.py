"""tests/data/previews.json, against which the page's ``preview`` is checked (by node), is what
the engine gives now."""

from __future__ import annotations

from tests.support import previews


def test_the_preview_vectors_are_the_engines() -> None:
    assert previews.PATH.read_text() == previews.text(previews.vectors()), (
        "the engine's boards changed: run `python -m tests.support.previews`"
    )
