"""Spans of text found by several matchers, reduced to the ones a reading keeps."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TypeVar

from tasks.language.text_analysis import cut

Span = TypeVar("Span", bound=tuple)


def longest_apart(found: Sequence[Span]) -> list[Span]:
    """The spans (start, end, ...) that overlap no longer one, in text order; the earlier wins a tie."""
    kept: list[Span] = []
    for item in sorted(found, key=lambda f: (-(f[1] - f[0]), f[0])):
        if all(item[1] <= k[0] or item[0] >= k[1] for k in kept):
            kept.append(item)
    return sorted(kept)


@lru_cache(maxsize=None)
def regex(pattern: str, flags: int = 0) -> re.Pattern:
    """`pattern` compiled once. Reading a brief builds a pattern per vocabulary term and cue word, more than
    re's own cache of 512 holds: it compiled about 880 a brief (translate 131 ms a theme at 100k books, 28 ms
    with this)."""
    return re.compile(pattern, flags)


@lru_cache(maxsize=8192)  # the vocabulary's and cue tables' terms, asked of every brief
def term_pattern(term: str, plural: bool = False) -> str:
    """Latin terms match whole words ("no" is not in "novel"), with `plural` also their plural ("memoirs",
    "mysteries"); Chinese terms anywhere."""
    if not term.isascii():
        return re.escape(term)
    escaped = re.escape(term)
    if plural and term[-1:].isalpha():
        escaped = rf"(?:{escaped}(?:e?s)?|{re.escape(term[:-1])}ies)" if term.endswith("y") else rf"{escaped}(?:e?s)?"
    # a term that starts or ends with a mark ("'d", "+") has no word edge there: "we'd"
    return (r"(?<![\w-])" if term[:1].isalnum() else "") + escaped + (r"(?![\w-])" if term[-1:].isalnum() else "")


@lru_cache(maxsize=256)
def word_bounds(text: str) -> frozenset[int]:
    """Where jieba puts word boundaries in the text."""
    bounds, position = {0}, 0
    for word in cut(text):
        position += len(word)
        bounds.add(position)
    return frozenset(bounds)


def _straddles(text: str, start: int, end: int) -> bool:
    """Whether a match runs across two of jieba's words ("成人" in "换成|人物")."""
    return any(start < b < end for b in word_bounds(text))


def find_terms(text: str, terms: tuple[str, ...] | list[str], plural: bool = False,
               whole_words: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, term) of every occurrence, case aside; the longest wins where two overlap.

    `whole_words` keeps a Chinese match from running across two words: for short, common-word terms
    ("成人", "大人"). jieba splits too coarsely and too finely to ask it of every term ("别太烧|脑").
    """
    found = [(start, end, term) for term in terms if term for start, end in _occurrences(text, term, plural)
             if not (whole_words and not term.isascii() and _straddles(text, start, end))]
    return longest_apart(found)


def _occurrences(text: str, term: str, plural: bool) -> Iterator[tuple[int, int]]:
    """(start, end) of each occurrence of one term, not overlapping. A term with no cased letter and no
    word bounds (most Chinese ones) is a plain substring: compiling a pattern for each of the vocabulary's
    terms was a quarter of a second of every `shelfwise try`."""
    if not term.isascii() and term.lower() == term.upper():
        start = text.find(term)
        while start >= 0:
            yield start, start + len(term)
            start = text.find(term, start + len(term))
        return
    for match in regex(term_pattern(term, plural), re.IGNORECASE).finditer(text):
        yield match.start(), match.end()
