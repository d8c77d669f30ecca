"""Hostile addresses and frames from outside, over a real server: an API path that decodes
into another file's, and a text frame that is not UTF-8."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
import websockets

from tests.support.processes import Client, Server


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.stop()


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.headers["content-type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["content-type"], e.read()


@pytest.mark.parametrize(
    "path",
    [
        "/api/rooms/..%2f..%2f",
        "/api/..%2f",
        "/api/rooms/%2e%2e%2f%2e%2e%2fapp.js",
        "/api/%2e%2e/app.js",
        "/api/%2E%2E%2Findex.html",
        "/api/rooms/K7M2%2fapp.js",
        "/api/daily/%2e/",
    ],
)
def test_api_paths_with_encoded_slashes_or_dot_segments_get_json_errors(server: Server, path: str) -> None:
    status, kind, body = get(server.url + path)
    assert status in (400, 404), (status, body[:80])
    assert kind == "application/json"
    assert "error" in json.loads(body)


def test_other_unknown_api_paths_still_get_json_404(server: Server) -> None:
    status, kind, body = get(server.url + "/api/nope/deeper")
    assert (status, kind, json.loads(body)) == (404, "application/json", {"error": "Not Found"})


async def test_a_text_frame_that_is_not_utf8_logs_one_line_and_no_traceback(server: Server) -> None:
    mark = len(server.process.lines)
    async with websockets.connect(server.ws_url) as ws:
        await ws.recv()  # hello
        await ws.send(b'{"type":"ping"}\xff', text=True)
        with pytest.raises(websockets.ConnectionClosed) as info:
            await ws.recv()
    assert info.value.rcvd is not None and info.value.rcvd.code == 1007
    # The server goes on serving.
    client = await Client.connect(server.ws_url)
    assert (await client.request({"type": "ping"}, "pong"))["type"] == "pong"
    await client.close()
    server.process.wait_for("UTF-8", start=mark)
    lines = server.process.lines[mark:]
    told = [line for line in lines if "UTF-8" in line]
    assert len(told) == 1 and told[0].startswith("WARNING"), lines
    assert not any("Traceback" in line or line.startswith("ERROR") for line in lines), lines
