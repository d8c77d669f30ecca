"""A browser's screenshot made small for the docs, with the standard library alone: the RGB
PNG read, its colours cut to a palette of 256 by median cut, and written as an 8-bit palette
PNG deflated at the highest level (about a third of the size, and it looks the same)."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

SIGNATURE = b"\x89PNG\r\n\x1a\n"
Colour = bytes  # 3 bytes: red, green, blue


def read_rgb(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the rows of RGB bytes of an 8-bit RGB or RGBA PNG (alpha dropped)."""
    assert png.startswith(SIGNATURE), "not a PNG"
    pos, data, width, height, kind = 8, b"", 0, 0, 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        tag, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if tag == b"IHDR":
            width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and kind in (2, 6) and not interlace, "an 8-bit RGB or RGBA PNG, not interlaced"
        elif tag == b"IDAT":
            data += body
    raw, size = zlib.decompress(data), 3 if kind == 2 else 4
    stride, rows, above, at = width * size, [], bytearray(width * size), 0
    for _ in range(height):
        line = _unfilter(raw[at], bytearray(raw[at + 1 : at + 1 + stride]), above, size)
        at += 1 + stride
        rows.append(bytes(line) if size == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        above = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, above: bytearray, size: int) -> bytearray:
    if kind == 1:
        for x in range(size, len(line)):
            line[x] = (line[x] + line[x - size]) & 255
    elif kind == 2:
        for x in range(len(line)):
            line[x] = (line[x] + above[x]) & 255
    elif kind == 3:
        for x in range(len(line)):
            left = line[x - size] if x >= size else 0
            line[x] = (line[x] + (left + above[x]) // 2) & 255
    elif kind == 4:
        for x in range(len(line)):
            a, b = (line[x - size], above[x]) if x >= size else (0, above[x])
            c = above[x - size] if x >= size else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return line


def palette(counts: Counter[Colour], size: int = 256) -> list[Colour]:
    """Median cut: split the box of colours with the most pixels times the widest channel in
    two at its median pixel, until there are ``size`` boxes; each box's mean is a colour."""
    boxes = [sorted(counts.items())]

    def weight(box: list[tuple[Colour, int]]) -> tuple[int, int]:
        spans = [max(c[i] for c, _ in box) - min(c[i] for c, _ in box) for i in range(3)]
        widest = max(range(3), key=lambda i: spans[i])
        return sum(n for _, n in box) * spans[widest], widest

    while len(boxes) < size:
        scored = [(weight(box), i) for i, box in enumerate(boxes) if len(box) > 1]
        if not scored:
            break
        (_, channel), i = max(scored)
        box = sorted(boxes.pop(i), key=lambda item: item[0][channel])
        half, seen, cut = sum(n for _, n in box) / 2, 0, 0
        while cut < len(box) - 1 and seen + box[cut][1] < half:
            seen += box[cut][1]
            cut += 1
        cut = max(1, cut)  # both halves keep a colour
        boxes += [box[:cut], box[cut:]]
    colours = []
    for box in boxes:
        total = sum(n for _, n in box)
        colours.append(bytes(round(sum(c[i] * n for c, n in box) / total) for i in range(3)))
    return colours


def nearest(colours: list[Colour], wanted: list[Colour]) -> dict[Colour, int]:
    """Each wanted colour's index of the nearest palette colour (squared RGB distance)."""
    index = {}
    for w in wanted:
        r, g, b = w
        index[w] = min(range(len(colours)), key=lambda i: _distance(colours[i], r, g, b))
    return index


def _distance(c: Colour, r: int, g: int, b: int) -> int:
    return (c[0] - r) ** 2 + (c[1] - g) ** 2 + (c[2] - b) ** 2


def small(png: bytes) -> bytes:
    """``png`` as an 8-bit palette PNG of at most 256 colours."""
    width, height, rows = read_rgb(png)
    pixels = [[row[x : x + 3] for x in range(0, len(row), 3)] for row in rows]
    counts = Counter(p for row in pixels for p in row)
    colours = palette(counts)
    index = nearest(colours, list(counts))
    raw = b"".join(b"\x00" + bytes(index[p] for p in row) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (
        SIGNATURE
        + chunk(b"IHDR", header)
        + chunk(b"PLTE", b"".join(colours))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))
