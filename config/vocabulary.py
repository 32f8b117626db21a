"""The literary tag vocabulary (config/vocabulary.yaml) as typed objects."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from config.materials import get_materials
from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml


@dataclass(frozen=True)
class VocabularyValue:
    dimension: str
    name: str
    aliases: tuple[str, ...]
    description: str
    description_en: str
    narrower: tuple[str, ...] = ()  # values of the same dimension that, when derived, make this one redundant

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
    nouns: bool = False  # its English aliases are nouns: a plural in a brief names the value too


@dataclass(frozen=True)
class Kind:
    """A form (fiction, poetry ...) or an audience (children): the genre values that make it, the words for it."""

    facet: str  # "form" | "audience" | "material"
    name: str
    name_zh: str
    name_en: str
    genres: tuple[str, ...]
    words: tuple[str, ...]
    values: tuple[tuple[str, str], ...] = ()  # (dimension, value): other values a brief names this kind with


# a book's material is what its record says it is (config/materials.yaml): a brief names one as it names a form
FACETS_BEYOND_DIMENSIONS = ("form", "audience", "material")
# Facets only a record says, never tagged by a source nor guessed from similar books: the literature a book was
# written in (config/class_ranges.yaml keys, read by tasks/catalog/crosswalk.py)
RECORD_FACTS = ("literature",)


@dataclass(frozen=True)
class Vocabulary:
    dimensions: tuple[Dimension, ...]
    kinds: tuple[Kind, ...] = ()  # forms and audiences

    @property
    def facet_names(self) -> tuple[str, ...]:
        """Every dimension a book's facets and a filter condition can name: the dimensions, form, audience, and the
        record's facts."""
        return self.dimension_names + FACETS_BEYOND_DIMENSIONS + RECORD_FACTS

    def kinds_of(self, facet: str) -> tuple[Kind, ...]:
        return tuple(k for k in self.kinds if k.facet == facet)

    def kind(self, facet: str, name: str) -> Kind | None:
        """The form or audience of that name, if the vocabulary has it."""
        return next((k for k in self.kinds if k.facet == facet and k.name == name), None)

    def facet_values(self, facet: str) -> frozenset[str]:
        """The values a facet can take: a dimension's value names, or the forms' / audiences' names."""
        if facet in FACETS_BEYOND_DIMENSIONS:
            return frozenset(k.name for k in self.kinds_of(facet))
        return self.value_names(facet)

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
        found = self._by_key.get((dimension, name))
        if found is None:
            self.dimension(dimension)  # an unknown dimension says so
            raise KeyError(f"unknown value {name!r} in dimension {dimension!r}")
        return found

    @cached_property
    def _by_key(self) -> dict[tuple[str, str], VocabularyValue]:
        """(dimension, name) -> value: an index build looks up every tag of every book."""
        return {(v.dimension, v.name): v for v in self.all_values()}

    def all_values(self) -> tuple[VocabularyValue, ...]:
        return tuple(v for d in self.dimensions for v in d.values)


def load_vocabulary(path: Path | None = None) -> Vocabulary:
    """Read a vocabulary YAML file."""
    path = path or CONFIG_DIR / "vocabulary.yaml"
    raw = read_yaml(path)
    dimensions = []
    for dim_name, dim in raw["dimensions"].items():
        values = tuple(
            VocabularyValue(
                dimension=dim_name,
                name=str(v["name"]),
                aliases=tuple(str(a) for a in v.get("aliases", [])),
                description=str(v.get("description", "")),
                description_en=str(v.get("description_en", "")),
                narrower=tuple(str(n) for n in v.get("narrower", [])),
            )
            for v in dim["values"]
        )
        dimensions.append(Dimension(dim_name, dim.get("name_zh", dim_name), dim.get("name_en", dim_name), values,
                                    bool(dim.get("nouns", False))))
    kinds = tuple(
        Kind(facet, str(name), str(kind.get("name_zh", name)), str(kind.get("name_en", name)),
             tuple(str(g) for g in kind.get("genres") or ()), tuple(str(w) for w in kind.get("words") or ()),
             tuple((str(d), str(v)) for d, vs in (kind.get("values") or {}).items() for v in vs))
        for facet, section in (("form", "forms"), ("audience", "audiences"))
        for name, kind in (raw.get(section) or {}).items()
    ) + tuple(Kind("material", m.name, m.name_zh, m.name_en, (), ()) for m in get_materials().materials)
    genres = {v.name for d in dimensions if d.name == "genre" for v in d.values}
    unknown = sorted({g for k in kinds for g in k.genres} - genres)
    if unknown:
        raise ValueError(f"{path}: forms or audiences name genre values that are not in the vocabulary: {unknown}")
    known = {(d.name, v.name) for d in dimensions for v in d.values}
    unknown_values = sorted({f"{d}={v}" for k in kinds for d, v in k.values} - {f"{d}={v}" for d, v in known})
    if unknown_values:
        raise ValueError(f"{path}: forms or audiences name values that are not in the vocabulary: {unknown_values}")
    return Vocabulary(tuple(dimensions), kinds)


@lru_cache(maxsize=1)
def get_vocabulary() -> Vocabulary:
    """The process-wide vocabulary, read once."""
    return load_vocabulary()


@lru_cache(maxsize=2)
def load_aliases(section: str = "authors") -> dict[str, tuple[str, ...]]:
    """Catalog name -> other names, from config/aliases.yaml: authors (周树人 is 鲁迅) or titles."""
    raw = read_yaml(CONFIG_DIR / "aliases.yaml") or {}
    return {str(k): tuple(str(a) for a in v or ()) for k, v in (raw.get(section) or {}).items()}
