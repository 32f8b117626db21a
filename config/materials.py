"""What a record says it is (config/materials.yaml): its material from the leader's type of record and level."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml

MATERIALS_FILE = CONFIG_DIR / "materials.yaml"
FORMATS = ("marc21", "unimarc")


@dataclass(frozen=True)
class Material:
    name: str
    name_zh: str
    name_en: str
    reading: bool  # a brief about reading admits it
    types: dict[str, frozenset[str]]  # format -> leader/06 letters
    levels: frozenset[str]  # leader/07 letters it is narrowed to (empty: any)


@dataclass(frozen=True)
class Materials:
    materials: tuple[Material, ...]

    @property
    def not_reading(self) -> tuple[str, ...]:
        """The materials a brief about reading leaves out where a record names them."""
        return tuple(m.name for m in self.materials if not m.reading)

    def named(self, text: str) -> Material | None:
        """The material a name stands for: its own name or its English one, in any case ("film", "Films")."""
        wanted = text.casefold()
        return next((m for m in self.materials if wanted in (m.name.casefold(), m.name_en.casefold())), None)

    def of_leader(self, fmt: str, leader: str) -> str | None:
        """The material a record's leader says (`fmt`: marc21 or unimarc); None where its letters name none."""
        kind, level = leader[6:7], leader[7:8]
        found = [m for m in self.materials if kind in m.types.get(fmt, ()) and (not m.levels or level in m.levels)]
        found.sort(key=lambda m: not m.levels)  # one narrowed to the record's level wins
        return found[0].name if found else None


def load_materials(path: Path | None = None) -> Materials:
    path = path or MATERIALS_FILE
    raw = (read_yaml(path) or {}).get("materials") or {}
    return Materials(tuple(
        Material(str(name), str(row.get("name_zh", name)), str(row.get("name_en", name)), bool(row.get("reading")),
                 {fmt: frozenset(map(str, row.get(fmt) or ())) for fmt in FORMATS},
                 frozenset(map(str, row.get("levels") or ())))
        for name, row in raw.items()))


@lru_cache(maxsize=1)
def get_materials() -> Materials:
    return load_materials()
