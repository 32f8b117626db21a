"""`make report`'s renderer (scripts/quality_report.py): the judged table from the runner's JSON beside the
committed first sight, the fragments line, and the README blocks it rewrites between its markers."""

import importlib.util
import json
import sys

from tests.conftest import PROJECT_ROOT


def _script():
    spec = importlib.util.spec_from_file_location("quality_report", PROJECT_ROOT / "scripts" / "quality_report.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["quality_report"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _judged(briefs: int, wrong: float, ndcg: float, sizes: list[int]) -> dict:
    """benchmarks/judged_eval.py's --json shape, cut to what the report reads."""
    summary = {"briefs": briefs, "mean_wrong_share": wrong, "mean_ndcg": ndcg, "done_unfit": 1, "status_ok": 2,
               "empty_shelves": 0, "broken_share": 0.25}
    return {"briefs_file": "benchmarks/judged/demo-dev.yaml", "catalog": "catalog.jsonl", "tag_blind": False,
            "summary": {"all": summary, "zh": summary, "en": summary},
            "shelves": [{"id": f"b{i}", "shelf_size": size} for i, size in enumerate(sizes)]}


def _results(tmp_path):
    (tmp_path / "judged-demo-dev-tagged.json").write_text(json.dumps(_judged(3, 0.3, 0.712, [30, 10, 5])))
    (tmp_path / "fragments-1.json").write_text(json.dumps({"passed": {"zh": 70, "en": 60},
                                                         "total": {"zh": 82, "en": 78}}))
    (tmp_path / "try.json").write_text(json.dumps({"seconds": {"雨夜": 1.5}}))
    (tmp_path / "stages.json").write_text(json.dumps({"briefs": 90, "stages": [
        {"stage": "rank", "p50_ms": 7.8, "p90_ms": 14.6}, {"stage": "theme", "p50_ms": 22.8, "p90_ms": 38.8}]}))
    return tmp_path


def test_the_judged_row_stands_beside_its_committed_first_sight(tmp_path):
    report = _script()
    text = report.render(_results(tmp_path))
    first = json.loads((PROJECT_ROOT / "benchmarks/judged/first-sight-dev-tagged.json").read_text())["summary"]["all"]
    row = next(line for line in text.splitlines() if line.startswith("| demo dev, tagged"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "demo dev, tagged (3)"
    assert cells[1].startswith("**0.30** (") and cells[2].startswith("**0.71** (")
    assert cells[3].startswith("0.25 (")  # shelved books wrong; the first sight of cbca387 did not count them
    assert cells[4] == f"1 ({first['done_unfit']})"
    assert cells[5] == f"2/3 ({first['status_ok']}/{first['briefs']})"
    assert cells[6].startswith("15.0 (")
    # Sets not measured are left out, not shown empty; so is the 90-brief table without its JSON.
    assert "| demo holdout" not in text and "| gutenberg" not in text and "Briefs read as" not in text
    assert ("first batch **zh 70/82, en 60/78, all 130/160 = 81%** (first sight zh 65/82, en 55/78, all 120/160 = 75%)"
            in text)
    assert "second batch" not in text  # a batch not measured is left out
    assert "| `shelfwise try \"雨夜\"` (median of 3, warm) | 1.50 s |" in text
    stages = "warm, in-process (benchmarks/theme_stages.py, 90 briefs: p50 / p90)"
    assert f"| a theme's rank stage, {stages} | 8 / 15 ms |" in text
    assert f"| a whole theme, {stages} | 23 / 39 ms |" in text


def test_the_readme_blocks_are_replaced_between_their_markers_only(tmp_path):
    report = _script()
    blocks = report.readme_blocks(_results(tmp_path))
    readme = ("# Shelfwise\nintro\n<!-- report:quality -->\nold table\n<!-- /report:quality -->\nmiddle\n"
              "<!-- report:speed -->\n<!-- /report:speed -->\nend\n")
    once = report.replace_blocks(readme, blocks)
    assert once.startswith("# Shelfwise\nintro\n<!-- report:quality -->\n") and once.endswith("end\n")
    assert "old table" not in once and "\nmiddle\n" in once
    quality = once.split("<!-- report:quality -->\n")[1].split("<!-- /report:quality -->")[0]
    assert "| demo, tagged, dev (tuned on) (1 set) | 0.30 | 0.71 | 0.25 | 1 | 2/3 |" in quality and "zh 70/82" in quality
    speed = once.split("<!-- report:speed -->\n")[1].split("<!-- /report:speed -->")[0]
    assert "1.50 s" in speed and "demo dev" not in speed
    assert report.replace_blocks(once, blocks) == once  # a rerun writes the same README


def test_a_readme_without_both_markers_in_order_is_left_alone(tmp_path):
    report = _script()
    blocks = report.readme_blocks(_results(tmp_path))
    assert report.replace_blocks("# Shelfwise\n<!-- report:quality -->\n<!-- /report:quality -->\n", blocks) is None
    assert report.replace_blocks("<!-- /report:quality -->\n<!-- report:quality -->\n"
                                 "<!-- report:speed -->\n<!-- /report:speed -->\n", blocks) is None


def test_every_judged_set_and_first_sight_the_report_names_is_committed():
    # A set added to JUDGED or FIRST_SIGHT with a wrong path or key would drop out of the report silently.
    report = _script()
    runs = {f"{name}-{mode}" for name, _, _, modes in report.JUDGED for mode in modes}
    assert all((PROJECT_ROOT / briefs).is_file() for _, briefs, _, _ in report.JUDGED)
    assert set(report.FIRST_SIGHT) <= runs
    assert all((PROJECT_ROOT / file).is_file() for file in report.FIRST_SIGHT.values())
    assert "evergreen-next2-blind" in report.FIRST_SIGHT


def test_the_readme_pools_the_sets_by_catalog_mode_and_whether_they_were_tuned_on(tmp_path):
    report = _script()
    results = _results(tmp_path)
    (results / "judged-demo-holdout-tagged.json").write_text(json.dumps(_judged(1, 0.1, 0.5, [10])))
    (results / "judged-demo-next5-tagged.json").write_text(json.dumps(_judged(3, 0.5, 0.1, [4, 4, 4])))
    rows = {label: now for label, now, _ in report.pooled_rows(results)}
    unseen = rows["demo, tagged, unseen (2 sets)"]
    # means weighted by briefs: (0.1 * 1 + 0.5 * 3) / 4, counts summed
    assert (round(unseen.wrong, 2), unseen.briefs, unseen.status_ok) == (0.4, 4, 4)
    assert rows["demo, tagged, dev (tuned on) (1 set)"].briefs == 3
