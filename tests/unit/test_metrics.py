"""Ranking metrics on known rankings."""

import pytest

from tasks.evaluation.metrics import ndcg_at, recall_at


def test_metrics_on_known_rankings():
    assert ndcg_at(["a", "b"], {"a": 1}) == 1.0
    assert ndcg_at(["x", "a"], {"a": 1}) == pytest.approx(1 / 1.584962, rel=1e-5)
    assert recall_at(["a", "x"], {"a": 1, "b": 1}) == 0.5
