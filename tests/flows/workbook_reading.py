"""Reading a batch workbook back as the next step would: the summary by theme id, rows by column key."""

from openpyxl import load_workbook

from tasks.export.excel import DETAILS_COLUMNS, SHELF_COLUMNS, SUMMARY_COLUMNS, TABLE_ROW, linked_sheet


class BatchWorkbook:
    def __init__(self, path):
        self.book = load_workbook(path)
        keys = [key for key, _, _ in SUMMARY_COLUMNS]
        summary = self.book["summary"]
        self.summary = {row[0].value: dict(zip(keys, (c.value for c in row)))
                        for row in summary.iter_rows(min_row=2) if row[0].value}
        theme_col = keys.index("theme")
        self.sheets = {row[0].value: linked_sheet(row[theme_col]) for row in summary.iter_rows(min_row=2)}

    def sheet(self, theme_id: str):
        return self.book[self.sheets[theme_id]]

    def rows(self, theme_id: str) -> list[dict]:
        """A theme's shelf, one dict per book keyed as SHELF_COLUMNS."""
        keys = [key for key, _ in SHELF_COLUMNS]
        return [dict(zip(keys, values)) for values in self.sheet(theme_id).iter_rows(min_row=TABLE_ROW + 1,
                                                                                     values_only=True)]

    def details(self, theme_id: str) -> list[dict]:
        keys = [key for key, _ in DETAILS_COLUMNS]
        rows = (dict(zip(keys, values)) for values in self.book["details"].iter_rows(min_row=2, values_only=True))
        return [row for row in rows if row["theme_id"] == theme_id]
