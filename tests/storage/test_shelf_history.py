"""Shelf history in a real DuckDB file: what a later brief that refers to a shelf gets back, what each theme of
a batch sees, and what a rerun writes."""

from datetime import datetime, timedelta

import duckdb

from storage.shelf_db import ShelfDB, theme_history
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.themes import HistoryShelf, Theme

T0 = datetime(2026, 11, 23, 14, 5)  # when the batch under test first ran
DAYS, REFERENCE_DAYS = 30, 120  # not repeated within 30 days, referred to within 120
RAIN = (FilterCondition("emotional_tone", ("平静淡然",), "SHOULD"), FilterCondition("form", ("fiction",), "MUST"))


def shelf(batch_id: str, theme_id: str, position: int, book_ids: tuple[str, ...], started: datetime = T0,
          recent: bool = True) -> HistoryShelf:
    return HistoryShelf(batch_id, theme_id, f"brief of {theme_id}", RAIN, book_ids,
                        (NumericCondition("pub_year", ">=", 1980),), position, started, recent)


def add_batch(db: ShelfDB, batch_id: str, first_run_at: datetime, shelves: list[HistoryShelf]) -> None:
    """A batch that first ran at `first_run_at`, its themes and their recorded shelves."""
    db.conn.execute("INSERT INTO batches VALUES (?, ?, ?, NULL)", [batch_id, first_run_at, first_run_at])
    db.import_themes([Theme(batch_id, s.theme_id, s.theme_id, position=s.position) for s in shelves])
    db.record_shelves(shelves)


def ids(shelves: list[HistoryShelf]) -> list[str]:
    return [f"{s.batch_id}/{s.theme_id}" for s in shelves]


def test_a_recorded_shelf_comes_back_with_its_conditions_and_year_range(tmp_path):
    path = tmp_path / "shelves.duckdb"
    earlier = Theme("b1", "wars", "Fiction from between the wars, 1919 to 1939", position=1)
    recorded = HistoryShelf("b1", "wars", earlier.brief, (FilterCondition("form", ("fiction",), "MUST"),), ("a", "b"),
                            (NumericCondition("pub_year", ">=", 1919), NumericCondition("pub_year", "<=", 1939),
                             NumericCondition("pages", "outside", 400, 800)), 1)
    with duckdb.connect(str(path)) as conn:
        shelves = ShelfDB(conn)
        shelves.import_themes([earlier])
        first_run = shelves.start_batch("b1")
        shelves.record_shelves([recorded])
        shelves.record_shelves([HistoryShelf("b1", "wars", earlier.brief, recorded.conditions, ("a", "c"),
                                             recorded.numeric, 1)])  # a rerun replaces, never duplicates
    with duckdb.connect(str(path)) as conn:
        [back] = ShelfDB(conn).earlier_batches_history("b2", first_run + timedelta(days=1), DAYS, REFERENCE_DAYS)
    assert back.conditions == recorded.conditions and back.numeric == recorded.numeric
    assert back.book_ids == ("a", "c") and back.recent and back.position == 1 and back.batch_started == first_run


def test_each_theme_sees_earlier_batches_in_the_window_and_the_earlier_themes_of_its_own_batch(tmp_path):
    with duckdb.connect(str(tmp_path / "shelves.duckdb")) as conn:
        db = ShelfDB(conn)
        add_batch(db, "a-old", T0 - timedelta(days=200), [shelf("a-old", "x", 1, ("o",))])  # past the window
        add_batch(db, "c-recent", T0 - timedelta(days=10), [shelf("c-recent", "x", 1, ("r",))])
        add_batch(db, "z-ref", T0 - timedelta(days=60), [shelf("z-ref", "y", 4, ("f", "g"))])  # referable, not recent
        add_batch(db, "later", T0 + timedelta(days=1), [shelf("later", "x", 1, ("l",))])  # first ran after this batch
        this_batch = [shelf("m-this", "one", 1, ("a", "b")), shelf("m-this", "empty", 1, ()),  # failed: no books
                      shelf("m-this", "two", 2, ("c",)), shelf("m-this", "twin", 2, ("d",)),
                      shelf("m-this", "three", 3, ("e",))]
        add_batch(db, "m-this", T0, this_batch)  # as a rerun finds it: its own earlier shelves recorded
        themes = {t.theme_id: t for t in db.themes("m-this")}
        other = db.earlier_batches_history("m-this", T0, DAYS, REFERENCE_DAYS)

        # another batch's shelves come back as recorded; a batch id sorting after this one's still goes after
        assert other == [shelf("c-recent", "x", 1, ("r",), T0 - timedelta(days=10)),
                         shelf("z-ref", "y", 4, ("f", "g"), T0 - timedelta(days=60), recent=False)]
        seen = {t: ids(theme_history(theme, other, this_batch)) for t, theme in themes.items()}
        assert seen["one"] == seen["empty"] == ["c-recent/x", "z-ref/y"]
        # the earlier themes of its batch, in (batch, theme) order among the others; not a theme level with it
        assert seen["two"] == seen["twin"] == ["c-recent/x", "m-this/one", "z-ref/y"]
        assert seen["three"] == ["c-recent/x", "m-this/one", "m-this/twin", "m-this/two", "z-ref/y"]

        # a shelf built in memory is the one a later batch reads back from the history
        after = db.earlier_batches_history("after", T0 + timedelta(days=2), DAYS, REFERENCE_DAYS)
        assert [s for s in after if s.batch_id == "m-this"] == sorted((s for s in this_batch if s.book_ids),
                                                                     key=lambda s: s.theme_id)


def test_a_rerun_records_each_book_of_a_shelf_once_and_drops_a_shelf_that_has_none_now(tmp_path):
    with duckdb.connect(str(tmp_path / "shelves.duckdb")) as conn:
        db = ShelfDB(conn)
        add_batch(db, "other", T0 - timedelta(days=1), [shelf("other", "one", 1, ("a", "b"))])  # same theme id
        add_batch(db, "b1", T0, [shelf("b1", "one", 1, ("a", "b", "c")), shelf("b1", "two", 2, ("d", "e"))])
        db.record_shelves([shelf("b1", "one", 1, ("c", "a", "x")), shelf("b1", "two", 2, ())])
        rows = conn.execute("SELECT batch_id, theme_id, book_id, rank, count(*) OVER (PARTITION BY batch_id, "
                            "theme_id, book_id) FROM shelf_history ORDER BY batch_id, theme_id, rank").fetchall()
    assert rows == [("b1", "one", "c", 1, 1), ("b1", "one", "a", 2, 1), ("b1", "one", "x", 3, 1),
                    ("other", "one", "a", 1, 1), ("other", "one", "b", 2, 1)]
