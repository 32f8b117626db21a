"""Model resources kept ready to load: what the tokenizers and the embedder parse on every start, stored once.

jieba reads its 500k-word dictionary through `marshal.load` on a file (1.1 s), its idf table from text
(0.3 s, and only after importing its part-of-speech tagger: 0.5 s more), and the USE embedder parses its
sentencepiece model in pure Python (1.2 s) and inflates 30 MB of compressed weights (0.5 s). An
interactive command paid all of that on every call. Each is stored here once, in the form that loads fastest, under a name carrying the
package version, so an upgraded package never reads a stale entry.

The folder is $SHELFWISE_MODEL_CACHE, else $XDG_CACHE_HOME/shelfwise, else ~/.cache/shelfwise. Nothing here is
catalog data: an entry that cannot be read is built again, one that cannot be written is only not kept.
"""

from __future__ import annotations

import marshal
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """Where the entries live (see the module docstring)."""
    if os.environ.get("SHELFWISE_MODEL_CACHE"):
        return Path(os.environ["SHELFWISE_MODEL_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "shelfwise"


def cached_value(name: str, build: Callable[[], Any]) -> Any:
    """The value stored under `name`, built and stored first if missing; only marshal-able values (str, numbers,
    bytes, and lists, tuples and dicts of them)."""
    path = cache_dir() / f"{name}.marshal"
    try:
        return marshal.loads(path.read_bytes())  # loads on bytes: marshal.load on a file reads item by item
    except (OSError, EOFError, ValueError, TypeError):
        pass
    value = build()
    _store(path, lambda temp: temp.write_bytes(marshal.dumps(value)))
    return value


def cached_file(name: str, write: Callable[[Path], None]) -> Path | None:
    """The path of the file stored under `name`, written by `write(path)` first if missing; None when the
    cache cannot be written (the caller loads from its source instead)."""
    path = cache_dir() / name
    return path if path.is_file() or _store(path, write) else None


def _store(path: Path, write: Callable[[Path], None]) -> bool:
    """Temp file + rename, so that a reader never sees half an entry; False (and no entry) on failure."""
    temp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
        os.close(fd)
        temp = Path(name)
        write(temp)
        os.replace(temp, path)
        return True
    except OSError:
        if temp is not None:
            temp.unlink(missing_ok=True)
        return False
