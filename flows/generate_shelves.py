"""The shelf flows: `generate-shelves` for one batch, `nightly` for index build + every pending batch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NONE
from prefect.utilities.annotations import quote
from pydantic import BaseModel, Field

from config.settings import ExpansionSettings, SentenceRerankSettings, Settings, load_settings
from config.vocabulary import get_vocabulary
from flows.build_indexes import build_indexes
from flows.shelving import build_context, shelve_theme
from storage.catalog_db import open_catalog
from storage.models import StageSwitches, Theme
from storage.shelf_db import ShelfDB
from tasks.export.artifacts import artifact_key, batch_summary, shelf_table
from tasks.export.excel import write_workbook
from tasks.progress import logger
from tasks.ranking.shelf import ThemeShelf, failed_shelf


class ThemeBrief(BaseModel):
    """A theme typed in the Prefect UI's run form."""

    theme_id: str = Field(description="unique within the batch, e.g. rainy-night")
    theme_name: str
    slogan: str = ""
    description: str = ""
    target_vibe: str = ""
    language_preference: Literal["", "first", "only", "any"] = Field(
        "", description="books in the brief's language first, only, or any; empty: the batch's choice")


@dataclass(frozen=True)
class BatchResult:
    batch_id: str
    workbook: str
    shelves: dict[str, int]  # theme_id -> books on its shelf
    statuses: dict[str, str]
    stage_seconds: dict[str, dict[str, float]]  # theme_id -> stage -> seconds
    theme_shelves: list[ThemeShelf] = field(default_factory=list, repr=False)  # for evaluation


def _mirrors(title: str, section: type[BaseModel], key: str):
    """A run-form parameter that overrides a setting: the setting's own description, and what empty means."""
    described = section.model_fields["enabled"].description
    return Field(None, description=f"{described} Empty: the batch's earlier choice, else `{key}` in "
                                   "config/settings.yaml. Kept for the batch's reruns.",
                 json_schema_extra={"title": title})  # Prefect sets the title to the name; the extra wins


shelve = task(shelve_theme, name="shelve-theme", task_run_name="shelve-{theme.theme_id}", cache_policy=NONE)
export = task(write_workbook, name="export-excel", cache_policy=NONE)


def shelve_batch(settings: Settings, batch_id: str, themes: list[ThemeBrief] | None = None,
                 include_unavailable: bool = False, switches: StageSwitches = StageSwitches()) -> BatchResult:
    """Every theme of the batch shelved in one transaction with its workbook; the artifacts published."""
    with open_catalog(settings.duckdb_path) as db:
        shelf_db = ShelfDB(db.conn)
        if themes:
            shelf_db.import_themes([Theme(batch_id, t.theme_id, t.theme_name, t.slogan, t.description,
                                          t.target_vibe, position=i, language_preference=t.language_preference)
                                    for i, t in enumerate(themes, start=1)])
        batch_themes = shelf_db.themes(batch_id)
        if not batch_themes:
            raise ValueError(f"batch {batch_id!r} has no themes: import them with `shelfwise themes import`")
        first_run_at = shelf_db.start_batch(batch_id)
        ctx = build_context(db, settings, get_vocabulary(), available_only=not include_unavailable,
                            switches=shelf_db.batch_switches(batch_id, switches))
        workbook = settings.outputs_dir / f"{batch_id}.xlsx"
        shelves: list[ThemeShelf] = []
        with db.transaction():  # the batch's history and statuses land together or not at all
            for theme in batch_themes:
                history = shelf_db.history_for(batch_id, theme, first_run_at, settings.history.days,
                                               settings.history.reference_days)
                try:
                    # quoted: Prefect would otherwise walk the whole catalog in ctx on every call
                    shelf = shelve(theme, quote(history), quote(ctx))
                except Exception as err:  # noqa: BLE001 - one bad theme must not sink the batch
                    logger.exception("theme %s failed", theme.theme_id)
                    shelf = failed_shelf(theme, err)
                shelves.append(shelf)
                shelf_db.record_shelf(theme, (*shelf.query.filter_conditions, *shelf.query.numeric_conditions),
                                      [e.book.book_id for e in shelf.entries])
                shelf_db.set_theme_status(batch_id, theme.theme_id, shelf.status)
                logger.info("theme %s: %s, %d books", theme.theme_id, shelf.status, len(shelf.entries))
            export(workbook, batch_id, quote(shelves))
            shelf_db.finish_batch(batch_id, str(workbook))
    create_table_artifact(shelf_table(shelves), key=artifact_key(batch_id), description=f"Shelves of batch {batch_id}")
    create_markdown_artifact(batch_summary(batch_id, workbook, shelves), key=artifact_key(batch_id) + "-summary",
                             description=f"Summary of batch {batch_id}")
    logger.info("batch %s written to %s", batch_id, workbook)
    return BatchResult(batch_id, str(workbook), {s.theme.theme_id: len(s.entries) for s in shelves},
                       {s.theme.theme_id: s.status for s in shelves},
                       {s.theme.theme_id: s.stage_seconds for s in shelves}, shelves)


@flow(name="generate-shelves")
def generate_shelves(batch_id: str, themes: list[ThemeBrief] | None = None, include_unavailable: bool = False,
                     sentence_rerank: bool | None = _mirrors("Sentence rerank", SentenceRerankSettings,
                                                             "rerank.sentence.enabled"),
                     query_expansion: bool | None = _mirrors("Query expansion", ExpansionSettings,
                                                             "expansion.enabled"),
                     language_preference: Literal["first", "only", "any"] | None = Field(
                         None, description="Books in the brief's language first, only, or any. Empty: the batch's "
                                           "earlier choice, else `shelf.language_preference`. A theme's own "
                                           "choice wins. Kept for the batch's reruns.",
                         json_schema_extra={"title": "Language preference"})) -> BatchResult:
    """Turn every theme of a batch into a shelf and write outputs/<batch_id>.xlsx.

    Args:
        batch_id: the batch to shelve; its themes come from `shelfwise themes import` or from `themes`.
        themes: themes to add to the batch (or replace, by theme_id) before shelving.
        include_unavailable: keep books with no copies on the shelf.
    """
    return shelve_batch(load_settings(), batch_id, themes, include_unavailable,
                        StageSwitches(sentence_rerank=sentence_rerank, query_expansion=query_expansion,
                                      language_preference=language_preference))


@flow(name="nightly")
def nightly() -> list[BatchResult]:
    """Bring the indexes up to date, then shelve every batch with pending themes (each its own flow run)."""
    build_indexes()
    with open_catalog(load_settings().duckdb_path) as db:
        pending = ShelfDB(db.conn).pending_batches()
    logger.info("pending batches: %s", ", ".join(pending) or "none")
    return [generate_shelves(batch_id) for batch_id in pending]
