"""The offline, deterministic translator: vocabulary matching, cue words and jieba keywords."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import jieba.analyse
import yaml

from config.settings import CONFIG_DIR
from config.vocabulary import Vocabulary, VocabularyValue
from storage.models import FilterCondition, Theme
from tasks.catalog.text_analysis import brief_stopwords, detect_language, stopwords, tokenize
from tasks.models import ThemeQuery
from tasks.understanding.numbers import parse_numeric_conditions
from tasks.understanding.translate.base import Translator, merge_conditions

MAX_KEYWORDS = 12


@dataclass(frozen=True)
class Cues:
    negation: tuple[str, ...]
    must: tuple[str, ...]
    contrast: tuple[str, ...]


@lru_cache(maxsize=1)
def load_cues() -> Cues:
    """Cue words of both languages from config/translation.yaml."""
    with open(CONFIG_DIR / "translation.yaml", encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    return Cues(*(tuple(str(w) for lang in ("zh", "en") for w in raw[kind][lang])
                  for kind in ("negation", "must", "contrast")))


def _term_pattern(term: str) -> str:
    """Latin terms match whole words only ("no" must not match "novel"); Chinese terms anywhere."""
    escaped = re.escape(term)
    return rf"(?<![\w-]){escaped}(?![\w-])" if term.isascii() else escaped


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    value: VocabularyValue


def match_values(text: str, vocabulary: Vocabulary) -> list[Match]:
    """Vocabulary values named in the text by name or alias, longest match winning overlaps."""
    found = []
    for value in vocabulary.all_values():
        for term in (value.name, *value.aliases):
            for m in re.finditer(_term_pattern(term), text, flags=re.IGNORECASE):
                found.append(Match(m.start(), m.end(), value))
    found.sort(key=lambda m: (-(m.end - m.start), m.start))
    kept: list[Match] = []
    for match in found:
        if all(match.end <= k.start or match.start >= k.end for k in kept):
            kept.append(match)
    return sorted(kept, key=lambda m: m.start)


def split_clauses(text: str, cues: Cues) -> list[tuple[int, int]]:
    """(start, end) spans of clauses: sentence punctuation and contrast words end a clause."""
    contrast = "|".join(_term_pattern(w) for w in cues.contrast)
    boundaries = [0]
    for m in re.finditer(rf"[。；;!！?？\n]|\.(?:\s|$)|{contrast}", text, flags=re.IGNORECASE):
        boundaries.append(m.start())
    boundaries.append(len(text))
    return [(a, b) for a, b in zip(boundaries, boundaries[1:]) if b > a]


def _cue_scopes(text: str, start: int, end: int, words: tuple[str, ...], stops: str) -> list[tuple[int, int]]:
    """Spans from each cue in the clause to the next of `stops` (or the clause end)."""
    scopes = []
    for w in words:
        for m in re.finditer(_term_pattern(w), text[start:end], flags=re.IGNORECASE):
            cue = start + m.start()
            stop = re.search(f"[{stops}]", text[cue:end])
            scopes.append((cue, cue + stop.start() if stop else end))
    return scopes


def _cut_at(scopes: list[tuple[int, int]], cue_starts: list[int]) -> list[tuple[int, int]]:
    """Each scope shortened to end before the first of the other cues inside it."""
    return [(a, min([c for c in cue_starts if a < c < b], default=b)) for a, b in scopes]


def _inside(position: int, scopes: list[tuple[int, int]]) -> bool:
    return any(a < position < b for a, b in scopes)


@dataclass(frozen=True)
class BriefAnalysis:
    conditions: tuple[FilterCondition, ...]
    positive_text: str  # the brief without its negated parts: what keywords come from


def analyse_brief(text: str, vocabulary: Vocabulary, cues: Cues) -> BriefAnalysis:
    """Conditions from matched values, with their operator decided by the cues before them."""
    matches = match_values(text, vocabulary)
    conditions = []
    negated_spans = []
    for start, end in split_clauses(text, cues):
        # A negation runs on through an English list ("avoid heart-warming, feel-good stories");
        # a Chinese comma ends it, and any comma ends a "must".
        negated = _cue_scopes(text, start, end, cues.negation, "，")
        required = _cue_scopes(text, start, end, cues.must, "，,")
        # a scope ends where the other kind of cue begins: "no war books, only calm ones"
        negated = _cut_at(negated, [a for a, _ in required])
        required = _cut_at(required, [a for a, _ in negated])
        negated_spans.extend(negated)
        for match in (m for m in matches if start <= m.start < end):
            operator = "SHOULD"
            if _inside(match.start, negated):
                operator = "MUST_NOT"
            elif _inside(match.start, required):
                operator = "MUST"
            conditions.append(FilterCondition(match.value.dimension, (match.value.name,), operator))
    positive = "".join(ch for i, ch in enumerate(text) if not any(a <= i < b for a, b in negated_spans))
    return BriefAnalysis(_drop_weaker_duplicates(merge_conditions(conditions)), positive)


def _drop_weaker_duplicates(conditions: tuple[FilterCondition, ...]) -> tuple[FilterCondition, ...]:
    """A value that is MUST is not also SHOULD (MUST and MUST_NOT together stay: a contradiction)."""
    required = {(c.field, v) for c in conditions if c.operator == "MUST" for v in c.values}
    kept = []
    for cond in conditions:
        values = cond.values
        if cond.operator == "SHOULD":
            values = tuple(v for v in values if (cond.field, v) not in required)
        if values:
            kept.append(FilterCondition(cond.field, values, cond.operator))
    return tuple(kept)


def extract_keywords(text: str, language: str, cues: Cues) -> tuple[str, ...]:
    """BM25 keywords: jieba's TF-IDF keywords for Chinese, frequent content words for English."""
    cue_words = {w.lower() for w in (*cues.negation, *cues.must, *cues.contrast)} | brief_stopwords()
    if language == "zh":
        stop = stopwords()["zh"]
        words = [w for w in jieba.analyse.extract_tags(text, topK=MAX_KEYWORDS * 2)
                 if w.lower() not in stop and w.lower() not in cue_words and w.strip() and not w.isdigit()]
    else:
        tokens = [t for t in tokenize(text, "en") if t not in cue_words and not t.isdigit()]
        counts = Counter(tokens)
        words = sorted(dict.fromkeys(tokens), key=lambda t: -counts[t])
    return tuple(dict.fromkeys(words))[:MAX_KEYWORDS]


class RulesTranslator(Translator):
    """Offline and deterministic: the same brief always gives the same ThemeQuery."""

    name = "rules"

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self.cues = load_cues()

    def translate(self, theme: Theme) -> ThemeQuery:
        brief = theme.brief
        language = detect_language(brief)
        analysis = analyse_brief(brief, self.vocabulary, self.cues)
        keywords = extract_keywords(analysis.positive_text, language, self.cues)
        positive = [c for c in analysis.conditions if c.operator != "MUST_NOT"]
        descriptions = [
            value.description if language == "zh" else value.description_en
            for cond in positive for value in (self.vocabulary.value(cond.field, v) for v in cond.values)
        ]
        synthetic = " ".join([analysis.positive_text.replace("\n", " ").strip(), *descriptions]).strip()
        matched = sum(len(c.values) for c in analysis.conditions)
        confidence = min(0.9, 0.3 + 0.1 * matched + (0.1 if len(keywords) >= 3 else 0.0))
        return ThemeQuery(
            filter_conditions=analysis.conditions,
            search_keywords=keywords,
            synthetic_query=synthetic or brief,
            confidence=round(confidence, 2),
            translator=self.name,
            language=language,
            numeric_conditions=parse_numeric_conditions(brief),
        )
