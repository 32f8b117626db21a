"""A shelf holds only books that fit, on the real demo index: a brief the catalog cannot fill says so."""

import re

import pytest
import yaml

from flows.cli import main as shelfwise

pytestmark = pytest.mark.slow


def try_brief(capsys, brief: str) -> dict:
    capsys.readouterr()
    assert shelfwise(["try", brief]) == 0
    return yaml.safe_load(capsys.readouterr().out)


def test_a_brief_the_demo_cannot_fill_goes_to_review_with_the_count_and_the_nearest_topics(demo_workspace, capsys):
    report = try_brief(capsys, "Books about whales and the sea")
    gating = report["gating"]
    assert gating["status"] == "needs_review"
    # the true reason: how many books of the catalog are about it, and what it does hold instead
    count = int(re.search(r"Only (\d+) books in this catalog are about 'whales', 'sea'", gating["question"])[1])
    assert count < 10
    assert any(re.fullmatch(r"about: .+ \(\d+ books\)", o) for o in gating["options"])
    assert gating["options"][-1].startswith("lower the relevance floor")
    # never padded to its size with books that do not fit
    assert len(report["shelf"]) < 30
