"""The shelf flows: `generate-shelves` for one batch, `nightly` for index build + every pending batch.

A flow run ends Completed only when every theme got a shelf (needs_review included, named in the
state message); a theme that failed stays pending for the next run, and its batch's run ends Failed
naming it. Themes handed in (run form, pasted file text) are kept in the workspace's inbox before
the run waits for the workspace, so a run that never starts loses none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache
from typing import Annotated, Literal

from prefect import flow, tags, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NONE
from prefect.states import Completed, Failed, State
from prefect.utilities.annotations import quote
from pydantic import BaseModel, ConfigDict

from config.settings import ExpansionSettings, SentenceRerankSettings, Settings, load_settings
from config.vocabulary import get_vocabulary
from flows.build_indexes import build_indexes
from flows.compute import COMPUTE_FIELD, ComputeChoice, fanout, with_compute
from flows.outputs_http import workbook_link
from flows.prefect_api import workspace_server
from flows.review import import_waiting_answers
from flows.runs import NEEDS_REVIEW, NEEDS_REVIEW_TAG, NIGHTLY, form_field, label_run, trigger_tag, workspace_writer
from flows.shelving import shelve_theme
from storage.catalog_db import open_catalog
from storage.index_root import index_root
from storage.index_store import open_current
from storage.labels import LabelsDB
from storage.paths import NotWritable, UnsafePath, check_writable, workbook_path
from storage.shelf_db import ShelfDB, ThemeOutcome, theme_history
from storage.theme_inbox import import_waiting_themes, keep_themes
from storage.workspace_lock import WorkspaceBusy
from tasks.errors import InputError
from tasks.export.artifacts import artifact_key, batch_summary, shelf_table
from tasks.export.delivery import Delivered, deliver
from tasks.export.excel import write_workbook
from tasks.intake.themes import ID_PATTERN, ThemeFile, check_batch_id, new_batch_id, themes_from_form
from tasks.compute import Fanout
from tasks.language.embedders import shared_embedder
from tasks.model.review import NO_REVIEW, ThemeReview
from tasks.model.shelf import ThemeShelf, failed_shelf
from tasks.model.themes import HistoryShelf, StageSwitches, Theme
from tasks.progress import logger
from tasks.shelving import RunSpec, ShelvingContext, ThemeJob, build_context, settle_batch, shelve_job

DELIVERY_FAILED = "DeliveryFailed"  # a Failed state: written and recorded, but not where the curators look
# What a run refuses with its reason as the state message: input, an unwritable or busy workspace.
REFUSALS = (InputError, NotWritable, UnsafePath, WorkspaceBusy)
NEW_BATCH = "auto"  # the form's default batch id: a new batch named after the date and time the run starts
Switch = Literal["default", "on", "off"]
_SWITCHED = {"default": None, "on": True, "off": False}


class ThemeBrief(BaseModel):
    """A theme typed in the Prefect UI's run form."""

    model_config = ConfigDict(title="Theme")

    theme_id: Annotated[str, form_field("Theme id", "Unique within the batch, e.g. rainy-night. Empty: theme-01, "
                                        "theme-02, ... by position.", pattern=f"^$|{ID_PATTERN}")] = ""
    theme_name: Annotated[str, form_field("Theme name", "The theme's title, e.g. Quiet novels for a rainy night.")]
    slogan: Annotated[str, form_field("Slogan", "A line under the title (optional).")] = ""
    description: Annotated[str, form_field("Description", "The brief: what belongs on the shelf and what must "
                                           "not, as you would tell a colleague (optional).")] = ""
    target_vibe: Annotated[str, form_field("Target vibe", "A few words for the mood (optional).")] = ""
    language_preference: Annotated[Literal["", "first", "only", "any"], form_field(
        "Language preference", "Books in the brief's language first, only, or any. Empty: the batch's choice.")] = ""


@dataclass(frozen=True)
class BatchResult:
    batch_id: str
    workbook: str
    shelves: dict[str, int]  # theme_id -> books on its shelf
    statuses: dict[str, str]  # theme_id -> done | needs_review | failed
    stage_seconds: dict[str, dict[str, float]]  # theme_id -> stage -> seconds
    errors: dict[str, str]  # theme_id -> why it failed, for failed themes
    delivered: tuple[Delivered, ...] = ()  # the shared folder and e-mail, as configured
    theme_shelves: list[ThemeShelf] = field(default_factory=list, repr=False)  # for evaluation

    @property
    def needs_review(self) -> list[str]:
        return [t for t, s in self.statuses.items() if s == "needs_review"]

    def describe(self) -> str:
        """The run's state message: how many themes, which need review, which failed and stay pending."""
        review = self.needs_review
        parts = [f"batch {self.batch_id}: {len(self.statuses) - len(self.errors)} of {len(self.statuses)} "
                 "themes shelved"]
        if review:
            parts.append(f"needs review: {', '.join(review)}")
        if self.errors:
            parts.append("failed, kept pending for the next run: "
                         + "; ".join(f"{t} ({e})" for t, e in self.errors.items()))
        if self.undelivered:
            parts.append("not delivered: " + "; ".join(d.describe() for d in self.undelivered))
        return "; ".join(parts)

    @property
    def undelivered(self) -> list[Delivered]:
        return [d for d in self.delivered if d.error]


class ShelvingFailed(Exception):
    """Some themes of a batch failed; the others were shelved and written. Carries the batch's result."""

    def __init__(self, result: BatchResult):
        super().__init__(result.describe())
        self.result = result


def _switch(title: str, section: type[BaseModel], key: str):
    """A run-form switch that overrides a setting: the setting's own description, and what default means."""
    return form_field(title, f"{section.model_fields['enabled'].description} default: the batch's earlier "
                             f"choice, else `{key}` in config/settings.yaml. Kept for the batch's reruns.")


export = task(write_workbook, name="export-excel", cache_policy=NONE)


def check_outputs(settings: Settings) -> None:
    """NotWritable before any work when the workbook or the workspace could not be written."""
    check_writable(settings.workspace, "workspace")
    check_writable(settings.outputs_dir, "outputs_dir")


def shelve_batch(settings: Settings, batch_id: str, handed_in: ThemeFile | None = None,
                 include_unavailable: bool = False, switches: StageSwitches = StageSwitches(),
                 apply_review: bool = False) -> BatchResult:
    """Every theme of the batch shelved in one transaction with its workbook; the artifacts published.
    With `apply_review`, the curators' answers in force for the batch reshelve it (tasks/ranking/review.py)."""
    workbook = workbook_path(settings.outputs_dir, batch_id)
    check_writable(settings.workspace, "workspace")
    if handed_in is not None:  # on disk first: a run that never gets to shelve loses none of its themes
        keep_themes(settings.workspace, batch_id, handed_in.themes, handed_in.rejected)
    check_outputs(settings)
    with (workspace_writer(settings, f"the run shelves-{batch_id}"), open_catalog(settings.duckdb_path) as db,
          fanout(settings) as workers):
        import_waiting_themes(db, settings.workspace)
        shelf_db = ShelfDB(db.conn)
        batch_themes = shelf_db.themes(batch_id)
        if not batch_themes:
            raise InputError(f"batch {batch_id!r} has no themes: import them with `shelfwise themes import` "
                             "or type them in the run form")
        first_run_at = shelf_db.start_batch(batch_id)
        labels = LabelsDB(db.conn)
        reviews = labels.reviews(batch_id) if apply_review else {}
        batch_switches, withdrawn = shelf_db.batch_switches(batch_id, switches), db.withdrawn_ids()
        # with workers, each opens its own; here only where a theme is shelved again in order
        context = cache(lambda: build_context(settings, get_vocabulary(), not include_unavailable, batch_switches,
                                              withdrawn))
        if workers is None:
            context()
        with db.transaction():  # the batch's history and statuses land together or not at all
            # read once a batch, not once a theme: the other batches' shelves do not change during the run
            other_batches = shelf_db.earlier_batches_history(batch_id, first_run_at, settings.history.days,
                                                             settings.history.reference_days)

            def in_order(theme: Theme, delivered: Sequence[HistoryShelf]) -> ThemeShelf:
                """The theme shelved here, its batch's earlier shelves `delivered`."""
                return _shelve_one(theme, theme_history(theme, other_batches, delivered), context(),
                                   reviews.get(theme.theme_id, NO_REVIEW))

            if workers is None:
                shelves: list[ThemeShelf] = []
                delivered: list[HistoryShelf] = []  # this run's shelves so far, as its later themes see them
                for theme in batch_themes:
                    shelves.append(in_order(theme, delivered))
                    delivered.append(shelves[-1].as_history(first_run_at))
            else:
                run = RunSpec(settings, open_current(index_root(settings)).version_id, not include_unavailable,
                              batch_switches, withdrawn)
                shelves = _on_workers(workers, batch_themes, other_batches, reviews, run, first_run_at, in_order)
                delivered = [s.as_history(first_run_at) for s in shelves]
            # one write for the batch, not three a theme
            shelf_db.record_shelves(delivered)
            shelf_db.set_theme_statuses(batch_id, [ThemeOutcome(s.theme.theme_id, s.status, s.error)
                                                   for s in shelves])
            export(workbook, batch_id, quote(shelves), labels.workspace_id())
            shelf_db.finish_batch(batch_id, str(workbook))
    create_table_artifact(shelf_table(shelves), key=artifact_key(batch_id), description=f"Shelves of batch {batch_id}")
    running = workspace_server(settings)
    link = workbook_link(workbook, running.outputs_url if running else None)
    summary = batch_summary(batch_id, workbook, shelves, link)
    create_markdown_artifact(summary, key=artifact_key(batch_id) + "-summary",
                             description=f"Summary of batch {batch_id}")
    logger.info("batch %s written to %s", batch_id, workbook)
    deliveries = tuple(deliver(workbook, batch_id, summary, settings.delivery))
    for channel in deliveries:
        (logger.error if channel.error else logger.info)("delivery: %s", channel.describe())
    return BatchResult(batch_id, str(workbook), {s.theme.theme_id: len(s.entries) for s in shelves},
                       {s.theme.theme_id: s.status for s in shelves},
                       {s.theme.theme_id: s.stage_seconds for s in shelves},
                       {s.theme.theme_id: s.error for s in shelves if s.error is not None}, deliveries, shelves)


def _shelve_one(theme: Theme, history: Sequence[HistoryShelf], ctx: ShelvingContext,
                review: ThemeReview) -> ThemeShelf:
    """One theme's shelf, each stage a task run; a failed shelf where it raised."""
    try:
        shelf = shelve_theme(theme, history, ctx, review)
    except Exception as err:  # noqa: BLE001 - one bad theme must not sink the batch
        logger.exception("theme %s failed", theme.theme_id)
        shelf = failed_shelf(theme, err)
    logger.info("theme %s: %s, %d books", theme.theme_id, shelf.status, len(shelf.entries))
    return shelf


def _on_workers(workers: Fanout, themes: Sequence[Theme], other_batches: Sequence[HistoryShelf],
                reviews: Mapping[str, ThemeReview], run: RunSpec, started: datetime | None,
                in_order: Callable[[Theme, Sequence[HistoryShelf]], ThemeShelf]) -> list[ThemeShelf]:
    """Every theme recalled and ranked at once on the workers against the other batches' shelves, then the batch's
    own earlier shelves settled in one ordered pass here (settle_batch): the shelves of the run in order."""
    jobs = [ThemeJob(t, tuple(theme_history(t, other_batches, ())), reviews.get(t.theme_id, NO_REVIEW), run)
            for t in themes]
    embedder = shared_embedder(run.settings.embedder.model_copy(update={"threads": run.settings.recall.blas_threads}))
    return settle_batch(themes, workers.map("shelve-theme", shelve_job, jobs), started, run.settings.history,
                        embedder, in_order)


def batch_state(result: BatchResult) -> State:
    """Failed naming each failed theme; else NeedsReview (a Completed state the runs list shows by its own
    name) when a theme waits for the curator's answer; else Completed."""
    if result.errors:
        return Failed(message=result.describe(), data=ShelvingFailed(result))
    if result.undelivered:  # the shelves are written and recorded; the curators have not got them
        return Failed(name=DELIVERY_FAILED, message=result.describe(), data=ShelvingFailed(result))
    if result.needs_review:
        return Completed(name=NEEDS_REVIEW, message=result.describe(), data=result)
    return Completed(message=result.describe(), data=result)


@flow(name="generate-shelves", flow_run_name="shelves-{batch_id}",
      description="Shelve one batch of themes and write outputs/<batch id>.xlsx.")
def generate_shelves(
    batch_id: Annotated[str, form_field(
        "Batch id", f"{NEW_BATCH}: a new batch named after the date and time the run starts "
                    "(e.g. 2026-11-23-1405-3f2a). Name a batch to add themes to it or shelve it again.",
        pattern=ID_PATTERN)] = NEW_BATCH,
    themes: Annotated[list[ThemeBrief], form_field(
        "Themes", "Themes to add to the batch (a theme with the id of an earlier one replaces it).")] = [],  # noqa: B006
    themes_file_text: Annotated[str, form_field(
        "Themes file text", "Or paste a themes file here: YAML with a `themes:` list, or CSV with a header row "
                            "(the columns of config/themes_template.xlsx).")] = "",
    include_unavailable: Annotated[bool, form_field(
        "Include unavailable books", "Also shelve books with no copy available now.")] = False,
    sentence_rerank: Annotated[Switch, _switch("Sentence rerank", SentenceRerankSettings,
                                               "rerank.sentence.enabled")] = "default",
    query_expansion: Annotated[Switch, _switch("Query expansion", ExpansionSettings,
                                               "expansion.enabled")] = "default",
    language_preference: Annotated[Literal["default", "first", "only", "any"], form_field(
        "Language preference", "Books in the brief's language first, only, or any. default: the batch's earlier "
                               "choice, else `shelf.language_preference`. A theme's own choice wins. Kept for the "
                               "batch's reruns.")] = "default",
    apply_review: Annotated[bool, form_field(
        "Apply review", "Reshelve with the curators' answers imported for this batch (`shelfwise review import`): "
                        "kept books stay in place, dropped and replaced ones leave, answered questions apply.")
    ] = False,
    compute: Annotated[ComputeChoice, COMPUTE_FIELD] = "default",
) -> State:
    """Turn every theme of a batch into a shelf and write outputs/<batch_id>.xlsx."""
    settings = with_compute(load_settings(), compute)
    try:
        batch = new_batch_id() if batch_id in ("", NEW_BATCH) else check_batch_id(batch_id)
        label_run(f"shelves-{batch}", [f"batch:{batch}", trigger_tag()])
        handed_in = (themes_from_form(batch, [t.model_dump() for t in themes], themes_file_text)
                     if themes or themes_file_text.strip() else None)
        switches = StageSwitches(sentence_rerank=_SWITCHED[sentence_rerank],
                                 query_expansion=_SWITCHED[query_expansion],
                                 language_preference=None if language_preference == "default" else language_preference)
        result = shelve_batch(settings, batch, handed_in, include_unavailable, switches, apply_review)
        if result.needs_review:  # the runs list can be filtered by it
            label_run(f"shelves-{batch}", [NEEDS_REVIEW_TAG])
        # Prefect walks a flow's return value for futures: the shelves' books (for evaluation, which calls
        # shelve_batch itself) took it 2.7 s at 100 themes
        return batch_state(replace(result, theme_shelves=[]))
    except REFUSALS as err:  # the curator's input or the workspace: the reason, not a traceback
        logger.error("%s", err)
        return Failed(message=str(err), data=err)


def switch_value(choice: bool | None) -> Switch:
    """The run-form value of a command-line switch (--x / --no-x / neither)."""
    return next(k for k, v in _SWITCHED.items() if v is choice)


def nightly_state(build: State, batches: Mapping[str, State]) -> State:
    """Failed when the index build or any batch failed, naming each; else NeedsReview when a batch waits for an
    answer; else Completed with what was shelved."""
    failed = [f"batch {b}: {s.message}" for b, s in batches.items() if not s.is_completed()]
    if not build.is_completed():
        failed.insert(0, f"index build: {build.message}")
    shelved = ", ".join(b for b, s in batches.items() if s.is_completed()) or "none"
    message = f"batches shelved: {shelved}" + (f"; failed: {' | '.join(failed)}" if failed else "")
    if failed:
        return Failed(message=message)
    review = [b for b, s in batches.items() if s.name == NEEDS_REVIEW]
    if review:
        return Completed(name=NEEDS_REVIEW, message=f"{message}; needs review: {', '.join(review)}")
    return Completed(message=message)


def _nightly_run_name() -> str:
    return f"nightly-{datetime.now():%Y-%m-%d}"


@flow(name="nightly", flow_run_name=_nightly_run_name,
      description="Bring the indexes up to date, then shelve every batch with pending themes or new answers.")
def nightly() -> State:
    """Bring the indexes up to date, import the answered workbooks in the inbox, then shelve every batch with
    pending themes and reshelve every batch answered (each its own flow run)."""
    settings = load_settings()
    try:
        with workspace_writer(settings, "the nightly run"), tags(NIGHTLY):
            build = build_indexes(return_state=True)  # a failed build leaves the last index current: shelve on it
            with open_catalog(settings.duckdb_path) as db:
                import_waiting_themes(db, settings.workspace)
                # a batch is reshelved when a workbook brought answers it did not have
                answered = [i.batch_id for i in import_waiting_answers(db, settings.workspace).imported if i.added]
                pending = ShelfDB(db.conn).pending_batches()
            logger.info("pending batches: %s; answered: %s", ", ".join(pending) or "none", ", ".join(answered) or "none")
            batches = {batch_id: generate_shelves(batch_id, apply_review=batch_id in answered, return_state=True)
                       for batch_id in dict.fromkeys([*pending, *answered])}
    except REFUSALS as err:  # e.g. a manual run held the workspace all night: its pending themes wait for tomorrow
        logger.error("%s", err)
        return Failed(message=str(err), data=err)
    state = nightly_state(build, batches)
    if state.name == NEEDS_REVIEW:
        label_run(None, [NEEDS_REVIEW_TAG])
    return state
