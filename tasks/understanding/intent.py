"""What a brief asks for (its intent), what it names, and how each intent is shelved.

The intents: a theme shelf (the default), an author spotlight ("鲁迅作品专题"), a series in reading
order ("三体系列"), books similar to a named book ("像《边城》那样的书"), new arrivals ("本月新书：科幻"),
and unknown (nothing recognisable: gating asks the curator). POLICIES says, per intent, everything
the later steps do differently, so that no step compares intent names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from tasks.language.text_analysis import brief_stopwords, words_either_way
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
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
    named = named_words(understanding)
    filler = brief_stopwords()
    keywords = tuple(k for k in query.search_keywords if k.lower() not in named and k.lower() not in filler)
    return replace(query, search_keywords=keywords) if keywords != query.search_keywords else query


def named_words(understanding: Understanding) -> frozenset[str]:
    """A read-alike's words of the books and authors it names, lower-cased: no topic of its shelf, for the books
    like it need not hold them ("Books like Frankenstein" is no shelf of books under 'Frankenstein -- Fiction')."""
    if understanding.intent is not Intent.SIMILAR_TO_BOOK:
        return frozenset()
    return frozenset().union(*(words_either_way(name) for name in (*understanding.titles, *understanding.authors)))


def keeping_named_kind(query: ThemeQuery, understanding: Understanding, books: Mapping[str, BookRecord],
                       confidence: float) -> ThemeQuery:
    """A read-alike keeps its book's form and audience where the brief says neither: "like 白夜行" is novels,
    not essays or religion that sit near it in meaning; "like The Secret History" no children's books. The form
    is one the record holds surely (`confidence`: the filters'), for most of the works named (a "for fans of"
    names an author's books)."""
    if understanding.intent is not Intent.SIMILAR_TO_BOOK:
        return query
    named = list({(b.work_id or b.book_id): b for b in (books[i] for i in understanding.book_ids if i in books)}.values())
    if not named:
        return query
    asked = {c.field for c in query.filter_conditions}
    added = []
    if not asked & {"form", "genre"}:
        held = [book.values_at("form", confidence) for book in named]
        forms = sorted({f for forms in held for f in forms if sum(f in h for h in held) * 2 > len(held)})
        added += [FilterCondition("form", tuple(forms), "MUST")] if forms else []
    if "audience" not in asked:
        children = [bool(b.values_at("audience", confidence)) for b in named]
        if not any(children):
            added.append(FilterCondition("audience", ("children",), "MUST_NOT"))
        elif all(children):
            added.append(FilterCondition("audience", ("children",), "MUST"))
    return replace(query, filter_conditions=(*query.filter_conditions, *added)) if added else query
