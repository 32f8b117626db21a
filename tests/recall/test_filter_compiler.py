"""The filter tree's LanceDB form and its column mask select exactly what the evaluator accepts (the LanceDB
form on a real LanceDB table written by the product's own writer), whatever the tree."""

import lancedb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.class_ranges import class_ranges
from storage.index_store import BOOKS_TABLE, write_books_table
from tasks.catalog.index_build import lance_book_columns
from tasks.model.books import BookRecord, Facet
from tasks.model.constraints import All, AnyOf, Compare, HasAny, Not, evaluate
from tasks.recall.filters import FilterColumns, mask, to_lance_sql

CONFIDENCE = 0.85
BOOKS = [
    BookRecord("b1", "A", pub_year=1934, pages=120, copies_available=0, authors=("沈从文",), language="zh",
               tags={"emotional_tone": ("忧伤怅惘",), "genre": ("小说",)}, subjects=("长篇小说—中国—现代",),
               classification=("clc:I246.5",), work_id="w1"),
    BookRecord("b2", "B", pub_year=2008, copies_available=3, authors=("刘慈欣", "Ken Liu"), language="zh",
               tags={"emotional_tone": ("悬疑紧张",), "genre": ("科幻", "小说")}, work_id="w1"),
    BookRecord("b3", "C", pages=300, language="en", subjects=("World War, 1939-1945 -- Fiction", "Award winners"),
               classification=("lcc:PR6059.S5", "ddc:823.914"),
               facets=(Facet("genre", "历史", 0.9, "crosswalk"), Facet("emotional_tone", "沉重压抑", 0.6, "zero-shot"),
                       Facet("form", "nonfiction", 0.9, "crosswalk"))),
    BookRecord("b4", "D", pub_year=1990, pages=80, copies_available=1, rating=8.5, language="en",
               tags={"emotional_tone": ("温暖治愈", "平静淡然"), "genre": ("儿童文学",)},
               facets=(Facet("audience", "children", 1.0, "source"),)),
    BookRecord("b5", "E", language="en", classification=("lcc:PL856.U673 N6", "ddc:J 813.54", "clc:K248.306")),
]
VALUES = {"emotional_tone": ["忧伤怅惘", "悬疑紧张", "温暖治愈", "沉重压抑", "x' OR 1=1 --"],
          "genre": ["小说", "科幻", "儿童文学", "历史"], "form": ["nonfiction", "fiction"], "audience": ["children"],
          "author": ["沈从文", "Ken Liu", "O'Brien"], "work": ["w1", "b3", "b4"], "language": ["zh", "en", "fr"],
          "subject": ["war", "award", "小说", "world war", "现代", "100%_"],
          "heading": ["World War", "World War, 1939-1945 -- Fiction", "Fiction", "war", "长篇小说", "现代", "100%_"],
          "classification": ["clc:I24", "clc:I246.5", "lcc:PR", "ddc:823", "ddc:9", "clc:K", "lcc:PL856.",
                             "lcc:PL8560", "ddc:J81", "clc:K248"]}


@pytest.fixture(scope="module")
def table(tmp_path_factory, vocabulary):
    folder = tmp_path_factory.mktemp("lance")
    vectors = np.eye(len(BOOKS), 8, dtype=np.float32)
    write_books_table(folder, lance_book_columns(BOOKS, vocabulary, CONFIDENCE), vectors, vocabulary.facet_names,
                      brute_force_max_rows=1000)
    return lancedb.connect(str(folder / "lance")).open_table(BOOKS_TABLE)


COLUMNS = FilterColumns.build(BOOKS)
leaves = st.one_of(
    st.sampled_from(list(VALUES)).flatmap(
        lambda f: st.lists(st.sampled_from(VALUES[f]), min_size=1, max_size=3, unique=True).map(
            lambda vs: HasAny(f, tuple(vs), CONFIDENCE))),
    st.builds(Compare, st.sampled_from(["pub_year", "pages", "copies_available", "rating"]),
              st.sampled_from(["<", "<=", ">", ">=", "=", "!="]), st.integers(-1, 2100).map(float)),
)
trees = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=3).map(lambda c: All(tuple(c))),
    st.lists(kids, max_size=3).map(lambda c: AnyOf(tuple(c))),
    kids.map(Not)), max_leaves=8)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trees)
def test_lance_sql_selects_exactly_the_books_the_evaluator_accepts(table, expr):
    in_python = {b.book_id for b in BOOKS if evaluate(expr, b)}
    where = to_lance_sql(expr)
    query = table.search().select(["book_id"]).limit(None)
    in_lance = set((query.where(where) if where else query).to_arrow().column("book_id").to_pylist())
    assert in_lance == in_python


def test_every_literature_and_period_selects_in_lance_what_the_evaluator_accepts(table):
    for entry in class_ranges().entries:  # hundreds of prefixes in one condition
        for expr in (HasAny("classification", entry.codes), Not(HasAny("classification", entry.codes))):
            in_lance = set(table.search().select(["book_id"]).where(to_lance_sql(expr)).limit(None).to_arrow()
                           .column("book_id").to_pylist())
            assert in_lance == {b.book_id for b in BOOKS if evaluate(expr, b)}


def test_an_injected_value_matches_nothing_and_raises_nothing(table):
    for field in ("genre", "author", "subject", "heading", "classification", "work"):
        expr = HasAny(field, ("x' OR 1=1 --",), CONFIDENCE)
        assert table.search().where(to_lance_sql(expr)).limit(None).to_arrow().num_rows == 0
        assert table.search().where(to_lance_sql(Not(expr))).limit(None).to_arrow().num_rows == len(BOOKS)


@settings(max_examples=300, deadline=None)
@given(trees, st.sampled_from([0.5, CONFIDENCE, 1.0]))
def test_the_column_mask_selects_exactly_the_books_the_evaluator_accepts(expr, confidence):
    columns = COLUMNS
    expr = _at_confidence(expr, confidence)  # a facet's confidence floor is the condition's, whichever it is
    selected = {b for b, chosen in zip(columns.book_ids, mask(expr, columns)) if chosen}
    assert selected == {b.book_id for b in BOOKS if evaluate(expr, b)}


def _at_confidence(expr, confidence):
    if isinstance(expr, HasAny):
        return HasAny(expr.field, expr.values, confidence)
    if isinstance(expr, Not):
        return Not(_at_confidence(expr.child, confidence))
    if isinstance(expr, (All, AnyOf)):
        return type(expr)(tuple(_at_confidence(c, confidence) for c in expr.children))
    return expr
