"""Language packs: what the brief reader knows of a language, as data (one folder per language, the same files in
each). The engine (tasks/understanding/reading.py, numbers.py) knows no language: it reads every pack present, so
adding a cue word or a whole language is a YAML edit.

Every file of a pack is checked against one schema: an unknown file, key or language code stops the load with one
line naming the file and key (PackError is an InputError: the CLI prints it and exits 2).

- cues.yaml: cue words by kind (NegEx-style: negation before and after what it negates, pseudo-negations that only
  contain a cue, terminations, plus requirement, hedge, preference, the reader, questions, degree); what each cue
  kind does to its scope is kinds.yaml beside the packs, the same for every language (a new kind is a row there);
  also the words that open a part added to a shelf, say how listed items stand together, and end a comparison;
- clauses.yaml: where a clause ends, the words that join two parts of a phrase, the particles a phrase may end in,
  the characters a script fold leaves alone;
- numbers.yaml: the number grammar's words (digits, units, comparators on either side, periods, reading times, the
  parts of a date inside a year);
- materials.yaml: the words a brief asks for a material with (config/materials.yaml names the materials);
- readings.yaml: everyday readings (audiences, feelings, read-alike forms, occasions, languages and literatures, a
  shelf for every age, quality words that head a phrase as a kind).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from config.yaml_files import read_yaml
from tasks.errors import InputError

PACKS_DIR = Path(__file__).parent
_ISO_639_1 = re.compile(r"[a-z]{2}")
WORDS, GROUPS, BY_LANGUAGE, TABLE = "words", "groups", "by_language", "table"
# file -> key -> shape. words: a list of strings; groups: name -> words; by_language: a book language's ISO 639-1 code
# -> words (any language books are written in, not only a pack's: "in French", "法文原版"); table: name -> a mapping of
# plain values (numbers' quantities, readings' occasions).
SCHEMA: dict[str, dict[str, str]] = {
    "cues.yaml": {  # and one key of words for each cue kind of kinds.yaml
        "pseudo_negation": WORDS, "preference": WORDS, "reader_before": WORDS, "reader_after": WORDS,
        "reader_end": WORDS, "question": WORDS, "request": WORDS,
        "degree": WORDS, "degree_after": WORDS, "degree_end": WORDS, "additive": WORDS, "for_whom": WORDS, "person": WORDS,
        "wanting": WORDS, "filler": WORDS, "not_a_topic": WORDS, "pronouns": WORDS, "moment": WORDS,
        "adding": WORDS, "arranging": WORDS, "comparison_end": WORDS, "totality": WORDS,
        "reference_temporal": WORDS, "reference_referential": WORDS, "reference_shelf": WORDS,
        "reference_present": WORDS, "reference_done": WORDS,
        "reference_stances": GROUPS, "composed": TABLE,
    },
    "clauses.yaml": {"connectives": WORDS, "ends": WORDS, "abbreviations": WORDS, "sentence_ends": WORDS,
                     "ends_before_space": WORDS, "ends_between_spaces": WORDS,
                     "question_marks": WORDS, "joiners": WORDS, "particles": WORDS, "containers": WORDS,
                     "offering": WORDS, "kept_characters": WORDS},
    "numbers.yaml": {"digits": TABLE, "multipliers": TABLE, "units": GROUPS, "field_words": GROUPS, "before": TABLE,
                     "after": TABLE, "ranges": WORDS, "reading_times": TABLE, "reading_verbs": WORDS,
                     "not_content": WORDS, "relative": WORDS, "time_units": TABLE, "single_time_units": TABLE,
                     "eras": TABLE, "setting": WORDS, "scales": TABLE, "counters": WORDS, "decade_words": TABLE, "ordinals": TABLE,
                     "decade_units": WORDS, "century_units": WORDS, "range_open": WORDS, "age_before": WORDS,
                     "age_after": WORDS, "halves": WORDS, "named_years": TABLE,
                     "publishing_words": WORDS, "range_close": WORDS, "decimal_points": WORDS, "share": WORDS,
                     "date_parts": WORDS, "months": WORDS, "multiplier_ones": WORDS,
                     "determiners": WORDS, "year_nouns": WORDS, "grade_before": WORDS,
                     "grade_after": WORDS, "school": TABLE, "part_counters": WORDS,
                     "alternatives": WORDS, "subject_before": WORDS, "unbounded": WORDS,
                     "book_age_before": WORDS, "book_age_after": WORDS, "age_for": WORDS,
                     "grade_names": TABLE, "ordinal_suffixes": WORDS, "negators": WORDS, "age_band_under": WORDS,
                     "age_comparators": WORDS, "within_before": WORDS, "within_after": WORDS, "age_modifiers": WORDS,
                     "few": WORDS, "few_after": WORDS, "age_in_months": WORDS, "novelty_before": WORDS, "approximate": WORDS},
    "readings.yaml": {"adults": WORDS, "audiences": GROUPS, "feelings": TABLE, "kinds": TABLE, "occasions": TABLE,
                      "read_alike": WORDS, "read_alike_verbs": GROUPS, "languages": BY_LANGUAGE, "language_names": BY_LANGUAGE,
                      "language_nouns": WORDS, "literature_words": WORDS,
                      "ones": WORDS, "authorship_before": WORDS, "authorship_after": WORDS, "topics": WORDS,
                      "kind_endings": GROUPS, "compared": WORDS, "book_words": WORDS, "spotlight": WORDS,
                      "possessive": WORDS, "about": WORDS, "reader_nouns": WORDS, "elsewhere": WORDS, "here": WORDS,
                      "alike_back": WORDS, "alike_composed": TABLE, "alike_switch": WORDS, "title_small": WORDS,
                      "title_articles": WORDS, "kind_likeness": WORDS, "kind_people": WORDS, "people_about": WORDS, "spotlight_before": WORDS, "partitive": WORDS, "examples_end": WORDS, "qualifying": WORDS,
                      "examples_of": WORDS, "name_ends": WORDS, "guardians": WORDS, "alike_before": WORDS,
                      "alike_article": WORDS, "adult_kinds": WORDS, "person_names": TABLE, "kind_nouns": WORDS, "author_words": WORDS,
                      "origin_before": WORDS, "series_order": WORDS, "series_nouns": WORDS,
                      "everyone": WORDS, "kind_heads": GROUPS, "alike_beside": WORDS, "alike_beside_composed": TABLE,
                      "alike_remark": WORDS,
                      "translated_from": WORDS, "name_joiners": WORDS, "name_nations": WORDS,
                      "name_particles": WORDS},
    "materials.yaml": {"materials": TABLE},  # a material's name (config/materials.yaml) -> the words for it
}
_CODE = re.compile(r"[a-z]{2,3}")
KINDS_FILE = "kinds.yaml"
EXCLUDE, REQUIRE, ALLOW, EXCEPT, TERMINATE, DESCRIBE = "exclude", "require", "allow", "except", "terminate", "describe"
FOLLOWING, PRECEDING, NEXT_VALUE, CLAUSE, AROUND, CLAUSE_BEFORE, ENCLOSED = (
    "following", "preceding", "next_value", "clause", "around", "clause_before", "enclosed")
_KIND_VALUES = {"effect": (EXCLUDE, REQUIRE, ALLOW, EXCEPT, TERMINATE, DESCRIBE),
                "direction": (FOLLOWING, PRECEDING, NEXT_VALUE, CLAUSE, AROUND, CLAUSE_BEFORE, ENCLOSED)}
_KIND_FLAGS = ("several", "only_where_free", "degree", "about_the_reader", "at_clause_end", "kinds_only")


@dataclass(frozen=True)
class CueKind:
    """What one cue kind does (kinds.yaml): its effect on the scope, where the scope runs, what does not end it."""

    name: str
    effect: str
    direction: str = FOLLOWING
    continues_over: frozenset[str] = frozenset()
    several: bool = False
    only_where_free: bool = False
    degree: bool = False
    about_the_reader: bool = False
    at_clause_end: bool = False
    kinds_only: bool = False  # it holds a kind of book (a form, a genre), never a name: "like fiction", not "like Dune"


class PackError(InputError):
    """A language pack that cannot be read as the schema says; the message names the file and key."""


@dataclass(frozen=True)
class Pack:
    """One language's files, checked: file name -> key -> its value."""

    code: str
    files: dict[str, dict[str, Any]]

    def get(self, file: str, key: str) -> Any:
        return self.files.get(file, {}).get(key)

    def words(self, file: str, key: str) -> tuple[str, ...]:
        return tuple(str(w) for w in self.get(file, key) or ())


@dataclass(frozen=True)
class Packs:
    """Every language pack of one folder; `languages` is what the reader knows, in folder order."""

    packs: tuple[Pack, ...]
    kinds: tuple[CueKind, ...] = ()

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(p.code for p in self.packs)

    def words(self, file: str, key: str) -> tuple[str, ...]:
        """A key's words over every pack, duplicates dropped."""
        return tuple(dict.fromkeys(w for p in self.packs for w in p.words(file, key)))

    def groups(self, file: str, key: str) -> dict[str, tuple[str, ...]]:
        """A groups or by_language key over every pack: name -> the words of all packs."""
        out: dict[str, list[str]] = {}
        for pack in self.packs:
            for name, words in (pack.get(file, key) or {}).items():
                out.setdefault(str(name), []).extend(str(w) for w in words or ())
        return {name: tuple(dict.fromkeys(words)) for name, words in out.items()}

    def table(self, file: str, key: str) -> dict[str, Any]:
        """A table key over every pack; a later pack's row of the same name adds to an earlier one's lists (a
        plain value replaces)."""
        out: dict[str, Any] = {}
        for pack in self.packs:
            for name, row in (pack.get(file, key) or {}).items():
                earlier = out.get(str(name))
                if isinstance(row, dict) and isinstance(earlier, dict):
                    merged = dict(earlier)
                    for field, value in row.items():
                        merged[field] = [*merged.get(field, []), *value] if isinstance(value, list) else value
                    out[str(name)] = merged
                elif isinstance(row, list) and isinstance(earlier, list):
                    out[str(name)] = [*earlier, *row]
                else:
                    out[str(name)] = row
        return out

    def require(self, code: str) -> Pack:
        """The pack of a language a setting or a caller names; a language with no pack is refused."""
        found = next((p for p in self.packs if p.code == code), None)
        if found is None:
            raise PackError(f"language {code!r}: no language pack (have {', '.join(self.languages)})")
        return found


def _plain(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or (isinstance(value, list) and all(map(_plain, value)))


def _check(path: Path, key: str, shape: str, value: Any) -> None:
    where = f"{path}: {key}"
    if shape == WORDS:
        if not isinstance(value, list) or not all(isinstance(w, (str, int)) for w in value):
            raise PackError(f"{where}: must be a list of words")
        return
    if not isinstance(value, dict):
        raise PackError(f"{where}: must be a mapping")
    for name, row in value.items():
        if shape in (GROUPS, BY_LANGUAGE) and not (isinstance(row, list) and all(isinstance(w, str) for w in row)):
            raise PackError(f"{where}.{name}: must be a list of words")
        if shape == BY_LANGUAGE and not _ISO_639_1.fullmatch(str(name)):
            raise PackError(f"{where}.{name}: not a language code (ISO 639-1, two lower-case letters: fr, ja)")
        if shape == TABLE and not (_plain(row) or isinstance(row, dict) and all(map(_plain, row.values()))):
            raise PackError(f"{where}.{name}: must be a value, a list or a mapping of them")


def pack_keys(file: str, kinds: tuple[CueKind, ...]) -> set[str]:
    """The keys a pack's file may hold: cues.yaml also one for each cue kind."""
    return set(SCHEMA[file]) | ({k.name for k in kinds} if file == "cues.yaml" else set())


def _kinds(path: Path) -> tuple[CueKind, ...]:
    """The cue kinds of kinds.yaml, checked: each a known effect and direction, flags true or false, and kinds it
    continues over that are kinds of the file."""
    raw = read_yaml(path) if path.exists() else None
    if not isinstance(raw, dict) or not raw:
        raise PackError(f"{path}: must be a mapping of cue kinds")
    kinds = []
    for name, row in raw.items():
        where = f"{path}: {name}"
        if not isinstance(row, dict):
            raise PackError(f"{where}: must be a mapping")
        for key, value in row.items():
            if key in _KIND_VALUES and value not in _KIND_VALUES[key]:
                raise PackError(f"{where}.{key}: unknown value {value!r} (one of {', '.join(_KIND_VALUES[key])})")
            if key in _KIND_FLAGS and not isinstance(value, bool):
                raise PackError(f"{where}.{key}: must be true or false")
            if key == "continues_over" and not (isinstance(value, list) and set(map(str, value)) <= set(raw)):
                raise PackError(f"{where}.{key}: must be a list of the file's kinds")
            if key not in (*_KIND_VALUES, *_KIND_FLAGS, "continues_over"):
                raise PackError(f"{where}.{key}: unknown key")
        if "effect" not in row:
            raise PackError(f"{where}.effect: missing")
        kinds.append(CueKind(str(name), row["effect"], row.get("direction", FOLLOWING),
                             frozenset(map(str, row.get("continues_over", ()))),
                             **{flag: row.get(flag, False) for flag in _KIND_FLAGS}))
    return tuple(kinds)


def _read(folder: Path, kinds: tuple[CueKind, ...]) -> Pack:
    files: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        if path.name not in SCHEMA:
            raise PackError(f"{path}: unknown file (a pack holds {', '.join(SCHEMA)})")
        raw = read_yaml(path) or {}
        if not isinstance(raw, dict):
            raise PackError(f"{path}: must be a mapping of keys")
        for key, value in raw.items():
            if key not in pack_keys(path.name, kinds):
                raise PackError(f"{path}: {key}: unknown key")
            _check(path, key, SCHEMA[path.name].get(key, WORDS), value)
        files[path.name] = raw
    return Pack(folder.name, files)


@lru_cache(maxsize=8)
def load_packs(root: Path = PACKS_DIR) -> Packs:
    """Every language pack under `root`, checked; the language list is the folders present."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    for folder in folders:
        if not _CODE.fullmatch(folder.name):
            raise PackError(f"{folder}: unknown language (a pack's folder is its ISO 639 code: zh, en, fr)")
    if not folders:
        raise PackError(f"{root}: no language pack")
    kinds = _kinds(root / KINDS_FILE)
    return Packs(tuple(_read(f, kinds) for f in folders), kinds)


def languages() -> tuple[str, ...]:
    """The languages the reader knows: the packs present."""
    return load_packs().languages
