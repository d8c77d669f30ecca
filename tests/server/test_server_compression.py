"""``WS_COMPRESSION``: whether the server accepts permessage-deflate, over real websockets to
real servers (the client offers it, as browsers do)."""

from __future__ import annotations

import pytest
from websockets.extensions.permessage_deflate import PerMessageDeflate

from race.settings import Settings
from tests.support.processes import Client, Server


@pytest.mark.parametrize(("setting", "deflate"), [(None, True), ("deflate", True), ("none", False)])
async def test_permessage_deflate_follows_the_setting(setting: str | None, deflate: bool) -> None:
    server = Server() if setting is None else Server(WS_COMPRESSION=setting)
    try:
        client = await Client.connect(server.ws_url, compression="deflate")
        extensions = client.ws.protocol.extensions
        assert any(isinstance(e, PerMessageDeflate) for e in extensions) is deflate, extensions
        assert (await client.request({"type": "ping"}, "pong"))["type"] == "pong"
        await client.close()
    finally:
        server.stop()


def test_the_setting_takes_only_known_values() -> None:
    assert Settings.from_env({}).ws_compression == "deflate"
    assert Settings.from_env({"WS_COMPRESSION": " None "}).ws_compression == "none"
    with pytest.raises(ValueError, match="WS_COMPRESSION"):
        Settings.from_env({"WS_COMPRESSION": "gzip"})
