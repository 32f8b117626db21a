"""Render one theme sheet of a workbook as printed: LibreOffice headless to PDF, then page 1 to PNG.

    .venv/bin/python scripts/render_theme_sheet.py outputs/demo-2026-11.xlsx rainy-night-quiet out.png

Needs `soffice` (LibreOffice), `pdftoppm` (poppler-utils) and a CJK font (Noto CJK). Not part of `make test`:
README "Reading the workbook" shows its output.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from openpyxl import load_workbook

from tasks.export.excel import linked_sheet


def sheet_of(workbook, theme: str) -> str:
    """The sheet a theme id (through the summary's links) or a sheet name names."""
    if theme in workbook.sheetnames:
        return theme
    summary = workbook["summary"]
    for row in range(2, summary.max_row + 1):
        if summary.cell(row=row, column=1).value == theme:
            return linked_sheet(summary.cell(row=row, column=2))
    raise SystemExit(f"error: {theme!r} is neither a sheet nor a theme id of the summary")


def render(workbook_path: Path, theme: str, png: Path, dpi: int) -> Path:
    """Page 1 of the theme sheet, printed with the workbook's own page setup, as a PNG."""
    for tool in ("soffice", "pdftoppm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"error: {tool} is not installed")
    workbook = load_workbook(workbook_path, rich_text=True)
    keep = sheet_of(workbook, theme)
    for name in workbook.sheetnames:
        if name != keep:
            del workbook[name]
    with tempfile.TemporaryDirectory(prefix="shelfwise-render-") as tmp:
        folder = Path(tmp)
        single = folder / "sheet.xlsx"
        workbook.save(single)
        # its own profile, so that a LibreOffice already running elsewhere does not take the job
        subprocess.run(["soffice", f"-env:UserInstallation=file://{folder / 'profile'}", "--headless",
                        "--convert-to", "pdf", "--outdir", str(folder), str(single)],
                       check=True, capture_output=True, timeout=180)
        subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", "1", "-l", "1", "-singlefile",
                        str(folder / "sheet.pdf"), str(folder / "page")], check=True, timeout=60)
        png.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(folder / "page.png", png)
    return png


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", type=Path)
    parser.add_argument("theme", help="a theme id, or a sheet name")
    parser.add_argument("png", type=Path)
    parser.add_argument("--dpi", type=int, default=110)
    args = parser.parse_args()
    print(render(args.workbook, args.theme, args.png, args.dpi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
