"""Reference step: a brief such as "延续上次的主题" or "opposite of that shelf" points at
an earlier shelf; its conditions are merged into this theme's, inverted where the brief says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml
from tasks.language.text_analysis import brief_stopwords, detect_language, tokenize
from tasks.model.conditions import FilterCondition, merge_conditions
from tasks.model.query import ThemeQuery
from tasks.model.themes import HistoryShelf, Theme
from tasks.understanding.analysis import clause_spans, segment
from tasks.understanding.cues import regex
from tasks.understanding.lang import load_packs

INVERTED = {"MUST": "MUST_NOT", "SHOULD": "MUST_NOT", "MUST_NOT": "SHOULD"}
DISTINCT_LIKENESS = 0.05  # candidate shelves scoring closer than this are told apart by recency alone
# What "the opposite of that shelf" turns round: its moods and settings, not its kind of book or audience.
_MOODS = ("reading_context", "reading_load", "text_texture", "spatial_atmosphere", "emotional_tone")


@dataclass(frozen=True)
class ReferenceTables:
    temporal: tuple[str, ...]
    referential: tuple[str, ...]
    stances: dict[str, tuple[str, ...]]
    scope_words: dict[str, tuple[str, ...]]
    scope_sizes: dict[str, int]
    adjust: dict[str, tuple[FilterCondition, ...]]
    shelf_words: tuple[str, ...] = ()
    present: tuple[str, ...] = ()  # words of this shelf's time: "这个月", "this month"
    done: tuple[str, ...] = ()  # a past act of shelving: "we did them", "去年做过"


@lru_cache(maxsize=1)
def load_tables() -> ReferenceTables:
    """The reference words of every language pack (cues.yaml `reference_*`; matched whatever the language), and
    config/references.yaml's scopes and adjustments."""
    raw = read_yaml(CONFIG_DIR / "references.yaml")
    packs = load_packs()
    scopes = raw["scopes"]
    return ReferenceTables(
        temporal=packs.words("cues.yaml", "reference_temporal"),
        referential=packs.words("cues.yaml", "reference_referential"),
        stances=packs.groups("cues.yaml", "reference_stances"),
        scope_words={name: tuple(str(w) for w in scope["words"]) for name, scope in scopes.items()},
        scope_sizes={"recent_themes": int(scopes["recent_themes"]["themes"]),
                     "recent_batches": int(scopes["recent_batches"]["batches"])},
        adjust={name: tuple(FilterCondition(c["field"], tuple(c["values"]), c["operator"]) for c in conds)
                for name, conds in raw.get("adjust", {}).items()},
        shelf_words=packs.words("cues.yaml", "reference_shelf"),
        present=packs.words("cues.yaml", "reference_present"),
        done=packs.words("cues.yaml", "reference_done"),
    )


@lru_cache(maxsize=1)
def reference_words() -> frozenset[str]:
    """Every word the reference tables know: none is ever a search keyword ("lighter", "上次", "书架")."""
    tables = load_tables()
    words = (*tables.temporal, *tables.referential, *tables.shelf_words,
             *(w for stance in tables.stances.values() for w in stance))
    return frozenset(w.lower() for w in words)


def _found(text: str, words: Sequence[str]) -> list[str]:
    """The words present in the text; Latin words and phrases on word boundaries only."""
    return [word for word in words if regex(_term(word), re.IGNORECASE).search(text)]


@dataclass(frozen=True)
class Reference:
    scope: str  # "recent_themes" (this batch) or "recent_batches"
    stance: str  # "continue" or "opposite"
    shifts: tuple[str, ...]  # "lighter", "darker"
    cues: tuple[str, ...]  # the words that made it a reference


def _temporal_in_shelf_context(brief: str, tables: ReferenceTables) -> list[str]:
    """Temporal words in a clause that also speaks of a shelf or a stance towards one."""
    context = (*tables.shelf_words, *(w for words in tables.stances.values() for w in words))
    return list(dict.fromkeys(word for clause in segment(brief).clause_texts()
                              if _found(clause, context) for word in _found(clause, tables.temporal)))


def shelf_descriptions(brief: str, tables: ReferenceTables | None = None) -> list[tuple[int, int]]:
    """Spans that describe an earlier shelf rather than ask for something ("前面那个历史书架", "last week's
    rainy-night shelf"): from a temporal word to the shelf word it is said of, in one clause."""
    tables = tables or load_tables()
    shelf = "|".join(_term(w) for w in tables.shelf_words)
    seg = segment(brief)
    return [(match.start(), match.end()) for word in tables.temporal
            for match in regex(rf"{_term(word)}.{{0,16}}?(?:{shelf})", re.IGNORECASE).finditer(brief)
            if not seg.any_end(match.start() + 1, match.end())]


def contrasted_clauses(brief: str, tables: ReferenceTables | None = None) -> list[tuple[int, int]]:
    """Clauses of an earlier time set against a later clause of this shelf's time ("上个月是诗歌，这个月换小说", "Last
    month was poetry; this month, short stories"): the kinds of book they name are what was shelved then, said for
    contrast, not asked for; none where the brief goes on from that shelf ("上次展出的《边城》反响很好，这次找类似的")."""
    tables = tables or load_tables()
    if _found(brief, tables.stances["continue"]):
        return []
    clauses = clause_spans(segment(brief), [])
    now = [a for a, b in clauses if _found(brief[a:b], tables.present)]
    return [(a, b) for a, b in clauses if any(a < later for later in now)
            and _found(brief[a:b], tables.temporal) and not _found(brief[a:b], tables.present)]


def done_clauses(brief: str, tables: ReferenceTables | None = None) -> list[tuple[int, int]]:
    """Clauses that say what the library shelved before ("no American poets this time, we did them last year",
    "诗集，去年已经做过美国诗人专题"): a past act of shelving names what an earlier shelf held and when, so neither its
    kinds nor its time are asked for ("last year" had required books published since 2025, and "we did American
    poets" had made the shelf American only)."""
    tables = tables or load_tables()
    return [(a, b) for a, b in clause_spans(segment(brief), []) if _found(brief[a:b], tables.done)]


@lru_cache(maxsize=4096)  # the same table words, escaped for every brief
def _term(word: str) -> str:
    return rf"(?<![\w-]){re.escape(word)}(?![\w-])" if word.isascii() else re.escape(word)


def detect_reference(brief: str, tables: ReferenceTables | None = None) -> Reference | None:
    """A reference when a referential phrase, or a temporal word said of a shelf, is in the brief; else None."""
    tables = tables or load_tables()
    cues = _temporal_in_shelf_context(brief, tables) + _found(brief, tables.referential)
    if not cues:
        return None
    scope = "recent_themes" if _found(brief, tables.scope_words["recent_themes"]) else "recent_batches"
    stance = "opposite" if _found(brief, tables.stances["opposite"]) else "continue"
    shifts = tuple(s for s in ("lighter", "darker") if _found(brief, tables.stances[s]))
    return Reference(scope, stance, shifts, tuple(dict.fromkeys(cues)))


def resolve(reference: Reference, theme: Theme, history: Sequence[HistoryShelf],
            likeness: Callable[[Sequence[HistoryShelf]], Sequence[float]] | None = None,
            tables: ReferenceTables | None = None) -> HistoryShelf | None:
    """The shelf meant, among the last N themes of this batch or the shelves of the last N batches.

    `likeness` scores each candidate against what the brief says of the shelf it means ("上次那个科幻书架",
    "the bedtime read-aloud shelf"); the best wins, and the latest where nothing tells them apart. With no
    earlier batch, "last time" falls back to this batch's earlier themes.
    """
    tables = tables or load_tables()
    same_batch = sorted((h for h in history if h.batch_id == theme.batch_id), key=lambda h: -h.position)
    earlier = sorted((h for h in history if h.batch_id != theme.batch_id),
                     key=lambda h: (h.batch_started, h.position), reverse=True)
    batches = list(dict.fromkeys(h.batch_id for h in earlier))[: tables.scope_sizes["recent_batches"]]
    earlier = [h for h in earlier if h.batch_id in batches]
    same_batch = same_batch[: tables.scope_sizes["recent_themes"]]
    order = (same_batch, earlier) if reference.scope == "recent_themes" else (earlier, same_batch)
    candidates = next((c for c in order if c), [])
    if not candidates:
        return None
    scores = list(likeness(candidates)) if likeness else []
    if not scores or max(scores) - min(scores) < DISTINCT_LIKENESS:
        return candidates[0]  # latest first
    return candidates[max(range(len(candidates)), key=lambda i: (scores[i], -i))]


def described_shelf(brief: str) -> str:
    """What the brief says of the shelf it refers to ("last week's rainy-night shelf" -> "rainy-night"), the
    whole brief where it has no such phrase, and "" where the phrase names no shelf ("the previous shelf").
    Never the words of referring themselves, which every reference brief shares ("last week", "same as")."""
    spans = shelf_descriptions(brief)
    described = " ".join(brief[a:b] for a, b in spans) if spans else brief
    return re.sub(r"^\W+|\W+$", "", without_reference_words(described))


def shared_words(described: str, brief: str) -> float:
    """The share of the described shelf's content words that an earlier brief uses ("民国作家" in
    "民国作家专架…"): a short phrase names a shelf by its words more surely than by its embedding."""
    language = detect_language(described)
    ignored = brief_stopwords()
    words = {w for w in tokenize(described, language) if w not in ignored}
    if not words:
        return 0.0
    return len(words & set(tokenize(brief, language))) / len(words)


def without_reference_words(text: str) -> str:
    """The text with the reference tables' words blanked out (a possessive "'s" with them)."""
    words = sorted(reference_words(), key=len, reverse=True)
    pattern = "|".join(_term(w) + ("(?:'s)?" if w.isascii() else "") for w in words)
    return re.sub(r"\s+", " ", regex(pattern, re.IGNORECASE).sub(" ", text)).strip()


def shifted(query: ThemeQuery, reference: Reference, tables: ReferenceTables | None = None) -> ThemeQuery:
    """The query with what a lighter or darker stance adds."""
    tables = tables or load_tables()
    adjustments = [c for shift in reference.shifts for c in tables.adjust.get(shift, ())]
    return replace(query, filter_conditions=merge_conditions([*query.filter_conditions, *adjustments]))


def merge_reference(query: ThemeQuery, reference: Reference, shelf: HistoryShelf,
                    tables: ReferenceTables | None = None) -> ThemeQuery:
    """This theme's query with the referenced shelf's conditions.

    To continue a shelf keeps its conditions as they were ("same again, but English only" keeps the
    children's audience) except on the fields this brief states itself ("这次换成人物传记" replaces the
    genre). An opposite turns round the earlier shelf's moods and settings, not what kind of book it was
    nor for whom. A shift (lighter, darker) adds what config/references.yaml says.
    """
    tables = tables or load_tables()
    stated = {c.field for c in query.filter_conditions}
    referenced = [c for c in shelf.conditions if c.field not in stated]
    if reference.stance == "opposite":
        referenced = [replace(c, operator=INVERTED[c.operator]) if c.field in _MOODS else c for c in referenced]
    adjustments = [c for shift in reference.shifts for c in tables.adjust.get(shift, ())]
    conditions = merge_conditions([*query.filter_conditions, *referenced, *adjustments])
    # A value this brief excludes is not brought back by the referenced shelf.
    excluded = {(c.field, v) for c in conditions if c.operator == "MUST_NOT" for v in c.values}
    conditions = tuple(
        replace(c, values=tuple(v for v in c.values if (c.field, v) not in excluded))
        if c.operator == "SHOULD" else c for c in conditions)
    synthetic = query.synthetic_query
    if reference.stance == "continue":
        synthetic = f"{synthetic} {shelf.brief}".strip()
    # A year, page or rating range of the earlier shelf holds too, unless this brief gives its own for the field.
    own_ranges = {n.field for n in query.numeric_conditions}
    numeric = (*query.numeric_conditions, *(n for n in shelf.numeric if n.field not in own_ranges))
    return replace(query, filter_conditions=tuple(c for c in conditions if c.values), synthetic_query=synthetic,
                   numeric_conditions=tuple(dict.fromkeys(numeric)))


@dataclass(frozen=True)
class AppliedReference:
    query: ThemeQuery  # the theme's query with the referenced shelf's conditions merged in
    note: str = ""  # which shelf was used, or why none was
    target: HistoryShelf | None = None


def apply_reference(query: ThemeQuery, theme: Theme, history: Sequence[HistoryShelf],
                    likeness: Callable[[Sequence[HistoryShelf]], Sequence[float]] | None = None) -> AppliedReference:
    """The query with the earlier shelf its brief refers to merged in, and a note saying which (or none)."""
    reference = detect_reference(theme.brief)
    if reference is None:
        return AppliedReference(query)
    target = resolve(reference, theme, history, likeness)
    cues = "/".join(reference.cues)
    if target is None:  # "but lighter" still holds where the shelf it refers to is not found
        return AppliedReference(shifted(query, reference), f"reference ({cues}): no earlier shelf to resolve it to")
    shifts = "".join(f", {s}" for s in reference.shifts)
    return AppliedReference(merge_reference(query, reference, target),
                            f"reference ({cues}) -> {target.batch_id}/{target.theme_id} ({reference.stance}{shifts})",
                            target)
