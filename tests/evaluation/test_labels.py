"""Verdicts teach the ranking: shares kept and dropped by path and reason, and fusion weights learned on some
themes and judged on held-out ones; an overlay is written only when it is better there."""

import json
import random

import yaml

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.labels import Label, LabelsDB
from tasks.evaluation.labels import label_shares, tune_weights

DEFAULTS = {"vector": 0.3, "bm25": 1.0}


def labels(kept_when, themes: int = 25, books: int = 20, seed: int = 7) -> list[Label]:
    """Judged shelves whose books were found on both paths with random scores; kept as `kept_when` says."""
    rng = random.Random(seed)
    out = []
    for t in range(themes):
        for b in range(books):
            vector, bm25 = rng.random(), rng.random()
            scores = json.dumps({"vector": [b + 1, vector], "bm25": [b + 1, bm25]})
            verdict = "keep" if kept_when(vector, bm25) else rng.choice(["drop", "replace"])
            out.append(Label("batch", f"t{t}", f"b{t}-{b}", b + 1, verdict, paths=("vector", "bm25"),
                             reason_kinds=("CloseToBrief",) if bm25 < 0.2 else ("Mentions",), path_scores=scores))
    return out


def test_shares_are_counted_by_path_and_by_reason_kind():
    shares = label_shares([*labels(lambda v, k: k > 0.5, themes=2, books=10),
                           Label("batch", "t0", "", answer="keep as is")])
    assert (shares.overall.judged, shares.themes) == (20, 2)
    assert shares.by_path["bm25"].judged == 20
    assert shares.overall.kept + shares.overall.dropped + shares.overall.replaced == 20
    assert shares.by_reason["Mentions"].of(shares.by_reason["Mentions"].kept) > 0.5


def test_weights_learned_where_curators_keep_what_meaning_finds_beat_the_defaults_on_held_out_themes():
    tuning = tune_weights(labels(lambda vector, bm25: vector > 0.6), DEFAULTS)
    assert tuning.better and tuning.tuned_held_out > tuning.default_held_out + 0.1
    assert tuning.weights["vector"] > tuning.weights["bm25"]


def test_where_the_defaults_already_order_the_kept_books_first_nothing_better_is_found():
    tuning = tune_weights(labels(lambda vector, bm25: 0.3 * vector + bm25 > 0.9), DEFAULTS)
    assert not tuning.better and tuning.tuned_held_out <= tuning.default_held_out


def _store(settings, stored: list[Label], sha: str) -> None:
    with open_catalog(settings.duckdb_path) as db:
        with db.transaction():
            LabelsDB(db.conn).add(sha, f"{sha}.xlsx", "batch", stored, [])


def test_tune_labels_writes_the_overlay_only_when_it_is_better(workspace, tmp_path, monkeypatch, capsys):
    overlay = tmp_path / "local.yaml"
    monkeypatch.setenv("SHELFWISE_LOCAL_CONFIG", str(overlay))
    _store(workspace, labels(lambda vector, bm25: 0.3 * vector + bm25 > 0.9), "first")
    assert shelfwise(["tune", "--labels"]) == 0
    assert "nothing written" in capsys.readouterr().out and not overlay.exists()
    # a later workbook: these curators keep what meaning finds; its verdicts supersede the first ones
    _store(workspace, labels(lambda vector, bm25: vector > 0.6), "later")
    assert shelfwise(["tune", "--labels"]) == 0
    written = yaml.safe_load(overlay.read_text(encoding="utf-8"))["fusion"]["weights"]
    assert written["vector"] > written["bm25"]
    assert shelfwise(["eval", "--labels"]) == 0
    assert "by reason kind:" in capsys.readouterr().out
