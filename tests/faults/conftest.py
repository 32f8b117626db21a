"""The fault suite's shared parts: a small seeded workspace, the CLI run in-process, and the corpus table.

Every case records what it fed in and what came out; `SHELFWISE_CORPUS_TABLE=FILE pytest tests/faults`
writes that table (docs/operations.md carries it).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from config.settings import load_settings
from flows.cli import main as shelfwise

SEED_CSV = ("book_id,title,authors,pub_year,language,summary,copies_available\n"
            "s-1,边城,沈从文,1934,zh,湘西小城茶峒，渡船老人和孙女翠翠。,3\n"
            "s-2,The Remains of the Day,Kazuo Ishiguro,1989,en,An English butler looks back.,2\n"
            "s-3,Solaris,Stanisław Lem,1961,en,A planet-wide ocean studies its visitors.,1\n")
OUTCOMES: dict[str, tuple[str, str, str]] = {}  # case -> (input, outcome, what was kept)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def line(self) -> str:
        """What the operator reads: the error line if there is one, else the first line of output."""
        text = self.err.strip() or self.out.strip()
        return text.splitlines()[0] if text else ""

    @property
    def summary(self) -> str:
        """The exit code and the lines that say what happened (an import's counts and first rejected row)."""
        lines = self.err.strip().splitlines()[-1:] or [line.strip() for line in self.out.strip().splitlines()[:2]]
        return f"exit {self.code}: " + " / ".join(lines)


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory) -> Path:
    """A workspace whose catalog holds three books, imported once; tests get a copy."""
    root = tmp_path_factory.mktemp("seeded")
    seed = root / "seed.csv"
    seed.write_text(SEED_CSV, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHELFWISE__WORKSPACE", str(root / "var"))
        assert shelfwise(["catalog", "import", str(seed)]) == 0
    return root / "var"


@pytest.fixture
def seeded(seeded_template, tmp_path, monkeypatch):
    """A copy of the seeded workspace, short waits; settings as the CLI reads them."""
    shutil.copytree(seeded_template, tmp_path / "var")
    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(tmp_path / "var"))
    monkeypatch.setenv("SHELFWISE__OUTPUTS_DIR", str(tmp_path / "outputs"))
    monkeypatch.setenv("SHELFWISE__LOCKING__WAIT_SECONDS", "1")
    monkeypatch.setenv("SHELFWISE__LOCKING__BUSY_RETRY_SECONDS", "1")
    return load_settings()


@pytest.fixture
def cli(capsys):
    """Run `shelfwise ARGS` in this process; returns its exit code and what it printed."""
    def run(*argv: str) -> Outcome:
        capsys.readouterr()
        code = shelfwise(list(argv))
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)
    return run


@pytest.fixture
def record(request):
    """Note a case's input and observed outcome for the corpus table (case: the test's parameter id)."""
    def note(what: str, outcome: str, kept: str, case: str | None = None) -> None:
        OUTCOMES[case or request.node.callspec.id] = (what, re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/[^/\s]+/", "",
                                                                   outcome), kept)
    return note


def pytest_sessionfinish(session):
    target = os.environ.get("SHELFWISE_CORPUS_TABLE")
    if not target or not OUTCOMES:
        return
    rows = ["| case | input | outcome | nothing lost |", "|---|---|---|---|"]
    for case, (what, outcome, kept) in sorted(OUTCOMES.items()):
        rows.append(f"| `{case}` | {_cell(what)} | {_cell(outcome)} | {_cell(kept)} |")
    Path(target).write_text("\n".join(rows) + "\n", encoding="utf-8")


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 240 else text[:240] + "…"
