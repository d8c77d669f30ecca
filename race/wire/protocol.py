"""The wire protocol: one JSON object per websocket message, each with a ``type``.

Client messages are decoded into the typed structs below (a schema per message); anything
that does not fit raises :class:`ProtocolError` with a code and a clear message, and is
answered with ``{"type": "error", "code": ..., "message": ...}``. Server messages are built
by the functions at the bottom. ``docs/protocol.md`` documents every message with examples.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Literal

import msgspec
import regex

PROTOCOL_VERSION = 2
MAX_MESSAGE_BYTES = 4096
NAME_MAX = 20  # characters as a reader sees them: extended grapheme clusters
#: Code points in one of those characters: the longest emoji (a kissing couple with two skin
#: tones) has 10; a longer cluster is a chain of joiners that only pads the name.
CLUSTER_MAX = 10
#: Unicode's extended grapheme clusters (``\X``): what the page counts with Intl.Segmenter.
_CLUSTER = regex.compile(r"\X")

Difficulty = Literal["easy", "medium", "hard"]
# (\Z, not $: "$" also matches before a last newline.)
SEAT_ID = r"^s[1-9][0-9]{0,5}\Z"
ISO_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z"
RECORD_ID_TEXT = "[A-Za-z0-9_-]{12}"  # race.rooms.record.new_id
RECORD_ID = rf"^{RECORD_ID_TEXT}\Z"
DEVICE_KEY = r"^[A-Za-z0-9_-]{22,64}\Z"
#: A room code as a link or a request may carry it (codes are made of fewer letters:
#: race.rooms.model.CODE_ALPHABET; a code is read in upper case).
ROOM_CODE_TEXT = "[A-Za-z0-9]{1,16}"
ROOM_CODE = rf"^{ROOM_CODE_TEXT}\Z"
#: The close codes of a connection the server ends for good: the seat was opened in another
#: window, or the host removed the player.
CLOSE_REPLACED = 4001
CLOSE_REMOVED = 4002
#: What a pattern asks for, in words, for the error message.
_PATTERN_WORDS = {
    SEAT_ID: "a seat such as s2",
    ISO_DATE: "a date written YYYY-MM-DD",
    RECORD_ID: "a replay id (12 letters, digits, - or _)",
    DEVICE_KEY: "a device key (22 to 64 letters, digits, - or _)",
}
RoomCode = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Name = str  # checked by clean_name (bad_name); the message's size bounds it
MoveText = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
Version = Annotated[int, msgspec.Meta(ge=0)]
ClientId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
DealNumber = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
TimeLimit = Annotated[int, msgspec.Meta(ge=30, le=24 * 3600)]
SpectatorDelay = Literal[0, 15, 60]  # seconds the spectators' view runs behind the race
HintRule = Literal["off", "penalty", "free"]  # race.rooms.hints
RecordId = Annotated[str, msgspec.Meta(pattern=RECORD_ID)]
DeviceKey = Annotated[str, msgspec.Meta(pattern=DEVICE_KEY)]
Ghosts = Annotated[list[RecordId], msgspec.Meta(max_length=7)]  # race.rooms.ghosts.MAX_GHOSTS
MatchTarget = Literal[1, 2, 3, 4]  # race.rooms.series.MATCH_TARGETS
ArenaRounds = Annotated[int, msgspec.Meta(ge=3, le=10)]  # race.rooms.series.ARENA_ROUNDS


class ProtocolError(Exception):
    """A message the server refuses; ``code`` is machine-readable, ``message`` for people."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class _Msg(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """A client message. Each one says ``frozen=True`` again, which msgspec would inherit, for
    type checkers, which see a frozen class's subclass as not frozen unless it says so."""


class PlayOnFrom(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game on the record and one of its steps (0: before its first action)."""

    replay: RecordId
    step: Annotated[int, msgspec.Meta(ge=0, le=100_000)]


class Create(_Msg, tag="create", frozen=True):
    """Create a room and take its first seat as the host; ``ghosts``: games on the record to
    race again (their deal and difficulty are the room's). ``device`` (in ``join`` and
    ``daily`` too): the page's secret device key, under which the player's games are listed.
    ``token``: the daily player's token, with which today's daily games may be raced by a
    player ranked on that day's board."""

    name: Name
    difficulty: Difficulty = "medium"
    deal: DealNumber | None = None
    time_limit: TimeLimit | None = None
    listed: bool = True
    ghosts: Ghosts = msgspec.field(default_factory=list)
    device: DeviceKey | None = None
    token: Token | None = None
    spectator_delay: SpectatorDelay | None = None
    #: Hints in the room: ``off``, ``penalty`` (each adds the server's penalty to the finish
    #: time the ranking uses) or ``free``.
    hints: HintRule = "penalty"
    #: Play the room as a match, first to this many wins; or as an arena of this many rounds
    #: (one or the other: see ``race.rooms.series``).
    match: MatchTarget | None = None
    arena: ArenaRounds | None = None
    #: Play on alone from a step of a game on the record (``{"replay": ID, "step": N}``):
    #: a practice room at the position the server finds by replaying that game (its deal
    #: and difficulty are the game's; nothing else of a race may be asked with it).
    from_: PlayOnFrom | None = msgspec.field(default=None, name="from")


class Join(_Msg, tag="join", frozen=True):
    """Take a new seat in a room's lobby."""

    room: RoomCode
    name: Name
    device: DeviceKey | None = None


class Resume(_Msg, tag="resume", frozen=True):
    """Come back to one's seat with its secret token; ``version`` is the last state seen."""

    room: RoomCode
    token: Token
    version: Version | None = None


class Watch(_Msg, tag="watch", frozen=True):
    """Spectate a room; ``device``: the page's device key (a device that holds a seat in the
    race being run is shown no boards until its own game is done)."""

    room: RoomCode
    device: DeviceKey | None = None


class Ready(_Msg, tag="ready", frozen=True):
    ready: bool = True


class Start(_Msg, tag="start", frozen=True):
    pass


class Play(_Msg, tag="move", frozen=True):
    """Play a move (engine notation) on the state with ``version``."""

    move: MoveText
    version: Version
    id: ClientId | None = None


class Undo(_Msg, tag="undo", frozen=True):
    version: Version
    id: ClientId | None = None


class Restart(_Msg, tag="restart", frozen=True):
    version: Version
    id: ClientId | None = None


class Hint(_Msg, tag="hint", frozen=True):
    pass


class Resign(_Msg, tag="resign", frozen=True):
    pass


class Rematch(_Msg, tag="rematch", frozen=True):
    """Offer a new round once the race is over (or say yes to the offer standing on these
    terms): a new deal (``deal``, random when absent), or with ``ghosts`` the same deal, the
    round's players raced again as ghosts. It opens once everyone still in the room said yes."""

    deal: DealNumber | None = None
    ghosts: bool = False


class Answer(_Msg, tag="answer", frozen=True):
    """Say yes or no to the rematch offered; a no withdraws the offer."""

    accept: bool


class Leave(_Msg, tag="leave", frozen=True):
    """Give up one's seat, in the lobby."""


class Remove(_Msg, tag="remove", frozen=True):
    """The host takes another player's seat away, in the lobby (someone who joined and left)."""

    seat: Annotated[str, msgspec.Meta(pattern=SEAT_ID)]


class End(_Msg, tag="end", frozen=True):
    """End the race now, once every other player still racing is away (the host is no one
    special): everyone still playing is ranked by their cards home."""


class VoteEnd(_Msg, tag="vote_end", frozen=True):
    """A player still racing asks to end the race (``vote`` false: no longer asks); it ends
    once every player still racing who is here asks."""

    vote: bool = True


class Ping(_Msg, tag="ping", frozen=True):
    pass


class Sync(_Msg, tag="sync", frozen=True):
    """Ask for the room's snapshot (and, for a player, their own state) again."""


IsoDate = Annotated[str, msgspec.Meta(pattern=ISO_DATE)]


class Daily(_Msg, tag="daily", frozen=True):
    """Start an attempt at today's daily deal; ``token`` is the player's identity, if any."""

    name: Name
    difficulty: Difficulty = "medium"
    token: Token | None = None
    device: DeviceKey | None = None


class Tutorial(_Msg, tag="tutorial", frozen=True):
    """Start the tutorial: a one-seat room of kind ``tutorial`` on a small fixed position,
    its lessons in each ``state`` (never on the record)."""

    name: Name = "You"
    device: DeviceKey | None = None


class Leaderboard(_Msg, tag="leaderboard", frozen=True):
    """Read a day's leaderboard (today when ``date`` is absent) and follow its updates."""

    difficulty: Difficulty = "medium"
    date: IsoDate | None = None
    top: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20
    token: Token | None = None


ClientMessage = (
    Create | Join | Resume | Watch | Ready | Start | Play | Undo | Restart | Hint | Resign | Rematch | Ping
) | (Sync | Daily | Leaderboard | Leave | Remove | End | VoteEnd | Tutorial | Answer)
TYPES = sorted(str(t.__struct_config__.tag) for t in ClientMessage.__args__)
_decoder = msgspec.json.Decoder(ClientMessage)
_TYPE_ERROR = re.compile(r"at `\$\.type`|Object missing required field `type`")
_NOT_OBJECT = re.compile(r"Expected `object`, got `\w+`$")  # at the top level: no "- at `$...`"


def schema_error(exc: msgspec.ValidationError) -> str:
    """msgspec's account of what does not fit, with a pattern told in words."""
    text = str(exc)
    for pattern, words in _PATTERN_WORDS.items():
        text = text.replace(f"`str` matching regex {pattern!r}", words)
    return text


def decode(raw: str | bytes) -> ClientMessage:
    """Decode one client message, or raise :class:`ProtocolError`."""
    size = len(raw)
    if isinstance(raw, str) and 4 * size > MAX_MESSAGE_BYTES:  # a character is 1-4 bytes in UTF-8
        size = len(raw.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    try:
        return _decoder.decode(raw)
    except msgspec.ValidationError as exc:
        text = str(exc)
        if _NOT_OBJECT.match(text):
            raise ProtocolError("bad_json", "message is not a JSON object") from None
        if _TYPE_ERROR.search(text):
            raise ProtocolError(
                "unknown_type", f"unknown or missing message type; expected one of: {', '.join(TYPES)}"
            ) from None
        raise ProtocolError("bad_message", f"message does not fit its schema: {schema_error(exc)}") from None
    except msgspec.DecodeError:
        raise ProtocolError("bad_json", "message is not a JSON object") from None


#: Characters that show nothing although they are not controls or spaces: Unicode's
#: default-ignorable letters and marks (the Hangul fillers, the combining grapheme joiner,
#: variation selectors, ...; its format characters are category C already) and the blank
#: Braille pattern. A name of them looks empty, or like another player's name.
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
MAX_MARKS = 2  # combining marks on one character: enough for any script, not for "Zalgo" text
#: The emoji and text presentation selectors (``❤️`` is U+2764 U+FE0F), after an emoji.
_PRESENTATION = "\ufe0e\ufe0f"
#: Emoji that are not symbols: keycaps' bases (``1️⃣`` is 1, U+FE0F, U+20E3), ‼ ⁉ 〰 〽.
_EMOJI_OTHERS = "#*0123456789\u203c\u2049\u3030\u303d"
_SKIN_TONES = range(0x1F3FB, 0x1F400)  # emoji modifiers (category Sk) that follow a person
#: A subdivision flag (England: a black flag, tag letters, a cancel tag), kept whole. Its
#: tags spell a subdivision code (ISO 3166-2, lower case: "gbeng"), never free text, which
#: tags could otherwise carry unseen.
_TAG_FLAG = re.compile(
    "\U0001f3f4[\U000e0061-\U000e007a]{2}[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,4}\U000e007f"
)
#: Scripts whose spelling uses the zero-width (non-)joiner between letters (Persian, for one).
_JOINING_SCRIPTS = frozenset(
    {"ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL"}
    | {"TELUGU", "KANNADA", "MALAYALAM", "SINHALA"}
)


def _emoji(ch: str) -> bool:
    return unicodedata.category(ch) == "So" or ord(ch) in _SKIN_TONES


def _joining_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM" and unicodedata.name(ch, "").split(" ")[0] in _JOINING_SCRIPTS


def _allowed_invisible(name: str, i: int) -> bool:
    """Whether the invisible character at ``name[i]`` is part of an emoji or of a word's
    spelling: a presentation selector right after an emoji (or a keycap's digit), a
    zero-width joiner between two emoji (a family, ``❤️‍🔥``), or a zero-width (non-)joiner
    between two letters of a script that uses them. Anywhere else it could only hide."""
    ch, before = name[i], name[i - 1] if i else " "
    after = name[i + 1] if i + 1 < len(name) else " "
    if ch in _PRESENTATION:
        return _emoji(before) or unicodedata.category(before) == "Sm" or before in _EMOJI_OTHERS
    if ch == "\u200d" and _emoji(after):
        j = i - 1  # back over the previous emoji's selector and skin tone, to the emoji
        while j > 0 and (name[j] in _PRESENTATION or ord(name[j]) in _SKIN_TONES):
            j -= 1
        return j >= 0 and unicodedata.category(name[j]) == "So"
    return ch in "\u200c\u200d" and _joining_letter(before) and _joining_letter(after)


def clean_name(raw: str) -> str:
    """A nickname made safe to store and show, or :class:`ProtocolError` ``bad_name``.

    Normalised (NFC, runs of spaces folded, ends trimmed); 1-20 characters, counted as a
    reader sees them (grapheme clusters: an emoji family is one), each of at most 10 code
    points; no control,
    format, private-use or other invisible characters (this catches bidi overrides,
    zero-width tricks and blank fillers), but for those that emoji and some scripts'
    spelling are made of, where they belong (see :func:`_allowed_invisible`); no run of
    more than two combining marks, nor one with nothing to sit on; no ``<`` or ``>`` so it
    can never read as markup.

    >>> clean_name("  Zoë   the  Great ")
    'Zoë the Great'
    >>> clean_name("\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 Famille Dupont")[-6:]
    'Dupont'
    >>> clean_name("Ann\u3164")
    Traceback (most recent call last):
    ...
    race.wire.protocol.ProtocolError: nickname must not contain control or invisible characters
    """
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise ProtocolError("bad_name", "nickname must not be empty", reason="empty")
    clusters = _CLUSTER.findall(name)
    if len(clusters) > NAME_MAX:
        raise ProtocolError(
            "bad_name", f"nickname must be at most {NAME_MAX} characters", reason="too_long", max=NAME_MAX
        )
    if any(len(c) > CLUSTER_MAX for c in clusters):
        raise ProtocolError(
            "bad_name", f"nickname must not join over {CLUSTER_MAX} code points into one character", reason="joined"
        )
    checked = _TAG_FLAG.sub("\U0001f3f4", name)
    for i, ch in enumerate(checked):
        hidden = _INVISIBLE.match(ch) or unicodedata.category(ch)[0] == "C"
        if hidden and not _allowed_invisible(checked, i):
            raise ProtocolError(
                "bad_name", "nickname must not contain control or invisible characters", reason="invisible"
            )
    marks = 0
    for i, ch in enumerate(checked):
        marks = marks + 1 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me") else 0
        if ch in _PRESENTATION:
            marks = 0  # a selector picks how its emoji looks: no accent (a keycap's U+20E3 follows it)
        if (marks and (i == 0 or checked[i - 1] == " ")) or marks > MAX_MARKS:
            raise ProtocolError(
                "bad_name", "nickname must not pile up accents or start one on nothing", reason="accents"
            )
    if "<" in name or ">" in name:
        raise ProtocolError("bad_name", "nickname must not contain < or >", reason="brackets")
    return name


def name_key(name: str) -> str:
    """What two names in one room may not share: equal up to case and compatibility forms
    (full-width letters, mathematical bold and the like, ligatures).

    >>> name_key("\uff21nn") == name_key("\U0001d400nn") == name_key("ANN") == "ann"
    True
    """
    return unicodedata.normalize("NFKC", name).casefold()


def encode(message: dict[str, Any]) -> str:
    """Encode a server message (always a dict with a ``type``)."""
    return msgspec.json.encode(message).decode()


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}
