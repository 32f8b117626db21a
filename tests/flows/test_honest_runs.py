"""Run states that tell the truth, run names and tags a curator can read, and the run form's input checked.

Real Prefect flow runs on the demo index (a copy per test, so that one test's pending themes are not
another's).
"""

import re

import pytest
from prefect import get_client

from flows.cli import main as shelfwise
from flows.generate_shelves import ThemeBrief, generate_shelves
from storage.catalog_db import open_catalog
from storage.shelf_db import ShelfDB
from storage.theme_inbox import waiting_themes
from tasks.model.themes import Theme

pytestmark = pytest.mark.slow


def flow_run(state):
    with get_client(sync_client=True) as client:
        return client.read_flow_run(state.state_details.flow_run_id)


def shelved(settings, batch_id: str) -> dict[str, int]:
    """theme_id -> history rows of the batch."""
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        if not db.has_table("shelf_history"):
            return {}
        return dict(db.conn.execute("SELECT theme_id, count(*) FROM shelf_history WHERE batch_id = ? GROUP BY 1",
                                    [batch_id]).fetchall())


def test_a_failed_theme_fails_the_run_by_name_and_stays_pending_needs_review_does_not(demo_copy, tmp_path, capsys):
    themes = tmp_path / "themes.yaml"
    themes.write_text("batch_id: honest\nthemes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n"
                      "  - theme_id: vague\n    theme_name: Some good books\n", encoding="utf-8")
    with open_catalog(demo_copy.duckdb_path) as db:  # a blank brief from before briefs were checked at import
        with db.transaction():
            ShelfDB(db.conn).import_themes([Theme("honest", "blank", "   ", position=3)])
    capsys.readouterr()
    assert shelfwise(["run", str(themes)]) == 1
    out, err = capsys.readouterr()
    assert re.search(r"  rain: needs_review, \d+ books\n  vague: needs_review, \d+ books\n  blank: failed, 0 books\n", out)
    assert err.strip().startswith("error: batch honest: 2 of 3 themes shelved; needs review: rain, vague; failed, kept "
                                  "pending for the next run: blank (IndexError: ")
    delivered = shelved(demo_copy, "honest")  # the others are delivered all the same
    # a brief of filler words only ("Some good books") asks what the shelf is about and shelves no book it cannot tie
    # to the brief: it is delivered as a question, not kept pending
    assert delivered.get("rain", 0) > 0 and set(delivered) <= {"rain", "vague"}
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        [pending] = ShelfDB(db.conn, read_only=True).pending()
        assert ShelfDB(db.conn, read_only=True).pending_batches() == ["honest"]  # what the next nightly shelves
    assert pending.batch_id == "honest" and pending.pending == 1 and pending.failed["blank"].startswith("IndexError")
    capsys.readouterr()
    assert shelfwise(["status"]) == 0
    assert "pending: batch honest, 1 themes; blank failed last time: IndexError" in capsys.readouterr().out


def test_the_run_form_dates_a_new_batch_takes_a_pasted_file_and_says_which_themes_need_review(demo_copy):
    pasted = "themes:\n  - theme_id: stars\n    theme_name: 宇宙星空\n    description: 关于宇宙和星空的书\n"
    state = generate_shelves(themes=[ThemeBrief(theme_name="Some good books")], themes_file_text=pasted,
                             return_state=True)
    assert state.is_completed()  # needs_review is not a failure: the state message says it
    result = state.result()
    assert result.batch_id[:2] == "20" and len(result.batch_id) == len("2026-11-23-1405-3f2a")
    assert state.message.startswith(f"batch {result.batch_id}: 2 of 2 themes shelved; needs review: theme-01")
    assert list(result.shelves) == ["theme-01", "stars"]
    assert (demo_copy.outputs_dir / f"{result.batch_id}.xlsx").exists()
    run = flow_run(state)
    assert run.name == f"shelves-{result.batch_id}" and {f"batch:{result.batch_id}", "manual"} <= set(run.tags)


@pytest.mark.parametrize("themes, text, reason", [
    ([ThemeBrief(theme_id="a", theme_name="one"), ThemeBrief(theme_id="a", theme_name="two")], "",
     "run form: theme 2: theme_id: duplicate theme_id 'a'"),
    ([ThemeBrief(theme_id="a", theme_name="  ")], "", "run form: theme 1: theme_name: missing"),
    ([ThemeBrief(theme_id="a", theme_name="one")], "themes:\n  - theme_id: a\n    theme_name: again\n",
     "run form: theme 2: theme_id: duplicate theme_id 'a'"),
    ([], "themes: [unclosed", "run form: pasted themes: not valid YAML"),
])
def test_bad_themes_in_the_form_refuse_the_run_with_one_reason(demo_copy, themes, text, reason):
    state = generate_shelves("formcheck", themes=themes, themes_file_text=text, return_state=True)
    assert state.is_failed() and state.message.startswith(reason)
    assert shelved(demo_copy, "formcheck") == {} and waiting_themes(demo_copy.workspace) == []


def test_a_path_as_batch_id_is_refused_before_anything_is_written(demo_copy, tmp_path):
    state = generate_shelves("../evil/x", themes=[ThemeBrief(theme_name="one")], return_state=True)
    assert state.is_failed() and "batch_id" in state.message
    assert not (tmp_path / "evil").exists() and not list(tmp_path.rglob("x.xlsx"))


def test_a_run_that_cannot_write_its_workbook_keeps_its_themes_pending(demo_copy, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("SHELFWISE__OUTPUTS_DIR", str(blocker / "out"))
    state = generate_shelves("kept", themes=[ThemeBrief(theme_id="rain", theme_name="Rainy night")], return_state=True)
    assert state.is_failed() and state.message.startswith("outputs_dir (from SHELFWISE__OUTPUTS_DIR) ")
    assert state.message.endswith("/file/out is not writable (not a directory)")
    [kept] = waiting_themes(demo_copy.workspace)
    assert kept.batch_id == "kept" and kept.themes[0].theme_name == "Rainy night"


def test_the_runs_list_and_status_tell_a_batch_waiting_for_answers_from_a_clean_one(demo_copy, capsys):
    # a brief the demo catalog fills surely: its science fiction by date (the rainy night's quiet novels, shelved by
    # their tags alone, are likely to fit but not sure to, and go to review)
    clean = generate_shelves("clean", themes=[ThemeBrief(theme_id="new", theme_name="本月新书：科幻")], return_state=True)
    waiting = generate_shelves("waiting", themes=[ThemeBrief(theme_id="vague", theme_name="Some good books")],
                               return_state=True)
    with get_client(sync_client=True) as client:  # as the runs list reads them
        runs = {r.name: r for r in client.read_flow_runs(limit=50)}
    assert clean.is_completed() and waiting.is_completed()  # neither failed
    assert runs["shelves-clean"].state.name == "Completed" and "needs-review" not in runs["shelves-clean"].tags
    assert runs["shelves-waiting"].state.name == "NeedsReview"
    assert {"needs-review", "batch:waiting", "manual"} <= set(runs["shelves-waiting"].tags)
    capsys.readouterr()
    assert shelfwise(["status"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^prefect server: http://127\.0\.0\.1:\d+/api, answers$", out, re.M)
    assert out.index("run: shelves-waiting: NeedsReview, 20") < out.index("run: shelves-clean: Completed, 20")
    assert "waiting for an answer: batch waiting, theme vague (Some good books): its question is on the workbook's " \
           "`needs review` sheet" in out
    assert re.search(r"^next nightly run: 20\d\d-\d\d-\d\dT02:00\+08:00 \(0 2 \* \* \*, Asia/Shanghai\)$", out, re.M)
