"""Reader round fourteen: each mechanism through whole briefs, worded apart from the fragment tables and from the
round's own wordings. Each test fails without its mechanism (its pack rows or its rule)."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.books import BookRecord
from tasks.model.conditions import NumericCondition as N
from tasks.understanding.entities import EntityIndex, understand
from tasks.understanding.reading import ALLOWED, EXCLUDED, READER, REQUIRED, WANTED, read_brief

TODAY = date(2026, 11, 22)
BOOKS = [BookRecord("z1", "活着", authors=("余华",)), BookRecord("z2", "白夜行", authors=("东野圭吾",)),
         BookRecord("z3", "长恨歌", authors=("王安忆",)), BookRecord("e1", "Piranesi", authors=("Susanna Clarke",)),
         BookRecord("e2", "Gilead", authors=("Marilynne Robinson",)),
         BookRecord("e3", "Walden", authors=("Henry David Thoreau",)),
         BookRecord("e4", "A Walk in the Woods", authors=("Bill Bryson",)),
         BookRecord("z4", "射雕英雄传", authors=("金庸",))]
INDEX = EntityIndex.build(BOOKS, {})


def said(brief: str) -> set[tuple[str, str, str]]:
    return {(m.field, m.value, m.polarity) for m in read_brief(brief, get_vocabulary(), INDEX, today=TODAY).mentions}


@pytest.mark.parametrize("brief, bound", [
    ("十年内出版的散文", N("pub_year", ">=", 2016)),
    ("三十年以内的推理小说", N("pub_year", ">=", 1996)),
    ("这二十年里出版的历史书", N("pub_year", ">=", 2006)),
    ("essays published within a hundred years", N("pub_year", ">=", 1926)),
    ("poetry published within fifty years", N("pub_year", ">=", 1976)),
])
def test_a_span_of_years_with_a_word_of_within_is_the_books_age(brief, bound):
    """numbers.yaml `within_after` / `within_before`: a number of years inside a word of within is counted back from
    this year; "十年内出版的" had been no condition, as a compared number of years needed a publishing word before it."""
    assert bound in read_brief(brief, get_vocabulary(), today=TODAY).numeric, brief


@pytest.mark.parametrize("brief", ["一年内没人借过的好书", "1990年以内的小说"])
def test_a_within_span_of_something_else_or_a_year_is_no_age(brief):
    """A span followed by another thing's verb (borrowing) is that thing's time; a year is never within (guards on
    the rule above)."""
    assert not [n for n in read_brief(brief, get_vocabulary(), today=TODAY).numeric if n.field == "pub_year"
                and n.value > 1990], brief


@pytest.mark.parametrize("brief, title", [
    ("books of the Piranesi kind, for a winter night", "Piranesi"),
    ("a Gilead sort of novel, slow and kind", "Gilead"),
    ("something of the same type as Walden", "Walden"),
    ("《活着》类型的书，再来几本", "活着"),
    ("找几本《长恨歌》这个类型的小说", "长恨歌"),
    ("《白夜行》那一型的推理", "白夜行"),
    # more of what a book named before is about (readings.yaml alike_composed `more`)
    ("The book club read Walden; now a few more stories about solitude", "Walden"),
])
def test_a_word_of_kind_beside_a_title_makes_it_a_model(brief, title):
    """readings.yaml `alike_beside` and `alike_beside_composed` (every pointer before every word of kind) and the
    likeness "same type as": the title is the read-alike's model, not a book required."""
    found = understand(brief, INDEX)
    assert (found.intent, found.titles) == ("similar_to_book", (title,)), brief


@pytest.mark.parametrize("brief, author", [
    ("Travel books, just not Bryson's own", "Bill Bryson"),
    ("Nature writing, Thoreau's excluded", "Henry David Thoreau"),
    ("Gothic novels; Clarke has had her turn", "Susanna Clarke"),
    ("Nature books, and leave Thoreau out of it", "Henry David Thoreau"),
    ("Fantasy, and nobody wants another Susanna Clarke", "Susanna Clarke"),
    ("推理小说，东野圭吾的先放一放", "东野圭吾"),
])
def test_an_author_excluded_by_a_possessive_or_an_unseen_cue(brief, author):
    """A catalog author's short name with a possessive mark is the author (it had been the subject "bryson's"); the
    cues of a turn had, a rest given, a seat out, nobody's wish, 先放一放 exclude."""
    found = said(brief)
    assert ("author", author, EXCLUDED) in found and ("author", author, WANTED) not in found, found


@pytest.mark.parametrize("brief, name", [("当代散文，冯骥才的除外", "冯骥才"), ("小说，不要郭敬明的", "郭敬明")])
def test_a_name_the_tokenizer_knows_as_a_persons_is_an_excluded_author(brief, name):
    """readings.yaml `person_names`: a word jieba's dictionary tags as a person's name is an author, in the catalog
    or not; it had been an excluded subject heading's word."""
    found = said(brief)
    assert ("author", name, EXCLUDED) in found and ("subject", name, EXCLUDED) not in found, found


def test_a_short_word_the_tokenizer_tags_as_a_name_stays_a_topic():
    """Two characters are below `min_length`: 武侠 (tagged nr) is a kind of fiction, no author."""
    assert not [m for m in read_brief("小说，武侠的除外", get_vocabulary(), INDEX).mentions if m.field == "author"]


@pytest.mark.parametrize("brief, held, not_held", [
    ("只要武侠", ("form", "fiction", REQUIRED), ("form", "fiction", EXCLUDED)),
    ("历史小说，不要武侠", ("subject", "武侠", EXCLUDED), ("form", "fiction", EXCLUDED)),
    ("不要言情，其他小说都可以", ("emotional_tone", "浪漫深情", EXCLUDED), ("form", "fiction", EXCLUDED)),
    ("只要玄幻", ("genre", "奇幻", REQUIRED), ("genre", "奇幻", EXCLUDED)),
])
def test_a_genre_word_is_a_kind_of_its_form_and_excluded_only_that_kind(brief, held, not_held):
    """readings.yaml `kinds`: 武侠, 言情 are fiction, 玄幻 fantasy; excluded, the kind alone goes (the value the word
    names, else a subject), never every novel (the exclusions guard the rule the kinds' rows need)."""
    found = said(brief)
    assert held in found and not_held not in found, found


@pytest.mark.parametrize("brief, kind", [
    ("童书为主，给家长放几本散文", ("form", "essays")),
    ("Picture books about snow, plus a poetry collection for the parents", ("form", "poetry")),
])
def test_a_kind_given_to_a_reader_beside_childrens_books_is_a_part(brief, kind):
    """Children named by their books alone and a reader given a kind in another clause: a shelf in parts, the kind a
    wish (it had been required of every book), the children's books no condition."""
    found = said(brief)
    assert (*kind, ALLOWED) in found and (*kind, WANTED) not in found, found
    assert ("audience", "children", EXCLUDED) not in found, found


@pytest.mark.parametrize("brief, held, not_held", [
    ("Books about rivers, and a handful of poems", ("form", "poetry", ALLOWED), ("form", "poetry", WANTED)),
    ("Garden books for grown-ups and a couple for the kids", ("audience", "children", READER),
     ("audience", "children", EXCLUDED)),
])
def test_a_few_without_a_number_is_a_small_count(brief, held, not_held):
    """numbers.yaml `few`: "a handful of", "a couple" count a part of the shelf as "two or three" does."""
    found = said(brief)
    assert held in found and not_held not in found, found


@pytest.mark.parametrize("brief, author", [
    ("Gothic novels: Susanna Clarke had the autumn, so a different author this time", "Susanna Clarke"),
    ("金庸的已经读了很多，所以换个作家", "金庸"),
])
def test_a_clause_asking_for_another_author_sets_the_one_before_apart(brief, author):
    """cues.yaml `others` in English ("a different author", "someone else") and clauses.yaml `connectives` ("so",
    所以) before it: the author named in the clause before is excluded, as "鲁迅不算，其他…" is."""
    found = said(brief)
    assert ("author", author, EXCLUDED) in found and ("author", author, WANTED) not in found, found
