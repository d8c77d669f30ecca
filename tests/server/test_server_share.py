"""The address friends on the same network open: ``serve`` prints it once it listens, and
sends it to pages in ``hello`` as ``share_origin``; a page and a websocket at that address
work like the local ones."""

from __future__ import annotations

import ipaddress
import urllib.request

import pytest

from race.commands.serve import greeting, lan_addresses, share_origins
from race.settings import Settings
from tests.support.processes import Client, Server


def test_the_addresses_friends_can_open_are_not_this_computer_s_own() -> None:
    for address in lan_addresses():
        ip = ipaddress.IPv4Address(address)
        assert not (ip.is_loopback or ip.is_link_local or ip.is_unspecified), address


def test_share_origins_follow_the_address_the_server_listens_on() -> None:
    def lan() -> list[str]:
        return ["192.168.1.20", "10.0.0.5"]

    assert share_origins("0.0.0.0", 8000, lan) == ["http://192.168.1.20:8000", "http://10.0.0.5:8000"]
    assert share_origins("::", 8000, lan) == ["http://192.168.1.20:8000", "http://10.0.0.5:8000"]
    assert share_origins("127.0.0.1", 8000, lan) == []
    assert share_origins("localhost", 8000, lan) == []
    assert share_origins("::1", 8000, lan) == []
    assert share_origins("192.168.1.20", 8001, lan) == ["http://192.168.1.20:8001"]
    assert share_origins("fd00::2", 8001, lan) == ["http://[fd00::2]:8001"]
    assert share_origins("0.0.0.0", 0, lan) == []  # the port is not known yet


def test_the_lines_printed_say_where_to_open_it_and_how_to_let_friends_in() -> None:
    assert greeting("127.0.0.1", 8000, [], None) == [
        "Crescent Race is up: open http://127.0.0.1:8000 in your browser.",
        "Only this computer can reach it. To race friends on your network: .ci/serve --host 0.0.0.0",
    ]
    both = ["http://192.168.1.20:8000", "http://10.0.0.5:8000"]
    assert greeting("0.0.0.0", 8000, both, None)[1] == (
        "Friends on your network open http://192.168.1.20:8000 (or http://10.0.0.5:8000)."
    )
    assert "port 8000" in greeting("0.0.0.0", 8000, [], None)[1]
    configured = greeting("0.0.0.0", 8000, both, "https://race.example")
    assert configured[1] == "Friends open https://race.example (SHARE_ORIGIN)."


def test_share_origin_is_a_setting_that_must_be_an_origin() -> None:
    assert Settings.from_env({"SHARE_ORIGIN": "http://laptop.local:8000/"}).share_origin == "http://laptop.local:8000"
    assert Settings.from_env({}).share_origin is None
    for bad in ["laptop.local:8000", "ftp://laptop.local", "http://laptop.local/r/ABC", "http://"]:
        with pytest.raises(ValueError, match="SHARE_ORIGIN must be an origin"):
            Settings.from_env({"SHARE_ORIGIN": bad})


async def test_on_all_interfaces_friends_get_an_address_that_works() -> None:
    server = Server(HOST="0.0.0.0", SHARE_ORIGIN="")
    try:
        up = server.process.wait_for("Crescent Race is up")
        assert f"open http://127.0.0.1:{server.port} in your browser" in up
        here = await Client.connect(server.ws_url, origin=f"http://127.0.0.1:{server.port}")
        share = here.hello["share_origin"]
        addresses = lan_addresses()
        if not addresses:  # a machine on no network: nothing to offer, and it says so
            assert share is None
            server.process.wait_for("No network address of this computer was found")
            await here.close()
            return
        assert share == f"http://{addresses[0]}:{server.port}"
        assert share in server.process.wait_for("Friends on your network open")

        # A friend's device opens the page at that address, and its page's websocket (with the
        # Origin a browser sends there) joins the room made by the page opened at 127.0.0.1.
        with urllib.request.urlopen(share + "/", timeout=10) as r:
            assert r.status == 200 and b"<html" in r.read()
        created = await here.request({"type": "create", "name": "Ann"}, "joined")
        friend = await Client.connect("ws" + share.removeprefix("http") + "/ws", origin=share)
        assert friend.hello["share_origin"] == share
        joined = await friend.request({"type": "join", "room": created["room"]["code"], "name": "Bob"}, "joined")
        assert [p["name"] for p in joined["room"]["players"]] == ["Ann", "Bob"]
        news = await here.expect("room", where=lambda m: len(m["room"]["players"]) == 2)
        assert news["room"]["players"][1]["name"] == "Bob"
        await friend.close()
        await here.close()
    finally:
        server.stop()


async def test_on_this_computer_only_there_is_no_share_origin_and_it_says_how_to_open_up() -> None:
    server = Server(HOST="127.0.0.1", SHARE_ORIGIN="")
    try:
        server.process.wait_for("Crescent Race is up")
        hint = server.process.wait_for("Only this computer can reach it")
        assert "--host 0.0.0.0" in hint
        client = await Client.connect(server.ws_url)
        assert client.hello["share_origin"] is None
        await client.close()
    finally:
        server.stop()


async def test_a_share_origin_set_by_hand_is_what_pages_get() -> None:
    server = Server(HOST="127.0.0.1", SHARE_ORIGIN="https://race.example")
    try:
        assert "Friends open https://race.example" in server.process.wait_for("Friends open")
        client = await Client.connect(server.ws_url)
        assert client.hello["share_origin"] == "https://race.example"
        await client.close()
    finally:
        server.stop()
