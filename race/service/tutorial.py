"""Starting a tutorial: a one-seat room of kind ``tutorial`` at :mod:`race.rooms.tutorial`'s
position, begun at once (its clock starts at the first move, like a daily attempt's),
never listed and never put on the record. It is played like any room; the lessons narrow
what it offers (see :func:`race.rooms.views.state_view`)."""

from __future__ import annotations

from typing import Any

from race.rooms import tutorial
from race.rooms.model import Kind, Meta, Status, device_id, new_token
from race.service.base import log
from race.service.entry import EntryActions
from race.service.session import Session
from race.wire import protocol as p


class TutorialActions(EntryActions):
    async def tutorial(self, session: Session, msg: p.Tutorial) -> list[dict[str, Any]]:
        session.not_seated()
        name = p.clean_name(msg.name)
        await self.admit_new_room(session)
        now = self.clock()

        def meta_for(code: str) -> Meta:
            return Meta(
                code=code,
                difficulty=tutorial.DIFFICULTY,
                deal=tutorial.SEED,
                host="s1",
                created=now,
                listed=False,
                status=Status.STARTED,
                seats=["s1"],
                kind=Kind.TUTORIAL,
            )

        token = new_token()
        meta, docs = await self.open_room(
            session, meta_for, name, token, device=device_id(msg.device), game=tutorial.start()
        )
        log.info("room %s: a tutorial", meta.code)
        return [self.joined(docs, "s1", token)]
