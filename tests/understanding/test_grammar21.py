"""Reader round twenty-one: numbers said the way Chinese curators say them. A rating's 分 between its whole and its
decimal ("七分五" is 7.5), a page count by how thick or long a book is ("厚过四百页的不要"). Each test fails without
its pack row."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.conditions import NumericCondition as N
from tasks.understanding.reading import read_brief

TODAY = date(2026, 11, 29)


def numbers(brief: str) -> set[N]:
    return set(read_brief(brief, get_vocabulary(), today=TODAY).numeric)


@pytest.mark.parametrize("brief, rating", [("科幻小说，评分七分五以上", 7.5), ("豆瓣八分五以上的散文", 8.5)])
def test_a_rating_s_fen_stands_between_its_whole_and_its_decimal(brief, rating):
    # "七分五" had read as a rating of at least 5: the number after 分 alone
    assert numbers(brief) == {N("rating", ">=", rating)}, numbers(brief)


def test_a_rating_in_whole_fen_is_unchanged():
    assert numbers("豆瓣8分以上的小说") == {N("rating", ">=", 8)}


@pytest.mark.parametrize("brief", ["通勤书，厚过四百页的不要", "长过四百页的不要，要轻松一点的"])
def test_thicker_or_longer_than_a_page_count_is_a_page_count(brief):
    # "厚过四百页" had been an excluded subject, and no page count at all
    assert numbers(brief) == {N("pages", "<=", 400)}, numbers(brief)


def conditions(brief: str) -> set[tuple[str, tuple[str, ...], str]]:
    from tasks.understanding.translate.rules import conditions_of
    reading = read_brief(brief, get_vocabulary(), today=TODAY)
    return {(c.field, c.values, c.operator) for c in conditions_of(reading, get_vocabulary())}


@pytest.mark.parametrize("brief, codes", [
    ("A bilingual dog display, books in English or French, either is fine", ("en", "fr")),
    ("Picture books in Spanish or English for story time", ("es", "en")),
])
def test_languages_offered_together_are_the_shelf_s_languages(brief, codes):
    # "French" after "in English or" had been no language, and the "or" left English a wish: any language
    assert ("language", codes, "MUST") in conditions(brief), conditions(brief)


def test_one_language_asked_stays_required_alone():
    assert ("language", ("en",), "MUST") in conditions("novels in English, please")


@pytest.mark.parametrize("brief", ["刘慈欣科幻作品专题，只要小说", "Kazuo Ishiguro novels spotlight"])
def test_a_spotlight_word_after_the_author_s_kind_features_the_author(brief):
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex, understand_reading

    index = EntityIndex.build([BookRecord("l", "三体", authors=("刘慈欣",)),
                               BookRecord("k", "Never Let Me Go", authors=("Kazuo Ishiguro",))], {}, {})
    reading = read_brief(brief, get_vocabulary(), index, today=TODAY)
    # the kind between the name and the spotlight word had made the shelf a theme shelf of that kind by anyone
    assert understand_reading(reading, index).intent == "author_spotlight"


def test_a_choice_of_language_leaves_the_kind_required():
    # the "or" between the languages had offered a choice of things, and the mysteries became a wish
    found = conditions("Mysteries in English or in French")
    poetry = conditions("Latin American poetry, in Spanish or in English translation either way")
    assert ("form", ("poetry",), "MUST") in poetry, poetry
    assert {("genre", ("推理悬疑",), "MUST"), ("language", ("en", "fr"), "MUST")} <= found, found


def excluded_authors(brief: str) -> set[str]:
    from tasks.understanding.reading import EXCLUDED
    return {m.value for m in read_brief(brief, get_vocabulary(), today=TODAY).mentions
            if m.field == "author" and m.polarity == EXCLUDED}


@pytest.mark.parametrize("brief", ["Horror, but nothing by Stephen King", "Horror, but skip Stephen King"])
def test_a_name_after_a_contrast_is_excluded_whole(brief):
    # after "Horror, but" the exclusion had read a quality of one word: the author "Stephen", and no King
    assert excluded_authors(brief) == {"Stephen King"}, excluded_authors(brief)


def test_a_quality_after_a_contrast_is_still_one_word():
    reading = read_brief("funny but not silly essays", get_vocabulary(), today=TODAY)
    assert {("form", "essays")} <= {(m.field, m.value) for m in reading.mentions if m.polarity == "wanted"}


def test_a_surname_with_herself_is_the_author_the_brief_named_in_full():
    # "Mansfield herself" had been the subject string 'mansfield'; the brief named her in full before
    brief = "Collections like Katherine Mansfield's Selected Stories for a Mini May shelf, but leave out Mansfield herself"
    assert excluded_authors(brief) == {"Katherine Mansfield"}, excluded_authors(brief)


@pytest.mark.parametrize("brief, field", [
    ("Caregiving around the clock: practical guides first, a memoir or two second", "genre"),
    ("For adoptive parents: memoirs of adopting, plus a couple of how-to guides", "genre"),
    ("先放报告文学，后面放几本图鉴", "form"),
])
def test_a_kind_beside_a_kind_no_value_names_is_one_part_of_the_shelf(brief, field):
    # the one kind the vocabulary names had been required of every book: the guides could not stand on the shelf
    found = conditions(brief)
    assert not any(f == field and op == "MUST" for f, _, op in found), found


@pytest.mark.parametrize("brief", ["Fantasy novels; the D&D handbooks always walk off, so leave those out",
                                   "Fiction with bicycles in it, but the repair manuals stay in the 796s",
                                   "poetry handbooks for teachers"])
def test_a_kind_set_aside_or_said_with_the_kind_requires_it_still(brief):
    assert any(op == "MUST" and f in ("form", "genre") for f, _, op in conditions(brief)), conditions(brief)


def test_this_issue_and_all_are_no_part_of_an_excluded_name():
    # "梁羽生这一期都不上" had excluded the subject '梁羽生一期都', and "梁羽生都不上" the author '梁羽生都'
    for brief in ("武侠专架，金庸、古龙、梁羽生这一期都不上", "武侠专架，金庸、古龙、梁羽生都不上"):
        assert "梁羽生" in excluded_authors(brief), excluded_authors(brief)


def test_not_shown_this_time_excludes_what_it_follows():
    # "就不展了": 展出 said short, as 上了 is for 上架
    assert "刘慈欣" in excluded_authors("科幻小说，刘慈欣的这次就不展了")


@pytest.mark.parametrize("brief", ["Novels and picture books about winter", "猫当主角的小说和绘本，放在青少年角"])
def test_picture_books_after_a_kind_are_one_part_of_the_shelf(brief):
    # an audience by its books had been an item only before a kind: after it, every book was a child's and a novel
    found = conditions(brief)
    assert not any(op == "MUST" and f in ("audience", "form") for f, _, op in found), found


def test_the_author_excluded_after_a_named_book_is_its_author():
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex

    index = EntityIndex.build([BookRecord("n", "Never Let Me Go", authors=("Kazuo Ishiguro",)),
                               BookRecord("d", "Dracula", authors=("Bram Stoker",))], {}, {})
    reading = read_brief("Books like Never Let Me Go, but nothing by the author himself", get_vocabulary(), index,
                         today=TODAY)
    # "the author himself" had been a person named "author"
    assert {(m.field, m.value) for m in reading.mentions if m.polarity == "excluded"} == {("author", "Kazuo Ishiguro")}


def test_a_range_runs_on_past_a_longer_bound_of_its_first_year():
    # "published from 2000" had won as the longer phrase, and the shelf ran on past 2020
    assert numbers("Chicano studies side by side, published from 2000 to 2020") == {
        N("pub_year", ">=", 2000), N("pub_year", "<=", 2020)}


def test_a_bound_holding_a_decade_whole_stays_a_bound():
    assert numbers("midcentury romances, published in the 1970s or earlier") == {N("pub_year", "<", 1980)}


def test_readers_of_an_age_range_are_an_audience():
    # "for readers 8 to 12" had been no age at all
    assert ("audience", ("children",), "MUST") in conditions("Native scientists and inventors for readers 8 to 12")


@pytest.mark.parametrize("brief", ["劳模事迹为主，也放两三本小说", "别全是悼念题材：加几本轻快的自然散文"])
def test_a_few_put_up_beside_the_rest_are_a_part_of_the_shelf(brief):
    # "也放两三本" and "加几本" had required novels and essays of every book
    found = conditions(brief)
    assert not any(op == "MUST" and f == "form" for f, _, op in found), found


def test_a_few_more_of_the_same_stay_the_shelf():
    found = conditions("借阅排行榜第一是《三体》：再找几本同一路数的国产长篇科幻")
    assert any(op == "MUST" and f == "genre" for f, _, op in found), found


def test_children_s_books_put_elsewhere_make_no_part_of_the_shelf():
    # the little kids' books going to another room had made the teens' novels one part of two: a wish
    found = conditions("Mental health for teens: honest novels about anxiety; the books for little kids go to the "
                       "children's room")
    assert ("form", ("fiction",), "MUST") in found, found
    assert ("genre", ("推理悬疑",), "SHOULD") in conditions("picture books for the littles and thrillers for the teens")


def test_intangible_heritage_is_no_negation():
    # 非遗 (非物质文化遗产) had read 非 as "not": the subject '遗手艺' excluded
    reading = read_brief("非遗手艺的书，给大人看的", get_vocabulary(), today=TODAY)
    assert not [m for m in reading.mentions if m.field == "subject"], reading.mentions


@pytest.mark.parametrize("brief", ["Funny Irish novels, but none by Binchy herself, she had her own table last year",
                                   "We did a horror shelf last year; this year cozy mysteries"])
def test_last_year_in_a_remark_is_no_span_of_the_books_years(brief):
    # a bare "last year" had required books published since 2025, emptying a shelf of older books
    assert not {n for n in numbers(brief) if n.field == "pub_year"}, numbers(brief)


@pytest.mark.parametrize("brief", ["Books from the past year", "Books published last year"])
def test_last_year_of_the_books_is_still_their_year(brief):
    assert {n for n in numbers(brief) if n.field == "pub_year"}, numbers(brief)
