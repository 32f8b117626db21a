"""Ranking metrics on known rankings."""

import pytest

from tasks.evaluation.metrics import ndcg_at, recall_at


def test_metrics_on_known_rankings():
    assert ndcg_at(["a", "b"], {"a": 1}) == 1.0
    assert ndcg_at(["x", "a"], {"a": 1}) == pytest.approx(1 / 1.584962, rel=1e-5)
    assert recall_at(["a", "x"], {"a": 1, "b": 1}) == 0.5


def test_a_themes_file_is_a_benchmark_of_its_briefs_with_no_checks(tmp_path):
    from tasks.evaluation.briefs import load_benchmark

    themes = tmp_path / "themes.yaml"
    themes.write_text("batch_id: b-1\nthemes:\n  - theme_id: rain\n    theme_name: 雨夜小说\n    slogan: 不要温暖治愈\n"
                      "  - theme_id: sea\n    theme_name: Sea and islands\n", encoding="utf-8")
    [batch] = load_benchmark(themes)
    assert batch.batch_id == "b-1"
    assert [(b.id, b.brief, b.checks, b.language) for b in batch.briefs] == [
        ("zh-rain", "雨夜小说\n不要温暖治愈", {}, "zh"), ("en-sea", "Sea and islands", {}, "en")]


def test_wish_share_counts_the_shelf_holding_each_wished_mood_by_its_true_tags(vocabulary):
    from tasks.evaluation.briefs import wish_share
    from tasks.model.books import BookRecord
    from tasks.model.conditions import FilterCondition

    shelf = [BookRecord("a", "A", tags={"emotional_tone": ("平静淡然",), "spatial_atmosphere": ("海洋岛屿",)}),
             BookRecord("b", "B", tags={"emotional_tone": ("忧伤怅惘",)}),
             BookRecord("c", "C", tags={"emotional_tone": ("温暖治愈",), "spatial_atmosphere": ("海洋岛屿",)})]
    wishes = (FilterCondition("emotional_tone", ("平静淡然", "忧伤怅惘"), "SHOULD"),
              FilterCondition("spatial_atmosphere", ("海洋岛屿",), "SHOULD"),
              FilterCondition("genre", ("小说",), "SHOULD"),  # a genre wish is the checks' to judge
              FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT"))
    assert wish_share(shelf, wishes, vocabulary) == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert wish_share(shelf, wishes[2:], vocabulary) is None and wish_share([], wishes, vocabulary) is None


def test_a_shelf_under_review_fails_the_question_check_unless_it_asks_the_kind_the_brief_expects(vocabulary):
    from tasks.evaluation.briefs import BenchBrief, ShelfOutcome, score_brief
    from tasks.model.books import BookRecord

    truth = {"a": BookRecord("a", "A", tags={"genre": ("小说",)})}
    brief = BenchBrief("zh-rated", "评分8分以上的小说", "numeric", {"form": "fiction", "question": "unchecked"})

    def score(question):
        outcome = ShelfOutcome("needs_review", "theme_shelf", (), (), None, ("a",), (), question)
        return score_brief(brief, outcome, truth, vocabulary, {})
    assert score("unchecked").failures == {}
    assert score("conditions").failures == {"question": 1} and score(None).failures == {"question": 1}
    assert score("conditions").pass_share == 1.0  # a shelf check: the books still pass


def test_a_status_or_question_written_per_catalog_is_read_for_the_catalog_shelved(tmp_path):
    from tasks.evaluation.briefs import BenchmarkFileError, load_benchmark

    bench = tmp_path / "briefs.yaml"
    brief = ("batches:\n  - batch_id: b\n    briefs:\n      - id: en-turners\n        brief: Page-turners only\n"
             "        checks:\n          status: {tagged: done, tag_blind: needs_review}\n"
             "          question: {tagged: null, tag_blind: unchecked}\n          form: fiction\n")
    bench.write_text(brief, encoding="utf-8")
    [[tagged]], [[blind]] = [b.briefs for b in load_benchmark(bench)], [b.briefs for b in load_benchmark(bench, True)]
    assert tagged.checks == {"status": "done", "question": None, "form": "fiction"}
    assert blind.checks == {"status": "needs_review", "question": "unchecked", "form": "fiction"}
    bench.write_text(brief.replace("tag_blind: needs_review", "blind: needs_review"), encoding="utf-8")
    with pytest.raises(BenchmarkFileError, match="en-turners: status per catalog needs exactly tagged, tag_blind"):
        load_benchmark(bench)
