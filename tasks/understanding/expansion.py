"""Query expansion step: one query, several variants.

Variants are [original, reformulations, translation, synonyms]; the original is always first and no
text appears twice. The vector path embeds them all in one batched call and keeps, per book, the best
similarity any variant reached (`merge_best`), no variant but the original filling more than its share of
the path; which variant that was is counted and shown.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml
from tasks.language.text_analysis import detect_language
from tasks.model.query import PathHit

_CONNECTIVES = re.compile(r"^(这本书|这是一本|一本|本书|非常|特别|this book|a book|books?)\s*", re.IGNORECASE)
_TARGET = re.compile(r"(适合|给|献给|for readers|for people|for anyone|for those|for when)", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[，,。.；;！!？?\n]")


@dataclass(frozen=True)
class QueryVariant:
    text: str
    kind: str  # original | stripped | core | target | translation | synonyms


@dataclass(frozen=True)
class Expansion:
    variants: tuple[QueryVariant, ...]
    note: str = ""  # why the expansion fell back to the original alone, if it did

    @property
    def texts(self) -> list[str]:
        return [v.text for v in self.variants]


class TermMatcher:
    """Finds a table's terms in a text, case-insensitively, left to right, the longest term first at each
    position; English terms only as whole words ("sad" is not in "saddle"), Chinese ones anywhere.

    A set lookup per position and length: one alternation of the tables' 2,000 terms took 0.7 s to compile
    on every start, more than `shelfwise try` spends on shelving.
    """

    def __init__(self, terms: Iterable[str]):
        self._terms: dict[str, str] = {}  # lower-cased -> as in the table (the first of terms differing in case)
        for term in terms:
            if term:
                self._terms.setdefault(term.lower(), term)
        # the lengths worth trying where a character is, longest first: only those of terms starting with it
        lengths: dict[str, set[int]] = {}
        for term in self._terms:
            lengths.setdefault(term[0], set()).add(len(term))
        self._lengths = {first: sorted(sizes, reverse=True) for first, sizes in lengths.items()}

    def matches(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, the table's term) of every match, not overlapping."""
        lowered = text.lower()
        if len(lowered) != len(text):  # a few letters change length when lowered: match as written
            lowered = text
        found, start = [], 0
        while start < len(lowered):
            sizes = self._lengths.get(lowered[start], ())
            end = next((start + n for n in sizes if self._matches(lowered, start, start + n)), None)
            if end is None:
                start += 1
            else:
                found.append((start, end, self._terms[lowered[start:end]]))
                start = end
        return found

    def _matches(self, text: str, start: int, end: int) -> bool:
        term = text[start:end]
        if end > len(text) or term not in self._terms:
            return False
        return not term.isascii() or not (_word_char(text, start - 1) or _word_char(text, end))

    def findall(self, text: str) -> list[str]:
        """The table's term of every match."""
        return [term for _, _, term in self.matches(text)]

    def sub(self, replace: Callable[[str], str], text: str) -> str:
        """The text with every match replaced by `replace(the table's term)`."""
        out, last = [], 0
        for start, end, term in self.matches(text):
            out += [text[last:start], replace(term)]
            last = end
        return "".join(out) + text[last:]


def _word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isascii() and text[i].isalnum()


@dataclass(frozen=True)
class ExpansionTables:
    """config/term_mapping.yaml (Chinese -> English) and config/synonyms.yaml (groups), ready to match."""

    to_english: dict[str, tuple[str, ...]]
    to_chinese: dict[str, str]  # lower-case English term -> the first Chinese term that maps to it
    synonym_of: dict[str, str]  # lower-case member -> the next member of its group
    chinese_terms: TermMatcher
    english_terms: TermMatcher
    synonym_terms: TermMatcher

    @classmethod
    def build(cls, term_mapping: dict[str, Iterable[str]], synonym_groups: Iterable[Iterable[str]]) -> ExpansionTables:
        to_english = {str(zh): tuple(str(e) for e in en or ()) for zh, en in term_mapping.items()}
        to_chinese: dict[str, str] = {}
        for zh, english in to_english.items():
            for term in english:
                to_chinese.setdefault(term.lower(), zh)
        synonym_of: dict[str, str] = {}
        for group in synonym_groups:
            members = [str(m) for m in group]
            for i, member in enumerate(members):
                # the next member, cyclically: every member of a group has a different synonym to offer
                synonym_of.setdefault(member.lower(), members[(i + 1) % len(members)])
        return cls(to_english, to_chinese, synonym_of, TermMatcher(to_english), TermMatcher(to_chinese),
                   TermMatcher(synonym_of))

    def same_as(self, term: str) -> tuple[str, ...]:
        """The term and the other members of its synonym group ("wwii" -> "world war, 1939-1945", "二战" …)."""
        group, member = [term], self.synonym_of.get(term.lower())
        while member is not None and member.lower() != term.lower() and member not in group:
            group.append(member)
            member = self.synonym_of.get(member.lower())
        return tuple(group)


@lru_cache(maxsize=1)
def load_expansion_tables() -> ExpansionTables:
    """The tables in config/, read once."""
    terms = (read_yaml(CONFIG_DIR / "term_mapping.yaml") or {}).get("terms") or {}
    groups = (read_yaml(CONFIG_DIR / "synonyms.yaml") or {}).get("groups") or []
    return ExpansionTables.build(terms, groups)


def reformulations(query: str) -> list[QueryVariant]:
    """Reformulations: without leading connectives, the core clause and the target clause."""
    clauses = [c.strip() for c in _CLAUSE_BREAK.split(query) if c.strip()]
    target = next((c for c in clauses if _TARGET.search(c)), "")
    return [QueryVariant(_CONNECTIVES.sub("", query).strip(), "stripped"),
            QueryVariant(clauses[0] if clauses else "", "core"), QueryVariant(target, "target")]


def translation(query: str, tables: ExpansionTables) -> str:
    """The query's mapped terms in the other language: Chinese terms to English, English to Chinese."""
    if detect_language(query) == "zh":
        found = tables.chinese_terms.findall(query)
        # a brief's own Latin words (names, "sci-fi") stay: they are already English
        latin = re.findall(r"[A-Za-z][A-Za-z'-]+", query)
        return " ".join(dict.fromkeys([tables.to_english[t][0] for t in found if tables.to_english[t]] + latin))
    found = [t.lower() for t in tables.english_terms.findall(query)]
    return " ".join(dict.fromkeys(tables.to_chinese[t] for t in found))


def with_synonyms(query: str, tables: ExpansionTables) -> str:
    """The query with every term of a synonym group replaced by another member of its group."""
    replaced = tables.synonym_terms.sub(lambda term: tables.synonym_of[term.lower()], query)
    return replaced if replaced != query else ""


def expand_query(query: str, tables: ExpansionTables | None, expand: bool = True) -> Expansion:
    """[original, reformulations, translation, synonyms], original first, no empty or repeated text.

    With `expand` off, or when the tables fail to load or match, only the original and its
    reformulations are searched, and the note says why.
    """
    candidates = [QueryVariant(query, "original"), *reformulations(query)]
    note = ""
    if expand:
        try:
            tables = tables or load_expansion_tables()
            candidates += [QueryVariant(translation(query, tables), "translation"),
                           QueryVariant(with_synonyms(query, tables), "synonyms")]
        except Exception as err:  # noqa: BLE001 - expansion is optional: any failure searches the original alone
            note = f"expansion failed, original query only: {type(err).__name__}: {err}"[:200]
    seen: set[str] = set()
    variants = []
    for variant in candidates:
        key = variant.text.strip().lower()
        if key and key not in seen:
            seen.add(key)
            variants.append(QueryVariant(variant.text.strip(), variant.kind))
    return Expansion(tuple(variants), note)


def merge_best(hits: Iterable[PathHit], limit: int | None = None, max_variant_share: float = 1.0) -> list[PathHit]:
    """One hit per book, the best-scoring one (ties: the earlier), ordered by score then book id. With a
    limit, the first `limit` books, of which no variant but the original takes more than `max_variant_share`:
    a book that variant found best keeps its best hit from another variant, if any."""
    # Each variant is its own query, its similarities on its own scale: a short translation into the
    # language of half the catalog can outscore the brief itself on every book of that language.
    ordered = sorted(hits, key=lambda h: -h.score)  # stable: of equal scores, the earlier
    cap = len(ordered) if limit is None else max(1, int(limit * max_variant_share))
    best: dict[str, PathHit] = {}
    taken: Counter[str] = Counter()
    for hit in ordered:
        if hit.book_id in best or (hit.variant != "original" and taken[hit.variant] >= cap):
            continue
        best[hit.book_id] = hit
        taken[hit.variant] += 1
        if len(best) == limit:
            break
    return sorted(best.values(), key=lambda h: (-h.score, h.book_id))


def contributions(hits: Iterable[PathHit]) -> dict[str, int]:
    """How many books each query variant found best, largest first."""
    counts = Counter(h.variant for h in hits)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
