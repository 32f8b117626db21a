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


@pytest.mark.parametrize("brief, code", [
    ("Books in French for our francophone readers", "fr"),
    ("Japanese-language originals for the exchange students", "ja"),
    ("法文原版书，给法语角的读者", "fr"),
    ("来几本日语书", "ja"),
])
def test_a_language_beyond_the_packs_is_the_books_language(brief, code):
    # only English and Chinese had been languages a brief could ask for: "Books in French" wished for the subject France
    mentions = read_brief(brief, get_vocabulary(), today=TODAY).mentions
    assert ("language", code) in {(m.field, m.value) for m in mentions if m.polarity != EXCLUDED}, mentions


def test_a_nation_s_novels_are_its_literature_not_its_language():
    # "French novels" may be translations: the literature, never the books' language
    mentions = read_brief("French novels for the book club", get_vocabulary(), today=TODAY).mentions
    assert not [m for m in mentions if m.field == "language"]


def _index():
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex

    return EntityIndex.build([BookRecord("b1", "A Walk in the Woods", authors=("Bill Bryson",)),
                              BookRecord("t1", "The Great Railway Bazaar", authors=("Paul Theroux",)),
                              BookRecord("g1", "Coraline", authors=("Neil Gaiman",)),
                              BookRecord("p1", "Mort", authors=("Terry Pratchett",)),
                              BookRecord("a1", "Little Women", authors=("Louisa May Alcott",)),
                              BookRecord("m1", "Beloved", authors=("Toni Morrison",)),
                              BookRecord("s1", "撒哈拉的故事", authors=("三毛",)),
                              BookRecord("x1", "七里香", authors=("席慕蓉",)),
                              BookRecord("l1", "呐喊", authors=("鲁迅",))], {}, {})


def _intent(brief: str) -> str:
    from tasks.understanding.entities import understand_reading

    index = _index()
    return understand_reading(read_brief(brief, get_vocabulary(), index, today=TODAY), index).intent


@pytest.mark.parametrize("brief", [
    "Travel books that are really coming-of-age tales; anything by Bill Bryson or Paul Theroux is welcome",
    "Thanksgiving for grown-ups: Anne Tyler, Alcott's holiday story and other family novels",
    "Challenged novels for Banned Books Week; Toni Morrison's books already have their own shelf",
])
def test_authors_permitted_named_as_examples_or_shelved_elsewhere_are_no_spotlight(brief):
    # each had been an author spotlight: a shelf of those authors' books alone
    assert _intent(brief) == "theme_shelf"


@pytest.mark.parametrize("brief", ["Books by Neil Gaiman or Terry Pratchett", "Toni Morrison's novels"])
def test_authors_asked_for_are_still_a_spotlight(brief):
    assert _intent(brief) == "author_spotlight"


def test_besides_authors_more_of_their_kind_excludes_none():
    # "之外，再找几位": the named writers stay, more are wanted; "以外的" before what it modifies still sets them apart
    index = _index()
    more = read_brief("三毛、席慕蓉之外，再找几位台湾女作家的散文", get_vocabulary(), index, today=TODAY)
    assert not [m for m in more.mentions if m.field == "author" and m.polarity == EXCLUDED]
    apart = read_brief("鲁迅以外的民国作家的散文", get_vocabulary(), index, today=TODAY)
    assert ("author", "鲁迅") in {(m.field, m.value) for m in apart.mentions if m.polarity == EXCLUDED}


@pytest.mark.parametrize("brief, author", [
    ("社会派推理，宫部美幸本人的不放", "宫部美幸"),  # a name the catalog and the dictionary lack, marked by 本人
    ("女作家散文这期：林清玄的不算进来", "林清玄"),  # "not counted in"
])
def test_an_author_left_out_in_other_words_is_excluded(brief, author):
    mentions = read_brief(brief, get_vocabulary(), _index(), today=TODAY).mentions
    assert ("author", author) in {(m.field, m.value) for m in mentions if m.polarity == EXCLUDED}, mentions


@pytest.mark.parametrize("brief, value", [
    ("Walking books for the spring: long hikes and rambles, nothing about travel by car", "旅途之中"),
    ("Love stories, but no romance between teachers and students", "浪漫深情"),
])
def test_a_value_joined_to_a_narrower_thing_excludes_only_that(brief, value):
    # the whole value had been excluded: a walking shelf without travel, a love-story shelf without romance
    mentions = read_brief(brief, get_vocabulary(), today=TODAY).mentions
    assert value not in {m.value for m in mentions if m.polarity == EXCLUDED}, mentions
    assert [m for m in mentions if m.field == "subject" and m.polarity == EXCLUDED], mentions


def test_a_value_excluded_plainly_is_still_excluded():
    mentions = read_brief("Walking books, but no travel guides", get_vocabulary(), today=TODAY).mentions
    assert "旅途之中" in {m.value for m in mentions if m.polarity == EXCLUDED}, mentions


@pytest.mark.parametrize("brief", ["Locked-room puzzles from 1934 or thereabouts", "1930年前后的推理小说",
                                   "Detective novels from 1925 or so"])
def test_a_year_said_roughly_bounds_nothing(brief):
    # "from 1934 or thereabouts" had been "1934 on", "1930年前后" "before 1930" (前 read as its comparator)
    assert not years(brief), years(brief)


def test_a_bound_said_of_a_rough_number_still_holds():
    numeric = read_brief("around 250 pages at most, a mystery", get_vocabulary(), today=TODAY).numeric
    assert N("pages", "<=", 250) in numeric, numeric


def test_a_surname_several_authors_share_is_the_one_whose_book_the_brief_names():
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex

    index = EntityIndex.build([BookRecord("j1", "Dubliners", authors=("James Joyce",)),
                               BookRecord("r1", "The Unlikely Pilgrimage of Harold Fry", authors=("Rachel Joyce",)),
                               BookRecord("t1", "Brooklyn", authors=("Colm Tóibín",))], {}, {})

    def excluded_authors(brief: str) -> set[str]:
        return {m.value for m in read_brief(brief, get_vocabulary(), index, today=TODAY).mentions
                if m.field == "author" and m.polarity == EXCLUDED}
    # "Joyce" had been excluded as written, no catalog author: James Joyce's books stayed on the shelf
    assert excluded_authors("Irish fiction, nothing by Joyce; Dubliners was on last year's display") == {"James Joyce"}
    assert excluded_authors("Irish fiction, nothing by Joyce") == {"James Joyce", "Rachel Joyce"}


def test_not_shelved_again_excludes_the_author():
    mentions = read_brief("写父母老去的散文，杨绛本人的不重复放", get_vocabulary(), _index(), today=TODAY).mentions
    assert ("author", "杨绛") in {(m.field, m.value) for m in mentions if m.polarity == EXCLUDED}, mentions


@pytest.mark.parametrize("brief", ["Banned Books Week: last year's most challenged titles",
                                   "Irish fiction; Dubliners was on last year's display"])
def test_something_of_last_year_is_no_span_of_the_books_years(brief):
    # "last year's" had read as "from the last year": a shelf of books published since 2025
    assert not years(brief), years(brief)


def test_books_from_the_last_year_are_still_a_span():
    assert years("Books from the last year, anything goes") == {N("pub_year", ">=", 2025)}


def test_a_possessive_standing_alone_is_the_books_own_year():
    # "this year's and last year's" leave their noun out: the books of those years
    assert years("New picture books only, this year's and last year's, nothing about Thanksgiving") == {
        N("pub_year", ">=", 2025)}
