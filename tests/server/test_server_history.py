"""A player's own games by their device key: each race they played, their place and the
rivals they beat or trailed, their best finish; the key is never shown to anyone."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

import httpx
import pytest

from race.rooms.model import device_id
from tests.support.processes import Server
from tests.support.races import ann_wins_bob_resigns


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[Server]:
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(url, COUNTDOWN_SECONDS="0.2", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


async def test_a_players_games_are_listed_by_their_device_key_alone(served: Server) -> None:
    ann_key, bob_key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    raced = await ann_wins_bob_resigns(served, ann={"device": ann_key}, bob={"device": bob_key})
    ann, bob, line, state, code = raced.ann, raced.bob, raced.line, raced.won, raced.code
    created, joined, over = raced.created, raced.joined, raced.over

    async with httpx.AsyncClient(base_url=served.url) as http:
        mine = (await http.get("/api/me", headers={"X-Device-Key": ann_key})).json()
        (game,) = mine["games"]
        assert (game["name"], game["room"], game["place"], game["field"], game["kind"]) == ("Ann", code, 1, 2, "race")
        assert (game["deal"], game["difficulty"], game["kept_back"]) == (line["deal"], line["difficulty"], False)
        assert game["result"]["finished_ms"] == state["finished_ms"]
        assert mine["best"] == {
            line["difficulty"]: {
                "id": game["id"],
                "finished_ms": state["finished_ms"],
                "moves": len(line["moves"]),
                "date": game["date"],
                "hints": 0,
            }
        }
        assert mine["rivals"] == [{"name": "Bob", "wins": 1, "losses": 0}]
        theirs = (await http.get("/api/me", headers={"X-Device-Key": bob_key})).json()
        assert [(g["name"], g["place"]) for g in theirs["games"]] == [("Bob", 2)] and theirs["best"] == {}
        assert theirs["rivals"] == [{"name": "Ann", "wins": 0, "losses": 1}]
        nobody = (await http.get("/api/me", headers={"X-Device-Key": secrets.token_urlsafe(24)})).json()
        unrated = {"rating": 1500, "provisional": True, "races": 0, "history": []}
        assert nobody == {"games": [], "best": {}, "rivals": [], "rating": unrated, "series": []}
        for bad in ({}, {"X-Device-Key": "short"}, {"X-Device-Key": "x" * 65}):
            refused = await http.get("/api/me", headers=bad)
            assert refused.status_code == 400 and "X-Device-Key" in refused.json()["error"]
        replay = (await http.get(f"/api/replays/{game['id']}")).text
        qr = await http.get("/api/me/qr.svg", headers={"X-Device-Key": ann_key})
        assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
        assert f"/me#key={ann_key}" in qr.text  # (its title: the link it holds)
        assert (await http.get("/api/me/qr.svg")).status_code == 400

    # The key, and what the server keeps of it, reach no one.
    seen = json.dumps([created, joined, over, replay, mine])
    for secret in (ann_key, bob_key, device_id(ann_key), device_id(bob_key)):
        assert secret not in seen
    bad = await ann.request({"type": "create", "name": "Cy", "device": "not a key"}, "joined")
    assert (bad["type"], bad["code"]) == ("error", "bad_message") and "device key" in bad["message"]
    for c in (ann, bob):
        await c.close()
