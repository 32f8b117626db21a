"""The judged benchmark's scorer on shelves whose scores are known by hand."""

import math

import pytest

from tasks.evaluation.judged import (JudgedBrief, JudgedFileError, fitting_works, judged_ndcg, load_judged,
                                     score_shelf, summaries, wrong_share_at)

JUDGED = {"a": 2, "b": 2, "c": 1, "a-e2": 2}
WORKS = {"a": "a", "a-e2": "a", "b": "b", "c": "c", "x": "x", "y": "y"}


def brief(status="done", lang="en", judgments=JUDGED):
    return JudgedBrief("en-t", lang, "Theme", None, "team", status, "", judgments)


def test_wrong_share_counts_the_first_ten_or_a_shorter_shelf_by_its_own_books():
    assert wrong_share_at(["a", "x", "c", "y"], JUDGED) == 0.5
    assert wrong_share_at(["x"] * 3 + ["a"] * 9, JUDGED) == pytest.approx(3 / 10)  # the 11th and 12th not counted
    assert wrong_share_at([], JUDGED) is None


def test_ndcg_uses_gains_2_1_0_and_counts_editions_of_one_work_once_in_the_ideal():
    ideal = 2 + 2 / math.log2(3) + 1 / math.log2(4)  # a (or its edition), b, c: the edition adds nothing
    assert judged_ndcg(["a", "b", "c"], JUDGED, WORKS) == pytest.approx(1.0)
    assert judged_ndcg(["a-e2", "b", "c"], JUDGED, WORKS) == pytest.approx(1.0)
    assert judged_ndcg(["x", "c", "a"], JUDGED, WORKS) == pytest.approx((1 / math.log2(3) + 2 / 2) / ideal)
    assert judged_ndcg(["x", "y"], JUDGED, WORKS) == 0.0
    assert fitting_works(JUDGED, WORKS) == 3 and fitting_works(JUDGED) == 4


def test_a_done_shelf_under_90_percent_fitting_is_counted_and_statuses_are_compared_per_language():
    fine = score_shelf(brief(), ["a", "b"] * 5, "done", WORKS)
    padded = score_shelf(brief(), ["a", "b", "c"] * 3 + ["x"] * 2, "done", WORKS)  # 9 of 11 fit: 82%
    short = score_shelf(brief("needs_review", "zh"), ["c"], "needs_review", WORKS)
    assert (fine.done_unfit, padded.done_unfit, short.done_unfit) == (False, True, False)
    assert padded.shelf_size == 11 and padded.top_size == 10 and padded.wrong_share == pytest.approx(0.1)
    assert not score_shelf(brief("needs_review"), ["a"], "done", WORKS).status_ok
    table = summaries([fine, padded, short])
    assert (table["all"].done_unfit, table["all"].status_ok) == (1, 3)
    assert table["en"].briefs == 2 and table["en"].mean_wrong_share == pytest.approx(0.05)
    assert table["zh"].mean_wrong_share == 0.0 and table["zh"].mean_ndcg == pytest.approx(1 / (2 + 2 / math.log2(3)
                                                                                                 + 1 / math.log2(4)),
                                                                                          abs=1e-3)


def test_a_bad_brief_names_the_file_the_brief_and_the_field(tmp_path):
    path = tmp_path / "judged.yaml"
    path.write_text("briefs:\n  - id: zh-a\n    lang: zh\n    brief: {theme_name: 历史}\n    status: done\n"
                    "    judgments: {zh-0113: 2, zh-0114: 0}\n", encoding="utf-8")
    with pytest.raises(JudgedFileError, match=r"judged.yaml: brief 1 \(zh-a\): judgments.zh-0114"):
        load_judged(path)
    path.write_text("briefs:\n  - id: zh-a\n    lang: zh\n    brief: {theme_name: 历史}\n    status: finished\n",
                    encoding="utf-8")
    with pytest.raises(JudgedFileError, match="status"):
        load_judged(path)


def test_the_benchmark_files_load_with_their_expected_status_read_from_the_fitting_works():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "benchmarks" / "judged"
    for name, count in (("demo-dev.yaml", 32), ("demo-holdout.yaml", 32), ("demo-next.yaml", 24)):
        briefs = load_judged(root / name)
        assert len(briefs) == count and sum(b.lang == "zh" for b in briefs) == count // 2
        for b in briefs:
            works = {k.removesuffix("-e2") for k, v in b.judgments.items() if v}
            assert b.status == ("done" if len(works) >= 10 else "needs_review"), b.id


def test_the_share_of_shelved_books_that_break_their_brief_counts_whole_shelves_pooled_over_books():
    long_padded = score_shelf(brief(), ["a", "b", "c"] * 4 + ["x"] * 18, "done", WORKS)  # 18 of 30 wrong
    short_fine = score_shelf(brief("needs_review", "zh"), ["c", "y"], "needs_review", WORKS)  # 1 of 2 wrong
    assert (long_padded.broken, short_fine.broken) == (18, 1)
    assert long_padded.wrong_share == 0.0  # its first 10 all fit: the padding shows only over the whole shelf
    table = summaries([long_padded, short_fine])
    assert table["all"].broken_share == pytest.approx(19 / 32, abs=1e-3)  # pooled, not the mean of 0.6 and 0.5
    assert table["zh"].broken_share == 0.5
    assert summaries([score_shelf(brief(), [], "needs_review", WORKS)])["all"].broken_share is None
