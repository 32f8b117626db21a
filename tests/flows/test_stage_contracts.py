"""Each stage's entry point on the demo index: typed in, typed out, and what it promises the next stage."""

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.constraints import evaluate
from tasks.model.query import PathHit, ThemeQuery
from tasks.model.shelf import ThemeShelf
from tasks.model.stages import Hits, Understood
from tasks.model.themes import Theme
from tasks.ranking.rank import rank
from tasks.recall.paths import registered
from tasks.recall.paths.base import RecallPath
from tasks.recall.recall import recall
from tasks.shelving import build_context
from tasks.understanding.understand import understand

pytestmark = pytest.mark.slow

# brief -> whether the demo holds books that clear the admission for it: an author's works and a genre do; a mood
# or a read-alike may come back empty when the admission is on, never padded
BRIEFS = {"适合雨天窗前读的安静小说，不要温暖治愈的": False, "鲁迅作品专题": True, "像《边城》那样的书": False,
          "Science fiction after 1980": True}


@pytest.fixture(scope="module")
def context(demo_workspace):
    return build_context(demo_workspace, get_vocabulary())


@pytest.mark.parametrize("brief", BRIEFS)
def test_understand_recall_and_rank_hand_each_other_typed_records(context, brief):
    shelves_books = BRIEFS[brief]
    theme = Theme("contract", "t", brief)
    understood = understand(theme, [], context.tools)
    assert isinstance(understood, Understood) and understood.theme == theme
    assert isinstance(understood.query, ThemeQuery) and "translate" in understood.stage_seconds

    hits = recall(understood, context.recall)
    assert isinstance(hits, Hits) and hits.paths
    books = context.recall.books
    for name, found in hits.paths.items():
        # recall holds to the hard constraints on every path
        assert all(isinstance(h, PathHit) and evaluate(understood.constraints, books[h.book_id]) for h in found), name
    assert "recall" in hits.stage_seconds

    shelf = rank(hits, understood, context.ranking)
    assert isinstance(shelf, ThemeShelf) and shelf.theme == theme and shelf.query == understood.query
    assert [e.rank for e in shelf.entries] == list(range(1, len(shelf.entries) + 1))
    assert len(shelf.entries) <= context.ranking.settings.shelf.size and (bool(shelf.entries) or not shelves_books)
    assert shelf.entries or shelf.status == "needs_review"  # an empty shelf is never done
    assert all(evaluate(understood.constraints, e.book) for e in shelf.entries)
    found = {h.book_id for hits_of_path in hits.paths.values() for h in hits_of_path}
    assert {e.candidate.book_id for e in shelf.entries} <= set(shelf.ranked) <= found
    assert shelf.status in ("done", "needs_review") and shelf.understanding == understood.understanding


def test_every_recall_path_is_registered_once_by_its_own_name(context):
    paths = registered()
    assert all(isinstance(p, RecallPath) for p in paths)
    assert len({p.name for p in paths}) == len(paths) and {"vector", "bm25", "intent"} <= {p.name for p in paths}
    theme_shelf = understand(Theme("contract", "t", "适合雨天窗前读的安静小说"), [], context.tools)
    spotlight = understand(Theme("contract", "t", "鲁迅作品专题"), [], context.tools)
    intent_path = next(p for p in paths if p.name == "intent")
    # the intent path runs only where the brief's intent adds paths
    assert not intent_path.runs(theme_shelf, context.recall) and intent_path.runs(spotlight, context.recall)
