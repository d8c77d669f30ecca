"""The screenshot shrinker (tests/support/png.py): it reads what it is given and writes the same picture."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

from tests.support import png


def encode(rows: list[bytes], filters: list[int], size: int = 3) -> bytes:
    """An RGB (or RGBA) PNG of ``rows``, each row written with its own filter type."""
    raw, above = b"", bytes(len(rows[0]))
    for row, kind in zip(rows, filters, strict=True):
        out = bytearray()
        for x, value in enumerate(row):
            a = row[x - size] if x >= size else 0
            b, c = above[x], above[x - size] if x >= size else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            paeth = a if pa <= pb and pa <= pc else b if pb <= pc else c
            out.append((value - [0, a, b, (a + b) // 2, paeth][kind]) & 255)
        raw += bytes([kind]) + bytes(out)
        above = row
    header = struct.pack(">IIBBBBB", len(rows[0]) // size, len(rows), 8, 2 if size == 3 else 6, 0, 0, 0)
    return png.SIGNATURE + png.chunk(b"IHDR", header) + png.chunk(b"IDAT", zlib.compress(raw)) + png.chunk(b"IEND", b"")


def picture(colours: int, width: int = 24, height: int = 10) -> list[bytes]:
    """Rows of RGB pixels using ``colours`` different colours."""
    shades = [bytes([(37 * i) % 256, (91 * i) % 256, (13 * i + 50) % 256]) for i in range(colours)]
    return [b"".join(shades[(x * 7 + y * 3) % colours] for x in range(width)) for y in range(height)]


def decode_palette(data: bytes) -> list[bytes]:
    pos, colours, raw, width = 8, b"", b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0] == zlib.crc32(tag + body)
        pos += 12 + length
        if tag == b"IHDR":
            width, _, depth, kind = struct.unpack(">IIBB", body[:10])
            assert (depth, kind) == (8, 3)
        elif tag == b"PLTE":
            colours = body
        elif tag == b"IDAT":
            raw += body
    lines, stride = zlib.decompress(raw), width + 1
    return [
        b"".join(colours[3 * i : 3 * i + 3] for i in lines[at + 1 : at + stride])
        for at in range(0, len(lines), stride)
        if lines[at] == 0
    ]


def test_every_filter_type_is_read_back() -> None:
    rows = picture(40)
    assert png.read_rgb(encode(rows, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0])) == (24, 10, rows)


def test_alpha_is_dropped() -> None:
    rows = picture(5, width=4, height=2)
    rgba = [b"".join(row[x : x + 3] + b"\x80" for x in range(0, len(row), 3)) for row in rows]
    assert png.read_rgb(encode(rgba, [4, 2], size=4)) == (4, 2, rows)


def test_a_picture_of_few_colours_comes_out_the_same() -> None:
    rows = picture(30)
    assert decode_palette(png.small(encode(rows, [4] * 10))) == rows


def test_many_colours_are_cut_to_256_near_ones() -> None:
    rows = [b"".join(bytes([x * 4, y * 4, (x + y) * 2]) for x in range(64)) for y in range(64)]  # 4096 colours
    counts: Counter[bytes] = Counter(rows[y][x : x + 3] for y in range(64) for x in range(0, 192, 3))
    assert len(png.palette(counts)) == 256
    out = decode_palette(png.small(encode(rows, [1] * 64)))
    worst = max(abs(a - b) for got, want in zip(out, rows, strict=True) for a, b in zip(got, want, strict=True))
    assert worst <= 24, worst
