"""Shelf history in a real DuckDB file: what a later brief that refers to a shelf gets back."""

from datetime import timedelta

import duckdb

from storage.models import FilterCondition, NumericCondition, Theme
from storage.shelf_db import ShelfDB


def test_a_recorded_shelf_comes_back_with_its_conditions_and_year_range(tmp_path):
    path = tmp_path / "shelves.duckdb"
    earlier = Theme("b1", "wars", "Fiction from between the wars, 1919 to 1939", position=1)
    conditions = (FilterCondition("form", ("fiction",), "MUST"), NumericCondition("pub_year", ">=", 1919),
                  NumericCondition("pub_year", "<=", 1939))
    with duckdb.connect(str(path)) as conn:
        shelves = ShelfDB(conn)
        shelves.import_themes([earlier])
        first_run = shelves.start_batch("b1")
        shelves.record_shelf(earlier, conditions, ["a", "b"])
        shelves.record_shelf(earlier, conditions, ["a", "c"])  # a rerun replaces, never duplicates
    with duckdb.connect(str(path)) as conn:
        later = Theme("b2", "heavier", "Same theme as the previous shelf, but heavier", position=1)
        [shelf] = ShelfDB(conn).history_for("b2", later, first_run + timedelta(days=1), 30, 120)
    assert shelf.conditions == conditions[:1] and shelf.numeric == conditions[1:]
    assert shelf.book_ids == ("a", "c") and shelf.recent
