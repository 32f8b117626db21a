"""Crosswalk step: classification codes, coded values and subject headings to vocabulary values, form and audience.

config/crosswalk.yaml holds the rules (CLC, DDC and LCC classes; LCSH, 主题词 and reader tags) and
documents how they match. Per code or heading only the most specific matching rule counts (the longest
prefix, pattern match or term); a rule whose `unless` is present does not apply; each winning rule gives
its values with its confidence, and says what it came from ("clc I247.5", "subject 科幻小说").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from config.class_ranges import class_ranges
from config.settings import CONFIG_DIR
from config.vocabulary import Vocabulary
from config.yaml_files import read_yaml
from tasks.catalog.names import name_marks, read_credits
from tasks.model.books import BookRecord, Facet, shared_facet
from tasks.model.conditions import subject_words

CROSSWALK_FILE = CONFIG_DIR / "crosswalk.yaml"
_RULE_KEYS = {"prefix", "pattern", "terms", "unless", "confidence"}
DEFAULT_CONFIDENCE = {"classification": 0.95, "kind": 0.95, "other": 0.7}


@dataclass(frozen=True)
class Rule:
    """One crosswalk rule: what it matches, what it gives, how often that is true."""

    prefix: str | None
    pattern: re.Pattern[str] | None
    terms: tuple[str, ...]
    unless: tuple[str, ...]
    values: tuple[tuple[str, str], ...]  # (facet, value)
    confidence: float

    def match_length(self, text: str) -> int:
        """How much of `text` the rule matches (0: no match); `text` is already lower-cased for terms."""
        if self.prefix is not None:
            return len(self.prefix) if text.upper().startswith(self.prefix.upper()) else 0
        if self.pattern is not None:
            found = self.pattern.match(text)
            return max(len(found.group(0)), 1) if found else 0
        return max((len(t) for t in self.terms if t in text), default=0)

    def excluded(self, text: str, is_code: bool) -> bool:
        if is_code:
            return any(text.upper().startswith(u.upper()) for u in self.unless)
        return any(u in text for u in self.unless)


LITERATURE = "literature"  # the facet of a book's literature: the nation it was written in
MATERIAL = "material"  # the facet of what the record says the book is (config/materials.yaml)
LITERATURE_CONFIDENCE = {"author": 0.95, "class": 0.95, "language": 0.9, "subject": 0.9, "bare": 0.6}
_PARTS = re.compile(r"\s*(?:--|—|－|,)\s*")  # a heading's subdivisions, and the inverted part of "Ghost stories, English"


@dataclass(frozen=True)
class NationOfLiterature:
    """How records name one literature of config/class_ranges.yaml, in subject_words form."""

    key: str
    subjects: tuple[str, ...]  # "japanese fiction", "日本文学"
    nations: frozenset[str]  # "japanese", "日本", and the adjective of its subject words ("english" of "english fiction")


@dataclass(frozen=True)
class Literatures:
    """What a record says of the literature a book was written in (config/crosswalk.yaml `literature_words`), read
    once for a catalog: class prefixes, the nations' words, the kinds of writing; each heading read once."""

    by_prefix: dict[str, str]  # a class range's code as BookRecord.class_prefixes writes it -> the literature
    nations: tuple[NationOfLiterature, ...]
    words: tuple[str, ...]  # kinds of writing a heading pairs with a nation: "fiction", "小说"
    _read: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, words: Iterable[str]) -> Literatures:
        words = tuple(dict.fromkeys(w for w in map(subject_words, words) if w))
        entries = class_ranges().literatures
        nations = []
        for entry in entries:
            subjects = tuple(subject_words(t) for t in entry.subjects)
            adjectives = {t[:-len(w)].strip() for t in subjects for w in words if t.endswith(f" {w}")}
            nations.append(NationOfLiterature(entry.key, subjects, frozenset(
                {subject_words(q) for q in (*entry.qualifiers, *entry.names)} | adjectives) - {""}))
        return cls({_as_prefix(code): e.key for e in entries for code in e.codes}, tuple(nations), words)

    def facets(self, book: BookRecord) -> list[Facet]:
        """The nations the record says the book was written in: its author's nationality mark, its original
        language, its class range, its subject words."""
        found = [shared_facet(LITERATURE, credit.nation, LITERATURE_CONFIDENCE["author"], "crosswalk",
                              f"author {credit.written}")
                 for credit in read_credits(book.credits) if credit.by and credit.nation]
        if nation := name_marks().nation_of_language(book.original_language):
            found.append(shared_facet(LITERATURE, nation, LITERATURE_CONFIDENCE["language"], "crosswalk",
                                      f"original language {book.original_language}"))
        for code in book.classification:
            number = _as_prefix(code)
            key = next((self.by_prefix[number[:n]] for n in range(len(number), 0, -1) if number[:n] in self.by_prefix),
                       None)
            if key:
                found.append(shared_facet(LITERATURE, key, LITERATURE_CONFIDENCE["class"], "crosswalk",
                                          code.replace(":", " ", 1)))
        for heading in book.subjects:
            found += [shared_facet(LITERATURE, key, LITERATURE_CONFIDENCE[how], "crosswalk", f"subject {heading}")
                      for key, how in self._heading(heading)]
        return found

    def _heading(self, heading: str) -> tuple[tuple[str, str], ...]:
        """(literature, how) a heading names: "subject" (its subject words; its nation after a kind of writing:
        "长篇小说—日本—现代", "日本推理", "English drama", "Horror tales, American"), "bare" (the nation alone: a
        reader tag). Headings repeat across a catalog: each is read once."""
        if heading not in self._read:
            words = subject_words(heading)
            # the kind of writing first, the nation after it; "British -- France -- Fiction", "Germany -- Drama" are
            # fiction and drama about the British and set in Germany
            first, *rest = [subject_words(p) for p in _PARTS.split(heading)]
            written = any(_has_words(first, w) for w in self.words)
            found = []
            for nation in self.nations:
                if (any(_has_words(words, t) for t in nation.subjects) or (written and nation.nations & set(rest))
                        or any(first.startswith(n) and first != n and self._kind_of_writing(first[len(n):])
                               for n in nation.nations)):
                    found.append((nation.key, "subject"))  # "日本推理", "English drama -- 17th century"
                elif words in nation.nations:
                    found.append((nation.key, "bare"))
            self._read[heading] = tuple(found)
        return self._read[heading]

    def _kind_of_writing(self, text: str) -> bool:
        return any(_has_words(text.strip(), w) for w in self.words)


def _has_words(text: str, term: str) -> bool:
    """A term in a text, both in subject_words form: Latin words whole, Chinese anywhere."""
    return bool(term) and (f" {term} " in f" {text} " if term.isascii() else term in text)


def _as_prefix(code: str) -> str:
    """A code as BookRecord.class_prefixes writes its prefixes: "clc:i313.45" is "clc:I313.45", "lcc:PL 856" "lcc:PL856"."""
    scheme, _, number = code.partition(":")
    return f"{scheme.lower()}:{number.replace(' ', '').upper()}"


@dataclass(frozen=True)
class Crosswalk:
    schemes: dict[str, tuple[Rule, ...]]  # classification scheme, or a coded value's scheme -> rules
    subjects: tuple[Rule, ...]
    literatures: Literatures = field(default_factory=lambda: Literatures({}, (), ()))

    def facets(self, book: BookRecord) -> list[Facet]:
        """The values the book's classification codes, coded values and subject headings give, each from its
        winning rule, the literature its record says, and the material it says it is."""
        found = [shared_facet(MATERIAL, book.material, 1.0, "source", "record type")] if book.material else []
        for code in (*book.classification, *book.coded):
            scheme, _, number = code.partition(":")
            rule = _winner(self.schemes.get(scheme, ()), number.strip(), is_code=True)
            if rule:
                found += _facets(rule, f"{scheme} {number.strip()}")
        for heading in book.subjects:
            # Chinese headings divide with "—" or "-"; the rules write subdivisions as " -- "
            text = re.sub(r"\s*(?:--|—|－)\s*", " -- ", heading).lower()
            rule = _winner(self.subjects, text, is_code=False)
            if rule:
                found += _facets(rule, f"subject {heading}")
        return found + self.literatures.facets(book)


def _winner(rules: Iterable[Rule], text: str, is_code: bool) -> Rule | None:
    best, length = None, 0
    for rule in rules:
        matched = rule.match_length(text)
        if matched > length and not rule.excluded(text, is_code):
            best, length = rule, matched
    return best


def _facets(rule: Rule, because: str) -> list[Facet]:
    return [Facet(facet, value, rule.confidence, "crosswalk", because) for facet, value in rule.values]


def _rule(raw: dict, vocabulary: Vocabulary, where: str, is_code: bool) -> Rule:
    values: list[tuple[str, str]] = []
    for key, given in raw.items():
        if key in _RULE_KEYS:
            continue
        if key not in vocabulary.facet_names:
            raise ValueError(f"{where}: unknown key {key!r}")
        for value in [given] if isinstance(given, str) else given:
            if value not in vocabulary.facet_values(key):
                raise ValueError(f"{where}: {key} has no value {value!r}")
            values.append((key, str(value)))
    kinds_only = all(facet in ("form", "audience", "genre") for facet, _ in values)
    default = DEFAULT_CONFIDENCE["classification" if is_code else "kind" if kinds_only else "other"]
    terms = tuple(str(t).lower() for t in raw.get("terms") or ())
    return Rule(prefix=raw.get("prefix"), pattern=re.compile(raw["pattern"]) if "pattern" in raw else None,
                terms=terms, unless=tuple(str(u) if is_code else str(u).lower() for u in raw.get("unless") or ()),
                values=tuple(values), confidence=float(raw.get("confidence", default)))


def load_crosswalk(vocabulary: Vocabulary, path: Path | None = None) -> Crosswalk:
    """config/crosswalk.yaml, checked against the vocabulary (an unknown value is an error, not a silent miss)."""
    path = path or CROSSWALK_FILE
    raw = read_yaml(path) or {}
    schemes = {scheme: tuple(_rule(r, vocabulary, f"{path}: {scheme} rule {i + 1}", True)
                             for i, r in enumerate(rules or ()))
               for section in ("classification", "coded") for scheme, rules in (raw.get(section) or {}).items()}
    subjects = tuple(_rule(r, vocabulary, f"{path}: subjects rule {i + 1}", False)
                     for i, r in enumerate(raw.get("subjects") or ()))
    words = raw.get("literature_words") or {}
    return Crosswalk(schemes, subjects, Literatures.of(str(w) for language in words.values() for w in language))


@lru_cache(maxsize=1)
def default_crosswalk(vocabulary: Vocabulary) -> Crosswalk:
    return load_crosswalk(vocabulary)
