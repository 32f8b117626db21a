"""Intent paths on tiny in-memory catalogs: the co-occurrence graph and new arrivals."""

from dataclasses import replace
from datetime import datetime

from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import All, Compare, hard_constraints
from tasks.model.intent import THEME_SHELF, Intent
from tasks.model.query import ThemeQuery
from tasks.recall.book_graph import BookGraph
from tasks.recall.paths.intent import graph_neighbours, newest_books
from tasks.understanding.entities import EntityIndex, understand
from tasks.understanding.intent import settle_intent

BOOKS = {b.book_id: b for b in [
    BookRecord("a1", "边城", authors=("沈从文",), pub_year=1934, tags={"genre": ("小说",), "mood": ("乡愁",)}),
    BookRecord("a2", "湘行散记", authors=("沈从文",), pub_year=1936, tags={"genre": ("散文",)}),
    BookRecord("b1", "呼兰河传", authors=("萧红",), pub_year=1941, tags={"genre": ("小说",), "mood": ("乡愁",)}),
    BookRecord("c1", "三体", authors=("刘慈欣",), pub_year=2008, tags={"genre": ("科幻",)}),
    BookRecord("c2", "北京折叠", authors=("郝景芳",), pub_year=2012, tags={"genre": ("科幻",)},
               updated_at=datetime(2026, 1, 2)),
    BookRecord("c3", "荒潮", authors=("陈楸帆",), pub_year=2012, tags={"genre": ("科幻",)},
               updated_at=datetime(2026, 3, 4)),
    BookRecord("d1", "无年份", authors=("佚名",), tags={"genre": ("科幻",)}),
]}
EVERYTHING = All(())


def test_graph_neighbours_share_an_author_or_a_tag_and_never_include_the_seed():
    graph = BookGraph.build(BOOKS.values())
    hits = graph_neighbours(("a1",), graph, BOOKS, EVERYTHING, 10)
    ids = [h.book_id for h in hits]
    assert "a1" not in ids
    # the same author outweighs a shared mood; books sharing nothing are not neighbours
    assert ids[:2] == ["a2", "b1"] and "c1" not in ids
    assert all(0.0 < h.score <= 1.0 and h.source == "related" for h in hits)


def test_graph_neighbours_respect_the_constraints():
    graph = BookGraph.build(BOOKS.values())
    hits = graph_neighbours(("a1",), graph, BOOKS, All((Compare("pub_year", ">=", 1940),)), 10)
    assert [h.book_id for h in hits] == ["b1"]


def test_new_arrivals_are_the_newest_books_meeting_the_themes_wishes():
    should = (FilterCondition("genre", ("科幻",), "SHOULD"),)
    hits = newest_books(BOOKS, hard_constraints(()), should, 10, 0.85)
    # newest year first; on a tie the newer catalog entry; a book without a year is not "new"
    assert [h.book_id for h in hits] == ["c3", "c2", "c1"]
    assert hits[0].score == 1.0 and hits[0].score > hits[1].score > hits[2].score > 0


def test_new_arrivals_of_a_catalog_without_tags_count_derived_values_a_filter_trusts():
    from tasks.model.books import Facet

    books = {b.book_id: b for b in [
        BookRecord("x1", "derived sf", pub_year=2020, facets=(Facet("genre", "科幻", 0.9, "crosswalk"),)),
        BookRecord("x2", "a guess", pub_year=2021, facets=(Facet("genre", "科幻", 0.5, "zero-shot"),)),
        BookRecord("x3", "a novel", pub_year=2022, facets=(Facet("genre", "小说", 0.95, "crosswalk"),))]}
    should = (FilterCondition("genre", ("科幻",), "SHOULD"),)
    assert [h.book_id for h in newest_books(books, hard_constraints(()), should, 10, 0.85)] == ["x1"]


def test_a_brief_about_new_books_is_a_new_arrivals_intent():
    index = EntityIndex.build(BOOKS.values(), {})
    assert understand("本月新书：科幻", index).intent == "new_arrivals"
    assert understand("new arrivals in science fiction", index).intent == "new_arrivals"
    assert understand("a newsletter of quiet books", index).intent == "theme_shelf"
    assert understand("沈从文的新书", index).intent == "author_spotlight"


def test_keywords_no_book_holds_together_make_no_theme_but_one_word_or_a_wish_does():
    query = ThemeQuery((), ("purple", "wednesday", "numbers"), "purple wednesday numbers", 0.5, "rules", "en")
    assert settle_intent(THEME_SHELF, query, 3, together=lambda: 1).intent is Intent.UNKNOWN
    assert settle_intent(THEME_SHELF, query, 1, together=lambda: 1).intent is Intent.UNKNOWN  # the catalog has one word
    assert settle_intent(THEME_SHELF, query, 3, together=lambda: 2).intent is Intent.THEME_SHELF
    whales = replace(query, search_keywords=("whales",))
    assert settle_intent(THEME_SHELF, whales, 1, together=lambda: 1).intent is Intent.THEME_SHELF
    wish = replace(query, filter_conditions=(FilterCondition("genre", ("科幻",), "SHOULD"),))
    assert settle_intent(THEME_SHELF, wish, 3, together=lambda: 1).intent is Intent.THEME_SHELF
    assert settle_intent(THEME_SHELF, query, 0).intent is Intent.UNKNOWN


def test_a_read_alike_searches_for_none_of_the_words_of_the_book_it_names():
    from tasks.model.intent import Understanding
    from tasks.understanding.intent import without_named_words

    query = ThemeQuery((), ("something", "gone", "girl", "marriage"), "q", 0.5, "rules", "en")
    alike = Understanding(Intent.SIMILAR_TO_BOOK, authors=("Gillian Flynn",), titles=("Gone Girl",))
    assert without_named_words(query, alike).search_keywords == ("marriage",)
    spotlight = replace(alike, intent=Intent.AUTHOR_SPOTLIGHT)
    assert without_named_words(query, spotlight) == query
    zh = ThemeQuery((), ("边城", "湘西", "小镇"), "q", 0.5, "rules", "zh")
    assert without_named_words(zh, Understanding(Intent.SIMILAR_TO_BOOK, titles=("边城",))).search_keywords == (
        "湘西", "小镇")
