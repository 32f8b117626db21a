"""A brief's keywords as the BM25 index sees them: which the catalog holds, and how many one book holds together."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from storage.index_store import IndexSnapshot
from tasks.language.text_analysis import bm25_tokens
from tasks.model.query import ThemeQuery


def bm25_query_tokens(query: ThemeQuery, snapshot: IndexSnapshot, max_share: float = 1.0) -> list[str]:
    """The keywords analysed as the index was built (whatever the config says now), without the words no book
    holds or that more than `max_share` of the books hold: those say nothing about which book is meant."""
    tokens = bm25_tokens(" ".join(query.search_keywords), query.language, snapshot.bm25.settings.english_stemming)
    if max_share >= 1.0 or not tokens:
        return tokens
    limit = max_share * snapshot.bm25.size
    frequencies = snapshot.bm25.document_frequencies(tokens)
    return [t for t, df in zip(tokens, frequencies) if 0 < df <= limit]


def most_together(tokens: Sequence[str], snapshot: IndexSnapshot) -> int:
    """How many of the keywords the book that holds most of them holds."""
    if not tokens:
        return 0
    held = sum((snapshot.bm25.scores([token]) > 0).astype(np.int32) for token in dict.fromkeys(tokens))
    return int(np.max(held))
