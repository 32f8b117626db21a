"""The literary tag vocabulary (config/vocabulary.yaml) as typed objects."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from config.settings import CONFIG_DIR


@dataclass(frozen=True)
class VocabularyValue:
    dimension: str
    name: str
    aliases: tuple[str, ...]
    description: str
    description_en: str

    @property
    def english_label(self) -> str:
        """The first English alias, the label used when describing an English book."""
        return next((a for a in self.aliases if a.isascii()), self.name)

    @property
    def profile_text(self) -> str:
        """What tag enrichment compares a book's text against."""
        return f"{self.name}：{self.description} {self.description_en}"


@dataclass(frozen=True)
class Dimension:
    name: str
    name_zh: str
    name_en: str
    values: tuple[VocabularyValue, ...]


@dataclass(frozen=True)
class Vocabulary:
    dimensions: tuple[Dimension, ...]

    @property
    def dimension_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dimensions)

    def dimension(self, name: str) -> Dimension:
        for dim in self.dimensions:
            if dim.name == name:
                return dim
        raise KeyError(f"unknown vocabulary dimension {name!r}")

    def value_names(self, dimension: str) -> frozenset[str]:
        return frozenset(v.name for v in self.dimension(dimension).values)

    def value(self, dimension: str, name: str) -> VocabularyValue:
        for value in self.dimension(dimension).values:
            if value.name == name:
                return value
        raise KeyError(f"unknown value {name!r} in dimension {dimension!r}")

    def all_values(self) -> tuple[VocabularyValue, ...]:
        return tuple(v for d in self.dimensions for v in d.values)


def load_vocabulary(path: Path | None = None) -> Vocabulary:
    """Read a vocabulary YAML file."""
    path = path or CONFIG_DIR / "vocabulary.yaml"
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    dimensions = []
    for dim_name, dim in raw["dimensions"].items():
        values = tuple(
            VocabularyValue(
                dimension=dim_name,
                name=str(v["name"]),
                aliases=tuple(str(a) for a in v.get("aliases", [])),
                description=str(v.get("description", "")),
                description_en=str(v.get("description_en", "")),
            )
            for v in dim["values"]
        )
        dimensions.append(Dimension(dim_name, dim.get("name_zh", dim_name), dim.get("name_en", dim_name), values))
    return Vocabulary(tuple(dimensions))


@lru_cache(maxsize=1)
def get_vocabulary() -> Vocabulary:
    """The process-wide vocabulary, read once."""
    return load_vocabulary()
