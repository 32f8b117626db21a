"""YAML files read with libyaml's C loader when PyYAML has it: a tenth of the pure-Python loader's time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """The file's YAML document, safe-loaded (None for an empty file)."""
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_SafeLoader)
