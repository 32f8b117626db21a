"""What a brief asks for (its intent), what it names, and how each intent is shelved.

The intents: a theme shelf (the default), an author spotlight ("鲁迅作品专题"), a series in reading
order ("三体系列"), books similar to a named book ("像《边城》那样的书"), new arrivals ("本月新书：科幻"),
and unknown (nothing recognisable: gating asks the curator). POLICIES says, per intent, everything
the later steps do differently, so that no step compares intent names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tasks.language.text_analysis import brief_stopwords, tokenize
from tasks.model.intent import POLICIES, Intent, Understanding
from tasks.model.query import ThemeQuery


def settle_intent(understanding: Understanding, query: ThemeQuery, catalog_words: int | None = None,
                  together: Callable[[], int] | None = None) -> Understanding:
    """A theme shelf with no condition and no number is unknown, for gating to ask what is meant, when no word
    of it is in the catalog (`catalog_words`, or its keywords where the catalog was not asked), or when it has
    several keywords and no book holds two of them (`together`, asked only then: it scores the whole
    catalog once per keyword): "the purple Wednesday of numbers"."""
    if (understanding.intent is not Intent.THEME_SHELF or query.filter_conditions or query.numeric_conditions):
        return understanding
    words = len(query.search_keywords) if catalog_words is None else catalog_words
    if not words or (together is not None and len(query.search_keywords) >= 2 and together() < 2):
        return replace(understanding, intent=Intent.UNKNOWN)
    return understanding


def raise_confidence(query: ThemeQuery, understanding: Understanding) -> ThemeQuery:
    """The translation's confidence, raised to the floor the intent's policy sets."""
    policy = POLICIES[understanding.intent]
    floor = policy.confidence_floor * (understanding.confidence if policy.floor_follows_entities else 1.0)
    return replace(query, confidence=max(query.confidence, floor)) if floor > 0 else query


def without_named_words(query: ThemeQuery, understanding: Understanding) -> ThemeQuery:
    """A read-alike's keywords without the words of the books and authors it names, nor words about books: its
    own paths carry the named book, and BM25 on its words finds other titles ("Something like Gone Girl" had
    shelved Gone with the Wind and "Something Like Fate"). Naming a book, the brief is about books, which the
    reading alone did not know."""
    if understanding.intent is not Intent.SIMILAR_TO_BOOK:
        return query
    named = {w for name in (*understanding.titles, *understanding.authors) for language in ("en", "zh")
             for w in tokenize(name, language)}
    filler = brief_stopwords()
    keywords = tuple(k for k in query.search_keywords if k.lower() not in named and k.lower() not in filler)
    return replace(query, search_keywords=keywords) if keywords != query.search_keywords else query
