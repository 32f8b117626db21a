"""Themes and batch switches in a real DuckDB file: the language preference is kept, old workspaces still open."""

import duckdb

from storage.shelf_db import ShelfDB, ThemeOutcome
from tasks.model.themes import StageSwitches, Theme

OLD_SCHEMA = """
CREATE TABLE themes (batch_id VARCHAR, theme_id VARCHAR, position INTEGER, theme_name VARCHAR NOT NULL,
    slogan VARCHAR, description VARCHAR, target_vibe VARCHAR, status VARCHAR, imported_at TIMESTAMP,
    PRIMARY KEY (batch_id, theme_id));
CREATE TABLE batch_switches (batch_id VARCHAR PRIMARY KEY, sentence_rerank BOOLEAN, query_expansion BOOLEAN);
INSERT INTO themes VALUES ('b0', 'old', 1, 'Old theme', '', '', '', 'done', now());
INSERT INTO batch_switches VALUES ('b0', true, NULL);
"""


def test_a_themes_language_preference_and_its_batchs_switch_are_kept(tmp_path):
    with duckdb.connect(str(tmp_path / "shelfwise.duckdb")) as conn:
        db = ShelfDB(conn)
        counts = db.import_themes([Theme("b1", "rain", "Rainy night", position=1, language_preference="only"),
                                   Theme("b1", "sea", "The sea", position=2)])
        assert counts["inserted"] == 2
        assert [(t.theme_id, t.language_preference) for t in db.themes("b1")] == [("rain", "only"), ("sea", "")]
        # a changed preference is a changed theme: it goes back to pending
        db.set_theme_statuses("b1", [ThemeOutcome("rain", "done")])
        assert db.import_themes([Theme("b1", "rain", "Rainy night", position=1)])["updated"] == 1
        assert db.themes("b1")[0].status == "pending"
        assert db.batch_switches("b1", StageSwitches(language_preference="any")).language_preference == "any"
        # a rerun without the switch keeps the batch's choice
        assert db.batch_switches("b1", StageSwitches()).language_preference == "any"


def test_a_runs_outcomes_land_in_one_update_and_a_failed_theme_stays_pending_with_its_error(tmp_path):
    with duckdb.connect(str(tmp_path / "shelfwise.duckdb")) as conn:
        db = ShelfDB(conn)
        db.import_themes([Theme(b, t, t, position=i) for b in ("b1", "b2") for i, t in enumerate(("rain", "sea",
                                                                                                   "vague"))])
        db.set_theme_statuses("b1", [ThemeOutcome("rain", "failed", "IndexError: boom")])
        db.set_theme_statuses("b1", [ThemeOutcome("rain", "done"), ThemeOutcome("sea", "failed", "ValueError: no"),
                                     ThemeOutcome("vague", "needs_review")])  # the next run: rain's error goes
        rows = conn.execute("SELECT batch_id, theme_id, status, last_error FROM themes ORDER BY ALL").fetchall()
        assert rows == [("b1", "rain", "done", None), ("b1", "sea", "pending", "ValueError: no"),
                        ("b1", "vague", "needs_review", None), ("b2", "rain", "pending", None),
                        ("b2", "sea", "pending", None), ("b2", "vague", "pending", None)]
        assert db.pending()[0].failed == {"sea": "ValueError: no"}


def test_a_workspace_from_before_the_language_preference_still_opens(tmp_path):
    with duckdb.connect(str(tmp_path / "shelfwise.duckdb")) as conn:
        conn.execute(OLD_SCHEMA)
        db = ShelfDB(conn)
        assert [(t.theme_id, t.language_preference) for t in db.themes("b0")] == [("old", "")]
        switches = db.batch_switches("b0", StageSwitches())
        assert switches.sentence_rerank is True and switches.language_preference is None
