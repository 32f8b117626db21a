"""Themes, batches and the shelf history in DuckDB (same database file as the catalog)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import duckdb
import pyarrow as pa

from storage.models import FilterCondition, HistoryShelf, NumericCondition, StageSwitches, Theme

SCHEMA = """
CREATE TABLE IF NOT EXISTS themes (
    batch_id VARCHAR,
    theme_id VARCHAR,
    position INTEGER,
    theme_name VARCHAR NOT NULL,
    slogan VARCHAR,
    description VARCHAR,
    target_vibe VARCHAR,
    status VARCHAR,           -- pending | done | needs_review; a theme that failed stays pending
    imported_at TIMESTAMP,
    PRIMARY KEY (batch_id, theme_id)
);
ALTER TABLE themes ADD COLUMN IF NOT EXISTS last_error VARCHAR;  -- why its last run failed, if it did
CREATE TABLE IF NOT EXISTS batches (
    batch_id VARCHAR PRIMARY KEY,
    first_run_at TIMESTAMP,   -- fixes which history a rerun may see, so reruns give the same shelves
    last_run_at TIMESTAMP,
    workbook VARCHAR
);
CREATE TABLE IF NOT EXISTS batch_switches (  -- a batch's own choice of optional stages, kept for its reruns
    batch_id VARCHAR PRIMARY KEY,
    sentence_rerank BOOLEAN,  -- NULL: as configured
    query_expansion BOOLEAN
);
-- added after the first release: ADD COLUMN keeps existing workspaces readable
ALTER TABLE themes ADD COLUMN IF NOT EXISTS language_preference VARCHAR;  -- '' or NULL: the batch's choice
ALTER TABLE batch_switches ADD COLUMN IF NOT EXISTS language_preference VARCHAR;  -- NULL: as configured
CREATE TABLE IF NOT EXISTS shelf_history (
    batch_id VARCHAR,
    theme_id VARCHAR,
    book_id VARCHAR,
    rank INTEGER,
    brief VARCHAR,
    conditions VARCHAR,       -- JSON list of {field, values, operator} and numeric {field, op, value}
    shelved_at TIMESTAMP,
    PRIMARY KEY (batch_id, theme_id, book_id)
);
"""

THEME_FIELDS = ("theme_name", "slogan", "description", "target_vibe")


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass(frozen=True)
class PendingBatch:
    """A batch with themes still to shelve, as `shelfwise status` lists it."""

    batch_id: str
    pending: int
    failed: dict[str, str]  # theme_id -> why its last run failed


class ShelfDB:
    """Themes, batches and shelf history, on an open DuckDB connection."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, read_only: bool = False):
        self.conn = conn
        if not read_only:
            self.conn.execute(SCHEMA)

    def import_themes(self, themes: Sequence[Theme]) -> dict[str, int]:
        """Upsert themes by (batch_id, theme_id); a changed brief goes back to pending.

        Runs inside the caller's transaction, so that the themes and their rejected rows land together.
        """
        counts = {"inserted": 0, "updated": 0, "unchanged": 0}
        now = _now()
        for theme in themes:
            existing = self.conn.execute(
                "SELECT theme_name, slogan, description, target_vibe, position, coalesce(language_preference, '') "
                "FROM themes WHERE batch_id = ? AND theme_id = ?", [theme.batch_id, theme.theme_id]).fetchall()
            existing = existing[0] if existing else None
            values = (theme.theme_name, theme.slogan, theme.description, theme.target_vibe, theme.position,
                      theme.language_preference)
            if existing == values:
                counts["unchanged"] += 1
                continue
            counts["inserted" if existing is None else "updated"] += 1
            # Columns by name: workspaces made by earlier releases added them in another order.
            self.conn.execute(
                "INSERT INTO themes (batch_id, theme_id, position, theme_name, slogan, description, target_vibe, "
                "status, imported_at, last_error, language_preference) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, NULL, ?) "
                "ON CONFLICT (batch_id, theme_id) DO UPDATE SET position = excluded.position, "
                "theme_name = excluded.theme_name, slogan = excluded.slogan, "
                "description = excluded.description, target_vibe = excluded.target_vibe, "
                "status = 'pending', imported_at = excluded.imported_at, last_error = NULL, "
                "language_preference = excluded.language_preference",
                [theme.batch_id, theme.theme_id, theme.position, *values[:4], now, theme.language_preference])
        return counts

    def themes(self, batch_id: str) -> list[Theme]:
        rows = self.conn.execute(
            "SELECT batch_id, theme_id, theme_name, slogan, description, target_vibe, position, status, "
            "language_preference FROM themes WHERE batch_id = ? ORDER BY position, theme_id", [batch_id]).fetchall()
        return [Theme(b, t, n, s or "", d or "", v or "", p, st, lp or "") for b, t, n, s, d, v, p, st, lp in rows]

    def pending_batches(self) -> list[str]:
        return [b.batch_id for b in self.pending()]

    def pending(self) -> list[PendingBatch]:
        """Batches with themes never shelved or whose last run failed, oldest import first."""
        # a catalog opened read-only may predate the column (only a writer adds it)
        error = "last_error" if self.conn.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = 'themes' AND column_name = 'last_error'"
        ).fetchall()[0][0] else "NULL"
        rows = self.conn.execute(
            f"SELECT batch_id, count(*), list(theme_id ORDER BY theme_id) FILTER (WHERE {error} IS NOT NULL), "
            f"list({error} ORDER BY theme_id) FILTER (WHERE {error} IS NOT NULL) "
            "FROM themes WHERE status = 'pending' GROUP BY batch_id ORDER BY min(imported_at), batch_id").fetchall()
        return [PendingBatch(b, n, dict(zip(ids or [], errors or []))) for b, n, ids, errors in rows]

    def set_theme_status(self, batch_id: str, theme_id: str, status: str, error: str | None = None) -> None:
        """The outcome of a theme's run; a failed theme stays pending, with its error, for the next run."""
        if status == "failed":
            status = "pending"
        self.conn.execute("UPDATE themes SET status = ?, last_error = ? WHERE batch_id = ? AND theme_id = ?",
                          [status, error, batch_id, theme_id])

    def start_batch(self, batch_id: str) -> datetime:
        """Record a run of the batch; returns when the batch first ran."""
        now = _now()
        self.conn.execute(
            "INSERT INTO batches VALUES (?, ?, ?, NULL) ON CONFLICT (batch_id) DO UPDATE SET last_run_at = ?",
            [batch_id, now, now, now])
        # fetchall, not fetchone: DuckDB keeps a half-read result open and refuses the next register()
        return self.conn.execute("SELECT first_run_at FROM batches WHERE batch_id = ?", [batch_id]).fetchall()[0][0]

    def batch_switches(self, batch_id: str, given: StageSwitches) -> StageSwitches:
        """The batch's switches: those given now, else those of its earlier runs (a rerun stays the same)."""
        row = self.conn.execute("SELECT sentence_rerank, query_expansion, language_preference FROM batch_switches "
                                "WHERE batch_id = ?", [batch_id]).fetchall()
        row = row[0] if row else (None, None, None)
        switches = given.over(StageSwitches(sentence_rerank=row[0], query_expansion=row[1],
                                            language_preference=row[2]))
        self.conn.execute("INSERT OR REPLACE INTO batch_switches VALUES (?, ?, ?, ?)",
                          [batch_id, switches.sentence_rerank, switches.query_expansion,
                           switches.language_preference])
        return switches

    def finish_batch(self, batch_id: str, workbook: str) -> None:
        self.conn.execute("UPDATE batches SET workbook = ? WHERE batch_id = ?", [workbook, batch_id])

    def history_for(self, batch_id: str, theme: Theme, first_run_at: datetime, days: int,
                    reference_days: int) -> list[HistoryShelf]:
        """Earlier shelves a theme sees: of batches that first ran before this one did, within `reference_days`
        (what a brief may refer to; those within `days` are also not repeated), and earlier themes of this
        batch. Recency counts from when each batch first ran, so reruns never change what a rerun sees."""
        rows = self.conn.execute(
            "SELECT h.batch_id, h.theme_id, any_value(h.brief), any_value(h.conditions), "
            "list(h.book_id ORDER BY h.rank), any_value(t.position), any_value(b.first_run_at), "
            "bool_or(h.batch_id = $batch OR b.first_run_at >= $recent) "
            "FROM shelf_history h LEFT JOIN batches b USING (batch_id) "
            "LEFT JOIN themes t ON t.batch_id = h.batch_id AND t.theme_id = h.theme_id "
            "WHERE (h.batch_id <> $batch AND b.first_run_at < $first AND b.first_run_at >= $since) "
            "   OR (h.batch_id = $batch AND t.position < $position) "
            "GROUP BY h.batch_id, h.theme_id ORDER BY h.batch_id, h.theme_id",
            {"batch": batch_id, "first": first_run_at, "position": theme.position,
             "since": first_run_at - timedelta(days=max(days, reference_days)),
             "recent": first_run_at - timedelta(days=days)},
        ).fetchall()
        shelves = []
        for b, t, brief, cond, ids, pos, started, recent in rows:
            stored = json.loads(cond)
            shelves.append(HistoryShelf(
                b, t, brief, tuple(FilterCondition.from_dict(c) for c in stored if "operator" in c), tuple(ids),
                tuple(NumericCondition(c["field"], c["op"], c["value"]) for c in stored if "op" in c),
                pos or 0, started, recent))
        return shelves

    def record_shelf(self, theme: Theme, conditions: Sequence[FilterCondition | NumericCondition],
                     book_ids: Sequence[str]) -> None:
        """The delivered shelf of a theme, exactly once per (batch, theme, book).

        Runs inside the caller's batch transaction, so a batch records all its shelves or none.
        """
        now = _now()
        table = pa.table({
            "batch_id": [theme.batch_id] * len(book_ids),
            "theme_id": [theme.theme_id] * len(book_ids),
            "book_id": list(book_ids),
            "rank": list(range(1, len(book_ids) + 1)),
            "brief": [theme.brief] * len(book_ids),
            "conditions": [json.dumps([c.to_dict() for c in conditions], ensure_ascii=False)] * len(book_ids),
            "shelved_at": pa.array([now] * len(book_ids), pa.timestamp("us")),
        })
        self.conn.register("new_shelf", table)
        self.conn.execute("DELETE FROM shelf_history WHERE batch_id = ? AND theme_id = ?",
                          [theme.batch_id, theme.theme_id])
        self.conn.execute("INSERT INTO shelf_history SELECT * FROM new_shelf")
        self.conn.unregister("new_shelf")

    def history_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM shelf_history").fetchall()[0][0]
