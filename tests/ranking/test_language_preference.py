"""The language step: books in the brief's language first, only, or as ranked; named and new books keep their place."""

from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.reasons import LanguageChoice
from tasks.ranking.language import choose_language, choose_preference, prefer_language

BOOKS = {b: BookRecord(b, b, language=b[:2]) for b in ("zh-1", "en-1", "zh-2", "en-2", "zh-3")}


def order(ranked: list[Candidate], preference: str) -> list[str]:
    return [c.book_id for c in prefer_language(ranked, BOOKS, LanguageChoice("en", preference))]


def test_the_briefs_language_comes_first_or_alone():
    ranked = [Candidate(b, ["vector"]) for b in ("zh-1", "en-1", "zh-2", "en-2")]
    assert order(ranked, "any") == ["zh-1", "en-1", "zh-2", "en-2"]
    assert order(ranked, "first") == ["en-1", "en-2", "zh-1", "zh-2"]
    assert order(ranked, "only") == ["en-1", "en-2"]


def test_a_doubtful_book_comes_after_the_other_languages_books():
    # zh-1 and en-2 may break the brief (a guess of a value it excludes, a children's book on an adult shelf)
    ranked = [Candidate(b, ["vector"], doubtful=b in ("zh-1", "en-2")) for b in ("zh-1", "en-1", "zh-2", "en-2")]
    assert order(ranked, "first") == ["en-1", "zh-2", "en-2", "zh-1"]
    assert order(ranked, "only") == ["en-1", "en-2"]  # ranking has put it last already
    assert order(ranked, "any") == ["zh-1", "en-1", "zh-2", "en-2"]


def test_books_asked_for_by_name_or_date_keep_their_place_unless_only_will_do():
    # "Lu Xun's stories" written in English: the spotlit author's books; "new this month": the newest books
    ranked = [Candidate("zh-1", ["entity"]), Candidate("en-1", ["bm25"]), Candidate("zh-2", ["recent", "vector"]),
              Candidate("zh-3", ["vector", "related"])]
    assert order(ranked, "first") == ["zh-1", "en-1", "zh-2", "zh-3"]
    assert order(ranked, "only") == ["en-1"]


def test_a_theme_chooses_before_its_batch_and_a_batch_before_the_setting():
    assert choose_preference("only", "any", "first") == "only"
    assert choose_preference("", "any", "first") == "any"
    assert choose_preference("", None, "first") == "first"


def test_a_language_the_brief_asks_for_stands_in_for_its_own():
    def choice(*conditions: FilterCondition, preference: str = "only") -> LanguageChoice:
        return choose_language(ThemeQuery(conditions, (), "", 1.0, "rules", "en"), preference)

    # "Chinese fiction", written in English: only Chinese books, never none at all
    assert choice(FilterCondition("language", ("zh",), "MUST")) == LanguageChoice("zh", "only")
    assert choice(FilterCondition("language", ("zh",), "SHOULD")) == LanguageChoice("zh", "only")
    assert choice(FilterCondition("genre", ("小说",), "MUST")) == LanguageChoice("en", "only")
    assert choice(FilterCondition("language", ("en",), "MUST_NOT")) == LanguageChoice("en", "any")
    assert choice(FilterCondition("language", ("zh", "en"), "MUST")).preference == "any"
