"""The recall paths, one file each (tasks/recall/paths/base.py says what a path is); importing this folder
registers every one of them."""

from __future__ import annotations

import importlib
import pkgutil

from tasks.recall.paths.base import REGISTRY, RecallPath


def registered() -> list[RecallPath]:
    """Every path of this folder, in their order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return sorted(REGISTRY.values(), key=lambda path: path.order)
