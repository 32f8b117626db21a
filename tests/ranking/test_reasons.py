"""Why a book is on its shelf: typed reasons, said in the brief's language without internal notation."""

from dataclasses import replace

import pytest

from config.class_ranges import class_ranges
from config.vocabulary import get_vocabulary
from tasks.export.wording import (
    FIELD_PHRASES,
    OR,
    condition_text,
    conditions_text,
    left_out_text,
    status_text,
    why_text,
)
from tasks.model.books import BookRecord, Facet
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.intent import Intent, Understanding
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.reasons import (
    ByNamedAuthor,
    CloseToBrief,
    CloseToNamedBook,
    InNamedSeries,
    LanguageChoice,
    MayBeExcluded,
    Meets,
    MeetsPreferred,
    Mentions,
    NewArrival,
    SharesWithNamedBook,
)
from tasks.model.shelf import ShelfEntry
from tasks.model.themes import HistoryShelf
from tasks.ranking.reasons import explain_shelf, mentioned, shelf_facts
from tasks.recall.book_graph import BookGraph

BIANCHENG = BookRecord("zh-1", "边城", authors=("沈从文",), language="zh",
                       tags={"emotional_tone": ("忧伤怅惘",), "genre": ("小说",)})
XIANGXING = BookRecord("zh-2", "湘行散记", authors=("沈从文",), language="zh", summary="一路写湘西的雨夜与河流。",
                       tags={"emotional_tone": ("怀旧乡愁",), "genre": ("散文随笔",)})
HULAN = BookRecord("zh-3", "呼兰河传", authors=("萧红",), language="zh", tags={"emotional_tone": ("忧伤怅惘",)},
                   facets=(Facet("emotional_tone", "孤独疏离", 0.9, "neighbours"),
                           Facet("emotional_tone", "怀旧乡愁", 0.6, "zero-shot")))
MOBY = BookRecord("en-1", "Moby-Dick", authors=("Herman Melville",), language="en",
                  tags={"spatial_atmosphere": ("海洋岛屿",)})
BILLY = BookRecord("en-2", "Billy Budd", authors=("Herman Melville",), language="en", pub_year=1924,
                   summary="A young sailor on a warship at night.", tags={"spatial_atmosphere": ("海洋岛屿",)})
BOOKS = {b.book_id: b for b in (BIANCHENG, XIANGXING, HULAN, MOBY, BILLY)}
GRAPH = BookGraph.build(BOOKS.values())


def entry(book: BookRecord, *sources: str) -> ShelfEntry:
    return ShelfEntry(1, book, Candidate(book.book_id, list(sources)))


def query(*conditions: FilterCondition, keywords: tuple[str, ...] = (), language: str = "zh") -> ThemeQuery:
    return ThemeQuery(conditions, keywords, "q", 0.8, "rules", language)


def explained(e: ShelfEntry, q: ThemeQuery, understanding: Understanding) -> tuple:
    return explain_shelf([e], q, understanding, BOOKS, GRAPH, facet_confidence=0.85)[0].reasons


def test_a_related_book_names_the_book_and_the_author_it_shares():
    like = Understanding(Intent.SIMILAR_TO_BOOK, titles=("边城",), book_ids=("zh-1",))
    reasons = explained(entry(XIANGXING, "similar", "related", "vector"), query(), like)
    assert reasons == (SharesWithNamedBook("边城", "author", "沈从文"),)
    assert why_text(reasons, "zh") == "与《边城》同一作者：沈从文"
    # a shared tag when no author is shared; similar alone says "close in content"
    reasons = explained(entry(HULAN, "related"), query(), like)
    assert why_text(reasons, "zh") == "与《边城》一样：基调忧伤怅惘"
    assert why_text(explained(entry(HULAN, "similar"), query(), like), "zh") == "与《边城》内容相近"
    melville = Understanding(Intent.SIMILAR_TO_BOOK, titles=("Moby-Dick",), book_ids=("en-1",))
    assert why_text(explained(entry(BILLY, "related"), query(language="en"), melville), "en") == \
        "Same author as Moby-Dick: Herman Melville"
    assert why_text((SharesWithNamedBook("Moby-Dick", "subject", "Sea stories"),), "en") == \
        "Shares the subject 'Sea stories' with Moby-Dick"


def test_spotlit_authors_series_and_new_arrivals_say_so():
    spotlight = Understanding(Intent.AUTHOR_SPOTLIGHT, authors=("沈从文",), book_ids=("zh-1", "zh-2"))
    reasons = explained(entry(XIANGXING, "entity"), query(keywords=("沈从文", "雨夜", "写")), spotlight)
    # the author is not said twice, a single character ("写") says nothing alone
    assert reasons == (ByNamedAuthor("沈从文"), Mentions("summary", ("雨夜",)))
    assert why_text(reasons, "zh") == "沈从文的作品；简介提到「雨夜」"
    series = Understanding(Intent.SERIES, titles=("湘西",), book_ids=("zh-1", "zh-2"))
    assert explained(entry(XIANGXING, "entity"), query(), series) == (InNamedSeries("湘西", 2),)
    assert why_text((InNamedSeries("湘西", 2),), "en") == "Book 2 of the 湘西 series"
    assert why_text((NewArrival(2024),), "zh") == "新书（2024 年出版）"
    assert why_text((CloseToNamedBook("边城"),), "en") == "Close in content to 边城"


def test_a_row_says_it_meets_a_number_the_brief_only_prefers():
    recent = NumericCondition("pub_year", ">=", 1920)
    q = ThemeQuery((), (), "q", 0.8, "rules", "en", preferred_numbers=(recent,))
    assert explained(entry(BILLY, "vector"), q, Understanding(Intent.THEME_SHELF)) == (MeetsPreferred(recent),)
    assert why_text((MeetsPreferred(recent),), "zh") == "1920 年以后出版"
    # a book without a year does not meet it: its row says what else it has (here nothing: no summary, no heading)
    assert explained(entry(MOBY, "vector"), q, Understanding(Intent.THEME_SHELF)) == ()


def test_conditions_a_row_meets_are_said_in_the_briefs_language_and_exclusions_never():
    q = query(FilterCondition("emotional_tone", ("忧伤怅惘", "孤独疏离"), "SHOULD"),
              FilterCondition("genre", ("小说",), "MUST"),
              FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT"), keywords=("rainy", "night"))
    reasons = explained(entry(BIANCHENG, "vector"), q, Understanding(Intent.THEME_SHELF))
    assert reasons == (Meets("emotional_tone", ("忧伤怅惘",)),)  # the one-value MUST is the header's to say
    assert why_text(reasons, "zh") == "基调忧伤怅惘"
    assert why_text(reasons, "en") == "Melancholy tone"
    night = explained(entry(BILLY, "bm25"), q, Understanding(Intent.THEME_SHELF))
    assert why_text(night, "en") == "Its summary mentions 'night'"
    assert explained(entry(MOBY, "vector"), q, Understanding(Intent.THEME_SHELF)) == ()
    # a derived value counts as surely as a MUST would take it: 0.9 does, a 0.6 guess does not
    nostalgic = query(FilterCondition("emotional_tone", ("孤独疏离", "怀旧乡愁"), "SHOULD"))
    assert explained(entry(HULAN, "vector"), nostalgic, Understanding(Intent.THEME_SHELF)) == \
        (Meets("emotional_tone", ("孤独疏离",)),)
    # "close in meaning" is said only beside the sentence that is close
    close = explain_shelf([replace(entry(MOBY, "vector"), candidate=Candidate("en-1", ["vector"],
                                                                            evidence="Call me Ishmael."))],
                          replace(q, language="en"), Understanding(Intent.THEME_SHELF), BOOKS, GRAPH,
                          facet_confidence=0.85)[0].reasons
    assert close == (CloseToBrief("Call me Ishmael."),)
    # a sheet speaks one language: the English sentence is not quoted on a Chinese sheet
    assert explain_shelf([replace(entry(MOBY, "vector"), candidate=Candidate("en-1", ["vector"],
                                                                           evidence="Call me Ishmael."))],
                         q, Understanding(Intent.THEME_SHELF), BOOKS, GRAPH, facet_confidence=0.85)[0].reasons == ()
    assert why_text(close, "zh") == "这句与主题意思相近：「Call me Ishmael.」"
    assert why_text(close, "en") == "Close in meaning to the brief: 'Call me Ishmael.'"


def test_words_match_at_a_word_start_in_english_and_anywhere_in_chinese():
    assert mentioned(["night", "rain", "雨夜"], "Nights of a knight; brainstorm in 雨夜里") == ("night", "雨夜")


def test_the_header_says_the_conditions_and_what_was_left_out_once():
    q = ThemeQuery((FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT"),), (), "q", 0.8, "rules",
                   numeric_conditions=(NumericCondition("pub_year", ">=", 1980),))
    assert conditions_text(q, "zh") == "不要：基调温暖治愈；1980 年以后出版"
    assert conditions_text(q, "en", [LanguageChoice("en", "only")]) == \
        "Not: heartwarming tone; published in 1980 or later; only books in English"
    assert conditions_text(ThemeQuery((), (), "q", 0.8, "rules"), "en").startswith("No hard conditions")
    preferred = ThemeQuery((), (), "q", 0.8, "rules", preferred_numbers=(NumericCondition("pages", "<", 300),))
    assert conditions_text(preferred, "zh") == "最好：少于 300 页"
    others = tuple(e.key for e in class_ranges().entries if e.kind == "literatures" and e.key != "japanese")
    japanese = ThemeQuery((FilterCondition("literature", ("japanese",), "SHOULD"),
                           FilterCondition("literature", others, "MUST_NOT")), (), "q", 0.8, "rules")
    assert conditions_text(japanese, "zh") == "最好：日本文学；不要：记录注明的其他国别文学"  # not ten nations
    chinese = ThemeQuery((FilterCondition("language", ("zh",), "MUST"),), (), "q", 0.8, "rules", "en")
    assert conditions_text(chinese, "en", [LanguageChoice("zh", "only")]) == "Must be: books in Chinese"
    history = [HistoryShelf("b0", "rain", "Quiet novels\nNothing warm", (), ("x",))]
    facts = shelf_facts(q, 4, history, ["zh-1", "gone"], BOOKS, True, LanguageChoice("zh", "first"))
    assert left_out_text(facts, "zh") == "近期相似书架已有的 4 本书（Quiet novels）；《边城》本身；没有可借复本的书"
    assert left_out_text(facts, "en") == \
        "4 books already on recent similar shelves (Quiet novels); 边城 itself; books with no copy available"
    assert left_out_text(shelf_facts(q, 0, [], [], BOOKS, False, LanguageChoice("zh", "any")), "en") == "Nothing"
    # a work condition holds a work id; the header says the work's title
    not_that = ThemeQuery((FilterCondition("work", ("zh-1",), "MUST_NOT"),), (), "q", 0.8, "rules")
    facts = shelf_facts(not_that, 0, [], [], BOOKS, False, LanguageChoice("zh", "any"))
    assert conditions_text(not_that, "zh", facts) == "不要：《边城》"


@pytest.mark.parametrize("field", [*get_vocabulary().dimension_names, "form", "audience", "author", "work",
                                   "subject", "classification", "language"])
def test_every_condition_field_has_words_in_both_languages(field):
    assert set(FIELD_PHRASES[field]) == {"zh", "en"}
    for language in ("zh", "en"):
        said = condition_text(field, ("x",), language, OR)
        assert "x" in said and "=" not in said and "_" not in said  # no internal notation


def test_the_fields_the_brief_reader_adds_read_naturally():
    assert condition_text("form", ("fiction", "poetry"), "zh", OR) == "小说或诗歌"
    assert condition_text("audience", ("children",), "en", OR) == "for children"
    assert condition_text("subject", ("Sea stories",), "en", OR) == "the subject 'Sea stories'"
    assert condition_text("classification", ("clc:I24",), "zh", OR) == "分类CLC I24"
    assert condition_text("language", ("en",), "zh", OR) == "英文图书"
    assert condition_text("unheard_of", ("x",), "en", OR) == "x"  # said by its value, never its name


def test_a_short_shelf_says_what_limited_it():
    assert status_text("needs_review", 8, "en", "author_cap") == \
        "needs review; 8 books; limited by the cap on books per author"
    assert status_text("done", 30, "zh") == "已完成；30 本"


def test_a_row_asks_the_curator_to_check_a_book_a_calibrated_guess_says_may_be_excluded():
    q = query(FilterCondition("emotional_tone", ("温暖治愈", "沉重压抑"), "MUST_NOT"), language="en")
    theme = Understanding(Intent.THEME_SHELF)

    def guessed(*facets: Facet) -> tuple:
        return explained(entry(BookRecord("x", "Plainsong", facets=facets), "vector"), q, theme)
    warm = guessed(Facet("emotional_tone", "温暖治愈", 0.42, "reference"), Facet("emotional_tone", "沉重压抑", 0.31,
                                                                                "reference"))
    assert warm == (MayBeExcluded("emotional_tone", "温暖治愈", 0.42),)  # the likelier one
    assert why_text(warm, "en") == "Check: may be what the brief excludes, heartwarming tone (a guess, about 42%)"
    assert why_text(warm, "zh") == "请核对：可能是基调温暖治愈（推测，约 42%）"
    # an uncalibrated guess says nothing; a calibrated one below CHECK_CHANCE is not worth a look
    assert guessed(Facet("emotional_tone", "温暖治愈", 0.45, "zero-shot")) == ()
    assert guessed(Facet("emotional_tone", "温暖治愈", 0.2, "reference")) == ()
    assert guessed(Facet("emotional_tone", "温暖治愈", 0.7, "neighbours"))[-1].chance == 0.7
