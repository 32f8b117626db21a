"""Catalog values read as their fields: numbers written with units or noise, lists, classification codes.

Real exports write "128页", "xii, 300 p.", "1998年", "c1998", "2015-3", "8.5分", "1,234人评价". Each reader
returns the value it could read and, where it could read nothing sensible or had to clean something, a
warning; the book is kept either way (only a missing id or title loses a row).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Generic, TypeVar

from config.materials import get_materials
from tasks.language.text_analysis import has_control_characters, strip_control_characters

T = TypeVar("T")

MIN_YEAR = -3000  # the oldest works a library catalogs (Gilgamesh is about -1750)
DEFAULT_LIST_SEPARATOR = r"[;；|、]"
SCHEMES = ("clc", "ddc", "lcc")
_DEWEY_NUMBER = re.compile(r"\d{3}(?:[./']|$)")  # a Dewey number, not a local label

_PLAIN_INT = re.compile(r"[+-]?\d+(?:\.0+)?")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?")
_PAGE_COUNT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)\s*(?:页|頁|p\b|p\.|pp\b|pp\.|pages?\b)", re.IGNORECASE)
# A number with a counting word after it: "3本", "3 copies", "1,234人评价" (not "8.5").
_UNIT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(?![\d.])\s*(?:[本册冊套件个人次条]|copies|copy|items?|ratings?|votes?)",
                   re.IGNORECASE)
_VOLUMES = re.compile(r"\d+\s*(?:v\.|vols?\b|volumes?\b|册|冊|卷)", re.IGNORECASE)
_DDC = re.compile(r"(?:[JE]\s*)?\d{3}(?:[./]|$|\s)|FIC\b", re.IGNORECASE)


@dataclass(frozen=True)
class Reading(Generic[T]):
    """What could be read of one value, and what the reader should be told about it."""

    value: T | None
    warning: str | None = None


def is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        isinstance(value, str) and not value.strip())


def read_text(value: Any) -> Reading[str]:
    """Text with control characters removed (with a warning); spreadsheets' 123.0 ids become "123"."""
    if is_empty(value):
        return Reading(None)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (dict, list, tuple)):
        return Reading(None, f"expected text, got {type(value).__name__}")
    if isinstance(value, bytes):
        return Reading(None, "expected text, got binary data")
    text = str(value).strip()
    if has_control_characters(text):
        return Reading(strip_control_characters(text).strip() or None, "control characters removed")
    return Reading(text)


def _as_number_text(value: Any) -> str | None:
    """The value as text for number parsing, or None for types no number can come from."""
    if isinstance(value, bool) or isinstance(value, (dict, list, tuple, bytes)):
        return None
    return str(value).strip()


def read_year(value: Any) -> Reading[int]:
    """A publication year: 1998, "1998年", "c1998", "[1998?]", "2015-3"; negative for ancient works."""
    if is_empty(value):
        return Reading(None)
    text = _as_number_text(value)
    if text is None:
        return Reading(None, f"no year in {value!r}")
    plain = bool(_PLAIN_INT.fullmatch(text))
    years = [text] if plain else list(dict.fromkeys(_YEAR.findall(text)))
    if not years:
        return Reading(None, f"no year in {value!r}")
    year = int(float(years[0]))
    if not MIN_YEAR <= year <= date.today().year + 1:
        return Reading(None, f"impossible year {year}")
    return Reading(year, None if plain else f"read {text!r} as {year}")


def read_count(value: Any, unit: re.Pattern[str] | None = None) -> Reading[int]:
    """A whole number, bare or with its unit ("3本", "1,234人评价", with `unit` "300 p."); anything else warns."""
    if is_empty(value):
        return Reading(None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not value.is_integer():
            return Reading(None, f"expected a whole number, got {value!r}")
        return Reading(None, f"must not be negative, got {int(value)}") if value < 0 else Reading(int(value))
    text = _as_number_text(value)
    if text is None:
        return Reading(None, f"expected a whole number, got {value!r}")
    if _PLAIN_INT.fullmatch(text):
        number = int(float(text))
        return Reading(None, f"must not be negative, got {number}") if number < 0 else Reading(number)
    counted = (unit or _UNIT).findall(text)
    if not counted:
        return Reading(None, f"expected a whole number, got {value!r}")
    number = max(int(n.replace(",", "")) for n in counted)
    return Reading(number, f"read {text!r} as {number}")


def read_pages(value: Any) -> Reading[int]:
    """Pages: "300", "128页", "xii, 300 p."; a count of volumes ("2 v.") or discs says nothing of pages."""
    text = "" if is_empty(value) else _as_number_text(value) or ""
    if text and _VOLUMES.search(text) and not _PAGE_COUNT.search(text):
        return Reading(None, f"{text!r} counts volumes, not pages")
    reading = read_count(value, _PAGE_COUNT)
    if reading.value == 0:
        return Reading(None, "must be positive, got 0")
    return reading


def read_rating(value: Any) -> Reading[float]:
    """A rating from 0 to 10: 8.5, "8.5分", "8.5/10"."""
    if is_empty(value):
        return Reading(None)
    text = _as_number_text(value)
    found = _NUMBER.search(text or "")
    if found is None:
        return Reading(None, f"expected a number, got {value!r}")
    number = float(found.group(0).replace(",", ""))
    if not 0 <= number <= 10:
        return Reading(None, f"must be between 0 and 10, got {number:g}")
    return Reading(number, None if _PLAIN_INT.fullmatch(text) or re.fullmatch(r"\d+\.\d+", text)
                   else f"read {text!r} as {number:g}")


def read_list(value: Any, separator: str | None = None) -> Reading[tuple[str, ...]]:
    """Several values from a list or from separated text (";", "；", "|", "、" unless the mapping says)."""
    if is_empty(value):
        return Reading(())
    if isinstance(value, (list, tuple)):
        items = [read_text(v) for v in value]
    elif isinstance(value, (str, int, float)):
        pattern = re.escape(separator) if separator else DEFAULT_LIST_SEPARATOR
        items = [read_text(v) for v in re.split(pattern, str(value))]
    else:
        return Reading((), f"expected a list or separated text, got {type(value).__name__}")
    warning = next((i.warning for i in items if i.warning), None)
    return Reading(tuple(dict.fromkeys(i.value for i in items if i.value)), warning)


def read_material(value: Any) -> Reading[str]:
    """A material column (config/materials.yaml): a material's name or its English name ("film", "films and
    videos"); any other word is left unknown with a warning, never taken for text."""
    text = read_text(value).value
    if text is None:
        return Reading(None)
    found = get_materials().named(text)
    return Reading(found.name if found else None, None if found else f"unknown material {text!r}")


def guess_scheme(code: str, language: str | None) -> str:
    """Dewey numbers are digits (or J/E/Fic prefixed); letters are CLC in a Chinese book, else LCC."""
    if _DDC.match(code):
        return "ddc"
    return "clc" if language == "zh" else "lcc"


def classification_codes(by_scheme: dict[str | None, tuple[str, ...]], language: str | None,
                         default_scheme: str | None = None) -> tuple[str, ...]:
    """Codes as "scheme:code"; a code given without a scheme gets the mapping's, else a guessed one.

    A code may also carry its scheme itself ("clc:I246.7", "DDC 823.914").
    """
    out = []
    for scheme, codes in by_scheme.items():
        for raw in codes:
            code = raw.strip()
            named = re.match(rf"({'|'.join(SCHEMES)})[:\s]\s*(.+)$", code, re.IGNORECASE)
            if named:
                code_scheme, code = named.group(1).lower(), named.group(2).strip()
            else:
                code_scheme = scheme or default_scheme or guess_scheme(code, language)
            if code:
                out.append(f"{code_scheme}:{dewey_number(code) if code_scheme == 'ddc' else code}")
    return tuple(dict.fromkeys(out))


def dewey_number(code: str) -> str:
    """A Dewey number without LC's prime marks ("813/.52" -> "813.52": a mark only says where a library may cut the
    number, and class ranges compare the digits). A local label ("[Fic]", "J FIC", "E") stays as written: the
    crosswalk reads audience and form from it."""
    return code.replace("/", "").replace("'", "") if _DEWEY_NUMBER.match(code) else code


def class_of_call_number(call_no: str, language: str | None) -> str:
    """The class part of a call number: CLC "I246.7/2730" -> "I246.7"; LCC keeps its cutters."""
    code = call_no.split("/")[0].strip() if guess_scheme(call_no, language) == "clc" else call_no.strip()
    return code
