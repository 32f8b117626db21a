"""The similarity above which a topic's vector match to a catalog subject is right at least 90% of the time
(tasks/understanding/subjects.py VECTOR_THRESHOLD).

Topics: every term of config/term_mapping.yaml and config/synonyms.yaml, both languages. A subject is right for a
topic when its words say the topic or one of its other names: the same words up to stems, a mapped term or synonym
of them, or a heading holding one of them (English whole words, Chinese anywhere): "Male friendship" is right for
"friendship", "Psychiatrists" is not right for "psychology". Only topics with at least one right subject in the
catalog count. Every (topic, subject) pair at or above 0.4 similarity is judged; the threshold is the lowest
similarity from which on at least 90% of the pairs are right.

That judge is strict: "biography" / 传记 and "coast" / "Seashore" are wrong by it. benchmarks/subject_pairs_judged.tsv
holds 100 of the pairs it calls wrong (similarity 0.60-0.86), judged by hand; the share of them right corrects
the curve ("corrected": each pair the judge calls wrong counts as that share right), and the corrected threshold
is the one the product uses.

By kind of pair (2026-11-27, the demo's and the Gutenberg catalog's subjects): a short topic or subject (one word
of up to 6 letters, up to 2 Chinese characters) is right from 0.772 across languages and 0.767 within one, a longer
one from 0.835 and 0.810: short strings need no stricter threshold than the one the product uses, so a wrong
short match ("older adults" and 老子) is not caught by its length.

    .venv/bin/python benchmarks/subject_threshold.py var/indexes [other/indexes ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from config.settings import CONFIG_DIR, load_settings
from config.yaml_files import read_yaml
from storage.index_root import IndexRoot
from storage.index_store import open_current
from storage.subject_store import read_subjects
from tasks.language.embedders import create_embedder
from tasks.model.conditions import subject_words
from tasks.understanding.expansion import load_expansion_tables
from tasks.understanding.subjects import SubjectVocabulary, _same

FLOOR, PRECISION = 0.4, 0.9
SHORT_LETTERS, SHORT_HANZI = 6, 2


def short(text: str) -> bool:
    """One English word of at most SHORT_LETTERS letters, or at most SHORT_HANZI Chinese characters ("Asia", 老子)."""
    words = subject_words(text)
    return len(words) <= SHORT_LETTERS if words.isascii() else len(words.replace(" ", "")) <= SHORT_HANZI
PAIRS: list[tuple[str, str, float, bool]] = []  # every judged pair, for a sample to be judged by hand
SHOW = "--show" in sys.argv  # print each topic's nearest subjects and how they were judged
SHORT: list[tuple[bool, bool]] = []  # per judged pair: the topic or the subject is `short`; the two across languages


def topics() -> list[str]:
    terms = (read_yaml(CONFIG_DIR / "term_mapping.yaml") or {}).get("terms") or {}
    groups = (read_yaml(CONFIG_DIR / "synonyms.yaml") or {}).get("groups") or []
    found = [str(t) for zh, en in terms.items() for t in (zh, *(en or ()))]
    found += [str(m) for group in groups for m in group]
    return list(dict.fromkeys(found))


def says(label: str, term: str) -> bool:
    """Whether a subject's words say the term: English whole words, Chinese anywhere."""
    words, wanted = subject_words(label), subject_words(term)
    if not wanted:
        return False
    return f" {wanted} " in f" {words} " if wanted.isascii() else wanted in words.replace(" ", "")


def judged_pairs(vocabulary: SubjectVocabulary, embedder) -> list[tuple[float, bool]]:
    tables = load_expansion_tables()
    rows = [i for i, s in enumerate(vocabulary.subjects) if s.kind != "tag"]
    subjects = [vocabulary.subjects[i] for i in rows]
    matrix = vocabulary.vectors[rows]
    pairs = []
    terms = topics()
    vectors = embedder.embed_queries(terms)
    for term, vector in zip(terms, vectors):
        names = (term, *_same(term, tables))
        lexical = {m.subject for n in names for m in vocabulary.lexical(n)}
        right = [s in lexical or any(says(s.label, n) or any(says(a, n) for a in s.aliases) for n in names)
                 for s in subjects]
        if not any(right):
            continue
        similarity = matrix @ vector
        pairs += [(float(similarity[i]), right[i]) for i in np.flatnonzero(similarity >= FLOOR).tolist()]
        SHORT.extend((short(term) or short(subjects[i].label), term.isascii() != subjects[i].label.isascii())
                     for i in np.flatnonzero(similarity >= FLOOR).tolist())
        PAIRS.extend((term, subjects[i].label, float(similarity[i]), right[i])
                     for i in np.flatnonzero(similarity >= FLOOR).tolist())
        if SHOW:
            print(term, [(subjects[i].label, round(float(similarity[i]), 2), right[i])
                         for i in np.argsort(-similarity)[:4].tolist()])
    return pairs


def threshold(pairs: list[tuple[float, bool]]) -> tuple[float, list[tuple[float, float, int]]]:
    """The lowest similarity from which on PRECISION of the pairs are right, and the curve (from, precision, pairs)."""
    pairs = sorted(pairs, reverse=True)
    curve, right, best = [], 0, None
    for n, (similarity, ok) in enumerate(pairs, 1):
        right += ok
        curve.append((similarity, right / n, n))
    for similarity, precision, _ in curve:
        if precision >= PRECISION:
            best = similarity
    return best if best is not None else 1.0, curve


def hand_judged_share(path: Path = Path(__file__).with_name("subject_pairs_judged.tsv")) -> float:
    """The share of the word judge's wrong pairs a person judged right."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return sum(int(r[3]) for r in rows) / len(rows)


def corrected(pairs: list[tuple[float, bool]], share: float) -> float:
    """The lowest similarity from which on PRECISION of the pairs are right, a judged-wrong pair counting `share`."""
    best, right = 1.0, 0.0
    for n, (similarity, ok) in enumerate(sorted(pairs, reverse=True), 1):
        right += 1.0 if ok else share
        if right / n >= PRECISION:
            best = similarity
    return best


def main(folders: list[str]) -> None:
    settings = load_settings()
    embedder = create_embedder(settings.embedder)
    pairs = []
    for folder in folders:
        snapshot = open_current(IndexRoot(Path(folder)))
        subjects, vectors = read_subjects(snapshot.path)
        vocabulary = SubjectVocabulary(subjects, vectors)
        found = judged_pairs(vocabulary, embedder)
        found_threshold, _ = threshold(found)
        print(f"{folder}: {len(subjects)} subjects, {len(found)} judged pairs, "
              f"{sum(ok for _, ok in found)} right; 90% precision from {found_threshold:.3f}")
        pairs += found
    best, curve = threshold(pairs)
    for mark in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
        above = [(p, n) for s, p, n in curve if s >= mark]
        if above:
            print(f"  from {mark:.2f}: precision {above[-1][0]:.3f} over {above[-1][1]} pairs")
    share = hand_judged_share()
    print(f"all: {len(pairs)} pairs; threshold {best:.3f} by the word judge; {share:.2f} of its wrong pairs judged "
          f"right by hand: corrected threshold {corrected(pairs, share):.3f}")
    for name, wanted in (("short, across languages", (True, True)), ("short, one language", (True, False)),
                         ("longer, across languages", (False, True)), ("longer, one language", (False, False))):
        part = [p for p, kind in zip(pairs, SHORT) if kind == wanted]
        print(f"  {name}: {len(part)} pairs, corrected threshold {corrected(part, share):.3f}")


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a != "--show"] or ["var/indexes"])
