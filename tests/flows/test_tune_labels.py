"""`tune --labels` on the demo, with verdicts a curator gives: the judged dev briefs shelved as one batch, every
shelved book kept where the judgments say it fits and dropped where not (benchmarks/review_labels.py). Labels that
favour what is in force write nothing; the judged ones raise the held-out share of kept books, and what is written
is what the next run reads."""

import re

import pytest
import yaml

from benchmarks.review_labels import BATCH, JUDGED, answer, judged_verdicts, shelve
from flows.cli import main as shelfwise
from tasks.evaluation.judged import load_judged
from tasks.ranking.calibration import workspace_calibration
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow

CALIBRATION = re.compile(r"relevance calibration and floor \((\w+)\): (\d+) verdicts on (\d+) themes: "
                         r"([\d.]+) -> ([\d.]+); kept less dropped books shelved (-?\d+) -> (-?\d+)")


def test_tune_labels_learns_from_the_demo_curators_and_never_writes_what_is_worse(demo_copy, tmp_path, monkeypatch,
                                                                                  capsys):
    overlay = tmp_path / "local.yaml"
    monkeypatch.setenv("SHELFWISE_LOCAL_CONFIG", str(overlay))
    # every second judged brief: 16 themes of both languages show the learning and its guard as the 32 do, at
    # half the batch, the two tunes' evidence and the rerun
    briefs = {b.id: b for b in load_judged(JUDGED)[::2]}
    workbook = shelve(demo_copy, briefs)
    # a curator who keeps every shelved book: what is in force already shelves only kept books
    answer(workbook, tmp_path / "all-kept.xlsx", lambda theme_id, book_id: theme_id in briefs or None)
    assert shelfwise(["review", "import", str(tmp_path / "all-kept.xlsx")]) == 0
    capsys.readouterr()
    assert shelfwise(["tune", "--labels"]) == 0
    out = capsys.readouterr().out
    assert "nothing written" in out and not overlay.exists() and workspace_calibration(demo_copy.workspace) is None
    # the judged verdicts supersede them: books that do not fit are dropped
    curator = judged_verdicts(demo_copy, briefs)
    first = answer(workbook, tmp_path / "judged.xlsx", curator)
    assert shelfwise(["review", "import", str(tmp_path / "judged.xlsx")]) == 0
    capsys.readouterr()
    assert shelfwise(["tune", "--labels"]) == 0
    out = capsys.readouterr().out
    kind, verdicts, themes, before, after, net_before, net_after = CALIBRATION.search(out).groups()
    # a verdict on every shelved book of every shelf that holds one: as many as the shelves are long, padded or not
    book = BatchWorkbook(workbook)  # opened once: a load per theme was 2 s of the test's CPU
    shelved = {t: len(book.rows(t)) for t in briefs}
    assert sum(first.values()) == sum(shelved.values()) > 0
    assert kind == "tagged" and int(verdicts) == sum(shelved.values())
    assert int(themes) == sum(1 for n in shelved.values() if n) >= len(briefs) / 2
    # written only where better on held-out themes (the share kept rises and no more kept than dropped books leave):
    # with the admission off the judged verdicts raise the share kept; with it on the shelves may hold little else
    # than kept books already, a learned calibration can do worse there, and then nothing is written
    learned = workspace_calibration(demo_copy.workspace)
    if float(after) > float(before) and int(net_after) >= int(net_before):
        assert learned is not None and "verdicts" in learned.source
    else:
        assert learned is None
    # a floor is written only where the verdicts chose another than the one in force, and it is the one reported
    written = yaml.safe_load(overlay.read_text(encoding="utf-8")) if overlay.exists() else {}
    in_force, chosen = re.search(r"learned: floor ([\d.]+) -> ([\d.]+)", out).groups()
    floor = written.get("ranking", {}).get("relevance_floor")
    assert floor is None or floor == float(chosen) != float(in_force)
    # the next run reads what was learned: the batch reshelved under it holds more of the books the curator keeps
    # (the share kept may fall as more books pass: tune measures the share kept in the first places of held-out
    # themes, not on the whole shelf); where nothing was written, the same shelves
    assert shelfwise(["run", "--batch", BATCH]) in (0, 1)
    again = answer(demo_copy.outputs_dir / f"{BATCH}.xlsx", tmp_path / "again.xlsx", curator)
    assert again["keep"] > first["keep"] if learned or written else again == first
