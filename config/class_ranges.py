"""Literatures by nation and periods of Chinese history as classification ranges (config/class_ranges.yaml)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml

CLASS_RANGES_FILE = CONFIG_DIR / "class_ranges.yaml"
KINDS = ("literatures", "history")
_LCC_RANGE = re.compile(r"([A-Z]{1,3})(\d{1,4})-(\d{1,4})$")
_LCC_DIGITS = 4  # an LCC class number's whole part has at most four digits


@dataclass(frozen=True)
class ClassRange:
    """One nation's literature or one period of history: how a brief names it and where catalogs file it."""

    key: str
    kind: str  # "literatures" | "history"
    label: dict[str, str]  # language -> what the workbook calls it
    names: tuple[str, ...]  # a mention wherever said
    qualifiers: tuple[str, ...]  # a mention right before a word of its kind, or at a clause's end (history)
    people: tuple[str, ...]  # the nation's writers: a mention after "by" or before 写
    codes: tuple[str, ...]  # "scheme:prefix", as filters compare them with a book's class prefixes
    subjects: tuple[str, ...]  # subject words that say the same on a record
    members: tuple[str, ...] = ()  # a group's literatures ("外国": every one but Chinese); none for one literature
    places: tuple[str, ...] = ()  # the nation's country, a mention where books come from it ("novels from Japan")


@dataclass(frozen=True)
class ClassRanges:
    entries: tuple[ClassRange, ...]
    history_words: tuple[str, ...]
    groups: tuple[ClassRange, ...] = ()  # literatures named together: named as one is, filed as its members are

    def entry(self, key: str) -> ClassRange:
        return next(e for e in (*self.entries, *self.groups) if e.key == key)

    def literatures_of(self, keys: Iterable[str]) -> tuple[str, ...]:
        """The literatures these keys stand for: a group's members, a literature itself."""
        return tuple(dict.fromkeys(k for key in keys for k in (self.entry(key).members or (key,))))

    @cached_property
    def literatures(self) -> tuple[ClassRange, ...]:
        return tuple(e for e in self.entries if e.kind == "literatures")

    def other_literatures(self, asked: Iterable[str]) -> tuple[str, ...]:
        """Every literature but the asked ones: what a literature named plainly leaves out where a record names it."""
        asked = set(asked)
        return tuple(e.key for e in self.literatures if e.key not in asked)

    @cached_property
    def by_word(self) -> dict[str, str]:
        """Each entry's names and qualifiers, lowercased, to its key: a brief's topic that is all one of them
        ("明清") is that range."""
        return {w.lower(): e.key for e in self.entries for w in (*e.names, *e.qualifiers)}

    def named(self, codes: Iterable[str]) -> tuple[list[ClassRange], list[str]]:
        """The entries whose codes are all among these, and the codes none of them has."""
        codes = list(codes)
        held = [e for e in self.entries if set(e.codes) <= set(codes)]
        covered = {c for e in held for c in e.codes}
        return held, [c for c in codes if c not in covered]

    def labels(self, codes: Iterable[str], language: str) -> list[str]:
        """The codes said as the entries they hold ("日本文学"), then any other code as it is."""
        held, rest = self.named(codes)
        return [e.label[language] for e in held] + rest


def lcc_prefixes(letters: str, low: int, high: int) -> list[str]:
    """The class-number prefixes that hold exactly the numbers low-high of an LCC subclass: a digit prefix all
    of whose numbers fall in the range stands bare ("PS1" holds PS1-1999); a number in the range whose longer
    numbers do not takes the "." that ends a class number ("PL700." is PL700, not PL7000)."""
    out: list[str] = []

    def walk(digits: str) -> None:
        first, last = int(digits), int(digits.ljust(_LCC_DIGITS, "9"))
        if last < low or first > high:
            return
        if low <= first and last <= high:
            out.append(letters + digits)
            return
        if low <= first <= high:
            out.append(f"{letters}{digits}.")
        if len(digits) < _LCC_DIGITS:
            for digit in "0123456789":
                walk(digits + digit)

    for digit in "123456789":
        walk(digit)
    return out


def _codes(raw: dict, local_prefixes: tuple[str, ...], where: str) -> Iterator[str]:
    """An entry's codes as "scheme:prefix": CLC as given, DDC also after each local prefix, LCC ranges read."""
    for code in raw.get("clc") or ():
        yield f"clc:{code}"
    for code in raw.get("ddc") or ():
        yield from (f"ddc:{local}{code}" for local in ("", *local_prefixes))
    for span in raw.get("lcc") or ():
        found = _LCC_RANGE.match(str(span))
        if found is None:
            raise ValueError(f"{where}: LCC range {span!r} is not of the form PL700-889")
        yield from (f"lcc:{p}" for p in lcc_prefixes(found.group(1), int(found.group(2)), int(found.group(3))))


def _words(raw: dict, key: str) -> tuple[str, ...]:
    return tuple(str(w) for language in ("zh", "en") for w in (raw.get(key) or {}).get(language, ()))


def load_class_ranges(path: Path = CLASS_RANGES_FILE) -> ClassRanges:
    """The table, checked: every entry has a label in both languages, a way to be named and a code."""
    raw = read_yaml(path) or {}
    local = tuple(str(p) for p in raw.get("ddc_local_prefixes") or ())
    entries = []
    for kind in KINDS:
        for key, given in (raw.get(kind) or {}).items():
            where = f"{path}: {kind}.{key}"
            entry = ClassRange(key, kind, {lang: str(given["label"][lang]) for lang in ("zh", "en")},
                               _words(given, "names"), _words(given, "qualifiers"), _words(given, "people"),
                               tuple(dict.fromkeys(_codes(given, local, where))), _words(given, "subjects"),
                               places=_words(given, "places"))
            if not entry.codes or not (entry.names or entry.qualifiers or entry.people):
                raise ValueError(f"{where}: needs codes and a name, qualifier or people word")
            entries.append(entry)
    history = raw.get("history_words") or {}
    return ClassRanges(tuple(entries), tuple(str(w) for lang in ("zh", "en") for w in history.get(lang, ())),
                       tuple(_groups(raw, path, entries)))


def _groups(raw: dict, path: Path, entries: list[ClassRange]) -> Iterator[ClassRange]:
    """`literature_groups`, checked: named somehow, and standing for literatures the table has."""
    literatures = [e.key for e in entries if e.kind == "literatures"]
    for key, given in (raw.get("literature_groups") or {}).items():
        where = f"{path}: literature_groups.{key}"
        left_out = [str(k) for k in given.get("all_but") or ()]
        members = tuple(k for k in literatures if k not in left_out) if left_out else tuple(
            str(k) for k in given.get("members") or ())
        unknown = [k for k in (*left_out, *members) if k not in literatures]
        if unknown or not members:
            raise ValueError(f"{where}: needs members (or all_but) among the literatures; unknown: {unknown}")
        group = ClassRange(key, "literatures", {lang: str(given["label"][lang]) for lang in ("zh", "en")}, (),
                           _words(given, "qualifiers"), _words(given, "people"), (), (), members)
        if not (group.qualifiers or group.people):
            raise ValueError(f"{where}: needs a qualifier or people word")
        yield group


@lru_cache(maxsize=1)
def class_ranges() -> ClassRanges:
    """config/class_ranges.yaml, read once."""
    return load_class_ranges()
