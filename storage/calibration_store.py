"""A workspace's own relevance calibration, learned from its curators' verdicts (tasks/ranking/calibration.py):
one YAML file beside the catalog's DuckDB, in the layout of config/relevance.yaml, written whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

CALIBRATION_FILE = "relevance.yaml"
HEADER = ("# This catalog's relevance calibration, refitted from its curators' verdicts by `shelfwise tune --labels`\n"
          "# (the judged weights of config/relevance.yaml as prior). Delete it to go back to the judged ones.\n")


def calibration_file(workspace: Path) -> Path:
    return workspace / CALIBRATION_FILE


def write_calibration_file(workspace: Path, data: dict) -> Path:
    """Write the calibration (temp file and rename: a run reading it sees the old one or the new one)."""
    path = calibration_file(workspace)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(HEADER + yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    os.replace(tmp, path)
    return path
