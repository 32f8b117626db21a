"""ISO 2709 files (MARC21, UNIMARC, CNMARC) read record by record, so that one bad record costs only itself.

A file is cut at every record terminator (0x1D), whatever the leaders say: a wrong length in one leader no
longer shifts every record after it. A record missing its terminator is found by the next record's leader
inside it. Each record is then checked (leader, base address, directory) and its fields taken by the directory,
or, where the directory's numbers overflow (a record over 99,999 bytes), in directory order between field
terminators. A bad record is rejected with its byte position and the reason.

Each record's encoding is told by its content, not only by what it declares (MARC21 leader/09; UNIMARC 100$a
positions 26-29): valid UTF-8 is UTF-8, MARC-8's escapes and single diacritics are MARC-8, anything else goes to
charset-normalizer (GB18030 first for UNIMARC, the encoding Chinese CNMARC is written in). Where declared and
read differ, the record carries a warning saying both.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import pymarc
from pymarc.marc8 import marc8_to_unicode

from tasks.intake.encodings import detected_codec, display_name, is_utf8

TERMINATOR, FIELD_END, SUBFIELD = b"\x1d", b"\x1e", b"\x1f"
MAX_LENGTH = 99_999  # what a leader's five digits can say; a longer record is read by its terminator
READ_BYTES = 1 << 20
MARC8 = "marc-8"
# A record's leader: length, status, type, ..., "22" (indicator and subfield code counts), base address, "45".
_LEADER = re.compile(rb"\d{5}[\x20-\x7e]{5}22\d{5}[\x20-\x7e]{3}45[0 ][0 ]")
_BETWEEN = b"\r\n\x00 \x1a"  # line breaks and padding some exports put between records or at the end


class BadRecord(ValueError):
    """A record that cannot be read; the message says why."""


@dataclass(frozen=True)
class MarcRecord:
    """One record read from the file: where it starts, the record, and what its reading should tell."""

    position: int  # byte offset of the record in the file
    record: pymarc.Record | None
    error: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


def read_iso2709(fh: BinaryIO, unimarc: bool | None, named: str | None = None) -> Iterator[MarcRecord]:
    """Every record of an ISO 2709 stream; `unimarc` True or False when the format is named, None to tell per
    record (UNIMARC has a 200 and no 245); `named` an encoding (codec or "marc-8") the user gave for every record."""
    for position, chunk in _chunks(fh):
        try:
            yield _read(position, chunk, unimarc, named)
        except BadRecord as err:
            yield MarcRecord(position, None, f"record at byte {position}: {err}")


def _chunks(fh: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(byte position, bytes up to and with the terminator) of every record; a record that lost its terminator
    is split from the record after it at that record's leader."""
    buffer, offset = b"", 0
    while block := fh.read(READ_BYTES):
        buffer += block
        start = 0
        while (end := buffer.find(TERMINATOR, start)) >= 0:
            yield from _split_lost_terminator(offset + start, buffer[start:end + 1])
            start = end + 1
        buffer, offset = buffer[start:], offset + start
    if buffer.strip(_BETWEEN):
        yield from _split_lost_terminator(offset, buffer)


def _split_lost_terminator(position: int, chunk: bytes) -> Iterator[tuple[int, bytes]]:
    stripped = chunk.lstrip(_BETWEEN)
    position += len(chunk) - len(stripped)
    if not stripped.strip(_BETWEEN + TERMINATOR):
        return
    if stripped[:5].isdigit() and int(stripped[:5]) == len(stripped):  # the usual case: one whole record
        yield position, stripped
        return
    for found in _LEADER.finditer(stripped, 1):
        if int(found.group(0)[:5]) == len(stripped) - found.start():  # a whole record ends this chunk
            yield position, stripped[:found.start()]
            yield position + found.start(), stripped[found.start():]
            return
    yield position, stripped


def _read(position: int, chunk: bytes, unimarc: bool | None, named: str | None) -> MarcRecord:
    leader = _leader(chunk)
    fields = _fields(chunk, leader)
    if not fields:
        raise BadRecord("no fields")
    is_unimarc = unimarc if unimarc is not None else (
        any(tag == "200" for tag, _ in fields) and not any(tag == "245" for tag, _ in fields))
    payload = FIELD_END.join(data for _, data in fields)
    declared = _declared(leader, fields, is_unimarc)
    codec = named or _codec(payload, declared, is_unimarc)
    warnings = ()
    if codec != declared[0] and not payload.isascii() and not named:
        warnings = (f"declared {_name(declared[0])} ({declared[1]}), read as {_name(codec)} by its content",)
    record = pymarc.Record(leader=leader)
    for tag, data in fields:
        record.add_field(_field(tag, data, codec))
    return MarcRecord(position, record, None, warnings)


def _leader(chunk: bytes) -> str:
    """The leader, checked against the record's real length (up to its terminator)."""
    head = chunk[:24]
    if len(head) < 24 or not head.isascii() or not head[:5].isdigit():
        raise BadRecord(f"no leader (starts {head[:24]!r})")
    declared, actual = int(head[:5]), len(chunk)
    if declared != actual and actual <= MAX_LENGTH:
        ends = "its terminator" if chunk.endswith(TERMINATOR) else "the end of the file, with no terminator"
        raise BadRecord(f"the leader says {declared} bytes, the record has {actual} up to {ends}")
    return head.decode("ascii")


def _fields(chunk: bytes, leader: str) -> list[tuple[str, bytes]]:
    """(tag, data without its field terminator) of every field: by the directory's offsets, or in directory order
    between field terminators when those overflow (records over 99,999 bytes)."""
    if not leader[12:17].isdigit() or not 24 < int(leader[12:17]) <= len(chunk):
        raise BadRecord(f"base address {leader[12:17]!r} is not within the record")
    base = int(leader[12:17])
    directory = chunk[24:base - 1]
    if len(directory) % 12 or chunk[base - 1:base] != FIELD_END:
        raise BadRecord("the directory is not a whole number of 12-byte entries ending at the base address")
    entries = [directory[i:i + 12] for i in range(0, len(directory), 12)]
    if not all(e.isascii() and e[3:].isdigit() for e in entries):
        raise BadRecord("the directory holds entries that are not tag, length and offset")
    data = chunk[base:]
    by_offset = []
    for entry in entries:
        length, offset = int(entry[3:7]), int(entry[7:12])
        piece = data[offset:offset + length]
        if length == 0 or not piece.endswith(FIELD_END):
            break
        by_offset.append((entry[:3].decode("ascii"), piece[:-1]))
    else:
        return by_offset
    pieces = data.rstrip(TERMINATOR).split(FIELD_END)
    if pieces and not pieces[-1]:
        pieces.pop()
    if len(pieces) != len(entries):
        raise BadRecord(f"the directory names {len(entries)} fields, the record holds {len(pieces)}")
    return [(e[:3].decode("ascii"), p) for e, p in zip(entries, pieces)]


def _declared(leader: str, fields: list[tuple[str, bytes]], unimarc: bool) -> tuple[str, str]:
    """(codec, where it is declared) of a record."""
    if unimarc:
        coded = next((_subfield(data, b"a") for tag, data in fields if tag == "100"), None) or b""
        charset = coded[26:30].decode("ascii", "replace")
        if charset.startswith("50"):
            return "utf-8", "100$a/26-29 '50' ISO 10646"
        if charset.strip():
            return "gb18030", f"100$a/26-29 {charset!r}"  # CNMARC's national character sets, read as their superset
        return ("utf-8", "leader/09 'a'") if leader[9] == "a" else (MARC8, "no 100$a/26-29")
    return ("utf-8", "leader/09 'a'") if leader[9] == "a" else (MARC8, "leader/09 blank")


def _codec(payload: bytes, declared: tuple[str, str], unimarc: bool) -> str:
    if payload.isascii():
        return declared[0]
    if is_utf8(payload):
        return "utf-8"
    if declared[0] == MARC8 and not unimarc and (b"\x1b" in payload or not _double_byte(payload)):
        return MARC8
    return detected_codec(payload, ("gb18030",) if unimarc or _double_byte(payload) else ()) or declared[0]


def _double_byte(payload: bytes) -> bool:
    """Most high bytes come in pairs of high bytes (GB2312, Big5, EUC), not singly before a letter (MARC-8's
    combining diacritics)."""
    high = paired = 0
    i = 0
    while i < len(payload):
        if payload[i] >= 0x80:
            high += 1
            if i + 1 < len(payload) and payload[i + 1] >= 0xA1:
                paired += 1
                i += 1
        i += 1
    return high > 0 and paired / high > 0.6


def _name(codec: str) -> str:
    return "MARC-8" if codec == MARC8 else display_name(codec)


def _subfield(data: bytes, code: bytes) -> bytes | None:
    return next((part[1:] for part in data.split(SUBFIELD)[1:] if part[:1] == code), None)


def _text(data: bytes, codec: str) -> str:
    """The bytes as text in composed form (NFC): MARC-8 and many UTF-8 exports write "à" as "a" and a combining
    accent, and a title must read and match alike whichever way its record came."""
    text = marc8_to_unicode(data, hide_utf8_warnings=True) if codec == MARC8 else data.decode(codec, errors="replace")
    return unicodedata.normalize("NFC", text)


def _field(tag: str, data: bytes, codec: str) -> pymarc.Field:
    if tag < "010" and tag.isdigit():
        return pymarc.Field(tag=tag, data=_text(data, codec))
    head, *parts = data.split(SUBFIELD)
    indicators = (head.decode("ascii", "replace") + "  ")[:2]
    return pymarc.Field(tag=tag, indicators=pymarc.Indicators(indicators[0], indicators[1]),
                        subfields=[pymarc.Subfield(part[:1].decode("ascii", "replace"), _text(part[1:], codec))
                                   for part in parts if part])
