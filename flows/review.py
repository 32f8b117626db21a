"""The review flow: an answered workbook's verdicts stored as labels (`shelfwise review import`, `import-review`).

A workbook is read and checked before the workspace is waited for, so a bad file is refused at once and
nothing is stored; its labels land in one transaction. Workbooks dropped in the workspace's inbox are
imported by the nightly run, which then reshelves their batches with the answers; one it cannot read is
moved to inbox/rejected/ beside a file saying why, never lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from prefect import flow
from prefect.states import Completed, Failed, State

from config.settings import Settings, load_settings
from flows.runs import form_field, label_run, trigger_tag, workspace_writer
from storage.catalog_db import CatalogDB, open_catalog
from storage.labels import ImportedLabels, LabelsDB
from storage.theme_inbox import inbox_dir
from tasks.errors import InputError
from tasks.export.excel import IDS_SHEET
from tasks.intake.answers import AnsweredWorkbook, read_answered_workbook
from tasks.progress import logger

REJECTED = "rejected"


def store_answers(db: CatalogDB, answered: AnsweredWorkbook) -> ImportedLabels:
    """The workbook's labels in one transaction, once it is known to be this workspace's and batch's."""
    labels = LabelsDB(db.conn)
    name = answered.path.name
    with db.transaction():
        if answered.workspace_id != labels.workspace_id():
            raise InputError(f"{name}: sheet {IDS_SHEET!r} row 2 cell F2: a workbook of another workspace "
                             f"({answered.workspace_id or 'none named'}), not of this one")
        if not labels.batch_known(answered.batch_id):
            raise InputError(f"{name}: sheet {IDS_SHEET!r} row 2 cell D2: batch {answered.batch_id!r} is not "
                             "one of this workspace's")
        return labels.add(answered.file_sha256, name, answered.batch_id, answered.labels, answered.shelves)


def import_review(settings: Settings, path: Path) -> ImportedLabels:
    """Read, check and store one answered workbook."""
    answered = read_answered_workbook(path)  # before waiting for the workspace: a bad file is refused at once
    with workspace_writer(settings, f"the review import of {path.name}"), open_catalog(settings.duckdb_path) as db:
        return store_answers(db, answered)


def describe(imported: ImportedLabels, name: str) -> str:
    if imported.already_imported:
        return f"{name}: batch {imported.batch_id}: already imported, nothing changed"
    return f"{name}: batch {imported.batch_id}: {imported.added} labels added, {imported.known} unchanged"


@dataclass(frozen=True)
class InboxAnswers:
    imported: list[ImportedLabels]
    rejected: dict[str, str]  # file name -> why


def import_waiting_answers(db: CatalogDB, workspace: Path) -> InboxAnswers:
    """Every answered workbook in the inbox, oldest name first (the caller holds the workspace lock)."""
    folder = inbox_dir(workspace)
    imported, rejected = [], {}
    for path in sorted(folder.glob("*.xlsx")) if folder.exists() else []:
        try:
            imported.append(store_answers(db, read_answered_workbook(path)))
            path.unlink()
        except InputError as err:
            (folder / REJECTED).mkdir(exist_ok=True)
            path.replace(folder / REJECTED / path.name)
            (folder / REJECTED / f"{path.name}.reason.txt").write_text(f"{err}\n", encoding="utf-8")
            rejected[path.name] = str(err)
            logger.error("%s", err)
    return InboxAnswers(imported, rejected)


@flow(name="import-review", flow_run_name="review-{workbook}",
      description="Store the verdicts, notes and answers of a workbook a curator answered.")
def import_review_flow(
    workbook: Annotated[str, form_field("Workbook", "Path of the answered workbook (.xlsx) on the server.")],
) -> State:
    settings = load_settings()
    path = Path(workbook)
    label_run(f"review-{path.stem}", [trigger_tag()])
    try:
        imported = import_review(settings, path)
    except InputError as err:
        logger.error("%s", err)
        return Failed(message=str(err), data=err)
    return Completed(message=describe(imported, path.name), data=imported)
