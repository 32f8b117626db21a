"""docs/review.md runs as written: its Python and its `shelfwise` commands, in order, in a copy of the workspace
the demo batch was shelved in (from the project folder's point of view: `outputs/…` is that copy's), each ```text
block right after a command's block holding lines that command printed, and the rows of the page's table of changes
on the reshelved sheet. The section on a few hundred verdicts is tests/flows/test_tune_labels.py's."""

import re
import shlex

import pytest
from openpyxl import load_workbook

from flows.cli import main as shelfwise
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow

DOC = PROJECT_ROOT / "docs" / "review.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)
ELSEWHERE = "### On a few hundred verdicts"
CHANGES = re.compile(r"^\| (\d+) (.+?) \| (.+?) \|$", re.M)  # | 2 Station Eleven | was 4 |


def steps() -> list[tuple[str, str, str]]:
    """The page's code blocks before ELSEWHERE: (language, body, the text block right after it, or '')."""
    text = DOC.read_text(encoding="utf-8").split(ELSEWHERE)[0]
    blocks = list(BLOCK.finditer(text))
    out = []
    for i, block in enumerate(blocks):
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        shown = after.group(2) if after and after.group(1) == "text" and not text[block.end():after.start()].strip() \
            else ""
        if block.group(1) != "text":
            out.append((block.group(1), block.group(2), shown))
    return out


def test_the_review_loop_page_runs_as_written(demo_run_copy, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # demo_run_copy's var/ and outputs/
    monkeypatch.setenv("SHELFWISE_LOCAL_CONFIG", str(tmp_path / "local.yaml"))
    ran = 0
    for language, body, shown in steps():
        capsys.readouterr()
        if language == "python":
            exec(compile(body, str(DOC), "exec"), {})
        else:
            for line in body.splitlines():
                command = shlex.split(line, comments=True)
                assert command[0] == ".venv/bin/shelfwise", line
                assert shelfwise(command[1:]) == 0, line
        printed = capsys.readouterr().out
        for expected in (ln for ln in shown.splitlines() if ln.strip() and ln.strip() != "..."):
            assert expected in printed, expected
        ran += 1
    assert ran >= 4
    book = load_workbook(tmp_path / "outputs" / "demo-2026-11.xlsx")
    sheet = next(s for s in book if s.title.endswith("本月新书：科幻"))
    table = {(int(rank), title): change for rank, title, change in CHANGES.findall(DOC.read_text(encoding="utf-8"))}
    rows = {(row[0], row[1]): row[-1] for row in sheet.iter_rows(min_row=8, values_only=True) if row[0]}
    assert len(table) >= 4 and all(rows.get(key) == change for key, change in table.items())
