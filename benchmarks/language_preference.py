"""How the language preference shapes the demo batch: books in the brief's language, full shelves, changes.

    .venv/bin/python benchmarks/language_preference.py [--workspace DIR]

Shelves the demo batch (config/demo/themes.yaml) once per preference (first / only / any), each theme seeing
the earlier themes of its batch as history, as a batch run does. Without --workspace the demo catalog is
imported and indexed into a temporary one first (about 3 minutes here). README "Reading the workbook" quotes
the table it prints.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

PREFERENCES = ("any", "first", "only")


def demo_workspace(folder: Path) -> None:
    """The demo catalog imported and indexed into `folder`, as `make demo` does."""
    from flows.cli import main as shelfwise

    os.environ["SHELFWISE__WORKSPACE"] = str(folder)
    for command in (["catalog", "import", str(PROJECT / "config/demo/catalog.jsonl")], ["index", "build"]):
        if shelfwise(command) != 0:
            raise SystemExit(f"error: shelfwise {' '.join(command)} failed")


def shelve_batch(ctx, themes, preference: str) -> dict:
    """theme id -> its shelf, the batch shelved in order with in-batch history."""
    from tasks.model.themes import StageSwitches
    from tasks.shelving import shelve

    ctx = ctx.choosing(ctx.ranking.settings, StageSwitches(language_preference=preference))
    shelves, history = {}, []
    for theme in themes:
        shelf = shelve(theme, list(history), ctx)
        shelves[theme.theme_id] = shelf
        history.append(shelf.as_history(None))
    return shelves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", help="a workspace with the demo catalog indexed (default: build one)")
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    if args.workspace:
        os.environ["SHELFWISE__WORKSPACE"] = str(Path(args.workspace).resolve())
    else:
        demo_workspace(Path(tempfile.mkdtemp(prefix="shelfwise-language-")) / "var")

    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from tasks.intake.themes import read_themes
    from tasks.language.text_analysis import detect_language
    from tasks.shelving import build_context

    settings = load_settings()
    themes = read_themes(PROJECT / "config/demo/themes.yaml").themes
    ctx = build_context(settings, get_vocabulary())
    runs = {p: shelve_batch(ctx, themes, p) for p in PREFERENCES}
    size = settings.shelf.size
    print(f"demo batch: {len(themes)} themes, shelf size {size}")
    print(f"{'preference':<11} {'full':>5} {'review':>7} {'zh briefs: zh books':>20} {'en briefs: en books':>20} "
          f"{'kept from any':>14}")  # share of the any-shelf's books still on it
    for preference, shelves in runs.items():
        same = {"zh": [], "en": []}
        for theme in themes:
            shelf = shelves[theme.theme_id]
            language = detect_language(theme.brief)
            same[language].append(sum(e.book.language == language for e in shelf.entries) / max(len(shelf.entries), 1))
        anyway = {t.theme_id: {e.book.book_id for e in runs["any"][t.theme_id].entries} for t in themes}
        kept = [len({e.book.book_id for e in shelves[t.theme_id].entries} & anyway[t.theme_id])
                / max(len(anyway[t.theme_id]), 1) for t in themes]
        full = sum(len(s.entries) == size for s in shelves.values())
        review = sum(s.status == "needs_review" for s in shelves.values())
        print(f"{preference:<11} {full:>5} {review:>7} {statistics.mean(same['zh']):>20.2f} "
              f"{statistics.mean(same['en']):>20.2f} {statistics.mean(kept):>14.2f}")
    print("\nper theme: books in the brief's language / books on the shelf (status when not done)")
    print(f"{'theme':<22} {'brief':>5} " + " ".join(f"{p:>10}" for p in PREFERENCES))
    for theme in themes:
        language = detect_language(theme.brief)
        cells = []
        for preference in PREFERENCES:
            shelf = runs[preference][theme.theme_id]
            mark = "" if shelf.status == "done" else "*"
            cells.append(f"{sum(e.book.language == language for e in shelf.entries)}/{len(shelf.entries)}{mark}")
        print(f"{theme.theme_id:<22} {language:>5} " + " ".join(f"{c:>10}" for c in cells))
    print("\n* needs review")
    return 0


if __name__ == "__main__":
    sys.exit(main())
