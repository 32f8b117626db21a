"""The filter tree: one evaluator and two SQL compilers that must agree, whatever the tree."""

import json

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.models import BookRecord, FilterCondition
from tasks.recall.filters import (
    All,
    AnyOf,
    Compare,
    HasAny,
    Not,
    contradictions,
    evaluate,
    hard_constraints,
    to_duckdb_sql,
)

BOOKS = [
    BookRecord("b1", "A", pub_year=1934, pages=120, copies_available=0,
               tags={"emotional_tone": ("忧伤怅惘",), "genre": ("小说",)}),
    BookRecord("b2", "B", pub_year=2008, pages=None, copies_available=3,
               tags={"emotional_tone": ("悬疑紧张",), "genre": ("科幻", "小说")}),
    BookRecord("b3", "C", pub_year=None, pages=300, copies_available=None, tags={}),
    BookRecord("b4", "D", pub_year=1990, pages=80, copies_available=1, rating=8.5,
               tags={"emotional_tone": ("温暖治愈", "平静淡然"), "genre": ("儿童文学",)}),
]
VALUES = {"emotional_tone": ["忧伤怅惘", "悬疑紧张", "温暖治愈", "平静淡然", "x' OR 1=1 --"],
          "genre": ["小说", "科幻", "儿童文学", "诗歌"]}


def catalog():
    conn = duckdb.connect()
    conn.register("src", pa.Table.from_pylist([
        {"book_id": b.book_id, "pub_year": b.pub_year, "pages": b.pages, "rating": b.rating,
         "copies_available": b.copies_available,
         "tags": json.dumps({d: list(v) for d, v in b.tags.items()}, ensure_ascii=False)} for b in BOOKS]))
    conn.execute("CREATE TABLE books AS SELECT * FROM src")
    return conn


CONN = catalog()

leaves = st.one_of(
    st.sampled_from(list(VALUES)).flatmap(
        lambda f: st.lists(st.sampled_from(VALUES[f]), min_size=1, max_size=3, unique=True).map(
            lambda vs: HasAny(f, tuple(vs)))),
    st.builds(Compare, st.sampled_from(["pub_year", "pages", "copies_available", "rating"]),
              st.sampled_from(["<", "<=", ">", ">=", "=", "!="]), st.integers(-1, 2100).map(float)),
)
trees = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=3).map(lambda c: All(tuple(c))),
    st.lists(kids, max_size=3).map(lambda c: AnyOf(tuple(c))),
    kids.map(Not)), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(trees)
def test_duckdb_sql_selects_exactly_the_books_the_evaluator_accepts(expr):
    in_python = {b.book_id for b in BOOKS if evaluate(expr, b)}
    in_sql = {r[0] for r in CONN.execute(f"SELECT book_id FROM books WHERE {to_duckdb_sql(expr)}").fetchall()}
    assert in_sql == in_python


def test_must_must_not_and_availability():
    conditions = [FilterCondition("genre", ("小说",), "MUST"),
                  FilterCondition("emotional_tone", ("忧伤怅惘",), "MUST_NOT")]
    assert [b.book_id for b in BOOKS if evaluate(hard_constraints(conditions), b)] == ["b2"]
    available = hard_constraints([], available_only=True)
    # no copies -> out; unknown copies -> stays
    assert [b.book_id for b in BOOKS if evaluate(available, b)] == ["b2", "b3", "b4"]


def test_an_injected_value_matches_nothing_and_raises_nothing():
    expr = HasAny("genre", ("x' OR 1=1 --",))
    assert CONN.execute(f"SELECT count(*) FROM books WHERE {to_duckdb_sql(expr)}").fetchone()[0] == 0
    assert CONN.execute(f"SELECT count(*) FROM books WHERE {to_duckdb_sql(Not(expr))}").fetchone()[0] == 4


def test_contradictions_are_found():
    conditions = [FilterCondition("emotional_tone", ("温暖治愈", "平静淡然"), "MUST"),
                  FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")]
    assert contradictions(conditions) == [("emotional_tone", "温暖治愈")]
