"""Themes, batches and the shelf history in DuckDB (same database file as the catalog)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import duckdb
import pyarrow as pa

from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.themes import HistoryShelf, StageSwitches, Theme

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


HISTORY_ROW = pa.schema([("batch_id", pa.string()), ("theme_id", pa.string()), ("book_id", pa.string()),
                         ("rank", pa.int32()), ("brief", pa.string()), ("conditions", pa.string()),
                         ("shelved_at", pa.timestamp("us"))])  # the columns of shelf_history, in order


def _history_rows(shelf: HistoryShelf, shelved_at: datetime) -> pa.Table:
    """A shelf's rows of shelf_history: one a book, ranked in shelf order."""
    n = len(shelf.book_ids)
    conditions = json.dumps([c.to_dict() for c in (*shelf.conditions, *shelf.numeric)], ensure_ascii=False)
    return pa.table({"batch_id": [shelf.batch_id] * n, "theme_id": [shelf.theme_id] * n,
                     "book_id": list(shelf.book_ids), "rank": list(range(1, n + 1)), "brief": [shelf.brief] * n,
                     "conditions": [conditions] * n, "shelved_at": [shelved_at] * n}, schema=HISTORY_ROW)


@dataclass(frozen=True)
class PendingBatch:
    """A batch with themes still to shelve, as `shelfwise status` lists it."""

    batch_id: str
    pending: int
    failed: dict[str, str]  # theme_id -> why its last run failed


@dataclass(frozen=True)
class ThemeOutcome:
    """How a theme's run ended: its status, and why it failed if it did."""

    theme_id: str
    status: str  # done | needs_review | failed
    error: str | None = None


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

    def waiting_for_answer(self) -> list[tuple[str, str, str]]:
        """(batch_id, theme_id, theme_name) of the themes whose provisional shelf waits for the curator's answer."""
        return self.conn.execute("SELECT batch_id, theme_id, theme_name FROM themes WHERE status = 'needs_review' "
                                 "ORDER BY batch_id, position, theme_id").fetchall()

    def set_theme_statuses(self, batch_id: str, outcomes: Sequence[ThemeOutcome]) -> None:
        """The outcomes of a run's themes, in one update; a failed theme stays pending, with its error."""
        table = pa.table({"theme_id": pa.array([o.theme_id for o in outcomes], pa.string()),
                          "status": pa.array(["pending" if o.status == "failed" else o.status for o in outcomes],
                                             pa.string()),
                          "last_error": pa.array([o.error for o in outcomes], pa.string())})
        self.conn.register("outcomes", table)
        self.conn.execute("UPDATE themes SET status = o.status, last_error = o.last_error FROM outcomes o "
                          "WHERE themes.batch_id = ? AND themes.theme_id = o.theme_id", [batch_id])
        self.conn.unregister("outcomes")

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

    def theme_statuses(self, batch_id: str) -> dict[str, str]:
        """theme_id -> pending | done | needs_review, in the batch's order."""
        return dict(self.conn.execute("SELECT theme_id, status FROM themes WHERE batch_id = ? ORDER BY position, "
                                      "theme_id", [batch_id]).fetchall())

    def finish_batch(self, batch_id: str, workbook: str) -> None:
        self.conn.execute("UPDATE batches SET workbook = ? WHERE batch_id = ?", [workbook, batch_id])

    def earlier_batches_history(self, batch_id: str, first_run_at: datetime, days: int,
                                reference_days: int) -> list[HistoryShelf]:
        """Shelves of the batches that first ran before this one, within max(days, reference_days), by batch, theme.

        `reference_days` is what a brief may refer to; shelves within `days` are also `recent` (their books are
        not repeated). Recency counts from when each batch first ran, so reruns never change what a rerun sees.
        """
        rows = self.conn.execute(
            "SELECT h.batch_id, h.theme_id, any_value(h.brief), any_value(h.conditions), "
            "list(h.book_id ORDER BY h.rank), any_value(t.position), any_value(b.first_run_at), "
            "any_value(b.first_run_at) >= $recent "
            "FROM shelf_history h JOIN batches b USING (batch_id) "
            "LEFT JOIN themes t ON t.batch_id = h.batch_id AND t.theme_id = h.theme_id "
            "WHERE h.batch_id <> $batch AND b.first_run_at < $first AND b.first_run_at >= $since "
            "GROUP BY h.batch_id, h.theme_id ORDER BY h.batch_id, h.theme_id",
            {"batch": batch_id, "first": first_run_at,
             "since": first_run_at - timedelta(days=max(days, reference_days)),
             "recent": first_run_at - timedelta(days=days)},
        ).fetchall()
        shelves = []
        for b, t, brief, cond, ids, pos, started, recent in rows:
            stored = json.loads(cond)
            shelves.append(HistoryShelf(
                b, t, brief, tuple(FilterCondition.from_dict(c) for c in stored if "operator" in c), tuple(ids),
                tuple(NumericCondition(c["field"], c["op"], c["value"], c.get("upper")) for c in stored if "op" in c),
                pos or 0, started, recent))
        return shelves

    def record_shelves(self, shelves: Sequence[HistoryShelf]) -> None:
        """The delivered shelves of a run, exactly once per (batch, theme, book): one delete, one insert.

        Runs inside the caller's batch transaction, so a batch records all its shelves or none.
        """
        if not shelves:
            return
        now = _now()
        recorded = pa.table({"batch_id": [s.batch_id for s in shelves], "theme_id": [s.theme_id for s in shelves]},
                            schema=pa.schema([("batch_id", pa.string()), ("theme_id", pa.string())]))
        new_rows = pa.concat_tables([_history_rows(s, now) for s in shelves])
        self.conn.register("recorded", recorded)
        self.conn.register("new_rows", new_rows)
        # every recorded theme's old rows go, also those of a theme that now has no books
        self.conn.execute("DELETE FROM shelf_history h USING recorded r "
                          "WHERE h.batch_id = r.batch_id AND h.theme_id = r.theme_id")
        self.conn.execute("INSERT INTO shelf_history SELECT * FROM new_rows")
        self.conn.unregister("recorded")
        self.conn.unregister("new_rows")

    def history_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM shelf_history").fetchall()[0][0]


def theme_history(theme: Theme, other_batches: Sequence[HistoryShelf],
                  this_batch: Sequence[HistoryShelf]) -> list[HistoryShelf]:
    """The shelves a theme sees: `other_batches`' and its batch's earlier themes', by batch then theme."""
    # as recorded: a shelf of no books leaves no rows; a theme ahead of it or level with it is not "earlier"
    earlier = [s for s in this_batch if s.position < theme.position and s.book_ids]
    return sorted([*other_batches, *earlier], key=lambda s: (s.batch_id, s.theme_id))
