"""One theme's stages as Prefect tasks, so that a run shows each theme's understand, recall and rank.

Every decision lives in a stage (tasks/understanding, tasks/recall, tasks/ranking); this module only hands each
stage's output to the next. `shelfwise try` and evaluation call the same three functions without Prefect.
"""

from __future__ import annotations

from collections.abc import Sequence

from prefect import task
from prefect.cache_policies import NONE
from prefect.utilities.annotations import quote

from tasks.model.shelf import ThemeShelf
from tasks.model.themes import HistoryShelf, Theme
from tasks.ranking.rank import rank
from tasks.recall.recall import recall
from tasks.shelving import ShelvingContext
from tasks.understanding.understand import understand

understand_step = task(understand, name="understand", task_run_name="understand-{theme.theme_id}",
                       cache_policy=NONE)
recall_step = task(recall, name="recall", task_run_name="recall-{understood.theme.theme_id}", cache_policy=NONE)
rank_step = task(rank, name="rank", task_run_name="rank-{understood.theme.theme_id}", cache_policy=NONE)


def shelve_theme(theme: Theme, history: Sequence[HistoryShelf], ctx: ShelvingContext) -> ThemeShelf:
    """One theme from brief to shelf, each stage a task run; quoted: Prefect would otherwise walk the whole
    catalog in a context (and every hit) on every call."""
    understood = understand_step(theme, quote(history), quote(ctx.tools))
    hits = recall_step(understood, quote(ctx.recall))
    return rank_step(quote(hits), understood, quote(ctx.ranking))
