"""Reader round twenty: words that look like a condition and are the reader's, not the books'. A reader's knowing
denied ("a topic you didn't know about") excludes nothing; a thing new to the reader ("learn something new this year")
names no year of the books. Each test fails without its mechanism (its pack rows or its rule)."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.conditions import NumericCondition as N
from tasks.understanding.reading import EXCLUDED, read_brief

TODAY = date(2026, 11, 29)


def excluded(brief: str) -> set[tuple[str, str]]:
    return {(m.field, m.value) for m in read_brief(brief, get_vocabulary(), today=TODAY).mentions
            if m.polarity == EXCLUDED}


def years(brief: str) -> set[N]:
    return {n for n in read_brief(brief, get_vocabulary(), today=TODAY).numeric if n.field == "pub_year"}


@pytest.mark.parametrize("brief", [
    "Things we didn't know: nonfiction for curious minds",
    "Books you never knew you needed, for the new year",
    "Lives of people you have never heard of",
    "Histories you never learned in school",
    "Pick a subject you don't understand yet and read one good primer on it",
])
def test_a_reader_s_knowing_denied_excludes_nothing(brief):
    # the verb after the negated auxiliary had been excluded as a subject ('know', 'knew', 'coming')
    assert not excluded(brief), excluded(brief)


def test_a_negated_wish_still_excludes():
    # the composed pseudo-negations are verbs of knowing only: "don't want" still leaves the gore off
    assert ("subject", "gore") in {(f, v.lower()) for f, v in excluded("Horror for October, but we don't want gore")}


@pytest.mark.parametrize("brief", [
    "Learn something new this year: a primer on any subject",
    "Try something new this year - a genre you have never read",
])
def test_something_new_to_the_reader_names_no_year(brief):
    # "new" had been the publishing word that made "this year" the books' year: a shelf of 2026 books only
    assert not years(brief), years(brief)


@pytest.mark.parametrize("brief", ["New books this year: the staff's favourites", "Poetry published this year"])
def test_new_books_this_year_are_still_this_year_s(brief):
    assert years(brief) == {N("pub_year", ">=", 2026), N("pub_year", "<=", 2026)}


def test_a_title_is_named_by_its_part_before_the_subtitle():
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex, understand

    books = [BookRecord("f1", "Frankenstein; Or, The Modern Prometheus", authors=("Shelley, Mary",)),
             BookRecord("f2", "Frankenstein; Or, The Modern Prometheus", authors=("Shelley, Mary",)),
             BookRecord("w", "Walden: Or, Life in the Woods", authors=("Thoreau, Henry David",)),
             BookRecord("e1", "Essays: First Series", authors=("Emerson, Ralph Waldo",)),
             BookRecord("d", "Dracula", authors=("Stoker, Bram",)),
             BookRecord("d2", "Dracula: A Graphic Novel", authors=("Someone, Else",))]
    index = EntityIndex.build(books, {}, {})
    # "Books like Frankenstein" had found no book (the catalog's title runs on past its subtitle): no edition was
    # left off the shelf of books like it, and its own headings were the shelf's topic
    found = understand("Books like Frankenstein", index)
    assert (found.intent, set(found.book_ids)) == ("similar_to_book", {"f1", "f2"})
    assert set(understand("If you loved Walden, try these", index).book_ids) == {"w"}
    # a whole title of the catalog stays that book's; a subtitle's part found only written as a title
    assert understand("Books like Dracula", index).book_ids == ("d",)
    assert not understand("Quiet essays for a rainy night", index).titles


@pytest.mark.slow
def test_a_read_alike_s_named_words_are_no_topic_of_its_shelf(demo_workspace):
    from tasks.model.themes import Theme
    from tasks.shelving import build_context
    from tasks.understanding.understand import understand

    tools = build_context(demo_workspace, get_vocabulary()).tools
    # Dubliners' own heading 'Dublin -- Fiction' had been the shelf's topic: the books like it do not carry it
    understood = understand(Theme("t", "t", "Books like Dubliners"), [], tools)
    assert understood.understanding.intent == "similar_to_book"
    assert not [c for c in understood.query.filter_conditions if c.field == "topic"], understood.query.filter_conditions
    # a theme shelf about the city keeps it
    about = understand(Theme("t", "t", "Novels set in Dublin"), [], tools)
    assert any("Dublin" in v for c in about.query.filter_conditions if c.field == "topic" for v in c.values)
