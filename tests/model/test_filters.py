"""The filter tree's evaluator on tiny in-memory books: tags, facets with confidence, authors, works,
subjects, classification prefixes, numbers and availability."""

from tasks.model.books import BookRecord, Facet
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.constraints import (
    All,
    HasAny,
    Not,
    as_wishes,
    contradictions,
    evaluate,
    hard_constraints,
    surely_held,
    unfilterable,
)
from tasks.model.query import ThemeQuery

BOOKS = [
    BookRecord("b1", "A", pub_year=1934, pages=120, copies_available=0, authors=("沈从文",),
               tags={"emotional_tone": ("忧伤怅惘",), "genre": ("小说",)}, subjects=("长篇小说—中国—现代",),
               classification=("clc:I246.5",), work_id="w1"),
    BookRecord("b2", "B", pub_year=2008, pages=None, copies_available=3, authors=("刘慈欣",),
               tags={"emotional_tone": ("悬疑紧张",), "genre": ("科幻", "小说")}),
    BookRecord("b3", "C", pub_year=None, pages=300, copies_available=None, tags={}, language="en",
               subjects=("World War, 1939-1945 -- Fiction", "Award winners"),
               facets=(Facet("genre", "历史", 0.9, "crosswalk"), Facet("emotional_tone", "沉重压抑", 0.6, "zero-shot"))),
    BookRecord("b4", "D", pub_year=1990, pages=80, copies_available=1, rating=8.5,
               tags={"emotional_tone": ("温暖治愈", "平静淡然"), "genre": ("儿童文学",)},
               facets=(Facet("audience", "children", 1.0, "source"),)),
]


def selected(expr) -> list[str]:
    return [b.book_id for b in BOOKS if evaluate(expr, b)]


def test_must_must_not_and_availability():
    conditions = [FilterCondition("genre", ("小说",), "MUST"),
                  FilterCondition("emotional_tone", ("忧伤怅惘",), "MUST_NOT")]
    assert selected(hard_constraints(conditions)) == ["b2"]
    available = hard_constraints([], available_only=True)
    # no copies -> out; unknown copies -> stays
    assert selected(available) == ["b2", "b3", "b4"]


def test_a_derived_value_filters_only_when_sure_enough():
    assert selected(hard_constraints([FilterCondition("genre", ("历史",), "MUST")], facet_confidence=0.85)) == ["b3"]
    assert selected(hard_constraints([FilterCondition("genre", ("历史",), "MUST")], facet_confidence=0.95)) == []
    # an unsure value does not exclude: it is left to ranking
    assert "b3" in selected(hard_constraints([FilterCondition("emotional_tone", ("沉重压抑",), "MUST_NOT")],
                                             facet_confidence=0.85))
    assert selected(HasAny("audience", ("children",), 0.85)) == ["b4"]


def test_authors_works_subjects_classification_and_language():
    assert selected(Not(HasAny("author", ("刘慈欣",)))) == ["b1", "b3", "b4"]
    assert selected(HasAny("work", ("w1",))) == ["b1"] and selected(HasAny("work", ("b2",))) == ["b2"]
    # Latin subject terms match whole words ("war" is not in "award"), Chinese ones anywhere
    assert selected(HasAny("subject", ("war",))) == ["b3"] and selected(HasAny("subject", ("ward",))) == []
    assert selected(HasAny("subject", ("World War",))) == ["b3"] and selected(HasAny("subject", ("小说",))) == ["b1"]
    assert selected(HasAny("classification", ("clc:I24",))) == ["b1"]
    assert selected(HasAny("classification", ("clc:i246.5", "ddc:8"))) == ["b1"]
    assert selected(HasAny("classification", ("clc:I25",))) == []
    assert selected(All((HasAny("language", ("en",)), HasAny("subject", ("fiction",))))) == ["b3"]


def test_contradictions_are_found():
    conditions = [FilterCondition("emotional_tone", ("温暖治愈", "平静淡然"), "MUST"),
                  FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")]
    assert contradictions(conditions) == [("emotional_tone", "温暖治愈")]


def test_a_must_on_a_dimension_no_book_holds_surely_is_unfilterable_and_a_missing_value_of_a_known_one_is_not():
    books = [BookRecord("a", "A", tags={"genre": ("科幻",)}),
             BookRecord("b", "B", facets=(Facet("genre", "历史", 0.4, "zero-shot", "similar"),
                                          Facet("form", "fiction", 0.9, "crosswalk", "I247")))]
    held = surely_held(books, 0.85)
    assert held == {("genre", "科幻"), ("form", "fiction")}
    assert surely_held(books, 0.85, [f for b in books for f in b.facets]) == held  # the distinct facets given
    history, drama = FilterCondition("genre", ("历史",), "MUST"), FilterCondition("form", ("drama",), "MUST")
    calm = FilterCondition("emotional_tone", ("平静淡然",), "MUST")
    not_calm = FilterCondition("emotional_tone", ("平静淡然",), "MUST_NOT")
    by_author = FilterCondition("author", ("鲁迅",), "MUST")
    assert unfilterable([history, calm, drama, not_calm, by_author], held) == [calm]


def test_what_the_catalog_cannot_check_becomes_a_wish_and_is_named():
    history = FilterCondition("genre", ("历史",), "MUST")
    fiction = FilterCondition("form", ("fiction",), "MUST")
    since = NumericCondition("pub_year", ">=", 1979)
    query = ThemeQuery((history, fiction), ("war",), "war", 0.8, "rules", numeric_conditions=(since,))
    wished, unchecked = as_wishes(query, frozenset({("form", "nonfiction")}), frozenset({"pages"}))
    assert unchecked == [history, since]
    assert wished.filter_conditions == (FilterCondition("genre", ("历史",), "SHOULD"), fiction)
    assert wished.numeric_conditions == ()
    library = (frozenset({("genre", "科幻"), ("form", "fiction")}), frozenset({"pub_year"}))
    assert as_wishes(query, *library) == (query, [])


def test_a_record_without_subject_headings_is_read_by_its_title_in_all_three_engines():
    from tasks.recall.filters import FilterColumns, mask

    titled = [BookRecord("p", "The Murder on the Links (Hercule Poirot, #2)"),
              BookRecord("s", "Poirot Investigates", subjects=("Short stories",))]  # its headings are what count
    expr = Not(HasAny("subject", ("Poirot",)))
    assert [b.book_id for b in titled if evaluate(expr, b)] == ["s"]
    assert mask(expr, FilterColumns.build(titled)).tolist() == [False, True]
    assert titled[0].subject_text == "| the murder on the links hercule poirot 2 |"  # the LanceDB column's text


def test_a_range_left_out_keeps_the_books_below_and_above_it_and_none_without_the_number():
    from tasks.export.wording import numeric_text

    eighties_and_nineties = NumericCondition("pub_year", "outside", 1980, 2000)
    assert selected(hard_constraints([], [eighties_and_nineties])) == ["b1", "b2"]  # 1934, 2008; not 1990, no year
    assert numeric_text(eighties_and_nineties, "zh") == "不是 1980–1999 年出版"
    assert numeric_text(eighties_and_nineties, "en") == "not published in 1980–1999"
    assert eighties_and_nineties.describe() == "MUST pub_year outside 1980..1999"


def test_a_character_excluded_by_name_excludes_the_books_filed_under_the_inverted_name():
    # Project Gutenberg's records: "but no Sherlock Holmes" reads MUST_NOT subject "sherlock holmes"
    holmes = BookRecord("h", "The Return of Sherlock Holmes", subjects=(
        "Detective and mystery stories, English", "Holmes, Sherlock (Fictitious character) -- Fiction"))
    poirot = BookRecord("p", "The Big Four", subjects=("Poirot, Hercule (Fictitious character) -- Fiction",))
    cooks = BookRecord("c", "French Cookery", subjects=("Cooking, French",))
    no_holmes = Not(HasAny("subject", ("sherlock holmes",)))
    assert [b.book_id for b in (holmes, poirot, cooks) if evaluate(no_holmes, b)] == ["p", "c"]
    assert [b.book_id for b in (holmes, poirot, cooks) if evaluate(HasAny("subject", ("hercule poirot",)), b)] == ["p"]
    # only a qualified name is turned: an inverted topic keeps its head (the subject index says it in natural order)
    assert not evaluate(HasAny("subject", ("french cooking",)), cooks)
