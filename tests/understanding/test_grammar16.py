"""Reader round sixteen: each mechanism through whole briefs, worded apart from the round's own probes. Each test
fails without its mechanism (its pack rows or its rule)."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.books import BookRecord
from tasks.understanding.analysis import read_alike_forms, titled_after_alike
from tasks.understanding.entities import EntityIndex
from tasks.understanding.reading import ALLOWED, EXCLUDED, REFERRED, WANTED, read_brief

TODAY = date(2026, 11, 28)
BOOKS = [BookRecord("z1", "长恨歌", authors=("王安忆",)), BookRecord("z2", "白夜行", authors=("东野圭吾",)),
         BookRecord("e1", "Gilead", authors=("Marilynne Robinson",))]
INDEX = EntityIndex.build(BOOKS, {})


def said(brief: str) -> set[tuple[str, str, str]]:
    return {(m.field, m.value, m.polarity) for m in read_brief(brief, get_vocabulary(), INDEX, today=TODAY).mentions}


@pytest.mark.parametrize("brief, author", [
    ("悬疑专题，东野圭吾的暂时下架", "东野圭吾"),
    ("海派小说，王安忆的这回就不上了", "王安忆"),
    ("都市文学里王安忆的先撤掉", "王安忆"),
])
def test_a_verb_of_taking_books_off_the_shelf_after_a_name_excludes_the_author(brief, author):
    """zh cues.yaml: the verbs of taking off the shelf (撤下, 下架 …) and 上了 after the composed heads (就不, 这回不 …):
    the name before them had been searched for, no condition."""
    assert ("author", author, EXCLUDED) in said(brief), brief


def test_a_title_waited_for_is_a_read_alikes_model():
    """readings.yaml `read_alike` (waiting for) and `alike_before` before a title in title case: "the next Wayfarers"
    had been no title, the brief no read-alike."""
    brief = "Something to tide you over until the next Wayfarers"
    assert [brief[a:b] for a, b in titled_after_alike(brief)] == ["Wayfarers"]
    assert read_alike_forms().search("等《长恨歌》续集的时候翻翻")


@pytest.mark.parametrize("brief, narrower", [("诗集展，打油诗不要", "打油诗"), ("小说专区，中篇小说就不放了", "中篇小说")])
def test_a_narrower_kind_excluded_beside_the_kind_asked_for_excludes_its_words(brief, narrower):
    """reading._narrower_topics for forms as for genres: the same form asked for by one word and excluded by another
    had been both required and excluded, a shelf nothing can fill."""
    found = said(brief)
    assert not {m for m in found if m[0] == "form" and m[2] == EXCLUDED}, found
    assert ("subject", narrower, EXCLUDED) in found, found


@pytest.mark.parametrize("brief, earlier, now", [
    ("上周是科幻，这周换推理", ("genre", "科幻"), ("genre", "推理悬疑")),
    ("Last week was memoirs; this week, mysteries", ("genre", "传记回忆"), ("genre", "推理悬疑")),
])
def test_a_kind_said_of_an_earlier_time_set_against_this_one_is_not_asked(brief, earlier, now):
    """cues.yaml `reference_present`: a clause of an earlier time before one of this shelf's time describes what was
    shelved then; its kind had been wished for beside the one asked."""
    found = said(brief)
    assert (*earlier, REFERRED) in found and (*now, WANTED) in found, found


@pytest.mark.parametrize("brief, kind, parted", [
    ("散文和一些给新手爸妈的书", ("form", "essays"), True),
    ("Mysteries and a couple of books for new grandparents", ("genre", "推理悬疑"), True),
    ("Mysteries for new grandparents", ("genre", "推理悬疑"), False),
    # (a genre listed with a form is one part of the shelf by itself since round twenty-three: two genres here)
    ("Thrillers and mysteries for new grandparents", ("genre", "推理悬疑"), False),
])
def test_a_kind_listed_beside_books_given_to_a_reader_is_one_part_of_the_shelf(brief, kind, parted):
    """evidence._listed_with_readers_books: the kind had been required of every book, the reader's part too; a kind
    given to the reader itself, or with another kind between, stays asked of the shelf."""
    assert (*kind, ALLOWED if parted else WANTED) in said(brief), said(brief)


@pytest.mark.parametrize("brief, kind", [
    ("尽量放散文", ("form", "essays")),
    ("偏向于推理一些", ("genre", "推理悬疑")),
    ("ideally mysteries, for the book club", ("genre", "推理悬疑")),
])
def test_a_preference_before_a_kind_wishes_for_it(brief, kind):
    """cues.yaml `preference_before` (kinds.yaml: allow, next value): the kind right after a preference had been
    required of every book."""
    assert (*kind, ALLOWED) in said(brief), said(brief)


def test_the_best_is_no_preference():
    """最好的 is "the best": the kind after it stays asked for (the pack lists 最好是, 最好选 …, never 最好 alone)."""
    assert ("genre", "推理悬疑", WANTED) in said("最好的推理小说")


@pytest.mark.parametrize("brief, genre", [("周末来几本悬疑的", True), ("悬疑、科幻都可以", True),
                                          ("有点悬疑的乡村小说", False), ("悬疑感强的散文", False)])
def test_suspense_ending_its_phrase_names_the_books_and_before_a_kind_their_mood(brief, genre):
    """zh readings.yaml `kind_heads` 推理悬疑: [悬疑], and a particle counting as the phrase's end only where the
    phrase ends after it: 悬疑 alone had been the mood only, the shelf any book with suspense in it."""
    assert (("genre", "推理悬疑") in {m[:2] for m in said(brief)}) is genre, said(brief)


@pytest.mark.parametrize("brief, author", [
    ("Small-town novels. Gilead was on the spring table, so keep Robinson out", "Marilynne Robinson"),
    ("Novels of faith, but cross Robinson off the list", "Marilynne Robinson"),
    ("推理小说，把东野圭吾的撤掉", "东野圭吾"),
])
def test_a_negation_of_two_parts_excludes_what_stands_between_them(brief, author):
    """cues.yaml `negation_enclosing` (kinds.yaml direction enclosed): a pronoun between the parts is the author named
    last. "leave him off" had excluded nothing, the name before it read as a wish."""
    found = said(brief)
    assert ("author", author, EXCLUDED) in found and ("author", author, WANTED) not in found, found


def test_an_enclosing_negation_holds_a_few_words_of_one_clause_only():
    """The parts must stand in one clause, a few words apart: "leave" and a later "out" are no negation."""
    found = said("Leave room for Gilead fans, and the picture books, out front")
    assert not {m for m in found if m[2] == EXCLUDED}, found


@pytest.mark.parametrize("brief", ["Dystopias, and no The Road this time",
                                   "Skip A Gentleman in Moscow, it was out in May"])
def test_a_title_the_catalog_lacks_excluded_names_no_author_subject_or_value(brief):
    """readings.yaml `title_articles` and analysis.titles_within: an article among capitalised words makes them a
    title; its words had been read as an author ("Gentleman in Moscow") and as subjects to exclude."""
    found = said(brief)
    assert not {m for m in found if m[2] == EXCLUDED and m[0] in ("author", "subject")}, found


def test_a_persons_name_excluded_stays_an_author():
    """No article in a name: "skip Ursula K. Le Guin" still excludes the author (guard on the rule above)."""
    assert ("author", "Ursula K. Le Guin", EXCLUDED) in said("Fantasy, but skip Ursula K. Le Guin this time")


@pytest.mark.parametrize("brief, part", [("Books about the sea, plus a board book or two for the little ones", True),
                                         ("海洋主题，再配两三本绘本", True), ("Board books about the sea", False)])
def test_a_few_childrens_books_added_to_a_shelf_are_a_part_for_children(brief, part):
    """evidence.counted_parts for the audience as for kinds: a small count of children's books in a clause that adds
    had made the whole shelf a children's shelf."""
    found = said(brief)
    assert (("audience", "children", ALLOWED) in found) is part, found
    assert (("audience", "children", WANTED) in found) is not part, found


@pytest.mark.parametrize("brief, hard", [("2015年以后出版的就行", True), ("2015年以后出版的也行", False)])
def test_a_year_bound_that_suffices_is_asked_and_one_also_allowed_is_a_wish(brief, hard):
    """zh cues.yaml pseudo_negation 就行 / 就可以 / 就好: "X就行" says X suffices, it asks for X; the 行 in it had been a
    permission, the bound only preferred. "也行" still permits (guard)."""
    reading = read_brief(brief, get_vocabulary(), INDEX, today=TODAY)
    assert any(n.field == "pub_year" for n in (reading.numeric if hard else reading.preferred)), reading


@pytest.mark.parametrize("brief, bound", [("memoirs written prior to 1920", ("<", 1920)),
                                          ("poetry predating 1900", ("<", 1900)),
                                          ("novels published after the year 1990", (">", 1990))])
def test_a_year_before_or_after_said_as_a_preposition_or_with_the_year_is_a_bound(brief, bound):
    """en numbers.yaml `before` (prior to, predating) and `determiners` ("the year"): these had been no condition, or
    "before the year 2000" both bounds at once."""
    years = [(n.op, n.value) for n in read_brief(brief, get_vocabulary(), INDEX, today=TODAY).numeric
             if n.field == "pub_year"]
    assert years == [bound], years
