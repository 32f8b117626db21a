"""Reader round twenty-three: a genre listed with kinds of book of other sorts ("memoirs and essays", "报告文学和老天津
回忆录", "a memoir, a self-help toolkit and a book on teen anxiety") is one of the shelf's parts, not required of every
book; a list of one field's values ("小说和散文", "history and biography"), a genre every item says ("crime and
detective fiction") and a form stay required. Each test of the first kind fails without the change; the controls held
before it and must hold after."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.understanding.reading import ALLOWED, WANTED, read_brief

TODAY = date(2026, 11, 29)


def kinds(brief: str) -> dict[tuple[str, str], str]:
    """The brief's kinds of book (form and genre values) with their polarity."""
    return {(m.field, m.value): m.polarity for m in read_brief(brief, get_vocabulary(), today=TODAY).mentions
            if m.field in ("form", "genre")}


@pytest.mark.parametrize("brief, parts", [
    # a genre and a form joined
    ("Math phobia, remembered: memoirs and essays by adults who went back to school in midlife",
     {("genre", "传记回忆")}),
    ("退休以后天天泡图书馆的老读者：给他们一架报告文学和老天津回忆录，字大点", {("genre", "传记回忆")}),
    # a kind beside an item ending in a word for books
    ("Recent reads only, 2022 or newer: a memoir, a self-help toolkit and a book on teen anxiety",
     {("genre", "传记回忆")}),
    ("Road trip shelf: travel guides and mysteries for the passenger seat", {("genre", "推理悬疑")}),
    ("Mysteries and cozy novels for the fireside", {("genre", "推理悬疑")}),
])
def test_kinds_of_different_sorts_listed_together_are_parts_not_requirements(brief, parts):
    read = kinds(brief)
    assert parts <= set(read) and all(read[p] == ALLOWED for p in parts), read


@pytest.mark.parametrize("brief, required", [
    # one field's values: any of them is required
    ("小说和散文，写江南的", {("form", "fiction"), ("form", "essays")}),
    ("History and biography for the reading room", {("genre", "历史"), ("genre", "传记回忆")}),
    # a form after the list is the head of every item that says a kind alone
    ("Crime and detective fiction, leave out Agatha Christie", {("genre", "推理悬疑"), ("form", "fiction")}),
    ("魔幻和奇幻小说，托尔金的不算在内", {("genre", "奇幻")}),
    # a form mixed with a genre: the broad class the list mostly names kinds within
    ("Math phobia, remembered: memoirs and essays by adults who went back to school in midlife", {("form", "essays")}),
    ("Mysteries and cozy novels for the fireside", {("form", "fiction")}),
    # a comma alone sets a description beside the kind
    ("Mysteries, books that keep you up at night", {("genre", "推理悬疑")}),
    # a word for books the brief excludes is no item of the shelf
    ("Get comfy and cozy in December: winter-set novels, no cookbooks or knitting guides this time",
     {("form", "fiction")}),
    # nor one many words away, in a clause of its own
    ("Near-future fiction about robots and AI for adult readers, no kids' books on this one", {("form", "fiction")}),
])
def test_a_list_of_one_fields_kinds_stays_required(brief, required):
    read = kinds(brief)
    assert required <= set(read) and all(read[r] != ALLOWED for r in required), read
    assert any(read[r] == WANTED for r in required), read


def excluded(brief: str) -> set[tuple[str, str]]:
    return {(m.field, m.value) for m in read_brief(brief, get_vocabulary(), today=TODAY).mentions
            if m.polarity == "excluded"}


@pytest.mark.parametrize("brief, title", [
    # a title in 《》 set aside, the catalog holding it or not, had been read as an author of that name
    ("写隐士的书，《空谷幽兰》不放", "空谷幽兰"),
    ("名人书信集，《曾国藩家书》这回先撤下来", "曾国藩家书"),
    # and its words are no topic to exclude (books on cats)
    ("写猫的散文集，《我是猫》这回不放", "我是猫"),
    # a negator of "again" before a verb of shelving (the pack's composed negation_before)
    ("航天科普这回不再放《时间简史》了：天文入门的", "时间简史"),
])
def test_a_title_in_book_quotes_set_aside_is_a_book_not_a_person(brief, title):
    found = excluded(brief)
    assert ("work", title) in found and ("author", title) not in found, found
    assert not {v for f, v in found if f == "subject"} & set(title), found


@pytest.mark.parametrize("brief, person", [
    # a surname alone, excluded after the whole name said as a person's (after "by"), the catalog lacking both
    ("Pirate fiction for adults like The Pyrates by George MacDonald Fraser, comic and rollicking, though not Fraser "
     "again", "George MacDonald Fraser"),
])
def test_a_surname_excluded_after_the_whole_name_is_that_person(brief, person):
    assert ("author", person) in excluded(brief), excluded(brief)


def test_a_place_said_before_is_no_person():
    # the whole phrase said before is a place's, not a person's: the word stays a subject
    assert not {v for f, v in excluded("New York stories, but no York") if f == "author"}


@pytest.mark.parametrize("brief, value", [
    # a degree over a book's thickness or its technical depth: the reading load it names, excluded
    ("给初中生的课外书，别选太厚的，两百页左右", ("reading_load", "需要耐心")),
    ("讲足球战术的科普，不要太专业", ("reading_load", "烧脑硬核")),
    ("写航天人的报告文学，别太技术化", ("reading_load", "烧脑硬核")),
    ("Stargazing for absolute beginners, nothing too technical, plenty of pictures", ("reading_load", "烧脑硬核")),
])
def test_too_thick_or_too_technical_excludes_the_reading_load(brief, value):
    assert value in excluded(brief), excluded(brief)


def test_a_request_word_may_open_the_clause_that_sets_the_author_apart():
    # "请" before "换别人的" had kept the clause from opening with its cue, and the author stayed on the shelf
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex

    index = EntityIndex.build([BookRecord("a", "射雕英雄传", authors=("金庸",))], {}, {})
    read = read_brief("武侠小说读书小组：金庸的书他们都读过了，请换别人的，最好是香港作家", get_vocabulary(), index,
                      today=TODAY)
    assert ("author", "金庸", "excluded") in {(m.field, m.value, m.polarity) for m in read.mentions}


def material_conditions(brief: str) -> set[tuple[str, str]]:
    from tasks.model.themes import Theme
    from tasks.understanding.translate.rules import RulesTranslator

    vocabulary = get_vocabulary()
    query = RulesTranslator(vocabulary).translate(Theme("b", "t", brief), read_brief(brief, vocabulary, today=TODAY))
    return {(c.operator, v) for c in query.filter_conditions if c.field == "material" for v in c.values}


@pytest.mark.parametrize("brief, operator", [
    # a word for books right after the material is a verb or its head, no item of a list beside it
    ("Audiobooks read by their authors", "MUST"),
    # the carrier said after the books ("on audio")
    ("Bill Bryson's travel books on audio for the road", "MUST"),
    # a material listed with books by a joiner is one part of the shelf
    ("books and audiobooks about the sea", "SHOULD"),
])
def test_a_material_is_required_unless_listed_beside_books(brief, operator):
    assert (operator, "audiobook") in material_conditions(brief), material_conditions(brief)


def test_printed_scores_left_out_are_the_score_material():
    # "no printed scores" had excluded a subject string that records of scores do not carry (their leader says so)
    assert ("MUST_NOT", "score") in material_conditions("Cello music for the listening corner, no printed scores")
