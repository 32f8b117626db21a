"""The ordered pass after a batch's themes were shelved at once (tasks/shelving.py settle_batch): which shelves stand
and which themes are shelved again with their batch's earlier shelves."""

from datetime import datetime

from config.settings import HistorySettings
from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.shelf import ShelfEntry, ThemeShelf, failed_shelf
from tasks.model.themes import Theme
from tasks.shelving import settle_batch

STARTED = datetime(2026, 11, 27, 2, 0)
BRIEFS = {
    "rainy": "Quiet novels for a rainy night",
    "cooking": "Cookbooks for beginners",
    "rainy-nights": "Quiet novels for rainy nights",  # like the first: its books must stay off this shelf
    "lighter": "延续上次的主题，但更轻松一些",  # refers to an earlier shelf
}


def _shelf(theme: Theme, books: list[str], note: str = "at once") -> ThemeShelf:
    entries = [ShelfEntry(i + 1, BookRecord(b, b), Candidate(b, ["vector"])) for i, b in enumerate(books)]
    return ThemeShelf(theme, ThemeQuery((), (), theme.brief, 0.8, "rules"), entries, "done", [note])


def test_a_shelf_stands_unless_an_earlier_shelf_of_its_batch_can_change_it(embedder):
    themes = [Theme("b1", theme_id, brief, position=i) for i, (theme_id, brief) in enumerate(BRIEFS.items())]
    at_once = [_shelf(t, [f"{t.theme_id}-{n}" for n in range(3)]) for t in themes]
    at_once[1] = failed_shelf(themes[1], RuntimeError("the worker died twice"))
    asked: dict[str, list[str]] = {}

    def again(theme: Theme, delivered) -> ThemeShelf:
        asked[theme.theme_id] = [h.theme_id for h in delivered]
        return _shelf(theme, [f"{theme.theme_id}-again"], "in order")

    settled = settle_batch(themes, iter(at_once), STARTED, HistorySettings(), embedder, again)
    # the failed theme, the one like an earlier shelf and the one referring to one: again, each with every shelf
    # of the batch before it as settled (the failed one's replacement included)
    assert asked == {"cooking": ["rainy"], "rainy-nights": ["rainy", "cooking"],
                     "lighter": ["rainy", "cooking", "rainy-nights"]}
    assert settled[0] is at_once[0]
    assert [s.notes for s in settled[1:]] == [["in order"]] * 3
    assert [s.theme.theme_id for s in settled] == list(BRIEFS)
