"""What the page must know of the wire exactly as the server does, written once here and
generated into ``web/wire.js``: the protocol's version, the patterns of a room code, a replay
id and a device key, the longest name, the biggest message, and the close codes that end a
connection for good. ``tests/unit/test_wire_page.py`` fails when the file and this module
disagree; ``python -m race.wire.page`` writes it again.

What is a setting rather than a constant (how long a page waits for an answer) travels in
``hello`` instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from race.wire import protocol as p

PATH = Path(__file__).resolve().parents[2] / "web" / "wire.js"


def _pattern(server: str) -> str:
    """A server pattern (``^...\\Z``) as a JavaScript one (``^...$``: no ``\\Z`` there)."""
    assert server.startswith("^") and server.endswith("\\Z"), server
    return server[:-2] + "$"


def constants() -> dict[str, int | str]:
    """Each shared constant by its JavaScript name."""
    return {
        "PROTOCOL_VERSION": p.PROTOCOL_VERSION,
        "MAX_MESSAGE_BYTES": p.MAX_MESSAGE_BYTES,
        "NAME_MAX": p.NAME_MAX,
        "CLOSE_REPLACED": p.CLOSE_REPLACED,
        "CLOSE_REMOVED": p.CLOSE_REMOVED,
        "ROOM_CODE_TEXT": p.ROOM_CODE_TEXT,
        "RECORD_ID_TEXT": p.RECORD_ID_TEXT,
        "DEVICE_KEY": _pattern(p.DEVICE_KEY),
    }


def javascript() -> str:
    """The text of ``web/wire.js``."""
    lines = [
        "// Generated from race/wire/page.py by `python -m race.wire.page`: do not edit.",
        "// The wire's constants as the server has them (a unit test checks this file).",
        "",
    ]
    for name, value in constants().items():
        if name == "DEVICE_KEY":
            lines.append(f"export const {name} = new RegExp({json.dumps(value)});")
        else:
            lines.append(f"export const {name} = {json.dumps(value)};")
    return "\n".join(lines) + "\n"


def main() -> int:
    PATH.write_text(javascript())
    print(f"wrote {PATH.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
