"""Which character encoding a catalog file (or one MARC record) is written in: named, marked, or detected.

Library exports arrive as UTF-8, GBK / GB18030 (Chinese systems), UTF-16 (Excel's "Unicode text") or Latin-1.
A name given with `--encoding` wins; else a byte-order mark; else valid UTF-8 is UTF-8; else charset-normalizer
(a maintained detector) chooses, and the import says what it chose.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from charset_normalizer import from_bytes

from tasks.intake.formats import CatalogFileError

SAMPLE_BYTES = 4 * 1024 * 1024  # enough text to tell an encoding; the rest is read as it streams
# The encodings detection may answer: what catalog exports are written in. GB18030 reads every GBK and GB2312
# text; UTF-16 has no BOM when Excel's "Unicode text" loses it in a copy.
CANDIDATES = ("gb18030", "big5", "utf_16", "cp1252", "latin_1", "shift_jis", "euc_kr")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# What a detector's answer is read as: the superset a library's text was most likely written in.
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "ascii": "utf-8", "latin_1": "cp1252", "iso8859_1": "cp1252"}


@dataclass(frozen=True)
class Encoding:
    """The codec text is read with, and how it was known ("named", "byte-order mark", "UTF-8", "detected")."""

    codec: str
    how: str

    def describe(self) -> str:
        """"GB18030 (detected)"; plain UTF-8 is just "UTF-8"."""
        return "UTF-8" if self.how == "UTF-8" else f"{display_name(self.codec)} ({self.how})"


def display_name(codec: str) -> str:
    """"gb18030" -> "GB18030", "utf-8-sig" -> "UTF-8"."""
    name = codecs.lookup(codec).name
    return {"utf-8-sig": "UTF-8", "cp1252": "Windows-1252 (Latin-1)", "iso8859-1": "Latin-1"}.get(
        name, name.upper().replace("_", "-"))


def named_codec(name: str, source: str) -> str:
    """The codec of an encoding name given by the user, or CatalogFileError naming the known ones."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise CatalogFileError(f"{source}: unknown encoding {name!r} (e.g. utf-8, gbk, gb18030, utf-16, latin-1)"
                               ) from None


def detected_codec(data: bytes, prefer: tuple[str, ...] = ()) -> str | None:
    """The encoding charset-normalizer reads `data` in with the least noise; `prefer` are tried first and win when
    they decode `data` strictly (a CNMARC record is GB18030 when it can be)."""
    for codec in prefer:
        try:
            data.decode(codec)
            return codec
        except UnicodeDecodeError:
            continue
    best = from_bytes(data, cp_isolation=list(CANDIDATES)).best()
    if best is None:
        return None
    return _WIDER.get(best.encoding, best.encoding)


def is_utf8(data: bytes, complete: bool = True) -> bool:
    """Whether `data` is valid UTF-8 (a sample cut mid-character still is, when not `complete`)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=complete)
        return True
    except UnicodeDecodeError:
        return False


def file_encoding(path_name: str, sample: bytes, named: str | None, complete: bool) -> Encoding:
    """How a text file is read: `named` (--encoding), its byte-order mark, UTF-8, or what detection says."""
    if named:
        return Encoding(named_codec(named, path_name), "named")
    for bom, codec in _BOMS:
        if sample.startswith(bom):
            return Encoding(codec, "byte-order mark")
    if is_utf8(sample, complete):
        return Encoding("utf-8", "UTF-8")
    codec = detected_codec(sample)
    if codec is None:
        raise CatalogFileError(f"{path_name}: not UTF-8 text and no encoding could be detected; name it with "
                               "--encoding (e.g. gbk, utf-16, latin-1)")
    return Encoding(codec, "detected")
