"""Spans of text found by several matchers, reduced to the ones a reading keeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Span = TypeVar("Span", bound=tuple)


def longest_apart(found: Sequence[Span]) -> list[Span]:
    """The spans (start, end, ...) that overlap no longer one, in text order; the earlier wins a tie."""
    kept: list[Span] = []
    for item in sorted(found, key=lambda f: (-(f[1] - f[0]), f[0])):
        if all(item[1] <= k[0] or item[0] >= k[1] for k in kept):
            kept.append(item)
    return sorted(kept)
