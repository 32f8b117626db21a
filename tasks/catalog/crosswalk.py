"""Crosswalk step: classification codes and subject headings to vocabulary values, form and audience.

config/crosswalk.yaml holds the rules (CLC, DDC and LCC classes; LCSH, 主题词 and reader tags) and
documents how they match. Per code or heading only the most specific matching rule counts (the longest
prefix, pattern match or term); a rule whose `unless` is present does not apply; each winning rule gives
its values with its confidence, and says what it came from ("clc I247.5", "subject 科幻小说").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from config.settings import CONFIG_DIR
from config.vocabulary import Vocabulary
from config.yaml_files import read_yaml
from tasks.model.books import BookRecord, Facet

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


@dataclass(frozen=True)
class Crosswalk:
    schemes: dict[str, tuple[Rule, ...]]  # classification scheme -> rules
    subjects: tuple[Rule, ...]

    def facets(self, book: BookRecord) -> list[Facet]:
        """The values the book's classification codes and subject headings give, each from its winning rule."""
        found = []
        for code in book.classification:
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
        return found


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
               for scheme, rules in (raw.get("classification") or {}).items()}
    subjects = tuple(_rule(r, vocabulary, f"{path}: subjects rule {i + 1}", False)
                     for i, r in enumerate(raw.get("subjects") or ()))
    return Crosswalk(schemes, subjects)


@lru_cache(maxsize=1)
def default_crosswalk(vocabulary: Vocabulary) -> Crosswalk:
    return load_crosswalk(vocabulary)
